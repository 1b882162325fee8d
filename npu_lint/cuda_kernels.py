"""GPU kernels written in Python: a launch ``kernel[grid](...)`` of a function a kernel compiler decorates
(``@triton.jit``, ``@numba.cuda.jit``; the decorators are the ``api`` rows of cuda_libraries.tsv)."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis.bindings import DEF, IMPORT
from npu_lint.cuda_facts import library_row

if TYPE_CHECKING:
    from npu_lint.context import FileContext


def kernel_launch(call: ast.Call, ctx: "FileContext") -> Optional[tuple[str, dict[str, str]]]:
    """``_k[grid](x, n, BLOCK=128)``: the kernel's name and the cuda_libraries.tsv row of its compiler when the
    subscripted name is a function of the file a kernel compiler decorates, or a name imported from the project's
    other modules into a file that imports a kernel language itself (the kernel defined beside its launcher's
    imports, ``from .kernels import _fwd_kernel``) or, with the project index, from a module that imports one;
    else None (``self.layers[i](x)``, a list of functions)."""
    func = call.func
    if not isinstance(func, ast.Subscript) or not isinstance(func.value, ast.Name) or npu_backend(ctx):
        return None
    scopes = ctx.resolver.scopes
    if scopes is None:
        return None
    name = func.value
    binding = scopes.lookup(name.id, ctx.resolver.current, (name.lineno, name.col_offset))
    if binding is None:
        return None
    if binding.tag == DEF and isinstance(binding.value, (ast.FunctionDef, ast.AsyncFunctionDef)):
        for decorator in binding.value.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            row = _compiler_row(ctx.resolver.qualname(target, binding.scope))
            if row is not None:
                return name.id, row
        return None
    if binding.tag == IMPORT and isinstance(binding.value, str) and (binding.value.startswith(".") or (
            ctx.project is not None and ctx.project.holds_package(binding.value, ctx.module))):
        row = _file_language(ctx)
        if row is None and ctx.project is not None:   # the kernel's own module imports the language (whisper's
            language = ctx.project.kernel_language(binding.value, ctx.module)   # ``from .triton_ops import dtw_kernel``
            row = _compiler_row(f"{language}.jit") if language else None      # inside the launching function)
        if row is not None:
            return name.id, row
    return None


def factory_launch(call: ast.Call, ctx: "FileContext") -> Optional[tuple[str, dict[str, str]]]:
    """``cupy_launch("kernel", source)(grid=..., block=..., args=[...])``: the factory's name and the
    cuda_libraries.tsv row of its CUDA-only library when the called call is of a function of the file that a
    decorator of that library memoises (``@cupy.memoize(for_each_device=True)``) or that returns a value that
    library made (``return cupy.RawModule(code=src).get_function(name)``); else None (``make_layer(c)(x)``)."""
    inner = call.func
    if not isinstance(inner, ast.Call) or not isinstance(inner.func, ast.Name) or npu_backend(ctx):
        return None
    scopes = ctx.resolver.scopes
    name = inner.func
    binding = scopes.lookup(name.id, ctx.resolver.current, (name.lineno, name.col_offset)) if scopes else None
    if binding is None or binding.tag != DEF or not isinstance(binding.value, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    made = list(binding.value.decorator_list)
    made += [node.value for node in ast.walk(binding.value) if isinstance(node, ast.Return) and node.value is not None]
    for expr in made:
        while isinstance(expr, (ast.Call, ast.Attribute)) and not _library_name(expr, binding.scope, ctx):
            expr = expr.func if isinstance(expr, ast.Call) else expr.value
        row = _library_name(expr, binding.scope, ctx)
        if row is not None:
            return name.id, row
    return None


def _library_name(expr: ast.expr, scope: object, ctx: "FileContext") -> Optional[dict[str, str]]:
    """The NPU217 cuda_libraries.tsv row of a dotted name of a CUDA-only library (``cupy.RawModule``)."""
    if not isinstance(expr, (ast.Name, ast.Attribute)):
        return None
    qualname = ctx.resolver.qualname(expr, scope)
    row = library_row(qualname) if qualname else None
    return row if row is not None and row["code"] == "NPU217" else None


def _compiler_row(qualname: Optional[str]) -> Optional[dict[str, str]]:
    row = library_row(qualname) if qualname else None
    return row if row is not None and row["kind"] == "api" and row["module"] == qualname \
        and qualname.endswith(".jit") else None


def _file_language(ctx: "FileContext") -> Optional[dict[str, str]]:
    """The row of a kernel compiler whose language the file imports at module level (``import triton``)."""
    scopes = ctx.resolver.scopes
    for bindings in scopes.module.names.values():
        for binding in bindings:
            if binding.tag == IMPORT and isinstance(binding.value, str):
                top = binding.value.split(".", 1)[0]
                if top in ("triton", "numba"):
                    row = _compiler_row(f"{top}.jit" if top == "triton" else "numba.cuda.jit")
                    if row is not None and (top == "triton" or binding.value.startswith("numba.cuda")):
                        return row
    return None


def npu_backend(ctx: "FileContext") -> bool:
    """The file is the project's NPU port of its kernels: it imports ``torch_npu``, or its module sits in a package
    of the Ascend / NPU backend (``liger_kernel.ops.backends._ascend.ops.swiglu``): its Triton kernels are written
    for triton-ascend already (memoised per file)."""
    found = ctx.scratch.get("npu_backend")
    if found is None:
        parts = {part.strip("_").lower() for part in ctx.module.split(".")} if ctx.module else set()
        found = ctx.scratch["npu_backend"] = ctx.mentions("torch_npu") or bool(parts & {"ascend", "npu"})
    return found
