"""Build ``rule_tables/size_arguments.tsv`` (NPU403): library calls whose arguments size their result, one row per
spelling in ``tools/curated/size_arguments.csv`` -- the size keywords, their positions (a method's receiver not
counted) and the library source that shows the signature. A value read from a tensor passed there fixes a shape
with it (``scatter(src, index, dim_size=int(index.max()) + 1)``)."""
from __future__ import annotations

from pathlib import Path

from curated_tables import read_curated, write_table

CURATED = Path(__file__).resolve().parent / "curated" / "size_arguments.csv"
HEADER = "api\tkeywords\tpositions\tsource"


def build(out_dir: Path) -> list[Path]:
    curated = read_curated(CURATED)
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
    return write_table(out_dir, "size_arguments.tsv", HEADER, rows)
