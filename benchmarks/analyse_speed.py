"""Cold `npu-lint analyse` time on a 52-file model folder of the corpus (issue 4: the vendor tool needs 77 s
for a 52-file, 15k-line repository on this machine class; target: at most 0.8 s on 2 cores).

Usage: ``python benchmarks/analyse_speed.py`` after ``python benchmarks/fetch_corpus.py`` and
``python benchmarks/flake8_overhead.py`` have fetched the corpus and built ``benchmarks/.cache/venvs/npu``.
Appends its figures to ``benchmarks/RESULTS.md`` (which ``flake8_overhead.py`` rewrites).
"""
from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from flake8_overhead import _snapshot  # noqa: E402  (sibling script)

NPU = HERE / ".cache" / "venvs" / "npu" / "bin"
FOLDER = "mmdet/models/dense_heads"


def main() -> int:
    source = next((HERE / ".cache" / "corpus").rglob(FOLDER), None)
    if source is None or not (NPU / "npu-lint").exists():
        print("run benchmarks/fetch_corpus.py and benchmarks/flake8_overhead.py first (corpus and venv)",
              file=sys.stderr)
        return 2
    checkout = _snapshot()   # a copy of the checkout: pip's in-tree build leaves nothing in the repository
    try:
        subprocess.run([str(NPU / "python"), "-m", "pip", "install", "--quiet", "--force-reinstall", "--no-deps",
                        str(checkout)], check=True)
    finally:
        shutil.rmtree(checkout.parent, ignore_errors=True)
    work = Path(tempfile.mkdtemp())
    project = work / "dense_heads"
    project.mkdir()
    files = sorted(source.glob("*.py"))[:52]
    for path in files:
        shutil.copy(path, project / path.name)
    lines = sum(len(p.read_bytes().splitlines()) for p in files)
    out = work / "out"
    out.mkdir()
    results = {}
    for label, extra in (("cold, 1 process", ["--no-cache"]), ("cold, -j 2", ["--no-cache", "-j", "2"]),
                         ("second run, cache", [])):
        times = []
        for _ in range(5):
            start = time.perf_counter()
            subprocess.run([str(NPU / "npu-lint"), "analyse", "-i", str(project), "-o", str(out), "--force", *extra],
                           check=True, capture_output=True)
            times.append(time.perf_counter() - start)
        results[label] = statistics.median(times)
    shutil.rmtree(work)
    report = ["", f"## `npu-lint analyse` on {len(files)} files ({lines:,} lines) of {FOLDER}", "",
              "| run | median of 5 | target |", "|---|---|---|"]
    report += [f"| {label} | {seconds:.2f} s | {'≤ 0.8 s' if label.startswith('cold') else ''} |"
               for label, seconds in results.items()]
    text = "\n".join(report) + "\n"
    with (HERE / "RESULTS.md").open("a", encoding="utf-8") as handle:
        handle.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
