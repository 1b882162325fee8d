"""Overhead of the ``-m dynamic_shape`` runtime detector on the training loops of ``tests/fixtures/dynamic``.

Each ``loop_*.py`` program is analysed with ``npu-lint analyse -m dynamic_shape --wrap-loop`` (its ``# training
loop`` line), then the original and the instrumented copy each run in their own process: ``main()`` once to warm
up, then ``--runs`` times (default 5; each sample calls ``main()`` as often as it takes the original about
``--sample`` seconds, the same count for both), timed with ``time.perf_counter``; the figure is the median, so the torch
import and first-call initialisation are left out. torch runs on one thread, and the clock is the process's CPU
time by default (``--clock wall`` for wall-clock time), so other load on a shared machine moves the figures less.
Needs torch (``pip install torch==2.13.0``). Prints a table and
exits 1 when a loop's overhead exceeds ``--limit`` percent (default 25).

    python benchmarks/dynamic_overhead.py [--runs 5] [--limit 25] [--only loop_lstmcell]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LOOPS = REPO / "tests" / "fixtures" / "dynamic"
TIMER = r'''
import contextlib, io, json, sys, time
import torch
torch.set_num_threads(1)
sys.path.insert(0, sys.argv[1])
import train
runs, repeat = int(sys.argv[2]), int(sys.argv[4])
clock = time.process_time if sys.argv[3] == "cpu" else time.perf_counter
times = []
for index in range(runs + 1):
    with contextlib.redirect_stdout(io.StringIO()):
        start = clock()
        for _ in range(repeat if index else 1):
            train.main()
        elapsed = clock() - start
    if index:
        times.append(elapsed)
print(json.dumps(times))
'''


def _time(folder: Path, runs: int, clock: str, repeat: int = 1) -> list[float]:
    environment = dict(os.environ, PYTHONPATH=str(folder), PYTHONDONTWRITEBYTECODE="1",
                       MSFT_DYNAMIC_REPORT=str(folder / "report.csv"))
    result = subprocess.run([sys.executable, "-c", TIMER, str(folder), str(runs), clock, str(repeat)], env=environment, cwd=folder,
                            capture_output=True, text=True, timeout=3600)
    if result.returncode:
        raise SystemExit(f"{folder}: {result.stderr.strip().splitlines()[-1:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--limit", type=float, default=25.0, help="largest overhead allowed, in percent")
    parser.add_argument("--only", action="append", help="a loop_*.py name (repeatable)")
    parser.add_argument("--sample", type=float, default=0.5, help="seconds of loop per timed sample: short "
                        "programs run main() several times per sample")
    parser.add_argument("--clock", choices=["cpu", "wall"], default="cpu", help="process CPU time (default: steadier "
                        "on a shared machine) or wall-clock time")
    args = parser.parse_args()
    npu_lint = shutil.which("npu-lint") or str(Path(sys.executable).with_name("npu-lint"))
    failed = False
    print(f"{'loop':24} {'original s':>11} {'instrumented s':>15} {'overhead':>9}   ({args.clock} time, median of "
          f"{args.runs})")
    with tempfile.TemporaryDirectory(prefix="npu-lint-overhead.") as temporary:
        for program in sorted(LOOPS.glob("loop_*.py")):
            if args.only and program.stem not in args.only:
                continue
            source = program.read_text(encoding="utf-8")
            line = next(n for n, text in enumerate(source.splitlines(), 1) if "# training loop" in text)
            project, out = Path(temporary) / program.stem / "project", Path(temporary) / program.stem / "out"
            project.mkdir(parents=True)
            out.mkdir()
            (project / "train.py").write_text(source, encoding="utf-8")
            subprocess.run([npu_lint, "analyse", "-i", str(project), "-o", str(out), "-m", "dynamic_shape",
                            "--wrap-loop", f"train.py:{line}"], check=True, capture_output=True)
            once = statistics.median(_time(project, 3, args.clock))
            repeat = max(1, math.ceil(args.sample / max(once, 1e-4)))    # each sample runs main() this many times
            original = statistics.median(_time(project, args.runs, args.clock, repeat)) / repeat
            instrumented = statistics.median(_time(out / "project_analysis", args.runs, args.clock, repeat)) / repeat
            overhead = 100.0 * (instrumented - original) / original
            failed |= overhead > args.limit
            print(f"{program.stem:24} {original:11.4f} {instrumented:15.4f} {overhead:+8.1f}%", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
