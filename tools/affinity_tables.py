"""Build ``rule_tables/affinity.tsv`` (NPU3xx) from ``rules/affinity_table.csv``.

Which qualified names (or code shapes) each row applies to, and the note the message adds (dtype and shape
conditions, what the user must change beyond the call), are curated in ``tools/curated/affinity_names.csv``
(the upstream cells are prose such as "torch.nn.functional.gelu / torch.nn.GELU"); the first torch-npu
release, the deprecation, its successor and the evidence come from the upstream row. A ``torch_npu.<op>``
target is checked against the wheels' own operator lists (``wheels/npu_custom_ops_<release>.txt``): the
releases from its first one on that lack it are written to ``missing_in`` (the rules do not suggest it
there), and a target that no wheel has stops the build.
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
                     successor.group(1) if successor else "", item["note"], "", f"{SOURCE}:{item['row_id']}",
                     row["evidence"]])
    _check_in_wheels(data_dir, rows)
    path = out_dir / "affinity.tsv"
    header = ["api", "affinity_api", "api_type", "condition", "since", "deprecated_since", "successor", "note",
              "missing_in", "source", "evidence"]
    path.write_text("\n".join(["\t".join(header)] + ["\t".join(r) for r in sorted(rows)]) + "\n", encoding="utf-8")
    return [path]


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def _check_in_wheels(data_dir: Path, rows: list[list[str]]) -> None:
    """Fill ``missing_in`` for every ``torch_npu.<op>`` target: the releases from its first one on whose wheel
    does not register the operator. A target that no wheel from its first release on has stops the build."""
    lists = sorted(data_dir.glob("wheels/npu_custom_ops_*.txt"))
    operators = {path.stem.rsplit("_", 1)[1]: set(path.read_text(encoding="utf-8").split()) for path in lists}
    for row in rows:
        api, target, since = row[0], row[1], row[4]
        head, _, name = target.rpartition(".")
        if head != "torch_npu" or not since:
            continue   # contrib and optim targets are Python classes and functions, not operators
        releases = [release for release in operators if _key(release) >= _key(since)]
        missing = sorted((release for release in releases if name not in operators[release]), key=_key)
        if len(missing) == len(releases):
            raise SystemExit(f"affinity_tables: {target} (for {api}) is not an operator of any torch-npu wheel "
                             f"from {since} on")
        row[8] = " ".join(missing)
