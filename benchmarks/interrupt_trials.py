"""Kill ``npu-lint analyse -j 2 --force`` at random moments and check the report folder each time (issue 11).

    python benchmarks/interrupt_trials.py PROJECT [--trials 20] [--seed 1]

Each trial sends SIGINT to the process group (Ctrl-C in a terminal), SIGTERM or SIGKILL to the parent at a
random moment of the run. Checked: the run ends within
60 s of the signal (no hang), Ctrl-C/SIGTERM exit 130, and the
report in place is always a complete one (its log ends with the statistics table, every CSV of the first report
is there), the previous one until the new one is complete. After the trials one more run must leave no staging
or aside folder behind.
"""
from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent


def _default_sigint() -> None:
    """A shell's background job starts with SIGINT ignored, and Python keeps it so: restore what a terminal gives."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def complete(report: Path, names: set[str]) -> bool:
    log = report / "pytorch_analysis.txt"
    if not log.is_file() or {p.name for p in report.iterdir()} != names:
        return False
    text = log.read_text(encoding="utf-8")   # the statistics table, closed (the migration summary follows it)
    return "| files" in text and text.rfind("+--") > text.find("| files")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    out = Path(tempfile.mkdtemp(prefix="npu-lint-interrupt-"))
    command = [str(BIN / "npu-lint"), "analyse", "-i", str(args.project), "-o", str(out), "-j", "2", "--force",
               "--no-cache"]
    began = time.perf_counter()
    lines = subprocess.run(command, capture_output=True, text=True, check=True).stdout.count("\n")
    duration = time.perf_counter() - began
    report = out / f"{args.project.resolve().name}_analysis"
    names = {p.name for p in report.iterdir()}
    print(f"full run {duration:.1f} s, {lines} output lines, report of {len(names)} files")
    bad = 0
    outcomes: dict[str, int] = {}
    for trial in range(args.trials):
        signum = rng.choice([signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
        # A random moment of the run (the output comes at its end, so time, not lines, picks it): the signal
        # lands while the workers are busy, while the report is written, or around the swap.
        at = rng.uniform(0.1, duration * 1.05)
        before = (report / "pytorch_analysis.txt").read_bytes()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   start_new_session=True, preexec_fn=_default_sigint)
        began = time.perf_counter()
        time.sleep(at)
        delay = time.perf_counter() - began
        if signum == signal.SIGINT:
            os.killpg(process.pid, signum)
        else:
            process.send_signal(signum)
        try:
            _, err = process.communicate(timeout=60)
            hung = False
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            _, err = process.communicate()
            hung = True
        if signum == signal.SIGKILL:   # its workers are orphans: they finish their chunk and exit
            with_workers = subprocess.run(["pgrep", "-g", str(process.pid)], capture_output=True, text=True).stdout
            for pid in with_workers.split():
                os.kill(int(pid), signal.SIGKILL)
        after = (report / "pytorch_analysis.txt").read_bytes() if (report / "pytorch_analysis.txt").exists() else b""
        intact = complete(report, names)
        which = "new" if after != before else "previous"
        expected_code = {signal.SIGKILL: -9}.get(signum, 130)
        # a signal in the interpreter's last moments, after the report is in place, ends it the default way
        finished_first = which == "new" and process.returncode == -signum
        ok = not hung and intact and (process.returncode in (expected_code, 0) or finished_first) \
            and "Traceback" not in err
        bad += not ok
        state = "finished" if process.returncode == 0 else f"exit {process.returncode}"
        outcomes[state] = outcomes.get(state, 0) + 1
        print(f"trial {trial + 1:2}: {signal.Signals(signum).name:<7} after {delay:5.2f} s "
              f"-> {state:<9} "
              f"report {'complete' if intact else 'BROKEN'} ({which}), {'hung' if hung else 'no hang'}"
              f"{'' if ok else '  <-- FAIL ' + err.strip()[-200:]}")
    leftovers_before = sorted(p.name for p in out.iterdir() if p.name.startswith("."))
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    leftovers = sorted(p.name for p in out.iterdir() if p.name.startswith("."))
    print(f"left by killed runs: {len(leftovers_before)} folders; after one more run: {leftovers or 'none'}")
    print(f"{args.trials} trials: {bad} failures; outcomes {outcomes}")
    return 1 if bad or leftovers else 0


if __name__ == "__main__":
    sys.exit(main())
