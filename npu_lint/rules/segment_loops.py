"""A loop over the segments of a batch vector: ``for b in range(batch[-1] + 1): m = batch == b`` (also
``batch.max() + 1``, ``int(...)`` / ``.item()`` of either). The count is the last (or largest) segment id read back
from the tensor that assigns each point, node or box to its sample: how many samples the batch holds, a sync and a
number of steps that varies per batch. The body selecting by ``batch == b`` shows the vector is such an assignment,
whatever the model knows of its kind (a parameter, ``data.batch``); a host array or list, or a tensor of constants,
is left alone."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.configuration import from_constants
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import VALUE
from npu_lint.context import FileContext

_READS = frozenset({"int", "item"})


def segment_count(call: ast.Call, ctx: FileContext, scope) -> Optional[ast.AST]:
    """The read (``batch[-1]``, ``batch.max()``) that counts the segments ``call`` (a loop's ``range``) runs over,
    when the loop selects each segment by comparing the vector with its variable (None: not this form)."""
    loop = ctx.parent(call)
    if not isinstance(loop, ast.For) or not isinstance(loop.target, ast.Name) or len(call.args) != 1:
        return None
    count = call.args[0]
    if isinstance(count, ast.Name):
        binding = ctx.resolver.binding(count, scope)
        if binding is None or binding.tag != VALUE or binding.path or binding.value is None:
            return None
        count = binding.value
    if not (isinstance(count, ast.BinOp) and isinstance(count.op, ast.Add) and isinstance(count.right, ast.Constant)
            and count.right.value == 1):
        return None
    read = _unwrap(count.left)
    vector = _vector(read)
    if vector is None or not isinstance(vector, (ast.Name, ast.Attribute)) or ctx.resolver.is_host(vector):
        return None
    value = ctx.resolver.value_of(vector, scope)
    if value is not None and value[0] not in K.TENSORS or from_constants(vector, ctx.resolver, scope):
        return None
    text, variable = ast.dump(vector), loop.target.id
    for statement in loop.body:
        for node in walk(statement):
            if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq):
                sides = (node.left, node.comparators[0])
                if any(isinstance(s, ast.Name) and s.id == variable for s in sides) \
                        and any(ast.dump(s) == text for s in sides):
                    return read
    return None


def _unwrap(node: ast.AST) -> ast.AST:
    """``int(x)`` / ``x.item()``: ``x``."""
    while isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id in _READS and len(node.args) == 1:
            node = node.args[0]
        elif isinstance(func, ast.Attribute) and func.attr in _READS and not node.args:
            node = func.value
        else:
            break
    return node


def _vector(read: ast.AST) -> Optional[ast.AST]:
    """``batch`` of ``batch[-1]``, ``batch.max()``, ``torch.max(batch)``."""
    if isinstance(read, ast.Subscript):
        index = read.slice
        if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub) and isinstance(index.operand, ast.Constant):
            return read.value
        return None
    if isinstance(read, ast.Call) and isinstance(read.func, ast.Attribute) and read.func.attr in ("max", "amax"):
        if not read.args:
            return read.func.value
        if len(read.args) == 1 and isinstance(read.func.value, ast.Name) and read.func.value.id == "torch":
            return read.args[0]
    return None
