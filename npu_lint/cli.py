"""The ``npu-lint`` command: ``check`` (lint files), ``analyse`` (the migration report), ``rules`` /
``rule CODE`` (documentation) and ``tables diff A B`` (verdict changes between releases)."""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import NoReturn, Optional, Sequence

from npu_lint import __version__
from npu_lint import config as configuration
from npu_lint.context import FileContext
from npu_lint.core import analyse_tree, calls_project_wrapper, dispatch_for
from npu_lint.finding import Finding
from npu_lint.isolation import EXIT_INTERNAL_ERROR, TOO_DEEP, internal_error, with_deep_stack
from npu_lint.notebooks import Notebook, load_source
from npu_lint.sources import Unreadable, discover, display, encoding_of, read_bytes
from npu_lint.syntax_errors import parse_or_finding
from npu_lint.versions import Target, UnknownVersion, default_release, parse_target


class UsageError(Exception):
    """Bad input: printed as one line, exit status 2."""


def _split_codes(text: Optional[str]) -> Optional[list[str]]:
    """A comma-separated selector list from the command line (``None`` when the option is absent)."""
    if text is None:
        return None
    try:
        return [configuration.selector(c) for c in text.split(",") if c.strip()]
    except ValueError as error:
        raise UsageError(str(error)) from None


def _split_globs(text: Optional[str]) -> Optional[tuple[str, ...]]:
    return None if text is None else tuple(g.strip() for g in text.split(",") if g.strip())


