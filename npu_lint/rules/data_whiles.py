"""``while`` loops whose number of iterations is a value of the data: the test reads a host value the loop itself
advances from a value read back (an adaptive solver's ``while s < t_end:`` with ``s += h`` and ``h`` computed from
``float(error)``), or a tensor's value directly (``while x.sum() > 10:``), for NPU413; or the size of a tensor the
loop shrinks by a data-dependent selection (a greedy NMS: ``while order.shape[0] != 0: ... order =
order[1:][ious <= thr]``), for NPU403's loop counts. Training loops (``.backward()`` / ``.step()``) are left alone.
Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import children as _children   # ``ast.iter_child_nodes``, as a list
from npu_lint.analysis import kinds as K
from npu_lint.analysis.data_shapes import data_shaped
from npu_lint.analysis.flows import HOST
from npu_lint.analysis.index_forms import counts, first_axis_of_shape
from npu_lint.analysis.loop_counters import test_sides
from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES, short_source
from npu_lint.rules.read_backs import host_random
from npu_lint.rules.training_loops import trains


def _rebound_in(loop: ast.While, name: str) -> list[ast.AST]:
    """The values ``name`` is bound to inside the loop's body (``s = s + h``, ``s += h``), outside nested scopes."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = list(loop.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (*FUNCTION_TYPES, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            found.append(node.value)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name) \
                and node.target.id == name and node.value is not None:
            found.append(node.value)
        stack.extend(_children(node))
    return found


def _loop_works(loop: ast.While, ctx: FileContext) -> bool:
    """The body runs a tensor operator (a call the model says gives a tensor)."""
    resolver = ctx.resolver
    return any(isinstance(n, ast.Call) and resolver.kind_of(n) in K.TENSORS for s in loop.body for n in walk(s))


def while_on_read_back(loop: ast.While, ctx: FileContext) -> Optional[tuple[ast.AST, ast.AST]]:
    """(the tested name, the value read back it is advanced from) when the loop's test compares a name the loop
    rebinds from a value read back from a tensor, and the body runs tensor operators; else None."""
    if ctx.enclosing(loop, FUNCTION_TYPES) is None or trains(loop, ctx):
        return None
    resolver = ctx.resolver
    for side in test_sides(loop.test):
        if not isinstance(side, ast.Name) or not _rebound_in(loop, side.id):
            continue
        read = next((f[1] for f in resolver.flows(side) if f[0] == HOST and not host_random(f[1], ctx)), None)
        if read is not None and _loop_works(loop, ctx):
            return side, read
    return None


def measured_name(side: ast.AST) -> Optional[ast.Name]:
    """``order`` of ``order.shape[0]``, ``order.size(0)``, ``order.numel()``, ``len(order)``."""
    if isinstance(side, ast.Subscript) and first_axis_of_shape(side):
        measured = side.value.value  # type: ignore[attr-defined]
    elif isinstance(side, ast.Call) and isinstance(side.func, ast.Attribute) and counts(side):
        measured = side.func.value
    elif isinstance(side, ast.Call) and isinstance(side.func, ast.Name) and side.func.id == "len" \
            and len(side.args) == 1:
        measured = side.args[0]
    else:
        return None
    return measured if isinstance(measured, ast.Name) else None


def while_shrinking(loop: ast.While, ctx: FileContext) -> Optional[tuple[ast.AST, ast.AST]]:
    """(the size read in the test, the data-dependent op the loop rebinds the tensor with) for ``while
    order.shape[0] != 0:`` / ``while scores.numel() > 0:`` whose body rebinds the measured tensor to a selection
    whose length is a value of the data (``order = order[1:][ious <= thr]``); else None."""
    if ctx.enclosing(loop, FUNCTION_TYPES) is None or trains(loop, ctx):
        return None
    resolver = ctx.resolver
    for side in test_sides(loop.test):
        measured = measured_name(side)
        if measured is None or resolver.is_host(measured):
            continue
        for value in _rebound_in(loop, measured.id):
            op = data_shaped(resolver, value, resolver.current)
            if op is not None:
                return side, op
    return None


_SHRINKING = ("this loop runs while {test}, and each iteration shrinks {name} by {op} (line {line}), a "
              "data-dependent selection: a sync per iteration and a count of iterations known only from the data, a "
              "new graph per count on NPU; loop over a fixed bound (the maximum count) with a mask")


def report_shrinking(loop: ast.While, ctx: FileContext) -> None:
    """Report (NPU403) a ``while`` loop that runs until a tensor it shrinks by a data-dependent selection is empty."""
    found = while_shrinking(loop, ctx)
    if found is not None:
        size, op = found
        ctx.report(loop, _SHRINKING.format(test=short_source(loop.test, 40), op=short_source(op, 40),
                                           name=short_source(measured_name(size)), line=op.lineno), "while")
