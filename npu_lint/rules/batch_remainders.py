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
    if name is None or node.orelse or not _emits(node.body, name):
        return None
    parent = ctx.parent(node)
    body = next((getattr(parent, field) for field in ("body", "orelse", "finalbody")
                 if isinstance(getattr(parent, field, None), list) and node in getattr(parent, field)), None)
    if body is None:
        return None
    for statement in reversed(body[:body.index(node)]):
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
            return (name, statement) if _fills_and_flushes(statement, name) else None
    return None


def _tested_list(test: ast.AST) -> Optional[str]:
    """``batch``, ``len(batch)``, ``len(batch) > 0``, ``len(batch) != 0``, ``len(batch) >= 1``: the name."""
    if isinstance(test, ast.Name):
        return test.id
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


def _emits(body: list, name: str) -> bool:
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
    for branch in walk(loop):
        if isinstance(branch, ast.If) and _full(branch.test, name, counters) and _emits(branch.body, name) \
                and _empties(branch.body, name):
            return True
    return False


def _full(test: ast.AST, name: str, counters: set[str]) -> bool:
    """The batch is full: ``len(batch) == bs``, ``len(batch) >= bs``, ``tokens + n > max_tokens`` with ``tokens``
    a running count (``tokens += n`` in the loop); not a test of the data (an end-of-sentence label)."""
    for compare in walk(test):
        if not isinstance(compare, ast.Compare) or not all(isinstance(op, (ast.Gt, ast.GtE, ast.Eq))
                                                           for op in compare.ops):
            continue
        for side in (compare.left, *compare.comparators):
            for n in walk(side):
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" \
                        and n.args and _mentions(n.args[0], name):
                    return True
                if isinstance(n, ast.Name) and n.id in counters:
                    return True
    return False


def _empties(body: list, name: str) -> bool:
    for statement in body:
        for n in walk(statement):
            if isinstance(n, ast.Assign) and any(_emptied(t, n.value, name) for t in n.targets):
                return True   # ``batch = []``, ``batch = list()``, ``batch, n = [], 0``
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
