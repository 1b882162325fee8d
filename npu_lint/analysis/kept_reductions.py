"""A full reduction of a parameter (or a batch's field) kept whole in a name, for the flows of :mod:`npu_lint.analysis.flows`:
``max_len = ilens.max()`` / ``n = mask.sum()`` where ``ilens`` is a parameter of unknown kind. Only a tensor
(or an array) has ``.max()`` without arguments, and what a function is given per call is data: the name then
holds a 0-d tensor, and a size taken from it (``x[:, :max_len]``, ``torch.arange(max_len)``) reads it back.
``max`` and ``sum`` are numpy's too: the function must also use the parameter as only a tensor can be used
(``lengths.unsqueeze(1)``, ``lengths.device``, ``lengths.new(...)``). A parameter whose
kind the model knows answers for itself (a host array, a list: no read). Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from npu_lint.analysis.nodes import walk
from npu_lint.analysis.configuration import from_constants
from npu_lint.analysis.scopes import LOOP, PARAM, VALUE, Scope

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_KEPT = frozenset({"max", "min", "sum", "amax", "amin", "count_nonzero"})
_LARGEST = frozenset({"max", "amax"})
# What a tensor has and a numpy array has not (not ``size`` / ``dim``: numpy's ``size`` is an attribute too).
_TENSOR_ONLY = frozenset({"unsqueeze", "device", "to", "cuda", "cpu", "new", "new_zeros", "new_ones", "new_full",
                          "new_empty", "new_tensor", "long", "int", "bool", "masked_fill", "expand", "expand_as",
                          "type_as", "detach", "numel", "is_cuda", "eq", "ne", "lt", "le", "gt", "ge"})


def kept_reduction(resolver: "Resolver", value: ast.AST, scope: Scope) -> bool:
    """``value`` is ``p.max()`` (``.sum()``, ``.min()`` ...) of a name ``p`` of unknown kind, not configuration:
    a parameter, a loop's target (a batch's lengths) or a value (``lengths = lengths.to(device)``)."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _KEPT
            and not value.args and not value.keywords and isinstance(value.func.value, ast.Name)):
        return False
    receiver = value.func.value
    binding = resolver.binding(receiver, scope)
    if binding is None or binding.tag not in (PARAM, LOOP, VALUE) or resolver.kind_of_at(receiver, scope) is not None \
            or from_constants(receiver, resolver, scope):
        return False
    made = binding.value if binding.tag == VALUE else None   # ``lengths = batch["lengths"].to(device)``
    moved = False
    while isinstance(made, ast.Call) and isinstance(made.func, ast.Attribute) and made.func.attr in _TENSOR_ONLY:
        made, moved = made.func.value, True
    if made is not None and from_constants(made, resolver, binding.scope):
        return False   # ``strides = self.strides.to(x.device)``: the model's own state, the same every batch
    # session 22: ``m = lengths.max()`` with no dimension: a list has no ``max`` method, so the receiver is a tensor
    # or an array of values, and the largest of them, kept in a name, is a value of the data wherever it sizes
    return moved or value.func.attr in _LARGEST or _used_as_tensor(binding.scope.node, receiver.id)


def _used_as_tensor(function: ast.AST, name: str) -> bool:
    """``name.unsqueeze(1)``, ``name.device``, ``name.new(...)`` ... somewhere in ``function``."""
    for node in walk(function):
        if isinstance(node, ast.Attribute) and node.attr in _TENSOR_ONLY and isinstance(node.value, ast.Name) \
                and node.value.id == name:
            return True
    return False
