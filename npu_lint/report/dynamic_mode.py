"""``npu-lint analyse -m dynamic_shape``: an instrumented copy of the input, the detector beside it, and the log.

Nothing of the analysed project is imported or run here: the copy is rewritten with libcst, and the user runs
it to get ``msft_dynamic_shape_analysis_report.csv`` (see ``npu_lint/runtime/hook.py``).
"""
from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Callable, Optional, Sequence

from npu_lint.report.collect import Collected, collect
from npu_lint.report.instrument import InstrumentError, instrument
from npu_lint.report.safety import ReportError
from npu_lint.sources import Unreadable, decode_source, encoding_of, read_bytes
from npu_lint.versions import Target

PACKAGE = "msft_dynamic_analysis"
REPORT_NAME = "msft_dynamic_shape_analysis_report.csv"
SKIPPED_DIRS = frozenset({"__pycache__", ".git"})
DETECTOR_MODULES = ("hook.py", "calls.py", "paths.py", "shapes.py", "sites.py")     # npu_lint/runtime, copied as they are
_INIT = '"""The dynamic-shape detector, written by npu-lint analyse -m dynamic_shape."""\n'

Log = Callable[..., None]   # RunLog.log(level, message, progress=None)


@dataclass
class CopyStats:
    instrumented: int = 0      # .py files rewritten
    calls: int = 0             # call sites wrapped
    unchanged: int = 0         # files copied as they are
    loops: list[str] = field(default_factory=list)   # FILE:LINE of the loops wrapped


def parse_wrap_loops(specs: Sequence[str], source: Path) -> dict[str, list[int]]:
    """``FILE:LINE`` (FILE relative to the input) to {posix path: [lines]}; a :class:`ReportError` when bad."""
    loops: dict[str, list[int]] = {}
    for spec in specs:
        name, _, number = spec.rpartition(":")
        if not name or not number.isdigit() or int(number) < 1:
            raise ReportError(f"--wrap-loop {spec}: expected FILE:LINE (FILE relative to the input, LINE from 1)")
        path = Path(os.path.normpath(source / name))
        if not path.exists():
            raise ReportError(f"--wrap-loop {spec}: {name} does not exist in the input")
        if source not in path.parents or os.path.realpath(path) != str(path) or not path.is_file() \
                or path.suffix != ".py" or SKIPPED_DIRS.intersection(path.relative_to(source).parts):
            raise ReportError(f"--wrap-loop {spec}: {name} is not a Python file in the input")
        relative = path.relative_to(source)
        loops.setdefault(relative.as_posix(), []).append(int(number))
    return loops


def _refuse_instrumented(source: Path) -> None:
    if (source / f"{PACKAGE}.py").exists():
        raise ReportError(f"the input has its own {PACKAGE}.py, which would hide the detector")
    for folder, dirs, _ in os.walk(source):
        dirs[:] = [name for name in dirs if name not in SKIPPED_DIRS]
        if PACKAGE in dirs:
            where = (Path(folder) / PACKAGE).relative_to(source).as_posix()
            raise ReportError(f"the input contains {where}: it looks instrumented already (analyse the original)")


def _link(path: Path, source: Path, copy: Path, relative: str, log: Log) -> None:
    """Keep a symbolic link that stays inside the input (relative, so it points into the copy); skip others."""
    target = Path(os.path.realpath(path))
    if target != source and source not in target.parents or not target.exists():
        log("WARNING", f"{relative} is a symbolic link out of the input, skip.")
        return
    os.symlink(os.path.relpath(target, os.path.realpath(path.parent)), copy)


def _copy_python(path: Path, copy: Path, relative: str, lines: Sequence[int], stats: CopyStats, log: Log) -> None:
    try:
        data = read_bytes(path)
        text, encoding = decode_source(data), encoding_of(data)
        result = instrument(text, lines)
    except (Unreadable, InstrumentError) as error:
        if lines:
            raise ReportError(f"--wrap-loop {relative}:{lines[0]}: {relative} cannot be instrumented ({error})")
        log("WARNING", f"{relative} {error}, copied unchanged.")
        shutil.copy2(path, copy)
        stats.unchanged += 1
        return
    missing = sorted(set(lines) - set(result.loops))
    if missing:
        raise ReportError(f"--wrap-loop {relative}:{missing[0]}: no for loop starts at line {missing[0]} of {relative}")
    if not result.changed:
        shutil.copy2(path, copy)
        stats.unchanged += 1
        return
    with open(copy, "wb") as handle:   # in the file's own encoding (BOM and coding cookie kept)
        handle.write(result.code.encode(encoding))
    shutil.copymode(path, copy)
    stats.instrumented += 1
    stats.calls += result.wrapped
    stats.loops.extend(f"{relative}:{line}" for line in result.loops)


