"""What npu-lint costs inside flake8 and on its own, measured over a real PyTorch corpus.

Usage: ``python benchmarks/fetch_corpus.py && python benchmarks/flake8_overhead.py [--runs 3] [--warmup 1]``

Builds two virtual environments once under ``benchmarks/.cache/venvs/``:

- ``base``: flake8 alone (the same flake8 and pyflakes versions as ``npu``);
- ``npu``: ``pip install`` of this checkout (flake8, libcst, pandas and npu-lint). On every later run
  npu-lint is reinstalled with ``--force-reinstall --no-deps`` so the current working tree is measured.
  pip installs from a snapshot copy of the checkout in a temporary folder, so the in-tree build leaves
  nothing behind in the repository.

Then measures (all subprocesses run outside the repository, so ``import npu_lint`` is the installed copy):

- over the whole corpus, ``--isolated --exit-zero`` with ``-j1`` and ``-j2``:
  (a) ``base/bin/flake8 --select=F`` (pyflakes alone), (b) ``npu/bin/flake8 --select=F,NPU``,
  (c) ``npu/bin/flake8 --select=F`` (installed, not selected); median wall seconds and CPU seconds
  (user+sys of the children, ``resource.getrusage(RUSAGE_CHILDREN)`` deltas), the ratios b/a and c/a,
  the NPU findings of (b);
- one 500-line model file: ``npu-lint check`` and ``flake8 --select=NPU`` (10 runs, median ms);
- in-process: import cost of ``npu_lint.flake8_plugin``, ``npu_lint.core.analyse_source`` over the
  corpus (lines/s), and loading the rule tables cold in a fresh process (median of 10).

Prints a Markdown report with PASS/FAIL per target and writes it to ``benchmarks/RESULTS.md``. When a
target fails (or with ``--profile``) it adds a cProfile of ``analyse_source`` over the corpus (top 15
functions by tottime). Standard library only.

Targets (project issue): selected <= 1.5x pyflakes alone; installed but not selected <= 1.1x;
``npu-lint check`` on one 500-line file <= 0.3 s wall; loading one release's tables <= 50 ms.
"""
from __future__ import annotations

import argparse
import atexit
import datetime
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetch_corpus  # noqa: E402  (sibling script)

HERE = fetch_corpus.HERE
REPO = HERE.parent
CACHE = fetch_corpus.CACHE
CORPUS = fetch_corpus.CORPUS
VENVS = CACHE / "venvs"
WORK = CACHE / "work"          # cwd of every measured process and home of the helper scripts

TARGET_SELECTED = 1.5
TARGET_NOT_SELECTED = 1.1
TARGET_CHECK_MS = 300.0
TARGET_TABLES_MS = 50.0

NPU_LINE = re.compile(r":\d+:\d+: NPU\d+")
F_LINE = re.compile(r":\d+:\d+: F\d+")


# --------------------------------------------------------------------------- processes

# An empty npu-lint cache for every run: a project index that ``npu-lint check`` once built for the corpus (kept in
# the user cache) would make the plugin load it and run the project-aware rules, a different case from flake8 on a
# fresh clone (the target's case). The index case is slower; benchmarks/README.md gives its figure.
_EMPTY_CACHE = tempfile.mkdtemp(prefix="npu-lint-bench-cache-")
atexit.register(shutil.rmtree, _EMPTY_CACHE, True)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    for name in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    env["NPU_LINT_CACHE_DIR"] = _EMPTY_CACHE
    return env


