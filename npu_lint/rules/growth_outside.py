"""NPU408, broad path (session 25, growth25): the sequence a loop of steps grows, joined outside that loop.

The model proves inside a loop of steps (broad_joins' ``_step_loop``: a ``while``, a ``range`` of no module count, a
loader) that a sequence grows by a step each iteration: a name joined with itself (``ids = cat([ids, tok], -1)``),
a list appended and joined there (``toks.append(t)``, ``model(torch.cat(toks, -1))``: fed back), or a record's
field rebuilt one item longer from the previous step's record (``State(ids=state.ids + [new])``,
growth_fields.py) and joined there. The same sequence joined by a statement of the same function OUTSIDE that loop is the same
growth, one shape per length the loop reaches:

- before the loop, the join of the name with itself that starts it (``generated = cat([generated, first])`` after
  the prefill, then the loop's ``generated = cat([generated, tok])``: torchtune's ``generate``): the first step --
  a join of two pieces run once per call (in no loop, under no test: not a window assembled per outer step from
  three pieces, nor a feature joined under a test before a walk over bands);
- after the loop, the join of the whole grown sequence (``out = torch.cat(state.ids, -1)`` of the records the loop
  rebuilt, ``torch.cat(toks, -1)`` of the list the loop fed back: nanotron's ``decode_text``): as long as the
  steps taken.

Silent for a list made anew at every step (``rows = []`` in the loop) or bound again between the loop and the
join (another list of that name), a list (or field) only grown in the loop and joined once after it (``outs.append(model(x))`` in
``range(n)`` then ``stack(outs)``: a fixed count, nothing fed back), a join of another name, a loop over structure (layers,
blocks, a parameter's items), a window of the sequence (``cat([x, y])[..., -n:]`` is no self-join). The index of
what each function's loops grow is built once per function (``FileContext.per_node``).
"""
from __future__ import annotations

import ast
from typing import NamedTuple, Optional

from npu_lint.analysis.nodes import walk
from npu_lint.bounded import unparse
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES

_CATS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.hstack", "torch.vstack"})
_JOINS = _CATS | {"torch.stack"}
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_HOST = frozenset({"item", "tolist"})


class _Grown(NamedTuple):
    loop: ast.AST
    names: frozenset[str]      # joined with themselves in the loop (``x = cat([x, y])``)
    lists: frozenset[str]      # appended in the loop and joined there (fed back)
    fields: frozenset[str]     # a record's field rebuilt one item longer (or appended) and joined in the loop


def _join_name(call: ast.Call, ctx: FileContext) -> Optional[str]:
    name = ctx.resolver.qualname(call.func)
    return name if name in _JOINS else None


def _host_item(piece: ast.AST) -> bool:
    if isinstance(piece, ast.Constant):
        return True
    return isinstance(piece, ast.Call) and (
        isinstance(piece.func, ast.Attribute) and piece.func.attr in _HOST
        or isinstance(piece.func, ast.Name) and piece.func.id in ("float", "int", "len", "str"))


def _self_joined(statement: ast.AST, ctx: FileContext) -> Optional[str]:
    """``x = cat([x, y], d)``: the name joined with itself, first (the sequence goes on at its end)."""
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1 \
            or not isinstance(statement.targets[0], ast.Name) or not isinstance(statement.value, ast.Call):
        return None
    call = statement.value
    if not call.args or not isinstance(call.args[0], (ast.List, ast.Tuple)) or len(call.args[0].elts) < 2:
        return None
    first = call.args[0].elts[0]
    target = statement.targets[0].id
    if not (isinstance(first, ast.Name) and first.id == target) or ctx.resolver.qualname(call.func) not in _CATS:
        return None
    return target


def _field_longer(value: ast.AST, field: str) -> bool:
    """``<r>.field + [new]``: the field of the previous record read whole, one tensor item more."""
    return isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) \
        and isinstance(value.left, ast.Attribute) and value.left.attr == field \
        and isinstance(value.right, (ast.List, ast.Tuple)) and bool(value.right.elts) \
        and not any(_host_item(e) for e in value.right.elts)


