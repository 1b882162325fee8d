"""Tensors whose shape depends on the data: the results of ``unique()``, ``nonzero()``, ``masked_select``,
one-argument ``torch.where`` and boolean-mask selections (``x[mask]``), through the names bound to them and the
calls that keep their first axis (``.squeeze(1)``, ``.view(-1)``, ``.long()``, ``[:, 0]``) and prefix slices
(``keep[:max_det]``: as many rows as the op kept, up to the bound).

Their metadata (``len(u)``, ``u.size(0)``, ``u.shape[0]``, ``u.numel()``) is a data value: the count of unique
labels or of selected elements is known only once the op has run. :meth:`npu_lint.analysis.flows.Flows.flows`
asks :func:`data_shaped` when it meets such a read. Nothing here is a rule.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.packed import batch_sizes_field
from npu_lint.analysis.scopes import VALUE, Scope

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_METHODS = frozenset({"nonzero", "unique", "unique_consecutive", "masked_select", "argwhere"})
_FUNCTIONS = frozenset({"torch.nonzero", "torch.unique", "torch.unique_consecutive", "torch.masked_select",
                        "torch.argwhere", "torchvision.ops.nms", "torchvision.ops.batched_nms",
                        "torchvision.ops.boxes.nms", "torchvision.ops.boxes.batched_nms"})
# Methods that keep the first axis of their receiver (placement, dtype, squeezing the trailing axis).
_KEEPING = frozenset({"squeeze", "flatten", "float", "long", "int", "bool", "half", "to", "cpu", "detach", "clone",
                      "contiguous", "cuda", "npu", "type_as", "sort", "flip"})
_SHAPING = frozenset({"view", "reshape"})
_DEPTH = 8
# Calls whose result no longer has the shape of what they are given: Python numbers, reductions, metadata.
SCALAR_BUILTINS = frozenset({"len", "int", "float", "bool", "str", "round", "print"})
SHAPE_FREE = frozenset({"numel", "size", "dim", "item", "tolist", "sum", "mean", "any", "all", "__len__"})


def selects_by_mask(resolver: "Resolver", node: ast.Subscript, scope: Optional[Scope]) -> bool:
    """``scores[valid]``: an index the model knows is a mask, on a value that is not evidently a host array or a
    list (asked of the file's helpers by the rules and of every function by the project index)."""
    elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if not any(not isinstance(e, (ast.Slice, ast.Constant)) and (resolver.value_of(e, scope) or ("",))[0] == K.MASK
               for e in elements):
        return False
    value = resolver.value_of(node.value, scope)
    return value is None or value[0] not in (K.HOST, K.LIST)


def data_shaped(resolver: "Resolver", node: ast.AST, scope: Scope, depth: int = 0) -> Optional[ast.AST]:
    """The data-dependent op (a call or a mask selection) whose result ``node`` is, or keeps the first axis of;
    None when ``node`` is no such result (or the model cannot tell)."""
    if depth > _DEPTH or node is None or resolver.scopes is None:
        return None
    kind = type(node)
    if kind in (ast.Name, ast.Attribute) and (packed := batch_sizes_field(resolver, node, scope)) is not None:
        return packed   # a PackedSequence's ``batch_sizes``: as long as the longest sequence, its values the counts
    if kind is ast.Name:
        for binding in resolver.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset)):
            if binding.tag != VALUE or not isinstance(binding.value, ast.AST):
                continue
            if binding.path:
                found = _element(resolver, binding.value, binding.scope, binding.path[0], depth + 1)
            else:
                found = data_shaped(resolver, binding.value, binding.scope, depth + 1)
            if found is not None:
                return found
        return None
    if kind is ast.Call:
        func = node.func
        name = resolver.qualname(func, scope)
        if name in _FUNCTIONS:
            return node if _tensor_result(node) else None
        if isinstance(func, ast.Attribute) and name is None:
            if func.attr in _METHODS:
                return node if tensor_receiver(resolver, func.value, scope) and _tensor_result(node) else None
            if func.attr in _KEEPING or (func.attr in _SHAPING and _flattened(node)):
                return data_shaped(resolver, func.value, scope, depth + 1)
        return None
    if kind is ast.Subscript:
        index = node.slice
        if isinstance(index, ast.Tuple) and index.elts and isinstance(index.elts[0], ast.Slice) \
                and index.elts[0].lower is None and index.elts[0].upper is None:
            return data_shaped(resolver, node.value, scope, depth + 1)      # ``idx[:, 0]``: the same rows
        if isinstance(index, ast.Slice) and index.step is None:
            return data_shaped(resolver, node.value, scope, depth + 1)      # ``keep[:max_det]``: min(count, k) rows
        if isinstance(index, ast.Constant) and isinstance(index.value, int) and isinstance(node.value, ast.Call):
            return _element(resolver, node.value, scope, index.value, depth + 1)   # ``torch.where(m)[0]``
        if isinstance(index, (ast.Compare, ast.Name, ast.UnaryOp, ast.BinOp, ast.Call, ast.Attribute)) \
                and resolver.kind_of_at(index, scope) == K.MASK \
                and resolver.kind_of_at(node.value, scope) in (*K.TENSORS, None) and not resolver.is_host(node.value):
            return node                                                      # ``x[mask]``
        return None
    return None


