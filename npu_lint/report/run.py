"""``npu-lint analyse``: checks, the run log in the vendor's format, and the report folder built atomically."""
from __future__ import annotations

import gc
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Optional, Sequence, TextIO, Union

from npu_lint.isolation import EXIT_INTERNAL_ERROR
from npu_lint.report.collect import Collected, collect
from npu_lint.report.staging import check_final, interruptible, recover, staging_folder, swap_in
from npu_lint.report.layout import TORCH_API_FILES, affinity_rows, header_of, rows_by_file
from npu_lint.report.safety import ReportError, check_paths
from npu_lint.report.run_info import run_info
from npu_lint.report.write import write_csv, write_json, write_lines, write_sarif
from npu_lint.sources import display
from npu_lint.summary import Summary, csv_rows, summarise, table
from npu_lint.support_facts import support_table
from npu_lint.versions import Target

MODES = ("torch_apis", "third_party", "affinity_apis", "dynamic_shape")
_INDENT = {"INFO": "   ", "WARNING": "", "ERROR": "  "}
EXIT_FAIL_ON = 3
MIGRATION_SUMMARY = "migration_summary.csv"   # beyond the vendor's layout: files ranked by work, effort

if TYPE_CHECKING:
    from npu_lint.config import Config


class RunLog:
    """The vendor's line format, in full to ``pytorch_analysis.txt``. The console gets a progress bar on a
    terminal (nothing when it is not one), then the summary; ``quiet``: nothing (errors go to stderr)."""

    def __init__(self, console: TextIO, quiet: bool = False) -> None:
        # the log file's lines; a callable stands for a block of records made only when the file is written
        self.lines: list[Union[str, Callable[[], Iterator[str]]]] = []
        self.console, self.quiet = console, quiet
        self.live = not quiet and console.isatty()   # a terminal gets one progress bar updated in place
        self._inline = False

    def log(self, level: str, message: str, progress: Optional[float] = None) -> None:
        tag = f"[Progress:{progress:6.2f}%]".ljust(20) if progress is not None else ""
        self.lines.append(self._line(time.strftime('%Y-%m-%d %H:%M:%S'), level, tag, message))
        if progress is not None and self.live:
            self.bar(progress)

    def log_each(self, level: str, messages: Callable[[], Iterable[str]]) -> None:
        """One record per message, as :meth:`log` writes them, stamped now but made when the file is written: the
        findings of a 5,000-file tree are 23,000 records (7 MB held twice, as lines and joined)."""
        stamp = time.strftime('%Y-%m-%d %H:%M:%S')
        self.lines.append(lambda: (self._line(stamp, level, "", message) for message in messages()))

    @staticmethod
    def _line(stamp: str, level: str, tag: str, message: str) -> str:
        message = display(message)   # one record per line, whatever the file names
        return f"{stamp} [{level}] {_INDENT.get(level, '')}{tag}{message}"

    def records(self) -> Iterator[str]:
        """Every line of the log file, in order."""
        for item in self.lines:
            if isinstance(item, str):
                yield item
            else:
                yield from item()

    def bar(self, percent: float) -> None:
        filled = int(percent * 0.3)
        self.console.write(f"\rAnalysing [{'#' * filled}{'.' * (30 - filled)}] {percent:5.1f}%")
        self._inline = True
        self.console.flush()

    def write(self, line: str, inline: bool = False) -> None:
        """A console line (the closing summary); also kept for the log file by the caller."""
        if self.quiet:
            return
        line = display(line)   # file names in the summary: line breaks and undecodable bytes escaped
        self.console.write(("\n" if self._inline else "") + line + "\n")
        self._inline = False
        self.console.flush()


def _check_env_paths(paths: Sequence[str], source: Path) -> None:
    for text in paths:
        path = Path(text).resolve()
        if not path.is_dir() or (path != source and source not in path.parents):
            raise ReportError(f"-env path {text} is not a directory inside the input")


def statistics(counts: dict[str, int]) -> list[str]:
    """The closing ``files | statistics`` table: rows per file (cuda_op_list counted once, unlike the vendor's)."""
    first = [name for name in TORCH_API_FILES if name in counts]
    names = first + [name for name in counts if name not in first]
    width = max(len(name) for name in names + ["files"])
    rule = f"+-{'-' * width}-+------------+"
    body = [f"| {name.ljust(width)} | {str(counts.get(name, 0)).rjust(10)} |" for name in names]
    return [rule, f"| {'files'.ljust(width)} | {'statistics'.rjust(10)} |", rule, *body, rule]


