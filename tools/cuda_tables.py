"""Build the CUDA (NPU2xx) tables of ``rule_tables/`` from upstream facts.

Inputs: ``<data>/rules/cuda_table.csv`` (facts read from the torch-npu wheels and the
vendor docs, see shared/research/rules_kb.md section a) and the two curated lists in
``tools/curated/`` (environment variables and CUDA-only libraries, each row with its
evidence).  Outputs are tab-separated, sorted, and byte-identical on every run.
"""
from __future__ import annotations

import csv
import re
from pathlib import Path

CURATED = Path(__file__).resolve().parent / "curated"

# cuda_table.csv categories whose construct column names importable APIs.
_API_CATEGORIES = {
    "torch.cuda API": "cuda",
    "torch.cuda submodule": "cuda",
    "torch.cuda API (not in __all__)": "cuda",
    "AMP": "amp",
    "cudnn/backends": "backends",
    "distributed": "distributed",
    "custom CUDA extension": "cpp_extension",
    "profiler": "profiler",
}
_DOTTED = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_*][\w*]*)+")
_BARE = re.compile(r"^\*?[A-Za-z_][\w*]*")


def expand_names(construct: str) -> list[str]:
    """Qualified API names in a construct cell such as ``torch.cuda.nvtx.range_push / range_pop``."""
    names: list[str] = []
    for part in construct.split(";"):
        module = ""
        for item in part.split(" / "):
            item = item.strip()
            dotted = _DOTTED.match(item)
            if dotted:
                name = dotted.group(0)
                module = name.rsplit(".", 1)[0]
            else:
                bare = _BARE.match(item)
                if not bare or not module:
                    continue
                name = f"{module}.{bare.group(0)}"
            if not name.startswith("torch.") or "*" in name.rstrip(".*"):
                continue
            name = name[:-2] if name.endswith(".*") else name
            if name not in names:
                names.append(name)
    return names


def _group(category: str, name: str) -> str:
    if name.startswith("torch.cuda.amp"):
        return "amp"
    if name.startswith(("torch.cuda.nvtx", "torch.cuda.profiler")) or "nvtx" in name or "nvprof" in name:
        return "nvtx"
    if name == "torch.cuda.default_generators":
        return "default_generators"
    if name.startswith("torch.backends.cudnn"):
        return "backends_cudnn"
    if name.startswith("torch.backends.cuda"):
        return "backends_cuda"
    if name.startswith(("torch.nn.DataParallel", "torch.nn.parallel.data_parallel")):
        return "data_parallel"
    if "nccl" in name.lower():
        return "nccl"
    return _API_CATEGORIES[category]


def _trigger(group: str, name: str) -> str:
    """``name``: using the API is CUDA usage; ``argument``: only with a CUDA argument. The device-generic AMP
    functions take a device type; ``torch.get_autocast_gpu_dtype`` / ``set_autocast_gpu_dtype`` name the GPU
    (CUDA) in their own name and take none (torch 2.4 deprecated them for ``get_autocast_dtype("cuda")``)."""
    if group in ("distributed", "profiler") or (group == "amp" and not name.startswith("torch.cuda.")
                                                 and "_gpu_" not in name):
        return "argument"
    return "name"