def _element(resolver: "Resolver", value: ast.AST, scope: Scope, index: int, depth: int) -> Optional[ast.AST]:
    """An element of the tuple some data-dependent ops return: ``rows, cols = torch.where(mask)``,
    ``labels, counts = t.unique(return_counts=True)`` (not the inverse indices: they have the input's shape)."""
    if not isinstance(value, ast.Call):
        return None
    func = value.func
    name = resolver.qualname(func, scope) or ""
    last = func.attr if isinstance(func, ast.Attribute) else name.rsplit(".", 1)[-1]
    keywords = {kw.arg: kw.value for kw in value.keywords}
    if last == "where" and name in ("torch.where", "") and len(value.args) == 1 and not value.keywords:
        return value
    if last in ("nonzero", "argwhere") and _constant(keywords.get("as_tuple")) is True:
        return value if data_shaped_call(resolver, value, scope) else None
    if last in ("unique", "unique_consecutive"):
        inverse = _constant(keywords.get("return_inverse")) is True
        counts = _constant(keywords.get("return_counts")) is True
        if index == 0 or (counts and index == 1 + inverse):
            return value if data_shaped_call(resolver, value, scope) else None
    return None


def data_shaped_call(resolver: "Resolver", call: ast.Call, scope: Scope) -> bool:
    name = resolver.qualname(call.func, scope)
    if name in _FUNCTIONS:
        return True
    return name is None and isinstance(call.func, ast.Attribute) and call.func.attr in _METHODS \
        and tensor_receiver(resolver, call.func.value, scope)


def tensor_receiver(resolver: "Resolver", receiver: ast.AST, scope: Scope) -> bool:
    """A tensor, or a value of unknown kind in a file that imports no data-frame library and no column picked by
    name (``df["label"].unique()``): numpy arrays and Python's types have no ``unique`` method (numpy's
    ``nonzero`` method gives a tuple: a known numpy array is left out by its kind)."""
    kind = resolver.kind_of_at(receiver, scope)
    if kind in K.TENSORS:
        return True
    if kind is not None or resolver.is_host(receiver) or resolver.has_frames():
        return False
    return not any(isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant)
                   and isinstance(n.slice.value, str) for n in walk(receiver))


def _tensor_result(call: ast.Call) -> bool:
    """One tensor (not the tuple that ``as_tuple=True`` / ``return_counts=True`` give)."""
    return not any(kw.arg in ("as_tuple", "return_inverse", "return_counts") and _constant(kw.value) is True
                   for kw in call.keywords)


def _flattened(call: ast.Call) -> bool:
    """``view(-1)`` / ``reshape(-1)``: one axis holding every element."""
    return len(call.args) == 1 and isinstance(call.args[0], ast.UnaryOp) \
        and isinstance(call.args[0].operand, ast.Constant) and call.args[0].operand.value == 1


def _constant(node: Optional[ast.AST]) -> object:
    return node.value if isinstance(node, ast.Constant) else None
