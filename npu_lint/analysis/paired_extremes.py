"""The longest of a few named tensors of the batch (session 21, padllm21): ``max(chosen_ids.shape[1],
reject_ids.shape[1])`` or ``max(a.size(1), b.size(-1), c.shape[1])`` -- a DPO / reward trainer padding its chosen and
rejected sequences to the longer of the two before concatenating them. The burden is inverted: the pair is a batch
maximum unless the analysis proves one of the sizes fixed (a size of ``self.x``, the module's own state, or of a
tensor made from constants). For the ``batch_max`` flow (:func:`npu_lint.analysis.batch_extremes.batch_extreme`);
nothing here is a rule."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.configuration import from_constants
from npu_lint.analysis.scopes import Scope

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver


def _sized(node: ast.AST) -> Optional[ast.AST]:
    """The tensor whose size along one axis ``node`` reads: ``x.shape[1]``, ``x.size(1)``, ``x.size()[1]``."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, (ast.Constant, ast.UnaryOp)):
        inner = node.value
        if isinstance(inner, ast.Attribute) and inner.attr == "shape":
            return inner.value
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr == "size" \
                and not inner.args:
            return inner.func.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" \
            and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], (ast.Constant, ast.UnaryOp)):
        return node.func.value
    return None


def _root(node: ast.AST) -> ast.AST:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def sizes_maximum(resolver: "Resolver", node: ast.Call, scope: Scope) -> bool:
    """``max(a.shape[1], b.shape[1])`` (the builtin, two or more arguments): each argument the size of a different
    tensor along an axis, none proven fixed (``self.x``'s size, a tensor made from constants, one not a tensor)."""
    if not (isinstance(node.func, ast.Name) and node.func.id == "max" and len(node.args) >= 2 and not node.keywords
            and resolver.binding(node.func, scope) is None):
        return False
    seen: set[str] = set()
    for arg in node.args:
        tensor = _sized(arg)
        if tensor is None:
            return False
        root = _root(tensor)
        if not isinstance(root, ast.Name) or root.id in ("self", "cls") or from_constants(tensor, resolver, scope):
            return False     # the module's own state, a constant: fixed
        kind = resolver.kind_of_at(tensor, scope)
        if kind is not None and kind not in K.TENSORS:
            return False     # a module, a host array, a Python value: not a batch's tensor
        seen.add(ast.unparse(tensor))
    return len(seen) >= 2
