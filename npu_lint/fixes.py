"""Opt-in fixes (``npu-lint check --fix`` / ``--diff``), rewritten with libcst so formatting and comments survive.

Only exact drop-ins are applied, each at the position of a reported finding:

- NPU203 ``x.cuda(...)`` -> ``x.npu(...)``;
- NPU205 ``'cuda'`` / ``'cuda:N'`` -> ``'npu'`` / ``'npu:N'``;

  both need torch_npu loaded (``.npu()`` and the ``npu`` device exist only after ``import torch_npu``): a file
  without that import gets ``import torch_npu`` on the line after its first top-level torch import; a file with
  neither is not fixed (:func:`blocked` says why);
- NPU301 ``torch.optim.<Opt>(...)`` -> ``torch_npu.optim.NpuFused<Opt>(...)`` and ``nn.SiLU()`` ->
  ``torch_npu.contrib.module.SiLU()`` (called without arguments: the contrib module takes none), only in files
  that already ``import torch_npu`` (so that no line other than the reported ones changes). GELU is not
  rewritten: ``torch_npu.fast_gelu`` is a function, not a module, and approximates GELU.

Unsafe, only with ``--unsafe-fixes`` (the meaning can change, review the diff):

- NPU303 ``x[mask] = <number>`` -> ``x.masked_fill_(mask, <number>)``: indexing applies a boolean mask to the
  leading dimensions of ``x`` and accepts integer index tensors, while ``masked_fill_`` broadcasts a boolean mask
  from the trailing dimensions.

Everything else is reported, not rewritten.
"""
from __future__ import annotations

import ast
import difflib
import re
from typing import Iterable

from npu_lint.finding import Finding
from npu_lint.tables import keyed

FIXABLE = ("NPU203", "NPU205", "NPU301")
NEEDS_TORCH_NPU = ("NPU203", "NPU205")
_IMPORTS_TORCH_NPU = re.compile(r"^[ \t]*(?:import[ \t]+torch_npu\b|from[ \t]+torch_npu\b)", re.MULTILINE)
_TOP_LEVEL_TORCH_IMPORT = re.compile(r"^(?:import[ \t]+torch\b|from[ \t]+torch\b)", re.MULTILINE)
WHY_BLOCKED = ("needs 'import torch_npu', and the file has no top-level torch import to put it after: "
               "add 'import torch_npu' and run --fix again")
UNSAFE_FIXABLE = ("NPU303",)
DROP_IN_MODULES = ("torch.nn.SiLU",)   # NPU301 module targets that take the same (no) arguments
_NO_ARGUMENTS = re.compile(r"[\w.]+\s*\(\s*\)")


def fixable(finding: Finding, source: str, unsafe: bool = False) -> bool:
    """Whether ``apply`` rewrites the finding (``unsafe``: also the fixes that may change the meaning)."""
    if finding.code == "NPU301":
        row = keyed("affinity.tsv", "api").get(finding.api)
        if not row or "import torch_npu" not in source:
            return False
        if finding.api in DROP_IN_MODULES:
            return _NO_ARGUMENTS.match(_text_from(finding, source)) is not None
        return finding.api.startswith("torch.optim.")
    if finding.code in UNSAFE_FIXABLE:
        return unsafe and _number_mask_assignment(finding, source)
    if finding.code in NEEDS_TORCH_NPU:   # NPU205 on ``torch.device(device, i)``: its string is the default's
        return not blocked(finding, source) and finding.api != "torch.device"
    return finding.code in FIXABLE


def blocked(finding: Finding, source: str) -> bool:
    """A drop-in fix that cannot be applied because the file could not import torch_npu (see WHY_BLOCKED)."""
    return finding.code in NEEDS_TORCH_NPU and _IMPORTS_TORCH_NPU.search(source) is None \
        and _TOP_LEVEL_TORCH_IMPORT.search(source) is None


def _text_from(finding: Finding, source: str) -> str:
    """The source from the finding's position to the end of its last line."""
    lines = source.splitlines()[finding.line - 1:finding.end_line]
    return "\n".join([lines[0][finding.col:]] + lines[1:]) if lines else ""


