"""Build ``rule_tables/natural_size_sources.tsv`` (NPU419): readers that decode a whole file, so the array or tensor
they return has the file's own length or size, one row per spelling in ``tools/curated/natural_size_sources.csv``
-- which element of a returned tuple holds the data (``wav, sr = torchaudio.load(f)``: 0), the keywords that read
a fixed window instead (``num_frames=``, ``duration=``) and the library documentation that says so."""
from __future__ import annotations

from pathlib import Path

from curated_tables import read_curated, write_table

CURATED = Path(__file__).resolve().parent / "curated" / "natural_size_sources.csv"
HEADER = "api\telement\twindow\tsource"


def build(out_dir: Path) -> list[Path]:
    rows = []
    for entry in read_curated(CURATED):
        if not entry["api"].strip() or "." not in entry["api"] or not entry["evidence"].strip():
            raise SystemExit(f"natural_size_sources.csv: {entry['api']!r} needs a qualified name and evidence")
        if entry["element"] not in ("", "0", "1"):
            raise SystemExit(f"natural_size_sources.csv: {entry['api']}: element is empty (the value) or 0 / 1")
        window = " ".join(entry["window"].split())
        rows.append([entry["api"].strip(), entry["element"], window, entry["evidence"].strip()])
    if len({row[0] for row in rows}) != len(rows):
        raise SystemExit("natural_size_sources.csv: an api is listed twice")
    return write_table(out_dir, "natural_size_sources.tsv", HEADER, rows)
