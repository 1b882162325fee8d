"""Chunk ``i`` of a count (NPU407, short_chunks.py): ``x[i * s:(i + 1) * s]`` under ``for i in range(count)``, and
whether the count is rounded up (``math.ceil(len(x) / s)``), which makes the last chunk shorter. Nothing here is a
rule."""
from __future__ import annotations

import ast

from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import VALUE
from npu_lint.context import FileContext
from npu_lint.rules.chunk_steps import data_length, same_or_variable


def scaled(lower: ast.AST) -> list[tuple[str, ast.AST]]:
    """``i * s`` / ``s * i``: the (index, step) pairs a chunk start may be."""
    if not isinstance(lower, ast.BinOp) or not isinstance(lower.op, ast.Mult):
        return []
    pairs = [(lower.left.id, lower.right)] if isinstance(lower.left, ast.Name) else []
    return pairs + ([(lower.right.id, lower.left)] if isinstance(lower.right, ast.Name) else [])


def scaled_end(upper: ast.AST, index: str, step: ast.AST, ctx: FileContext, depth: int = 0) -> bool:
    """``(i + 1) * s``, ``s * (i + 1)``, ``i * s + s``, ``min(<one of them>, n)`` or a name bound to one of them:
    the end of chunk ``i`` of length ``s``."""
    s = ast.unparse(step)
    if isinstance(upper, ast.Call) and isinstance(upper.func, ast.Name) and upper.func.id == "min" \
            and len(upper.args) == 2 and depth < 2:
        return any(scaled_end(arg, index, step, ctx, depth + 1) for arg in upper.args)
    if isinstance(upper, ast.Name) and depth == 0:
        binding = ctx.resolver.binding(upper)
        return binding is not None and binding.tag == VALUE and not binding.path \
            and isinstance(binding.value, ast.AST) and scaled_end(binding.value, index, step, ctx, depth + 1)
    return ast.unparse(upper) in {f"({index} + 1) * {s}", f"{s} * ({index} + 1)", f"{index} * {s} + {s}",
                                  f"{s} * {index} + {s}", f"{s} + {index} * {s}", f"{s} + {s} * {index}"}


def _same_step(divisor: ast.AST, step: ast.AST) -> bool:
    return ast.unparse(divisor) == ast.unparse(step) or same_or_variable(divisor, step)


def rounded_up(count: ast.AST, step: ast.AST, ctx: FileContext, depth: int = 0) -> bool:
    """A number of chunks rounded up: ``math.ceil(len(x) / s)``, ``int(np.ceil(n / s))``, ``(n + s - 1) // s``,
    ``-(-n // s)``, ``n // s + 1``, ``n // s + (n % s > 0)``, with ``n`` a length read from the data (or a name
    bound to one of them). ``n // s`` drops the short tail: not rounded up."""
    if isinstance(count, ast.Name) and depth == 0:
        binding = ctx.resolver.binding(count)
        return binding is not None and binding.tag == VALUE and not binding.path \
            and isinstance(binding.value, ast.AST) and rounded_up(binding.value, step, ctx, depth + 1)
    if isinstance(count, ast.Call) and isinstance(count.func, ast.Name) and count.func.id == "int" and count.args:
        return rounded_up(count.args[0], step, ctx, depth + 1)
    if isinstance(count, ast.Call) and (ctx.resolver.qualname(count.func) or "").rpartition(".")[2] == "ceil" \
            and count.args:
        quotient = count.args[0]
        return isinstance(quotient, ast.BinOp) and isinstance(quotient.op, ast.Div) \
            and data_length(quotient.left, ctx) and _same_step(quotient.right, step)
    if isinstance(count, ast.UnaryOp) and isinstance(count.op, ast.USub):   # ``-(-n // s)``
        inner = count.operand
        return isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.FloorDiv) \
            and isinstance(inner.left, ast.UnaryOp) and isinstance(inner.left.op, ast.USub) \
            and data_length(inner.left.operand, ctx) and _same_step(inner.right, step)
    if not isinstance(count, ast.BinOp):
        return False
    if isinstance(count.op, ast.FloorDiv) and isinstance(count.left, ast.BinOp):   # ``(n + s - 1) // s``
        added = {ast.unparse(n) for n in walk(count.left) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add)
                 for n in (n.left, n.right)}
        return _same_step(count.right, step) and ast.unparse(count.right) in added \
            and any(data_length(n, ctx) for n in walk(count.left) if isinstance(n, (ast.Call, ast.Subscript, ast.Name)))
    if isinstance(count.op, ast.Add) and isinstance(count.left, ast.BinOp) and isinstance(count.left.op, ast.FloorDiv) \
            and data_length(count.left.left, ctx) and _same_step(count.left.right, step):
        extra = count.right     # ``n // s + 1``, ``n // s + (n % s > 0)``, ``+ int(n % s != 0)``
        return (isinstance(extra, ast.Constant) and extra.value == 1) \
            or any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) for n in walk(extra))
    return False
