"""Build ``rule_tables/class_defaults.tsv``: the default a library class gives an attribute of its instances (a
dataclass field's default, a class attribute), one row per class and attribute in ``tools/curated/
class_defaults.csv`` with the library source that shows it. A project class deriving from one reads that value in
``self.<attribute>`` unless it sets the attribute itself (``class Collator(DataCollatorWithPadding)`` calling
``tokenizer.pad(..., padding=self.padding)``: ``True``, the longest of the batch)."""
from __future__ import annotations

import ast
from pathlib import Path

from curated_tables import read_curated, write_table

CURATED = Path(__file__).resolve().parent / "curated" / "class_defaults.csv"
HEADER = "class\tattribute\tdefault\tspellings\tsource"


def build(out_dir: Path) -> list[Path]:
    curated = read_curated(CURATED)
    rows = []
    for entry in curated:
        if not entry["class"].strip() or not entry["attribute"].strip() or not entry["evidence"].strip():
            raise SystemExit(f"class_defaults.csv: {entry['class']} needs an attribute and evidence")
        try:
            ast.literal_eval(entry["default"])
        except (ValueError, SyntaxError):
            raise SystemExit(f"class_defaults.csv: {entry['class']}.{entry['attribute']}: the default must be a "
                             f"Python literal ({entry['default']!r})") from None
        rows.append([entry["class"].strip(), entry["attribute"].strip(), entry["default"].strip(),
                     " ".join(sorted(entry["spellings"].split())), entry["evidence"].strip()])
    if len({(row[0], row[1]) for row in rows}) != len(rows):
        raise SystemExit("class_defaults.csv: a class's attribute is listed twice")
    return write_table(out_dir, "class_defaults.tsv", HEADER, rows)
