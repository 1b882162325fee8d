"""Walk the input tree once and gather what every report file needs, with the core's findings."""
from __future__ import annotations

import ast
import gc
import hashlib
import os
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Optional

from npu_lint import collector
from npu_lint.analysis.project import build_view
from npu_lint.context import FileContext
from npu_lint.core import analyse_tree
from npu_lint.cuda_facts import api_row
from npu_lint.finding import Finding
from npu_lint.notebooks import SUFFIX as NOTEBOOK
from npu_lint.notebooks import NotebookError, is_notebook, parse_notebook
from npu_lint.project.parsed import ParsedFiles
from npu_lint.report.cuda_ops import SUFFIXES, exported_ops, operator_names, registered_ops
from npu_lint.rules import ApiRef, Rule, all_rules
from npu_lint.rules.support import api_reference
from npu_lint.isolation import internal_error, is_internal
from npu_lint.sources import Unreadable, decode_source, display, parse, read_bytes, read_source
from npu_lint.support_facts import aliased_apply, probable_method_api, support_table
from npu_lint.versions import Target

if TYPE_CHECKING:
    from npu_lint.report.cache import ResultCache


class Inventory(Rule):
    """Observer (reports nothing): every torch API reference with its verdict for the target release."""

    node_types = (ApiRef, ast.Call)

    def check(self, node: object, ctx: FileContext) -> None:
        if isinstance(node, ApiRef) and (not node.qualname.startswith("torch.") or "__" in node.qualname
                                         or ctx.in_annotation(node.node)):
            return   # only torch names are listed; annotations are no use; ``torch.nn.__dict__`` is introspection
        if type(node) is ast.Call and type(node.func) is not ast.Attribute:
            # a call is listed by its method (method_api, probable_method_api); its callee is a reference, but for
            # ``sparsemax(x)`` after ``sparsemax = SparsemaxFunction.apply``
            api = aliased_apply(node.func, ctx) if type(node.func) is ast.Name else None
            if api is not None:
                row = support_table(ctx.target.release).get(api)
                ctx.collected.append((node, api, row["verdict"] if row else "not listed"))
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


@dataclass
class Collected:
    """Everything the report writes, keyed by paths relative to the input."""

    files: list[str] = field(default_factory=list)
    findings: list[tuple[str, Finding]] = field(default_factory=list)
    inventory: list[tuple[str, int, int, str, str]] = field(default_factory=list)
    cuda_ops: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    internal_errors: int = 0   # files skipped because of a bug of ours


def _walk_files(root: Path, warnings: list[str],
                excluded: Optional[Callable[[Path], bool]] = None) -> tuple[list[Path], list[Path]]:
    python, native = [], []

    def unreadable(error: OSError) -> None:
        where = Path(error.filename).relative_to(root).as_posix() if error.filename else "."
        warnings.append(f"{display(where)} cannot be read ({error.strerror}), skip.")

    for folder, dirs, files in os.walk(root, onerror=unreadable):
        base = Path(folder)
        kept = []
        for name in sorted(dirs):
            if excluded is not None and excluded(base / name):
                continue
            if (base / name).is_symlink():
                warnings.append(f"{display((base / name).relative_to(root))} is a symbolic link, skip.")
            else:
                kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            path = base / name
            if not name.endswith((".py", NOTEBOOK) + SUFFIXES) or (excluded is not None and excluded(path)):
                continue
            if path.is_symlink():
                warnings.append(f"{display(path.relative_to(root))} is a symbolic link, skip.")
                continue
            (python if name.endswith((".py", NOTEBOOK)) else native).append(path)
    return python, native


_PROJECT: list = [None, None]   # (ProjectView, root) of the running collect(), for analyse_file and its workers
_PARSED = ParsedFiles()   # files the index build parsed, taken back by the walk (parsed and bound once)
FileResult = tuple[list[Finding], list[tuple[int, int, str, str]], Optional[str]]   # findings, inventory, skip reason


def analyse_file(path: Path, target: Target, custom_ops: frozenset[str],
                 third_party: frozenset[str] = frozenset()) -> FileResult:
    """Everything the report needs from one Python file (picklable, so it can run in a worker). Never raises:
    an unreadable file or a bug of ours triggered by it is a skip reason."""
    return _analyse_digest(path, target, custom_ops, third_party)[0]


