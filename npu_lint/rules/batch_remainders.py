"""A batch filled item by item (NPU407, short_chunks.py): a loop appends to a list, emits it when full (``yield``,
or appended to a list of batches) and empties it, then after the loop ``if batch: yield batch`` emits what is left,
a short last batch. Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext

_GROWERS = frozenset({"append", "extend"})


def remainder_batch(node: ast.If, ctx: FileContext) -> Optional[tuple[str, ast.AST]]:
    """``if batch:`` (``len(batch) > 0``, ``len(batch)``, ``len(batch) != 0``) whose body emits ``batch`` after a
    loop of the same block that fills ``batch`` item by item and, inside, emits it and empties it (``batch =
    []`` / ``batch.clear()``): the name and the loop, else None."""
    name = _tested_list(node.test)
    if name is None or node.orelse or not emits(node.body, name):
        return None
    parent = ctx.parent(node)
    body = next((getattr(parent, field) for field in ("body", "orelse", "finalbody")
                 if isinstance(getattr(parent, field, None), list) and node in getattr(parent, field)), None)
    if body is None:
        return None
    for statement in reversed(body[:body.index(node)]):
        while isinstance(statement, (ast.With, ast.AsyncWith)) and statement.body:
            statement = statement.body[-1]   # ``with open(path) as h: for line in h: ...``: the loop the block ends with
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
            return (name, statement) if _fills_and_flushes(statement, name) else None
    return None


def _tested_list(test: ast.AST) -> Optional[str]:
    """``batch``, ``len(batch)``, ``len(batch) > 0``, ``len(batch) != 0``, ``len(batch) >= 1``: the name."""
    if isinstance(test, ast.Name):
        return test.id
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):   # ``if batch and not self.drop_last:``
        return next((name for name in map(_tested_list, test.values) if name is not None), None)
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "len" \
            and len(test.args) == 1 and isinstance(test.args[0], ast.Name):
        return test.args[0].id
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant):
        bound, op = test.comparators[0].value, test.ops[0]
        if (isinstance(op, (ast.Gt, ast.NotEq)) and bound == 0) or (isinstance(op, ast.GtE) and bound == 1):
            inner = _tested_list(test.left)
            return inner if isinstance(test.left, ast.Call) else None
    return None


def _mentions(node: Optional[ast.AST], name: str) -> bool:
    return node is not None and any(isinstance(n, ast.Name) and n.id == name for n in walk(node))


def emits(body: list, name: str) -> bool:
    """A ``yield`` of (something made of) ``name``, or ``name`` appended to another list (the batches)."""
    for statement in body:
        for child in walk(statement):
            if isinstance(child, ast.Yield) and _mentions(child.value, name):
                return True
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and child.func.attr == "append" \
                    and not _mentions(child.func.value, name) and any(_mentions(a, name) for a in child.args):
                return True
    return False


def _fills_and_flushes(loop: ast.AST, name: str) -> bool:
    """The loop grows ``name`` (``name.append(x)``, ``name += [x]``) and, in an ``if`` of its body that tests its
    size, emits it and empties it."""
    grows = any((isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _GROWERS
                 and isinstance(n.func.value, ast.Name) and n.func.value.id == name)
                or (isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == name)
                for n in walk(loop))
    if not grows:
        return False
    counters = {n.target.id for n in walk(loop) if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add)
                and isinstance(n.target, ast.Name)}
    counters |= {t.id for n in walk(loop) if isinstance(n, ast.Assign) and any(   # ``cost = m * (len(batch) + 1)``
                     isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "len"
                     and c.args and _mentions(c.args[0], name) for c in walk(n.value))
                 for t in n.targets if isinstance(t, ast.Name)}
    for branch in walk(loop):
        if isinstance(branch, ast.If) and _full(branch.test, name, counters) and emits(branch.body, name) \
                and _empties(branch.body, name):
            return True
        if isinstance(branch, ast.If) and _full(branch.test, name, counters, fits=True) \
                and emits(branch.orelse, name) and _empties(branch.orelse, name, restart=True):
            return True   # ``if cost <= budget: batch.append(x)`` / ``else: batches.append(batch); batch = [x]``
    return False


def _full(test: ast.AST, name: str, counters: set[str], fits: bool = False) -> bool:
    """The batch is full: ``len(batch) == bs``, ``len(batch) >= bs``, ``tokens + n > max_tokens`` with ``tokens``
    a running count (``tokens += n`` in the loop) or a name computed from the batch's length; not a test of the data
    (an end-of-sentence label). With ``fits``, the converse: it still has room (``len(batch) < bs``, ``cost <=
    budget``)."""
    ops = (ast.Lt, ast.LtE) if fits else (ast.Gt, ast.GtE, ast.Eq)
    for compare in walk(test):
        if not isinstance(compare, ast.Compare) or not all(isinstance(op, ops) for op in compare.ops):
            continue
        for side in (compare.left, *compare.comparators):
            for n in walk(side):
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" \
                        and n.args and _mentions(n.args[0], name):
                    return True
                if isinstance(n, ast.Name) and n.id in counters:
                    return True
    return False


def _empties(body: list, name: str, restart: bool = False) -> bool:
    """``batch = []`` (``batch.clear()``); with ``restart``, also ``batch = [x]``: the next batch begun with the item
    that did not fit."""
    for statement in body:
        for n in walk(statement):
            if isinstance(n, ast.Assign) and any(_emptied(t, n.value, name) for t in n.targets):
                return True   # ``batch = []``, ``batch = list()``, ``batch, n = [], 0``
            if restart and isinstance(n, ast.Assign) and isinstance(n.value, ast.List) and len(n.value.elts) == 1 \
                    and any(isinstance(t, ast.Name) and t.id == name for t in n.targets):
                return True
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "clear" \
                    and isinstance(n.func.value, ast.Name) and n.func.value.id == name:
                return True
    return False


def _emptied(target: ast.AST, value: ast.AST, name: str) -> bool:
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
        return any(_emptied(t, v, name) for t, v in zip(target.elts, value.elts))
    return isinstance(target, ast.Name) and target.id == name and (
        (isinstance(value, ast.List) and not value.elts)
        or (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "list"
            and not value.args))


def remainder_slice(node: ast.Subscript, ctx: FileContext) -> Optional[ast.AST]:
    """``yield data[start:]`` (or ``batch = data[start:]`` then ``yield batch``) after a loop of the same function
    that yields slices of the same ``data`` and advances ``start`` (``while end < len(data): batch =
    data[start:end]; start = end; end += bs; yield batch``): a generator cutting its data in fixed steps that emits
    the rest at the end, a short last batch (session 27, recall27b). The loop, else None."""
    bounds = node.slice
    if not isinstance(node.ctx, ast.Load) or not isinstance(bounds, ast.Slice) or bounds.upper is not None \
            or bounds.step is not None or not isinstance(bounds.lower, ast.Name):
        return None
    start, data = bounds.lower.id, ast.dump(node.value)
    statement = node
    while statement is not None and not isinstance(statement, ast.stmt):
        statement = ctx.parent(statement)
    if statement is None or not _yielded(node, statement, ctx):
        return None
    function = ctx.enclosing(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    for loop in walk(function):
        if not isinstance(loop, (ast.For, ast.While)) or (loop.end_lineno or loop.lineno) >= statement.lineno \
                or ctx.enclosing(loop, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) is not function:
            continue
        inner = list(walk(loop))
        advanced = start in _stepped(loop, inner)
        cut = any(isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice) and n.slice.upper is not None
                  and ast.dump(n.value) == data and _mentions(n.slice.lower, start) for n in inner)
        if advanced and cut and any(isinstance(n, ast.Yield) for n in inner):
            return loop
    return None


def _yielded(node: ast.AST, statement: ast.stmt, ctx: FileContext) -> bool:
    """``node`` is (part of) a yielded value, or bound to a name the next statements of its block yield."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Yield):
        return True
    if not (isinstance(statement, ast.Assign) and statement.value is node and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)):
        return False
    name = statement.targets[0].id
    parent = ctx.parent(statement)
    body = next((getattr(parent, field) for field in ("body", "orelse", "finalbody")
                 if isinstance(getattr(parent, field, None), list) and statement in getattr(parent, field)), None)
    if body is None:
        return False
    return any(isinstance(n, ast.Yield) and _mentions(n.value, name)
               for later in body[body.index(statement) + 1:] for n in walk(later))


