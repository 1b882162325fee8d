"""Where a batch maximum (or minimum) stands relative to the places it sizes, for NPU405 (dynamic_padding.py):
in the same function, handed down to a helper or kept in ``self.x``, inside a test assertion. Nothing here is a
rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.analysis.size_sinks import last_name
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES


def in_assertion(node: ast.AST, ctx: FileContext) -> bool:
    """``node`` is part of an ``assert`` statement or of the arguments of an ``assert...()`` call."""
    parent = ctx.parent(node)
    while parent is not None and not isinstance(parent, ast.stmt):
        if isinstance(parent, ast.Call) and last_name(parent.func).lower().startswith("assert"):
            return True
        parent = ctx.parent(parent)
    return isinstance(parent, ast.Assert)


def extreme_side(origin: tuple) -> str:
    """"shortest" for a minimum (``min(...)``, ``len(min(items, key=len))``), else "longest"."""
    node = origin[1]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and node.args:
        node = node.args[0]     # ``len(min(items, key=len))``
    func = getattr(node, "func", None)
    return "shortest" if last_name(func) == "min" else "longest"


def same_function(extreme: ast.AST, node: ast.AST, ctx: FileContext) -> bool:
    """The maximum is computed in the function of ``node`` (or inside ``node`` itself: ``torch.arange(n.max())``,
    whose parts the walk has not reached yet)."""
    start, end = (node.lineno, node.col_offset), (getattr(node, "end_lineno", 0), getattr(node, "end_col_offset", 0))
    if start <= (extreme.lineno, extreme.col_offset) <= end:
        return True
    return ctx.enclosing(extreme, FUNCTION_TYPES) is ctx.enclosing(node, FUNCTION_TYPES)


def running_maximum(extreme: ast.AST, node: ast.AST, ctx: FileContext) -> bool:
    """The maximum is kept in a loop over the items that ends before ``node`` (``for r in rows: if r.size(0) > m:
    m = r.size(0)``, ``m = max(m, len(r))``): a loop of the function around the maximum that does not hold the
    place it sizes."""
    child, parent = extreme, ctx.parent(extreme)
    while parent is not None and not isinstance(parent, FUNCTION_TYPES + (ast.ClassDef,)):
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.While)) and any(child is s for s in parent.body) \
                and not parent.lineno <= node.lineno <= (parent.end_lineno or parent.lineno):
            return True
        child, parent = parent, ctx.parent(parent)
    return False


def passed_down(extreme: ast.AST, node: ast.AST, ctx: FileContext) -> bool:
    """The maximum is computed in a function that hands it down: one that calls the function of ``node`` (a
    padding helper given the maximum), or a method keeping it in ``self.x`` for another method."""
    resolver = ctx.resolver
    sink = ctx.enclosing(node, FUNCTION_TYPES)
    if sink is None or resolver.scopes is None:
        return False
    for call, scope, _ in resolver.call_sites(sink):
        while scope is not None and scope.kind not in ("function", "module"):
            scope = scope.parent
        if scope is not None and scope.kind == "function" and scope.node is not sink and _inside(extreme, scope.node):
            return True
    line = extreme.lineno
    return any(type(statement) is ast.Assign and statement.lineno <= line <= (statement.end_lineno or line)
               and any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                       and t.value.id == resolver.scopes.self_name(scope) for t in statement.targets)
               for statement, scope in resolver.scopes.statements if statement.lineno <= line)


def _inside(node: ast.AST, outer: ast.AST) -> bool:
    return (outer.lineno, outer.col_offset) <= (node.lineno, node.col_offset) <= (
        getattr(outer, "end_lineno", 0) or 0, getattr(outer, "end_col_offset", 0) or 0)


_PER_ITEM = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)


def handing_call(extreme: ast.AST, sink: ast.AST, ctx: FileContext) -> Optional[ast.Call]:
    """The call, in the maximum's function, of the helper ``sink`` that hands it the maximum: an argument is the
    maximum itself or a name the statement computing it binds (``max_len = max(...)``;
    ``padded = _pad_batch(items, max_len)``), the call not in a loop or comprehension (a helper padding the whole
    batch, not one item at a time). None when the maximum reaches the helper otherwise (``self.x``)."""
    resolver = ctx.resolver
    if resolver.scopes is None:
        return None
    line = extreme.lineno
    names = {t.id for statement, _ in resolver.scopes.statements
             if isinstance(statement, ast.Assign) and statement.lineno <= line <= (statement.end_lineno or line)
             for t in statement.targets if isinstance(t, ast.Name)}
    for call, scope, _ in resolver.call_sites(sink):
        while scope is not None and scope.kind not in ("function", "module"):
            scope = scope.parent
        outer = scope.node if scope is not None and scope.kind == "function" else None
        if not isinstance(call, ast.Call) or outer is None or outer is sink or not _inside(extreme, outer) \
                or any(isinstance(n, _PER_ITEM) and _inside(call, n) and n is not call for n in walk(outer)):
            continue    # a helper given one item at a time (in a loop, a comprehension): reported at the maximum
        for argument in [*call.args, *(kw.value for kw in call.keywords)]:
            if _inside(extreme, argument) or isinstance(argument, ast.Name) and argument.id in names \
                    and argument.lineno >= line:
                return call
    return None
