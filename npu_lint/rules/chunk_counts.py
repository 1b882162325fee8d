"""Chunk ``i`` of a count (NPU407, short_chunks.py): ``x[i * s:(i + 1) * s]`` under ``for i in range(count)``, and
whether the count is rounded up (``math.ceil(len(x) / s)``), which makes the last chunk shorter. Nothing here is a
rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import VALUE
from npu_lint.context import FileContext
from npu_lint.rules.chunk_steps import data_length, same_or_variable


def bound_element(name: ast.Name, ctx: FileContext) -> Optional[ast.AST]:
    """The expression one assignment binds ``name`` to where it stands: ``start = i * bs``, or its element of a
    tuple assigned whole, ``start, end = i * bs, min(n, (i + 1) * bs)``; None otherwise (a parameter, a loop
    target, ``a, b = f()``)."""
    binding = ctx.resolver.binding(name)
    if binding is None or binding.tag != VALUE or not isinstance(binding.value, ast.AST):
        return None
    if not binding.path:
        return binding.value
    value = binding.value
    for position in binding.path:
        if not isinstance(value, (ast.Tuple, ast.List)) or not isinstance(position, int) \
                or position >= len(value.elts) or any(isinstance(e, ast.Starred) for e in value.elts):
            return None
        value = value.elts[position]
    return value


def scaled(lower: ast.AST) -> list[tuple[str, ast.AST]]:
    """``i * s`` / ``s * i``: the (index, step) pairs a chunk start may be."""
    if not isinstance(lower, ast.BinOp) or not isinstance(lower.op, ast.Mult):
        return []
    pairs = [(lower.left.id, lower.right)] if isinstance(lower.left, ast.Name) else []
    return pairs + ([(lower.right.id, lower.left)] if isinstance(lower.right, ast.Name) else [])


def min_args(node: ast.AST) -> Optional[list[ast.AST]]:
    """The two values ``node`` takes the smaller of: ``min(a, n)``, or the same written as a choice, ``a if a < n
    else n`` (``<=``; ``n if a > n else a``, ``>=``: dgl-ke's ``(i + 1) * bs if (i + 1) * bs < n else n``); None
    otherwise."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "min" \
            and len(node.args) == 2 and not node.keywords:
        return list(node.args)
    if not (isinstance(node, ast.IfExp) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1):
        return None
    left, right, op = node.test.left, node.test.comparators[0], node.test.ops[0]
    if isinstance(op, (ast.Gt, ast.GtE)):
        left, right = right, left
    elif not isinstance(op, (ast.Lt, ast.LtE)):
        return None
    same = ast.unparse
    return [left, right] if same(node.body) == same(left) and same(node.orelse) == same(right) else None


def scaled_end(upper: ast.AST, index: str, step: ast.AST, ctx: FileContext, depth: int = 0) -> bool:
    """``(i + 1) * s``, ``s * (i + 1)``, ``i * s + s``, ``min(<one of them>, n)`` or a name bound to one of them:
    the end of chunk ``i`` of length ``s``."""
    s = ast.unparse(step)
    smaller = min_args(upper)
    if smaller is not None and depth < 2:
        return any(scaled_end(arg, index, step, ctx, depth + 1) for arg in smaller)
    if isinstance(upper, ast.Name) and depth == 0:
        value = bound_element(upper, ctx)
        return value is not None and scaled_end(value, index, step, ctx, depth + 1)
    return ast.unparse(upper) in {f"({index} + 1) * {s}", f"{s} * ({index} + 1)", f"{index} * {s} + {s}",
                                  f"{s} * {index} + {s}", f"{s} + {index} * {s}", f"{s} + {s} * {index}"}


def _same_step(divisor: ast.AST, step: ast.AST) -> bool:
    return ast.unparse(divisor) == ast.unparse(step) or same_or_variable(divisor, step)


def clip_bound(upper: ast.AST, index: str, step: ast.AST, ctx: FileContext, relative: bool = False) -> Optional[str]:
    """The bound a chunk's end is clipped to, ``n`` of ``min((i + 1) * s, n)`` (or of a name bound to it; with
    ``relative``, of ``min(start + s, n)``, ``index`` naming the start), as source; None when the end is not
    clipped or is clipped to a constant."""
    if isinstance(upper, ast.Name):
        upper = bound_element(upper, ctx) or upper
    smaller = min_args(upper)
    if smaller is None:
        return None
    for end, bound in (smaller, smaller[::-1]):
        ends = ast.unparse(end) in (f"{index} + {ast.unparse(step)}", f"{ast.unparse(step)} + {index}") if relative \
            else scaled_end(end, index, step, ctx, 1)
        if ends and not isinstance(bound, ast.Constant):
            return ast.unparse(bound)
    return None


def _counted_length(node: ast.AST, ctx: FileContext, bound: Optional[str]) -> bool:
    """``n`` of a chunk count: a length read from the data, or the very bound the chunk's end is clipped to
    (``min((i + 1) * bs, n_prompts)`` beside ``ceil(float(n_prompts) / bs)``: the code expects the short tail of a
    count a caller sets); ``float(n)`` / ``int(n)`` seen through."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("float", "int") \
            and len(node.args) == 1:
        node = node.args[0]
    return data_length(node, ctx) or (bound is not None and ast.unparse(node) == bound)


def rounded_up(count: ast.AST, step: ast.AST, ctx: FileContext, depth: int = 0, bound: Optional[str] = None) -> bool:
    """A number of chunks rounded up: ``math.ceil(len(x) / s)``, ``int(np.ceil(n / s))``, ``(n + s - 1) // s``
    (``(n + (s - 1)) // s``),
    ``-(-n // s)``, ``n // s + 1``, ``(n - 1) // s + 1``, ``n // s + (n % s > 0)``, with ``n`` a length read from the data (or a name
    bound to one of them), or ``bound``, the value the chunk's end is clipped to. ``n // s`` drops the short tail:
    not rounded up."""
    if isinstance(count, ast.Name) and depth == 0:
        binding = ctx.resolver.binding(count)
        return binding is not None and binding.tag == VALUE and not binding.path \
            and isinstance(binding.value, ast.AST) and rounded_up(binding.value, step, ctx, depth + 1, bound)
    if isinstance(count, ast.Call) and isinstance(count.func, ast.Name) and count.func.id == "int" and count.args:
        return rounded_up(count.args[0], step, ctx, depth + 1, bound)
    if isinstance(count, ast.Call) and (ctx.resolver.qualname(count.func) or "").rpartition(".")[2] == "ceil" \
            and count.args:
        quotient = count.args[0]
        return isinstance(quotient, ast.BinOp) and isinstance(quotient.op, ast.Div) \
            and _counted_length(quotient.left, ctx, bound) and _same_step(quotient.right, step)
    if isinstance(count, ast.UnaryOp) and isinstance(count.op, ast.USub):   # ``-(-n // s)``
        inner = count.operand
        return isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.FloorDiv) \
            and isinstance(inner.left, ast.UnaryOp) and isinstance(inner.left.op, ast.USub) \
            and _counted_length(inner.left.operand, ctx, bound) and _same_step(inner.right, step)
    if not isinstance(count, ast.BinOp):
        return False
    if isinstance(count.op, ast.FloorDiv) and isinstance(count.left, ast.BinOp):   # ``(n + s - 1) // s``
        added = {ast.unparse(n) for n in walk(count.left) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add)
                 for n in (n.left, n.right)}
        minus_one = {ast.unparse(n.left) for n in walk(count.left) if isinstance(n, ast.BinOp)
                     and isinstance(n.op, ast.Sub) and isinstance(n.right, ast.Constant) and n.right.value == 1}
        return _same_step(count.right, step) and ast.unparse(count.right) in added | minus_one \
            and any(_counted_length(n, ctx, bound) for n in walk(count.left) if isinstance(n, (ast.Call, ast.Subscript, ast.Name)))
    if isinstance(count.op, ast.Add) and isinstance(count.left, ast.BinOp) and isinstance(count.left.op, ast.FloorDiv) \
            and _less_one(count.left.left, ctx, bound) and _same_step(count.left.right, step) \
            and isinstance(count.right, ast.Constant) and count.right.value == 1:   # ``(n - 1) // s + 1``
        return True
    if isinstance(count.op, ast.Add) and isinstance(count.left, ast.BinOp) and isinstance(count.left.op, ast.FloorDiv) \
            and _counted_length(count.left.left, ctx, bound) and _same_step(count.left.right, step):
        extra = count.right     # ``n // s + 1``, ``n // s + (n % s > 0)``, ``+ int(n % s != 0)``
        return (isinstance(extra, ast.Constant) and extra.value == 1) \
            or any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) for n in walk(extra))
    return False


def _less_one(node: ast.AST, ctx: FileContext, bound: Optional[str]) -> bool:
    """``n - 1`` with ``n`` a counted length."""
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and isinstance(node.right, ast.Constant) \
        and node.right.value == 1 and _counted_length(node.left, ctx, bound)


# Calls that make a tensor of a list of items: the batch the items are collected for.
_TENSOR_MAKERS = frozenset({"torch.tensor", "torch.as_tensor", "torch.stack", "torch.cat", "torch.from_numpy",
                            "torch.LongTensor", "torch.FloatTensor", "torch.Tensor"})


def filled_chunk(node: ast.If, ctx: FileContext) -> Optional[ast.Call]:
    """``for idx in range((len(pairs) + bs - 1) // bs): for i in range(bs): index = idx * bs + i; if index >=
    len(pairs): break; x.append(pairs[index])``, then ``torch.tensor(x)``: chunk ``idx`` of a count rounded up,
    filled item by item and cut at the end of the data, so the last batch is shorter. ``node`` is the ``if``
    that stops the filling; the call that makes the batch a tensor after the inner loop, else None."""
    test = node.test
    if node.orelse or len(node.body) != 1 or not isinstance(node.body[0], ast.Break) \
            or not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.GtE) \
            or not data_length(test.comparators[0], ctx):
        return None
    inner = ctx.parent(node)
    if not isinstance(inner, ast.For) or node not in inner.body or not isinstance(inner.target, ast.Name) \
            or not _counts_to(inner.iter):
        return None
    step = inner.iter.args[-1]   # type: ignore[attr-defined]
    outer = ctx.parent(inner)
    if not isinstance(outer, ast.For) or inner not in outer.body or not isinstance(outer.target, ast.Name) \
            or not _counts_to(outer.iter) or not rounded_up(outer.iter.args[-1], step, ctx):   # type: ignore
        return None
    position = test.left
    if isinstance(position, ast.Name):
        bound = [s.value for s in inner.body if isinstance(s, ast.Assign) and len(s.targets) == 1
                 and isinstance(s.targets[0], ast.Name) and s.targets[0].id == position.id]
        position = bound[0] if len(bound) == 1 else position
    if not _item_position(position, outer.target.id, inner.target.id, step):
        return None
    filled = {call.func.value.id for call in walk(inner) if isinstance(call, ast.Call)   # type: ignore[attr-defined]
              and isinstance(call.func, ast.Attribute) and call.func.attr == "append"
              and isinstance(call.func.value, ast.Name)}
    for statement in outer.body[outer.body.index(inner) + 1:]:
        for call in walk(statement):
            if isinstance(call, ast.Call) and ctx.resolver.qualname(call.func) in _TENSOR_MAKERS \
                    and any(isinstance(n, ast.Name) and n.id in filled for a in call.args for n in walk(a)):
                return call
    return None


def _counts_to(iterable: ast.AST) -> bool:
    """``range(n)`` / ``range(0, n)``."""
    return isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range" \
        and not iterable.keywords and (len(iterable.args) == 1 or (
            len(iterable.args) == 2 and isinstance(iterable.args[0], ast.Constant) and iterable.args[0].value == 0))


def _item_position(position: ast.AST, chunk: str, item: str, step: ast.AST) -> bool:
    """``idx * bs + i`` (either order): item ``i`` of chunk ``idx`` of size ``bs``."""
    if not isinstance(position, ast.BinOp) or not isinstance(position.op, ast.Add):
        return False
    for start, offset in ((position.left, position.right), (position.right, position.left)):
        if isinstance(offset, ast.Name) and offset.id == item \
                and any(index == chunk and ast.unparse(size) == ast.unparse(step) for index, size in scaled(start)):
            return True
    return False