def copy_instrumented(source: Path, destination: Path, loops: dict[str, list[int]], log: Log) -> CopyStats:
    """Copy ``source`` into ``destination`` (which exists), rewriting every Python file that parses."""
    stats = CopyStats()
    python = sum(1 for _, _, files in os.walk(source) for name in files if name.endswith(".py"))
    done = 0

    def unreadable(error: OSError) -> None:
        where = Path(error.filename).relative_to(source).as_posix() if error.filename else "."
        log("WARNING", f"{where} cannot be read ({error.strerror}), skip.")

    for folder, dirs, files in os.walk(source, onerror=unreadable):
        base = Path(folder)
        there = destination / base.relative_to(source)
        kept = []
        for name in sorted(dirs):
            if name in SKIPPED_DIRS:
                continue
            if (base / name).is_symlink():
                _link(base / name, source, there / name, (base / name).relative_to(source).as_posix(), log)
            else:
                (there / name).mkdir()
                kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            path, relative = base / name, (base / name).relative_to(source).as_posix()
            if path.is_symlink():
                _link(path, source, there / name, relative, log)
            elif not stat.S_ISREG(path.lstat().st_mode):
                log("WARNING", f"{relative} is not a regular file, skip.")
            elif name.endswith(".py"):
                log("INFO", f"Start the analysis of {relative}.", 100.0 * done / max(python, 1))
                done += 1
                _copy_python(path, there / name, relative, loops.get(relative, ()), stats, log)
            else:
                shutil.copy2(path, there / name)
                stats.unchanged += 1
    return stats


def write_detector(folder: Path) -> None:
    """``msft_dynamic_analysis/__init__.py``, ``hook.py`` and the modules it imports (the sources of
    ``npu_lint.runtime``)."""
    package = folder / PACKAGE
    package.mkdir()
    (package / "__init__.py").write_text(_INIT, encoding="utf-8")
    runtime = resources.files("npu_lint.runtime")
    for name in DETECTOR_MODULES:
        (package / name).write_text(runtime.joinpath(name).read_text(encoding="utf-8"), encoding="utf-8")


def write_static_findings(folder: Path, collected: Collected) -> None:
    """``dynamic_shape_risk.csv``: the static NPU4xx findings, in the torch_apis mode's layout."""
    from npu_lint.report.layout import DYNAMIC_SHAPE_RISK, header_of, rows_by_file
    from npu_lint.report.write import write_csv
    write_csv(folder / DYNAMIC_SHAPE_RISK, header_of(DYNAMIC_SHAPE_RISK), rows_by_file(collected)[DYNAMIC_SHAPE_RISK])


def build(source: Path, staging: Path, final: Path, target: Target, wrap_loops: Sequence[str], log: Log,
          collect_options: Optional[dict] = None) -> tuple[Collected, dict[str, int]]:
    """Fill ``staging`` (renamed to ``final`` by the caller); return the static findings and the statistics."""
    loops = parse_wrap_loops(wrap_loops, source)
    _refuse_instrumented(source)
    stats = copy_instrumented(source, staging, loops, log)
    write_detector(staging)
    shutil.copymode(source, staging)     # the copy's folder gets the input's permissions, not the staging 0700
    collected = collect(source, target, lambda *_: None, **(collect_options or {}))
    if not collected.files:
        raise ReportError(f"there are no python files in {source}")
    collected.findings = [(path, f) for path, f in collected.findings if f.code.startswith("NPU4") or f.code == "NPU303"]
    write_static_findings(staging, collected)     # read back by `npu-lint dynamic-report` (static_vs_runtime.csv)
    for path, finding in collected.findings:
        log("WARNING", f"{path} line: {finding.line} ~ {finding.end_line}   Operation Type: {finding.code}   "
                       f"Message: {finding.message}")
    log("INFO", f"Instrumented {stats.instrumented} Python files ({stats.calls} call sites); "
                f"{stats.unchanged} files copied unchanged.")
    for where in stats.loops:
        log("INFO", f"{where}: the loop now runs over DETECTOR.start(...).")
    log("INFO", f"Next: add {final} to PYTHONPATH (export PYTHONPATH={final}:$PYTHONPATH), make the training loop "
                f"in the copy read `for batch in DETECTOR.start(loader):` (or use --wrap-loop FILE:LINE), and "
                f"run the copy: {final / REPORT_NAME} lists the calls whose shapes vary (header only: none). "
                f"Then `npu-lint dynamic-report {final}` writes static_vs_runtime.csv: each of them with the static "
                f"finding that predicted it, or none.")
    counts = {"instrumented .py files": stats.instrumented, "wrapped call sites": stats.calls,
              "files copied unchanged": stats.unchanged, "NPU4xx findings": len(collected.findings)}
    return collected, counts
