"""Values that evidently live on the host: numpy and pandas arrays, tensors moved with ``.cpu()``.

Rules about tensor indexing (NPU303 mask assignment, NPU402 mask reads) fire on any subscript with a
boolean index in a torch file, unless the code shows the value is a host array: a numpy or pandas call,
``.numpy()`` / ``.cpu()``, a name bound to one of those in the same function, a comparison with a string,
or a function that uses numpy and never torch.
"""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from npu_lint.context import FileContext
from npu_lint.resolver import names_in
from npu_lint.rules import FUNCTION_TYPES


def _numpy_names(ctx: FileContext) -> Optional[dict[int, set[str]]]:
    """Per function, the names bound to numpy or pandas values (None when the file uses neither)."""
    if "numpy_names" not in ctx.scratch:
        ctx.scratch["numpy_names"] = {} if ("numpy" in ctx.source or "pandas" in ctx.source) else None
    return ctx.scratch["numpy_names"]


def _function(node: ast.AST, ctx: FileContext) -> Optional[ast.AST]:
    return ctx.enclosing(node, FUNCTION_TYPES)


_FIELDS: dict[type, tuple[str, ...]] = {}   # node type -> the fields that can hold child nodes


def _nodes(expr: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk`` without its per-node generators (the same nodes; context and operator markers left out)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        node_type = type(node)
        fields = _FIELDS.get(node_type)
        if fields is None:
            fields = _FIELDS[node_type] = tuple(f for f in node_type._fields if f not in ("ctx", "op", "ops"))
        for field in fields:
            value = getattr(node, field, None)
            if type(value) is list:
                stack.extend(item for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append(value)


def _is_numpy(expr: ast.AST, ctx: FileContext, names: set[str]) -> bool:
    for node in _nodes(expr):
        if isinstance(node, ast.Name) and node.id in names:
            return True
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("numpy", "cpu"):
                return True   # host arrays and tensors moved to the CPU: not NPU work
            name = ctx.resolver.qualname(node.func)
            if name is not None and name.split(".", 1)[0] in ("numpy", "pandas"):
                return True
        if isinstance(node, ast.Compare) and any(isinstance(operand, ast.Constant) and isinstance(operand.value, str)
                                                 for operand in [node.left, *node.comparators]):
            return True   # ``df[df.kind == 'car']``: tensors are not compared with strings
    return False


def track_host_arrays(node: ast.Assign, ctx: FileContext) -> None:
    """Record (once per assignment, whichever rule asks first) the names the assignment binds to host arrays."""
    seen = ctx.scratch.setdefault("host_arrays_seen", set())
    if id(node) in seen:
        return
    seen.add(id(node))
    tracked = _numpy_names(ctx)
    if tracked is None:
        return
    names = tracked.setdefault(id(_function(node, ctx)), set())
    numpy_value = _is_numpy(node.value, ctx, names)
    for target in node.targets:
        for name in names_in(target):
            (names.add if numpy_value else names.discard)(name)


def is_host_array(expr: ast.AST, ctx: FileContext, anchor: ast.AST) -> bool:
    """``expr`` evidently holds a host array (``anchor``: the node whose function scope the names live in)."""
    if ctx.resolver.is_host(expr):
        return True
    tracked = _numpy_names(ctx) or {}
    return _is_numpy(expr, ctx, tracked.get(id(_function(anchor, ctx)), set()))


def host_array_evidence(subscript: ast.Subscript, index: ast.expr, ctx: FileContext,
                        statement: Optional[ast.stmt] = None) -> bool:
    """The indexed value or the mask evidently comes from numpy or pandas. ``statement``: the statement holding
    the subscript, for a rule that runs on the statement before the walk reaches the subscript."""
    if ctx.resolver.is_host(subscript.value) or ctx.resolver.is_host(index):
        return True
    tracked = _numpy_names(ctx)
    if tracked is None:
        return False
    function = _function(statement or subscript, ctx)
    names = tracked.get(id(function), set())
    return _is_numpy(subscript.value, ctx, names) or _is_numpy(index, ctx, names) or _numpy_function(function, ctx)


def _numpy_function(function: Optional[ast.AST], ctx: FileContext) -> bool:
    """The enclosing function uses numpy and never torch: an evaluation or data-pipeline helper."""
    verdicts = ctx.scratch.setdefault("numpy_functions", {})
    scope = id(function)
    if scope not in verdicts:
        roots = set()
        if function is not None:
            for node in ast.walk(function):
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                    roots.add((ctx.resolver.qualname(node.value) or "").split(".", 1)[0])
        verdicts[scope] = bool(roots & {"numpy", "pandas"}) and not roots & {"torch", "torchvision", "torch_npu"}
    return verdicts[scope]
