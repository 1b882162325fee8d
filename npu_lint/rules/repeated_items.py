"""Lists extended by an item repeated a number of times the data gives, for NPU409 (dynamic_samples.py):
``for b, n in enumerate(samples["n_answers"]): states += [h[b]] * n`` then ``torch.stack(states)`` -- the list's
length is the sum of the counts, which changes with every batch."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES


def _repeat_count(value: ast.AST) -> Optional[ast.Name]:
    """``[x] * n`` / ``n * [x]``: the name ``n`` repeating a one-item list."""
    if not isinstance(value, ast.BinOp) or not isinstance(value.op, ast.Mult):
        return None
    for items, count in ((value.left, value.right), (value.right, value.left)):
        if isinstance(items, ast.List) and len(items.elts) == 1 and isinstance(count, ast.Name):
            return count
    return None


def repeated_items(items: ast.Name, node: ast.Call, ctx: FileContext) -> Optional[tuple[ast.For, ast.AST]]:
    """The loop and the sequence it walks when the function extends ``items`` by one item repeated ``n`` times
    (``items += [x] * n``, ``items.extend([x] * n)``), ``n`` bound by that loop from the sequence's values (not a
    ``range`` counter): as many items as the counts the data holds add up to."""
    function = ctx.enclosing(node, FUNCTION_TYPES)
    if function is None:
        return None
    for loop in walk(function):
        if not isinstance(loop, ast.For) or loop.lineno > node.lineno:
            continue
        bound = {n.id for n in walk(loop.target) if isinstance(n, ast.Name)}
        iterated = loop.iter
        if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.func.id == "range":
            continue
        for child in walk(loop):
            value = None
            if isinstance(child, ast.AugAssign) and isinstance(child.op, ast.Add) \
                    and isinstance(child.target, ast.Name) and child.target.id == items.id:
                value = child.value
            elif isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and child.func.attr == "extend" \
                    and isinstance(child.func.value, ast.Name) and child.func.value.id == items.id and child.args:
                value = child.args[0]
            count = _repeat_count(value) if value is not None else None
            if count is not None and count.id in bound:
                return loop, iterated
    return None