def _analyse_digest(path: Path, target: Target, custom_ops: frozenset[str], third_party: frozenset[str],
                    digest: bool = True, codes: Optional[frozenset[str]] = None,
                    inventory: bool = True) -> tuple[FileResult, str]:
    """The result and the digest of the bytes it was computed from (the cache stores it only under that key; ""
    without ``digest``: a run with no result cache). ``codes``: the rules to run (None: every rule);
    ``inventory``: list the torch API references too."""
    try:
        data = read_bytes(path)
    except Unreadable as error:
        return ([], [], str(error)), ""
    try:
        return _analyse_text(path, decode_source(data), target, custom_ops, third_party, codes, inventory), \
            hashlib.sha256(data).hexdigest() if digest else ""
    except Unreadable as error:
        return ([], [], str(error)), ""
    except Exception as error:   # isolation: the file is skipped, the run goes on
        return ([], [], internal_error(error)), ""


def _analyse_text(path: Path, source: str, target: Target, custom_ops: frozenset[str], third_party: frozenset[str],
                  codes: Optional[frozenset[str]] = None, listing: bool = True) -> FileResult:
    notebook = None
    if is_notebook(path):   # a notebook's code cells, mapped back to the .ipynb file's lines afterwards
        try:
            notebook = parse_notebook(source)
        except NotebookError as error:
            raise Unreadable(str(error)) from None
        source = notebook.source
    kept = _PARSED.take(path, source) if notebook is None else None
    tree = kept[0] if kept is not None else parse(source, path)
    ctx = FileContext(source, target)
    ctx.path = str(path)
    if kept is not None:
        ctx.resolver.attach(tree, kept[1])
    ctx.custom_ops, ctx.third_party = custom_ops, third_party
    if _PROJECT[0] is not None:   # the project index of this run (inherited by forked workers)
        ctx.use_project(_PROJECT[0], path.relative_to(_PROJECT[1]).as_posix())
    if codes is None:
        codes = frozenset(rule.code for rule in all_rules())
    findings = analyse_tree(tree, source, target, codes, noqa=True, ctx=ctx,
                            observers=[Inventory()] if listing else [])
    ctx.close()   # the model's scopes and the rules' facts hold cycles: freed now, even when the collector is frozen
    inventory = [(node.lineno, getattr(node, "end_lineno", None) or node.lineno, api, status)
                 for node, api, status in ctx.collected]
    if notebook is not None:   # positions in the .ipynb file (findings also keep their cell and cell line)
        findings = [notebook.locate(f) for f in findings]
        inventory = [(notebook.file_line(start), notebook.file_line(end), api, status)
                     for start, end, api, status in inventory]
    return findings, inventory, None


# path, target, custom ops, third party, digest, the rules to run (None: all), inventory
Job = tuple[str, Target, frozenset[str], frozenset[str], bool, Optional[frozenset[str]], bool]


def _analyse_job(job: Job) -> tuple[FileResult, str]:
    return _analyse_digest(Path(job[0]), *job[1:])


def collect(root: Path, target: Target, progress: Callable[[int, int, str], None], jobs: int = 1,
            cache: Optional["ResultCache"] = None, third_party: frozenset[str] = frozenset(),
            excluded: Optional[Callable[[Path], bool]] = None, codes: Optional[frozenset[str]] = None,
            inventory: bool = True) -> Collected:
    """Analyse every Python file and notebook under ``root`` with the rules of ``codes`` (None: every rule,
    including those off by default; a report that keeps only some findings need not run the others) and, with
    ``inventory``, list its torch API references; ``excluded``: the configuration's exclusions."""
    every = frozenset(rule.code for rule in all_rules())
    codes = None if codes is None or codes >= every else codes & every
    result = Collected()
    python, native = _walk_files(root, result.warnings, excluded)
    registered: list[tuple[str, str]] = []
    for path in native:
        relative = path.relative_to(root).as_posix()
        try:
            text = read_source(path)
        except Unreadable as error:
            result.warnings.append(f"{relative} {error}, skip.")
            continue
        result.cuda_ops.extend((relative, op) for op in exported_ops(text))
        registered.extend(registered_ops(text))
    custom_ops = operator_names(registered)
    reason = getattr(third_party, "reason", lambda name: "")
    context = custom_ops | {f"api:{name}:{reason(name)}" for name in third_party}   # both decide a file's result
    context |= {"results:noqa,notebooks"}   # results of older runs (noqa not applied) must not be reused
    if codes is not None or not inventory:   # results of fewer rules (or no inventory) answer only the same question
        context |= {f"rules:{','.join(sorted(codes or every))};inventory:{inventory}"}
    facts_cache = cache.subfolder("project-facts") if cache is not None else None   # warm runs parse nothing twice
    collecting = gc.isenabled()
    gc.disable()   # the index and the trees kept for the walk live on: the collector need not scan them again and again
    try:
        project = build_view([root], result.warnings, cache_dir=facts_cache, keep=_PARSED,
                             light=True) if python else None
    finally:
        gc.freeze()
        collector.HELD[0] += 1
        if collecting:
            gc.enable()
    _PROJECT[:] = [project, root]
    thresholds = gc.get_threshold()
    # Each file's model is freed by reference counts (its cycles are broken by ``close``): the collector's passes
    # over the memo tables a file's walk builds found nothing to free and cost ~5 % of a run (timm). It still runs
    # when a walk keeps far more objects alive, so the memory of an odd input stays bounded.
    gc.set_threshold(_WALK_THRESHOLD, *thresholds[1:])
    try:
        _collect_files(root, python, target, cache, custom_ops, third_party, context, project, jobs, progress, result,
                       (codes, inventory))
    finally:
        gc.set_threshold(*thresholds)
        collector.HELD[0] -= 1
        gc.unfreeze()
        _PARSED.clear()   # files the walk did not take (excluded, or results from the cache)
    if cache is not None:
        result.warnings.extend(cache.warnings)
    return result


