"""Helpers of a file that size a tensor with one of their parameters (for NPU403 at their call sites): the
function passes the parameter, through anything the model follows (arithmetic, ``int``, names bound in it), to
a shape-fixing argument (``torch.zeros(n)``, ``x.view(n, -1)``, ``x[:n]``, ``range(n)``), itself or through
another helper of the file it calls (to a fixed depth). A call that passes a value read from a tensor to such a
parameter fixes a shape with it: reported at the call, naming the chain (``make(n) → zeros()``), once per call.
Computed once per function (the model's ``parameters_reaching`` summary). Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Callable, Optional

from npu_lint.analysis.index_forms import passed_argument
from npu_lint.analysis.nodes import child_nodes
from npu_lint.context import FileContext
from npu_lint.rules import short_source

SinkOf = Callable[[ast.Call, FileContext, object, bool], Optional[tuple[list[ast.AST], str]]]
_DEPTH = 3
_SKIP = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda})
_COMPREHENSIONS = frozenset({ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp})
_LEAVES = frozenset({ast.Name, ast.Constant})


def _nodes(function: ast.AST, scope, resolver) -> list[tuple[ast.AST, object, bool]]:
    """The calls and subscripts of a function's own body with the scope each stands in, and whether a call is
    the ``range()`` of a ``for`` loop (nested functions and classes left out)."""
    found: list[tuple[ast.AST, object, bool]] = []
    stack = [(child, scope, False) for child in getattr(function, "body", [])]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        node, where, loop_count = pop()
        node_type = type(node)
        if node_type in _LEAVES:
            continue   # a name or a constant: no call, subscript or child (its ``ctx`` is no node of interest)
        if node_type in _SKIP:
            continue
        if node_type is ast.Call or node_type is ast.Subscript:
            found.append((node, where, loop_count))
        if node_type in _COMPREHENSIONS:
            where = resolver.scopes.open_expression_scope(node, where)
        if node_type is ast.For:
            iterated = node.iter
            for child in child_nodes(node):
                push((child, where, child is iterated))
        else:
            extend([(child, where, False) for child in child_nodes(node)])
    return found


def size_parameters(function: ast.AST, ctx: FileContext, sink_of: SinkOf, depth: int = 0) -> dict[str, str]:
    """``{parameter: chain}``: the parameters ``function`` sizes a tensor with, and the way there
    (``zeros()``, ``pad(n) → .new_zeros()``). Once per function."""
    store = ctx.scratch.setdefault("size_parameters", {})
    key = id(function)
    if key in store:
        return store[key] or {}
    store[key] = None   # a recursion guard
    resolver = ctx.resolver
    scope = resolver.scopes.scope_of(function) if resolver.scopes is not None else None
    found: dict[str, str] = {}
    if scope is not None and depth <= _DEPTH and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        for node, where, loop_count in _nodes(function, scope, resolver):
            for expression, sink in _sizes(node, where, loop_count, ctx, sink_of, depth):
                for parameter in resolver.parameters_reaching(expression, function, where):
                    found.setdefault(parameter.name, sink)
    store[key] = found
    return found


def _sizes(node: ast.AST, scope, loop_count: bool, ctx: FileContext, sink_of: SinkOf,
           depth: int) -> list[tuple[ast.AST, str]]:
    """The expressions ``node`` uses as sizes, each with how a message names the place."""
    if isinstance(node, ast.Subscript):
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        bounds = [b for s in elements if isinstance(s, ast.Slice) for b in (s.lower, s.upper, s.step) if b is not None]
        if not bounds or ctx.resolver.kind_of_at(node.value, scope) in ("host", "list"):
            return []
        return [(bound, "a slice bound") for bound in bounds]
    sink = sink_of(node, ctx, scope, loop_count)
    if sink is not None:
        return [(argument, sink[1]) for argument in sink[0]]
    callee = ctx.resolver.own_function(node, scope)   # a helper that passes the value on to a helper
    if callee is None:
        return []
    inner = size_parameters(callee[0], ctx, sink_of, depth + 1)
    found = []
    for arg in _parameters(callee[0]):
        if arg.arg in inner:
            passed = passed_argument(node, callee[0], arg, callee[1])
            if passed is not None:
                found.append((passed, f"{callee[0].name}({arg.arg}) → {inner[arg.arg]}"))
    return found


def _parameters(function: ast.AST) -> list[ast.arg]:
    args = function.args   # type: ignore[attr-defined]
    return args.posonlyargs + args.args + args.kwonlyargs


def size_helper_call(node: ast.Call, ctx: FileContext, sink_of: SinkOf,
                     flavours: tuple[str, ...]) -> Optional[tuple[str, tuple[str, ast.AST]]]:
    """``make(n)`` where ``n`` may carry a value of one of ``flavours`` (read from a tensor) and the file's ``make``
    sizes a tensor with it: the chain (``make(n) → zeros()``) and the flow, else None. The first such argument."""
    if not node.args and not node.keywords:
        return None   # nothing passed: no parameter can carry a value
    callee = ctx.resolver.own_function(node)
    if callee is None:
        return None
    # The arguments that carry such a value first (rare: 2 of 671 helper calls on ultralytics), the helper's
    # summary only then: most helpers size nothing, and summarising them was most of NPU403's cost. The first
    # parameter (in order) that both carries a read value and sizes a tensor is reported, as before.
    carried = []
    for arg in _parameters(callee[0]):
        passed = passed_argument(node, callee[0], arg, callee[1])
        origin = ctx.resolver.flow_of(passed, flavours) if passed is not None else None
        if origin is not None and _read_here(origin[1], node, ctx):
            carried.append((arg, passed, origin))
    if not carried:
        return None
    sizes = size_parameters(callee[0], ctx, sink_of)
    for arg, passed, origin in carried:
        if arg.arg in sizes:
            return f"{callee[0].name}({short_source(passed, 20)}) → {sizes[arg.arg]}", origin
    return None


def _read_here(source: ast.AST, call: ast.Call, ctx: FileContext) -> bool:
    """The value was read in the function that makes the call (not passed in through one of its parameters: the
    call where it was read is reported, not every helper it travels through)."""
    function = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return True
    line = getattr(source, "lineno", 0)
    return function.lineno <= line <= (function.end_lineno or line)
