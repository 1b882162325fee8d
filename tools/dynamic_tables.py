"""Build ``rule_tables/dynamic_shape.tsv``: the torch APIs whose output shape depends on the data (NPU401),
one row per spelling in ``tools/curated/dynamic_shape_apis.csv``, each joined to its row of the upstream
``rules/dynamic_shape_ops.csv`` for the construct, the static alternative and the sources. A spelling with its own
``construct`` is another library's op of the same kind (mmcv's NMS): its evidence cites that library's source,
and the upstream row gives the static alternative."""
from __future__ import annotations

import csv
from pathlib import Path

CURATED = Path(__file__).resolve().parent / "curated" / "dynamic_shape_apis.csv"
SOURCE = "rules/dynamic_shape_ops.csv"
# ``input_sized``: the vendor lists the op (CTC loss) for the data-dependent lengths of its inputs, but its output
# (a loss per batch or per sample) has a fixed shape: the varying lengths are reported where they are made (the
# batch-max padding of the targets, their concatenation), so the op is no site of its own and NPU401 leaves it.
# ``module_call`` (session 24): a library class (an nn.Module) whose forward sizes its output by the data; the
# calls of its instances are the sites (rules/library_instances.py), not the constructor.
CONDITIONS = ("always", "one_argument", "tensor_receiver", "tensor_repeats", "no_num_classes", "no_dim_size",
              "input_sized", "module_call", "no_minlength")


def build(data_dir: Path, out_dir: Path) -> list[Path]:
    with (data_dir / SOURCE).open(newline="", encoding="utf-8") as handle:
        upstream = {row["row_id"]: row for row in csv.DictReader(handle)}
    previous = ""
    for row in upstream.values():   # "as above" refers to the row before, in file order
        if row["static_alternative"].strip() == "as above":
            row["static_alternative"] = previous
        previous = row["static_alternative"]
    with CURATED.open(newline="", encoding="utf-8") as handle:
        spellings = list(csv.DictReader(handle))
    rows = []
    for spelling in spellings:
        fact = upstream.get(spelling["row_id"])
        if fact is None:
            raise SystemExit(f"dynamic_shape_apis.csv names {spelling['row_id']}, which {SOURCE} does not have")
        if spelling["condition"] not in CONDITIONS:
            raise SystemExit(f"dynamic_shape_apis.csv: unknown condition {spelling['condition']!r}")
        alternative = fact["static_alternative"].strip()
        if alternative.startswith("(") or "not documented" in alternative:   # "(none)", "(none documented)"
            alternative = ""
        construct, source = fact["construct"], f"{SOURCE}:{spelling['row_id']}"
        if spelling.get("construct"):   # another library's op of the same kind: its own name and evidence
            construct, source = spelling["construct"], f"{spelling['evidence']} (alternative: {source})"
        rows.append([spelling["api"], spelling["row_id"], construct, spelling["condition"],
                     fact["torch_tag"], alternative, source])
    path = out_dir / "dynamic_shape.tsv"
    header = "api\trow_id\tconstruct\tcondition\ttorch_tag\talternative\tsource"
    lines = [header] + ["\t".join(cell.replace("\t", " ").replace("\n", " ") for cell in row) for row in sorted(rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [path]
