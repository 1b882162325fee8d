"""NPU407's custom iterators: a class whose ``__next__`` cuts batch ``i`` of its data, ``x[i * bs:(i + 1) * bs]``,
``i`` its own counter (``i = self.current_batch; self.current_batch += 1``), until the counter reaches a count of
batches. Unless that count is proven whole (``len(x) // bs``: the tail never served), the last batch is the tail:
shorter (torchkge's ``DataLoader`` / ``TrainDataLoader`` iterators, a hand-written loader's ``_DataLoaderIter``)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext

_NEXT = ("__next__", "next")


def _stop_counts(method: ast.FunctionDef, klass: ast.ClassDef) -> list[ast.AST]:
    """The counts ``__next__`` stops at (``if self.i == self.n_batches: raise StopIteration``, ``>=``), read
    through the class's own assignments of that attribute (``self.n_batches = get_n_batches(len(h), bs)``)."""
    counts: list[ast.AST] = []
    for test in (n.test for n in walk(method) if isinstance(n, ast.If)
                 and any(isinstance(s, ast.Raise) for s in n.body)):
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1
                and isinstance(test.ops[0], (ast.Eq, ast.GtE, ast.Gt))):
            continue
        count = test.comparators[0]
        if isinstance(count, ast.Attribute) and isinstance(count.value, ast.Name) and count.value.id == "self":
            counts += [n.value for n in walk(klass) if isinstance(n, ast.Assign) and any(
                isinstance(t, ast.Attribute) and t.attr == count.attr for t in n.targets)]
        else:
            counts.append(count)
    return counts


def _whole(count: ast.AST) -> bool:
    """A count of whole batches: ``n // bs`` (``int(n / bs)``), the tail never served."""
    if isinstance(count, ast.BinOp) and isinstance(count.op, ast.FloorDiv):
        return True
    return isinstance(count, ast.Call) and isinstance(count.func, ast.Name) and count.func.id == "int" \
        and len(count.args) == 1 and isinstance(count.args[0], ast.BinOp) and isinstance(count.args[0].op, ast.Div)


def iterator_chunk(node: ast.Subscript, index: str, step: ast.AST, ctx: FileContext) -> Optional[str]:
    """``x[i * s:(i + 1) * s]`` in a class's ``__next__`` whose ``i`` is its own counter and whose stop is not a
    count of whole batches (nor the step a constant 1): the description of the count it stops at, else None.
    Reported once per ``__next__``."""
    if isinstance(step, ast.Constant) and step.value == 1:
        return None
    method = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    if not isinstance(method, ast.FunctionDef) or method.name not in _NEXT:
        return None
    klass = ctx.enclosing(method, (ast.ClassDef,))
    if not isinstance(klass, ast.ClassDef):
        return None
    counter = next((n.value for n in walk(method) if isinstance(n, ast.Assign) and len(n.targets) == 1
                    and isinstance(n.targets[0], ast.Name) and n.targets[0].id == index), None)
    if not (isinstance(counter, ast.Attribute) and isinstance(counter.value, ast.Name) and counter.value.id == "self"):
        return None     # ``i`` is the iterator's own counter, ``i = self.current_batch``
    if not any(isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add) and isinstance(n.target, ast.Attribute)
               and n.target.attr == counter.attr for n in walk(method)):
        return None     # ``self.current_batch += 1``: it moves one batch per call
    counts = _stop_counts(method, klass)
    if not counts or any(_whole(count) for count in counts):
        return None
    done = ctx.scratch.setdefault("iterator_chunks", set())
    if id(method) in done:
        return None
    done.add(id(method))
    return ast.unparse(counts[0])[:40]


def getitem_chunk(node: ast.Subscript, index: str, step: ast.AST, ctx: FileContext) -> Optional[str]:
    """``x[idx * bs:(idx + 1) * bs]`` in a class's ``__getitem__(self, idx)`` whose ``__len__`` returns a count of
    batches rounded up (``(self.num_nodes - 1) // self.batch_size + 1``, ``math.ceil(n / bs)``): a dataset serving
    batch ``idx`` of its data (cogdl's ``NeighborSamplerDataset``), the last one the short tail. The count's source,
    else None. Reported once per ``__getitem__``."""
    from npu_lint.rules.chunk_counts import rounded_up   # (chunk_counts reads chunk_steps, which reads this module)
    if isinstance(step, ast.Constant):
        return None
    method = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    if not isinstance(method, ast.FunctionDef) or method.name != "__getitem__" or len(method.args.args) != 2 \
            or method.args.args[1].arg != index:
        return None
    klass = ctx.enclosing(method, (ast.ClassDef,))
    length = next((m for m in getattr(klass, "body", []) if isinstance(m, ast.FunctionDef) and m.name == "__len__"),
                  None)
    returns = [n.value for n in walk(length) if isinstance(n, ast.Return) and n.value is not None] if length else []
    if len(returns) != 1 or any(isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == index
                                                                  for t in n.targets) for n in walk(method)):
        return None
    count = returns[0]
    sizes = {ast.unparse(n) for n in walk(count) if isinstance(n, (ast.Name, ast.Attribute))}
    if not any(rounded_up(count, step, ctx, bound=size) for size in sizes):
        return None
    done = ctx.scratch.setdefault("iterator_chunks", set())
    if id(method) in done:
        return None
    done.add(id(method))
    return ast.unparse(count)[:40]
