"""Batches closed by a budget: a loop over the samples (or their indices) appends each to a list and closes the list
-- yields it, or keeps it among the batches -- when a running count of tokens or frames passes a budget
(``if batch_frames + frame_len > max_frames: batches.append(batch); batch = [idx]``, ``if max_tokens * len(batch)
>= budget: yield batch``), so the number of samples in a batch changes with their lengths. A loop that closes the
list at a fixed count (``if len(batch) == batch_size``) is no budget. Asked by NPU418 (the test, in a sampler or a
generator of batches) and by the project index's class facts (``ClassFacts.budget``: the loaders built on such a
sampler in other modules). Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk

_ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _own(node: ast.AST):
    """The nodes of ``node``'s body, nested functions and classes left out."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        yield child
        if not isinstance(child, _FUNCTIONS):
            stack.extend(ast.iter_child_nodes(child))


def budget_test(function: ast.AST) -> Optional[ast.Compare]:
    """The comparison that closes a batch on a budget in ``function`` (a generator yielding its batches, or a
    method of a class that iterates batches: ``__iter__`` / its constructor), else None."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    for loop in (n for n in _own(function) if isinstance(n, (ast.For, ast.AsyncFor))):
        found = _loop_budget(loop)
        if found is not None:
            return found
    return None


def _loop_budget(loop: ast.For) -> Optional[ast.Compare]:
    body = [n for statement in loop.body for n in [statement, *_own(statement)]]
    lists = {n.func.value.id for n in body if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr == "append" and isinstance(n.func.value, ast.Name) and len(n.args) == 1}
    if not lists:
        return None
    reset = {t.id for n in body if isinstance(n, ast.Assign) and isinstance(n.value, ast.List)
             for t in n.targets if isinstance(t, ast.Name)} | {
        e.id for n in body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Tuple)
        for t in n.targets if isinstance(t, ast.Tuple)
        for e, v in zip(t.elts, n.value.elts) if isinstance(e, ast.Name) and isinstance(v, ast.List)}
    batches = lists & reset     # ``batch.append(idx)`` ... ``batch = []``: the list a batch is gathered in
    if not batches:
        return None
    varying = {t.id for t in walk(loop.target) if isinstance(t, ast.Name)} | {
        t.id for n in body if isinstance(n, (ast.Assign, ast.AugAssign))
        for target in (n.targets if isinstance(n, ast.Assign) else [n.target])
        for t in walk(target) if isinstance(t, ast.Name)}
    for test in (n for n in body if isinstance(n, ast.If)):
        closed = _closed(test, batches)
        if closed is None:
            continue
        for compare in (n for n in walk(test.test) if isinstance(n, ast.Compare)):
            if len(compare.ops) == 1 and isinstance(compare.ops[0], _ORDER) and _counts(compare, closed, varying):
                return compare
    return None


def _closed(test: ast.If, batches: set[str]) -> Optional[str]:
    """The batch list the ``if`` (either arm) closes: ``yield batch`` or ``batches.append(batch)``."""
    for node in (n for s in test.body + test.orelse for n in [s, *_own(s)]):
        if isinstance(node, (ast.Yield, ast.YieldFrom)) and isinstance(node.value, ast.Name) \
                and node.value.id in batches:
            return node.value.id
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" \
                and len(node.args) == 1 and isinstance(node.args[0], ast.Name) and node.args[0].id in batches \
                and not (isinstance(node.func.value, ast.Name) and node.func.value.id == node.args[0].id):
            return node.args[0].id
    return None


def _counts(compare: ast.Compare, batch: str, varying: set[str]) -> bool:
    """The comparison weighs something the loop counts per sample besides the batch's own length (a running total
    of frames, the longest item so far, the next item's size); ``len(batch) >= n`` alone is a fixed batch size."""
    names = set()
    for side in (compare.left, *compare.comparators):
        for node in walk(side):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
                continue
            if isinstance(node, ast.Name) and node.id != batch and node.id in varying and not _in_len(side, node):
                names.add(node.id)
    return bool(names)


def _in_len(side: ast.AST, name: ast.Name) -> bool:
    """``name`` only inside ``len(...)`` of ``side``."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len"
               and any(m is name for m in walk(n)) for n in walk(side))


def batches_by_budget(cls: ast.ClassDef) -> Optional[ast.Compare]:
    """The budget test of a class that iterates batches (it defines ``__iter__``): in ``__iter__`` or in a method
    that prepares the batches it iterates (the constructor, ``_build_batches``)."""
    methods = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not any(m.name == "__iter__" for m in methods):
        return None
    return next((found for m in methods for found in [budget_test(m)] if found is not None), None)
