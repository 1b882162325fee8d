"""Tensors the code computes from other tensors (``num_repeats = torch.ceil(cutoff * inv_lengths).long()``,
``counts = torch.bincount(idx)``, ``ends = starts + lengths``): their elements are values of the data, not a shape
kept in a tensor. One picked by a constant (``num_repeats[0]``, ``ends[-1]``) and used as a size is read back from
the device: :mod:`npu_lint.analysis.flows` asks :func:`computed_tensor` before taking ``t[0]`` for such a value
(an element of a tensor the code only received or made from configuration, ``batch["prefix_len"][0]``,
``torch.tensor(cfg.sizes)[0]``, stays left alone). Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from npu_lint.analysis import kinds as K
from npu_lint.analysis.configuration import from_constants
from npu_lint.analysis.scopes import VALUE, Scope

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

# Operators whose result is computed from their tensor operands' values (arithmetic, rounding, reductions over an
# axis, counts, selections by value).
COMPUTING = frozenset({
    "ceil", "floor", "round", "trunc", "where", "clamp", "clip", "sum", "cumsum", "cumprod", "diff", "bincount",
    "count_nonzero", "amax", "amin", "norm", "abs", "sqrt", "div", "true_divide", "floor_divide", "mul", "add", "sub",
    "remainder", "fmod", "maximum", "minimum", "prod", "argmax", "argmin", "searchsorted", "bucketize", "histc"})
# Casts and reshapes: the values are the receiver's.
KEEPING = frozenset({"long", "int", "to", "squeeze", "flatten", "view", "reshape", "detach", "clone", "contiguous",
                     "float", "double", "type_as"})
_DEPTH = 6


def computed_tensor(resolver: "Resolver", node: ast.AST, scope: Scope, depth: int = 0) -> bool:
    """``node`` is a tensor the code computed from another tensor's values by an operator of :data:`COMPUTING`
    (through casts, names bound once and arithmetic), none of it configuration."""
    if depth > _DEPTH or resolver.kind_of_at(node, scope) not in K.TENSORS or from_constants(node, resolver, scope):
        return False
    if isinstance(node, ast.Name):
        if resolver.scopes is None:
            return False
        bindings = resolver.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset))
        return bool(bindings) and all(
            b.tag == VALUE and not b.path and isinstance(b.value, ast.AST)
            and computed_tensor(resolver, b.value, b.scope, depth + 1) for b in bindings)
    if isinstance(node, ast.BinOp):
        return any(resolver.kind_of_at(o, scope) in K.TENSORS and not from_constants(o, resolver, scope)
                   for o in (node.left, node.right))
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    method = node.func.attr
    name = resolver.qualname(node.func, scope)
    if name is not None:   # ``torch.ceil(x)``, ``torch.where(c, a, b)``
        return name.startswith("torch.") and method in COMPUTING and any(
            resolver.kind_of_at(a, scope) in K.TENSORS and not from_constants(a, resolver, scope) for a in node.args)
    receiver = node.func.value
    if method in KEEPING:
        return computed_tensor(resolver, receiver, scope, depth + 1)
    return method in COMPUTING and resolver.kind_of_at(receiver, scope) in K.TENSORS
