"""Functions that cut what they are given into batches of a size they are given (a model summary, asked of the
file's own functions and, through the project index's ``batches`` fact, of other modules' functions): the last
batch holds what is left, shorter unless the size divides the length. NPU407 reports the loops that feed such a
helper's batches to a model. Pure syntax over one function: no resolver needed."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk   # ``ast.walk``'s nodes and order, the walk of a function kept

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_ISLICES = frozenset({"islice", "itertools.islice"})


def batched_parameter(function: ast.AST) -> Optional[tuple[int, str]]:
    """The position among the positional parameters and the name of the batch size, when ``function`` yields
    batches of one of its parameters cut in a size another parameter gives, the last one what is left:

    - ``for i in range(0, len(items), bs): yield items[i:i + bs]`` (the end may be clipped: ``min(i + bs, n)``);
    - ``it = iter(items)``, then ``while True: batch = list(islice(it, bs))`` yielded until it comes back empty
      (``if batch: yield batch`` / ``else: break``, or ``if not batch: break`` first); ``islice(it, 0, bs)`` too.

    None otherwise (a size that is no parameter, a constant: a fixed count the code chose)."""
    if not isinstance(function, _DEFS):
        return None
    params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    if len(params) < 2:
        return None
    found = _sliced_range(function, params)
    return found if found is not None else _sliced_iterator(function, params)


def _sliced_range(function: ast.AST, params: list[str]) -> Optional[tuple[int, str]]:
    """``for i in range(0, n, bs): yield items[i:i + bs]`` with ``items`` and ``bs`` parameters."""
    for loop in walk(function):
        if not (isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and isinstance(loop.iter, ast.Call)
                and isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "range" and len(loop.iter.args) == 3
                and isinstance(loop.iter.args[2], ast.Name) and loop.iter.args[2].id in params):
            continue
        index, size = loop.target.id, loop.iter.args[2].id
        for node in walk(loop):
            value = node.value if isinstance(node, ast.Yield) else None
            if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and value.value.id in params
                    and isinstance(value.slice, ast.Slice) and isinstance(value.slice.lower, ast.Name)
                    and value.slice.lower.id == index and value.slice.upper is not None and value.slice.step is None):
                continue
            upper = value.slice.upper
            if isinstance(upper, ast.Call) and isinstance(upper.func, ast.Name) and upper.func.id == "min" \
                    and upper.args:
                upper = upper.args[0]   # ``min(i + bs, n)``
            if isinstance(upper, ast.BinOp) and isinstance(upper.op, ast.Add) \
                    and {ast.unparse(upper.left), ast.unparse(upper.right)} == {index, size}:
                return params.index(size), size
    return None


def _sliced_iterator(function: ast.AST, params: list[str]) -> Optional[tuple[int, str]]:
    """``batch = list(islice(it, bs))`` in a ``while`` loop that yields it until it comes back empty, ``it`` a
    parameter or a name bound to ``iter(parameter)``, ``bs`` a parameter."""
    sources = set(params)
    for node in walk(function):   # ``iterable = iter(iterable)``, ``it = iter(items)``
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) \
                and node.value.func.id == "iter" and len(node.value.args) == 1 \
                and isinstance(node.value.args[0], ast.Name) and node.value.args[0].id in params:
            sources.add(node.targets[0].id)
    for loop in walk(function):
        if not isinstance(loop, ast.While):
            continue
        for statement in loop.body:
            taken = _taken(statement, sources, params)
            if taken is not None and _yielded_until_empty(loop, taken[0]):
                return params.index(taken[1]), taken[1]
    return None


def _taken(statement: ast.stmt, sources: set[str], params: list[str]) -> Optional[tuple[str, str]]:
    """``batch = list(islice(it, bs))`` (``tuple``; ``islice(it, 0, bs)``): the name bound and the size."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)):
        return None
    value = statement.value
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("list", "tuple") \
            and len(value.args) == 1:
        value = value.args[0]
    if not (isinstance(value, ast.Call) and ast.unparse(value.func) in _ISLICES and not value.keywords
            and len(value.args) in (2, 3) and isinstance(value.args[0], ast.Name) and value.args[0].id in sources):
        return None
    if len(value.args) == 3 and not (isinstance(value.args[1], ast.Constant) and value.args[1].value in (0, None)):
        return None   # ``islice(it, start, stop)``: a window, not the next batch
    size = value.args[-1]
    if not isinstance(size, ast.Name) or size.id not in params:
        return None
    return statement.targets[0].id, size.id


def _yielded_until_empty(loop: ast.While, name: str) -> bool:
    """The loop yields ``name`` and leaves when it is empty: ``if name: yield name`` with ``else: break`` (or
    ``return``), or ``if not name: break`` then ``yield name``."""
    def leaves(body: list) -> bool:
        return bool(body) and isinstance(body[-1], (ast.Break, ast.Return, ast.Raise))

    def yields(body: list) -> bool:
        return any(isinstance(n, ast.Yield) and isinstance(n.value, ast.Name) and n.value.id == name
                   for statement in body for n in walk(statement))

    for statement in loop.body:
        if not isinstance(statement, ast.If):
            continue
        test = statement.test
        if isinstance(test, ast.Name) and test.id == name and yields(statement.body) and leaves(statement.orelse):
            return True
        empty = (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Name)
                 and test.operand.id == name) or (
            isinstance(test, ast.Compare) and ast.unparse(test) in (f"len({name}) == 0", f"len({name}) < 1"))
        if empty and leaves(statement.body) and yields(loop.body):
            return True
    return False
