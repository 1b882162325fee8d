"""The tuples functions return, followed through calls (session 25).

A function that returns what another function returns (``return spatial_crop_boxes(boxes, ...)``, ``return
self._split(x)``) returns that function's tuple: its elements are the other function's, whatever module defines it.
``returned_length`` says how long the tuple a function of the file returns is (its own ``return a, b`` statements
and the same-file functions it returns the result of, agreeing); ``call_returns`` says which functions' tuples a
function hands on whole (every return a call), for the project index, which follows them across modules
(:meth:`npu_lint.analysis.project.ProjectView.element_of_call`). Bounded: a fixed depth, memoised per function."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from npu_lint.analysis.scopes import Scope
    from npu_lint.resolver import Resolver

_DEPTH = 3   # how far ``return helper(x)`` is followed within a file (as ``summaries._RETURN_CHAIN``)


def _returned_values(function: ast.AST) -> list[ast.AST]:
    """The values a function's own return statements give, ``return`` / ``return None`` left out."""
    from npu_lint.analysis.summaries import return_statements
    return [r.value for r in return_statements(function)
            if r.value is not None and not (isinstance(r.value, ast.Constant) and r.value.value is None)]


def returned_length(resolver: "Resolver", function: ast.AST, scope: "Scope", depth: int = 0) -> int:
    """The length of the tuple every return of ``function`` gives (``return boxes, keep``; ``return self.f(x)``
    where the file's ``f`` returns one), 0 when they disagree or one is no tuple the file shows."""
    key = ("returned_length", id(function))
    cached = resolver._summaries.get(key)
    if cached is not None:
        return cached   # type: ignore[return-value]
    resolver._summaries[key] = 0   # a cycle gives no length
    lengths = set()
    for value in _returned_values(function):
        if isinstance(value, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in value.elts):
            lengths.add(len(value.elts))
        elif isinstance(value, ast.Call) and depth < _DEPTH:
            callee = resolver.callee(value, scope)
            inner = callee[0] if callee is not None else None
            inner_scope = resolver.scopes.scope_of(inner) if inner is not None and resolver.scopes else None
            if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) and inner is not function \
                    and inner.name != "__init__" and inner_scope is not None:
                lengths.add(returned_length(resolver, inner, inner_scope, depth + 1))
            else:
                lengths.add(0)
        else:
            lengths.add(0)
        if len(lengths) > 1:
            break
    found = lengths.pop() if len(lengths) == 1 else 0
    resolver._summaries[key] = found
    return found


def call_returns(function: ast.AST) -> int:
    """How many distinct calls ``function`` returns the result of when every return is a call (``return
    spatial_crop_boxes(...)``; ``return a(x) if c else b(x)`` is no call): the index follows those callees for the
    elements of its tuple; 0 when a return gives anything else (a tuple, a name, an expression)."""
    values = _returned_values(function)
    if not values or not all(isinstance(v, ast.Call) for v in values):
        return 0
    return len({ast.dump(v.func) for v in values})


def element_value(values: list[Optional[tuple]]) -> Optional[tuple]:
    """What the element of several returned tuples is: what they agree on; a mask wins over plain tensors (a
    placeholder tensor on an early exit); None when one is unknown."""
    from npu_lint.analysis import kinds as K
    if not values or any(v is None for v in values):
        return None
    if all(v[0] in K.TENSORS for v in values) and any(v[0] == K.MASK for v in values):
        return K.MASK, None
    return K.join(values)
