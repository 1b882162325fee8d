"""flake8 entry point (``NPU``). Thin: it hands flake8's tree to the core.

flake8 runs every installed plugin on every file and filters afterwards, so the selection
is worked out once in ``parse_options`` and ``run`` returns at once when no NPU code is on.
"""
from __future__ import annotations

import ast
import gc
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar, Iterator, Optional

from npu_lint import __version__


class NpuLintChecker:
    """flake8 tree plugin."""

    name = "npu-lint"
    version = __version__
    codes: ClassVar[Optional[frozenset[str]]] = None   # None: not configured (all rules on by default)
    torch_version: ClassVar[Optional[str]] = None
    noqa: ClassVar[bool] = True   # our own noqa pass (case-insensitive codes, whole statement); off with --disable-noqa

    def __init__(self, tree: ast.AST, filename: str = "stdin", lines: Optional[list[str]] = None) -> None:
        self.tree = tree
        self.filename = filename
        self.lines = lines or []

    @classmethod
    def add_options(cls, manager: Any) -> None:
        from npu_lint.rules import all_rules
        from npu_lint.versions import default_release
        manager.add_option("--torch-npu-version", parse_from_config=True, default=None, metavar="VERSION",
                           help="target torch-npu release for npu-lint (default: [tool.npu-lint] torch-npu-version, "
                                f"else {default_release()}); --npu-torch-version is the old name")
        manager.add_option("--npu-torch-version", parse_from_config=True, default=None, metavar="VERSION",
                           help="old name of --torch-npu-version")
        off = [rule.code for rule in all_rules() if not rule.default_enabled]
        if off:
            manager.extend_default_ignore(off)

    @classmethod
    def parse_options(cls, options: Any) -> None:
        from npu_lint.rules import all_rules
        from npu_lint.versions import UnknownVersion, parse_target
        new, old = getattr(options, "torch_npu_version", None), getattr(options, "npu_torch_version", None)
        cls.torch_version = new or old
        cls.noqa = not getattr(options, "disable_noqa", False)
        if cls.torch_version:
            try:
                parse_target(cls.torch_version)
            except UnknownVersion as error:
                name = "--torch-npu-version" if new else "--npu-torch-version"
                print(f"npu-lint: error: {name}: {error}", file=sys.stderr)
                raise SystemExit(2) from None
        _check_npu_selectors(options)
        try:
            from flake8.style_guide import Decision, DecisionEngine
            engine = DecisionEngine(options)
            explicit = [code.strip().upper() for option in ("select", "extend_select")
                        for code in (getattr(options, option, None) or [])]
            cls.codes = frozenset(
                rule.code for rule in all_rules() if engine.decision_for(rule.code) is Decision.Selected
                # an off-by-default rule needs its full code selected (``--extend-select NPU102``), not just ``NPU``
                and (rule.default_enabled or any(rule.code.startswith(e) and len(e) >= len(rule.code) for e in explicit)))
        except Exception:  # flake8 internals changed: run everything, flake8 still filters
            cls.codes = None

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        if self.codes is not None and not self.codes:
            return
        from npu_lint.config import ConfigError, find
        from npu_lint.context import FileContext
        from npu_lint.core import analyse_tree, dispatch_for
        from npu_lint.rules import all_rules
        from npu_lint.versions import default_release, parse_target
        codes = self.codes if self.codes is not None else frozenset(r.code for r in all_rules() if r.default_enabled)
        source = "".join(self.lines)
        path = Path(self.filename)
        notebook = None
        if path.suffix == ".ipynb":   # flake8 --filename '*.py,*.ipynb': the code cells, mapped back to the file
            from npu_lint.notebooks import NotebookError, parse_notebook
            try:
                notebook = parse_notebook(source)
            except NotebookError:
                return
            source = notebook.source
        if not dispatch_for(codes).wanted(source) and not _calls_project_wrapper(codes, source, path):
            return
        try:
            config = _config_of(find, path.parent if self.filename not in ("stdin", "-") else Path.cwd())
        except ConfigError as error:
            _warn_once(str(error))
            config = None
        target_text = self.torch_version or (config.torch_version if config else None) or default_release()
        if config is not None:
            dropped = config.ignore + config.ignored_for(path)
            codes = frozenset(c for c in codes if not any(c.startswith(prefix) for prefix in dropped))
            if config.excludes(path):
                return
        third_party = config.third_party(build=False) if config is not None else frozenset()   # flake8 never builds
        tree = self.tree
        if notebook is not None:
            from npu_lint.syntax_errors import parse_or_finding
            tree = parse_or_finding(source, self.filename)
            if not isinstance(tree, ast.AST):   # a cell that does not parse: flake8 has no E999 for it
                tree = notebook.locate(tree)
                text = f"NPU001 {tree.message} (cell {tree.cell}, line {tree.cell_line})"
                yield tree.line, tree.col, text, type(self)
                return
        try:
            target = parse_target(target_text)
            ctx = _project_context(source, target, path) or FileContext(source, target)
            ctx.path = str(path)
            with _walk_collector():
                try:
                    findings = analyse_tree(tree, source, target, codes, noqa=self.noqa, third_party=third_party,
                                            ctx=ctx)
                finally:
                    ctx.close()   # the model's scopes and the rules' facts hold cycles: freed now, by reference counts
            _freeze_start_up()
        except Exception as error:   # isolation: one file's bug is one NPU000 line, never a flake8 traceback
            from npu_lint.isolation import internal_error
            yield 1, 0, f"NPU000 {internal_error(error)}: file skipped", type(self)
            return
        for finding in findings:
            if notebook is not None:
                finding = notebook.locate(finding)
            yield finding.line, finding.col, finding.text(), type(self)


