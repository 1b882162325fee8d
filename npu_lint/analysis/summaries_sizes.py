"""The parameters a function sizes a tensor with (the model's "this parameter is a size" summary, for NPU403 at the
calls of a helper, the file's own or, through the project index's ``sizes`` facts, another module's): the function
passes the parameter, through anything the model follows (arithmetic, ``int``, names bound in it, an element of a
list of sizes: ``shape = list(x.shape); shape[dim] = n``), to a shape-fixing argument
(:func:`npu_lint.analysis.size_sinks.shape_sink`: ``torch.zeros(n)``, ``x.view(n, -1)``, ``range(n)``,
``scatter(..., dim_size=n)``) or a slice bound (``x[:n]``), itself or through another helper of the file it calls
(to a fixed depth). Computed once per function."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis.index_forms import passed_argument
from npu_lint.analysis.nodes import body_of, child_nodes
from npu_lint.analysis.size_sinks import shape_sink

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_DEPTH = 3
_SKIP = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda})
_COMPREHENSIONS = frozenset({ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp})
_LEAVES = frozenset({ast.Name, ast.Constant})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _nodes(function: ast.AST, scope, resolver: "Resolver") -> list[tuple[ast.AST, object, bool]]:
    """The calls and subscripts of a function's own body with the scope each stands in, and whether a call is
    the ``range()`` of a ``for`` loop (nested functions and classes left out)."""
    found: list[tuple[ast.AST, object, bool]] = []
    stack = [(child, scope, False) for child in body_of(function)]
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


def parameters(function: ast.AST) -> list[ast.arg]:
    """The named parameters of a function, positional first."""
    args = function.args   # type: ignore[attr-defined]
    return args.posonlyargs + args.args + args.kwonlyargs


def size_parameters(function: ast.AST, resolver: "Resolver", store: dict, depth: int = 0) -> dict[str, str]:
    """``{parameter: chain}``: the parameters ``function`` sizes a tensor with, and the way there
    (``zeros()``, ``pad(n) → .new_zeros()``). Once per function (``store``: the memo, one per file).

    Every answer is the one a computation from scratch gives at that depth, whichever question came first:
    - an answer that met neither the depth bound nor a cycle is final, kept under ``("final", id)`` with its height
      (how many helpers deep it looked), and read at any depth where that height still fits under the bound (deeper,
      computing it would meet the bound: it is computed there, not read; before session 25 it was read, so that
      ``a -> b -> c -> d -> e -> zeros()`` found ``a``'s chain when ``b`` was asked first and cut it when ``a`` was);
    - an answer cut short by the bound alone is kept under ``("depth", id, depth)`` with the functions its
      computation summarised, and reused at that depth while none of them is in progress (then it would meet a cycle);
    - an answer that met a cycle (a function in progress) is never kept."""
    key = id(function)
    state = store.get("cuts")
    if state is None:   # cuts met, cycles met, reached-function sets and heights of the open computations, in progress
        state = store["cuts"] = [0, 0, [], [], set()]
    reached_stack, heights, active = state[2], state[3], state[4]
    if depth > _DEPTH:   # before the memo: a deeper caller never sees what a shallower one could
        state[0] += 1
        return {}
    if key in active:   # in progress: a cycle, whose answer is not final
        state[0] += 1
        state[1] += 1
        return {}
    final = store.get(("final", key))
    if final is not None and depth + final[1] <= _DEPTH:
        if heights:
            heights[-1][0] = max(heights[-1][0], final[1] + 1)
        return final[0] or {}
    kept = store.get(("depth", key, depth))
    if kept is not None and not any(k in active for k in kept[1]):
        state[0] += 1   # a depth-cut answer: not final for whoever reads it
        if reached_stack:
            reached_stack[-1].update(kept[1])
        return kept[0] or {}
    active.add(key)
    before, cycles_before = state[0], state[1]
    reached = {key}
    reached_stack.append(reached)
    height = [0]
    heights.append(height)
    scope = resolver.scopes.scope_of(function) if resolver.scopes is not None else None
    found: dict[str, str] = {}
    try:
        if scope is not None and isinstance(function, _FUNCTIONS):
            nodes = store.get(("nodes", key))
            if nodes is None:
                nodes = store[("nodes", key)] = _nodes(function, scope, resolver)
            for node, where, loop_count in nodes:
                for expression, sink in _sizes(node, where, loop_count, resolver, store, depth):
                    for parameter in resolver.parameters_reaching(expression, function, where):
                        found.setdefault(parameter.name, sink)
    finally:
        reached_stack.pop()
        heights.pop()
        active.discard(key)
    if reached_stack:
        reached_stack[-1].update(reached)
    if heights:
        heights[-1][0] = max(heights[-1][0], height[0] + 1)
    if state[0] == before:
        store[("final", key)] = (found, height[0])   # final: read wherever its height fits
    elif state[1] == cycles_before:
        store[("depth", key, depth)] = (found, frozenset(reached))   # cut by the bound alone: kept for this depth
    return found


def _sizes(node: ast.AST, scope, loop_count: bool, resolver: "Resolver", store: dict,
           depth: int) -> list[tuple[ast.AST, str]]:
    """The expressions ``node`` uses as sizes, each with how a message names the place."""
    if isinstance(node, ast.Subscript):
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        bounds = [b for s in elements if isinstance(s, ast.Slice) for b in (s.lower, s.upper, s.step) if b is not None]
        if not bounds or resolver.kind_of_at(node.value, scope) in ("host", "list"):
            return []
        return [(bound, "a slice bound") for bound in bounds]
    sink = shape_sink(node, resolver, scope, loop_count)
    if sink is not None:
        return [(argument, sink[1]) for argument in sink[0]]
    callee = resolver.own_function(node, scope)   # a helper that passes the value on to a helper
    if callee is None:
        return []
    inner = size_parameters(callee[0], resolver, store, depth + 1)
    found = []
    for arg in parameters(callee[0]):
        if arg.arg in inner:
            passed = passed_argument(node, callee[0], arg, callee[1])
            if passed is not None:
                found.append((passed, f"{callee[0].name}({arg.arg}) → {inner[arg.arg]}"))
    return found


def sized_parameters(function: ast.AST, resolver: "Resolver", store: dict) -> tuple[tuple[str, int, str], ...]:
    """The project index's ``sizes`` fact of a function: ``(parameter, position, chain)`` for each parameter it
    sizes a tensor with, ``position`` its index among the positional parameters (-1: keyword-only)."""
    if not isinstance(function, _FUNCTIONS):
        return ()
    sizes = size_parameters(function, resolver, store)
    if not sizes:
        return ()
    args = function.args   # type: ignore[attr-defined]
    positional = [a.arg for a in args.posonlyargs + args.args]
    return tuple((name, positional.index(name) if name in positional else -1, chain) for name, chain in sizes.items())


def first_sized(function: Optional[ast.AST]) -> bool:
    """Whether a function has a parameter it could size anything with (``self`` alone sizes nothing)."""
    if not isinstance(function, _FUNCTIONS):
        return False
    names = [a.arg for a in parameters(function)]
    return bool(names) and names != ["self"] and names != ["cls"]
