"""The ``npu-lint`` command: ``check`` (lint files), ``analyse`` (the migration report), ``rules`` /
``rule CODE`` (documentation) and ``tables diff A B`` (verdict changes between releases)."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import NoReturn, Optional, Sequence

from npu_lint import __version__
from npu_lint import config as configuration
from npu_lint.context import FileContext
from npu_lint.core import analyse_tree, dispatch_for
from npu_lint.finding import Finding
from npu_lint.isolation import EXIT_INTERNAL_ERROR, TOO_DEEP, internal_error, with_deep_stack
from npu_lint.sources import Unreadable, decode_source, discover, display, encoding_of, parse, read_bytes, read_source
from npu_lint.versions import Target, UnknownVersion, default_release, parse_target


class UsageError(Exception):
    """Bad input: printed as one line, exit status 2."""


def _split_codes(text: Optional[str]) -> Optional[list[str]]:
    if text is None:
        return None
    codes = [c.strip().upper() for c in text.split(",") if c.strip()]
    for code in codes:
        if not configuration.CODE_PATTERN.match(code):
            raise UsageError(f"{code!r} is not an NPU code or prefix")
    return codes


class Checker:
    """Runs the core over files, with per-directory configuration and command-line overrides."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.select = _split_codes(args.select)
        self.extend_select = _split_codes(args.extend_select) or []
        self.ignore = _split_codes(args.ignore)
        self.explicit = configuration.load(Path(args.config)) if args.config else None
        self.warnings = 0
        self.internal_errors = 0   # files skipped because of a bug of ours: exit EXIT_INTERNAL_ERROR
        self.hidden_unsafe_fixes = 0   # fixes that --unsafe-fixes would add
        self.projects: list[tuple[Path, object]] = []   # (folder, ProjectView) for the folders given

    def config_for(self, path: Path) -> configuration.Config:
        return self.explicit or configuration.find(path.parent if path.is_file() else path)

    def codes_for(self, config: configuration.Config) -> frozenset[str]:
        # A --select on the command line starts the selection afresh (as in ruff); --ignore then narrows it.
        if self.select is not None:
            select, ignore = self.select + self.extend_select, self.ignore or []
        else:
            select, ignore = list(config.select) + self.extend_select, list(config.ignore) + (self.ignore or [])
        return configuration.enabled_codes(select, ignore)

    def target_for(self, config: configuration.Config) -> Target:
        return parse_target(self.args.torch_version or config.torch_version or default_release())

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

    def fix_file(self, path: Path, findings: list[Finding]) -> list[Finding]:
        """Apply (``--fix``) or show (``--diff``) the safe fixes (and the unsafe ones with ``--unsafe-fixes``);
        return the findings still open."""
        from npu_lint.fixes import apply, fixable, unified_diff
        try:
            data = read_bytes(path)
            source, encoding = decode_source(data), encoding_of(data)
            unsafe = self.args.unsafe_fixes
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
        if fixed and self.args.diff:
            sys.stdout.write(unified_diff(str(path), source, fixed_source))
        elif fixed:
            try:
                _write_in_place(path, fixed_source.encode(encoding))
            except OSError as error:
                self.warn(f"{display(path)}: not fixed: cannot write: {error.strerror or error}")
                return findings
        return findings if self.args.diff else [f for f in findings if f not in fixed]

    def check_file(self, path: Path) -> list[Finding]:
        config = self.config_for(path)
        dropped = config.ignored_for(path)
        codes = frozenset(code for code in self.codes_for(config) if not code.startswith(dropped))
        if not dispatch_for(codes).codes:
            return []
        try:
            source = read_source(path)
            if not dispatch_for(codes).wanted(source):
                return []
            tree = parse(source, path)
        except Unreadable as error:
            self.warn(f"{display(path)}: skipped: {error}")
            return []
        try:
            return analyse_tree(tree, source, self.target_for(config), codes, noqa=not self.args.disable_noqa,
                                third_party=config.third_party(), ctx=self.context_for(path, source, config))
        except Exception as error:   # isolation: one file's bug is one line, the run goes on
            self.internal(path, error, "skipped")
            return []

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


