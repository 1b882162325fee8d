"""Walk the input tree once and gather what every report file needs, with the core's findings."""
from __future__ import annotations

import ast
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Optional

from npu_lint.context import FileContext
from npu_lint.core import analyse_tree
from npu_lint.cuda_facts import api_row
from npu_lint.finding import Finding
from npu_lint.notebooks import SUFFIX as NOTEBOOK
from npu_lint.notebooks import load_source
from npu_lint.report.cuda_ops import SUFFIXES, exported_ops
from npu_lint.rules import ApiRef, Rule, all_rules
from npu_lint.rules.support import api_reference
from npu_lint.sources import Unreadable, parse, read_source
from npu_lint.support_facts import probable_method_api, support_table
from npu_lint.versions import Target

if TYPE_CHECKING:
    from npu_lint.report.cache import ResultCache


class Inventory(Rule):
    """Observer (reports nothing): every torch API reference with its verdict for the target release."""

    node_types = (ApiRef, ast.Call)

    def check(self, node: object, ctx: FileContext) -> None:
        if isinstance(node, ApiRef) and _in_annotation(node.node, ctx):
            return
        if isinstance(node, ApiRef) and node.qualname.startswith("torch.") and api_row(node.qualname) is not None:
            ctx.collected.append((node.node, node.qualname, "cuda"))
            return
        reference = api_reference(node, ctx)
        if reference is not None:
            api, where = reference[0], reference[1]
        else:
            api = probable_method_api(node, ctx) if isinstance(node, ast.Call) else None
            if api is None:
                return
            where = node
        row = support_table(ctx.target.release).get(api)
        ctx.collected.append((where, api, row["verdict"] if row else "not listed"))


def _in_annotation(node: ast.AST, ctx: FileContext) -> bool:
    """A type annotation (``x: Tensor``, ``-> List[Tensor]``) is not a use of the API."""
    child, parent = node, ctx.parent(node)
    while isinstance(parent, (ast.Subscript, ast.Tuple, ast.List, ast.BinOp, ast.Attribute)):
        child, parent = parent, ctx.parent(parent)
    if isinstance(parent, ast.arg):
        return parent.annotation is child
    if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return parent.returns is child
    return isinstance(parent, ast.AnnAssign) and parent.annotation is child


@dataclass
class Collected:
    """Everything the report writes, keyed by paths relative to the input."""

    files: list[str] = field(default_factory=list)
    findings: list[tuple[str, Finding]] = field(default_factory=list)
    inventory: list[tuple[str, int, int, str, str]] = field(default_factory=list)
    cuda_ops: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _walk_files(root: Path, warnings: list[str],
                excluded: Optional[Callable[[Path], bool]] = None) -> tuple[list[Path], list[Path]]:
    python, native = [], []
    for folder, dirs, files in os.walk(root):
        base = Path(folder)
        kept = []
        for name in sorted(dirs):
            if excluded is not None and excluded(base / name):
                continue
            if (base / name).is_symlink():
                warnings.append(f"{(base / name).relative_to(root)} is a symbolic link, skip.")
            else:
                kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            path = base / name
            if not name.endswith((".py", NOTEBOOK) + SUFFIXES) or (excluded is not None and excluded(path)):
                continue
            if path.is_symlink():
                warnings.append(f"{path.relative_to(root)} is a symbolic link, skip.")
                continue
            (python if name.endswith((".py", NOTEBOOK)) else native).append(path)
    return python, native


FileResult = tuple[list[Finding], list[tuple[int, int, str, str]], Optional[str]]   # findings, inventory, skip reason


def analyse_file(path: Path, target: Target, custom_ops: frozenset[str],
                 third_party: frozenset[str] = frozenset()) -> FileResult:
    """Everything the report needs from one Python file (picklable, so it can run in a worker)."""
    try:
        source, notebook = load_source(path)
        tree = parse(source, path)
    except Unreadable as error:
        return [], [], str(error)
    ctx = FileContext(source, target)
    ctx.custom_ops, ctx.third_party = custom_ops, third_party
    codes = frozenset(rule.code for rule in all_rules())
    findings = analyse_tree(tree, source, target, codes, noqa=True, ctx=ctx, observers=[Inventory()])
    inventory = [(node.lineno, getattr(node, "end_lineno", None) or node.lineno, api, status)
                 for node, api, status in ctx.collected]
    if notebook is not None:   # positions in the .ipynb file (findings also keep their cell and cell line)
        findings = [notebook.locate(f) for f in findings]
        inventory = [(notebook.file_line(start), notebook.file_line(end), api, status)
                     for start, end, api, status in inventory]
    return findings, inventory, None


def _analyse_job(job: tuple[str, Target, frozenset[str], frozenset[str]]) -> FileResult:
    return analyse_file(Path(job[0]), job[1], job[2], job[3])


def collect(root: Path, target: Target, progress: Callable[[int, int, str], None], jobs: int = 1,
            cache: Optional["ResultCache"] = None, third_party: frozenset[str] = frozenset(),
            excluded: Optional[Callable[[Path], bool]] = None) -> Collected:
    """Analyse every Python file and notebook under ``root`` with every rule (including those off by default);
    ``excluded``: the configuration's exclusions."""
    result = Collected()
    python, native = _walk_files(root, result.warnings, excluded)
    for path in native:
        relative = path.relative_to(root).as_posix()
        try:
            text = read_source(path)
        except Unreadable as error:
            result.warnings.append(f"{relative} {error}, skip.")
            continue
        result.cuda_ops.extend((relative, op) for op in exported_ops(text))
    custom_ops = frozenset(op for _, op in result.cuda_ops)
    context = custom_ops | {f"api:{name}" for name in third_party}   # both decide a file's result
    context |= {"results:noqa,notebooks"}   # results of older runs (noqa not applied) must not be reused
    cached = {path: cache.get(path, target, context) if cache else None for path in python}
    todo = [(str(path), target, custom_ops, third_party) for path in python if cached[path] is None]
    fresh = _run_jobs(todo, jobs)
    for index, path in enumerate(python):
        relative = path.relative_to(root).as_posix()
        progress(index, len(python), relative)
        outcome = cached[path] if cached[path] is not None else next(fresh)
        if cache is not None and cached[path] is None:
            cache.put(path, target, context, outcome)
        findings, inventory, skipped = outcome
        result.files.append(relative)
        if skipped:
            result.warnings.append(f"{relative} {skipped}, skip.")
            continue
        result.findings.extend((relative, finding) for finding in findings)
        result.inventory.extend((relative, *row) for row in inventory)
    return result


def _run_jobs(todo: list[tuple[str, Target, frozenset[str], frozenset[str]]], jobs: int) -> Iterator[FileResult]:
    if jobs <= 1 or len(todo) < 2:
        return map(_analyse_job, todo)
    import multiprocessing
    pool = multiprocessing.get_context("spawn" if sys.platform == "win32" else "fork").Pool(jobs)
    results = pool.imap(_analyse_job, todo, chunksize=max(1, len(todo) // (jobs * 8)))

    def drain() -> Iterator[FileResult]:
        try:
            yield from results
        finally:
            pool.close()
            pool.join()
    return drain()


def project_uses(collected: Collected, api: str) -> bool:
    return any(row[3] == api for row in collected.inventory) or any(f.api == api for _, f in collected.findings)
