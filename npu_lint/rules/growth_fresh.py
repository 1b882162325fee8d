"""NPU408's question before reporting a container's item joined with itself outside a loop (session 25,
precision25): is the container state kept between calls, or one the callers make afresh for each call?

``out[1] = torch.cat([out[1], extra], 1)`` in a function given ``out`` grows ``out[1]`` once per call. It is
growth only when the same container comes back at the next call: Hugging Face's ``model_kwargs`` handed back by
``_update_model_kwargs_for_generation`` and fed to it again by the generation loop. Where every call of the
function the file shows passes a container the caller has just made (a local bound once, by an assignment that is
not a result of this function, outside any loop of the caller or inside the loop around the call), the item is
joined once per container: mmsegmentation's VPD ``_append_attn_to_output(out_list)`` with ``out_list`` from the
UNet's forward of this call. Calls unknown (a public helper no call of the file reaches) keep the report.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.bindings import VALUE
from npu_lint.analysis.index_forms import passed_argument
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES

_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _parameter(function: ast.AST, name: str) -> Optional[ast.arg]:
    args = function.args   # type: ignore[attr-defined]
    positional = args.posonlyargs + args.args
    for index, arg in enumerate(positional + args.kwonlyargs):
        if arg.arg == name:
            if index == 0 and arg in positional and arg.arg in ("self", "cls"):
                return None
            return arg
    return None


def _returns_of(value: ast.AST, function: ast.AST) -> bool:
    """``value`` holds a result of ``function`` itself (the container fed back: ``kw = update(kw)``)."""
    name = getattr(function, "name", "")
    return any(isinstance(n, ast.Call) and (isinstance(n.func, ast.Name) and n.func.id == name
                                           or isinstance(n.func, ast.Attribute) and n.func.attr == name)
               for n in ast.walk(value))


def made_per_call(function: ast.AST, root: ast.AST, ctx: FileContext) -> bool:
    """``root`` (the container an item of which is joined with itself) is a parameter of ``function`` that every
    call of the file passes a container made afresh for that call (memoised per function and parameter)."""
    if not isinstance(root, ast.Name) or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    store = ctx.scratch.setdefault("growth_fresh", {})
    key = (id(function), root.id)
    if key not in store:
        store[key] = _made_per_call(function, root.id, ctx)
    return store[key]


def _made_per_call(function: ast.AST, name: str, ctx: FileContext) -> bool:
    arg = _parameter(function, name)
    if arg is None:
        return False
    sites = ctx.resolver.call_sites(function)
    if not sites:
        return False   # no call shown: the container may come back at every call
    for call, scope, offset in sites:
        passed = passed_argument(call, function, arg, offset)
        if not isinstance(passed, ast.Name):
            return False
        bindings = scope.names.get(passed.id, [])
        if len(bindings) != 1 or passed.id in scope.augments:
            return False
        binding = bindings[0]
        value = binding.value
        if binding.tag != VALUE or binding.scope is not scope or not isinstance(value, ast.AST) \
                or _returns_of(value, function) or binding.pos[0] > call.lineno:
            return False
        loop = ctx.enclosing_any(call, (*_LOOPS, *FUNCTION_TYPES))   # the walk may not be there yet
        if isinstance(loop, _LOOPS) and not loop.lineno < binding.pos[0] <= getattr(loop, "end_lineno", 0):
            return False   # made before the loop around the call: the same container at every iteration
    return True
