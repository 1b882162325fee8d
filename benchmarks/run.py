"""Speed targets of npu-lint, measured on a real PyTorch corpus (timm + mmdet sources from PyPI).

Usage: ``python benchmarks/run.py [--runs 3]``. It downloads the corpus and builds two virtual
environments under ``benchmarks/.cache/`` once (flake8 alone; flake8 + this checkout of npu-lint),
reinstalls npu-lint from the working tree on every run, then prints and writes ``benchmarks/RESULTS.md``.

Targets (issues 2 and 3):
- flake8 with NPU selected costs at most 1.5x flake8 with pyflakes alone (``--select=F``);
- flake8 with npu-lint installed but NPU not selected costs at most 1.1x;
- ``npu-lint check`` on one 500-line model file takes at most 0.3 s wall;
- loading one release's rule tables takes at most 50 ms.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CACHE = HERE / ".cache"
CORPUS = CACHE / "corpus"
VENVS = CACHE / "venvs"
PACKAGES = (("timm==1.0.31", True), ("mmdet==3.3.0", False))   # (requirement, from source)
ONE_FILE = "mmdet/models/dense_heads/atss_head.py"


def sh(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(args, check=True, capture_output=True, text=True, **kwargs)


def fetch_corpus() -> Path:
    CORPUS.mkdir(parents=True, exist_ok=True)
    downloads = CACHE / "downloads"
    for requirement, from_source in PACKAGES:
        name = requirement.split("==")[0]
        target = CORPUS / name
        if target.exists():
            continue
        downloads.mkdir(parents=True, exist_ok=True)
        flags = ["--no-binary", ":all:"] if from_source else ["--only-binary", ":all:"]
        sh([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", *flags, requirement, "-d", str(downloads)])
        archive = next(p for p in downloads.iterdir() if p.name.lower().startswith(name.replace("-", "_"))
                       or p.name.lower().startswith(name))
        target.mkdir()
        if archive.suffix == ".whl":
            zipfile.ZipFile(archive).extractall(target)
        else:
            tarfile.open(archive).extractall(target)
    return CORPUS


def corpus_files() -> list[Path]:
    return sorted(p for p in CORPUS.rglob("*.py") if p.is_file())


def make_venvs() -> dict[str, Path]:
    flake8_version = sh([sys.executable, "-c", "import importlib.metadata as m; print(m.version('flake8'))"],
                        ).stdout.strip() if _has_flake8() else ""
    pin = f"flake8=={flake8_version}" if flake8_version else "flake8"
    venvs = {}
    for name in ("base", "npu"):
        path = VENVS / name
        python = path / "bin" / "python"
        if not python.exists():
            sh([sys.executable, "-m", "venv", str(path)])
            sh([str(python), "-m", "pip", "install", "--quiet", pin if name == "base" else str(REPO)])
        venvs[name] = path
    sh([str(venvs["npu"] / "bin" / "python"), "-m", "pip", "install", "--quiet", "--force-reinstall", "--no-deps",
        str(REPO)])
    return venvs


def _has_flake8() -> bool:
    return subprocess.run([sys.executable, "-c", "import flake8"], capture_output=True).returncode == 0


def timed(args: list[str], runs: int, warmup: int = 1) -> tuple[float, float, str]:
    """Median wall seconds, median CPU seconds (children), and the last run's stdout."""
    walls, cpus, out = [], [], ""
    for index in range(warmup + runs):
        before = os.times()
        start = time.perf_counter()
        result = subprocess.run(args, capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = os.times()
        out = result.stdout
        if index >= warmup:
            walls.append(wall)
            cpus.append((after.children_user - before.children_user) + (after.children_system - before.children_system))
    return statistics.median(walls), statistics.median(cpus), out


def table_load_ms(python: Path) -> float:
    code = ("import time; t = time.perf_counter(); from npu_lint.support_facts import support_table; "
            "from npu_lint.tables import read_tsv; support_table('2.14.0'); "
            "[read_tsv(n) for n in ('cuda_apis.tsv', 'cuda_env_vars.tsv', 'cuda_libraries.tsv', 'advice.tsv')]; "
            "print((time.perf_counter() - t) * 1000)")
    return statistics.median(float(sh([str(python), "-c", code]).stdout) for _ in range(10))


def core_throughput(python: Path, files: list[Path]) -> tuple[float, int]:
    listing = CACHE / "files.txt"
    listing.write_text("\n".join(str(p) for p in files))
    code = ("import sys, time, ast\nfrom npu_lint.core import analyse_tree\nfrom npu_lint.rules import all_rules\n"
            "codes = frozenset(r.code for r in all_rules())\nsources = []\n"
            "for name in open(sys.argv[1]).read().split('\\n'):\n"
            "    try:\n        text = open(name, encoding='utf-8').read(); sources.append((ast.parse(text), text))\n"
            "    except Exception:\n        pass\n"
            "t = time.perf_counter(); n = 0\n"
            "for tree, text in sources:\n    n += len(analyse_tree(tree, text, None, codes))\n"
            "print(time.perf_counter() - t, n)")
    seconds, findings = sh([str(python), "-c", code, str(listing)]).stdout.split()
    return float(seconds), int(findings)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    fetch_corpus()
    files = corpus_files()
    lines = sum(len(p.read_bytes().splitlines()) for p in files)
    venvs = make_venvs()
    base, npu = venvs["base"] / "bin", venvs["npu"] / "bin"
    common = ["--isolated", "--exit-zero"]
    rows, results = [], {}
    for jobs in ("2", "1"):
        runs = args.runs if jobs == "2" else 1
        cases = {
            "a": [str(base / "flake8"), *common, "-j", jobs, "--select=F", str(CORPUS)],
            "b": [str(npu / "flake8"), *common, "-j", jobs, "--select=F,NPU", str(CORPUS)],
            "c": [str(npu / "flake8"), *common, "-j", jobs, "--select=F", str(CORPUS)],
        }
        for key, command in cases.items():
            results[(jobs, key)] = timed(command, runs, warmup=1 if jobs == "2" else 0)
        npu_findings = sum(" NPU" in line for line in results[(jobs, "b")][2].splitlines())
        a, b, c = (results[(jobs, k)][0] for k in "abc")
        rows.append((f"-j{jobs}", a, b, c, b / a, c / a, npu_findings))
    one = str(next(CORPUS.rglob(ONE_FILE)))
    check_ms = timed([str(npu / "npu-lint"), "check", "--exit-zero", one], 10)[0] * 1000
    flake8_one_ms = timed([str(npu / "flake8"), "--isolated", "--exit-zero", "--select=NPU", one], 10)[0] * 1000
    load_ms = table_load_ms(npu / "python")
    core_s, core_findings = core_throughput(npu / "python", files)
    ratio_b, ratio_c = rows[0][4], rows[0][5]
    verdict = lambda ok: "PASS" if ok else "FAIL"  # noqa: E731
    report = [
        "# Benchmark results", "",
        f"Machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{sh([str(base / 'flake8'), '--version']).stdout.split()[0]} flake8; corpus: timm 1.0.31 (sdist) + "
        f"mmdet 3.3.0 (wheel), {len(files):,} files, {lines:,} lines. Medians of {args.runs} runs (-j2, after a "
        "warm-up) and of 1 run (-j1).", "",
        "| flake8 over the corpus | (a) pyflakes only `--select=F` | (b) `--select=F,NPU` | (c) installed, `--select=F` "
        "| b/a | c/a | NPU findings |",
        "|---|---|---|---|---|---|---|",
        *[f"| {r[0]} | {r[1]:.2f} s | {r[2]:.2f} s | {r[3]:.2f} s | {r[4]:.2f} | {r[5]:.2f} | {r[6]:,} |" for r in rows],
        "", "| target | measured | result |", "|---|---|---|",
        f"| selected ≤ 1.5× pyflakes alone (-j2) | {ratio_b:.2f}× | {verdict(ratio_b <= 1.5)} |",
        f"| installed, not selected ≤ 1.1× (-j2) | {ratio_c:.2f}× | {verdict(ratio_c <= 1.1)} |",
        f"| `npu-lint check` one 500-line file ≤ 300 ms | {check_ms:.0f} ms | {verdict(check_ms <= 300)} |",
        f"| load one release's tables ≤ 50 ms | {load_ms:.1f} ms | {verdict(load_ms <= 50)} |",
        "", f"Also: `flake8 --select=NPU` on that file {flake8_one_ms:.0f} ms; the core alone (every rule, trees "
        f"already parsed) {lines / core_s:,.0f} lines/s on one core ({core_s:.2f} s, {core_findings:,} findings).", "",
    ]
    text = "\n".join(report)
    (HERE / "RESULTS.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