def _number_mask_assignment(finding: Finding, source: str) -> bool:
    """``x[mask] = 0``: one subscript target indexed by one expression, a number (or True/False) assigned."""
    try:
        statement = ast.parse(_text_from(finding, source)).body[0]
    except (SyntaxError, ValueError, IndexError, RecursionError):
        return False
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return False
    target, value = statement.targets[0], statement.value
    return isinstance(target, ast.Subscript) and isinstance(target.value, (ast.Name, ast.Attribute, ast.Subscript,
                                                                           ast.Call)) \
        and not isinstance(target.slice, (ast.Tuple, ast.Slice, ast.Starred)) \
        and isinstance(value, ast.Constant) and isinstance(value.value, (int, float))


def apply(source: str, findings: Iterable[Finding], unsafe: bool = False) -> tuple[str, list[Finding]]:
    """The fixed source and the findings that were fixed (``unsafe``: the unsafe fixes as well)."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    wanted = {(f.line, f.col, f.code): f for f in findings if fixable(f, source, unsafe)}
    if not wanted:
        return source, []
    fixed: list[Finding] = []

    class Fixer(cst.CSTTransformer):
        METADATA_DEPENDENCIES = (PositionProvider,)

        def _take(self, node: cst.CSTNode, code: str):
            start = self.get_metadata(PositionProvider, node).start
            return wanted.pop((start.line, start.column, code), None)

        def leave_SimpleString(self, original, updated):
            finding = self._take(original, "NPU205")
            if finding is None:
                return updated
            fixed.append(finding)
            return updated.with_changes(value=updated.value.replace("cuda", "npu", 1))

        def leave_Call(self, original, updated):
            if isinstance(updated.func, cst.Attribute) and updated.func.attr.value == "cuda":
                # ``Net().cuda()`` starts where ``Net()`` does; a receiver on earlier lines: at the method's name
                finding = self._take(original, "NPU203") or self._take(original.func.attr, "NPU203")
                if finding is not None:
                    fixed.append(finding)
                    return updated.with_changes(func=updated.func.with_changes(attr=cst.Name("npu")))
            finding = self._take(original.func, "NPU301")
            if finding is not None and (not updated.args or finding.api not in DROP_IN_MODULES):
                target = keyed("affinity.tsv", "api")[finding.api]["affinity_api"]
                fixed.append(finding)
                return updated.with_changes(func=cst.parse_expression(target))
            return updated

        def leave_Assign(self, original, updated):
            finding = self._take(original, "NPU303")
            if finding is None:
                return updated
            target, value = updated.targets[0].target, updated.value
            if len(updated.targets) != 1 or not isinstance(target, cst.Subscript) or len(target.slice) != 1 \
                    or not isinstance(target.slice[0].slice, cst.Index) or target.slice[0].slice.star is not None \
                    or not isinstance(value, (cst.Integer, cst.Float, cst.Name)) \
                    or (isinstance(value, cst.Name) and value.value not in ("True", "False")):
                return updated
            mask = target.slice[0].slice.value
            fixed.append(finding)
            call = cst.Call(func=cst.Attribute(value=target.value, attr=cst.Name("masked_fill_")),
                            args=[cst.Arg(mask), cst.Arg(value)])
            return cst.Expr(value=call, semicolon=updated.semicolon)

    try:
        module = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    except (cst.ParserSyntaxError, RecursionError):
        return source, []
    result = module.visit(Fixer())
    if any(f.code in NEEDS_TORCH_NPU for f in fixed) and _IMPORTS_TORCH_NPU.search(source) is None:
        result = _add_torch_npu_import(result)
    return result.code, fixed


def _add_torch_npu_import(module):
    """``import torch_npu`` after the first top-level ``import torch`` / ``from torch ... import``."""
    import libcst as cst
    body = list(module.body)
    for index, statement in enumerate(body):
        if isinstance(statement, cst.SimpleStatementLine) and any(_imports_torch(s) for s in statement.body):
            body.insert(index + 1, cst.parse_statement("import torch_npu\n"))
            return module.with_changes(body=body)
    return module


def _imports_torch(statement) -> bool:
    import libcst as cst
    if isinstance(statement, cst.Import):
        return any(cst.helpers.get_full_name_for_node(alias.name).split(".")[0] == "torch" for alias in statement.names)
    if isinstance(statement, cst.ImportFrom) and statement.module is not None and not statement.relative:
        return cst.helpers.get_full_name_for_node(statement.module).split(".")[0] == "torch"
    return False


def unified_diff(path: str, before: str, after: str) -> str:
    return "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True), f"a/{path}", f"b/{path}"))
