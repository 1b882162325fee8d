"""``npu-lint check``: run the analysis core over files and folders, apply fixes, print findings and summaries."""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

from npu_lint import config as configuration
from npu_lint.cli_options import UsageError, split_codes, split_globs
from npu_lint.context import FileContext
from npu_lint.core import analyse_tree, calls_project_wrapper, dispatch_for
from npu_lint.finding import Finding
from npu_lint.isolation import EXIT_INTERNAL_ERROR, TOO_DEEP, internal_error, with_deep_stack
from npu_lint.notebooks import Notebook, load_source
from npu_lint.sources import Unreadable, discover, display, encoding_of, read_bytes
from npu_lint.syntax_errors import parse_or_finding
from npu_lint.versions import Target, default_release, parse_target

if TYPE_CHECKING:
    from npu_lint.analysis.project import ProjectView


class Checker:
    """Runs the core over files, with per-directory configuration and command-line overrides."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.select = split_codes(args.select)
        self.extend_select = split_codes(args.extend_select) or []
        self.ignore = (split_codes(args.ignore) or []) + (split_codes(args.extend_ignore) or [])
        self.exclude = split_globs(args.exclude)
        self.extend_exclude = split_globs(args.extend_exclude) or ()
        self.explicit = configuration.load(Path(args.config)) if args.config else None
        self.warnings = 0
        self.internal_errors = 0   # files skipped because of a bug of ours: exit EXIT_INTERNAL_ERROR
        self.hidden_unsafe_fixes = 0   # fixes that --unsafe-fixes would add
        self.projects: list[tuple[Path, "ProjectView"]] = []   # (folder, index) for the folders given
        from npu_lint.project.parsed import ParsedFiles
        self.parsed = ParsedFiles()   # files the index build parsed and bound, taken back by the walk (parsed once)
        self.blocked_fixes = 0         # .cuda()/'cuda' fixes not possible (no torch import to add torch_npu after)
        self.fixed: list[tuple[str, Finding]] = []
        self.changed_files = 0
        self.files_checked = 0
        if args.torch_npu_version:
            parse_target(args.torch_npu_version)

    def config_for(self, path: Path) -> configuration.Config:
        config = self.explicit or configuration.find(path.parent if path.is_file() else path)
        if self.exclude is not None or self.extend_exclude:
            config = dataclasses.replace(config, exclude=self.exclude if self.exclude is not None else config.exclude,
                                         extend_exclude=config.extend_exclude + self.extend_exclude)
        return config

    def codes_for(self, config: configuration.Config) -> frozenset[str]:
        # A --select on the command line starts the selection afresh (as in ruff); --ignore then narrows it.
        if self.select is not None:
            select, ignore = self.select + self.extend_select, self.ignore
        else:
            select = list(config.select) + list(config.extend_select) + self.extend_select
            if not config.select and (config.extend_select or self.extend_select):
                select = ["NPU"] + select   # extend-select adds to the default selection
            ignore = list(config.ignore) + self.ignore
        return configuration.enabled_codes(select, ignore)

    def target_for(self, config: configuration.Config) -> Target:
        return parse_target(self.args.torch_npu_version or config.torch_version or default_release())

    def files(self, paths: Sequence[str]) -> list[Path]:
        found: list[Path] = []
        for text in paths:
            path = Path(text)
            if not path.exists():
                raise UsageError(f"{text}: no such file or directory")
            config = self.config_for(path)
            if path.is_file():
                if not config.excludes(path) or self.args.no_exclude:
                    found.append(path)
            else:
                found.extend(discover(path, config.excludes, self.warn))
        return found

    def fix_file(self, path: Path, findings: list[Finding], source: str) -> list[Finding]:
        """Apply (``--fix``) or show (``--diff``) the safe fixes (and the unsafe ones with ``--unsafe-fixes``);
        return the findings still open."""
        from npu_lint.fixes import apply, blocked, fixable, unified_diff
        unsafe = self.args.unsafe_fixes
        try:
            encoding = encoding_of(read_bytes(path))
            fixed_source, fixed = with_deep_stack(apply, source, findings, unsafe=unsafe)
        except Unreadable as error:
            self.warn(f"{display(path)}: not fixed: {error}")
            return findings
        except RecursionError:
            self.warn(f"{display(path)}: not fixed: {TOO_DEEP}")
            return findings
        except Exception as error:   # isolation: the file stays as it was
            self.internal(path, error, "not fixed")
            return findings
        if not unsafe:
            self.hidden_unsafe_fixes += sum(1 for f in findings if fixable(f, source, unsafe=True)
                                            and not fixable(f, source))
        self.blocked_fixes += sum(1 for f in findings if blocked(f, source))
        self.fixed.extend((str(path), f) for f in fixed)
        if fixed:
            self.changed_files += 1
        if fixed and self.args.diff:
            sys.stdout.write(unified_diff(str(path), source, fixed_source))
        elif fixed:
            try:
                _write_in_place(path, fixed_source.encode(encoding))
            except OSError as error:
                self.warn(f"{display(path)}: not fixed: cannot write: {error.strerror or error}")
                return findings
        return [f for f in findings if f not in fixed]

    def check_file(self, path: Path) -> tuple[list[Finding], str, Optional[Notebook]]:
        """The findings of one file (notebooks: located in the .ipynb), its analysed source and notebook."""
        config = self.config_for(path)
        dropped = config.ignored_for(path)
        codes = frozenset(code for code in self.codes_for(config) if not code.startswith(dropped))
        syntax = configuration.SYNTAX_ERROR in codes
        if not dispatch_for(codes).codes and not syntax:
            return [], "", None
        try:
            source, notebook = load_source(path)
        except Unreadable as error:
            self.warn(f"{display(path)}: skipped: {error}")
            return [], "", None
        self.files_checked += 1
        project = self.project_for(path)
        dispatch = dispatch_for(codes)
        if not syntax and not dispatch.wanted(source) and not (
                project is not None and calls_project_wrapper(dispatch, project[1], source)):
            return [], source, notebook
        kept = self.parsed.take(path, source) if notebook is None else None
        tree = kept[0] if kept is not None else parse_or_finding(source, str(path))
        if isinstance(tree, Finding):
            if not syntax:   # --ignore NPU001: the old behaviour, a warning that does not fail the run
                self.warn(f"{display(path)}: skipped: {tree.message} at line {tree.line}")
            findings = [tree] if syntax else []
        else:
            ctx = self.context_for(project, source, config) or FileContext(source, self.target_for(config))
            ctx.path = str(path)
            if kept is not None and ctx.project is not None:
                ctx.resolver.attach(tree, kept[1])   # the scopes the index build bound
            try:
                findings = analyse_tree(tree, source, self.target_for(config), codes,
                                        noqa=not self.args.disable_noqa, third_party=config.third_party(), ctx=ctx)
            except Exception as error:   # isolation: one file's bug is one line, the run goes on
                self.internal(path, error, "skipped")
                return [], source, notebook
            finally:
                ctx.close()   # the model's scopes and the rules' facts hold cycles: freed now
        if notebook is not None:
            findings = [notebook.locate(f) for f in findings]
        return findings, source, notebook

    def internal(self, path: Path, error: Exception, what: str) -> None:
        self.internal_errors += 1
        self.warn(f"{display(path)}: {what}: {internal_error(error)}")

    def index_folders(self, paths: Sequence[str]) -> None:
        """Build (or refresh from its cache) the project index of each folder given, as ruff keeps its cache;
        ``--no-cache``: built in memory, the cache neither read nor written (the findings are the same)."""
        from npu_lint.analysis.project import build_view, cache_folder
        for text in paths:
            folder = Path(text)
            if folder.is_dir():
                warnings: list[str] = []
                view = build_view([folder], warnings, cache_dir=None if self.args.no_cache else cache_folder(folder),
                                  keep=self.parsed)
                for message in warnings:
                    self.warn(message)
                if view is not None:
                    self.projects.append((folder.resolve(), view))

    def project_for(self, path: Path) -> Optional[tuple[str, "ProjectView"]]:
        """(the file's path inside its project, the project index) for a file of a folder given, else None."""
        resolved = path.resolve()
        for folder, view in self.projects:
            if resolved.is_relative_to(folder):
                return resolved.relative_to(folder).as_posix(), view
        return None

    def context_for(self, project: Optional[tuple[str, "ProjectView"]], source: str,
                    config: configuration.Config) -> Optional[FileContext]:
        """A context that knows the file's project index (None without one)."""
        if project is None:
            return None
        ctx = FileContext(source, self.target_for(config))
        ctx.use_project(project[1], project[0])
        return ctx

    def warn(self, message: str) -> None:
        self.warnings += 1
        print(f"npu-lint: warning: {message}", file=sys.stderr)


def _plural(count: int, word: str, plural: str = "") -> str:
    return f"{count} {word if count == 1 else plural or word + 's'}"


def run_check(args: argparse.Namespace) -> int:
    from npu_lint import output
    from npu_lint.fixes import fixable
    checker = Checker(args)
    checker.index_folders(args.paths)
    fixing = args.fix or args.diff
    items: list[output.Diagnostic] = []
    for path in checker.files(args.paths):
        findings, source, notebook = checker.check_file(path)
        if findings and fixing and notebook is None:
            remaining = checker.fix_file(path, findings, source)
            if args.fix and len(remaining) < len(findings):   # positions moved (an import added): check again
                checker.files_checked -= 1
                remaining, source, notebook = checker.check_file(path)
            findings = remaining
        lines = source.splitlines()
        for finding in findings:
            line = finding.line if notebook is None else _source_line(notebook, finding)
            unsafe_ok = fixable(finding, source, unsafe=True) and notebook is None
            fix = ("safe" if fixable(finding, source) else "unsafe") if unsafe_ok else ""
            items.append(output.Diagnostic(display(path), finding, fix,
                                           lines[line - 1] if 0 < line <= len(lines) else ""))
    if args.statistics:
        sys.stdout.write(output.statistics(items, args.output_format))
        if args.output_format not in ("json", "sarif", "gitlab"):
            from npu_lint.summary import summarise, table
            print()
            print("\n".join(table(summarise((d.path, d.finding) for d in items))))
    elif not args.diff and (items or args.output_format in ("json", "sarif", "gitlab")):
        sys.stdout.write(output.render(args.output_format, items))
    if not args.quiet and (not args.statistics or fixing):   # ruff: --statistics prints the table only
        _summary_lines(args, checker, items)
    if checker.internal_errors:   # a bug of ours skipped a file: not the same as "findings"
        return EXIT_INTERNAL_ERROR
    if args.diff:   # ruff: 1 when the diff is not empty, whatever cannot be fixed
        return 1 if checker.fixed else 0
    if args.exit_non_zero_on_fix and checker.fixed and args.fix:
        return 1
    return 1 if items and not args.exit_zero else 0


def _source_line(notebook: Notebook, finding: Finding) -> int:
    """The line of the notebook's joined source that holds a located finding."""
    for index, (cell, cell_line) in enumerate(zip(notebook.cells, notebook.cell_lines)):
        if cell == finding.cell and cell_line == finding.cell_line:
            return index + 1
    return 0


def _summary_lines(args: argparse.Namespace, checker: Checker, items: list) -> None:
    """ruff's closing lines, on standard error (standard output stays the findings only)."""
    out = sys.stderr
    fixed, remaining = len(checker.fixed), len(items)
    safe = sum(1 for d in items if d.fix == "safe")
    unsafe = sum(1 for d in items if d.fix == "unsafe")
    if args.show_fixes and checker.fixed:
        verb = "Would fix" if args.diff else "Fixed"
        print(f"{verb} {_plural(fixed, 'error')}:", file=out)
        by_file: dict[str, dict[str, int]] = {}
        for path, finding in checker.fixed:
            by_file.setdefault(path, {}).setdefault(finding.code, 0)
            by_file[path][finding.code] += 1
        from npu_lint.output import rule_names
        names = {code: name for code, (name, _) in rule_names().items()}
        for path, codes in by_file.items():
            print(f"- {path}:", file=out)
            for code, count in sorted(codes.items()):
                print(f"    {count} \u00d7 {code} ({names.get(code, '')})", file=out)
    if args.diff:
        if fixed:
            extra = f" ({_plural(checker.hidden_unsafe_fixes, 'additional fix', 'additional fixes')} available with " \
                    "`--unsafe-fixes`)" if checker.hidden_unsafe_fixes else ""
            print(f"Would fix {_plural(fixed, 'error')}{extra}.", file=out)
        else:
            unfixable = f" ({_plural(remaining, 'error')} not fixable)" if remaining else ""
            print(f"No errors would be fixed{unfixable}.", file=out)
    elif args.fix and fixed:
        print(f"Found {_plural(fixed + remaining, 'error')} ({fixed} fixed, {remaining} remaining).", file=out)
    elif remaining:
        print(f"Found {_plural(remaining, 'error')}.", file=out)
    elif checker.files_checked and not args.fix:
        print("All checks passed!", file=out)
    if not args.diff and not args.fix:
        if safe:
            hidden = f" ({_plural(unsafe, 'hidden fix', 'hidden fixes')} can be enabled with the `--unsafe-fixes` " \
                     "option)" if unsafe and not args.unsafe_fixes else ""
            print(f"[*] {safe} fixable with the `--fix` option{hidden}.", file=out)
        elif unsafe and not args.unsafe_fixes:
            print(f"No fixes available ({_plural(unsafe, 'hidden fix', 'hidden fixes')} can be enabled with the "
                  "`--unsafe-fixes` option).", file=out)
        if args.unsafe_fixes:
            total = safe + unsafe
            print(f"npu-lint: warning: --unsafe-fixes changes nothing without --fix or --diff "
                  f"({_plural(total, 'fix', 'fixes')} available with `--fix --unsafe-fixes`).", file=out)
    elif checker.hidden_unsafe_fixes and args.fix:
        print(f"{_plural(checker.hidden_unsafe_fixes, 'hidden fix', 'hidden fixes')} can be enabled with the "
              "`--unsafe-fixes` option (review them: they can change the meaning).", file=out)
    if checker.blocked_fixes and (args.fix or args.diff):
        from npu_lint.fixes import WHY_BLOCKED
        print(f"{_plural(checker.blocked_fixes, 'fix', 'fixes')} not applied: .npu() and the 'npu' device "
              f"{WHY_BLOCKED}.", file=out)


def _write_in_place(path: Path, data: bytes) -> None:
    """Replace a fixed file through a temporary file beside it (same mode), so a kill never leaves half a file."""
    import tempfile
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".npu-lint", dir=path.parent)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.chmod(temporary, path.stat().st_mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
