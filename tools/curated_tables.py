"""What the generators of curated tables share: reading a ``tools/curated/*.csv`` and writing its checked rows as a
sorted ``rule_tables/*.tsv`` (one line per row, tabs and newlines inside a cell made spaces)."""
from __future__ import annotations

import csv
from pathlib import Path


def read_curated(path: Path) -> list[dict[str, str]]:
    """The rows of a curated CSV file, as dicts keyed by its header."""
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def write_table(out_dir: Path, name: str, header: str, rows: list[list[str]]) -> list[Path]:
    """Write ``rows`` under ``header`` to ``out_dir/name``, sorted; the written path, in a list."""
    path = out_dir / name
    lines = [header] + ["\t".join(cell.replace("\t", " ").replace("\n", " ") for cell in row) for row in sorted(rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [path]
