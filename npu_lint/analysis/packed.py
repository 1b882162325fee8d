"""Packed sequences: what ``pack_padded_sequence`` / ``pack_sequence`` return, and their fields.

A ``PackedSequence`` is a named tuple ``(data, batch_sizes, sorted_indices, unsorted_indices)`` of tensors:
``batch_sizes[t]`` is how many of the batch's sequences are longer than ``t``, so its values (and its length, the
longest sequence) come with the data. A recurrent cell run by hand over one (``x, batch_sizes, _, _ = packed`` then
``for bs in batch_sizes: h = cell(x[start:start + bs], h[:bs])``) cuts its inputs to those values: a new shape
per step and per batch. The model knows a packed sequence where the code shows one: the result of torch's packing
functions or of ``PackedSequence(...)``, a name bound only to those, or a name where ``isinstance(x,
PackedSequence)`` holds (``assert isinstance(seq, PackedSequence)``). Its fields, by unpacking, by position or by
name, are tensors; :func:`batch_sizes_field` says which expression is its ``batch_sizes`` (data, and data-shaped).
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import PARAM, VALUE, Scope

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

PACKED_CLASSES = frozenset({"torch.nn.utils.rnn.PackedSequence"})
PACKERS = PACKED_CLASSES | {"torch.nn.utils.rnn.pack_padded_sequence", "torch.nn.utils.rnn.pack_sequence"}
FIELDS = ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
BATCH_SIZES = 1
_DEPTH = 6


def packed_sequence(resolver: "Resolver", node: ast.AST, scope: Scope, depth: int = 0) -> bool:
    """``node`` is a PackedSequence as far as the code shows."""
    if depth > _DEPTH or resolver.scopes is None or not _mentions_packing(resolver):
        return False
    if isinstance(node, ast.Call):
        return resolver.qualname(node.func, scope) in PACKERS
    if not isinstance(node, ast.Name):
        return False
    if _narrowed_packed(resolver, node, scope) or _tested_by_flag(resolver, node, scope):
        return True
    bindings = resolver.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset))
    return bool(bindings) and all(
        (b.tag == VALUE and not b.path and isinstance(b.value, ast.AST)
         and packed_sequence(resolver, b.value, b.scope, depth + 1))
        or (b.tag == PARAM and isinstance(b.node, ast.arg) and b.node.annotation is not None
            and resolver.qualname(b.node.annotation, b.scope.parent or b.scope) in PACKED_CLASSES)
        for b in bindings)


def _tested_by_flag(resolver: "Resolver", node: ast.Name, scope: Scope) -> bool:
    """``is_packed = isinstance(x, PackedSequence)`` then ``if is_packed:``, ``x`` unbound in between: the body
    sees a packed sequence."""
    function = scope.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    pos = (node.lineno, node.col_offset)
    for statement in walk(function):
        if not isinstance(statement, ast.If) or not isinstance(statement.test, ast.Name) or not statement.body \
                or not (statement.body[0].lineno, 0) <= pos <= (_last_line(statement.body), 10 ** 6):
            continue
        flag = resolver.scopes.may_reach(statement.test.id, scope, (statement.test.lineno, statement.test.col_offset))
        if len(flag) != 1 or flag[0].tag != VALUE or flag[0].path or not isinstance(flag[0].value, ast.Call):
            continue
        test = flag[0].value
        if isinstance(test.func, ast.Name) and test.func.id == "isinstance" and len(test.args) == 2 \
                and isinstance(test.args[0], ast.Name) and test.args[0].id == node.id \
                and resolver.qualname(test.args[1], scope) in PACKED_CLASSES \
                and resolver.scopes.may_reach(node.id, scope, pos) \
                == resolver.scopes.may_reach(node.id, scope, (test.lineno, test.col_offset)):
            return True
    return False


def _last_line(body: list[ast.stmt]) -> int:
    return max(getattr(n, "end_lineno", 0) or getattr(n, "lineno", 0) for n in body)


def _mentions_packing(resolver: "Resolver") -> bool:
    """The module's text names a packed sequence or a packing function (else no name in it holds one). Asked for
    every element the model unpacks: the last text's answer is kept (a search of the whole text each time was 4 %
    of the flake8 plugin's time on timm and mmdet)."""
    source = resolver.source
    if source is None:
        return True
    if source is not _LAST_TEXT[0]:
        _LAST_TEXT[:] = [source, "PackedSequence" in source or "pack_" in source]
    return _LAST_TEXT[1]


_LAST_TEXT: list = [None, True]   # the last module text asked about, and its answer (one text kept alive)


def _narrowed_packed(resolver: "Resolver", node: ast.Name, scope: Scope) -> bool:
    """``isinstance(node, PackedSequence)`` holds where ``node`` stands (an ``assert``, an ``if`` body), with the
    bindings the test saw."""
    current: Optional[Scope] = scope
    while current is not None and node.id not in current.narrowed and current.kind in ("comprehension", "lambda"):
        current = current.parent
    ranges = current.narrowed.get(node.id) if current is not None else None
    if not ranges:
        return False
    pos = (node.lineno, node.col_offset)
    reaching = resolver.scopes.lookup_reaching(node.id, scope, pos)
    for start, end, classinfo, test, holds in ranges:
        if holds and start <= pos <= end and resolver.qualname(classinfo, current) in PACKED_CLASSES \
                and resolver.scopes.lookup_reaching(node.id, scope, test) == reaching:
            return True
    return False


def packed_element(resolver: "Resolver", value: ast.AST, scope: Scope, index: int) -> bool:
    """``data, batch_sizes, ... = value`` binds the field ``index`` of a packed sequence."""
    return 0 <= index < len(FIELDS) and packed_sequence(resolver, value, scope)


def batch_sizes_field(resolver: "Resolver", node: ast.AST, scope: Scope) -> Optional[ast.AST]:
    """The packed sequence whose ``batch_sizes`` ``node`` is: ``packed.batch_sizes``, ``packed[1]``, or a name bound
    by ``x, batch_sizes, *_ = packed`` (None: no such field)."""
    if resolver.scopes is None:
        return None
    if isinstance(node, ast.Attribute) and node.attr == FIELDS[BATCH_SIZES]:
        return node.value if packed_sequence(resolver, node.value, scope) else None
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == BATCH_SIZES:
        return node.value if packed_sequence(resolver, node.value, scope) else None
    if isinstance(node, ast.Name):
        bindings = [b for b in resolver.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset))   # not
                    if not (isinstance(b.value, ast.Constant) and b.value.value is None)]   # ``batch_sizes = None``
        if len(bindings) != 1 or bindings[0].tag != VALUE or not isinstance(bindings[0].value, ast.AST):
            return None
        binding = bindings[0]
        if binding.path == (BATCH_SIZES,):
            return binding.value if packed_sequence(resolver, binding.value, binding.scope) else None
        if not binding.path and isinstance(binding.value, (ast.Attribute, ast.Subscript)):
            return batch_sizes_field(resolver, binding.value, binding.scope)
    return None