class Checker:
    """Runs the core over files, with per-directory configuration and command-line overrides."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.select = _split_codes(args.select)
        self.extend_select = _split_codes(args.extend_select) or []
        self.ignore = (_split_codes(args.ignore) or []) + (_split_codes(args.extend_ignore) or [])
        self.exclude = _split_globs(args.exclude)
        self.extend_exclude = _split_globs(args.extend_exclude) or ()
        self.explicit = configuration.load(Path(args.config)) if args.config else None
        self.warnings = 0
        self.internal_errors = 0   # files skipped because of a bug of ours: exit EXIT_INTERNAL_ERROR
        self.hidden_unsafe_fixes = 0   # fixes that --unsafe-fixes would add
        self.projects: list[tuple[Path, object]] = []   # (folder, ProjectView) for the folders given
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
        ctx = self.context_for(path, source, config)
        dispatch = dispatch_for(codes)
        if not syntax and not dispatch.wanted(source) and not (
                ctx is not None and calls_project_wrapper(dispatch, ctx.project, source)):
            return [], source, notebook
        tree = parse_or_finding(source, str(path))
        if isinstance(tree, Finding):
            if not syntax:   # --ignore NPU001: the old behaviour, a warning that does not fail the run
                self.warn(f"{display(path)}: skipped: {tree.message} at line {tree.line}")
            findings = [tree] if syntax else []
        else:
            try:
                findings = analyse_tree(tree, source, self.target_for(config), codes,
                                        noqa=not self.args.disable_noqa, third_party=config.third_party(),
                                        ctx=ctx)
            except Exception as error:   # isolation: one file's bug is one line, the run goes on
                self.internal(path, error, "skipped")
                return [], source, notebook
        if notebook is not None:
            findings = [notebook.locate(f) for f in findings]
        return findings, source, notebook

    def internal(self, path: Path, error: Exception, what: str) -> None:
        self.internal_errors += 1
        self.warn(f"{display(path)}: {what}: {internal_error(error)}")

    def index_folders(self, paths: Sequence[str]) -> None:
        """Build (or refresh from its cache) the project index of each folder given, as ruff keeps its cache."""
        from npu_lint.analysis.project import build_view, cache_folder
        for text in paths:
            folder = Path(text)
            if folder.is_dir() and not self.args.no_cache:
                warnings: list[str] = []
                view = build_view([folder], warnings, cache_dir=cache_folder(folder))
                for message in warnings:
                    self.warn(message)
                if view is not None:
                    self.projects.append((folder.resolve(), view))

    def context_for(self, path: Path, source: str, config: configuration.Config) -> Optional[FileContext]:
        """A context that knows the project index of the folder ``path`` was found in (None without one)."""
        resolved = path.resolve()
        for folder, view in self.projects:
            if resolved.is_relative_to(folder):
                ctx = FileContext(source, self.target_for(config))
                ctx.use_project(view, resolved.relative_to(folder).as_posix())
                return ctx
        return None

    def warn(self, message: str) -> None:
        self.warnings += 1
        print(f"npu-lint: warning: {message}", file=sys.stderr)


def _plural(count: int, word: str, plural: str = "") -> str:
    return f"{count} {word if count == 1 else plural or word + 's'}"


def _check(args: argparse.Namespace) -> int:
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


def _jobs(text: str) -> int:
    """``-j N``: 1 to four times the CPU count."""
    highest = (os.cpu_count() or 1) * 4
    try:
        jobs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if not 1 <= jobs <= highest:
        raise argparse.ArgumentTypeError(f"{jobs} is not between 1 and {highest} (four times the CPU count)")
    return jobs


def _rules(args: argparse.Namespace) -> int:
    from npu_lint.rules import all_rules
    for code, (name, summary) in configuration.SPECIAL_CODES.items():
        print(f"{code}  {name:<28} {summary}")
    for rule in all_rules():
        state = "" if rule.default_enabled else "  (off by default)"
        print(f"{rule.code}  {rule.name:<28} {rule.summary().replace('``', '`')}{state}")
    return 0


def _rule(args: argparse.Namespace) -> int:
    from npu_lint.docs import rule_page
    from npu_lint.rules import rules_by_code
    code = args.code.strip().upper()
    if code in configuration.SPECIAL_CODES:
        name, summary = configuration.SPECIAL_CODES[code]
        print(f"## {code} `{name}`\n\n{summary}\n\nOn by default; it fails the run like any finding (flake8 reports "
              "the same files as E999, so the flake8 plugin stays silent). `--ignore NPU001` turns it into a "
              "warning on standard error, as before.")
        return 0
    rule = rules_by_code().get(code)
    if rule is None:
        try:
            configuration.selector(code)
            hint = " (a prefix: see 'npu-lint rules')"
        except ValueError as error:
            hint = str(error)[str(error).find(" ("):] if " (" in str(error) else ""
        raise UsageError(f"unknown rule code {args.code!r}{hint}")
    print(rule_page(rule))
    return 0


def _analyse_settings(args: argparse.Namespace) -> tuple[str, list[str], list[str], "configuration.Config"]:
    """``[tool.npu-lint]`` of the input's pyproject.toml (or ``--config``), with the command line overriding:
    the release, the selectors, exclusions and api-files."""
    source = Path(args.input)
    config = configuration.load(Path(args.config)) if args.config else (
        configuration.find(source) if source.is_dir() else configuration.Config(root=source))
    release = args.torch_npu_version or config.torch_version or default_release()
    select = _split_codes(args.select)
    ignore = (_split_codes(args.ignore) or []) + (_split_codes(args.extend_ignore) or [])
    if select is None:
        select = list(config.select) or []
        ignore = list(config.ignore) + ignore
    select = list(select) + list(config.extend_select) + (_split_codes(args.extend_select) or [])
    return release, select, ignore, config


def _analyse(args: argparse.Namespace) -> int:
    from npu_lint.report.run import run
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"-j/--jobs must be at least 1, not {args.jobs}")
    if args.fail_on and args.fail_on.strip().lower() != "any":
        _split_codes(args.fail_on)
    from npu_lint.third_party_cli import analyse_input, check_api_files
    args.input = analyse_input(args, UsageError)   # -i, or the folder of an installed --package
    release, select, ignore, config = _analyse_settings(args)
    target = parse_target(release)
    versions = [parse_target(v) for v in args.versions.split(",") if v.strip()] if args.versions else []
    if args.wrap_loop and args.mode != "dynamic_shape":
        raise UsageError("--wrap-loop only applies to -m dynamic_shape")
    api_files = list(args.api_files or []) + ([str(p) for p in config.api_files] if not args.api_files else [])
    check_api_files(api_files, UsageError)
    excluded = config.extend_exclude + tuple(p for p in config.exclude if p not in configuration.DEFAULT_EXCLUDE)
    settings = {"release": target.release, "source of settings": str(config.source) if config.source else "none",
                "select": ",".join(select) or "default", "ignore": ",".join(ignore) or "none",
                "exclude": ",".join(excluded) or "none", "api-files": ",".join(api_files) or "none"}
    status = run(args.input, args.output, target, args.mode, api_files, args.env_path or [],
                 args.format or [], args.fail_on, versions, args.force, jobs=args.jobs or 1,
                 use_cache=not args.no_cache, wrap_loops=args.wrap_loop or [],
                 codes=configuration.enabled_codes(select or ["ALL"], ignore), config=config, quiet=args.quiet,
                 settings=settings)
    if args.package:   # the results of an installed package also go to the user cache (third-party = [...])
        from npu_lint.third_party_cache import store
        store(args.package, target.release, Path(args.output) / f"{Path(args.input).resolve().name}_analysis")
    return status


def verdict_changes(old: str, new: str) -> list[tuple[str, str, str]]:
    """(api, verdict in ``old``, verdict in ``new``) for every API whose verdict differs; ``absent`` if missing."""
    from npu_lint.support_facts import support_table
    before, after = support_table(old), support_table(new)
    changes = []
    for api in sorted(set(before) | set(after)):
        a = before[api]["verdict"] if api in before else "absent"
        b = after[api]["verdict"] if api in after else "absent"
        if a != b:
            changes.append((api, a, b))
    return changes


def _tables_diff(args: argparse.Namespace) -> int:
    old, new = parse_target(args.old).release, parse_target(args.new).release
    changes = verdict_changes(old, new)
    print(f"api\t{old}\t{new}")
    for api, a, b in changes:
        print(f"{api}\t{a}\t{b}")
    print(f"{len(changes)} APIs change verdict from torch-npu {old} to {new}.", file=sys.stderr)
    return 0


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line (``npu-lint: error: ...``) and exit status 2."""

    def error(self, message: str) -> "NoReturn":
        self.exit(2, f"npu-lint: error: {message} (see '{self.prog} --help')\n")


