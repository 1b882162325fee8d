"""Operands and source text the NPU3xx rules share: transposed operands, the by-hand fallback of SDPA, and the
source text of a matched node for messages (read by position: no re-generation, no recursion over the tree)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules.fusion_structure import strip_casts

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def source_text(node: ast.AST, ctx: FileContext, limit: int = 60) -> Optional[str]:
    """``node``'s own source text when it spans one line of at most ``limit`` characters, else None.

    Read from the source by position (no re-generation, no recursion over the tree).
    """
    if getattr(node, "lineno", None) is None or node.lineno != getattr(node, "end_lineno", -1):
        return None
    lines = ctx.scratch.get("source_lines")
    if lines is None:
        lines = ctx.scratch["source_lines"] = ctx.source.splitlines()
    if node.lineno > len(lines):
        return None
    text = lines[node.lineno - 1].encode("utf-8")[node.col_offset:node.end_col_offset].decode("utf-8", "replace")
    return text if 0 < len(text) <= limit else None


def shown(node: ast.AST, ctx: FileContext, limit: int = 60) -> str:
    """Source text for a message: the node's own text, or its first ``limit`` characters and an ellipsis."""
    text = source_text(node, ctx, limit)
    if text is not None:
        return text
    lines = ctx.scratch.get("source_lines") or ctx.source.splitlines()
    line = lines[node.lineno - 1] if 0 < getattr(node, "lineno", 0) <= len(lines) else ""
    head = line.encode("utf-8")[getattr(node, "col_offset", 0):].decode("utf-8", "replace").strip()
    return (head[:limit - 3] + "...") if head else "this expression"


def _int(node: ast.AST) -> Optional[int]:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, int):
        return -node.operand.value
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, int) else None


def _swaps_last_two(dims: list[ast.AST]) -> bool:
    """``(-2, -1)``, ``(-1, -2)``, or adjacent non-negative dims (``(2, 3)``: the last two of a 4-D tensor)."""
    if len(dims) != 2:
        return False
    a, b = _int(dims[0]), _int(dims[1])
    if a is None or b is None:
        return False
    return {a, b} == {-1, -2} or (a >= 0 and b >= 0 and abs(a - b) == 1)


def transposed_operand(node: ast.AST, ctx: FileContext) -> Optional[ast.AST]:
    """The tensor ``b`` of ``b.t()``, ``b.T``, ``b.mT``, ``b.transpose(-2, -1)``, ``torch.transpose(b, 0, 1)``,
    ``b.swapaxes(-1, -2)`` or ``b.permute(0, 1, 3, 2)`` (its last two dims swapped), else None. Casts and moves
    around it (``b.t().to(device)``) are looked through."""
    node = strip_casts(node)
    if isinstance(node, ast.Attribute) and node.attr in ("T", "mT"):
        return node.value
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    name = ctx.resolver.qualname(node.func)
    if name in ("torch.transpose", "torch.swapaxes", "torch.swapdims"):
        return node.args[0] if len(node.args) == 3 and _swaps_last_two(node.args[1:]) else None
    if name is not None or not isinstance(node.func, ast.Attribute):
        return None
    attr, args = node.func.attr, node.args
    if attr == "t" and not args:
        return node.func.value
    if attr in ("transpose", "swapaxes", "swapdims") and _swaps_last_two(args):
        return node.func.value
    if attr == "permute" and len(args) >= 2:
        dims = [_int(arg) for arg in args]
        if all(d is not None and d >= 0 for d in dims) and \
                dims == list(range(len(dims) - 2)) + [len(dims) - 1, len(dims) - 2]:
            return node.func.value
    return None


def fallback_of_sdpa(node: ast.AST, ctx: FileContext) -> bool:
    """The shape sits in one branch of an ``if`` whose other branch calls ``F.scaled_dot_product_attention``
    (timm's ``if self.fused_attn: ... else: <by hand>``): the fused path exists already."""
    child, parent = ctx.statement_of(node), None
    for _ in range(6):
        parent = ctx.parent(child) if child is not None else None
        if parent is None or isinstance(parent, _FUNCTIONS):
            return False
        if isinstance(parent, ast.If):
            other = parent.orelse if any(item is child for item in parent.body) else parent.body
            for statement in other:
                for sub in walk(statement):
                    if isinstance(sub, ast.Call) and (ctx.resolver.qualname(sub.func) or "").endswith(
                            "scaled_dot_product_attention"):
                        return True
        child = parent
    return False
