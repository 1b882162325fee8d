"""Third-party APIs marked unsupported through ``-api`` CSV files (the vendor's third_party report format).

Each file must have a ``3rd-party API`` column; every whitespace-separated name in it counts, and a name ending
in ``.forward`` also counts without that suffix (as the vendor tool does).
"""
from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path
from typing import Iterable

COLUMN = "3rd-party API"
MAX_FILES = 100
MAX_BYTES = 10 * 1024 * 1024


class ApiFileError(ValueError):
    """An unusable ``-api`` / ``api-files`` file; the message is one line."""


@lru_cache(maxsize=64)
def _names_in(path: Path) -> frozenset[str]:
    if not path.is_file() or path.suffix.lower() != ".csv":
        raise ApiFileError(f"{path} is not an existing .csv file")
    if path.stat().st_size > MAX_BYTES:
        raise ApiFileError(f"{path} is larger than 10 MB")
    with path.open(newline="", encoding="utf-8", errors="replace") as handle:
        reader = csv.DictReader(handle)
        if COLUMN not in (reader.fieldnames or []):
            raise ApiFileError(f"{path} has no '{COLUMN}' column")
        names = {name for row in reader for name in (row[COLUMN] or "").split()}
    return frozenset(names | {name[: -len(".forward")] for name in names if name.endswith(".forward")})


def load(paths: Iterable[Path]) -> frozenset[str]:
    """Every third-party API named in ``paths``."""
    paths = list(paths)
    if len(paths) > MAX_FILES:
        raise ApiFileError(f"at most {MAX_FILES} API files")
    found: set[str] = set()
    for path in paths:
        found |= _names_in(Path(path).resolve())
    return frozenset(found)
