"""NPU402's broad path through returned tuples (session 25): an index is a mask (or positions) by construction when
it is an element of a tuple whose element is one: ``boxes, keep = clip(boxes)`` where the file's ``clip`` returns
``boxes[keep], keep`` with ``keep = boxes[:, 2] > boxes[:, 0]``; ``out = self.split(x)`` then ``x[out[1]]``;
``(a, keep), b = f(x)`` (nested); another module's function or a project module's ``forward`` whose element the
semantic model (the project index) knows is a mask. Every return of the function must agree (``return None`` exits
left out); an element after a starred target, a parameter, a name bound more than once is unknown. Memoised per
function and element, fixed depth."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.summaries import return_statements
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES

_DEPTH = 6


def element_of(value: ast.AST, place: int) -> ast.Subscript:
    """The node standing for element ``place`` of ``value`` (``a, keep = f(x)``: ``f(x)[1]``), for the tables of
    assignments; it shares ``value``'s position."""
    node = ast.Subscript(value=value, slice=ast.Constant(place), ctx=ast.Load())
    return ast.copy_location(node, value)


def returned_element(node: ast.Subscript, ctx: FileContext, depth: int) -> Optional[str]:
    """What ``node`` (``value[i]``, ``value[i][j]``, constant indices) is as an index when ``value`` is a tuple the
    file builds or a function returns: "mask", "positions", "values" or None."""
    path: list[int] = []
    current: ast.AST = node
    while isinstance(current, ast.Subscript):
        index = current.slice
        if not (isinstance(index, ast.Constant) and type(index.value) is int and index.value >= 0):
            return None
        path.insert(0, index.value)
        current = current.value
    return _element(current, tuple(path), ctx, depth + 1)


def _element(value: ast.AST, path: tuple[int, ...], ctx: FileContext, depth: int) -> Optional[str]:
    from npu_lint.rules.broad_masks import assignment_values, constructed_index
    if depth > _DEPTH or not path:
        return constructed_index(value, ctx, depth) if not path else None
    if isinstance(value, (ast.Tuple, ast.List)):
        if any(isinstance(e, ast.Starred) for e in value.elts) or path[0] >= len(value.elts):
            return None
        return _element(value.elts[path[0]], path[1:], ctx, depth + 1)
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) and type(value.slice.value) is int \
            and value.slice.value >= 0:
        return _element(value.value, (value.slice.value,) + path, ctx, depth + 1)
    if isinstance(value, ast.Name):   # ``out = f(x)`` then ``out[1]`` / ``a, b = out``: one assignment only
        values = assignment_values(ctx.enclosing_any(value, FUNCTION_TYPES), value.id, ctx)
        if len(values) != 1 or not isinstance(values[0], (ast.Call, ast.Tuple, ast.List, ast.Subscript)):
            return None
        return _element(values[0], path, ctx, depth + 1)
    if isinstance(value, ast.Call):
        return _call_element(value, path, ctx, depth)
    return None


def _call_element(call: ast.Call, path: tuple[int, ...], ctx: FileContext, depth: int) -> Optional[str]:
    from npu_lint.rules.dynamic_wrappers import helper_of_file
    if not isinstance(call.func, (ast.Name, ast.Attribute)):
        return None
    definition = helper_of_file(call, ctx)
    if isinstance(definition, FUNCTION_TYPES[:2]):
        table = ctx.scratch.setdefault("returned_masks", {})
        key = (id(definition), path)
        if key not in table:
            table[key] = None   # a cycle is unknown
            table[key] = _returned(definition, path, ctx, depth)
        return table[key]
    if len(path) != 1 or ctx.project is None:
        return None
    resolver = ctx.resolver   # another module's function, a project module's ``forward``: the index's element
    function = ctx.enclosing_any(call, FUNCTION_TYPES)
    scope = resolver.scopes.scope_of(function) if function is not None and resolver.scopes is not None else None
    if scope is None and resolver.scopes is not None:
        scope = resolver.scopes.module
    found = resolver._element(call, scope, path, 0) if scope is not None else None
    return "mask" if found is not None and found[0] == K.MASK else None


def _returned(function: ast.AST, path: tuple[int, ...], ctx: FileContext, depth: int) -> Optional[str]:
    """What element ``path`` of the tuple every return of the file's ``function`` gives is, agreeing."""
    verdicts = set()
    for statement in return_statements(function):
        value = statement.value
        if value is None or (isinstance(value, ast.Constant) and value.value is None):
            continue
        verdict = _element(value, path, ctx, depth + 1)
        if verdict is None:
            return None
        verdicts.add(verdict)
    verdicts.discard("self")
    if not verdicts:
        return None
    return "positions" if "positions" in verdicts else "values" if "values" in verdicts else "mask"
