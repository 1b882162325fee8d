"""The file's own function a call runs, asked once per call at the walk's place (session 21, speed21b).

NPU401/NPU402 (``helper_of_file``), NPU403 (``size_helper_call``), NPU407 (``own_batcher``, ``grouped_sizes``) and
NPU408 each ask the model's :meth:`~npu_lint.analysis.flows.FlowMixin.own_function` for the same call node in the
same scope (the walk's current one): the answer is kept per call and scope for the file (``ctx.scratch``)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.context import FileContext


def own_call(node: ast.Call, ctx: FileContext) -> Optional[tuple[ast.AST, int]]:
    """``ctx.resolver.own_function(node)`` (the walk's current scope), memoised per call node and scope."""
    resolver = ctx.resolver
    scope = resolver.current
    memo = ctx.scratch.get("own_call")
    if memo is None:
        memo = ctx.scratch["own_call"] = {}
    key = (id(node), id(scope))
    found = memo.get(key, memo)
    if found is memo:
        found = memo[key] = resolver.own_function(node, scope)
    return found
