"""Counters the data drives: ``count += 1`` under an ``if`` that tests a tensor's value (``if keep[i]:``), or in a
``while`` loop that runs on a tensor's value (``while x.sum() > t:``) or until a tensor it shrinks by a
data-dependent selection is empty (a soft NMS: ``while scores.numel() > 0: ... count += 1 ... scores =
scores[keep]``). The count is then a value of the data, known only after the syncs its tests make:
``idxs_out[:count]`` is a new shape per count. :mod:`npu_lint.analysis.flows` asks :func:`counting_test` for an
``n += v`` binding that carries no read itself. A counter of a ``for`` loop's items alone counts a length (a shape,
or a Python list's), not data, and is left alone. Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.data_shapes import data_shaped
from npu_lint.analysis.index_forms import counts, first_axis_of_shape
from npu_lint.analysis.nodes import children
from npu_lint.analysis.summaries import memo

if TYPE_CHECKING:
    from npu_lint.analysis.scopes import Binding, Scope
    from npu_lint.resolver import Resolver

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_HOST_READS = ("host", "zero_d", "element")


def counting_test(resolver: "Resolver", binding: "Binding") -> Optional[ast.AST]:
    """The test (of an ``if`` or a ``while``) on data that decides how often ``binding`` (an ``n += v``) runs."""
    function, statement = binding.scope.node, binding.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or not isinstance(statement, ast.AugAssign) \
            or not isinstance(statement.op, ast.Add):
        return None
    guards = memo(resolver._summaries, ("counter guards", id(function)), lambda: _guards(function))
    scope = binding.scope
    for guard in reversed((guards or {}).get(id(statement), ())):
        if isinstance(guard, (ast.If, ast.While)) and _on_data(resolver, guard.test, scope):
            return guard.test
        if isinstance(guard, ast.While) and _shrinks(resolver, guard, scope):
            return guard.test
    return None


def _guards(function: ast.AST) -> dict[int, tuple[ast.stmt, ...]]:
    """``{id(n += v): the if / while / for statements around it}`` for the augmented assignments of a function's
    own body (not of nested functions or classes)."""
    found: dict[int, tuple[ast.stmt, ...]] = {}
    stack: list[tuple[ast.AST, tuple[ast.stmt, ...]]] = [(s, ()) for s in function.body]
    while stack:
        node, around = stack.pop()
        if isinstance(node, _FUNCTIONS):
            continue
        if isinstance(node, ast.AugAssign):
            found[id(node)] = around
            continue
        if isinstance(node, (ast.If, ast.While, ast.For, ast.AsyncFor)):
            inner = around + (node,)
            stack.extend((s, inner) for s in node.body)
            stack.extend((s, around if isinstance(node, ast.If) else inner) for s in node.orelse)
        elif isinstance(node, (ast.With, ast.AsyncWith, ast.Try)):
            stack.extend((s, around) for s in children(node) if isinstance(s, ast.stmt))
            for handler in getattr(node, "handlers", ()):
                stack.extend((s, around) for s in handler.body)
    return found


def test_sides(test: ast.AST) -> list[ast.AST]:
    """The operands a loop or branch test compares or tests (``a < b and not c``: ``a``, ``b``, ``c``; none for
    ``is`` / ``in`` tests)."""
    if isinstance(test, ast.BoolOp):
        return [s for v in test.values for s in test_sides(v)]
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test_sides(test.operand)
    if isinstance(test, ast.Compare):
        if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in test.ops):
            return []
        return [test.left, *test.comparators]
    return [test]


def _on_data(resolver: "Resolver", test: ast.AST, scope: "Scope") -> bool:
    """The test compares or tests a tensor's value (``keep[i]``, ``score > t`` of a tensor, ``x.sum().item() > 0``)."""
    from npu_lint.analysis.configuration import from_constants
    for side in test_sides(test):
        if resolver.kind_of_at(side, scope) in K.TENSORS and not from_constants(side, resolver, scope):
            return True
        if any(f[0] in _HOST_READS for f in resolver.flows(side, scope, sink=False)):
            return True
    return False


def _shrinks(resolver: "Resolver", loop: ast.While, scope: "Scope") -> bool:
    """``while scores.numel() > 0:`` whose body rebinds ``scores`` to a data-dependent selection."""
    for side in test_sides(loop.test):
        measured = _measured(side)
        if measured is None:
            continue
        for node in ast.walk(loop):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == measured for t in node.targets) \
                    and data_shaped(resolver, node.value, scope) is not None:
                return True
    return False


def _measured(side: ast.AST) -> Optional[str]:
    """``scores`` of ``scores.shape[0]``, ``scores.size(0)``, ``scores.numel()``, ``len(scores)``."""
    if isinstance(side, ast.Subscript) and first_axis_of_shape(side):
        measured = side.value.value  # type: ignore[attr-defined]
    elif isinstance(side, ast.Call) and isinstance(side.func, ast.Attribute) and counts(side):
        measured = side.func.value
    elif isinstance(side, ast.Call) and isinstance(side.func, ast.Name) and side.func.id == "len" and len(side.args) == 1:
        measured = side.args[0]
    else:
        return None
    return measured.id if isinstance(measured, ast.Name) else None
