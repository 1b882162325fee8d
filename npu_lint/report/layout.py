"""Which finding goes to which file of the vendor's layout, and the rows each file gets."""
from __future__ import annotations

from npu_lint.finding import Finding
from npu_lint.report.collect import Collected, project_uses

POSITION_HEADER = ["File", "Start Line", "End Line", "OP", "Tips"]
# The vendor's torch_apis files, in the order of its closing statistics table.
TORCH_API_FILES = ("api_performance_advice.csv", "cuda_op_list.csv", "unsupported_api.csv", "unknown_api.csv",
                   "api_precision_advice.csv")
FILE_OF_CODE = {
    "NPU101": "unsupported_api.csv", "NPU103": "unsupported_api.csv", "NPU202": "unsupported_api.csv",
    "NPU220": "unsupported_api.csv", "NPU223": "unsupported_api.csv",
    "NPU102": "unknown_api.csv",
    "NPU105": "api_precision_advice.csv", "NPU106": "api_precision_advice.csv",
    "NPU104": "api_performance_advice.csv", "NPU107": "api_performance_advice.csv",
}
CUDA_USAGE = "cuda_usage.csv"   # every other NPU2xx finding (beyond the vendor's layout)
DYNAMIC_SHAPE_RISK = "dynamic_shape_risk.csv"   # NPU4xx findings (beyond the vendor's layout)
# Settings the vendor always recommends (rows with no position).
CONFIGURATION_ADVICE = (
    ("torch_npu.npu.set_compile_mode", "call torch_npu.npu.set_compile_mode(jit_compile=False) to use prebuilt "
                                       "operator binaries instead of compiling for each new shape"),
    ("TASK_QUEUE_ENABLE", "export TASK_QUEUE_ENABLE=1 (or 2) so operators are dispatched through the task queue"),
    ("HCCL_OP_BASE_FFTS_MODE_ENABLE", "export HCCL_OP_BASE_FFTS_MODE_ENABLE=TRUE for faster HCCL collectives in "
                                      "multi-device training"),
)


OWN_POSITION_HEADER = ["File", "Start Line", "Col", "End Line", "OP", "Tips"]   # our own files: a column too


def _row(path: str, finding: Finding, own: bool = False) -> list[object]:
    column = [finding.col + 1] if own else []
    return [path, finding.line, *column, finding.end_line, finding.api or finding.code,
            f"{finding.code} {finding.message}"]


def rows_by_file(collected: Collected) -> dict[str, list[list[object]]]:
    files: dict[str, list[list[object]]] = {name: [] for name in TORCH_API_FILES + (CUDA_USAGE, DYNAMIC_SHAPE_RISK)}
    # A mask assignment NPU402 reports too (a device tensor, a mask by kind) is one risk: its row, not NPU303's.
    selections = {(path, finding.line) for path, finding in collected.findings if finding.code == "NPU402"}
    for path, finding in collected.findings:
        name = FILE_OF_CODE.get(finding.code)
        if name is None and finding.code.startswith("NPU2"):
            name = CUDA_USAGE
        elif name is None and (finding.code.startswith("NPU4") or (
                finding.code == "NPU303" and (path, finding.line) not in selections)):   # mask assignment: nonzero
            name = DYNAMIC_SHAPE_RISK
        if name is not None:
            files[name].append(_row(path, finding, own=name in (CUDA_USAGE, DYNAMIC_SHAPE_RISK)))
    files["cuda_op_list.csv"] = [[path, op] for path, op in collected.cuda_ops]
    performance = files["api_performance_advice.csv"]
    if project_uses(collected, "torch.nn.parallel.DistributedDataParallel") and not any(
            row[3].endswith("no_sync") for row in collected.inventory):
        performance.append(["NA", "NA", "NA", "no_sync", "with DistributedDataParallel and gradient accumulation, "
                            "wrap the accumulation steps in model.no_sync() to skip redundant HCCL all-reduces"])
    performance.extend(["NA", "NA", "NA", op, tip] for op, tip in CONFIGURATION_ADVICE)
    return files


def header_of(name: str) -> list[str]:
    if name == "affinity_api_call.csv":
        return ["File", "Start Line", "End Line", "Api Type", "Api Call Name", "Affinity Api Name"]
    if name == "cuda_op_list.csv":
        return ["File", "Api"]
    if name == "api_inventory.csv":
        return ["File", "Start Line", "End Line", "API", "Status"]
    if name in (CUDA_USAGE, DYNAMIC_SHAPE_RISK):
        return OWN_POSITION_HEADER
    return POSITION_HEADER


AFFINITY_FILE = "affinity_api_call.csv"
AFFINITY_HEADER = ["File", "Start Line", "End Line", "Api Type", "Api Call Name", "Affinity Api Name"]


def affinity_rows(collected: Collected) -> dict[str, list[list[object]]]:
    """``-m affinity_apis``: one row per NPU3xx finding, in the vendor's affinity_api_call.csv columns."""
    from npu_lint.tables import keyed
    table = keyed("affinity.tsv", "api")
    rows = []
    for path, finding in collected.findings:
        row = table.get(finding.api) if finding.code.startswith("NPU3") else None
        if row is not None:
            rows.append([path, finding.line, finding.end_line, row["api_type"], finding.api, row["affinity_api"]])
    return {AFFINITY_FILE: rows}
