"""Build ``rule_tables/advice.tsv``: the APIs and arguments the vendor analyser gives precision or performance
advice for (``vendor_lists/vendor_advice_targets.csv``), each with a tip in npu-lint's own words
(``tools/curated/advice_tips.csv``)."""
from __future__ import annotations

import csv
from pathlib import Path

CURATED = Path(__file__).resolve().parent / "curated" / "advice_tips.csv"
SOURCE = "vendor_lists/vendor_advice_targets.csv"


def build(data_dir: Path, out_dir: Path) -> list[Path]:
    with (data_dir / SOURCE).open(newline="", encoding="utf-8") as handle:
        targets = {row["name"]: row["advice_group"] for row in csv.DictReader(handle)}
    with CURATED.open(newline="", encoding="utf-8") as handle:
        tips = list(csv.DictReader(handle))
    rows = []
    for tip in tips:
        if tip["name"] not in targets:
            raise SystemExit(f"advice_tips.csv names {tip['name']!r}, which the vendor advice list does not have")
        rows.append([tip["name"], tip["code"], tip["tip"], f"{SOURCE}:{targets[tip['name']]}"])
    path = out_dir / "advice.tsv"
    lines = ["api\tcode\ttip\tsource"] + ["\t".join(row) for row in sorted(rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [path]