_FORMATTER = argparse.RawDescriptionHelpFormatter
CHECK_EPILOG = """exit status:
  0  no findings (or --exit-zero)
  1  findings remain; with --diff: the diff is not empty
  2  bad usage or configuration (unknown option, code, release or pyproject key)

Configuration: [tool.npu-lint] in the nearest pyproject.toml (see the README); options override it.
Codes: npu-lint rules; one code: npu-lint rule NPU203."""
ANALYSE_EPILOG = """exit status:
  0  the report was written
  1  bad input or output (missing input, output inside the input, unreadable -api file, mode not available)
  2  bad usage (unknown option, mode, release or code)
  3  --fail-on matched findings

The report goes to OUTPUT/<input name>_analysis/; [tool.npu-lint] of the input's pyproject.toml applies
(torch-npu-version, select, ignore, exclude, api-files); options override it."""


def _add_release_option(parser: argparse.ArgumentParser, vendor_alias: bool = False) -> None:
    parser.add_argument("-v", "--torch-npu-version", metavar="VERSION", dest="torch_npu_version",
                        help="target torch-npu release, e.g. 2.1, 2.6.0, 2.6.0.post3 (default: torch-npu-version in "
                             f"[tool.npu-lint], else {default_release()}, the newest)")
    aliases = ["--torch-version", "--npu-torch-version"] + (["--version"] if vendor_alias else [])
    parser.add_argument(*aliases, dest="torch_npu_version", help=argparse.SUPPRESS)


