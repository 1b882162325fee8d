"""Build ``rule_tables/affinity.tsv`` (NPU3xx) from ``rules/affinity_table.csv``.

Which qualified names each row applies to is curated in ``tools/curated/affinity_names.csv`` (the
upstream cells are prose such as "torch.nn.functional.gelu / torch.nn.GELU"); the first torch-npu
release, the deprecation and its successor come from the upstream row.
"""
from __future__ import annotations

import csv
import re
from pathlib import Path

CURATED = Path(__file__).resolve().parent / "curated" / "affinity_names.csv"
SOURCE = "rules/affinity_table.csv"
_VERSION = re.compile(r"\d+\.\d+\.\d+(?:\.post\d+)?")


def build(data_dir: Path, out_dir: Path) -> list[Path]:
    with (data_dir / SOURCE).open(newline="", encoding="utf-8") as handle:
        upstream = {row["row_id"]: row for row in csv.DictReader(handle)}
    with CURATED.open(newline="", encoding="utf-8") as handle:
        names = list(csv.DictReader(handle))
    rows = []
    for item in names:
        row = upstream[item["row_id"]]
        since = _VERSION.search(row["first_seen_torch_npu"])
        deprecated = _VERSION.search(row["deprecated"])
        successor = re.search(r"use ([\w.]+)", row["deprecated"])
        rows.append([item["api"], item["affinity_api"], row["api_type"], item["condition"],
                     since.group(0) if since else "", deprecated.group(0) if deprecated else "",
                     successor.group(1) if successor else "", f"{SOURCE}:{item['row_id']}"])
    path = out_dir / "affinity.tsv"
    header = ["api", "affinity_api", "api_type", "condition", "since", "deprecated_since", "successor", "source"]
    path.write_text("\n".join(["\t".join(header)] + ["\t".join(r) for r in sorted(rows)]) + "\n", encoding="utf-8")
    return [path]
