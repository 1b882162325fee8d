"""A method of a dataset class that builds the batch, not a sample (session 23, values23).

:func:`npu_lint.analysis.setup_time.runs_per_sample` takes every method of a dataset class for per-sample work on
the host: a shape that varies there is joined into the batch and reported where it is joined. A dataset class
often also carries its collate function (``def collate_fn(self, batch)`` handed to the loader by a data module of
another file; pytorch-forecasting's ``_collate_fn``, ptls' ``RtdDataset.collate_fn``): what that method sizes
from a tensor's value (``torch.arange(decoder_lengths.max())``, ``torch.multinomial(p, num_samples=
to_replace.sum().item())``) is the batch the model receives. Such a method is one the file passes as a collate
function, or one that the class's per-sample entries (``__getitem__``, ``__iter__``, ``__len__``, ``__init__``)
never reach and that takes a sequence of items whole (iterates it, unzips it, joins it, or hands it to a call).
NPU403 asks it before it treats a dataset's method as per-sample work. Nothing here reports.
"""
from __future__ import annotations

import ast

from npu_lint.analysis.nodes import walk
from npu_lint.analysis.setup_time import runs_per_sample
from npu_lint.context import FileContext
from npu_lint.rules.collate_samples import collate_path

_ENTRIES = frozenset({"__getitem__", "__getitems__", "__iter__", "__next__", "__len__", "__init__"})
_JOINS = frozenset({"stack", "cat", "concat", "pad_sequence", "tensor", "as_tensor", "from_numpy", "array"})


def per_sample_work(function: object, ctx: FileContext) -> bool:
    """``runs_per_sample`` without the dataset's methods that build a batch (:func:`builds_batch`)."""
    return runs_per_sample(function, ctx.resolver) and not builds_batch(function, ctx)


def builds_batch(function: object, ctx: FileContext) -> bool:
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    memo = ctx.scratch.setdefault("batch_methods", {})
    found = memo.get(id(function))
    if found is None:
        found = memo[id(function)] = _builds_batch(function, ctx)
    return found


def _builds_batch(function: ast.AST, ctx: FileContext) -> bool:
    if collate_path(function, ctx) is not None:
        return True
    cls = ctx.parent(function)
    if not isinstance(cls, ast.ClassDef) or function.name in _ENTRIES:
        return False
    if function.name in _reached(cls, ctx):
        return False
    params = [a.arg for a in function.args.args]
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list)
    items = params if static else params[1:]
    return bool(items) and _takes_items_whole(function, items[0])


def _reached(cls: ast.ClassDef, ctx: FileContext) -> frozenset[str]:
    """The methods of ``cls`` its per-sample entries reach through ``self.m`` / ``cls.m`` / ``Class.m``."""
    memo = ctx.scratch.setdefault("batch_methods_reached", {})
    found = memo.get(id(cls))
    if found is not None:
        return found
    methods = {m.name: m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
    reached = {name for name in methods if name in _ENTRIES}
    todo = list(reached)
    while todo:
        for node in walk(methods[todo.pop()]):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in ("self", "cls", cls.name) and node.attr in methods \
                    and node.attr not in reached:
                reached.add(node.attr)
                todo.append(node.attr)
    memo[id(cls)] = found = frozenset(reached)
    return found


def _takes_items_whole(function: ast.AST, name: str) -> bool:
    """``name`` is iterated (``for s in batch``, ``[... for s in batch]``), unzipped (``zip(*batch)``), joined
    (``torch.stack(batch)``) or handed whole to a call (``collate_feature_dict(batch)``)."""
    for node in walk(function):
        if isinstance(node, (ast.For, ast.comprehension)) and _is(node.iter, name):
            return True
        if isinstance(node, ast.Call) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Starred) and _is(first.value, name):
                return True
            if _is(first, name) and not (isinstance(node.func, ast.Name) and node.func.id in ("len", "isinstance",
                                                                                             "print", "str")):
                return True
    return False


def _is(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name