def _check_npu_selectors(options: Any) -> None:
    """An unknown ``NPU`` code in flake8's select/ignore options is an error (exit 2), as in ``npu-lint check``:
    a typo must not switch the check off silently. Other plugins' codes are flake8's business."""
    from npu_lint.config import selector
    for option in ("select", "extend_select", "ignore", "extend_ignore"):
        for code in getattr(options, option, None) or []:
            if code.strip().upper().startswith("NPU"):
                try:
                    selector(code)
                except ValueError as error:
                    print(f"npu-lint: error: --{option.replace('_', '-')}: {error}", file=sys.stderr)
                    raise SystemExit(2) from None


_WARNED: set[str] = set()


@contextmanager
def _walk_collector() -> Iterator[None]:
    """The collector during one file's walk.

    - It is off during the walk, back on after it. A walk makes almost no cyclic garbage (its model's cycles are
      broken by ``Resolver.close`` and freed by reference counts), but the full passes the collector ran while a
      walk was under way scanned the whole model of the file then alive: with -j1 over timm and mmdet (1,775 files)
      full passes took 27.9 s of flake8's 74.6 s CPU; 5.6 s of 67.4 s now (pyflakes alone: 4.2 s of 46.3 s). Peak
      memory 86 -> 75 MB.
    - After the first walk, what is alive then (flake8's application and options, npu-lint's rules and rule tables,
      loaded by that walk) is frozen once (``gc.freeze``, the pattern CPython documents for long-lived start-up
      state), so later full passes skip it. The core's per-walk freeze (:func:`npu_lint.collector.walking`) is held
      off: its ``unfreeze`` would thaw that state. The objects frozen stay for the process's life (flake8's run)."""
    from npu_lint import collector
    collector.HELD[0] += 1
    try:
        if not gc.isenabled():
            yield
            return
        gc.disable()
        try:
            yield
        finally:
            gc.enable()
    finally:
        collector.HELD[0] -= 1


def _freeze_start_up() -> None:
    """Once per process, after the first file's model is closed: the live objects to the permanent generation
    (:func:`_walk_collector`); the first file's garbage is collected first, so none of it is kept."""
    if _FROZEN or not gc.isenabled():
        return
    _FROZEN.append(True)
    gc.collect()
    gc.freeze()


_FROZEN: list[bool] = []


_CONFIGS: dict[Path, Any] = {}   # folder -> its config (or the ConfigError it gave): flake8 asks for every file


def _config_of(find: Any, folder: Path) -> Any:
    """``find(folder)``, once per folder and process: the files of one folder share their config, and the search
    upwards (a ``resolve`` and an ``is_file`` per parent folder) cost ~2 % of the plugin per file."""
    from npu_lint.config import remembered
    # a ConfigError: raised again for every file of the folder, as before
    return remembered(_CONFIGS, folder, lambda: find(folder), 4096, (Exception,))


def _warn_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        print(f"npu-lint: error: {message}", file=sys.stderr)


def _calls_project_wrapper(codes: frozenset[str], source: str, path: Path) -> bool:
    """The file calls a wrapper of a torch op defined elsewhere in the project (from the index ``check`` built)."""
    if path.name in ("stdin", "-"):
        return False
    from npu_lint.analysis.project import cached_view
    from npu_lint.core import calls_project_wrapper, dispatch_for
    found = cached_view(path)
    return found is not None and calls_project_wrapper(dispatch_for(codes), found[0], source)


def _project_context(source: str, target: Any, path: Path) -> Any:
    """A context that knows the project index ``npu-lint check`` last built for a folder holding ``path``
    (flake8 reads it, never builds one); None without one."""
    from npu_lint.analysis.project import cached_view
    found = cached_view(path) if path.name not in ("stdin", "-") else None
    if found is None:
        return None
    from npu_lint.context import FileContext
    view, root = found
    ctx = FileContext(source, target)
    ctx.use_project(view, path.resolve().relative_to(root).as_posix())
    return ctx
