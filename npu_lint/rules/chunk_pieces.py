"""Pieces of a tensor cut into a count of chunks rounded up (NPU407, short_chunks.py): ``x.chunk(math.ceil(
x.shape[0] / s))`` makes pieces of ``ceil(n / count)`` rows and a shorter last one (TabNet's ghost batch norm).
Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.context import FileContext
from npu_lint.rules.chunk_counts import bound_element, rounded_up


def rounded_chunks(node: ast.Call, ctx: FileContext) -> Optional[tuple[ast.AST, ast.AST]]:
    """``x.chunk(count)`` / ``torch.chunk(x, count)`` along the first dimension with ``count`` a length read from
    the data divided by a step and rounded up (``int(np.ceil(x.shape[0] / vbs))``, ``(n + s - 1) // s``): the
    tensor and the step, else None. A count of a model dimension (``x.chunk(2, dim=-1)``, ``chunk(self.heads)``)
    cuts whole pieces and is left alone."""
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr != "chunk":
        return None
    name = ctx.resolver.qualname(func)
    if name == "torch.chunk" and node.args:
        tensor, rest = node.args[0], node.args[1:]
    elif name is None:
        tensor, rest = func.value, node.args
    else:
        return None
    count = rest[0] if rest else next((kw.value for kw in node.keywords if kw.arg == "chunks"), None)
    dim = rest[1] if len(rest) > 1 else next((kw.value for kw in node.keywords if kw.arg == "dim"), None)
    if count is None or (dim is not None and not (isinstance(dim, ast.Constant) and dim.value == 0)):
        return None
    step = _divisor(count, ctx)
    if step is None or (isinstance(step, ast.Constant) and step.value in (0, 1)) or not rounded_up(count, step, ctx):
        return None
    return tensor, step


def _divisor(count: ast.AST, ctx: FileContext, depth: int = 0) -> Optional[ast.AST]:
    """The step ``s`` of a count written ``ceil(n / s)``, ``(n + s - 1) // s``, ``-(-n // s)``, ``n // s + 1``
    (through ``int(...)`` and one name bound to it)."""
    if isinstance(count, ast.Name) and depth == 0:
        value = bound_element(count, ctx)
        return _divisor(value, ctx, depth + 1) if value is not None else None
    if isinstance(count, ast.Call) and count.args and len(count.args) == 1:
        if isinstance(count.func, ast.Name) and count.func.id == "int":
            return _divisor(count.args[0], ctx, depth + 1)
        if (ctx.resolver.qualname(count.func) or "").rpartition(".")[2] == "ceil":
            quotient = count.args[0]
            return quotient.right if isinstance(quotient, ast.BinOp) and isinstance(quotient.op, ast.Div) else None
    if isinstance(count, ast.UnaryOp) and isinstance(count.op, ast.USub) and isinstance(count.operand, ast.BinOp):
        return count.operand.right
    if isinstance(count, ast.BinOp) and isinstance(count.op, ast.FloorDiv):
        return count.right
    if isinstance(count, ast.BinOp) and isinstance(count.op, ast.Add) and isinstance(count.left, ast.BinOp) \
            and isinstance(count.left.op, ast.FloorDiv):
        return count.left.right
    return None
