"""Build ``rule_tables/library_joiners.tsv`` (NPU409): library functions that join a list of samples of their own
sizes into one batch by concatenating their tensors (PyG's ``Batch.from_data_list(graphs)``, ``dgl.batch(graphs)``:
one big disconnected graph whose node and edge counts are the sums of its graphs'), one row per spelling in
``tools/curated/library_joiners.csv`` -- the position and keyword of the list of samples and the library source
that shows the concatenation."""
from __future__ import annotations

from pathlib import Path

from curated_tables import read_curated, write_table

CURATED = Path(__file__).resolve().parent / "curated" / "library_joiners.csv"
HEADER = "api\titems_position\titems_keyword\tsource"


def build(out_dir: Path) -> list[Path]:
    rows = []
    for entry in read_curated(CURATED):
        position, keyword = entry["items_position"].strip(), entry["items_keyword"].strip()
        if not position.isdigit() or not keyword or not entry["evidence"].strip():
            raise SystemExit(f"library_joiners.csv: {entry['api']} needs an items position, keyword and evidence")
        rows.append([entry["api"], position, keyword, entry["evidence"].strip()])
    if len({row[0] for row in rows}) != len(rows):
        raise SystemExit("library_joiners.csv: an api is listed twice")
    return write_table(out_dir, "library_joiners.tsv", HEADER, rows)
