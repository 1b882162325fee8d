"""Cold `npu-lint analyse` CPU time against bare ``ast.parse`` of the same files (issue 10: at most 4x).

    python benchmarks/analyse_ratio.py [FOLDER ...] [--rounds N] [--npu-lint PATH]

For each folder (default: the corpus' ultralytics package), alternately N times (the machine may be shared, so
rounds interleave and the minimum of each is kept): a fresh interpreter that reads every ``.py`` file and then
times ``ast.parse`` of all of them (CPU time of the parsing only), and ``npu-lint analyse -i FOLDER -o TMP -v 2.8
--no-cache --force`` in default mode, one process, project index included, timed as the whole process's user CPU
time (interpreter start, imports, index, rules, report files). Prints both and their ratio.

Before the rounds, one untimed ``npu-lint analyse`` runs with bytecode writing allowed, so that the timed runs
import compiled modules as an installed package does (an editable install under ``PYTHONDONTWRITEBYTECODE=1``
would otherwise compile npu-lint's own modules in every timed run: about 0.03 s on ultralytics).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DEFAULT = Path("/work/corpus/ultralytics-8.3.0/ultralytics")
_PARSE = """
import ast, sys, time
from pathlib import Path
files = sorted(p for p in Path(sys.argv[1]).rglob("*.py") if p.is_file())
sources = [(p.read_text(encoding="utf-8", errors="replace"), str(p)) for p in files]
start = time.process_time()
for text, name in sources:
    try:
        ast.parse(text, name)
    except (SyntaxError, ValueError):
        pass
print(len(files), time.process_time() - start)
"""


def _user_time(command: list[str]) -> float:
    """The user CPU time of ``command`` (its children included), which must succeed."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    stderr = process.stderr.read().decode(errors="replace") if process.stderr else ""
    process.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{stderr}")
    return usage.ru_utime   # user time only: system time is file-system noise


def measure(folder: Path, rounds: int, npu_lint: str) -> tuple[int, float, float]:
    out = Path(tempfile.mkdtemp(prefix="npu-lint-ratio-"))
    parse_times, analyse_times, files = [], [], 0
    warm = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    try:
        subprocess.run([npu_lint, "analyse", "-i", str(folder), "-o", str(out), "-v", "2.8", "--no-cache", "--force",
                        "-q"], check=True, capture_output=True, env=warm)   # untimed: bytecode written
        for _ in range(rounds):
            result = subprocess.run([sys.executable, "-c", _PARSE, str(folder)], check=True, capture_output=True,
                                    text=True)
            count, seconds = result.stdout.split()
            files = int(count)
            parse_times.append(float(seconds))
            analyse_times.append(_user_time([npu_lint, "analyse", "-i", str(folder), "-o", str(out), "-v", "2.8",
                                             "--no-cache", "--force"]))
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return files, min(parse_times), min(analyse_times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[DEFAULT])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--npu-lint", default=str(Path(sys.executable).parent / "npu-lint"))
    args = parser.parse_args()
    print("| project | files | ast.parse (CPU) | analyse cold (user CPU) | ratio | target |")
    print("|---|---|---|---|---|---|")
    for folder in args.folders:
        if not folder.is_dir():
            print(f"{folder}: no such folder", file=sys.stderr)
            return 2
        files, parse, analyse = measure(folder, args.rounds, args.npu_lint)
        print(f"| {folder.name} | {files} | {parse:.3f} s | {analyse:.2f} s | {analyse / parse:.1f}x | <= 4x |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
