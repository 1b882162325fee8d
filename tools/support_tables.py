"""Build ``rule_tables/support/<release>.tsv``: one NPU verdict per torch Python API and torch-npu release.

Inputs (all under the upstream ``data`` folder, see shared/research/support_data.md sections 5-8):
the vendor's official lists ``official_support/``, the vendor analyser's lists
``vendor_lists/vendor_api_lists.csv``, the wheel facts ``wheels/npu_python_facts.csv``, and the
wheel-derived tables ``wheels/api_derived_<V>.csv`` / ``wheels/aten_npu_<V>.csv``.

Precedence for release V (first match wins):

1. the documented verdict: V's official list (``official``), where the vendor analyser list of V's
   minor decides the APIs the official list lacks or contradicts (``vendor_list:<minor>``); for 2.1.0
   the analyser list is the authority; releases without a list borrow the nearest documented release
   (``official_nearest:<W>``), and the nearest on the other side for APIs the first lacks and V's wheel
   table shows to exist; 1.11.0 uses the legacy 1.11 list.  A documented "yes"
   whose wheel has no NPU kernel (2.x) is refined to ``cpu_fallback``: it works, on the CPU;
2. ``torch_npu/utils/unsupport_api.py`` of V's wheel (``python_fact``); it also overrides a "yes"
   borrowed from another release;
3. sparse- or quantized-only ops (``special_only``);
4. on 1.11.0, which has no generic CPU fallback, ops without an NPU kernel (``no_kernel_1.11``);
5. the wheel-derived verdict (``derived``, ``derived_cpu_fallback``), ``unknown`` when it has none.

Output is deterministic: rows sorted by API, ``\\n`` line endings, no timestamps, no absolute paths.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Set, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

import support_sources as src  # noqa: E402

RELEASES: Tuple[str, ...] = ("1.11.0", "2.1.0", "2.2.0", "2.3.1", "2.4.0", "2.5.1", "2.6.0", "2.7.1", "2.8.0",
                             "2.9.0", "2.10.0", "2.11.0", "2.12.0", "2.13.0", "2.14.0")
COLUMNS = ("api", "verdict", "dtypes", "dtype_caveats", "basis", "source")
VERDICTS = ("supported", "unsupported", "cpu_fallback", "unknown")
BASES = ("official", "official_nearest", "vendor_list", "python_fact", "special_only", "no_kernel_1.11",
         "derived", "derived_cpu_fallback")
# Releases with a documented list, and the label of that list.  2.1.0 has only the analyser's list.
DOCUMENTED: Dict[str, str] = {"1.11.0": src.LEGACY, "2.1.0": "vendor_list:2.1",
                              **{release: release for release in src.OFFICIAL}}


class Row(NamedTuple):
    verdict: str
    dtypes: str
    dtype_caveats: str
    basis: str
    source: str


class Facts:
    """Everything read from ``data``, once per build."""

    def __init__(self, data: Path) -> None:
        self.data = data
        self.derived = {release: src.derived(data, release) for release in RELEASES}
        self.universe: Set[str] = set().union(*self.derived.values())
        tensor_methods = {api for api in self.universe if api.startswith("torch.Tensor.")}
        self.official = {doc: src.official(data, doc, tensor_methods) for doc in src.OFFICIAL + (src.LEGACY,)}
        self.vendor = src.vendor_lists(data, tensor_methods)
        self.python_facts = src.python_facts(data)
        self.wheels = src.wheels(data)
        self.conflicts: Dict[str, List[Tuple[str, str, str]]] = {}   # release -> (api, official, vendor)
        self._documented: Dict[str, Dict[str, Row]] = {}

    def derived_source(self, release: str) -> str:
        source = f"wheels/api_derived_{release}.csv"
        wheel = self.wheels.get(release)
        return f"{source};torch-npu {wheel['version']} sha256:{wheel['sha256']}" if wheel else source


_VERDICT = {"yes": "supported", "no": "unsupported"}


def _minor(release: str) -> str:
    return ".".join(release.split(".")[:2])


def documented(facts: Facts, release: str) -> Dict[str, Row]:
    """The documented verdicts of a release in DOCUMENTED, before any wheel facts (computed once)."""
    if release not in facts._documented:
        facts._documented[release] = _documented(facts, release)
    return facts._documented[release]


def _documented(facts: Facts, release: str) -> Dict[str, Row]:
    label = DOCUMENTED[release]
    vendor = facts.vendor.get(_minor(release), {})
    if label.startswith("vendor_list:"):
        doc: Dict[str, src.Entry] = {}
    else:
        doc = facts.official[label]
    basis = "official" if release in src.OFFICIAL else f"official_nearest:{label}"
    rows: Dict[str, Row] = {}
    for api, entry in doc.items():
        rows[api] = Row(_VERDICT[entry.supported], entry.dtypes, entry.dtype_caveats, basis, entry.source)
    conflicts = facts.conflicts.setdefault(release, [])   # (api, official, vendor list)
    for api, entry in vendor.items():
        have = doc.get(api)
        if have is not None and have.supported == entry.supported:
            if entry.supported == "yes" and not have.dtypes and entry.dtypes:
                rows[api] = rows[api]._replace(dtypes=entry.dtypes)
            continue
        if have is not None:
            conflicts.append((api, have.supported, entry.supported))
        dtypes = entry.dtypes or (have.dtypes if have is not None and entry.supported == "yes" else "")
        rows[api] = Row(_VERDICT[entry.supported], dtypes, "", f"vendor_list:{_minor(release)}", entry.source)
    return rows


def nearest(release: str) -> List[str]:
    """The nearest documented release on each side (same major), closest first; the older wins a tie."""
    index = RELEASES.index(release)
    major = release.split(".")[0]
    same = [r for r in DOCUMENTED if r.split(".")[0] == major]
    older = [r for r in same if RELEASES.index(r) < index]
    newer = [r for r in same if RELEASES.index(r) > index]
    sides = ([max(older, key=RELEASES.index)] if older else []) + ([min(newer, key=RELEASES.index)] if newer else [])
    return sorted(sides, key=lambda r: (abs(RELEASES.index(r) - index), RELEASES.index(r)))


def doc_layer(facts: Facts, release: str) -> Dict[str, Row]:
    """Documented verdicts for any release: its own list, or those of its nearest documented releases."""
    if release in DOCUMENTED:
        return documented(facts, release)
    rows: Dict[str, Row] = {}
    exists = facts.derived[release]
    for rank, other in enumerate(nearest(release)):
        for api, row in documented(facts, other).items():
            # Skip what is decided, what is known not to exist in this torch release, and, from the
            # farther list, what is not known to exist here (it may be newer or older than V).
            if api in rows or (api not in exists and (rank or api in facts.universe)):
                continue
            rows[api] = row._replace(basis=f"official_nearest:{other}")
    return rows


def wheel_verdict(facts: Facts, release: str, api: str, statuses: Dict[str, str]) -> Optional[Row]:
    """The verdict of the wheel-derived table (layers 3-5), None for APIs with no aten op at all."""
    row = facts.derived[release].get(api)
    if row is None or row.reason == "unmapped":
        return None
    source = facts.derived_source(release)
    if row.derived in ("supported", "supported_generic"):
        return Row("supported", "", "", "derived", source)
    if row.derived == "unknown":
        return Row("unknown", "", "", "derived", source)
    if release.startswith("1."):
        # No generic fallback on 1.11: only the op-plugin ``tocpu`` ops run on the CPU.
        ops = row.no_kernel_ops if row.derived == "unsupported" else row.bwd_no_kernel_ops
        if src.bad_statuses(ops, statuses) == {"tocpu"}:
            return Row("cpu_fallback", "", "", "derived_cpu_fallback", source)
        return Row("unsupported", "", "", "no_kernel_1.11", source)
    if row.reason.startswith("error"):          # sparse/quantized/mkldnn-only ops: SparsePrivateUse1 raises
        return Row("unsupported", "", "", "special_only", source)
    return Row("cpu_fallback", "", "", "derived_cpu_fallback", source)


def table(facts: Facts, release: str) -> Dict[str, Row]:
    """api -> Row for one release, by the precedence in the module docstring."""
    statuses = src.op_statuses(facts.data, release)
    docs = doc_layer(facts, release)
    python_facts = facts.python_facts.get(release, {})
    disputed = {api for api, _, _ in facts.conflicts.get(release, [])}   # keep their vendor_list basis
    rows: Dict[str, Row] = {}
    for api in sorted(set(docs) | set(python_facts) | set(facts.derived[release])):
        doc = docs.get(api)
        wheel = wheel_verdict(facts, release, api, statuses)
        borrowed_yes = doc is not None and doc.verdict == "supported" and doc.basis.startswith("official_nearest:")
        if doc is not None and not (borrowed_yes and api in python_facts):
            runs_on_cpu = wheel is not None and wheel.verdict == "cpu_fallback"
            if doc.verdict == "supported" and runs_on_cpu and api not in disputed:
                rows[api] = wheel._replace(dtypes=doc.dtypes, dtype_caveats=doc.dtype_caveats)
            else:
                rows[api] = doc
        elif api in python_facts:
            rows[api] = Row("unsupported", "", "", "python_fact", python_facts[api])
        elif wheel is not None:
            rows[api] = wheel
    return rows


def _cell(value: str) -> str:
    return " ".join(value.split())


def render(rows: Dict[str, Row]) -> str:
    lines = ["\t".join(COLUMNS)]
    for api in sorted(rows):
        lines.append("\t".join(_cell(value) for value in (api,) + tuple(rows[api])))
    return "\n".join(lines) + "\n"


def build(data_dir: Path, out_dir: Path) -> List[Path]:
    """Write ``<out_dir>/support/<release>.tsv`` for every release (``out_dir`` is ``rule_tables``)."""
    target = out_dir / "support"
    target.mkdir(parents=True, exist_ok=True)
    facts = Facts(data_dir)
    written = []
    methods: Dict[str, Dict[str, str]] = {}   # class -> method -> the first release that lists it
    for release in RELEASES:
        path = target / f"{release}.tsv"
        rows = table(facts, release)
        with path.open("w", encoding="utf-8", newline="\n") as handle:
            handle.write(render(rows))
        written.append(path)
        for api in rows:
            owner, _, method = api.rpartition(".")
            if owner.rpartition(".")[2][:1].isupper() and (method[:1].islower() or method.startswith("__")):
                methods.setdefault(owner, {}).setdefault(method, release)
    path = out_dir / "class_methods.tsv"
    lines = ["class\tmethods\tsource"]
    for owner in sorted(methods):
        first = min(methods[owner].values(), key=RELEASES.index)
        lines.append(f"{owner}\t{' '.join(sorted(methods[owner]))}\tsupport/*.tsv, first listed in {first}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    written.append(path)
    return written


def conflicts(data_dir: Path) -> Dict[str, List[Tuple[str, str, str]]]:
    """release -> sorted (api, official verdict, vendor-list verdict) where the two lists disagree."""
    facts = Facts(data_dir)
    for release in DOCUMENTED:
        documented(facts, release)
    return {release: sorted(found) for release, found in sorted(facts.conflicts.items()) if found}


if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    for written_path in build(here.parent.parent / "shared" / "data", here.parent / "rule_tables"):
        print(written_path)
