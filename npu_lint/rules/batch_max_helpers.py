"""Helpers of a file that pad items to the batch maximum (for NPU405 at their call sites): the function computes
the maximum of its items' lengths or shapes (``max(len(s) for s in batch)``, ``_max_by_axis([list(img.shape) for
img in images])``, ``max(x.size(0) for x in xs)``), sizes a new tensor with it (``torch.zeros``, ``full``,
``new_zeros`` ...) and copies the items in, itself or through a helper of the same file it calls. Computed once
per function; functions whose text has no ``max`` are skipped without a walk. Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.batch_extremes import per_item_lengths
from npu_lint.context import FileContext

_FACTORIES = frozenset({"zeros", "ones", "empty", "full", "new_zeros", "new_ones", "new_empty", "new_full"})
_DEPTH = 2


def _batch_maximum(node: ast.AST) -> bool:
    """``max(len(s) for s in batch)``, ``_max_by_axis([list(img.shape) for img in images])``, or
    ``[max(s) for s in zip(*[list(img.shape) for img in images])]``."""
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1:
        iterated = node.generators[0].iter
        return isinstance(node.elt, ast.Call) and isinstance(node.elt.func, ast.Name) and node.elt.func.id == "max" \
            and isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.func.id == "zip" \
            and len(iterated.args) == 1 and isinstance(iterated.args[0], ast.Starred) \
            and per_item_lengths(iterated.args[0].value)
    if not isinstance(node, ast.Call) or len(node.args) != 1:
        return False
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return "max" in name.lower() and per_item_lengths(node.args[0])


def _pads(function: ast.AST, ctx: FileContext, depth: int) -> Optional[str]:
    """How ``function`` pads to the batch maximum (``max(...) at line N sizes torch.zeros``), else None."""
    maxima: dict[str, int] = {}
    statements = sorted((n for n in ast.walk(function) if isinstance(n, ast.Assign)), key=lambda n: n.lineno)
    for statement in statements:
        value = statement.value
        line = next((n.lineno for n in ast.walk(value) if _batch_maximum(n)), None)
        if line is None:
            line = next((maxima[n.id] for n in ast.walk(value) if isinstance(n, ast.Name) and n.id in maxima), None)
        if line is not None:
            for target in statement.targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        maxima.setdefault(name.id, line)
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if last in _FACTORIES and (ctx.resolver.qualname(func) or "torch.").startswith("torch."):
            arguments = [*node.args, *(k.value for k in node.keywords)]
            line = next((maxima[n.id] for a in arguments for n in ast.walk(a)
                         if isinstance(n, ast.Name) and n.id in maxima), None)
            if line is None and any(_batch_maximum(n) for a in arguments for n in ast.walk(a)):
                line = node.lineno
            if line is not None:
                return f"the maximum at line {line} sizes {last}() at line {node.lineno}"
        elif depth < _DEPTH and isinstance(func, ast.Name):
            inner = _helper_how(node, ctx, depth + 1)
            if inner:
                return f"through {func.id}(): {inner}"
    return None


def batch_max_helper(call: ast.Call, ctx: FileContext) -> Optional[str]:
    """``nested() pads its items to the batch maximum (the maximum at line 12 sizes zeros() at line 14)`` when
    ``call`` calls one of the file's functions that pads its items to their maximum, else None."""
    how = _helper_how(call, ctx, 0)
    return f"{call.func.id}() pads its items to the batch maximum ({how})" if how else None   # type: ignore


def _helper_how(call: ast.Call, ctx: FileContext, depth: int) -> Optional[str]:
    if not isinstance(call.func, ast.Name):
        return None
    function = ctx.resolver.definition(call.func)
    if function is None and depth == 0:   # ``pad(batch)`` where ``pad`` defaults to a helper of the file
        candidates = ctx.resolver.callable_candidates(call.func, ctx.resolver.current)
        defs = [target for kind, target, _ in candidates if kind == "def"]
        function = defs[0] if len(defs) == 1 and len(candidates) == 1 else None
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or ctx.enclosing(
            call, (ast.FunctionDef, ast.AsyncFunctionDef)) is function:
        return None
    cache = ctx.scratch.setdefault("batch_max_helpers", {})
    if id(function) not in cache:
        cache[id(function)] = None    # a guard against recursion
        if "max" in function_text(function, ctx):      # no maximum in its text: nothing to pad to
            cache[id(function)] = _pads(function, ctx, depth)
    return cache[id(function)]


def function_text(function: ast.AST, ctx: FileContext) -> str:
    """The source lines of a function (a cheap test before walking it), memoised per file."""
    lines = ctx.scratch.get("source_lines")
    if lines is None:
        lines = ctx.scratch["source_lines"] = ctx.source.splitlines()
    start, end = function.lineno, getattr(function, "end_lineno", None) or function.lineno   # type: ignore
    return "\n".join(lines[start - 1:end])

