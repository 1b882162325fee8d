"""Opt-in fixes (``npu-lint check --fix`` / ``--diff``), rewritten with libcst so formatting and comments survive.

Only exact drop-ins are applied, each at the position of a reported finding:

- NPU203 ``x.cuda(...)`` -> ``x.npu(...)``;
- NPU205 ``'cuda'`` / ``'cuda:N'`` -> ``'npu'`` / ``'npu:N'``;
- NPU301 ``torch.optim.<Opt>(...)`` -> ``torch_npu.optim.NpuFused<Opt>(...)``, only in files that already
  ``import torch_npu`` (so that no line other than the reported ones changes).

Everything else is reported, not rewritten.
"""
from __future__ import annotations

import difflib
from typing import Iterable

from npu_lint.finding import Finding
from npu_lint.tables import keyed

FIXABLE = ("NPU203", "NPU205", "NPU301")


def fixable(finding: Finding, source: str) -> bool:
    if finding.code == "NPU301":
        row = keyed("affinity.tsv", "api").get(finding.api)
        return bool(row) and finding.api.startswith("torch.optim.") and "import torch_npu" in source
    return finding.code in FIXABLE


def apply(source: str, findings: Iterable[Finding]) -> tuple[str, list[Finding]]:
    """The fixed source and the findings that were fixed."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    wanted = {(f.line, f.col, f.code): f for f in findings if fixable(f, source)}
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
                finding = self._take(original, "NPU203")   # ``Net().cuda()`` starts where ``Net()`` does
                if finding is not None:
                    fixed.append(finding)
                    return updated.with_changes(func=updated.func.with_changes(attr=cst.Name("npu")))
            finding = self._take(original.func, "NPU301")
            if finding is not None:
                target = keyed("affinity.tsv", "api")[finding.api]["affinity_api"]
                fixed.append(finding)
                return updated.with_changes(func=cst.parse_expression(target))
            return updated

    try:
        module = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    except (cst.ParserSyntaxError, RecursionError):
        return source, []
    return module.visit(Fixer()).code, fixed


def unified_diff(path: str, before: str, after: str) -> str:
    return "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True), f"a/{path}", f"b/{path}"))