def sh(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    kwargs.setdefault("cwd", WORK)
    result = subprocess.run(args, capture_output=True, text=True, env=_env(), **kwargs)
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        raise SystemExit(f"flake8_overhead: command failed ({result.returncode}): {' '.join(args)}")
    return result


def timed(args: list[str]) -> tuple[float, float, str]:
    """One run: wall seconds, CPU seconds (user+sys of the child and its waited-for children), stdout."""
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as out:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        result = subprocess.run(args, stdout=out, stderr=subprocess.PIPE, text=True, cwd=WORK, env=_env())
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if result.returncode != 0:
            sys.stderr.write(result.stderr)
            raise SystemExit(f"flake8_overhead: command failed ({result.returncode}): {' '.join(args)}")
        out.seek(0)
        text = out.read()
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, text


class Series:
    """Repeated measurements of one command."""

    def __init__(self, label: str, args: list[str]) -> None:
        self.label, self.args = label, args
        self.walls: list[float] = []
        self.cpus: list[float] = []
        self.output = ""

    def run(self, keep: bool) -> None:
        wall, cpu, self.output = timed(self.args)
        if keep:
            self.walls.append(wall)
            self.cpus.append(cpu)

    @property
    def wall(self) -> float:
        return statistics.median(self.walls)

    @property
    def cpu(self) -> float:
        return statistics.median(self.cpus)

    def spread(self, scale: float = 1.0, digits: int = 2) -> str:
        return f"{min(self.walls) * scale:.{digits}f}–{max(self.walls) * scale:.{digits}f}"


def round_robin(series: list[Series], runs: int, warmup: int, note: str = "") -> None:
    """Run the commands in turn (a, b, c, a, b, c, ...) so slow drift of the machine hits all alike."""
    for index in range(warmup + runs):
        keep = index >= warmup
        for item in series:
            item.run(keep)
        if note:
            label = f"run {index - warmup + 1}/{runs}" if keep else "warm-up"
            done = ", ".join(f"{s.label} {s.walls[-1]:.2f} s" for s in series) if keep else "done"
            print(f"  {note} {label}: {done}", flush=True)


# --------------------------------------------------------------------------- environments

def _snapshot() -> Path:
    """A copy of the checkout without build leftovers, VCS data, tests or benchmarks."""
    folder = Path(tempfile.mkdtemp(prefix="npu-lint-src-")) / "npu-lint"
    shutil.copytree(REPO, folder, ignore=shutil.ignore_patterns(
        ".git", "build", "dist", "*.egg-info", "benchmarks", "__pycache__", ".pytest_cache", ".venv*",
        ".mypy_cache", ".ruff_cache", ".hypothesis", ".tox", "tests", "examples"))
    return folder


def _pip(python: Path, *args: str) -> None:
    sh([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *args])


def _versions(python: Path, *names: str) -> dict[str, str]:
    code = ("import importlib.metadata as m, json, sys\n"
            "out = {}\n"
            "for n in sys.argv[1:]:\n"
            "    try: out[n] = m.version(n)\n"
            "    except m.PackageNotFoundError: out[n] = ''\n"
            "print(json.dumps(out))")
    return json.loads(sh([str(python), "-c", code, *names]).stdout)


def make_venvs() -> tuple[Path, Path]:
    """(base/bin, npu/bin), created once, npu-lint reinstalled from the working tree every time."""
    VENVS.mkdir(parents=True, exist_ok=True)
    source = _snapshot()
    try:
        npu = VENVS / "npu"
        python = npu / "bin" / "python"
        if not python.exists() or not (npu / "bin" / "flake8").exists():
            print("creating venv npu (pip install of the checkout with its dependencies) ...", flush=True)
            shutil.rmtree(npu, ignore_errors=True)
            sh([sys.executable, "-m", "venv", str(npu)])
            _pip(python, str(source))
        else:
            print("reinstalling npu-lint from the working tree into venv npu ...", flush=True)
            _pip(python, "--force-reinstall", "--no-deps", str(source))
            if subprocess.run([str(python), "-m", "pip", "check"], capture_output=True, cwd=WORK,
                              env=_env()).returncode != 0:
                print("  dependencies changed: full install", flush=True)
                _pip(python, str(source))
    finally:
        shutil.rmtree(source.parent, ignore_errors=True)
    wanted = _versions(python, "flake8", "pyflakes", "pycodestyle")
    base = VENVS / "base"
    base_python = base / "bin" / "python"
    if not base_python.exists():
        print(f"creating venv base (flake8 {wanted['flake8']} only) ...", flush=True)
        sh([sys.executable, "-m", "venv", str(base)])
    if _versions(base_python, "flake8", "pyflakes", "pycodestyle") != wanted:
        _pip(base_python, *(f"{name}=={version}" for name, version in wanted.items()))
    if _versions(base_python, "npu-lint")["npu-lint"]:
        raise SystemExit("flake8_overhead: venv base must not contain npu-lint; delete benchmarks/.cache/venvs/base")
    return base / "bin", npu / "bin"


# --------------------------------------------------------------------------- in-process helpers

ANALYSE_SCRIPT = r'''
import ast, json, statistics, sys, time
from pathlib import Path
from npu_lint.core import analyse_source, dispatch_for
from npu_lint.rules import all_rules

mode, listing, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
sources = []
for name in Path(listing).read_text(encoding="utf-8").split("\n"):
    try:
        sources.append((name, Path(name).read_text(encoding="utf-8")))
    except UnicodeDecodeError:
        pass
lines = sum(text.count("\n") for _, text in sources)
every = frozenset(rule.code for rule in all_rules())


def analyse(codes):
    found = failed = 0
    for name, text in sources:
        try:
            found += len(analyse_source(text, codes=codes, filename=name))
        except (SyntaxError, ValueError):
            failed += 1
    return found, failed


def parse_only():
    for name, text in sources:
        try:
            ast.parse(text, name)
        except (SyntaxError, ValueError):
            pass


def timing(action, *args):
    action(*args)                                   # warm-up: lru caches, tables, imports
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = action(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times), max(times), result


if mode == "profile":
    import cProfile, io, pstats
    analyse(None)
    profiler = cProfile.Profile()
    profiler.enable()
    analyse(None)
    profiler.disable()
    buffer = io.StringIO()
    pstats.Stats(profiler, stream=buffer).sort_stats("tottime").print_stats(15)
    print(buffer.getvalue())
    sys.exit(0)

default = timing(analyse, None)
everything = timing(analyse, every)
parse = timing(parse_only)
dispatch = dispatch_for(None)
print(json.dumps({
    "files": len(sources), "lines": lines,
    "wanted": sum(1 for _, text in sources if dispatch.wanted(text)),
    "default": {"median": default[0], "min": default[1], "max": default[2], "findings": default[3][0],
                "unparsable": default[3][1], "codes": len(dispatch.codes)},
    "all": {"median": everything[0], "min": everything[1], "max": everything[2], "findings": everything[3][0],
            "codes": len(every)},
    "parse": {"median": parse[0], "min": parse[1], "max": parse[2]},
}))
'''

IMPORT_SCRIPT = r'''
import json, sys, time
start = time.perf_counter()
import npu_lint.flake8_plugin
imported = time.perf_counter()
from npu_lint.rules import all_rules            # what add_options / parse_options add on every flake8 run
from npu_lint.versions import default_release
all_rules(); default_release()
ready = time.perf_counter()
print(json.dumps({"import_ms": (imported - start) * 1000, "startup_ms": (ready - start) * 1000,
                  "heavy": sorted(m for m in ("pandas", "numpy", "libcst") if m in sys.modules)}))
'''

TABLES_SCRIPT = r'''
import json, sys, time
start = time.perf_counter()
from npu_lint import tables
imported = time.perf_counter()
release = sys.argv[1]
names = sorted(p.relative_to(tables.TABLES_DIR).as_posix() for p in tables.TABLES_DIR.rglob("*.tsv"))
if release != "ALL":
    names = [n for n in names if "/" not in n or n == "support/" + release + ".tsv"]
rows = sum(len(tables.read_tsv(name)) for name in names)
done = time.perf_counter()
print(json.dumps({"ms": (done - start) * 1000, "import_ms": (imported - start) * 1000,
                  "tables": len(names), "rows": rows}))
'''


def _script(name: str, text: str) -> Path:
    path = WORK / name
    path.write_text(text, encoding="utf-8")
    return path


def fresh_process_json(python: Path, script: Path, args: list[str], runs: int) -> tuple[dict, list[dict]]:
    """Run ``script`` ``runs`` times (plus one warm-up) in fresh processes; median of every numeric field."""
    sh([str(python), str(script), *args])
    samples = [json.loads(sh([str(python), str(script), *args]).stdout) for _ in range(runs)]
    merged = dict(samples[-1])
    for key, value in samples[0].items():
        if isinstance(value, float):
            merged[key] = statistics.median(s[key] for s in samples)
    return merged, samples


# --------------------------------------------------------------------------- report

def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def _git_state() -> str:
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "npu_lint", "rule_tables",
                                "pyproject.toml"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"
    return f"{head or 'unknown'}{' + uncommitted changes in npu_lint/rule_tables' if dirty else ''}"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _nproc() -> str:
    try:
        return subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip() or str(os.cpu_count())
    except OSError:
        return str(os.cpu_count())


# the sections this script writes; every other ``## `` section of RESULTS.md was written by hand (dated results of
# other benchmarks and sessions) and is kept, in order, below the new report
GENERATED_HEADINGS = ("## Targets", "## flake8 over the corpus", "## One file:", "## In-process", "## Profile:")


def kept_sections(path: Path) -> str:
    """The sections of ``path`` this script did not write, each up to the next ``## `` heading."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return ""
    kept, keeping = [], False
    for line in lines:
        if line.startswith("## "):
            keeping = not line.startswith(GENERATED_HEADINGS)
        if keeping:
            kept.append(line)
    return "\n" + "\n".join(kept) + "\n" if kept else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="measured runs per corpus case (default 3)")
    parser.add_argument("--warmup", type=int, default=1, help="warm-up runs per corpus case (default 1)")
    parser.add_argument("--single-runs", type=int, default=10, help="runs per one-file / fresh-process case")
    parser.add_argument("--profile", action="store_true", help="add the cProfile of analyse_source even if all pass")
    args = parser.parse_args()
    began = time.perf_counter()
    WORK.mkdir(parents=True, exist_ok=True)

    manifest = fetch_corpus.ensure_corpus(verbose=False)
    files = fetch_corpus.corpus_files()
    size = fetch_corpus.corpus_size(files)
    one = fetch_corpus.one_file()
    one_lines = fetch_corpus.count_lines(one.read_bytes())
    listing = WORK / "files.txt"
    listing.write_text("\n".join(str(p) for p in files), encoding="utf-8")
    print(f"corpus: {fetch_corpus.describe(manifest)}, {size['files']:,} files, {size['lines']:,} lines", flush=True)

    base, npu = make_venvs()
    versions = _versions(npu / "python", "flake8", "pyflakes", "pycodestyle", "npu-lint", "libcst")
    python_version = sh([str(npu / "python"), "-c", "import platform; print(platform.python_version())"]).stdout.strip()
    print(f"flake8 {versions['flake8']} (pyflakes {versions['pyflakes']}), npu-lint {versions['npu-lint']}, "
          f"Python {python_version}", flush=True)

    # ---- whole corpus
    common = ["--isolated", "--exit-zero"]
    corpus_rows = {}
    for jobs in ("1", "2"):
        cases = [Series("a", [str(base / "flake8"), *common, f"-j{jobs}", "--select=F", str(CORPUS)]),
                 Series("b", [str(npu / "flake8"), *common, f"-j{jobs}", "--select=F,NPU", str(CORPUS)]),
                 Series("c", [str(npu / "flake8"), *common, f"-j{jobs}", "--select=F", str(CORPUS)])]
        print(f"flake8 over the corpus, -j{jobs} ({args.warmup} warm-up + {args.runs} runs of a, b, c) ...", flush=True)
        round_robin(cases, args.runs, args.warmup, note=f"-j{jobs}")
        corpus_rows[jobs] = {s.label: s for s in cases}
        f_counts = {s.label: len(F_LINE.findall(s.output)) for s in cases}
        npu_counts = {s.label: len(NPU_LINE.findall(s.output)) for s in cases}
        corpus_rows[jobs]["counts"] = (f_counts, npu_counts)
        if len(set(f_counts.values())) != 1 or npu_counts["a"] or npu_counts["c"]:
            print(f"  WARNING: finding counts differ between cases: F {f_counts}, NPU {npu_counts}", flush=True)

    # ---- one file
    print(f"one file ({one.relative_to(CORPUS)}, {one_lines} lines), {args.single_runs} runs each ...", flush=True)
    singles = [
        Series("`npu-lint check FILE`", [str(npu / "npu-lint"), "check", "--exit-zero", str(one)]),
        Series("`flake8 --select=NPU FILE` (npu venv)", [str(npu / "flake8"), *common, "--select=NPU", str(one)]),
        Series("`flake8 --select=F FILE` (npu venv, NPU not selected)", [str(npu / "flake8"), *common, "--select=F",
                                                                         str(one)]),
        Series("`flake8 --select=F FILE` (base venv)", [str(base / "flake8"), *common, "--select=F", str(one)]),
        Series("`python -c pass` (interpreter floor)", [str(npu / "python"), "-c", "pass"]),
    ]
    round_robin(singles, args.single_runs, 1)
    one_npu_findings = len([line for line in singles[0].output.splitlines() if re.search(r": NPU\d+ ", line)])

    # ---- in-process
    print("import cost, table load, analyse_source in-process ...", flush=True)
    imports, _ = fresh_process_json(npu / "python", _script("bench_import.py", IMPORT_SCRIPT), [], args.single_runs)
    release = sh([str(npu / "python"), "-c", "from npu_lint.versions import default_release; print(default_release())"]
                 ).stdout.strip()
    tables_script = _script("bench_tables.py", TABLES_SCRIPT)
    one_release, _ = fresh_process_json(npu / "python", tables_script, [release], args.single_runs)
    every_table, _ = fresh_process_json(npu / "python", tables_script, ["ALL"], args.single_runs)
    analyse_script = _script("bench_analyse.py", ANALYSE_SCRIPT)
    core = json.loads(sh([str(npu / "python"), str(analyse_script), "time", str(listing), str(args.runs)]).stdout)

    # ---- verdicts
    targets = []
    for jobs in ("1", "2"):
        row = corpus_rows[jobs]
        ratio = row["b"].wall / row["a"].wall
        targets.append((f"(b) `--select=F,NPU` ≤ {TARGET_SELECTED}× pyflakes alone, -j{jobs}", f"{ratio:.2f}×",
                        ratio <= TARGET_SELECTED))
    for jobs in ("1", "2"):
        row = corpus_rows[jobs]
        ratio = row["c"].wall / row["a"].wall
        targets.append((f"(c) installed, not selected ≤ {TARGET_NOT_SELECTED}× pyflakes alone, -j{jobs}",
                        f"{ratio:.2f}×", ratio <= TARGET_NOT_SELECTED))
    check_ms = singles[0].wall * 1000
    targets.append((f"`npu-lint check` one {one_lines}-line file ≤ {TARGET_CHECK_MS:.0f} ms wall",
                    f"{check_ms:.0f} ms", check_ms <= TARGET_CHECK_MS))
    targets.append((f"load one release's tables ({release}: {one_release['tables']} TSVs), cold, ≤ "
                    f"{TARGET_TABLES_MS:.0f} ms", f"{one_release['ms']:.1f} ms", one_release["ms"] <= TARGET_TABLES_MS))
    failed = [t for t in targets if not t[2]]

    profile_text = ""
    if failed or args.profile:
        print("profiling analyse_source over the corpus ...", flush=True)
        profile_text = sh([str(npu / "python"), str(analyse_script), "profile", str(listing), "1"]).stdout.strip()

    # ---- report
    lines_total = size["lines"]
    report = [
        "# Benchmark results", "",
        f"Written by `benchmarks/flake8_overhead.py` on {datetime.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}.", "",
        f"- Machine: `nproc` = {_nproc()} ({_cpu_model()}), {platform.system()} {platform.release()}",
        f"- Python {python_version}; flake8 {versions['flake8']} (pyflakes {versions['pyflakes']}, pycodestyle "
        f"{versions['pycodestyle']}) in both venvs; libcst {versions['libcst'] or '-'} installed in `npu`",
        f"- npu-lint {versions['npu-lint']}, commit {_git_state()}",
        f"- Corpus: {fetch_corpus.describe(manifest)}: **{size['files']:,} .py files, {lines_total:,} lines** "
        f"(`wc -l`), {size['bytes'] / 1e6:.1f} MB",
        f"- Corpus cases: {args.warmup} warm-up + {args.runs} measured runs each, run in turn a, b, c; one-file and "
        f"fresh-process cases: 1 warm-up + {args.single_runs} runs. Medians; CPU = user+sys of the child processes.",
        "",
        "## Targets", "",
        "| target | measured | result |", "|---|---|---|",
        *[f"| {name} | {value} | {verdict(ok)} |" for name, value, ok in targets],
        "", f"**{'All targets met.' if not failed else f'{len(failed)} target(s) failed.'}**", "",
        "## flake8 over the corpus (`--isolated --exit-zero`)", "",
        "| case | -j | median wall s (min–max) | median CPU s | lines/s per core | ratio to (a), wall "
        "| ratio to (a), CPU | F findings | NPU findings |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    names = {"a": "(a) base `flake8 --select=F` (pyflakes alone)", "b": "(b) npu `flake8 --select=F,NPU`",
             "c": "(c) npu `flake8 --select=F` (installed, not selected)"}
    for jobs in ("1", "2"):
        row = corpus_rows[jobs]
        f_counts, npu_counts = row["counts"]
        for key in "abc":
            s = row[key]
            report.append(
                f"| {names[key]} | {jobs} | {s.wall:.2f} ({s.spread()}) | {s.cpu:.2f} | "
                f"{lines_total / (s.wall * int(jobs)):,.0f} | {s.wall / row['a'].wall:.2f} | "
                f"{s.cpu / row['a'].cpu:.2f} | {f_counts[key]:,} | {npu_counts[key]:,} |")
    report += [
        "", f"## One file: `{one.relative_to(CORPUS)}` ({one_lines} lines)", "",
        "| command | median wall ms (min–max) | median CPU ms |", "|---|---|---|",
        *[f"| {s.label} | {s.wall * 1000:.0f} ({s.spread(1000, 0)}) | {s.cpu * 1000:.0f} |" for s in singles],
        "", f"`npu-lint check` reports {one_npu_findings} finding(s) on this file.", "",
        "## In-process", "",
        "| measurement | result |", "|---|---|",
        f"| `import npu_lint.flake8_plugin` (fresh process, median of {args.single_runs}) | "
        f"{imports['import_ms']:.1f} ms |",
        f"| plugin start-up flake8 pays on every run (import + `all_rules()` + `default_release()`) | "
        f"{imports['startup_ms']:.1f} ms; heavy modules loaded: {', '.join(imports['heavy']) or 'none'} |",
        f"| load one release's tables cold (`{release}`: {one_release['tables']} TSVs, {one_release['rows']:,} rows; "
        f"incl. {one_release['import_ms']:.1f} ms import of `npu_lint.tables`) | {one_release['ms']:.1f} ms |",
        f"| load every table cold (`rule_tables/**/*.tsv`: {every_table['tables']} TSVs, {every_table['rows']:,} rows) "
        f"| {every_table['ms']:.1f} ms |",
        f"| `ast.parse` alone over the corpus ({core['files']:,} files, {core['lines']:,} lines) | "
        f"{core['parse']['median']:.2f} s = {core['lines'] / core['parse']['median']:,.0f} lines/s |",
        f"| `analyse_source`, default rules ({core['default']['codes']} codes; parse included; "
        f"{core['wanted']:,} files pass the substring pre-filter) | {core['default']['median']:.2f} s = "
        f"**{core['lines'] / core['default']['median']:,.0f} lines/s** on one core, "
        f"{core['default']['findings']:,} findings |",
        f"| `analyse_source`, every rule ({core['all']['codes']} codes) | {core['all']['median']:.2f} s = "
        f"{core['lines'] / core['all']['median']:,.0f} lines/s, {core['all']['findings']:,} findings |",
        "",
    ]
    if profile_text:
        report += ["## Profile: `analyse_source` over the corpus, default rules (cProfile, top 15 by tottime)", "",
                   "```", profile_text, "```", ""]
    report += ["`python benchmarks/analyse_speed.py` appends the `npu-lint analyse` timings below.", ""]
    text = "\n".join(report)
    (HERE / "RESULTS.md").write_text(text + kept_sections(HERE / "RESULTS.md"), encoding="utf-8")
    print()
    print(text)
    print(f"(benchmark took {time.perf_counter() - began:.0f} s; written to {HERE / 'RESULTS.md'})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
