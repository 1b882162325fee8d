"""Loops whose number of iterations is a value of the data (NPU403, dynamic_values.py): ``for lb in
torch.unique(kernel)``, ``for expert in mask.nonzero()``, ``for b, l in zip(boxes[keep], labels[keep])``, whose body
leaves tensor work behind each iteration (builds tensors to join, writes into a tensor, carries one across
iterations, runs an in-place op): the step runs one more set of operators per element, a new graph per count.
Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.data_shapes import data_shaped
from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES

# Calls a ``for`` loop iterates through that walk their first argument once, in order or reversed.
_WRAPPERS = frozenset({"enumerate", "reversed", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm",
                       "tqdm.autonotebook.tqdm"})


def loop_over_data(loop: ast.For, ctx: FileContext) -> Optional[tuple[ast.AST, str]]:
    """The data-dependent op whose result the loop walks and what varies with it, else None."""
    op = None
    for iterated in _iterated(loop.iter, ctx):
        if isinstance(iterated, (ast.Name, ast.Call, ast.Subscript)):
            op = data_shaped(ctx.resolver, iterated, ctx.resolver.current)
            if op is not None:
                break
    if op is None:
        return None
    if _builds(loop, ctx):
        return op, "the tensors it builds vary in number"
    if _computes(loop, ctx):
        return op, "the number of operators the step runs varies with it"
    return None


def _iterated(source: ast.AST, ctx: FileContext) -> list[ast.AST]:
    """The sequences a loop walks in step: ``labels.unique()`` for ``enumerate(labels.unique())``,
    ``tqdm(...)``, ``reversed(...)``; each argument of ``zip(boxes[keep], scores[keep])``."""
    for _ in range(4):
        if not isinstance(source, ast.Call) or not source.args:
            break
        name = ctx.resolver.qualname(source.func) or (source.func.id if isinstance(source.func, ast.Name) else "")
        if name == "zip":
            return list(source.args)
        if name not in _WRAPPERS:
            break
        source = source.args[0]
    return [source]


def _computes(loop: ast.For, ctx: FileContext) -> bool:
    """The loop's body leaves tensor work behind each iteration: it writes into a tensor (``out[ids == lb] = v``,
    ``x[inds] = f(x[inds])`` with a tensor index, ``acc[i] += x.sum()``, ``y.index_add_(0, idx, v)``) or carries a
    tensor from one iteration to the next (``loss = loss + d.mean()``, ``total += x.sum()``). Tensors computed only
    to be read back (a log line, a run-length encoding, counts written into a numpy array) leave nothing on the
    device."""
    resolver = ctx.resolver
    for statement in loop.body:
        for child in walk(statement):
            if isinstance(child, (ast.Assign, ast.AugAssign)):
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                for target in targets:
                    if isinstance(target, ast.Subscript) and not resolver.is_host(target.value) and (
                            resolver.is_tensor(target.value) or _tensor_index(target.slice, ctx)
                            or (isinstance(child, ast.AugAssign) and resolver.is_tensor(child.value))):
                        return True
                    if isinstance(target, ast.Name) and resolver.is_tensor(child.value) and (
                            isinstance(child, ast.AugAssign) or any(isinstance(n, ast.Name) and n.id == target.id
                                                                    for n in walk(child.value))):
                        return True
            elif isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) \
                    and child.func.attr.endswith("_") and not child.func.attr.startswith("_") \
                    and resolver.is_tensor(child.func.value):
                return True
    return False


def _tensor_index(index: ast.AST, ctx: FileContext) -> bool:
    """``x[inds]``, ``x[i, inds]``: an index the model says is a tensor (a mask or index tensor: ``x`` is one too)."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return any(not isinstance(part, (ast.Slice, ast.Constant)) and ctx.resolver.is_tensor(part) for part in parts)


def _concatenates(call: ast.Call, ctx: FileContext) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr in ("cat", "stack", "concat") \
        and (ctx.resolver.qualname(call.func) or "").startswith("torch.")


def _builds(loop: ast.For, ctx: FileContext) -> bool:
    """The loop's body appends tensors to a list (a tensor, or a list that is concatenated or stacked later)
    or concatenates them: one tensor (or one row) per element (a list of host values, such as run-length
    encodings, is no tensor shape)."""
    lists: set[str] = set()
    for child in walk(loop):
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute):
            if child.func.attr == "append" and len(child.args) == 1:
                if ctx.resolver.is_tensor(child.args[0]):
                    return True
                if isinstance(child.func.value, ast.Name):
                    lists.add(child.func.value.id)
            elif _concatenates(child, ctx):
                return True
    scope = ctx.enclosing(loop, FUNCTION_TYPES)
    return bool(lists) and scope is not None and any(
        isinstance(c, ast.Call) and _concatenates(c, ctx) and c.args and isinstance(c.args[0], ast.Name)
        and c.args[0].id in lists for c in walk(scope))
