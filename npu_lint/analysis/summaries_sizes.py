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
_MISSING = object()


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

    An answer that met neither the depth bound nor a cycle is final (``store[id]``). One cut short by the depth
    bound alone is kept under ``("depth", id, depth)`` with the functions its computation summarised afresh (not read
    as final), and reused at that depth while each of those is neither final nor in progress since: computed again,
    it would take the same path and read the same final answers (a final answer never changes), so the memo gives
    what the recomputation gave. An answer that met a cycle is never kept.

    The answers still depend on the order of the questions, as they did before the memo: a final answer computed at
    one depth is read at a deeper one, where computing it would have met the bound (``a -> b -> ... -> zeros()``:
    ``a``'s chain is found if ``b`` was asked first, cut if ``a`` was)."""
    key = id(function)
    cuts = store.get("cuts")
    if cuts is None:
        cuts = store["cuts"] = [0, 0, []]   # depth cuts, cycles met, the reached-functions sets of open computations
    if depth > _DEPTH:   # before the memo: a deeper caller never sees what a shallower one could
        cuts[0] += 1
        return {}
    reached_stack = cuts[2]
    cached = store.get(key, _MISSING)
    if cached is not _MISSING:
        if cached is None:
            cuts[0] += 1   # in progress: a cycle, whose answer is not final
            cuts[1] += 1
            return {}
        return cached or {}   # an empty answer as a new dict, as before
    kept = store.get(("depth", key, depth))
    if kept is not None and not any(k in store for k in kept[1]):
        cuts[0] += 1   # a depth-cut answer: not final for whoever reads it
        if reached_stack:
            reached_stack[-1].update(kept[1])
        return kept[0] or {}
    store[key] = None   # a recursion guard
    before, cycles_before = cuts[0], cuts[1]
    reached = {key}
    reached_stack.append(reached)
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
    if reached_stack:
        reached_stack[-1].update(reached)
    if cuts[0] == before:
        store[key] = found   # final: the same whichever function asked first
    else:
        del store[key]   # cut short on the way: asked again from elsewhere, computed again (to the bound)
        if cuts[1] == cycles_before:
            store[("depth", key, depth)] = (found, frozenset(reached))
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
