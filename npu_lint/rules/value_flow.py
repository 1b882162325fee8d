"""The base of the rules that check sizes against the semantic model's data flow (NPU403, NPU404, NPU405): the
shape-fixing arguments of calls and slices, the first flow of the kinds a rule asks for, and how a message names
where a value comes from."""
from __future__ import annotations

import ast
from typing import ClassVar, Optional

from npu_lint.analysis.flows import ELEMENT, PICKED, ZERO_D, Flow
from npu_lint.analysis.size_sinks import shape_sink as model_shape_sink
from npu_lint.context import FileContext
from npu_lint.rules import Rule, short_source

FAMILY = "dynamic-shape"


def origin_text(flow: Flow) -> str:
    """How a message names where a value comes from."""
    flavour, node = flow
    if isinstance(node, ast.AugAssign):   # :mod:`npu_lint.analysis.loop_counters`
        return short_source(node) + " (a counter that tests of the data advance)"
    if flavour == ZERO_D:
        return short_source(node) + " (a 0-d tensor)"
    if flavour in (ELEMENT, PICKED):
        if isinstance(node, ast.Subscript):
            return short_source(node) + " (an element of a tensor)"
        return "each element of the tensor " + short_source(node)
    return short_source(node)


def shape_sink(node: ast.Call, ctx: FileContext, scope, loop_count: bool) -> Optional[tuple[list[ast.AST], str]]:
    """The size arguments of a call that fixes a shape, and how a message names it (None: no such call); the one
    definition is the model's :func:`npu_lint.analysis.size_sinks.shape_sink`."""
    return model_shape_sink(node, ctx.resolver, scope, loop_count)


class ValueFlow(Rule):
    """Checks the shape-fixing arguments of calls and slices against what the model says flows into them."""

    family = FAMILY
    node_types = (ast.Call, ast.Subscript)
    kinds: ClassVar[tuple[str, ...]] = ()

    def check(self, node: object, ctx: FileContext) -> None:
        if not ctx.uses_torch:
            return
        if isinstance(node, ast.Call):
            self.check_call(node, ctx)
        else:
            self.check_subscript(node, ctx)

    def check_call(self, node: ast.Call, ctx: FileContext) -> None:
        pass

    def check_subscript(self, node: ast.Subscript, ctx: FileContext) -> None:
        pass

    def _window(self, piece: ast.Slice, ctx: FileContext) -> bool:
        """``queue[:, ptr:ptr + batch_size]``: a window of a fixed length at a position read from a tensor (a
        momentum queue's pointer): the offset moves, the shape does not."""
        lower, upper = piece.lower, piece.upper
        if lower is None or not isinstance(upper, ast.BinOp) or not isinstance(upper.op, ast.Add):
            return False
        at = ast.dump(lower)
        length = upper.right if ast.dump(upper.left) == at else upper.left if ast.dump(upper.right) == at else None
        return length is not None and ctx.resolver.flow_of(length, self.kinds) is None

    def _flow(self, args: list[ast.AST], node: ast.AST, ctx: FileContext, more: tuple[str, ...] = ()) -> Optional[Flow]:
        for arg in args:
            flow = ctx.resolver.flow_of(arg, self.kinds + more)
            if flow is not None:
                return flow
        return None
