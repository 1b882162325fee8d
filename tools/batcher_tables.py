"""Build ``rule_tables/library_batchers.tsv`` (NPU407): library functions that cut what they are given into batches
of a fixed size, the last one shorter unless the size divides the length (``more_itertools.chunked(xs, n)``,
``delu.iter_batches(X, batch_size)``), one row per spelling in ``tools/curated/library_batchers.csv`` -- the
position and keyword of the batch size, the keywords that make every batch whole (``strict=True`` raises on a short
tail, ``drop_last=True`` drops it, ``fill=`` pads it) and the library source that shows it."""
from __future__ import annotations

from pathlib import Path

from curated_tables import read_curated, write_table

CURATED = Path(__file__).resolve().parent / "curated" / "library_batchers.csv"
HEADER = "api\tsize_position\tsize_keyword\twhole_keywords\tsource"


def build(out_dir: Path) -> list[Path]:
    rows = []
    for entry in read_curated(CURATED):
        position, keyword = entry["size_position"].strip(), entry["size_keyword"].strip()
        if not position.isdigit() or not keyword or not entry["evidence"].strip():
            raise SystemExit(f"library_batchers.csv: {entry['api']} needs a size position, keyword and evidence")
        rows.append([entry["api"], position, keyword, " ".join(entry["whole_keywords"].split()),
                     entry["evidence"].strip()])
    if len({row[0] for row in rows}) != len(rows):
        raise SystemExit("library_batchers.csv: an api is listed twice")
    return write_table(out_dir, "library_batchers.tsv", HEADER, rows)
