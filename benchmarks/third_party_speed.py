"""Speed and memory of ``npu-lint analyse -m third_party`` and of the project index it builds on.

    python benchmarks/third_party_speed.py LIBRARY_FOLDER [--touch]

Runs ``analyse -m third_party --no-cache`` cold in a fresh process on one core (wall time, peak RSS), then builds the
index with a facts cache, changes one file and rebuilds (``--touch``: the incremental rebuild target of issue 10).
Targets: a 500-file library in <= 5 s cold, <= 300 MB; a rebuild after touching one file of a 500-file tree
<= 0.2 s.
"""
from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def cold(library: Path) -> tuple[float, float, float]:
    """Wall time, CPU time (user + system: what one core spends, whatever else runs) and peak RSS."""
    out = Path(tempfile.mkdtemp(prefix="tp-bench-"))
    try:
        start = time.perf_counter()
        command = [sys.executable, "-m", "npu_lint", "analyse", "-i", str(library), "-o", str(out), "-v", "2.8.0",
                   "-m", "third_party", "--no-cache"]
        if shutil.which("taskset"):
            command = ["taskset", "-c", "0"] + command
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        elapsed = time.perf_counter() - start
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024
    finally:
        shutil.rmtree(out, ignore_errors=True)


def rebuild(library: Path) -> tuple[float, float, int]:
    from npu_lint.project import ProjectIndex
    work = Path(tempfile.mkdtemp(prefix="tp-bench-"))
    try:
        copy = work / library.name
        shutil.copytree(library, copy, ignore=shutil.ignore_patterns("__pycache__", ".git"))
        cache = work / "cache"
        start = time.perf_counter()
        index = ProjectIndex.build([copy], cache_dir=cache)
        first = time.perf_counter() - start
        target = next(path for path in sorted(copy.rglob("*.py")) if path.stat().st_size > 2000)
        target.write_text(target.read_text(encoding="utf-8") + "\n\ndef _touched():\n    return 1\n", encoding="utf-8")
        start = time.process_time()   # CPU time: the figure does not depend on what else the machine runs
        index = ProjectIndex.build([copy], cache_dir=cache)
        index.stats()   # the call graph too
        again = time.process_time() - start
        return first, again, len(index.modules)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str]) -> int:
    library = Path(argv[0]).resolve()
    files = sum(1 for _ in library.rglob("*.py"))
    elapsed, cpu, peak = cold(library)
    print(f"{library.name}: {files} files, analyse -m third_party cold on one core: {elapsed:.2f} s wall, "
          f"{cpu:.2f} s CPU, peak RSS {peak:.0f} MB")
    if "--touch" in argv:
        first, again, modules = rebuild(library)
        print(f"index with cache: first build {first:.2f} s, rebuild after touching one file {again:.3f} s CPU "
              f"({modules} modules)")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    sys.exit(main(sys.argv[1:]))
