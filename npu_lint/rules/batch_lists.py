"""Batches made by hand (NPU407, short_chunks.py): the batches a data source serves (``self.data = [data[i:i + bs]
for i in range(0, len(data), bs)]`` in a class with ``__len__`` and ``__getitem__``, or in a torch ``Sampler``),
library batchers (``more_itertools.chunked``, ``itertools.batched``) whose batches a loop gives to a model, and a
list of chunk starts walked by a loop (``starts = list(range(0, n, bs)); random.shuffle(starts)``). Nothing here is
a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.scopes import VALUE
from npu_lint.context import FileContext
from npu_lint.rules.chunk_steps import derived, loops_over, model_call

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)

# Library functions that cut an iterable into lists of ``n`` (the last one shorter), with the position and keyword
# of the batch size: more_itertools' ``chunked`` / ``ichunked``, ``itertools.batched`` (3.12), toolz'
# ``partition_all``, boltons' ``chunked``, gluonts' ``batcher``.
BATCHERS = {"more_itertools.chunked": (1, "n"), "more_itertools.ichunked": (1, "n"),
            "more_itertools.more.chunked": (1, "n"), "itertools.batched": (1, "n"),
            "toolz.partition_all": (0, "n"), "cytoolz.partition_all": (0, "n"),
            "toolz.itertoolz.partition_all": (0, "n"), "boltons.iterutils.chunked": (1, "size"),
            "gluonts.itertools.batcher": (1, "batch_size")}
_DATA_BASES = ("torch.utils.data.Sampler", "torch.utils.data.sampler.Sampler", "torch.utils.data.BatchSampler",
               "torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler",
               "torch.utils.data.Dataset", "torch.utils.data.IterableDataset")


def served_batches(node: ast.Subscript, loop: ast.AST, ctx: FileContext) -> bool:
    """``[data[i:i + bs] for i in range(...)]``, the chunk itself the element, in a method of a class that serves
    items: a torch ``Sampler`` / ``Dataset`` subclass, or a class with ``__len__`` and ``__getitem__`` or
    ``__iter__`` (a project's own loader). The list is the batches it serves, the last one shorter."""
    if not isinstance(loop, ast.ListComp) or loop.elt is not node:
        return False
    cls = ctx.enclosing(loop, (ast.ClassDef,))
    if not isinstance(cls, ast.ClassDef):
        return False
    if any(ctx.resolver.qualname(base) in _DATA_BASES for base in cls.bases):
        return True
    methods = {n.name for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return "__len__" in methods and bool(methods & {"__getitem__", "__iter__"})


def own_batcher(node: ast.Call, ctx: FileContext) -> Optional[tuple[int, str]]:
    """The file's own generator that cuts a parameter in chunks of a parameter's size (``def batch(items, bs=1):
    for i in range(0, len(items), bs): yield items[i:min(i + bs, len(items))]``, or ``items[i:i + bs]``): the
    position and name of the size parameter, as ``BATCHERS`` gives them; else None."""
    own = ctx.resolver.own_function(node)
    function = own[0] if own is not None and own[1] == 0 else None
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    params = [a.arg for a in function.args.posonlyargs + function.args.args]
    for loop in ast.walk(function):
        if not (isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and isinstance(loop.iter, ast.Call)
                and isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "range" and len(loop.iter.args) == 3
                and isinstance(loop.iter.args[2], ast.Name) and loop.iter.args[2].id in params):
            continue
        index, size = loop.target.id, loop.iter.args[2].id
        for node_ in ast.walk(loop):
            value = node_.value if isinstance(node_, ast.Yield) else None
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


_JOINS = frozenset({"torch.cat", "torch.concat", "torch.stack"})


def own_batch_join(node: ast.Call, ctx: FileContext) -> Optional[ast.Call]:
    """Where a loop over the file's own batcher (``own_batcher``) makes its chunk a tensor (``torch.stack(chunk)``,
    ``torch.cat(chunk)``): the short tail's shape is born there, not in the generator. None: no such join."""
    if own_batcher(node, ctx) is None:
        return None
    for target, body in loops_over(node, ctx):
        names = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        for statement in body:
            for call in ast.walk(statement) if statement is not None else ():
                if isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.Name) \
                        and call.args[0].id in names and ctx.resolver.qualname(call.func) in _JOINS:
                    return call
    return None


def library_batches(node: ast.Call, ctx: FileContext) -> Optional[tuple[ast.AST, ast.Call]]:
    """``for batch in chunked(items, bs): model(...)``: the batch size and the model call, when a loop over a
    library batcher's lists gives one (or what it builds from it) to a model; None otherwise, and for a batcher
    asked to refuse a short tail (``strict=True``)."""
    spec = BATCHERS.get(ctx.resolver.qualname(node.func) or "") or own_batcher(node, ctx)
    if spec is None or any(kw.arg == "strict" and not (isinstance(kw.value, ast.Constant) and kw.value.value is False)
                           for kw in node.keywords):
        return None
    position, keyword = spec
    size = node.args[position] if len(node.args) > position else \
        next((kw.value for kw in node.keywords if kw.arg == keyword), None)
    if size is None or (isinstance(size, ast.Constant) and size.value == 1):
        return None
    call = _fed_model(node, ctx)
    return (size, call) if call is not None else None


# Splits into ``n`` parts as equal as they can be (``np.array_split(x, 10)``: sizes differing by one) or at given
# indices; an integer count of sections is what is read here.
_SECTION_SPLITS = frozenset({"numpy.array_split", "torch.tensor_split"})


def section_pieces(node: ast.Call, ctx: FileContext) -> Optional[tuple[ast.AST, ast.Call]]:
    """``for part in np.array_split(x, n): model(part)`` (``torch.tensor_split``, ``x.tensor_split(n)``): parts
    whose sizes differ by one unless ``n`` divides the length, each a second shape for the model; the count and
    the model call, else None (a list of split indices, no model fed)."""
    func = node.func
    name = ctx.resolver.qualname(func)
    if name in _SECTION_SPLITS:
        rest = node.args[1:]
    elif name is None and isinstance(func, ast.Attribute) and func.attr == "tensor_split" \
            and ctx.resolver.kind_of(func.value) in ("tensor", "batch"):
        rest = node.args
    else:
        return None
    count = rest[0] if rest else next((kw.value for kw in node.keywords
                                       if kw.arg in ("indices_or_sections", "sections")), None)
    if count is None or isinstance(count, (ast.List, ast.Tuple, ast.ListComp)) \
            or (isinstance(count, ast.Constant) and count.value in (1, 2)) \
            or ctx.resolver.kind_of(count) in ("list", "tensor"):
        return None   # split points, halves, or a single part
    call = _fed_model(node, ctx)
    return (count, call) if call is not None else None


def _fed_model(node: ast.Call, ctx: FileContext) -> Optional[ast.Call]:
    """The model call a loop (or comprehension) over ``node`` feeds with what it iterates, else None."""
    for target, body in loops_over(node, ctx):
        names = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        call = model_call(body, derived(body, names), ctx)
        if call is not None:
            return call
    return None


_ISLICES = frozenset({"itertools.islice"})


def sliced_batches(node: ast.Call, ctx: FileContext) -> Optional[ast.AST]:
    """``batch = list(islice(it, bs))`` in a ``while`` loop that stops when it comes back empty (``if not batch:
    break``) and emits it (``yield``, or a model fed): the batching idiom whose last batch holds what is left.
    The batch size, else None."""
    if ctx.resolver.qualname(node.func) not in _ISLICES or len(node.args) != 2 or node.keywords:
        return None
    size = node.args[1]
    if isinstance(size, ast.Constant) and size.value in (1, None):
        return None
    value, parent = node, ctx.parent(node)
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in ("list", "tuple") \
            and parent.args and parent.args[0] is node:
        value, parent = parent, ctx.parent(parent)
    if not (isinstance(parent, ast.Assign) and parent.value is value and len(parent.targets) == 1
            and isinstance(parent.targets[0], ast.Name)):
        return None
    name = parent.targets[0].id
    loop = ctx.enclosing(parent, (ast.While, ast.For, *_DEFS))
    if not isinstance(loop, ast.While) or not _stops_when_empty(loop, name):
        return None
    emitted = any(isinstance(n, ast.Yield) and n.value is not None
                  and any(isinstance(m, ast.Name) and m.id in derived(loop.body, {name}) for m in ast.walk(n.value))
                  for statement in loop.body for n in ast.walk(statement))
    return size if emitted or model_call(loop.body, derived(loop.body, {name}), ctx) is not None else None


def _stops_when_empty(loop: ast.While, name: str) -> bool:
    """``if not batch: break`` (or ``return``; ``len(batch) == 0``) in the loop's body."""
    for statement in loop.body:
        if not isinstance(statement, ast.If) or not statement.body \
                or not isinstance(statement.body[0], (ast.Break, ast.Return)):
            continue
        test = statement.test
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Name) \
                and test.operand.id == name:
            return True
        if isinstance(test, ast.Compare) and isinstance(test.left, ast.Call) and ast.unparse(test.left) == \
                f"len({name})" and isinstance(test.ops[0], ast.Eq) and ast.unparse(test.comparators[0]) == "0":
            return True
    return False


def listed_range(source: ast.AST, ctx: FileContext) -> ast.AST:
    """``range(0, n, bs)`` for a name bound (once, unpacked from nothing) to ``list(range(0, n, bs))`` or the range
    itself: the chunk starts a loop walks, perhaps shuffled in place; ``source`` otherwise."""
    if not isinstance(source, ast.Name):
        return source
    binding = ctx.resolver.binding(source)
    if binding is None or binding.tag != VALUE or binding.path or not isinstance(binding.value, ast.AST):
        return source
    value = binding.value
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "list" \
            and len(value.args) == 1:
        value = value.args[0]
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "range":
        return value
    return source
