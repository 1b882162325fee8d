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
from npu_lint.check_command import run_check
from npu_lint.cli_options import UsageError, split_codes
from npu_lint.sources import display
from npu_lint.versions import UnknownVersion, default_release, parse_target


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
    select = split_codes(args.select)
    ignore = (split_codes(args.ignore) or []) + (split_codes(args.extend_ignore) or [])
    if select is None:
        select = list(config.select) or []
        ignore = list(config.ignore) + ignore
    select = list(select) + list(config.extend_select) + (split_codes(args.extend_select) or [])
    return release, select, ignore, config


def _analyse(args: argparse.Namespace) -> int:
    from npu_lint.report.run import run
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"-j/--jobs must be at least 1, not {args.jobs}")
    if args.fail_on and args.fail_on.strip().lower() != "any":
        split_codes(args.fail_on)
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
    check.add_argument("--no-cache", action="store_true", help="build the project index of the folders given in "
                       "memory, without reading or writing the user cache ($NPU_LINT_CACHE_DIR or ~/.cache/npu-lint)")
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
    check.set_defaults(handler=run_check)
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