def _status(row: dict[str, str]) -> str:
    behaviour = row["transfer_to_npu_behavior"].lower()
    notes = row["notes"].lower()
    if "returns none" in notes or "device args rewritten only" in behaviour:
        return "misbehaves"
    if behaviour.startswith(("not ", "n/a")) or "not handled" in behaviour or "not patched" in behaviour:
        return "not_redirected"
    return "redirected"


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _write_tsv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    def clean(value: str) -> str:
        return " ".join(value.replace("\t", " ").split())

    lines = ["\t".join(header)] + ["\t".join(clean(v) for v in row) for row in sorted(rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


_PLACEHOLDERS = frozenset({"npu equivalents", ""})   # vendor cells that name no equivalent API


def build(data_dir: Path, out_dir: Path) -> list[Path]:
    """Write the CUDA tables into ``out_dir`` and return their paths."""
    table = _rows(data_dir / "rules" / "cuda_table.csv")
    source = "rules/cuda_table.csv"
    apis: dict[str, list[str]] = {}
    constructs: list[list[str]] = []
    for row in table:
        constructs.append([row["row_id"], row["category"], row["cuda_api_or_construct"],
                           row["transfer_to_npu_behavior"], row["npu_equivalent"],
                           row["handled_since_torch_npu"], f"{source}:{row['row_id']}"])
        if row["category"] not in _API_CATEGORIES:
            continue
        for name in expand_names(row["cuda_api_or_construct"]):
            if name in apis:  # the first (most specific) row wins
                continue
            group = _group(row["category"], name)
            apis[name] = [name, group, _trigger(group, name), _status(row), row["npu_equivalent"],
                          row["handled_since_torch_npu"], row["notes"], f"{source}:{row['row_id']}"]
    for extra in _rows(CURATED / "cuda_api_extras.csv"):
        listed = apis.get(extra["api"])
        if listed is not None and listed[4].lower() in _PLACEHOLDERS:
            # the vendor row names no equivalent for this API in particular: the curated row's, with both sources
            listed[4], listed[7] = extra["npu_equivalent"], f"{listed[7]}; {extra['evidence']}"
        apis.setdefault(extra["api"], [extra["api"], extra["group"], _trigger(extra["group"], extra["api"]),
                                       extra["status"], extra["npu_equivalent"], extra["since"], "",
                                       extra["evidence"]])
    written = [
        _write_tsv(out_dir / "cuda_apis.tsv",
                   ["api", "group", "trigger", "status", "npu_equivalent", "since", "note", "source"], list(apis.values())),
        _write_tsv(out_dir / "cuda_constructs.tsv",
                   ["row_id", "category", "construct", "transfer_to_npu", "npu_equivalent", "since", "source"],
                   constructs),
    ]
    env = _rows(CURATED / "cuda_env_vars.csv")
    written.append(_write_tsv(out_dir / "cuda_env_vars.tsv",
                              ["name", "ascend_counterpart", "effect_on_npu", "source"],
                              [[r["name"], r["ascend_counterpart"], r["effect_on_npu"], r["evidence"]] for r in env]))
    libs = _rows(CURATED / "cuda_libraries.csv")
    written.append(_write_tsv(out_dir / "cuda_libraries.tsv",
                              ["module", "code", "reported", "npu_alternative", "kind", "library", "source"],
                              [[module, r["code"], r["reported"], r["npu_alternative"], r["kind"] or "module",
                                r["library"] or module, r["evidence"]]
                               for r in libs for module in r["module"].split()]))   # one row per spelling
    defaults = _rows(CURATED / "cuda_default_devices.csv")
    written.append(_write_tsv(out_dir / "cuda_default_devices.tsv",
                              ["api", "parameter", "position", "default", "npu_equivalent", "source"],
                              [[r["api"], r["parameter"], r["position"], r["default"], r["npu_equivalent"],
                                r["evidence"]] for r in defaults]))
    switches = _rows(CURATED / "cuda_attention_switches.csv")
    written.append(_write_tsv(out_dir / "cuda_attention_switches.tsv",
                              ["argument", "value", "library", "needs", "npu_since", "npu_alternative", "source"],
                              [[r["argument"], r["value"], r["library"], r["needs"], r["npu_since"],
                                r["npu_alternative"], r["evidence"]] for r in switches]))
    features = _rows(CURATED / "cuda_features.csv")
    written.append(_write_tsv(out_dir / "cuda_features.tsv", ["api", "feature", "npu_alternative", "source"],
                              [[r["api"], r["feature"], r["npu_alternative"], r["evidence"]] for r in features]))
    tools = _rows(CURATED / "cuda_tools.csv")
    written.append(_write_tsv(out_dir / "cuda_tools.tsv", ["tool", "npu_alternative", "source"],
                              [[r["tool"], r["npu_alternative"], r["evidence"]] for r in tools]))
    return written
