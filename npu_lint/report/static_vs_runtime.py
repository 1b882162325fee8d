"""``static_vs_runtime.csv``: every call site the runtime detector reported, with the static NPU4xx finding that
predicted it, or ``none``, so a user sees where the static pre-screen is blind.

Inputs, both in the analysis folder: ``dynamic_shape_risk.csv`` (the static findings, written by
``npu-lint analyse -m dynamic_shape``) and ``msft_dynamic_shape_analysis_report.csv`` (written by the run of the
instrumented copy). A finding predicts a runtime site when the site is on the finding's line, when the site's
line reads a value computed from a finding's line (a forward data flow inside each function, through the
functions that return such values and the ``for`` loops over them), or when one of the site's callers is such a
line (a model called with a varying batch varies inside), or when it calls a predicted site. The batch itself,
and what runs while it is fetched (the dataset, the collate function), are predicted by a finding that says the
batches differ (``BATCH_CODES``). The copy's Python files are parsed (never imported);
their line numbers are the original's.
"""
from __future__ import annotations

import ast
import csv
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from npu_lint.report.layout import DYNAMIC_SHAPE_RISK
from npu_lint.report.safety import ReportError, neutralise

RUNTIME_REPORT = "msft_dynamic_shape_analysis_report.csv"
OUTPUT = "static_vs_runtime.csv"
HEADER = ["Function Name", "File Path", "Line Number", "Static Code", "Static File", "Static Line", "How"]
_FRAME = "<file "
# Findings that say the batches differ: random sizes, padding to the batch maximum, a smaller last batch or
# chunk, per-sample items of different lengths.
BATCH_CODES = ("NPU404", "NPU405", "NPU406", "NPU407", "NPU409", "NPU411", "NPU415", "NPU417", "NPU418", "NPU419")


@dataclass(frozen=True)
class Static:
    code: str
    file: str      # relative to the input, posix
    line: int
    end_line: int

    def cell(self) -> list[str]:
        return [self.code, self.file, str(self.line)]


@dataclass
class Site:
    name: str
    file: str      # relative to the analysis folder, posix, without "./"
    line: int
    callers: list[tuple[str, int]]     # (file, line) of the frames above the call, innermost first


def _read_csv(path: Path) -> list[dict[str, str]]:
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle))
    except OSError as error:
        raise ReportError(f"cannot read {path}: {error.strerror or error}") from None


def _strip(path: str) -> str:
    return path[2:] if path.startswith("./") else path


def read_static(folder: Path) -> list[Static]:
    found = []
    for row in _read_csv(folder / DYNAMIC_SHAPE_RISK):
        tips = row.get("Tips") or ""
        code = tips.split(" ", 1)[0].lstrip("'")
        if code.startswith("NPU4") and (row.get("Start Line") or "").isdigit():
            end = row.get("End Line") or row["Start Line"]
            found.append(Static(code, row["File"], int(row["Start Line"]), int(end) if end.isdigit() else
                                int(row["Start Line"])))
    return found


def _frames(stack: str) -> list[tuple[str, int]]:
    """``['<file ./a.py, line 3 in f>', ...]`` (outermost first) -> [(a.py, 3), ...]."""
    frames = []
    for part in stack.split(_FRAME)[1:]:
        path, _, rest = part.rpartition(", line ")
        number = rest.split(" ", 1)[0]
        if number.isdigit():
            frames.append((_strip(path), int(number)))
    return frames


def read_runtime(folder: Path) -> list[Site]:
    sites = []
    for row in _read_csv(folder / RUNTIME_REPORT):
        if not (row.get("Line Number") or "").isdigit():
            continue
        frames = _frames(row.get("Call Stack") or "")
        sites.append(Site(row["Function Name"], _strip(row["File Path"]), int(row["Line Number"]), frames[-2::-1]))
    return sites


