"""Group sizes made by a helper (NPU407, short_chunks.py): ``batches = num_to_groups(n, bs)`` returning ``[bs] * (n //
bs)`` and the remainder, each size handed on (``map(lambda n: model.sample(batch_size=n), batches)``): the last group
is smaller, a second batch size. Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.batch_helpers import group_sizes
from npu_lint.context import FileContext
from npu_lint.rules.chunk_steps import loops_over
from npu_lint.rules.own_calls import own_call

_HOST = frozenset({"len", "print", "str", "int", "float", "range", "append", "info", "debug", "write", "format"})


def grouped_sizes(node: ast.Call, ctx: FileContext) -> Optional[ast.Call]:
    """The call a loop (or ``map(lambda n: ..., sizes)``) over the sizes ``node`` (a call of the file's own group
    sizes helper, :func:`npu_lint.analysis.batch_helpers.group_sizes`) hands a size to; None otherwise (a constant
    group size of one, sizes only counted or logged)."""
    own = own_call(node, ctx)
    if own is None or own[1] != 0 or len(node.args) < 2 \
            or isinstance(node.args[1], ast.Constant) and node.args[1].value == 1:
        return None
    memo = ctx.scratch.setdefault("group_sizes", {})
    if id(own[0]) not in memo:
        memo[id(own[0])] = group_sizes(own[0])
    if not memo[id(own[0])]:
        return None
    heads = list(loops_over(node, ctx)) + _mapped(node, ctx)
    for target, body in heads:
        names = {n.id if isinstance(n, ast.Name) else n.arg for n in ast.walk(target)
                 if isinstance(n, (ast.Name, ast.arg))}   # (a lambda's ``arg``s)
        for statement in body:
            for call in ast.walk(statement) if statement is not None else ():
                if not isinstance(call, ast.Call):
                    continue
                func = call.func
                short = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                if short and short not in _HOST and any(isinstance(n, ast.Name) and n.id in names
                                                        for a in [*call.args, *(k.value for k in call.keywords)]
                                                        for n in ast.walk(a)):
                    return call   # (also inside an argument: ``fn(**{**kwargs, 'batch_size': size})``)
    return None


def _mapped(node: ast.Call, ctx: FileContext) -> list[tuple[ast.AST, list]]:
    """``map(lambda n: f(n), sizes)`` over ``node`` or the name it is bound to, in the same function: (the lambda's
    arguments, [its body])."""
    parent = ctx.parent(node)
    name = parent.targets[0].id if isinstance(parent, ast.Assign) and len(parent.targets) == 1 \
        and isinstance(parent.targets[0], ast.Name) else None
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    found = []
    for call in ast.walk(function) if function is not None else ():
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "map" \
                and len(call.args) == 2 and isinstance(call.args[0], ast.Lambda) and (
                    call.args[1] is node or (name is not None and isinstance(call.args[1], ast.Name)
                                             and call.args[1].id == name)):
            found.append((call.args[0].args, [call.args[0].body]))
    return found