def run(input_dir: str, output_dir: str, target: Target, mode: str = "torch_apis", api_files: Sequence[str] = (),
        env_paths: Sequence[str] = (), formats: Sequence[str] = (), fail_on: Optional[str] = None,
        versions: Sequence[Target] = (), force: bool = False, console: TextIO = sys.stdout, jobs: int = 1,
        use_cache: bool = True, wrap_loops: Sequence[str] = (), codes: Optional[frozenset[str]] = None,
        config: Optional["Config"] = None, quiet: bool = False, settings: Optional[dict[str, str]] = None) -> int:
    source, output = check_paths(input_dir, output_dir)
    if wrap_loops and mode != "dynamic_shape":
        raise ReportError("--wrap-loop only applies to -m dynamic_shape")
    from npu_lint.third_party import ApiFileError, load
    try:
        third_party = load(Path(path) for path in api_files)
    except ApiFileError as error:
        raise ReportError(f"-api file {error}") from None
    if mode != "third_party":
        _check_env_paths(env_paths, source)
    final = output / f"{source.name}_analysis"
    recover(final)   # an earlier run killed mid-swap, and its staging folders
    check_final(final, force)
    with interruptible():   # SIGTERM as Ctrl-C: workers stopped, staging removed, exit 130, no partial report
        return _run(source, output, final, target, mode, formats, fail_on, versions, console, jobs, use_cache,
                    wrap_loops, third_party, env_paths, codes, config, quiet, settings)


def _run(source: Path, output: Path, final: Path, target: Target, mode: str, formats: Sequence[str],
         fail_on: Optional[str], versions: Sequence[Target], console: TextIO, jobs: int, use_cache: bool,
         wrap_loops: Sequence[str], third_party: frozenset[str], env_paths: Sequence[str],
         codes: Optional[frozenset[str]], config: Optional["Config"], quiet: bool,
         settings: Optional[dict[str, str]]) -> int:
    log = RunLog(console, quiet)
    log.log("INFO", "PyTorch analysis start working now, please wait for a moment.")
    log.log("INFO", "Analysis start...")
    for line in run_info(target, mode, settings or {}):
        log.log("INFO", line)
    from npu_lint.report.cache import ResultCache
    cache = ResultCache(output) if use_cache else None
    if mode == "third_party":
        from npu_lint.report.third_party_mode import run_mode
        with staging_folder(final) as staging:
            counts = run_mode(source, staging, target.release, list(env_paths), tuple(formats), log.log,
                              output / ".npu-lint-cache" if use_cache else None)
            _finish(staging, final, log, counts)
        return 0
    if mode == "dynamic_shape":
        collected = _dynamic_shape(source, final, target, wrap_loops, log, formats,
                                   {"jobs": jobs, "cache": cache, "third_party": third_party})
        return _fail_on_status(collected, fail_on)

    def progress(done: int, total: int, relative: str) -> None:
        log.log("INFO", f"Start the analysis of {relative}.", 100.0 * done / max(total, 1))

    excluded = config.excludes if config is not None else None
    # The selected rules only (their findings are all the report keeps), and the API inventory only for the
    # torch_apis report (api_inventory.csv). Not narrowed further, e.g. -m affinity_apis to the NPU3xx rules: the
    # model keeps the first answer to some of its questions, so which rules ask first can change a finding (timm:
    # one NPU315 row fewer with the NPU3xx rules alone).
    collected = collect(source, target, progress, jobs=jobs, cache=cache, third_party=third_party, excluded=excluded,
                        codes=codes, inventory=mode == "torch_apis")
    with settled():   # the findings and the index live on to the end: the collector need not scan them again
        if not collected.files:
            raise ReportError(f"there are no python files in {source}")
        log.log("INFO", f"Analysed {len(collected.files)} files.", 100.0)
        if codes is not None or config is not None:   # the selection, then per-file-ignores of [tool.npu-lint]
            collected.findings = [(path, f) for path, f in collected.findings if (codes is None or f.code in codes)
                                  and not (config and f.code.startswith(config.ignored_for(source / path)))]
        for warning in collected.warnings:
            log.log("WARNING", warning)
        log.log_each("WARNING", lambda: _finding_records(collected, mode))
        files = rows_by_file(collected) if mode == "torch_apis" else affinity_rows(collected)
        with staging_folder(final) as staging:
            counts = _write(staging, files, collected, target, formats, versions, inventory=mode == "torch_apis")
            summary = None
            if mode == "torch_apis":
                summary = summarise(collected.findings)
                header, rows = csv_rows(summary)
                write_csv(staging / MIGRATION_SUMMARY, header, rows)
            _finish(staging, final, log, counts, summary, len(collected.warnings))
    return _fail_on_status(collected, fail_on)


