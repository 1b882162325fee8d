"""``npu-lint analyse -m third_party``: which public APIs of a library reach an unsupported torch API or a custom
CUDA operator, in the vendor's five files (plus ``third_party_chains.csv``, the shortest chain of each pair).

Leaves, for the target release: custom operators the library's C++/CUDA code exports (``cuda_op.csv``), torch
APIs the release tables mark unsupported (``framework_unsupported_op.csv``), torch.cuda APIs and ``.cuda()``
calls (``migration_needed_op.csv``) and torch APIs of unknown support (``unknown_op.csv``). Every function of
the library that reaches a leaf through the call graph of :class:`~npu_lint.project.ProjectIndex` is named by
its definition path and the package paths that re-export it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

from npu_lint.context import TORCH_LIBRARIES
from npu_lint.project import ProjectIndex
from npu_lint.support_facts import support_table

CUDA_OP, FRAMEWORK, MIGRATION, UNKNOWN = "cuda_op", "framework_unsupported", "migration_needed", "unknown"
FILES = {CUDA_OP: "cuda_op.csv", FRAMEWORK: "framework_unsupported_op.csv", MIGRATION: "migration_needed_op.csv",
         UNKNOWN: "unknown_op.csv"}
FULL = "full_unsupported_results.csv"
CHAINS = "third_party_chains.csv"
HEADERS = {"cuda_op.csv": ["OP Name", "Affected 3rd-party API"],
           "framework_unsupported_op.csv": ["Torch API", "Affected 3rd-party API"],
           "migration_needed_op.csv": ["Torch API", "Affected 3rd-party API"],
           "unknown_op.csv": ["Torch API", "Affected 3rd-party API"],
           FULL: ["File", "3rd-party API", "Message"],
           CHAINS: ["3rd-party API", "Kind", "Leaf", "Chain", "File", "Line"]}
# The vendor's statistics order (alphabetical), then ours.
ORDER = ("cuda_op.csv", "framework_unsupported_op.csv", FULL, "migration_needed_op.csv", "unknown_op.csv", CHAINS)
MAX_NAMES = 100   # an "affected" cell holds at most 100 names; more are split over several rows
ARROW = " → "


def classifier(index: ProjectIndex, release: str) -> Callable[[str], Optional[str]]:
    """The kind of leaf a referenced or called name is for ``release``, or None."""
    table = support_table(release)
    ops = index.custom_ops
    own_tops = {name.split(".", 1)[0] for name in index.own}

    def kind(api: str) -> Optional[str]:
        head, _, last = api.rpartition(".")
        if last in ops and (api.startswith("torch.ops.") or _extension_module(head, own_tops, index)):
            return CUDA_OP
        if not api.startswith("torch.") or api.startswith(("torch.npu", "torch_npu")):
            return None
        if api.startswith("torch.cuda.") or api.endswith(".cuda") or any(p in ("mlu", "mps") for p in api.split(".")):
            return MIGRATION   # device APIs that transfer_to_npu / the migration tool rewrite
        row = table.get(api)
        if row is None:
            return None
        if row["verdict"] == "unsupported":
            return FRAMEWORK
        return UNKNOWN if row["verdict"] == "unknown" else None
    return kind


# Libraries whose functions are never the library's own compiled operators, whatever their names.
_OTHER_LIBRARIES = frozenset(TORCH_LIBRARIES) | {"numpy", "np", "scipy", "cv2", "math", "os", "sys", "functools",
                                                 "itertools", "collections", "PIL", "pandas", "einops", "triton"}


def _extension_module(head: str, own_tops: set[str], index: ProjectIndex) -> bool:
    """``pkg._C`` or ``nms_ext``: a module that is not Python source in the library (a compiled extension), of the
    library itself or a top-level extension module, not another library such as torchvision."""
    if not head or index.kind(head) is not None:
        return False
    top = head.split(".", 1)[0]
    return top in own_tops or top not in _OTHER_LIBRARIES


class ThirdPartyResult:
    """The rows of every file, and the pairs for the JSON output."""

    def __init__(self) -> None:
        self.files: dict[str, list[list[object]]] = {name: [] for name in ORDER}
        self.pairs: list[dict[str, object]] = []


def analyse_library(index: ProjectIndex, release: str) -> ThirdPartyResult:
    """Spread every leaf to the library's functions and lay the result out in the vendor's files."""
    kind_of = classifier(index, release)
    kinds: dict[str, Optional[str]] = {}

    def is_leaf(api: str) -> bool:
        if api not in kinds:
            kinds[api] = kind_of(api)
        return kinds[api] is not None

    reached = index.reached(is_leaf)
    result = ThirdPartyResult()
    by_leaf: dict[tuple[str, str], set[str]] = {}
    names_of: dict[str, list[str]] = {}
    for function in sorted(reached):
        names = names_of.setdefault(function, index.public_names(function))
        full_sites = []
        for api, (chain, site) in sorted(reached[function].items()):
            kind = kinds[api]
            leaf = api.rpartition(".")[2] if kind == CUDA_OP else api
            by_leaf.setdefault((kind, leaf), set()).update(names)
            text = render_chain(index, chain) + (" (custom CUDA operator)" if kind == CUDA_OP else "")
            result.files[CHAINS].append([names[0], kind, leaf, text, site.file, site.line])
            result.pairs.append({"api": names[0], "names": names, "kind": kind, "leaf": leaf, "chain": chain,
                                 "file": site.file, "line": site.line})
            if kind in (FRAMEWORK, CUDA_OP):
                full_sites.append(f"file_path:{site.file}, start_line:{site.line}, api_name:{api} \n")
        if full_sites:
            file = index.functions[function][0].relative
            for chunk in _chunks(names):
                result.files[FULL].append([file, "\n".join(chunk), "".join(full_sites)])
    for (kind, leaf), names in sorted(by_leaf.items(), key=lambda item: (item[0][0], item[0][1])):
        for chunk in _chunks(sorted(names, key=lambda n: (n.split(".")[:-1], n))):
            result.files[FILES[kind]].append([leaf, "\n".join(chunk)])
    return result


def render_chain(index: ProjectIndex, chain: list[str]) -> str:
    """``a → b → torch.x``; a step taken because ``a`` builds the module whose ``forward`` ``b`` is reads
    ``a → (builds) b``."""
    parts = [chain[0]]
    for caller, callee in zip(chain, chain[1:]):
        parts.append(f"(builds) {callee}" if index.built_edge(caller, callee) else callee)
    return ARROW.join(parts)


def _chunks(names: list[str]) -> list[list[str]]:
    return [names[start:start + MAX_NAMES] for start in range(0, len(names), MAX_NAMES)] or [[]]


def write_files(folder: Path, result: ThirdPartyResult, release: str, formats: tuple[str, ...] = ()) -> dict[str, int]:
    """Write the five files and the chains file; return the row counts for the statistics table."""
    from npu_lint.report.write import write_csv
    for name in ORDER:
        write_csv(folder / name, HEADERS[name], result.files[name])
    if "json" in formats:
        import json
        from npu_lint import __version__
        (folder / "third_party.json").write_text(json.dumps(
            {"tool": "npu-lint", "version": __version__, "torch_npu_version": release, "affected": result.pairs},
            indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return {name: len(result.files[name]) for name in ORDER}


def run_mode(source: Path, staging: Path, release: str, env_paths: list[str], formats: tuple[str, ...],
             log: Callable[..., None], cache_dir: Optional[Path]) -> dict[str, int]:
    """Index ``source`` (and the ``-env`` import roots), write the files into ``staging``, log as the vendor does."""
    from npu_lint.project import NoPackage
    from npu_lint.report.safety import ReportError
    for text in env_paths:
        if not Path(text).is_dir():
            raise ReportError(f"-env path {text} is not a directory")

    def progress(done: int, total: int, relative: str) -> None:
        log("INFO", f"Start the analysis of {relative}.", 100.0 * done / max(total, 1))
    try:
        index = ProjectIndex.build([source], [Path(p) for p in env_paths], cache_dir=cache_dir, progress=progress)
    except NoPackage as error:
        raise ReportError(str(error)) from None
    for warning in index.warnings:
        log("WARNING", warning)
    stats = index.stats()
    log("INFO", f"Call graph: {stats.modules} modules, {stats.functions} functions, {stats.classes} classes; "
                f"{stats.calls_resolved} calls resolved, {stats.calls_unresolved} calls of names found nowhere and "
                f"{stats.unknown_receivers} method calls on values of unknown type not followed.")
    if index.custom_ops:
        log("INFO", f"Custom operators exported by the C++/CUDA sources: {len(index.custom_ops)}.")
    result = analyse_library(index, release)
    counts = write_files(staging, result, release, formats)
    if counts[FULL]:
        log("INFO", "The path to the 'full_unsupported_results.csv' file can be used as the -api parameter to "
                    "analyze the full unsupported api information in the script.", 100.0)
    return counts
