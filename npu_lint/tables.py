"""Read the generated tables in ``rule_tables/`` (shipped inside the wheel), once per process."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

_HERE = Path(__file__).resolve().parent
# Installed: npu_lint/rule_tables; in a source checkout: <repo>/rule_tables.
TABLES_DIR = _HERE / "rule_tables" if (_HERE / "rule_tables").is_dir() else _HERE.parent / "rule_tables"


def read_lines(name: str) -> list[str]:
    """The non-empty lines of a plain-text table."""
    text = (TABLES_DIR / name).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip()]


@lru_cache(maxsize=None)
def read_tsv(name: str) -> tuple[dict[str, str], ...]:
    """Rows of a tab-separated table as dicts keyed by its header."""
    lines = (TABLES_DIR / name).read_text(encoding="utf-8").split("\n")
    header = lines[0].split("\t")
    return tuple(dict(zip(header, line.split("\t"))) for line in lines[1:] if line)


@lru_cache(maxsize=None)
def keyed(name: str, column: str) -> dict[str, dict[str, str]]:
    """A table indexed by one of its columns."""
    return {row[column]: row for row in read_tsv(name)}
