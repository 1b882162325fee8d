"""Evidence, in the loop that builds a list, that its items differ in length: the same loop records each item's row
count in a list the function then makes a tensor of: the count itself (``lens.append(len(x))``), a running
offset (``count += len(x)``; ``offset.append(count)``: the point-cloud and graph batches' ``offset`` / ``ptr``) or
one tag per row (``batch += [i] * len(x)``). Nobody keeps a tensor of counts that are all the same (the list of
per-level sizes used to split a concatenation back stays a Python list). The item must be the very expression
measured (``data["pos"]`` for ``len(data["pos"])``): another field of the same sample may have one row. And the
running offset a graph batch adds to each sample's indices (``g.edge_index + offset`` with ``offset +=
g.num_nodes``), which a collate path joins along any dimension. Shared by NPU409 (sample_items.py)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES
from npu_lint.rules.sample_lengths import makes_tensor, measured_item, own_nodes


def _measured_index(loop: ast.AST) -> dict[str, set[int]]:
    index: dict[str, set[int]] = {}
    for node in walk(loop):
        found = measured_item(node)
        if found is not None:
            index.setdefault(ast.dump(found), set()).add(id(node))
    return index


def recorded_rows(element: ast.AST, loop: ast.For, ctx: FileContext) -> Optional[str]:
    """Why ``element`` (an item the loop ``loop`` adds to a list) has a row count of its own: the loop records it
    in a list made a tensor of (with the line), else None."""
    key = ast.dump(element)
    # the loop's measured items by their text, once a file (asked per item of every join)
    measures = ctx.per_node("sample_counts_measured", loop, _measured_index).get(key, set())
    if not measures:
        return None
    counters = {node.target.id for node in walk(loop) if isinstance(node, ast.AugAssign)
                and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name) and id(node.value) in measures}

    def carries(value: ast.AST) -> bool:
        if id(value) in measures or (isinstance(value, ast.Name) and value.id in counters):
            return True     # the count, or the running offset
        return isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult) and any(   # ``[i] * len(x)``
            isinstance(a, (ast.List, ast.Tuple)) and id(b) in measures
            for a, b in ((value.left, value.right), (value.right, value.left)))

    lists = set()
    for node in walk(loop):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "extend") \
                and isinstance(node.func.value, ast.Name) and len(node.args) == 1 and carries(node.args[0]):
            lists.add(node.func.value.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add) \
                and carries(node.value):
            if node.target.id not in counters:
                lists.add(node.target.id)
    function = ctx.enclosing(loop, FUNCTION_TYPES)
    if not lists or function is None:
        return None
    for node in own_nodes(function):
        if isinstance(node, ast.Call) and len(node.args) == 1 and isinstance(node.args[0], ast.Name) \
                and node.args[0].id in lists and makes_tensor(node, ctx):
            return f"the loop records each item's row count in {node.args[0].id}, made a tensor on line {node.lineno}"
    return None


def shifted_field(element: ast.BinOp, loop: ast.For) -> Optional[ast.AST]:
    """``g.edge_index`` of ``g.edge_index + offset`` when the loop adds a size of the same sample to ``offset``
    (``offset += g.num_nodes``, ``offset += len(g.x)``; not a constant stride), else None."""
    if not isinstance(element.op, ast.Add):
        return None
    for field, counter in ((element.left, element.right), (element.right, element.left)):
        root = field
        while isinstance(root, (ast.Subscript, ast.Attribute)):
            root = root.value
        if not isinstance(counter, ast.Name) or not isinstance(root, ast.Name) or root is field:
            continue
        for node in walk(loop):
            if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name) \
                    and node.target.id == counter.id and any(isinstance(n, ast.Name) and n.id == root.id
                                                             for n in walk(node.value)):
                return field
    return None