def _check(args: argparse.Namespace) -> int:
    checker = Checker(args)
    if args.torch_version:
        parse_target(args.torch_version)
    checker.index_folders(args.paths)
    total = 0
    for path in checker.files(args.paths):
        findings = checker.check_file(path)
        if findings and (args.fix or args.diff):
            findings = checker.fix_file(path, findings)
            if args.diff:
                continue
        for finding in findings:
            total += 1
            print(f"{display(path)}:{finding.line}:{finding.col + 1}: {finding.code} {finding.message}")
    if total and not args.quiet:
        print(f"Found {total} finding{'s' if total != 1 else ''}.", file=sys.stderr)
    if checker.hidden_unsafe_fixes and not args.quiet:
        count = checker.hidden_unsafe_fixes
        print(f"{count} more fix{'es' if count != 1 else ''} available with --unsafe-fixes (review them: "
              "they can change the meaning).", file=sys.stderr)
    if checker.internal_errors:
        return EXIT_INTERNAL_ERROR
    return 1 if total and not args.exit_zero else 0


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
    for rule in all_rules():
        state = "" if rule.default_enabled else "  (off by default)"
        print(f"{rule.code}  {rule.name:<28} {rule.summary()}{state}")
    return 0


def _rule(args: argparse.Namespace) -> int:
    from npu_lint.docs import rule_page
    from npu_lint.rules import rules_by_code
    rule = rules_by_code().get(args.code.upper())
    if rule is None:
        raise UsageError(f"unknown rule code {args.code!r} (see 'npu-lint rules')")
    print(rule_page(rule))
    return 0


