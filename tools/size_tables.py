"""Build ``rule_tables/size_arguments.tsv`` (NPU403): library calls whose arguments size their result, one row per
spelling in ``tools/curated/size_arguments.csv`` -- the size keywords, their positions (a method's receiver not
counted) and the library source that shows the signature. A value read from a tensor passed there fixes a shape
with it (``scatter(src, index, dim_size=int(index.max()) + 1)``)."""
from __future__ import annotations

import csv
from pathlib import Path

CURATED = Path(__file__).resolve().parent / "curated" / "size_arguments.csv"
HEADER = "api\tkeywords\tpositions\tsource"


def build(out_dir: Path) -> list[Path]:
    with CURATED.open(newline="", encoding="utf-8") as handle:
        curated = list(csv.DictReader(handle))
    rows = []
    for entry in curated:
        keywords, positions = entry["keywords"].split(), entry["positions"].split()
        if not keywords or not entry["evidence"].strip():
            raise SystemExit(f"size_arguments.csv: {entry['api']} needs keywords and evidence")
        if positions and (len(positions) != len(keywords) or not all(p.isdigit() for p in positions)):
            raise SystemExit(f"size_arguments.csv: {entry['api']}: one position (a number) per keyword")
        rows.append([entry["api"], " ".join(keywords), " ".join(positions), entry["evidence"].strip()])
    if len({row[0] for row in rows}) != len(rows):
        raise SystemExit("size_arguments.csv: an api is listed twice")
    path = out_dir / "size_arguments.tsv"
    lines = [HEADER] + ["\t".join(cell.replace("\t", " ").replace("\n", " ") for cell in row) for row in sorted(rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [path]
