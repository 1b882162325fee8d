"""Readers for the upstream support facts used by ``support_tables.py``.

Every reader takes the upstream ``data`` folder and returns plain dicts keyed by the canonical API
name (see :func:`canonical`).  Paths written into the tables are relative to that folder, so the
output never depends on where the data lives.  Standard library only; runs on Python 3.9.
"""
from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Dict, Iterable, List, NamedTuple, Optional, Set

# Where the vendor analyser's lists come from (data/README.md, research/anchor_tool.md).
MSTT = "Ascend/mstt@99c2e0f9:msfmktransplt/src/ms_fmk_transplt/resource/"
VENDOR_MINORS = ("2.1", "2.6", "2.7", "2.8")
# Official lists in the main (newest) layout; the ``-table`` snapshots only fill gaps.
OFFICIAL = ("2.6.0", "2.7.1", "2.8.0", "2.9.0", "2.10.0", "2.11.0", "2.12.0", "2.13.0")
LEGACY = "1.11.0-legacy"
# Bad op statuses in aten_npu_<V>.csv (research/support_data.md section 5).
_BAD_STATUS = {"no_npu_kernel", "unsupported", "special_only", "tocpu"}

_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", re.ASCII)


class Entry(NamedTuple):
    """One documented verdict: ``yes`` or ``no`` plus its dtype facts and provenance."""

    supported: str
    dtypes: str
    dtype_caveats: str
    source: str


class Derived(NamedTuple):
    """One row of ``api_derived_<V>.csv``, reduced to what the precedence needs."""

    derived: str
    reason: str
    no_kernel_ops: List[str]
    bwd_no_kernel_ops: List[str]