def _analyse(args: argparse.Namespace) -> int:
    from npu_lint.report.run import MODES, run
    if args.mode not in MODES:
        raise UsageError(f"unknown mode {args.mode!r} (choose from {', '.join(MODES)})")
    target = parse_target(args.version)
    versions = [parse_target(v) for v in args.versions.split(",") if v.strip()] if args.versions else []
    if args.wrap_loop and args.mode != "dynamic_shape":
        raise UsageError("--wrap-loop only applies to -m dynamic_shape")
    from npu_lint.third_party_cli import analyse_input, check_api_files
    args.input = analyse_input(args, UsageError)
    check_api_files(args.api_files or [], UsageError)
    status = run(args.input, args.output, target, args.mode, args.api_files or [], args.env_path or [],
                 args.format or [], args.fail_on, versions, args.force, jobs=args.jobs, use_cache=not args.no_cache,
                 wrap_loops=args.wrap_loop or [])
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
        self.exit(2, f"npu-lint: error: {self.prog}: {message} (see --help)\n")


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
    parser = _Parser(prog="npu-lint", description="Find what breaks, what is slow and what has a "
                                     "faster NPU API when PyTorch code moves from CUDA GPUs to Ascend NPUs.")
    parser.add_argument("--version", action="version", version=f"npu-lint {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    check = commands.add_parser("check", help="lint Python files and print path:line:col: CODE message")
    check.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (none: nothing to check)")
    check.add_argument("--select", metavar="CODES", help="comma-separated codes or prefixes to report (default: NPU)")
    check.add_argument("--extend-select", metavar="CODES", help="codes to add to the selection")
    check.add_argument("--ignore", metavar="CODES", help="codes or prefixes not to report")
    check.add_argument("-v", "--torch-version", metavar="VERSION",
                       help=f"target torch-npu release, e.g. 2.1, 2.6.0 (default: {default_release()})")
    check.add_argument("--config", metavar="PYPROJECT", help="use this pyproject.toml instead of the nearest one")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument("--disable-noqa", action="store_true", help="report findings on '# noqa' lines too")
    check.add_argument("--no-exclude", action="store_true", help="check files named on the command line even if excluded")
    check.add_argument("--no-cache", action="store_true", help="do not build or read the project index of the folders "
                       "given (kept in the user cache, $NPU_LINT_CACHE_DIR or ~/.cache/npu-lint)")
    check.add_argument("-q", "--quiet", action="store_true", help="no summary line")
    check.add_argument("--fix", action="store_true", help="apply the safe fixes (NPU203, NPU205, fused optimizers, "
                       "nn.SiLU) in place; the remaining findings are printed")
    check.add_argument("--diff", action="store_true", help="print the safe fixes as a unified diff; change nothing")
    check.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff, also the fixes that "
                       "can change the meaning (NPU303 x[mask] = 0 -> x.masked_fill_(mask, 0)); review them")
    check.set_defaults(handler=_check)
    rules = commands.add_parser("rules", help="list every rule code")
    rules.set_defaults(handler=_rules)
    rule = commands.add_parser("rule", help="print the documentation of one rule")
    rule.add_argument("code")
    rule.set_defaults(handler=_rule)
    analyse = commands.add_parser("analyse", aliases=["analyze"],
                                  help="write the migration report <name>_analysis/ (the vendor's layout)")
    analyse.add_argument("-i", "--input", help="the project folder to analyse (or --package)")
    analyse.add_argument("--package", metavar="NAME", help="-m third_party: analyse the installed package NAME "
                         "(found without importing it) instead of -i")
    analyse.add_argument("-o", "--output", required=True, help="an existing folder outside the input")
    analyse.add_argument("-v", "--version", default=default_release(), help="target torch-npu release")
    analyse.add_argument("-m", "--mode", default="torch_apis", help="torch_apis (default), third_party, "
                         "affinity_apis or dynamic_shape")
    analyse.add_argument("-env", "--env-path", nargs="*", metavar="DIR", help="import roots for the names the "
                         "input imports from elsewhere")
    analyse.add_argument("-api", "--api-files", nargs="*", metavar="CSV", help="CSV files with a '3rd-party API' column")
    analyse.add_argument("--format", action="append", choices=["json", "sarif"], help="also write findings.json / "
                         "findings.sarif (repeatable)")
    analyse.add_argument("--fail-on", metavar="CODES|any", help="exit 3 when findings with these code prefixes exist")
    analyse.add_argument("--versions", metavar="V1,V2,...", help="add version_summary.csv: one verdict column per release")
    analyse.add_argument("--force", action="store_true", help="replace an existing <name>_analysis folder")
    analyse.add_argument("-j", "--jobs", type=_jobs, default=1, metavar="N", help="analyse files in N processes")
    analyse.add_argument("--no-cache", action="store_true", help="do not read or write <OUTPUT>/.npu-lint-cache")
    analyse.add_argument("--wrap-loop", action="append", metavar="FILE:LINE", help="-m dynamic_shape: in the copy, "
                         "run the for loop at FILE:LINE (FILE relative to the input) over DETECTOR.start (repeatable)")
    analyse.set_defaults(handler=_analyse)
    dynamic_report = commands.add_parser("dynamic-report", help="after a run of the -m dynamic_shape copy, write "
                                         "static_vs_runtime.csv: each varying call site with the static finding "
                                         "that predicted it, or none")
    dynamic_report.add_argument("folder", metavar="ANALYSIS", help="the <name>_analysis folder of -m dynamic_shape")
    dynamic_report.set_defaults(handler=_dynamic_report)
    tables = commands.add_parser("tables", help="query the rule tables")
    tables_commands = tables.add_subparsers(dest="tables_command", metavar="QUERY", required=True)
    diff = tables_commands.add_parser("diff", help="APIs whose NPU verdict changes between two torch-npu releases")
    diff.add_argument("old", metavar="A")
    diff.add_argument("new", metavar="B")
    diff.set_defaults(handler=_tables_diff)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_usage(sys.stderr)
        print("npu-lint: error: a command is required (check, rules, rule)", file=sys.stderr)
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
    except OSError as error:   # the output cannot be written (a full disk, a permission): one line
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