class _Flow:
    """Lines of the project that carry a dynamic shape, each with the finding it comes from."""

    def __init__(self, folder: Path, findings: list[Static]) -> None:
        self.folder = folder
        self.trees: dict[str, Optional[ast.Module]] = {}
        self.dynamic: dict[tuple[str, int], tuple[Static, str]] = {}
        self.returns: dict[str, Static] = {}         # function name -> finding its result comes from
        self.by_file: dict[str, list[Static]] = {}
        for finding in findings:
            self.by_file.setdefault(finding.file, []).append(finding)

    def tree(self, file: str) -> Optional[ast.Module]:
        if file not in self.trees:
            try:
                self.trees[file] = ast.parse((self.folder / file).read_text(encoding="utf-8-sig"))
            except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
                self.trees[file] = None
        return self.trees[file]

    def run(self, files: set[str]) -> None:
        files = files | set(self.by_file)
        for _ in range(3):          # results of functions flow into their callers, across files
            before = (len(self.dynamic), len(self.returns))
            for file in sorted(files):
                tree = self.tree(file)
                if tree is not None:
                    self._scope(file, tree.body)
                    for node in ast.walk(tree):
                        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                            self._scope(file, node.body, node.name)
            if (len(self.dynamic), len(self.returns)) == before:
                break

    def _finding_at(self, file: str, statement: ast.stmt) -> Optional[Static]:
        end = statement.body[0].lineno - 1 if isinstance(statement, (ast.For, ast.While, ast.With, ast.If)) \
            and statement.body else getattr(statement, "end_lineno", statement.lineno)
        return next((f for f in self.by_file.get(file, ()) if statement.lineno <= f.line <= max(end, statement.lineno)),
                    None)

    def _scope(self, file: str, body: list[ast.stmt], function: str = "") -> None:
        tainted: dict[str, Static] = {}
        statements = sorted(_simple_statements(body), key=lambda s: s.lineno)
        for _ in range(2):          # loop-carried values
            for statement in statements:
                origin, how = self._origin(file, statement, tainted)
                if origin is None:
                    continue
                for line in range(statement.lineno, _header_end(statement) + 1):
                    self.dynamic.setdefault((file, line), (origin, how))
                for name in _targets(statement):
                    tainted.setdefault(name, origin)
                if isinstance(statement, ast.Return) and function:
                    self.returns.setdefault(function, origin)

    def _origin(self, file: str, statement: ast.stmt, tainted: dict[str, Static]) -> tuple[Optional[Static], str]:
        finding = self._finding_at(file, statement)
        if finding is not None:
            return finding, "same line"
        for node in _read_part(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id in tainted:
                    return tainted[node.id], "data flow"
                if node.id in self.returns:
                    return self.returns[node.id], "data flow"
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and node.attr in self.returns:
                return self.returns[node.attr], "data flow"
        return None, ""


def _simple_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a scope, nested blocks included, nested functions and classes excluded."""
    out: list[ast.stmt] = []
    stack = list(body)
    while stack:
        statement = stack.pop()
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        out.append(statement)
        for field in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(child for child in getattr(statement, field, []) if isinstance(child, ast.stmt)
                         or isinstance(child, ast.ExceptHandler))
    return [s for s in out if isinstance(s, ast.stmt)]


def _header_end(statement: ast.stmt) -> int:
    body = getattr(statement, "body", None)
    if isinstance(body, list) and body:
        return max(statement.lineno, body[0].lineno - 1)
    return getattr(statement, "end_lineno", None) or statement.lineno


def _read_part(statement: ast.stmt) -> list[ast.AST]:
    """The expressions a statement reads (a compound statement's header only)."""
    if isinstance(statement, (ast.For, ast.AsyncFor)):
        parts: list[ast.AST] = [statement.iter]
    elif isinstance(statement, (ast.While, ast.If)):
        parts = [statement.test]
    elif isinstance(statement, (ast.With, ast.AsyncWith)):
        parts = [item.context_expr for item in statement.items]
    elif isinstance(statement, (ast.Try, ast.ExceptHandler)):
        parts = []
    else:
        parts = [statement]
    return [node for part in parts for node in ast.walk(part)]


def _targets(statement: ast.stmt) -> list[str]:
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
        targets = [statement.target]
    elif isinstance(statement, (ast.With, ast.AsyncWith)):
        targets = [item.optional_vars for item in statement.items if item.optional_vars is not None]
    else:
        return []
    return [node.id if isinstance(node, ast.Name) else ast.unparse(node) for target in targets
            for node in ast.walk(target) if isinstance(node, (ast.Name, ast.Attribute))
            and isinstance(node.ctx, ast.Store)]


def compare(folder: Path) -> list[list[str]]:
    """One row per runtime site: the static finding that predicted it (and how), or ``none``."""
    findings = read_static(folder)
    sites = read_runtime(folder)
    flow = _Flow(folder, findings)
    flow.run({site.file for site in sites} | {file for site in sites for file, _ in site.callers})
    hits: list[Optional[tuple[Static, str]]] = []
    for site in sites:
        hit = flow.dynamic.get((site.file, site.line))
        if hit is None:
            for file, line in site.callers:
                caller = flow.dynamic.get((file, line))
                if caller is not None:
                    hit = caller[0], f"called from {file}:{line}"
                    break
        hits.append(hit)
    inner = {}      # a call whose callee has a predicted varying site varies through it
    for site, hit in zip(sites, hits):
        if hit is not None:
            for file, line in site.callers:
                inner.setdefault((file, line), (hit[0], f"calls {site.file}:{site.line}"))
    # The batch (``<loader>.__next__`` on the loop's line) and what runs to make it (its callers include that
    # line): predicted by a finding that says the batch varies.
    loops = {(site.file, site.line) for site in sites if site.name.endswith(".__next__")}
    batch = next((f for f in findings if f.code in BATCH_CODES), None)
    rows = []
    for site, hit in zip(sites, hits):
        hit = hit or inner.get((site.file, site.line))
        if hit is None and batch is not None and ((site.file, site.line) in loops or loops.intersection(site.callers)):
            hit = batch, "the batch varies"
        static = hit[0].cell() if hit else ["none", "", ""]
        rows.append([site.name, "./" + site.file, str(site.line), *static, hit[1] if hit else ""])
    return rows


def write(folder: Path) -> tuple[int, int]:
    """Write ``static_vs_runtime.csv`` into the analysis folder; return (runtime sites, predicted)."""
    for name in (DYNAMIC_SHAPE_RISK, RUNTIME_REPORT):
        if not (folder / name).is_file():
            what = "run the instrumented copy first" if name == RUNTIME_REPORT else \
                "analyse with npu-lint analyse -m dynamic_shape first"
            raise ReportError(f"{folder / name} does not exist ({what})")
    rows = compare(folder)
    temporary = folder / f".{OUTPUT}.tmp"
    with temporary.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(HEADER)
        writer.writerows([[neutralise(cell) for cell in row] for row in rows])
    os.replace(temporary, folder / OUTPUT)
    return len(rows), sum(1 for row in rows if row[3] != "none")
