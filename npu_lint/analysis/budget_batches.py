"""Batches closed by a budget: a loop over the samples (or their indices) appends each to a list and closes the list
-- yields it, or keeps it among the batches -- when a running count of tokens or frames passes a budget
(``if batch_frames + frame_len > max_frames: batches.append(batch); batch = [idx]``, ``if max_tokens * len(batch)
>= budget: yield batch``), so the number of samples in a batch changes with their lengths. A loop that closes the
list at a fixed count (``if len(batch) == batch_size``) is no budget. Asked by NPU418 (the test, in a sampler or a
generator of batches) and by the project index's class facts (``ClassFacts.budget``: the loaders built on such a
sampler in other modules). Nothing here is a rule."""
from __future__ import annotations

import ast
from bisect import bisect_left
from typing import Callable, Optional

from npu_lint.analysis.nodes import own_nodes, walk

_ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def budget_test(function: ast.AST) -> Optional[ast.Compare]:
    """The comparison that closes a batch on a budget in ``function`` (a generator yielding its batches, or a
    method of a class that iterates batches: ``__iter__``, its constructor, a helper popping the next batch),
    else None. The function gathers samples in a list (``batch.append(x)``, ``batch = []``) and an ``if`` on an
    ordered comparison of something it counts per sample hands the list on (``yield batch``,
    ``batches.append(batch)``, ``DataChunk(batch)``) and starts a new one; or a ``while`` on such a comparison
    keeps appending to the list it hands on."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    nodes = list(own_nodes(function))
    helpers = {n.name: n for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if helpers:   # a closure that closes the batch (ESM's ``_flush_current_buf``: ``batches.append(buf); buf = []``
        #           under ``nonlocal buf``): its nodes count where it is called
        nodes += [n for helper in helpers.values() for n in own_nodes(helper)]
    lists = {n.func.value.id for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr == "append" and isinstance(n.func.value, ast.Name) and len(n.args) == 1}
    batches = lists & _reset(nodes)   # ``batch.append(idx)`` ... ``batch = []``: the list a batch is gathered in
    if not batches:
        return None
    varying = _counted(nodes, batches)
    # the lines of the assignments that start a batch again (``batch = []``): an ``if`` whose arms hold none of them
    # closes no batch (without closures, whose assignments lie elsewhere), so its arms are not walked
    starts = None if helpers else sorted(n.lineno for n in nodes if isinstance(n, ast.Assign) and _reset([n]) & batches)
    for node in nodes:
        if isinstance(node, ast.If):
            if starts is not None and not any(_holds(arm, starts) for arm in (node.body, node.orelse)):
                continue
            closed = _closed(node, batches, helpers)
            if closed is None:
                continue
            for compare in (n for n in walk(node.test) if isinstance(n, ast.Compare)):
                if len(compare.ops) == 1 and isinstance(compare.ops[0], _ORDER) and _counts(compare, closed, varying):
                    return compare
        elif isinstance(node, ast.While):
            inside = [n for s in node.body for n in [s, *own_nodes(s)]]
            filled = {n.func.value.id for n in inside if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                      and n.func.attr == "append" and isinstance(n.func.value, ast.Name)} & batches
            grown = {n.target.id for n in inside if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add)
                     and isinstance(n.target, ast.Name)}   # a running total (not a count of what is left)
            handed = {b for b in filled if _handed(nodes, b)}
            for compare in (n for n in walk(node.test) if isinstance(n, ast.Compare)):
                if not handed or len(compare.ops) != 1 or not isinstance(compare.ops[0], _ORDER):
                    continue
                # the total on the small side: ``n + size <= budget`` / ``budget > n + size``
                small = compare.left if isinstance(compare.ops[0], (ast.Lt, ast.LtE)) else compare.comparators[0]
                if any(isinstance(n, ast.Name) and n.id in grown for n in walk(small)):
                    return compare
    return None


def _holds(arm: list[ast.stmt], lines: list[int]) -> bool:
    """Some line of ``lines`` (sorted) lies within the lines of the statements ``arm``."""
    if not arm:
        return False
    at = bisect_left(lines, arm[0].lineno)
    return at < len(lines) and lines[at] <= (arm[-1].end_lineno or arm[-1].lineno)


def _reset(nodes: list[ast.AST]) -> set[str]:
    """The names bound to a list display (``batch = []``, ``batch, n = [], 0``, ``batch = [idx]``)."""
    found = set()
    for n in nodes:
        if not isinstance(n, ast.Assign):
            continue
        for target in n.targets:
            if isinstance(target, ast.Name) and isinstance(n.value, ast.List):
                found.add(target.id)
            elif isinstance(target, ast.Tuple) and isinstance(n.value, ast.Tuple):
                found.update(e.id for e, v in zip(target.elts, n.value.elts)
                             if isinstance(e, ast.Name) and isinstance(v, ast.List))
    return found


def _counted(nodes: list[ast.AST], batches: set[str]) -> set[str]:
    """The names the function computes (loop targets, assignments), other than the batch lists and names bound only
    to a batch's length (``n = len(batch)``: a count of samples, a fixed batch size when compared)."""
    names: dict[str, bool] = {}
    for n in nodes:
        if isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
            for t in walk(n.target):
                if isinstance(t, ast.Name):
                    names[t.id] = True
        elif isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            of_length = isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name) \
                and n.value.func.id == "len" and any(isinstance(a, ast.Name) and a.id in batches for a in n.value.args)
            for target in targets:
                for t in walk(target):
                    if isinstance(t, ast.Name):
                        names[t.id] = names.get(t.id, False) or not of_length
    return {name for name, counted in names.items() if counted} - batches


