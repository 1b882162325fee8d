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
    data = params + ([function.args.vararg.arg] if function.args.vararg is not None else [])
    if len(data) < 2:
        return None
    found = _sliced_range(function, params) if len(params) >= 2 else None
    if found is None:
        found = _counted_slices(function, params, data)
    return found if found is not None or len(params) < 2 else _sliced_iterator(function, params)


def _counted_slices(function: ast.AST, params: list[str], data: list[str]) -> Optional[tuple[int, str]]:
    """``n_batches = len(args[0]) // bs + int(len(args[0]) % bs != 0)``; ``for b in range(n_batches): yield
    [arg[b * bs:(b + 1) * bs] for arg in args]`` (segment-anything's ``batch_iterator(batch_size, *args)``): batch
    ``b`` of a count rounded up, cut from a parameter (or an item of ``*args``), ``bs`` a parameter."""
    bound = {n.targets[0].id: n.value for n in walk(function) if isinstance(n, ast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name)}
    for loop in walk(function):
        if not (isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and isinstance(loop.iter, ast.Call)
                and isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "range"
                and len(loop.iter.args) == 1):
            continue
        index, count = loop.target.id, loop.iter.args[0]
        if isinstance(count, ast.Name):
            count = bound.get(count.id, count)
        sources = set(data) | {g.target.id for n in walk(loop) if isinstance(n, (ast.ListComp, ast.GeneratorExp))
                               for g in n.generators if isinstance(g.target, ast.Name)
                               and isinstance(g.iter, ast.Name) and g.iter.id in data}
        for node in walk(loop):
            value = node.value if isinstance(node, ast.Yield) else None
            for part in walk(value) if value is not None else ():
                size = _counted_size(part, index, sources, params)
                if size is not None and _rounded_up(count, size):
                    return params.index(size), size
    return None


def _counted_size(node: ast.AST, index: str, sources: set[str], params: list[str]) -> Optional[str]:
    """``x[b * bs:(b + 1) * bs]`` with ``x`` a source and ``bs`` a parameter: the size's name."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in sources
            and isinstance(node.slice, ast.Slice) and isinstance(node.slice.lower, ast.BinOp)
            and isinstance(node.slice.lower.op, ast.Mult) and node.slice.upper is not None):
        return None
    lower = node.slice.lower
    names = {ast.unparse(lower.left), ast.unparse(lower.right)}
    size = next((name for name in names - {index} if name in params), None)
    if index not in names or size is None:
        return None
    return size if ast.unparse(node.slice.upper).replace(" ", "") in (
        f"({index}+1)*{size}", f"{size}*({index}+1)", f"(1+{index})*{size}") else None


def _rounded_up(count: ast.AST, size: str) -> bool:
    """A count of batches rounded up: ``n // bs + int(n % bs != 0)``, ``math.ceil(n / bs)``, ``(n + bs - 1) //
    bs``, ``-(-n // bs)``."""
    text = ast.unparse(count).replace(" ", "")
    return f"%{size}" in text or "ceil(" in text or f"{size}-1)//{size}" in text or text.startswith("-(-")


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
        if isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and isinstance(loop.iter, ast.Name) \
                and loop.iter.id in sources - set(params):   # ``it = iter(items)``: batches taken from one iterator
            size = _chained_rest(loop, loop.target.id, loop.iter.id, params)
            if size is not None:
                return params.index(size), size
        if not isinstance(loop, ast.While):
            continue
        for statement in loop.body:
            taken = _taken(statement, sources, params)
            if taken is not None and _yielded_until_empty(loop, taken[0]):
                return params.index(taken[1]), taken[1]
    return None


def _chained_rest(loop: ast.For, first: str, it: str, params: list[str]) -> Optional[str]:
    """``for first in it: yield list(chain([first], islice(it, bs - 1)))`` (the ``chunks`` recipe: the first item
    of each batch taken by the loop, the rest of it from the same iterator; session 24, nanotron's ``chunks``): the
    size's name, a parameter; the last batch holds what the iterator had left."""
    for node in walk(loop):
        value = node.value if isinstance(node, ast.Yield) else None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("list", "tuple") \
                and len(value.args) == 1:
            value = value.args[0]
        if not (isinstance(value, ast.Call) and ast.unparse(value.func) in ("chain", "itertools.chain")
                and len(value.args) == 2 and isinstance(value.args[0], (ast.List, ast.Tuple))
                and [ast.unparse(e) for e in value.args[0].elts] == [first]):
            continue
        rest = value.args[1]
        if not (isinstance(rest, ast.Call) and ast.unparse(rest.func) in _ISLICES and len(rest.args) == 2
                and isinstance(rest.args[0], ast.Name) and rest.args[0].id == it):
            continue
        size = rest.args[1]
        if isinstance(size, ast.BinOp) and isinstance(size.op, ast.Sub) and isinstance(size.right, ast.Constant) \
                and size.right.value == 1 and isinstance(size.left, ast.Name) and size.left.id in params:
            return size.left.id
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


def group_sizes(function: ast.AST) -> bool:
    """``function(num, divisor)`` returns the sizes of the groups ``num`` cut in ``divisor``s, the remainder last:
    ``arr = [divisor] * (num // divisor)``, then ``arr.append(num % divisor)`` (denoising-diffusion-pytorch's
    ``num_to_groups``; ``[bs] * q + [n % bs]`` in one expression too). Pure syntax: a list of one parameter
    repeated, and that parameter taking a remainder (``% divisor``) in the same function."""
    if not isinstance(function, _DEFS):
        return False
    params = {a.arg for a in (*function.args.posonlyargs, *function.args.args)}
    if len(params) < 2 or not any(isinstance(n, ast.Return) and n.value is not None for n in walk(function)):
        return False
    repeated = {n.left.elts[0].id for n in walk(function)
                if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) and isinstance(n.left, ast.List)
                and len(n.left.elts) == 1 and isinstance(n.left.elts[0], ast.Name)} & params
    remainders = {n.right.id for n in walk(function)
                  if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) and isinstance(n.right, ast.Name)}
    return bool(repeated & remainders)
