"""Which Python modules a set of folders holds, and under which dotted names, without importing anything.

A folder with ``__init__.py`` is a package: its name is found by walking up through the parent folders that are
packages too. A folder without one is an import root (a ``src`` folder inside it is one as well): its ``.py``
files are top-level modules and its sub-folders packages, or namespace packages when they have no
``__init__.py``, unless its own files import it by its name (``from pytorch_tabnet import utils`` inside
``pytorch_tabnet/``, a wheel shipped without ``__init__.py``): then it is a namespace package of that name. ``--package NAME`` is located with :class:`importlib.machinery.PathFinder`, which reads the
file system only.
"""
from __future__ import annotations

import importlib.machinery
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Optional

from npu_lint.report.cuda_ops import SUFFIXES

SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", ".tox", ".nox", ".venv", "venv", "node_modules",
                          ".eggs", "build", "dist", ".mypy_cache", ".pytest_cache", ".ruff_cache"})


class NoPackage(ValueError):
    """The input holds no Python package or module; the message is one line."""


@dataclass(frozen=True)
class ModuleFile:
    """One Python source file and the dotted module name it is imported under."""

    name: str            # ``timm.layers.norm``; a package's ``__init__.py`` is named after the package
    path: Path
    relative: str        # the path relative to the root it was found under (report ``File`` column)
    is_package: bool     # an ``__init__.py``


@dataclass(frozen=True)
class NativeFile:
    """A C++/CUDA source that can export operators (``PYBIND11_MODULE``, ``TORCH_LIBRARY``)."""

    path: Path
    relative: str


def package_prefix(folder: Path) -> str:
    """``timm.layers`` for ``.../timm/layers`` when both folders have an ``__init__.py``; '' for an import root."""
    parts: list[str] = []
    folder = folder.resolve()
    while (folder / "__init__.py").is_file() and folder.name.isidentifier():
        parts.append(folder.name)
        folder = folder.parent
    return ".".join(reversed(parts))


def discover(root: Path, warnings: Optional[list[str]] = None) -> tuple[list[ModuleFile], list[NativeFile]]:
    """The modules and native sources under ``root`` (a package folder, an import root or one ``.py`` file)."""
    root = root.resolve()
    warnings = warnings if warnings is not None else []
    if root.is_file():
        prefix = package_prefix(root.parent)
        stem = root.stem
        name = prefix if stem == "__init__" else (f"{prefix}.{stem}" if prefix else stem)
        return [ModuleFile(name, root, root.name, stem == "__init__")], []
    prefix = package_prefix(root) or _namespace_name(root)
    modules: list[ModuleFile] = []
    native: list[NativeFile] = []
    projects = _unpacked_projects(root) if not prefix else frozenset()
    for path, relative in _files(root, warnings):
        if path.suffix in SUFFIXES:
            native.append(NativeFile(path, relative))
            continue
        if is_build_script(path.name):
            native.append(NativeFile(path, relative))   # the extension modules it declares (project.extensions)
        parts = relative[:-3].split("/")
        if not prefix and len(parts) > 2 and not parts[0].isidentifier() and parts[0] in projects:
            parts = parts[1:]   # ``textbrewer-0.2.1.post1/src/textbrewer/x.py``: an unpacked project of its own
        if not prefix and parts[0] == "src" and len(parts) > 1:
            parts = parts[1:]   # a ``src`` layout: the folder is an import root of its own
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        if not all(part.isidentifier() for part in parts):
            continue   # ``setup-helpers/x.py``: not importable under any name
        dotted = ".".join(([prefix] if prefix else []) + parts)
        if dotted:
            modules.append(ModuleFile(dotted, path, relative, is_package))
    return modules, native


_PROJECT_FILES = ("setup.py", "pyproject.toml", "setup.cfg")


def is_build_script(name: str) -> bool:
    """``setup.py`` and its variants (``setup_cuda.py``, hqq's build of ``hqq_aten``): where extensions are declared."""
    return name.endswith(".py") and (name == "setup.py" or name.startswith(("setup_", "setup-")))


