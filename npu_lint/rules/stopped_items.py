"""A list that gets one item per step of a loop the data can stop (NPU409, dynamic_samples.py): ``tokens.append(t)``
in ``for step in range(max_new):`` with ``if (t == eos).all(): break``, then ``torch.cat(tokens)``: how many items
there are depends on when a tensor's value ends the loop (a generation stopped at its end token). Nothing here is
a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES
from npu_lint.rules.branch_tests import tensor_test
from npu_lint.rules.sample_lengths import own_nodes

_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def stopped_items(items: ast.AST, node: ast.Call, ctx: FileContext) -> Optional[tuple[ast.AST, ast.If]]:
    """The loop that appends to the list ``items`` names, and the ``if <test on a tensor>: break`` that can end it
    early, when the join ``node`` comes after that loop in the same function; None otherwise."""
    if not isinstance(items, ast.Name):
        return None
    function = ctx.enclosing(node, FUNCTION_TYPES)
    if function is None:
        return None
    for loop in walk(function):
        if not isinstance(loop, _LOOPS) or (loop.end_lineno or loop.lineno) >= node.lineno \
                or ctx.enclosing(loop, FUNCTION_TYPES) is not function:
            continue
        if not _appends(loop, items.id, ctx):
            continue
        stop = _data_stop(loop, ctx)
        if stop is not None:
            return loop, stop
    return None


def _appends(loop: ast.AST, name: str, ctx: FileContext) -> bool:
    """The loop's own body (not a nested function) calls ``name.append(...)`` with an item that may be on the
    device (``tokens.append(t.cpu())`` collects host tensors: their stack compiles nothing on NPU)."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append"
               and isinstance(n.func.value, ast.Name) and n.func.value.id == name
               and not (len(n.args) == 1 and ctx.resolver.is_host(n.args[0])) for n in own_nodes(loop))


def _data_stop(loop: ast.AST, ctx: FileContext) -> Optional[ast.If]:
    """``if <test on a tensor>: break`` that ends ``loop`` itself (not a loop nested in it)."""
    for node in own_nodes(loop):
        if isinstance(node, ast.If) and node.body and isinstance(node.body[-1], ast.Break) \
                and ctx.enclosing(node, (*_LOOPS, *FUNCTION_TYPES)) is loop and tensor_test(node.test, ctx) is not None:
            return node
    return None
