"""Tensors torch computes from shape numbers alone (``torch.div(h, 2, rounding_mode="floor")`` of ``_, _, h, w =
filt.shape``, ``torch.div(x.shape[0], 2)``): reading one back gives a number the host already knew, no value of the
data. Code written for TorchScript does its shape arithmetic this way (``int(torch.div(h, 2))``). The evidence must
be positive: each argument a constant, a shape's number (``x.shape[i]``, ``x.size(i)``, ``len(x)``, an element
unpacked from ``x.shape``), arithmetic of those, or a name every binding of which is one; an argument of unknown
origin may be a tensor of the data."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from npu_lint.analysis.scopes import VALUE, Scope

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_DEPTH = 3


def host_made(resolver: "Resolver", node: ast.AST, scope: Scope) -> bool:
    """``node`` calls a torch function (not a tensor's method) with at least one argument, and every argument is a
    shape number (:func:`shape_number`). torch's draws (``torch.randint(1, 5, ())``) pass too: the caller excludes
    them (``flows.TORCH_DRAWS``)."""
    if not isinstance(node, ast.Call) or not node.args:
        return False
    name = resolver.qualname(node.func, scope) or ""
    if not name.startswith("torch.") or name.startswith("torch.Tensor."):
        return False
    return all(shape_number(resolver, a, scope) for a in node.args) and all(
        isinstance(k.value, ast.Constant) and k.arg is not None for k in node.keywords)


def shape_number(resolver: "Resolver", node: ast.AST, scope: Scope, depth: int = 0) -> bool:
    """A constant number, ``x.shape[i]`` / ``x.size(i)`` / ``len(x)``, arithmetic of such, or a name every binding of
    which (of this scope) is one or an element unpacked from ``x.shape`` / ``x.size()``."""
    if depth > _DEPTH:
        return False
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.BinOp):
        return shape_number(resolver, node.left, scope, depth + 1) and shape_number(resolver, node.right, scope, depth + 1)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return shape_number(resolver, node.operand, scope, depth + 1)
    if isinstance(node, ast.Subscript):
        return _shape(node.value)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "size" and len(node.args) == 1 and not node.keywords:
            return True
        return isinstance(func, ast.Name) and func.id == "len" and len(node.args) == 1 \
            and resolver.binding(func, scope) is None
    if not isinstance(node, ast.Name) or resolver.scopes is None:
        return False
    bindings = resolver.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset))
    return bool(bindings) and all(
        b.tag == VALUE and b.scope is scope and isinstance(b.value, ast.AST)
        and ((b.path and _shape(b.value)) or (not b.path and shape_number(resolver, b.value, b.scope, depth + 1)))
        for b in bindings)


def _shape(node: ast.AST) -> bool:
    """``x.shape`` or ``x.size()``: a tensor's sizes."""
    return (isinstance(node, ast.Attribute) and node.attr == "shape") or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size"
        and not node.args and not node.keywords)
