"""Overhead of the ``-m dynamic_shape`` runtime detector on every training loop the tests ship
(``tests/fixtures/dynamic/loop_*.py``).

Each program is analysed with ``npu-lint analyse -m dynamic_shape --wrap-loop`` (its ``# training loop`` line).
In both the original and the instrumented copy, that loop's iterable is then wrapped in a timer (``for batch in
TIMER(loader)``, ``for batch in DETECTOR.start(TIMER(loader))``: the loop's frame stays the detector's root, as in
a user's run) that adds up the time from the loop's first fetch to its end: loop time, fetching and the loop body included, the program's set-up (model, dataset, torch
import) left out. Both run in one process per program: ``main()`` once each to warm up, then ``--runs`` samples
(default 5); a sample calls each program's ``main()`` as often as it takes the original about ``--sample``
seconds, the two taking turns call by call so that the load of a shared machine hits both alike. The figure is
the median of the samples; the spread is the lowest and highest overhead of a single sample (each sample's
instrumented time against the original time of the same sample). torch runs on one thread, and the clock is the
process's CPU time by default (``--clock wall`` for wall-clock time). Needs torch (``pip install torch==2.13.0``).
Prints one row per loop, with the recorded calls per ``main()``, and exits 1 when a loop's overhead exceeds
``--limit`` percent (default 25, the target of issue 14).

    python benchmarks/dynamic_overhead.py [--runs 5] [--limit 25] [--only loop_lstmcell]
    git show BASE:npu_lint/runtime/hook.py > /tmp/hook.py && python benchmarks/dynamic_overhead.py --hook /tmp/hook.py
    git archive BASE npu_lint/runtime | tar -x -C /tmp/base && python benchmarks/dynamic_overhead.py \
        --hook /tmp/base/npu_lint/runtime     # a detector of several modules (after the split of issue 14)
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
IMPORT_LINE = 'DETECTOR = __import__("msft_dynamic_analysis.hook", fromlist=["DETECTOR"]).DETECTOR'   # instrument.py's
LOOPS = REPO / "tests" / "fixtures" / "dynamic"
TIMER_NAME = "__npu_lint_loop_timer__"
_START = "DETECTOR.start("
_LOOP = re.compile(r"^(\s*(?:async\s+)?for\s.+?\sin\s)(.+)(:\s*# training loop.*)$")
PROGRAM = r'''
import builtins, contextlib, importlib.util, io, json, math, statistics, sys, time
import torch
torch.set_num_threads(1)
original_file, instrumented_file, analysis, runs, clock_name, sample = sys.argv[1:7]
runs, sample = int(runs), float(sample)
clock = time.process_time if clock_name == "cpu" else time.perf_counter
spent = [0.0]


def loop_timer(iterable):
    start = clock()
    try:
        yield from iterable
    finally:
        spent[0] += clock() - start


setattr(builtins, "''' + TIMER_NAME + r'''", loop_timer)
sys.path.insert(0, analysis)


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def loop_time(module, repeat):
    spent[0] = 0.0
    with contextlib.redirect_stdout(io.StringIO()):
        for _ in range(repeat):
            module.main()
    return spent[0]


def paired(repeat):
    """Loop times of both programs over ``repeat`` calls of main() each, taking turns call by call."""
    totals = [0.0, 0.0]
    with contextlib.redirect_stdout(io.StringIO()):
        for turn in range(2 * repeat):
            spent[0] = 0.0
            (original if turn % 2 == 0 else instrumented).main()
            totals[turn % 2] += spent[0]
    return totals


original, instrumented = load("original_train", original_file), load("train", instrumented_file)
from msft_dynamic_analysis.hook import DETECTOR
calls = [0]
Detector = type(DETECTOR)
entries = {name: getattr(Detector, name) for name in ("hook_func", "hook_args") if hasattr(Detector, name)}


def counting(self, func, name, index, /, *args, **kwargs):
    calls[0] += self._active
    return entries["hook_func"](self, func, name, index, *args, **kwargs)


def counting_args(self, func, name, index, /, *args):
    calls[0] += self._active
    return entries["hook_args"](self, func, name, index, *args)


# One run to count the calls made inside the loop, then the real entries. Swapped on the class: an attribute set on
# the instance (and deleted) would turn its attributes into a plain dictionary, and CPython would no longer
# specialise the detector's attribute loads (LOAD_ATTR_INSTANCE_VALUE, LOAD_METHOD_WITH_VALUES) for the timed runs.
Detector.hook_func = counting
if "hook_args" in entries:
    Detector.hook_args = counting_args
loop_time(instrumented, 1)
for name, entry in entries.items():
    setattr(Detector, name, entry)
loop_time(original, 1)
once = statistics.median(loop_time(original, 1) for _ in range(3))
repeat = max(1, math.ceil(sample / max(once, 1e-4)))
times = {"original": [], "instrumented": []}
for _ in range(runs):
    first, second = paired(repeat)
    times["original"].append(first / repeat)
    times["instrumented"].append(second / repeat)
print(json.dumps({"times": times, "calls": calls[0], "repeat": repeat}))
'''


def _with_timer(path: Path, line: int) -> None:
    """Wrap the iterable of the ``for`` loop at ``line`` of ``path`` in the loop timer."""
    lines = path.read_text(encoding="utf-8").split("\n")
    match = _LOOP.match(lines[line - 1])
    if match is None:
        raise SystemExit(f"{path}:{line}: no `for ... in ...:  # training loop` to time")
    iterable = match[2]
    if iterable.startswith(_START) and iterable.endswith(")"):
        # inside the detector's ``start``: the frame that iterates ``start`` is the detector's root, and it must be
        # the loop's own frame, as in a user's run (wrapped outside, the timer's generator became the root and
        # every call of the loop body walked its call path up to this harness, ~3-7 points of overhead that no
        # user pays). The timer still spans the first fetch to the end, the detector's per-iteration work included.
        iterable = f"{_START}{TIMER_NAME}({iterable[len(_START):-1]}))"
    else:
        iterable = f"{TIMER_NAME}({iterable})"
    lines[line - 1] = f"{match[1]}{iterable}{match[3]}"
    path.write_text("\n".join(lines), encoding="utf-8")


def _replace_detector(hook: Path, package: Path) -> None:
    """The detector's modules in ``package`` replaced by ``hook``: one hook.py, or a folder of modules (its
    ``__init__.py`` left out). A detector older than ``hook_args`` (before 2026-11-26) gets the text its instrumenter
    wrote: every ``DETECTOR.hook_args(`` of the instrumented files becomes ``DETECTOR.hook_func(``, and the
    detector's import is ``from msft_dynamic_analysis.hook import DETECTOR`` again."""
    for module in package.glob("*.py"):
        if module.name != "__init__.py":
            module.unlink()
    for module in sorted(hook.glob("*.py")) if hook.is_dir() else [hook]:
        if module.name != "__init__.py":
            shutil.copyfile(module, package / (module.name if hook.is_dir() else "hook.py"))
    if "def hook_args(" not in (package / "hook.py").read_text(encoding="utf-8"):
        for program in package.parent.rglob("*.py"):
            if package not in program.parents:
                text = program.read_text(encoding="utf-8").replace("DETECTOR.hook_args(", "DETECTOR.hook_func(")
                text = text.replace(IMPORT_LINE, "from msft_dynamic_analysis.hook import DETECTOR")
                program.write_text(text, encoding="utf-8")


def _measure(original: Path, instrumented: Path, runs: int, clock: str, sample: float) -> dict:
    environment = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
                       MSFT_DYNAMIC_REPORT=str(instrumented.parent / "report.csv"))
    result = subprocess.run([sys.executable, "-c", PROGRAM, str(original), str(instrumented),
                             str(instrumented.parent), str(runs), clock, str(sample)],
                            env=environment, cwd=instrumented.parent, capture_output=True, text=True, timeout=3600)
    if result.returncode:
        raise SystemExit(f"{original}: {result.stderr.strip().splitlines()[-1:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--limit", type=float, default=25.0, help="largest overhead allowed, in percent")
    parser.add_argument("--only", action="append", help="a loop_*.py name (repeatable)")
    parser.add_argument("--sample", type=float, default=0.5, help="seconds of loop per timed sample: short "
                        "programs run main() several times per sample")
    parser.add_argument("--hook", type=Path, help="time this detector instead of the one npu-lint writes (the "
                        "hook.py of an earlier commit, or its npu_lint/runtime folder, for before/after figures)")
    parser.add_argument("--clock", choices=["cpu", "wall"], default="cpu", help="process CPU time (default: steadier "
                        "on a shared machine) or wall-clock time")
    args = parser.parse_args()
    npu_lint = shutil.which("npu-lint") or str(Path(sys.executable).with_name("npu-lint"))
    failed = False
    print(f"{'loop':22} {'original s':>11} {'instrumented s':>15} {'overhead':>9} {'spread':>16} {'calls/main':>11}   "
          f"(loop time per main(), {args.clock} time, median of {args.runs}, target <= +{args.limit:g}%)")
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
            analysed = subprocess.run([npu_lint, "analyse", "-i", str(project), "-o", str(out), "-m",
                                       "dynamic_shape", "--wrap-loop", f"train.py:{line}"],
                                      capture_output=True, text=True)
            if analysed.returncode:
                raise SystemExit(f"{program.name}: npu-lint analyse failed: {analysed.stderr.strip()}")
            instrumented = out / "project_analysis" / "train.py"
            if args.hook:
                _replace_detector(args.hook, instrumented.parent / "msft_dynamic_analysis")
            _with_timer(project / "train.py", line)
            _with_timer(instrumented, line)
            measured = _measure(project / "train.py", instrumented, args.runs, args.clock, args.sample)
            original = _median(measured["times"]["original"])
            copy = _median(measured["times"]["instrumented"])
            overhead = 100.0 * (copy - original) / original
            samples = [100.0 * (after - before) / before
                       for before, after in zip(measured["times"]["original"], measured["times"]["instrumented"])]
            spread = f"{min(samples):+.0f}..{max(samples):+.0f}%"
            failed |= overhead > args.limit
            print(f"{program.stem:22} {original:11.4f} {copy:15.4f} {overhead:+8.1f}% {spread:>16} {measured['calls']:11d}"
                  f"{'   over the target' if overhead > args.limit else ''}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