@contextmanager
def settled() -> Iterator[None]:
    """The objects alive on entry (the analysis results, the project index, the tables) are left out of the
    collector's passes until the end: writing the report allocates only short-lived objects, and each pass over
    the whole heap found nothing to free (~2 % of a run on peft)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _finding_records(collected: Collected, mode: str) -> Iterator[str]:
    """The log file's record of each finding, in the vendor's line format (``-m affinity_apis``: NPU3xx only)."""
    for path, finding in collected.findings:
        if mode == "torch_apis" or finding.code.startswith("NPU3"):
            kind = finding.code if mode == "torch_apis" else "HAVE AFFINITY API"
            yield (f"{path} line: {finding.line} ~ {finding.end_line}   Operation Type: {kind}   "
                   f"Message: {finding.message}")


def _finish(staging: Path, final: Path, log: RunLog, counts: dict[str, int], summary: Optional[Summary] = None,
            skipped: int = 0) -> None:
    """The closing log lines and statistics table, the log file, and the staging folder renamed into place."""
    log.log("INFO", "Analyse run succeeded, welcome to the next use.")
    log.log("INFO", f"The detailed analysis result files are in the output path you defined, the relative "
                    f"path is {final.name}.")
    closing = statistics(counts) + (table(summary) if summary is not None else [])
    for line in closing:
        log.lines.append(line)
        log.write(line)
    if skipped:
        log.write(f"{skipped} warning{'s' if skipped != 1 else ''} (files skipped): see pytorch_analysis.txt")
    log.write(f"Report: {display(final)}")
    write_lines(staging / "pytorch_analysis.txt", log.records())
    os.chmod(staging, 0o777 & ~_umask())   # private while it was built; the report follows the umask like any folder
    swap_in(staging, final)


def _dynamic_shape(source: Path, final: Path, target: Target, wrap_loops: Sequence[str], log: RunLog,
                   formats: Sequence[str], collect_options: dict) -> Collected:
    """``-m dynamic_shape``: the instrumented copy, the detector and the log (static NPU4xx findings included)."""
    from npu_lint.report.dynamic_mode import build
    with staging_folder(final) as staging:
        collected, counts = build(source, staging, final, target, wrap_loops, log.log, collect_options)
        if "json" in formats:
            write_json(staging / "findings.json", collected.findings, target.release)
        if "sarif" in formats:
            write_sarif(staging / "findings.sarif", collected.findings)
        _finish(staging, final, log, counts)
    return collected


def _write(folder: Path, files: dict[str, list[list[object]]], collected: Collected, target: Target,
           formats: Sequence[str], versions: Sequence[Target], inventory: bool = True) -> dict[str, int]:
    """Write every file; return the number of rows of each CSV."""
    files = dict(files)
    if inventory:
        files["api_inventory.csv"] = collected.inventory   # rows of (file, start, end, api, status): written as they are
    if versions and inventory:
        apis = sorted({row[3] for row in collected.inventory if row[4] != "cuda"})
        tables = [support_table(v.release) for v in versions]
        files["version_summary.csv"] = [[api] + [t[api]["verdict"] if api in t else "not listed" for t in tables]
                                        for api in apis]
    for name, rows in files.items():
        header = ["API"] + [v.release for v in versions] if name == "version_summary.csv" else header_of(name)
        write_csv(folder / name, header, rows)
    if "json" in formats:
        write_json(folder / "findings.json", collected.findings, target.release)
    if "sarif" in formats:
        write_sarif(folder / "findings.sarif", collected.findings)
    return {name: len(rows) for name, rows in files.items()}


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fail_on_status(collected: Collected, fail_on: Optional[str]) -> int:
    if collected.internal_errors:
        return EXIT_INTERNAL_ERROR
    if not fail_on:
        return 0
    prefixes = None if fail_on.strip().lower() in ("any", "all") else [c.strip().upper() for c in fail_on.split(",") if c.strip()]
    hit = any(prefixes is None or any(f.code.startswith(p) for p in prefixes) for _, f in collected.findings)
    return EXIT_FAIL_ON if hit else 0
