"""NPU408 one call away: the step helper of a decoder (``GreedyDecoder.update``, ``append_token``) returns its
parameter concatenated with a new piece (the model's summary, ``analysis/step_growth.py``) and a loop of the file
calls it and feeds the result back into what the next iteration passes. Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import NamedTuple, Optional

from npu_lint.analysis.nodes import child_nodes, walk
from npu_lint.analysis.scopes import Scope
from npu_lint.analysis.step_growth import Growth
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES, short_source
from npu_lint.rules.loop_arms import carried, steps

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.While)


class FedBack(NamedTuple):
    """A call that runs a growing step in a loop and feeds its result back: the call, the loop, the loop's
    function (None: the module) and how the value comes back."""
    call: ast.Call
    loop: ast.AST
    owner: Optional[ast.AST]
    how: str


def fed_back(cat: ast.Call, ctx: FileContext) -> Optional[tuple[ast.AST, Growth, FedBack]]:
    """The function around ``cat`` when it is a step that grows its parameter by ``cat``, its growth and the first
    call of the file that runs it in a loop and feeds the result back; None otherwise."""
    function = ctx.enclosing(cat, FUNCTION_TYPES)
    if not isinstance(function, _DEFS):
        return None
    resolver = ctx.resolver
    growth = resolver.grown_parameter(function)
    if growth is None or not any(c is cat for c in growth.cats):
        return None
    for call, scope, offset in resolver.runs(function):
        found = feeding(call, scope, offset, growth, ctx)
        if found is not None:
            return function, growth, found
    return None


def describe(function: ast.AST, site: FedBack, ctx: FileContext) -> str:
    """``returned by GreedyDecoder.update and fed back to tokens by self.decoder.update(...) in the loop of line
    686 (DecodingTask._main_loop)``."""
    caller = _qualified(site.owner, ctx) if site.owner is not None else "the module"
    return (f"returned by {_qualified(function, ctx)} and fed back {site.how} by {short_source(site.call.func)}(...) "
            f"in the loop of line {site.loop.lineno} ({caller})")


def feeding(call: ast.Call, scope: Scope, offset: int, growth: Growth, ctx: FileContext) -> Optional[FedBack]:
    """The loop in which ``call`` runs the step and its result comes back to the next iteration: the argument
    rebound from the result (``tokens, done = self.decoder.update(tokens, ...)``), the result stored in the same
    field the argument is read from (``Hypothesis(yseq=self.append_token(hyp.yseq, j))``) where the call runs at
    every step, or a list of them rebuilt from the list the loop reads (``hyps = [grow(h, t) for h in hyps]``)."""
    index = growth.parameter - offset
    if index < 0 or any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
        return None
    arg = call.args[index] if index < len(call.args) else \
        next((k.value for k in call.keywords if k.arg == growth.name), None)
    if not isinstance(arg, (ast.Name, ast.Attribute, ast.Subscript)):
        return None
    root = _root(scope, ctx)
    parents = _parents(root, ctx)
    result: ast.AST = call
    parent = parents.get(id(call))
    if isinstance(parent, ast.Await):   # ``x = await step(x, t)``
        result, parent = parent, parents.get(id(parent))
    owner = root if isinstance(root, _DEFS) else None
    text = ast.unparse(arg)
    if isinstance(parent, ast.Assign) and parent.value is result and len(parent.targets) == 1:
        target: Optional[ast.AST] = parent.targets[0]
        if growth.position >= 0:
            elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else []
            target = elements[growth.position] if growth.position < len(elements) and not any(
                isinstance(e, ast.Starred) for e in elements) else None
        if target is not None and ast.unparse(target) == text:
            loop = _enclosing(call, parents, (*_LOOPS, *FUNCTION_TYPES))
            if isinstance(loop, _LOOPS) and carried(loop, parent, text, ctx=ctx):
                return FedBack(call, loop, owner, f"to {text}")
    if isinstance(arg, ast.Attribute) and _stored_as(parent, result, arg, parents, scope, ctx):
        return _every_step(call, parents, owner, ctx, f"to the field {arg.attr}")
    if isinstance(parent, ast.ListComp) and parent.elt is result and isinstance(arg, ast.Name):
        assign = parents.get(id(parent))
        heads = {n.id for g in parent.generators for n in walk(g.target) if isinstance(n, ast.Name)}
        read = {n.id for g in parent.generators for n in walk(g.iter) if isinstance(n, ast.Name)}
        if isinstance(assign, ast.Assign) and assign.value is parent and len(assign.targets) == 1 \
                and isinstance(assign.targets[0], ast.Name) and arg.id in heads and assign.targets[0].id in read:
            loop = _enclosing(assign, parents, (*_LOOPS, *FUNCTION_TYPES))
            if isinstance(loop, _LOOPS) and carried(loop, assign, assign.targets[0].id, ctx=ctx):
                return FedBack(call, loop, owner, f"to {assign.targets[0].id}")
    return None


def _stored_as(parent: Optional[ast.AST], result: ast.AST, arg: ast.Attribute, parents: dict[int, ast.AST],
               scope: Scope, ctx: FileContext) -> bool:
    """The call's result becomes the field the argument is read from, of an object of the same class:
    ``Hyp(yseq=...)`` or ``h._replace(yseq=...)`` for ``hyp.yseq`` of a ``Hyp``, ``new.yseq = ...``."""
    if isinstance(parent, ast.keyword) and parent.arg == arg.attr and parent.value is result:
        built = parents.get(id(parent))
        if not isinstance(built, ast.Call):
            return False
        func = built.func
        if isinstance(func, ast.Attribute) and func.attr == "_replace":
            holder: ast.AST = func.value    # ``h._replace(yseq=...)``: a copy of ``h``
        elif ctx.resolver.qualname(func, scope) == "dataclasses.replace" and built.args:
            holder = built.args[0]
        else:
            holder = built
    elif isinstance(parent, ast.Assign) and parent.value is result and len(parent.targets) == 1 \
            and isinstance(parent.targets[0], ast.Attribute) and parent.targets[0].attr == arg.attr:
        holder = parent.targets[0].value
    else:
        return False
    if ast.unparse(holder) == ast.unparse(arg.value):
        return True
    value = ctx.resolver.value_of(arg.value, scope)
    return value is not None and value[1] is not None and value == ctx.resolver.value_of(holder, scope)


def _every_step(call: ast.Call, parents: dict[int, ast.AST], owner: Optional[ast.AST], ctx: FileContext,
                how: str) -> Optional[FedBack]:
    """The loop over steps (``for`` over ``range``/``count``, ``while``) that runs ``call`` every step: around it,
    or around a call of its function (``best = self.search(running_hyps, x)`` in ``for i in range(maxlen)``)."""
    loop = _step_loop(call, parents, ctx)
    if loop is not None:
        return FedBack(call, loop, owner, how)
    if owner is None:
        return None
    for outer, scope, _ in ctx.resolver.runs(owner):
        root = _root(scope, ctx)
        loop = _step_loop(outer, _parents(root, ctx), ctx)
        if loop is not None and root is not owner:
            return FedBack(call, loop, root if isinstance(root, _DEFS) else None, how)
    return None


def _step_loop(node: ast.AST, parents: dict[int, ast.AST], ctx: FileContext) -> Optional[ast.AST]:
    parent = parents.get(id(node))
    while parent is not None and not isinstance(parent, FUNCTION_TYPES):
        if isinstance(parent, ast.While) or isinstance(parent, ast.For) and steps(parent.iter, ctx):
            return parent
        parent = parents.get(id(parent))
    return None


def _enclosing(node: ast.AST, parents: dict[int, ast.AST], types: tuple[type, ...]) -> Optional[ast.AST]:
    parent = parents.get(id(node))
    while parent is not None and not isinstance(parent, types):
        parent = parents.get(id(parent))
    return parent


def _root(scope: Scope, ctx: FileContext) -> ast.AST:
    """The function (or module) a call's scope belongs to: the nearest ``def`` above comprehensions and lambdas."""
    current: Optional[Scope] = scope
    while current is not None and not (current.kind == "function" and isinstance(current.node, _DEFS)) \
            and current.parent is not None:
        current = current.parent
    return current.node if current is not None else scope.node


def _parents(root: ast.AST, ctx: FileContext) -> dict[int, ast.AST]:
    """Each node's parent under ``root`` (a call may stand after the node being checked, where the walk has not
    been yet), built once per function."""
    store = ctx.scratch.setdefault("growth_step_parents", {})
    found = store.get(id(root))
    if found is None:
        found = store[id(root)] = {id(child): node for node in walk(root) for child in child_nodes(node)}
    return found


def _qualified(function: ast.AST, ctx: FileContext) -> str:
    """``DecodingTask._main_loop``: a function's name with its class."""
    scope = ctx.resolver.scopes.scope_of(function) if ctx.resolver.scopes is not None else None
    name = getattr(function, "name", "?")
    if scope is not None and scope.parent is not None and scope.parent.kind == "class":
        return f"{getattr(scope.parent.node, 'name', '?')}.{name}"
    return name