def _add_selection_options(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument("--select", metavar="CODES", help=f"comma-separated codes or prefixes, or ALL (default: "
                        f"{default}); replaces the configured selection")
    parser.add_argument("--extend-select", metavar="CODES", help="codes or prefixes to add to the selection")
    parser.add_argument("--ignore", metavar="CODES", help="codes or prefixes not to report")
    parser.add_argument("--extend-ignore", metavar="CODES", help=argparse.SUPPRESS)
    parser.add_argument("--config", metavar="PYPROJECT", help="use this pyproject.toml instead of the nearest one")


def _dynamic_report(args: argparse.Namespace) -> int:
    from npu_lint.report.static_vs_runtime import OUTPUT, write
    folder = Path(args.folder)
    if not folder.is_dir():
        print(f"npu-lint: error: {args.folder} is not a directory", file=sys.stderr)
        return 1
    sites, predicted = write(folder)
    share = f" ({100 * predicted / sites:.0f}%)" if sites else ""
    print(f"{folder / OUTPUT}: {sites} varying call sites at runtime, {predicted}{share} predicted by a static finding")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from npu_lint.output import FORMATS
    from npu_lint.report.run import MODES
    parser = _Parser(prog="npu-lint", formatter_class=_FORMATTER,
                     description="Find what breaks, what is slow and what has a faster NPU API when PyTorch code "
                                 "moves from CUDA GPUs to Huawei Ascend NPUs.",
                     epilog="Start with: npu-lint check PATH   (then: npu-lint rule CODE for any code it prints)")
    parser.add_argument("--version", action="version", version=f"npu-lint {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    check = commands.add_parser(
        "check", help="lint Python files and notebooks; print path:line:col: CODE message", formatter_class=_FORMATTER,
        description="Lint Python files (.py, .pyi) and Jupyter notebooks (.ipynb) for NPU migration problems.",
        epilog=CHECK_EPILOG)
    check.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (none: nothing to check, exit 0)")
    _add_selection_options(check, "every code on by default")
    _add_release_option(check)
    check.add_argument("--output-format", choices=FORMATS, default="concise",
                       help="concise: path:line:col: CODE message (default); full: with the source line; json; sarif "
                            "(SARIF 2.1.0); github: workflow annotations; gitlab: Code Quality report")
    check.add_argument("--statistics", action="store_true", help="count findings per code (ruff's layout), then the "
                       "migration summary: files ranked by work, lines to change, effort")
    check.add_argument("--no-cache", action="store_true", help="do not build or read the project index of the folders "
                       "given (kept in the user cache, $NPU_LINT_CACHE_DIR or ~/.cache/npu-lint)")
    check.add_argument("--fix", action="store_true", help="apply the safe fixes (NPU203, NPU205, fused optimizers, "
                       "nn.SiLU) in place; the remaining findings are printed")
    check.add_argument("--diff", action="store_true", help="print the fixes as a unified diff and change nothing; "
                       "exit 1 when the diff is not empty")
    check.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff, also the fixes that "
                       "can change the meaning (NPU303 x[mask] = 0 -> x.masked_fill_(mask, 0)); review them")
    check.add_argument("--show-fixes", action="store_true", help="list the fixes applied (or, with --diff, the ones "
                       "that would be)")
    check.add_argument("--exclude", metavar="GLOBS", help="comma-separated globs; replaces the configured and "
                       "default exclusions")
    check.add_argument("--extend-exclude", metavar="GLOBS", help="globs to exclude in addition")
    check.add_argument("--no-exclude", action="store_true",
                       help="check files named on the command line even if excluded")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument("--exit-non-zero-on-fix", action="store_true", help="with --fix: exit 1 when a file was "
                       "changed, even if nothing remains")
    check.add_argument("--disable-noqa", "--ignore-noqa", action="store_true",
                       help="report findings on '# noqa' lines too")
    check.add_argument("-q", "--quiet", action="store_true", help="print the findings only, no summary lines")
    check.set_defaults(handler=_check)
    rules = commands.add_parser("rules", help="list every code with its name and summary",
                                description="List every code with its name and one-line summary.")
    rules.set_defaults(handler=_rules)
    rule = commands.add_parser("rule", help="print one code's page: what, why on NPU, example, use instead, fix",
                               description="Print the documentation page of one code (Markdown).")
    rule.add_argument("code", metavar="CODE", help="e.g. NPU203")
    rule.set_defaults(handler=_rule)
    analyse = commands.add_parser(
        "analyse", aliases=["analyze"], formatter_class=_FORMATTER, epilog=ANALYSE_EPILOG,
        help="write the migration report OUTPUT/<name>_analysis/ (the vendor's layout)",
        description="Write the migration report in the layout of the vendor's analyser (pytorch_analyse.sh): "
                    "CSV files, the run log pytorch_analysis.txt and a migration summary.")
    analyse.add_argument("-i", "--input", metavar="DIR", help="the project folder to analyse (or --package)")
    analyse.add_argument("--package", metavar="NAME", help="-m third_party: analyse the installed package NAME "
                         "(found without importing it) instead of -i")
    analyse.add_argument("-o", "--output", required=True, metavar="DIR",
                         help="where <name>_analysis/ goes; created if its parent exists; not inside the input")
    _add_release_option(analyse, vendor_alias=True)
    analyse.add_argument("-m", "--mode", default="torch_apis", choices=MODES, metavar="MODE",
                         help=f"one of {', '.join(MODES)} (default: torch_apis)")
    analyse.add_argument("-env", "--env-path", nargs="*", metavar="DIR", help="import roots for the names the "
                         "input imports from elsewhere (-m third_party); package roots inside the input otherwise")
    analyse.add_argument("-api", "--api-files", nargs="*", metavar="CSV",
                         help="CSV files with a '3rd-party API' column (default: api-files in [tool.npu-lint])")
    _add_selection_options(analyse, "ALL, every code")
    analyse.add_argument("--format", action="append", choices=["json", "sarif"], help="also write findings.json / "
                         "findings.sarif (repeatable)")
    analyse.add_argument("--fail-on", metavar="CODES|any",
                         help="exit 3 when findings with these codes or prefixes exist (any or ALL: any finding)")
    analyse.add_argument("--versions", metavar="V1,V2,...",
                         help="add version_summary.csv: one verdict column per release")
    analyse.add_argument("--force", action="store_true", help="replace an existing <name>_analysis folder")
    analyse.add_argument("-j", "--jobs", type=_jobs, default=1, metavar="N",
                         help="analyse files in N processes (default: 1; at most four times the CPU count)")
    analyse.add_argument("--no-cache", action="store_true", help="do not read or write OUTPUT/.npu-lint-cache")
    analyse.add_argument("-q", "--quiet", action="store_true", help="print errors only (the log file is complete)")
    analyse.add_argument("--wrap-loop", action="append", metavar="FILE:LINE", help="-m dynamic_shape: in the copy, "
                         "run the for loop at FILE:LINE (FILE relative to the input) over DETECTOR.start (repeatable)")
    analyse.set_defaults(handler=_analyse)
    dynamic_report = commands.add_parser("dynamic-report", help="after a run of the -m dynamic_shape copy, write "
                                         "static_vs_runtime.csv: each varying call site with the static finding "
                                         "that predicted it, or none",
                                         description="Compare what the -m dynamic_shape detector saw with the static "
                                                     "NPU4xx findings: static_vs_runtime.csv in the analysis folder.")
    dynamic_report.add_argument("folder", metavar="ANALYSIS", help="the <name>_analysis folder of -m dynamic_shape")
    dynamic_report.set_defaults(handler=_dynamic_report)
    tables = commands.add_parser("tables", help="query the rule tables (tables diff A B)",
                                 description="Query the generated rule tables.")
    tables_commands = tables.add_subparsers(dest="tables_command", metavar="QUERY", required=True, title="queries")
    diff = tables_commands.add_parser("diff", help="APIs whose NPU verdict changes between two torch-npu releases",
                                      description="Print api<TAB>verdict in A<TAB>verdict in B for every API whose "
                                                  "NPU verdict differs between two torch-npu releases.")
    diff.add_argument("old", metavar="A", help="a torch-npu release, e.g. 2.7")
    diff.add_argument("new", metavar="B", help="a later (or earlier) release, e.g. 2.8")
    diff.set_defaults(handler=_tables_diff)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:   # name the command whose options were wrong: npu-lint: error: ... (see 'npu-lint check --help')
        command = getattr(args, "command", None)
        commands = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
        target = commands.choices.get(command, parser) if commands is not None and command else parser
        target.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command is None:
        parser.print_help(sys.stderr)
        print("npu-lint: error: a command is required (check, analyse, rules, rule, tables)", file=sys.stderr)
        return 2
    try:
        return args.handler(args)
    except (UsageError, configuration.ConfigError, UnknownVersion) as error:
        print(f"npu-lint: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:   # ``npu-lint check . | head``: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("npu-lint: interrupted", file=sys.stderr)
        return 130
    except OSError as error:   # an unwritable or vanished path, a full disk: one line, not a traceback
        where = f"{display(error.filename)}: " if error.filename else ""
        print(f"npu-lint: error: {where}{error.strerror or error}", file=sys.stderr)
        return 1
    except Exception as error:
        from npu_lint.report.safety import ReportError
        if not isinstance(error, ReportError):
            raise
        print(f"npu-lint: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