def _unpacked_projects(root: Path) -> frozenset[str]:
    """The folders of ``root`` named unlike a module (``textbrewer-0.2.1.post1``) that hold a project of their own
    (``setup.py``, ``pyproject.toml`` or ``setup.cfg``): a folder of unpacked source distributions, each folder an
    import root (its ``src`` layout too), not a part of the module names."""
    try:
        children = [child for child in root.iterdir() if child.is_dir() and not child.name.isidentifier()]
    except OSError:
        return frozenset()
    return frozenset(child.name for child in children
                     if any((child / name).is_file() for name in _PROJECT_FILES))


def _namespace_name(root: Path) -> str:
    """``root``'s own name when ``root`` (no ``__init__.py``) is a namespace package its files import by name."""
    name = root.name
    if not name.isidentifier() or name == "src" or (root / "__init__.py").is_file() \
            or (root / name).is_dir() or (root / "src" / name).is_dir():
        return ""   # a checkout named like the package it holds (``ultralytics/ultralytics/``): an import root
    # ``from name.sub import x``, ``from name import sub``, ``import name.sub``: ``sub`` must be a module of ``root``
    own_import = re.compile(rb"^[ \t]*(?:from[ \t]+%s[ \t]*\.[ \t]*(\w+)|from[ \t]+%s[ \t]+import[ \t(]+(\w+)"
                            rb"|import[ \t]+%s[ \t]*\.[ \t]*(\w+))" % ((name.encode(),) * 3), re.MULTILINE)
    for path, _ in _files(root, []):
        if path.suffix == ".py":
            try:
                text = path.read_bytes()
            except OSError:
                continue
            for match in own_import.finditer(text):
                sub = next(g for g in match.groups() if g).decode()
                if (root / f"{sub}.py").is_file() or (root / sub).is_dir():
                    return name
    return ""


def _files(root: Path, warnings: list[str]) -> Iterator[tuple[Path, str]]:
    for folder, dirs, files in os.walk(root):
        base = Path(folder)
        kept = []
        for name in sorted(dirs):
            if (name in SKIPPED_DIRS and not (name in ("build", "dist") and (base / name / "__init__.py").is_file())) \
                    or name.endswith(".egg-info"):
                continue   # a package named ``dist`` / ``build`` (``mmengine.dist``) is source, not build output
            if (base / name).is_symlink():
                warnings.append(f"{(base / name).relative_to(root).as_posix()} is a symbolic link, skip.")
                continue
            kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            if not name.endswith((".py",) + SUFFIXES):
                continue
            path = base / name
            if path.is_symlink():
                warnings.append(f"{path.relative_to(root).as_posix()} is a symbolic link, skip.")
                continue
            try:
                regular = stat.S_ISREG(os.lstat(path).st_mode)
            except OSError:
                regular = False
            if not regular:   # a FIFO or a device named like a source file: never opened
                warnings.append(f"{path.relative_to(root).as_posix()} is not a regular file, skip.")
                continue
            yield path, path.relative_to(root).as_posix()


def find_package(name: str, search_path: Optional[Iterable[str]] = None) -> Path:
    """The folder (or single file) of an installed package, found without importing it.

    Each dotted part is looked up with :class:`importlib.machinery.PathFinder` in the previous part's folders,
    so no package ``__init__`` runs. Raises :class:`NoPackage` when it is not installed.
    """
    if not name or not all(part.isidentifier() for part in name.split(".")):
        raise NoPackage(f"--package {name!r} is not a Python package name")
    locations = list(search_path) if search_path is not None else None
    spec = None
    for part in name.split("."):
        spec = importlib.machinery.PathFinder.find_spec(part, locations)
        if spec is None:
            raise NoPackage(f"package {name} is not installed in this environment ({_interpreter()})")
        locations = list(spec.submodule_search_locations or [])
    assert spec is not None
    if spec.submodule_search_locations:
        folders = [Path(location) for location in spec.submodule_search_locations]
        return folders[0]
    if spec.origin and spec.origin.endswith(".py"):
        return Path(spec.origin)
    raise NoPackage(f"package {name} has no Python source ({spec.origin})")


def _interpreter() -> str:
    import sys
    return sys.executable