def _uses(node: ast.AST, batches: set[str]) -> Optional[str]:
    """``yield batch``, ``batches.append(batch)``, ``DataChunk(batch)``: the batch list handed on, else None."""
    if isinstance(node, (ast.Yield, ast.YieldFrom)) and isinstance(node.value, ast.Name) and node.value.id in batches:
        return node.value.id
    if isinstance(node, ast.Call) and len(node.args) == 1 and isinstance(node.args[0], ast.Name) \
            and node.args[0].id in batches and not (isinstance(node.func, ast.Attribute)
                                                     and isinstance(node.func.value, ast.Name)
                                                     and node.func.value.id == node.args[0].id) \
            and not (isinstance(node.func, ast.Name) and node.func.id in ("len", "print")):
        return node.args[0].id
    return None


def _handed(nodes: list[ast.AST], batch: str) -> bool:
    return any(_uses(n, {batch}) for n in nodes)


def _closed(test: ast.If, batches: set[str], helpers: Optional[dict[str, ast.AST]] = None) -> Optional[str]:
    """The batch list the ``if`` hands on and starts again in one of its arms (also through a closure of the
    function the arm calls: ``_flush()``)."""
    for arm in (test.body, test.orelse):
        inside = [n for s in arm for n in [s, *own_nodes(s)]]
        if helpers:
            inside += [n for call in list(inside) if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                       and call.func.id in helpers for n in own_nodes(helpers[call.func.id])]
        handed = {found for n in inside for found in [_uses(n, batches)] if found}
        started = _reset(inside)
        both = handed & started
        if both:
            return sorted(both)[0]
    return None


def _counts(compare: ast.Compare, batch: str, varying: set[str]) -> bool:
    """The comparison weighs something the function counts per sample besides the batch's own length (a running
    total of frames, the longest item so far, the next item's size); ``len(batch) >= n`` alone is a fixed batch
    size."""
    for side in (compare.left, *compare.comparators):
        for node in walk(side):
            if isinstance(node, ast.Name) and node.id != batch and node.id in varying and not _in_len(side, node):
                return True
    return False


def _in_len(side: ast.AST, name: ast.Name) -> bool:
    """``name`` only inside ``len(...)`` of ``side``."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len"
               and any(m is name for m in walk(n)) for n in walk(side))


def batches_by_budget(cls: ast.ClassDef, test: Callable[[ast.AST], Optional[ast.Compare]] = budget_test) \
        -> Optional[ast.Compare]:
    """The budget test of a class that iterates batches (it defines ``__iter__``): in ``__iter__`` or in a method
    that prepares the batches it iterates (the constructor, ``_build_batches``)."""
    methods = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not any(m.name == "__iter__" for m in methods):   # no batches iterated
        return None
    return next((found for m in methods for found in [test(m)] if found is not None), None)


def padded_count(compare: ast.Compare) -> bool:
    """The budget test weighs the batch's padded size: a maximum times a count of the batch's samples (``max(sz,
    max_len) * (len(buf) + 1) > toks_per_batch``, ``max_len * len(batch) >= budget``): batches of padded samples,
    not text gathered into chunks by characters."""
    for side in (compare.left, *compare.comparators):
        for node in walk(side):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
                parts = (node.left, node.right)
                counts = [any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len"
                              for n in walk(p)) for p in parts]
                maxima = [any((isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "max")
                              or (isinstance(n, ast.Name) and "max" in n.id.lower()) for n in walk(p)) for p in parts]
                if (counts[0] and maxima[1]) or (counts[1] and maxima[0]):
                    return True
    return False