def _stepped(loop: ast.AST, inner: list) -> set[str]:
    """The names the loop moves by a fixed step (``end += bs``, ``end = end + bs``, the step bound outside the loop
    and no loop target), and those it sets to one of them (``start = end``, through one name: ``temp = end`` ...
    ``start = temp``): the bounds of chunks of one size, not a position found in the data (``start = i + 1`` after
    a separator)."""
    assigned = {t.id for n in inner if isinstance(n, (ast.Assign, ast.AugAssign))
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
    if isinstance(loop, ast.For):
        assigned |= {n.id for n in walk(loop.target) if isinstance(n, ast.Name)}

    def fixed(step: ast.AST) -> bool:
        return not any(isinstance(n, ast.Name) and n.id in assigned for n in walk(step))

    stepped: set[str] = set()
    for n in inner:
        if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add) and isinstance(n.target, ast.Name) \
                and fixed(n.value):
            stepped.add(n.target.id)
        elif isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and isinstance(n.value, ast.BinOp) and isinstance(n.value.op, ast.Add):
            name = n.targets[0].id
            sides = (n.value.left, n.value.right)
            if any(isinstance(a, ast.Name) and a.id == name and fixed(b) for a, b in (sides, sides[::-1])):
                stepped.add(name)
    for _ in range(2):   # ``temp = end`` then ``start = temp``
        stepped |= {n.targets[0].id for n in inner if isinstance(n, ast.Assign) and len(n.targets) == 1
                    and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Name)
                    and n.value.id in stepped}
    return stepped
