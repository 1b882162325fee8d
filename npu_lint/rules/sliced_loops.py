"""Loops over a slice of a sequence cut by a tensor's value: ``for hist in reversed(history[:seq_ends[idx]]):`` (a
CRF's Viterbi backtrace over the steps of one sample's length, ``seq_ends = mask.long().sum(0) - 1``). The slice of
a Python list is no device shape, but the number of iterations is the value read back, and a body that runs tensor
operators runs them that many times: a new graph per count on NPU, as ``for i in range(n)`` with the same ``n``.
For NPU403 (a slice of a tensor is its own finding: the slice bound). Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from npu_lint.analysis import kinds as K
from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules import short_source
from npu_lint.rules.value_flow import origin_text

if TYPE_CHECKING:
    from npu_lint.rules.dynamic_values import TensorValueInShape

_WRAPPERS = frozenset({"reversed", "enumerate", "list", "tuple", "iter"})
_MESSAGE = ("this loop runs once per item of {items}, cut by a tensor's value ({origin}, line {line}): a sync, and "
            "the number of operators the step runs varies with it, a new graph per count on NPU; loop over a fixed "
            "bound (the maximum count) with a mask")


def report_sliced_loop(rule: "TensorValueInShape", loop: ast.For, ctx: FileContext) -> None:
    """Report a ``for`` over a slice of a non-tensor sequence whose bound carries a value read from a tensor."""
    items = loop.iter
    while isinstance(items, ast.Call) and isinstance(items.func, ast.Name) and items.func.id in _WRAPPERS \
            and len(items.args) == 1 and ctx.resolver.binding(items.func) is None:
        items = items.args[0]
    if not isinstance(items, ast.Subscript) or not isinstance(items.slice, ast.Slice):
        return
    value = ctx.resolver.value_of(items.value)
    if value is None or not (value[0] == K.LIST or value == (K.OBJECT, "builtins.list")):
        return   # a Python list only: a tensor's slice (or one that may be) is reported at its slice bound
    bounds = [b for b in (items.slice.lower, items.slice.upper) if b is not None]
    origin = next((f for b in bounds for f in ctx.resolver.flows(b) if f[0] in rule.kinds), None)
    if origin is None or not _runs_tensor_work(loop, ctx):
        return
    ctx.report(loop, _MESSAGE.format(items=short_source(items, 40), origin=origin_text(origin),
                                     line=getattr(origin[1], "lineno", loop.lineno)), "for")


def _runs_tensor_work(loop: ast.For, ctx: FileContext) -> bool:
    """The body indexes or computes a tensor, or reads one back (``hist[i][best[-1]].item()``)."""
    resolver = ctx.resolver
    for statement in loop.body:
        for node in walk(statement):
            if isinstance(node, (ast.Call, ast.Subscript)) and resolver.kind_of(node) in K.TENSORS:
                return True
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("item", "tolist") \
                    and not node.args and resolver.kind_of(node.func.value) not in (K.HOST, K.LIST):
                return True   # a read back (a tensor's, or one's the model cannot type: no host array's)
    return False
