"""Sizes derived from a chunk's length (NPU407, short_chunks.py): the host numbers a loop computes from the length
of its current chunk by arithmetic. Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk

# Calls that keep a host number a number: rounding and conversions.
_NUMERIC = frozenset({"int", "round", "float", "ceil", "floor", "min", "max", "abs"})


def _arithmetic(node: ast.AST) -> bool:
    """An expression of names, constants, attributes and arithmetic (``int(math.ceil(n / sr * fr))``)."""
    if isinstance(node, (ast.Name, ast.Constant, ast.Attribute)):
        return True
    if isinstance(node, ast.BinOp):
        return _arithmetic(node.left) and _arithmetic(node.right)
    if isinstance(node, ast.UnaryOp):
        return _arithmetic(node.operand)
    if isinstance(node, ast.Call) and not node.keywords:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        return name in _NUMERIC and all(_arithmetic(a) for a in node.args)
    return False


def scalar_derived(body: list, name: str) -> set[str]:
    """``name`` and the names the statements of ``body`` bind to arithmetic on it (``frame_length =
    int(math.ceil(this_segment_length / sample_rate * frame_rate))``), in two passes: the numbers a chunk's
    length becomes in the loop (a tensor sized by one is sized by the chunk)."""
    names = {name}
    for _ in range(2):
        for statement in body:
            for child in walk(statement):
                if isinstance(child, ast.Assign) and len(child.targets) == 1 \
                        and isinstance(child.targets[0], ast.Name) and _arithmetic(child.value) \
                        and any(isinstance(n, ast.Name) and n.id in names for n in walk(child.value)):
                    names.add(child.targets[0].id)
    return names


def _measures(node: ast.AST, names: set[str]) -> bool:
    """``len(x)``, ``x.shape[-1]``, ``x.size(-1)`` of one of ``names``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and node.args:
        return isinstance(node.args[0], ast.Name) and node.args[0].id in names
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size":
        return isinstance(node.func.value, ast.Name) and node.func.value.id in names
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        return isinstance(node.value.value, ast.Name) and node.value.value.id in names
    return False


def padded_back(loop: ast.AST, names: set[str], step: ast.AST) -> bool:
    """The loop pads the chunk it bound to ``names`` back to the step's length: a call given ``step -
    x.shape[-1]`` (``x = x.zero_pad(0, max(0, n - x.shape[-1]))``, ``F.pad(x, (0, n - len(x)))``), so every
    chunk the loop goes on with is whole."""
    if not names:
        return False
    wanted = ast.dump(step)
    for node in walk(loop):
        if isinstance(node, ast.Call):
            for arg in (*node.args, *(k.value for k in node.keywords)):
                for child in walk(arg):
                    if isinstance(child, ast.BinOp) and isinstance(child.op, ast.Sub) \
                            and ast.dump(child.left) == wanted and _measures(child.right, names):
                        return True
    return False


_ROUNDING = frozenset({"round", "int", "floor", "ceil"})


def _part_bound(node: ast.AST) -> Optional[tuple[str, str, str]]:
    """``round(i * n / k)`` (``int``, ``math.floor`` / ``ceil`` too) or ``i * n // k``: the position as the text of
    its index, length and count; None otherwise."""
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        inner = node.args[0]
        if name not in _ROUNDING or not (isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Div)):
            return None
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv):
        inner = node
    else:
        return None
    product = inner.left
    if not (isinstance(product, ast.BinOp) and isinstance(product.op, ast.Mult)):
        return None
    return ast.unparse(product.left), ast.unparse(product.right), ast.unparse(inner.right)


def fraction_parts(node: ast.Subscript) -> Optional[tuple[str, str]]:
    """``x[round(i * n / k):round((i + 1) * n / k)]``: part ``i`` of ``k`` near-equal parts of a length ``n`` (a
    rounded fraction of it, or ``i * n // k``), one longer than another unless ``k`` divides ``n`` (as
    ``np.array_split``). The index and the count's text; None otherwise."""
    bounds = node.slice
    if isinstance(bounds, ast.Tuple):
        bounds = next((b for b in bounds.elts if isinstance(b, ast.Slice)), None)
    if not isinstance(bounds, ast.Slice) or bounds.lower is None or bounds.upper is None:
        return None
    lower, upper = _part_bound(bounds.lower), _part_bound(bounds.upper)
    if lower is None or upper is None or lower[1:] != upper[1:] or lower[1] == lower[2]:
        return None
    index = lower[0]
    if upper[0].replace(" ", "").strip("()") not in (f"{index}+1", f"1+{index}"):
        return None
    return index, lower[2]
