"""The migration summary: how big is this port? Counts per family and per file, the files ranked by work,
and a rough effort class per file and in total. The method (also in the README):

- every finding is one kind of work: *mechanical* (a rename or drop-in that ``--fix`` or a search-and-replace
  does: ``.cuda()``, ``'cuda'``, ``torch.cuda.X`` with a ``torch_npu`` twin, CUDA flags, env variables),
  *rewrite* (code that must be written differently: unsupported APIs, CUDA-only libraries, apex, DataParallel,
  dtypes the NPU lacks, a syntax error), *port* (a custom CUDA kernel or extension: an Ascend C kernel to write)
  or *tuning* (optional speed-ups and dynamic-shape risks: affinity APIs, CPU fallbacks, advice);
- *lines to change* counts the distinct lines with mechanical, rewrite or port findings (tuning is optional);
- a file's points: 1 per mechanical line, 5 per rewrite line, 40 per port finding, 1 per 4 tuning findings;
  a file is *small* below 15 points, *medium* below 80, *large* from 80 or with any port finding; the
  whole port is large with a large file or 240+ points, medium with a medium file or 45+ points, else small.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from npu_lint.finding import Finding

FAMILIES = (("NPU0", "syntax"), ("NPU1", "API support"), ("NPU2", "CUDA usage"), ("NPU3", "affinity API"),
            ("NPU4", "dynamic shape"))
PORT = frozenset({"NPU215", "NPU221", "NPU223", "NPU225"})
REWRITE = frozenset({"NPU001", "NPU101", "NPU103", "NPU105", "NPU202", "NPU210", "NPU216", "NPU217", "NPU218",
                     "NPU220"})
TUNING_PREFIXES = ("NPU3", "NPU4", "NPU102", "NPU104", "NPU106", "NPU107")
POINTS = {"mechanical": 1.0, "rewrite": 5.0, "port": 40.0, "tuning": 0.25}
LARGE, MEDIUM = 80.0, 15.0


def kind_of(code: str) -> str:
    """mechanical, rewrite, port or tuning (see the module docstring)."""
    if code in PORT:
        return "port"
    if code in REWRITE:
        return "rewrite"
    if code.startswith(TUNING_PREFIXES):
        return "tuning"
    return "mechanical"


def family_of(code: str) -> str:
    return next((name for prefix, name in FAMILIES if code.startswith(prefix)), "other")


@dataclass
class FileEffort:
    path: str
    families: dict[str, int] = field(default_factory=dict)
    lines_to_change: int = 0
    points: float = 0.0
    has_port: bool = False

    @property
    def size(self) -> str:
        if self.has_port or self.points >= LARGE:
            return "large"
        return "medium" if self.points >= MEDIUM else "small"

    @property
    def findings(self) -> int:
        return sum(self.families.values())


@dataclass
class Summary:
    files: list[FileEffort]            # ranked by work, most first
    families: dict[str, int]

    @property
    def lines_to_change(self) -> int:
        return sum(f.lines_to_change for f in self.files)

    @property
    def points(self) -> float:
        return sum(f.points for f in self.files)

    def sizes(self) -> dict[str, int]:
        counts = {"large": 0, "medium": 0, "small": 0}
        for effort in self.files:
            counts[effort.size] += 1
        return counts

    @property
    def size(self) -> str:
        """The whole port: large with any large file or 240+ points, medium with any medium file or 45+ points."""
        sizes = self.sizes()
        if sizes["large"] or self.points >= 3 * LARGE:
            return "large"
        return "medium" if sizes["medium"] or self.points >= 3 * MEDIUM else "small"


def summarise(findings: Iterable[tuple[str, Finding]]) -> Summary:
    per_file: dict[str, FileEffort] = {}
    lines: dict[str, dict[int, str]] = {}
    families: dict[str, int] = {}
    for path, finding in findings:
        effort = per_file.setdefault(path, FileEffort(path))
        family = family_of(finding.code)
        effort.families[family] = effort.families.get(family, 0) + 1
        families[family] = families.get(family, 0) + 1
        kind = kind_of(finding.code)
        if kind == "tuning":
            effort.points += POINTS["tuning"]
            continue
        if kind == "port":
            effort.has_port = True
            effort.points += POINTS["port"]
        known = lines.setdefault(path, {})
        previous = known.get(finding.line)
        if previous is None or POINTS[kind] > POINTS[previous]:
            known[finding.line] = kind
    for path, kinds in lines.items():
        effort = per_file[path]
        effort.lines_to_change = len(kinds)
        effort.points += sum(POINTS[k] for k in kinds.values() if k != "port")
    ranked = sorted(per_file.values(), key=lambda e: (-e.points, -e.lines_to_change, e.path))
    return Summary(ranked, families)


def family_names() -> list[str]:
    return [name for _, name in FAMILIES]


def table(summary: Summary, top: int = 10) -> list[str]:
    """The summary as text lines: totals, per family, then the files ranked by work (``top`` of them)."""
    if not summary.files:
        return ["Migration summary: no findings."]
    sizes = summary.sizes()
    to_change = sum(1 for e in summary.files if e.lines_to_change or e.has_port)
    optional = len(summary.files) - to_change
    lines = [f"Migration summary: {to_change} file{'s' if to_change != 1 else ''} to change"
             + (f" (+{optional} with optional tuning only)" if optional else "") + ", "
             f"{summary.lines_to_change} line{'s' if summary.lines_to_change != 1 else ''} to change, "
             f"effort {summary.size} ({sizes['large']} large, {sizes['medium']} medium, {sizes['small']} small files; "
             f"{summary.points:g} points)",
             "  findings per family: " + ", ".join(
                 f"{name} {summary.families[name]}" for name in family_names() if summary.families.get(name))]
    shown = summary.files[:top]
    width = max(len(e.path) for e in shown)
    lines.append(f"  {'file'.ljust(width)}  effort  lines  findings  points")
    for e in shown:
        lines.append(f"  {e.path.ljust(width)}  {e.size.ljust(6)}  {str(e.lines_to_change).rjust(5)}  "
                     f"{str(e.findings).rjust(8)}  {e.points:6g}")
    if len(summary.files) > top:
        lines.append(f"  ... and {len(summary.files) - top} more file{'s' if len(summary.files) - top != 1 else ''}")
    return lines


def csv_rows(summary: Summary) -> tuple[list[str], list[list[object]]]:
    """``migration_summary.csv``: one row per file, ranked by work, then a ``TOTAL`` row."""
    header = ["File", "Effort", "Lines To Change", "Points"] + [f"{prefix}xx {name}" for prefix, name in FAMILIES]
    rows: list[list[object]] = [[e.path, e.size, e.lines_to_change, f"{e.points:g}"] +
                                [e.families.get(name, 0) for name in family_names()] for e in summary.files]
    rows.append(["TOTAL", summary.size, summary.lines_to_change, f"{summary.points:g}"] +
                [summary.families.get(name, 0) for name in family_names()])
    return header, rows