def read_csv(path: Path) -> List[Dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def canonical(name: str, tensor_methods: Optional[Set[str]] = None) -> Optional[str]:
    """The qualified ``torch.`` name of a list entry, or None when it names no torch API.

    ``Tensor.x`` becomes ``torch.Tensor.x`` (support_data.md section 8); trailing prose in a
    foreign script is cut off; the legacy list's ``torhc.`` typo is repaired; a bare name becomes
    ``torch.Tensor.<name>`` only when that method is known (``tensor_methods``).
    """
    name = name.strip().strip("`").strip()
    match = _DOTTED.match(name)
    if not match:
        return None
    rest = name[match.end():]
    if rest and (rest[0].isascii() or rest[0].isspace()):
        return None                       # markup debris such as ``torch.*C.torch.default*generator``
    name = match.group(0)
    if name.startswith("Tensor."):
        name = "torch." + name
    elif name.startswith("torhc."):
        name = "torch." + name[len("torhc."):]
    elif "." not in name:
        method = "torch.Tensor." + name
        return method if tensor_methods is not None and method in tensor_methods else None
    return name if name.startswith("torch.") else None


def _entry(row: Dict[str, str], source: str) -> Entry:
    return Entry(row["supported"], row.get("dtypes", ""), row.get("dtype_caveats", ""), source)


def official(data: Path, doc: str, tensor_methods: Set[str]) -> Dict[str, Entry]:
    """``official_support_<doc>.csv`` (yes/no rows only), filled from ``<doc>-table.csv`` where it is silent.

    The table snapshot is older; it only adds APIs the main list lacks, a verdict where the main list
    says ``unstated``, and dtypes where the main list has none for the same verdict.
    """
    folder = data / "official_support"
    result: Dict[str, Entry] = {}
    for row in read_csv(folder / f"official_support_{doc}.csv"):
        api = canonical(row["api"], tensor_methods)
        if api and row["supported"] in ("yes", "no") and api not in result:
            result[api] = _entry(row, row["source"])
    table = folder / f"official_support_{doc}-table.csv"
    if table.is_file():
        for row in read_csv(table):
            api = canonical(row["api"], tensor_methods)
            if not api or row["supported"] not in ("yes", "no"):
                continue
            have = result.get(api)
            if have is None:
                result[api] = _entry(row, row["source"])
            elif have.supported == row["supported"] and not have.dtypes and row["dtypes"]:
                caveats = have.dtype_caveats or row["dtype_caveats"]
                result[api] = have._replace(dtypes=row["dtypes"], dtype_caveats=caveats)
    return result


def vendor_lists(data: Path, tensor_methods: Set[str]) -> Dict[str, Dict[str, Entry]]:
    """minor -> api -> Entry from ``vendor_lists/vendor_api_lists.csv``; ``unsupported`` wins a duplicate."""
    result: Dict[str, Dict[str, Entry]] = {minor: {} for minor in VENDOR_MINORS}
    rows = read_csv(data / "vendor_lists" / "vendor_api_lists.csv")
    for row in sorted(rows, key=lambda r: (r["torch_minor"], r["vendor_list"] != "unsupported", r["api"])):
        api = canonical(row["api"], tensor_methods)
        if not api or row["torch_minor"] not in result or api in result[row["torch_minor"]]:
            continue
        unsupported = row["vendor_list"] == "unsupported"
        stem = "op_list" if unsupported else "supported_op"
        source = f"{MSTT}{stem}_{row['torch_minor'].replace('.', '_')}.json"
        result[row["torch_minor"]][api] = Entry("no" if unsupported else "yes", row["dtypes"], "", source)
    return result


def base_release(wheel_version: str) -> str:
    """``2.1.0.post17`` -> ``2.1.0``."""
    return wheel_version.split(".post")[0]


def wheels(data: Path) -> Dict[str, Dict[str, str]]:
    """torch release -> {"version": torch-npu wheel version, "sha256": ...} (sources_manifest_wheels.csv)."""
    result: Dict[str, Dict[str, str]] = {}
    for row in read_csv(data / "wheels" / "sources_manifest_wheels.csv"):
        if row["artifact"] == "torch-npu":
            result[base_release(row["version"])] = {"version": row["version"], "sha256": row["sha256"]}
    return result


def python_facts(data: Path) -> Dict[str, Dict[str, str]]:
    """torch release -> api -> source, for the ``unsupported_api:*`` facts of that release's wheel."""
    result: Dict[str, Dict[str, str]] = {}
    for row in read_csv(data / "wheels" / "npu_python_facts.csv"):
        api = canonical(row["name"])
        if not row["kind"].startswith("unsupported_api:") or not api:
            continue
        source = f"wheels/npu_python_facts.csv;torch-npu {row['torch_npu_version']} {row['source_file']}"
        result.setdefault(base_release(row["torch_npu_version"]), {}).setdefault(api, source)
    return result


def _ops(cell: str) -> List[str]:
    return [op for op in cell.split("|") if op]


def derived(data: Path, release: str) -> Dict[str, Derived]:
    """``api_derived_<release>.csv`` keyed by API."""
    rows = read_csv(data / "wheels" / f"api_derived_{release}.csv")
    return {row["api"]: Derived(row["derived"], row["reason"], _ops(row["no_kernel_ops"]),
                                _ops(row["bwd_no_kernel_ops"])) for row in rows}


def op_statuses(data: Path, release: str) -> Dict[str, str]:
    """aten overload -> status (``npu``, ``no_npu_kernel``, ``tocpu``, ...) from ``aten_npu_<release>.csv``."""
    return {row["aten_op"]: row["status"] for row in read_csv(data / "wheels" / f"aten_npu_{release}.csv")}


def bad_statuses(ops: Iterable[str], statuses: Dict[str, str]) -> Set[str]:
    """The kernel-less statuses reached by ``ops`` (overload names, or base names meaning every overload)."""
    found: Set[str] = set()
    for op in ops:
        if op in statuses:
            found.add(statuses[op])
        else:
            found.update(status for name, status in statuses.items() if name.split(".")[0] == op)
    return found & _BAD_STATUS