def _grown(loop: ast.AST, ctx: FileContext) -> _Grown:
    names: set[str] = set()
    appended: set[str] = set()
    appended_fields: set[str] = set()
    rebuilt: set[str] = set()
    joined_names: set[str] = set()
    joined_fields: set[str] = set()
    for node in walk(loop):
        if isinstance(node, ast.Assign):
            found = _self_joined(node, ctx)
            if found is not None:
                names.add(found)
            continue
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "append" and len(node.args) == 1 \
                and not _host_item(node.args[0]):
            if isinstance(func.value, ast.Name):
                appended.add(func.value.id)
            elif isinstance(func.value, ast.Attribute):
                appended_fields.add(func.value.attr)
            continue
        for kw in node.keywords:
            if kw.arg is not None and _field_longer(kw.value, kw.arg):
                rebuilt.add(kw.arg)
        if node.args and isinstance(node.args[0], (ast.Name, ast.Attribute)) and _join_name(node, ctx) is not None:
            if isinstance(node.args[0], ast.Name):
                joined_names.add(node.args[0].id)
            else:
                joined_fields.add(node.args[0].attr)
    fresh = {t.id for node in walk(loop) if isinstance(node, ast.Assign) for t in node.targets
             if isinstance(t, ast.Name)} - names   # a list made anew at each step is no sequence the steps grow
    return _Grown(loop, frozenset(names), frozenset((appended & joined_names) - fresh),
                  frozenset((rebuilt | appended_fields) & joined_fields))


def _loops_of(function: ast.AST, ctx: FileContext) -> list[_Grown]:
    """The loops of steps of ``function`` (not of a function nested in it) that grow something."""
    from npu_lint.rules.broad_joins import _step_loop
    found = []
    for node in walk(function):
        if isinstance(node, _LOOPS) and ctx.enclosing(node, FUNCTION_TYPES) is function and _step_loop(node, ctx):
            grown = _grown(node, ctx)
            if grown.names or grown.lists or grown.fields:
                found.append(grown)
    return found


def _straight(statement: ast.AST, function: ast.AST, ctx: FileContext) -> bool:
    """The statement runs once per call, whatever the data: in no loop and under no test of the function (only
    ``with`` / ``try`` blocks around it), like a prefill before its decoding loop."""
    parent = ctx.parent(statement)
    while parent is not None and parent is not function:
        if not isinstance(parent, (ast.With, ast.AsyncWith, ast.Try)):
            return False
        parent = ctx.parent(parent)
    return parent is function


def _rebound_between(name: str, loop: ast.AST, node: ast.AST, function: ast.AST) -> bool:
    """``name`` bound again after the loop and before the join (another list of the same name, in another arm)."""
    end = loop.end_lineno or loop.lineno
    return any(isinstance(child, ast.Assign) and end < child.lineno <= node.lineno
               and any(isinstance(t, ast.Name) and t.id == name for t in child.targets) for child in walk(function))


def _inside(node: ast.AST, loop: ast.AST) -> bool:
    return loop.lineno <= node.lineno <= (loop.end_lineno or loop.lineno)


def outside_join(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """What grows (for the message), else None: see the module's docstring."""
    if name not in _JOINS or not node.args:
        return None
    function = ctx.enclosing(node, FUNCTION_TYPES)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    items = node.args[0]
    statement = ctx.parent(node)
    seed = _self_joined(statement, ctx) if isinstance(statement, ast.Assign) and statement.value is node else None
    if seed is not None and (len(items.elts) != 2 or not _straight(statement, function, ctx)):   # type: ignore
        seed = None
    if seed is None and not isinstance(items, (ast.Name, ast.Attribute)):
        return None
    grown = ctx.per_node("growth_outside", function, lambda f: _loops_of(f, ctx))
    op = name.rsplit(".", 1)[-1]   # type: ignore[union-attr]
    for loop in grown:
        if _inside(node, loop.loop):
            continue
        if seed is not None and node.lineno < loop.loop.lineno and seed in loop.names:
            return (f"{seed} = {op}([{seed}, ...]) (the first step of the sequence the loop of line "
                    f"{loop.loop.lineno} joins with itself at every step)")
        if node.lineno <= (loop.loop.end_lineno or loop.loop.lineno):
            continue
        if isinstance(items, ast.Name) and items.id in loop.lists and not _rebound_between(items.id, loop.loop, node,
                                                                                            function):
            return (f"{op}({items.id}) (the list the loop of line {loop.loop.lineno} makes one item longer and "
                    f"feeds back at every step, joined after it)")
        if isinstance(items, ast.Attribute) and items.attr in loop.fields:
            return (f"{op}({unparse(items)[:40]}) (a field the loop of line {loop.loop.lineno} makes one item "
                    f"longer at every step, joined after it)")
    return None