_WALK_THRESHOLD = 100_000   # objects allocated (net) between two passes of the collector during the rule walk


def _collect_files(root: Path, python: list[Path], target: Target, cache: Optional["ResultCache"],
                   custom_ops: frozenset[str], third_party: frozenset[str], context: set[str], project: object,
                   jobs: int, progress: Callable[[int, int, str], None], result: Collected,
                   rules: tuple[Optional[frozenset[str]], bool] = (None, True)) -> None:
    if project is not None and cache is not None:   # the digests only key the result cache
        context = context | {f"project:{project.digest}"}
    keys = {path: cache.key(path, target, context) if cache else None for path in python}
    cached = {path: cache.load(*keys[path], name=path.name) if keys[path] else None
              for path in python}
    todo: list[Job] = [(str(path), target, custom_ops, third_party, cache is not None, *rules) for path in python
                       if cached[path] is None]
    fresh = _run_jobs(todo, jobs)
    for index, path in enumerate(python):
        relative = path.relative_to(root).as_posix()
        progress(index, len(python), display(relative))
        outcome = cached[path]
        if outcome is None:
            outcome, digest = next(fresh)
            if cache is not None and keys[path] and digest == keys[path][1] and not is_internal(outcome[2] or ""):
                cache.put(keys[path][0], digest, outcome)   # only results of the bytes the key was made from
        findings, inventory, skipped = outcome
        result.files.append(relative)
        if skipped:
            result.internal_errors += is_internal(skipped)
            result.warnings.append(f"{display(relative)} {skipped}, skip.")
            continue
        result.findings.extend((relative, finding) for finding in findings)
        result.inventory.extend((relative, *row) for row in inventory)
    for _ in fresh:   # run the jobs' generator to its end: the pool closes and joins now, not in an exit handler
        pass


def _worker_signals() -> None:
    """Workers leave Ctrl-C to the parent (which terminates them), die at once on SIGTERM, and on Linux die with
    the parent (a SIGKILLed parent leaves no orphan writing tracebacks into a closed pipe)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
        if os.getppid() == 1:   # the parent died before the line above
            os._exit(1)


def _run_jobs(todo: list[Job], jobs: int) -> Iterator[tuple[FileResult, str]]:
    if jobs <= 1 or len(todo) < 2:
        return map(_analyse_job, todo)
    import multiprocessing
    pool = multiprocessing.get_context("spawn" if sys.platform == "win32" else "fork").Pool(
        jobs, initializer=_worker_signals)
    results = pool.imap(_analyse_job, todo, chunksize=max(1, len(todo) // (jobs * 8)))

    def drain() -> Iterator[tuple[FileResult, str]]:
        try:
            yield from results
        except BaseException:   # Ctrl-C, SIGTERM, or the consumer gave up: never wait for the workers
            pool.terminate()
            pool.join()
            raise
        pool.close()
        pool.join()
    return drain()


def project_uses(collected: Collected, api: str) -> bool:
    return any(row[3] == api for row in collected.inventory) or any(f.api == api for _, f in collected.findings)
