"""Helpers that size a tensor with one of their parameters, for NPU403 at their call sites: the file's own (the
model's summary :func:`npu_lint.analysis.summaries_sizes.size_parameters`) and, with a project index, those of
other modules (their ``sizes`` facts). A call that passes a value read from a tensor to such a parameter fixes a
shape with it: reported at the call, naming the chain (``make(n) → zeros()``), once per call. Nothing here is a
rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.index_forms import passed_argument
from npu_lint.analysis.kinds import MODULE
from npu_lint.analysis.summaries_fills import filled_parameters, none_defaults
from npu_lint.analysis.summaries_sizes import parameters, size_parameters
from npu_lint.context import FileContext
from npu_lint.rules import short_source

_EXTERNAL = ("torch.", "numpy.", "transformers.", "torch_scatter.", "torch_geometric.")


Callee = Optional[tuple[ast.AST, int]]   # the file's own function a call runs (``Resolver.own_function``)


def size_helper_call(node: ast.Call, ctx: FileContext, flavours: tuple[str, ...],
                     callee: Callee) -> Optional[tuple[str, tuple[str, ast.AST]]]:
    """``make(n)`` where ``n`` may carry a value of one of ``flavours`` (read from a tensor) and the file's ``make``
    (``callee``, resolved once by the caller for this and :func:`omitted_size`; or, with a project index, a
    function of another module) sizes a tensor with it: the chain (``make(n) → zeros()``) and the flow, else None.
    The first such argument."""
    if not node.args and not node.keywords:
        return None   # nothing passed: no parameter can carry a value
    if callee is None:
        return _project_call(node, ctx, flavours) if ctx.project is not None else None
    # The helper's summary first (once per helper and file), the flows of the arguments its sizing parameters get
    # only then: most helpers size nothing, and following every argument of every call of the file's own functions
    # was most of NPU403's cost. The first parameter (in order) that both sizes a tensor and gets a read value.
    sizes = size_parameters(callee[0], ctx.resolver, ctx.scratch.setdefault("size_parameters", {}))
    if not sizes:
        return None
    for arg in parameters(callee[0]):
        if arg.arg not in sizes:
            continue
        passed = passed_argument(node, callee[0], arg, callee[1])
        origin = ctx.resolver.flow_of(passed, flavours) if passed is not None else None
        if origin is not None and _read_here(origin[1], node, ctx):
            return f"{callee[0].name}({short_source(passed, 20)}) → {sizes[arg.arg]}", origin
    return None


def _project_call(node: ast.Call, ctx: FileContext,
                  flavours: tuple[str, ...]) -> Optional[tuple[str, tuple[str, ast.AST]]]:
    """``snn.scatter_add(y, idx, dim_size=n)`` where the project's ``scatter_add`` (another module) sizes a tensor
    with ``dim_size``, as the index's facts say."""
    func = node.func
    short = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if short not in ctx.project.size_helper_names():   # type: ignore[union-attr]
        found = _module_call(node, ctx)
        if not found:
            return None
        short = f"{found[0].rpartition('.')[2]}.forward"
        found = found[1]
    else:
        qualname = ctx.resolver.qualname(func)
        if qualname is None or qualname.startswith(_EXTERNAL):
            return None
        found = ctx.project.size_parameters(qualname, ctx.module)   # type: ignore[union-attr]
    if not found:
        return None
    starred = any(isinstance(a, ast.Starred) for a in node.args)
    for name, position, chain in found:
        passed = next((kw.value for kw in node.keywords if kw.arg == name), None)
        if passed is None and 0 <= position < len(node.args) and not starred:
            passed = node.args[position]
        origin = ctx.resolver.flow_of(passed, flavours) if passed is not None else None
        if origin is not None and _read_here(origin[1], node, ctx):
            return f"{short}({short_source(passed, 20)}) → {chain}", origin
    return None


def _module_call(node: ast.Call, ctx: FileContext) -> Optional[tuple[str, tuple[tuple[str, int, str], ...]]]:
    """``conv(x, idx, total=n)`` where ``conv`` is an instance of a project module class of another module whose
    ``forward`` sizes a tensor with a parameter (``scatter(..., dim_size=total)``): the class and those parameters."""
    if not isinstance(node.func, (ast.Name, ast.Attribute, ast.Subscript)):
        return None
    value = ctx.resolver.value_of(node.func)
    if value is None or value[0] != MODULE or not value[1]:
        return None
    found = ctx.project.forward_sizes(value[1])   # type: ignore[union-attr]
    return (value[1], found) if found else None


def _read_here(source: ast.AST, call: ast.Call, ctx: FileContext) -> bool:
    """The value was read in the function that makes the call (not passed in through one of its parameters: the
    call where it was read is reported, not every helper it travels through)."""
    function = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return True
    line = getattr(source, "lineno", 0)
    return function.lineno <= line <= (function.end_lineno or line)


def _left_out(node: ast.Call, function: ast.AST, offset: int) -> bool:
    """Some parameter of ``function`` that defaults to None is left out by the call (neither by keyword nor by
    position): only those can be filled from the data by the helper."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    positional = [a.arg for a in function.args.posonlyargs + function.args.args][offset:]
    return any(not any(kw.arg == name for kw in node.keywords)
               and not 0 <= (positional.index(name) if name in positional else -1) < len(node.args)
               for name in none_defaults(function))


def omitted_size(node: ast.Call, ctx: FileContext, callee: Callee) -> Optional[tuple[str, str, str]]:
    """``scatter(x, batch, dim=0)`` where the helper (the file's own, ``callee``, or, with a project index, another
    module's) sizes a tensor with ``dim_size`` and fills it from the data when a call leaves it out (``if dim_size
    is None: dim_size = int(index.max()) + 1``): (the callee's name, the parameter, the way to the shape), else
    None."""
    if any(isinstance(a, ast.Starred) for a in node.args) or any(kw.arg is None for kw in node.keywords):
        return None     # ``f(*args, **kwargs)``: the call may pass it
    if callee is not None:
        function, offset = callee
        if not _left_out(node, function, offset):
            return None   # syntax first: no parameter defaulting to None is left out by this call
        store = ctx.scratch.setdefault("size_parameters", {})
        sizes = size_parameters(function, ctx.resolver, store)
        if not sizes:
            return None
        fills = ctx.scratch.setdefault("filled_sizes", {})
        if id(function) not in fills:
            fills[id(function)] = filled_parameters(function, ctx.resolver, sizes)
        positional = [a.arg for a in function.args.posonlyargs + function.args.args][offset:]   # type: ignore[union-attr]
        found = [(name, positional.index(name) if name in positional else -1, sizes[name])
                 for name in fills[id(function)]]
        short = function.name   # type: ignore[union-attr]
    elif ctx.project is not None:
        func = node.func
        short = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if short not in ctx.project.size_helper_names():
            return None
        qualname = ctx.resolver.qualname(func)
        if qualname is None or qualname.startswith(_EXTERNAL):
            return None
        filled = ctx.project.filled_sizes(qualname, ctx.module)
        found = [size for size in ctx.project.size_parameters(qualname, ctx.module) if size[0] in filled]
    else:
        return None
    for name, position, chain in found:
        if any(kw.arg == name for kw in node.keywords) or 0 <= position < len(node.args):
            continue
        return short, name, chain
    return None
