"""A project helper that cuts a chunk of the data and clips it at the data's end, called in a stepped loop
(NPU407, short_chunks.py): ``TensorChunk(mix, offset, segment)`` in ``for offset in range(0, length, stride)``
with ``TensorChunk.__init__`` computing ``min(total_length - offset, length)``. Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _module_defs(ctx: FileContext) -> dict[str, ast.AST]:
    """The file's module-level functions and classes by name (memoised per file)."""
    found = ctx.scratch.get("chunk_helper_defs")
    if found is None:
        found = {}
        scopes = ctx.resolver.scopes
        tree = scopes.module.node if scopes is not None else None
        for statement in getattr(tree, "body", []):
            if isinstance(statement, (*_DEFS, ast.ClassDef)):
                found[statement.name] = statement
        ctx.scratch["chunk_helper_defs"] = found
    return found


def _parameters(callee: ast.AST) -> Optional[list[str]]:
    """The positional parameters a call fills, first to last (a class's ``__init__`` without ``self``)."""
    function = callee
    if isinstance(callee, ast.ClassDef):
        function = next((s for s in callee.body if isinstance(s, _DEFS) and s.name == "__init__"), None)
        if function is None:
            return None
    if not isinstance(function, _DEFS):
        return None
    names = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    return names[1:] if isinstance(callee, ast.ClassDef) else names


def _clips(function: ast.AST, offset: str, length: str) -> bool:
    """``min(total - offset, length)`` (either order) in the helper: the chunk from ``offset`` of ``length`` is
    clipped at the end of the data, ``total`` any value but a constant."""
    for node in walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "min" \
                and len(node.args) == 2 and not node.keywords:
            for rest, other in (node.args, node.args[::-1]):
                if isinstance(rest, ast.BinOp) and isinstance(rest.op, ast.Sub) \
                        and isinstance(rest.right, ast.Name) and rest.right.id == offset \
                        and not isinstance(rest.left, ast.Constant) \
                        and isinstance(other, ast.Name) and other.id == length:
                    return True
    return False


def clipping_helper(node: ast.Call, index: str, ctx: FileContext) -> Optional[ast.AST]:
    """The helper (a class or function of the file) ``node`` calls with ``index`` (a loop's position) as the start
    of a chunk whose length it clips at the end of the data, given the chunk's length by another argument; None
    otherwise."""
    if not isinstance(node.func, ast.Name):
        return None
    callee = _module_defs(ctx).get(node.func.id)
    if callee is None or ctx.resolver.binding(node.func) is None:
        return None
    names = _parameters(callee)
    if names is None:
        return None
    filled = {}
    for position, arg in enumerate(node.args):
        if isinstance(arg, ast.Starred) or position >= len(names):
            return None
        filled[names[position]] = arg
    for keyword in node.keywords:
        if keyword.arg is not None:
            filled[keyword.arg] = keyword.value
    offsets = [p for p, a in filled.items() if isinstance(a, ast.Name) and a.id == index]
    lengths = [p for p, a in filled.items() if not (isinstance(a, ast.Name) and a.id == index)
               and not isinstance(a, ast.Constant)]
    if not offsets or not lengths:
        return None
    return callee if any(_clips(callee, o, n) for o in offsets for n in lengths) else None
