"""Third-party results of installed packages, cached per (package, version, torch-npu release) in a user cache
folder, so ``third-party = ["timm"]`` in ``[tool.npu-lint]`` needs no ``api-files``.

The folder is ``$NPU_LINT_CACHE_DIR``, else ``$XDG_CACHE_HOME/npu-lint``, else ``~/.cache/npu-lint``; each entry
``third_party/<package>-<version>-<release>/`` holds the files of ``analyse -m third_party`` (the
``full_unsupported_results.csv`` that ``-api`` reads, and its chains). A package is found and read without
importing it; an entry is built the first time it is needed and never rewritten in place.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Optional

from npu_lint.report.third_party_mode import FULL


def cache_root() -> Path:
    explicit = os.environ.get("NPU_LINT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "npu-lint"


def package_version(package: str) -> str:
    """The installed distribution's version (read from its metadata), or ``unknown``."""
    from importlib import metadata
    top = package.split(".", 1)[0]
    try:
        return metadata.version(top)
    except metadata.PackageNotFoundError:
        pass
    try:
        for distribution in metadata.packages_distributions().get(top, []):
            return metadata.version(distribution)
    except (AttributeError, metadata.PackageNotFoundError):
        pass
    return "unknown"


def entry(package: str, release: str) -> Path:
    return cache_root() / "third_party" / f"{package}-{package_version(package)}-{release}"


def store(package: str, release: str, folder: Path) -> None:
    """Copy the files of a finished ``analyse -m third_party --package`` run into the cache (best effort)."""
    target = entry(package, release)
    if (target / FULL).is_file():
        return
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        for item in folder.glob("*.csv"):
            shutil.copy2(item, staging / item.name)
        os.replace(staging, target)
    except OSError:
        shutil.rmtree(locals().get("staging", target.parent / ".none"), ignore_errors=True)


def results_for(package: str, release: str, build: bool = True) -> Optional[Path]:
    """The cached ``full_unsupported_results.csv`` of ``package`` for ``release``, built when missing
    (``build``). Raises :class:`~npu_lint.project.NoPackage` when the package is not installed."""
    target = entry(package, release)
    if (target / FULL).is_file():
        return target / FULL
    if not build:
        return None
    from npu_lint.project import NoPackage, ProjectIndex, find_package
    from npu_lint.report.third_party_mode import analyse_library, write_files
    folder = find_package(package)
    if not folder.is_dir():
        raise NoPackage(f"package {package} is a single module ({folder})")
    index = ProjectIndex.build([folder])
    result = analyse_library(index, release)
    staging = Path(tempfile.mkdtemp(prefix=".third-party."))
    try:
        write_files(staging, result, release)
        store(package, release, staging)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target / FULL if (target / FULL).is_file() else None
