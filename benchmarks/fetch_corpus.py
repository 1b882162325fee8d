"""Download and unpack the benchmark corpus: real PyTorch model code from PyPI.

Usage: ``python benchmarks/fetch_corpus.py``

The corpus is the one the speed study in the project's research notes used (2 cores, 1,775 files,
325,860 lines): the timm 1.0.31 source distribution and the mmdet 3.3.0 wheel. Both are fetched with
``pip download --no-deps`` into ``benchmarks/.cache/downloads/`` and unpacked into
``benchmarks/.cache/corpus/<name>/`` (gitignored). When a pinned release is no longer on the index, the
nearest available release is taken instead and recorded in ``benchmarks/.cache/corpus/MANIFEST.json``,
which ``flake8_overhead.py`` copies into ``RESULTS.md``.

Idempotent: a package whose folder already holds ``.py`` files is not downloaded again. Standard library only.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
CORPUS = CACHE / "corpus"
DOWNLOADS = CACHE / "downloads"
MANIFEST = CORPUS / "MANIFEST.json"

# (project, pinned release, distribution kind)
PACKAGES = (("timm", "1.0.31", "sdist"), ("mmdet", "3.3.0", "wheel"))
# The single "typical 500-line model file" of the one-file timings.
ONE_FILE = "mmdet/models/dense_heads/atss_head.py"


def corpus_files() -> list[Path]:
    """Every ``.py`` file of the corpus, sorted."""
    return sorted(p for p in CORPUS.rglob("*.py")
                  if p.is_file() and not p.relative_to(CORPUS).parts[0].endswith(".partial"))


def count_lines(data: bytes) -> int:
    """Lines as ``wc -l`` counts them (newline characters), the measure of the research notes."""
    return data.count(b"\n")


def corpus_size(files: list[Path] | None = None) -> dict[str, int]:
    files = corpus_files() if files is None else files
    lines = size = 0
    for path in files:
        data = path.read_bytes()
        lines += count_lines(data)
        size += len(data)
    return {"files": len(files), "lines": lines, "bytes": size}


def one_file() -> Path:
    """The corpus copy of :data:`ONE_FILE`."""
    for path in CORPUS.rglob(Path(ONE_FILE).name):
        if path.as_posix().endswith(ONE_FILE):
            return path
    raise FileNotFoundError(ONE_FILE)


def read_manifest() -> dict:
    try:
        return json.loads(MANIFEST.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _version_key(version: str) -> tuple[int, ...] | None:
    """(1, 0, 31) for a final release; None for pre-, dev- and odd releases."""
    if not re.fullmatch(r"\d+(\.\d+)*", version):
        return None
    return tuple(int(part) for part in version.split("."))


def nearest(wanted: str, available: list[str]) -> str | None:
    """The final release closest to ``wanted``: same major first, then same minor, then the closest patch
    (ties go to the older release, whose code is more likely to match the notes)."""
    goal = _version_key(wanted)
    candidates = [(key, v) for v in available for key in [_version_key(v)] if key is not None]
    if goal is None or not candidates:
        return None

    def distance(item: tuple[tuple[int, ...], str]) -> tuple:
        key = item[0] + (0,) * max(0, len(goal) - len(item[0]))
        padded = goal + (0,) * max(0, len(key) - len(goal))
        return tuple(abs(a - b) for a, b in zip(key, padded)) + (key > padded,)

    return min(candidates, key=distance)[1]


def _pip_download(project: str, version: str, kind: str) -> subprocess.CompletedProcess:
    flags = ["--no-binary", ":all:"] if kind == "sdist" else ["--only-binary", ":all:"]
    return subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", *flags,
         f"{project}=={version}", "-d", str(DOWNLOADS)],
        capture_output=True, text=True)


def _archive(project: str, version: str, kind: str) -> Path | None:
    stem = f"{project}-{version}"
    for path in sorted(DOWNLOADS.glob("*")):
        name = path.name.lower().replace("_", "-")
        if not name.startswith(stem + "-" if kind == "wheel" else stem + "."):
            continue
        if (kind == "wheel") == name.endswith(".whl"):
            return path
    return None


def download(project: str, version: str, kind: str) -> tuple[str, Path]:
    """Fetch one distribution; falls back to the nearest release pip lists when the pin is missing."""
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    archive = _archive(project, version, kind)
    if archive is not None:
        return version, archive
    result = _pip_download(project, version, kind)
    if result.returncode != 0:
        listed = re.search(r"\(from versions: ([^)]*)\)", result.stderr)
        available = [v.strip() for v in listed.group(1).split(",")] if listed else []
        chosen = nearest(version, available)
        if chosen is None or chosen == version:
            sys.stderr.write(result.stdout + result.stderr)
            raise SystemExit(f"fetch_corpus: cannot download {project}=={version} ({kind})")
        print(f"{project}=={version} ({kind}) is not available; using the nearest release {chosen}")
        version = chosen
        archive = _archive(project, version, kind)
        if archive is None:
            result = _pip_download(project, version, kind)
            if result.returncode != 0:
                sys.stderr.write(result.stdout + result.stderr)
                raise SystemExit(f"fetch_corpus: cannot download {project}=={version} ({kind})")
    archive = _archive(project, version, kind)
    if archive is None:
        raise SystemExit(f"fetch_corpus: pip reported success but no {kind} of {project} {version} "
                         f"is in {DOWNLOADS}")
    return version, archive


def unpack(archive: Path, target: Path) -> None:
    partial = target.with_name(target.name + ".partial")
    if partial.exists():
        import shutil
        shutil.rmtree(partial)
    partial.mkdir(parents=True)
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as wheel:
            wheel.extractall(partial)
    else:
        with tarfile.open(archive) as sdist:
            if hasattr(tarfile, "data_filter"):
                sdist.extractall(partial, filter="data")
            else:  # Python < 3.11.4
                sdist.extractall(partial)
    partial.rename(target)   # only a complete unpack counts as "present"


def _present_version(project: str, target: Path) -> str | None:
    """The release an already unpacked folder holds (sdist folder or wheel dist-info name)."""
    for path in target.iterdir():
        match = re.fullmatch(rf"{project}-(.+?)(\.dist-info)?", path.name, re.IGNORECASE)
        if match:
            return match.group(1)
    return None


def ensure_corpus(verbose: bool = True) -> dict:
    """Download and unpack what is missing; return the manifest."""
    CORPUS.mkdir(parents=True, exist_ok=True)
    manifest = read_manifest()
    for project, pinned, kind in PACKAGES:
        target = CORPUS / project
        if target.is_dir() and any(target.rglob("*.py")):
            entry = manifest.get(project) or {}
            if not entry:
                present = _present_version(project, target) or "unknown"
                entry = {"requested": pinned, "version": present, "kind": kind}
            if verbose:
                print(f"{project} {entry['version']} ({kind}): present, skipped")
        else:
            version, archive = download(project, pinned, kind)
            unpack(archive, target)
            entry = {"requested": pinned, "version": version, "kind": kind, "archive": archive.name}
            if verbose:
                print(f"{project} {version} ({kind}): downloaded {archive.name} and unpacked")
        entry["substituted"] = entry["version"] != pinned
        manifest[project] = entry
    MANIFEST.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return manifest


def describe(manifest: dict) -> str:
    parts = []
    for project, _, kind in PACKAGES:
        entry = manifest.get(project, {})
        text = f"{project} {entry.get('version', '?')} ({kind})"
        if entry.get("substituted"):
            text += f" [pinned {entry['requested']} unavailable]"
        parts.append(text)
    return " + ".join(parts)


def main() -> int:
    manifest = ensure_corpus()
    for project, _, _ in PACKAGES:
        size = corpus_size(sorted(p for p in (CORPUS / project).rglob("*.py") if p.is_file()))
        print(f"  {project}: {size['files']:,} .py files, {size['lines']:,} lines")
    total = corpus_size()
    print(f"corpus {describe(manifest)}: {total['files']:,} .py files, {total['lines']:,} lines "
          f"({total['bytes'] / 1e6:.1f} MB) in {CORPUS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
