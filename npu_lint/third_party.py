"""Third-party APIs marked unsupported through ``-api`` / ``api-files`` CSV files (the vendor's third_party format).

Each file must have a ``3rd-party API`` column; every whitespace-separated name in it counts, and a name ending
in ``.forward`` or ``.__init__`` also counts without that suffix (calling or building the object reaches it).
The reason NPU103 gives is the chain to the leaf: from ``third_party_chains.csv`` next to the file when
``npu-lint analyse -m third_party`` wrote it, else from the ``Message`` column (``api_name:...``) of the
vendor's file. Names the vendor wrote relative to the library's folder (``layers.norm.f`` next to
``timm.layers.f``) also count under the package prefix the file's other names carry.
"""
from __future__ import annotations

import csv
import re
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Mapping

COLUMN = "3rd-party API"
CHAINS = "third_party_chains.csv"
MAX_FILES = 100
MAX_BYTES = 10 * 1024 * 1024
_SUFFIXES = (".forward", ".__init__")
_API_NAME = re.compile(r"api_name:\s*([\w.]+)")


class ApiFileError(ValueError):
    """An unusable ``-api`` / ``api-files`` file; the message is one line."""


class ApiSet(frozenset):
    """The third-party API names (a frozenset, as the rules test membership) with the reason for each."""

    reasons: Mapping[str, str]

    def __new__(cls, reasons: Mapping[str, str]) -> "ApiSet":
        made = super().__new__(cls, reasons)
        made.reasons = dict(reasons)
        return made

    def __reduce__(self):   # picklable for the report's worker processes
        return (ApiSet, (self.reasons,))

    def reason(self, name: str) -> str:
        return self.reasons.get(name, "")


def _with_short_names(found: dict[str, str]) -> dict[str, str]:
    for name in list(found):
        for suffix in _SUFFIXES:
            if name.endswith(suffix):
                found.setdefault(name[: -len(suffix)], found[name])
    return found


@lru_cache(maxsize=64)
def _names_in(path: Path) -> dict[str, str]:
    if not path.is_file() or path.suffix.lower() != ".csv":
        raise ApiFileError(f"{path} is not an existing .csv file")
    if path.stat().st_size > MAX_BYTES:
        raise ApiFileError(f"{path} is larger than 10 MB")
    chains = _chains_next_to(path)
    found: dict[str, str] = {}
    with path.open(newline="", encoding="utf-8", errors="replace") as handle:
        reader = csv.DictReader(handle)
        if COLUMN not in (reader.fieldnames or []):
            raise ApiFileError(f"{path} has no '{COLUMN}' column")
        for row in reader:
            names = (row[COLUMN] or "").split()
            leaves = list(dict.fromkeys(_API_NAME.findall(row.get("Message") or "")))
            chain = next((chains[name] for name in names if name in chains), "")
            for name in names:
                found.setdefault(name, chain or (f"{name} → {leaves[0]}" if len(leaves) == 1 else
                                                 f"{name} reaches {', '.join(leaves)}" if leaves else ""))
    _add_package_prefix(found)
    return _with_short_names(found)


def _chains_next_to(path: Path) -> dict[str, str]:
    """``third_party_chains.csv`` written beside the file by ``analyse -m third_party``: the first chain of each API."""
    chains: dict[str, str] = {}
    candidate = path.parent / CHAINS
    if candidate.is_file() and candidate.stat().st_size <= MAX_BYTES:
        with candidate.open(newline="", encoding="utf-8", errors="replace") as handle:
            for row in csv.DictReader(handle):
                if row.get(COLUMN) and row.get("Chain"):
                    chains.setdefault(row[COLUMN], row["Chain"])
    return chains


def _add_package_prefix(found: dict[str, str]) -> None:
    """The vendor writes definitions relative to the analysed folder (``layers.norm.f``) and re-exports with
    the package (``timm.layers.f``): count the former under the package too."""
    tops = {name.split(".", 1)[0] for name in found}
    packages = {name.split(".", 1)[0] for name in found if name.count(".") >= 2 and name.split(".")[1] in tops}
    for name in list(found):
        top = name.split(".", 1)[0]
        if top not in packages:
            for package in packages:
                found.setdefault(f"{package}.{name}", found[name])


def load(paths: Iterable[Path]) -> ApiSet:
    """Every third-party API named in ``paths``, with its reason."""
    paths = list(paths)
    if len(paths) > MAX_FILES:
        raise ApiFileError(f"at most {MAX_FILES} API files")
    found: dict[str, str] = {}
    for path in paths:
        for name, reason in _names_in(Path(path).resolve()).items():
            found.setdefault(name, reason)
    return ApiSet(found)
