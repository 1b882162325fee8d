"""Whole-input buffers of a sliding-window (tiled) inference: ``acc = torch.zeros((c, *image.shape[1:]))`` in a
function given ``image``, then ``acc[window] += pred`` in a loop over the windows (nnU-Net's and MONAI's sliding
window predictors, tiled super-resolution). The buffer has the input's own spatial size, a new shape for every
case. Nothing here is a rule: NPU419 asks :func:`window_buffer`."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext

# Calls that allocate a buffer of a given shape.
BUFFER_FACTORIES = frozenset({"torch.zeros", "torch.empty", "torch.ones", "torch.full"})
BUFFER_METHODS = frozenset({"new_zeros", "new_empty", "new_ones", "new_full"})
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def window_buffer(node: ast.Call, ctx: FileContext) -> Optional[tuple[str, ast.AST]]:
    """(the input parameter, the accumulation) when ``node`` allocates a buffer sized by the spatial dimensions of a
    parameter of its function (``image.shape[1:]``, ``*x.shape[2:]``, ``x.shape``, ``x.shape[-2]``: not the batch
    ``x.shape[0]`` alone) that the function's loop then fills window by window: ``buf[sl] += pred`` (an opaque
    window, summed as windows overlap) or ``buf[..., y0:y1, x0:x1] = tile`` (a tile of slices with computed bounds); else
    None. A buffer filled row by row (``out[i] = f(x[i])``) has the input's own shape and is no window."""
    function = ctx.enclosing(node, _DEFS)
    if not isinstance(function, _DEFS) or function.name == "__init__":
        return None
    assign = ctx.parent(node)
    if not (isinstance(assign, ast.Assign) and assign.value is node and len(assign.targets) == 1):
        return None
    target = assign.targets[0]
    if not isinstance(target, ast.Name):
        return None
    args = function.args
    parameters = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]} - {"self", "cls"}
    method = isinstance(node.func, ast.Attribute) and node.func.attr in BUFFER_METHODS
    full = (node.func.attr if isinstance(node.func, ast.Attribute) else "").endswith("full")
    shape = node.args[:1] if method or full else list(node.args)
    shape += [kw.value for kw in node.keywords if kw.arg == "size"]
    found = _spatial_of(shape, parameters)
    if found is None:
        return None
    filled = _filled(function, target.id, found[1], ctx)
    return (found[0], filled) if filled is not None else None


def _spatial_of(shape: list, parameters: set[str]) -> Optional[tuple[str, bool]]:
    """The parameter whose spatial sizes ``shape`` reads, and whether it reads several at once: ``p.shape[1:]`` /
    ``p.shape[2:]`` / ``p.shape`` whole / ``p.size()[2:]`` (several), ``p.shape[k]`` for a ``k`` other than 0."""
    single = None
    for part in shape:
        subscripts = {id(n.value): n.slice for n in walk(part) if isinstance(n, ast.Subscript)}
        for sub in walk(part):
            owner = _shape_owner(sub)
            if owner is None or owner not in parameters:
                continue
            index = subscripts.get(id(sub))
            if index is None or (isinstance(index, ast.Slice) and index.lower is not None):
                return owner, True
            if (isinstance(index, ast.Constant) and isinstance(index.value, int) and index.value != 0) \
                    or isinstance(index, ast.UnaryOp):
                single = single or owner
    return (single, False) if single is not None else None


def _shape_owner(node: ast.AST) -> Optional[str]:
    """``p`` of ``p.shape`` / ``p.size()``."""
    if isinstance(node, ast.Attribute) and node.attr == "shape" and isinstance(node.value, ast.Name):
        return node.value.id
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" \
            and not node.args and isinstance(node.func.value, ast.Name):
        return node.func.value.id
    return None


def _filled(function: ast.AST, name: str, several: bool, ctx: FileContext) -> Optional[ast.AST]:
    """The first statement of ``function``'s loops writing a window of ``name`` (an opaque window only into a
    buffer of several of the input's dimensions)."""
    for statement in walk(function):
        if isinstance(statement, ast.AugAssign):
            targets, summed = [statement.target], True
        elif isinstance(statement, ast.Assign):
            targets, summed = statement.targets, False
        else:
            continue
        for target in targets:
            if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                    and target.value.id == name):
                continue
            loop = ctx.enclosing_any(statement, (*_LOOPS, *_DEFS, ast.Lambda))   # a statement the walk has not
            if not isinstance(loop, _LOOPS) or ctx.enclosing_any(loop, (*_DEFS, ast.Lambda)) is not function:   # reached
                continue
            if _window(target.slice, summed and several):
                return statement
    return None


def _window(index: ast.AST, summed: bool) -> bool:
    """A window: a tile of two or more slices with a computed bound (``y0:y1, x0:x1``, ``i:i + t, j:j + t``) beside
    only full slices and ``...``, or, summed into, an opaque index of a name (``sl``, ``sl[1:]``, ``tuple(s)``). A
    row's prefix (``mask[i, l:]``, ``out[k, :n]``) or one stripe (``x[:, :, a:b, :]``) keeps the input's shape."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    computed = [p for p in parts if isinstance(p, ast.Slice)
                and any(b is not None and not isinstance(b, ast.Constant) for b in (p.lower, p.upper))]
    if len(computed) >= 2 and all(isinstance(p, ast.Slice) or (isinstance(p, ast.Constant) and p.value is Ellipsis)
                                  for p in parts):
        return True
    return summed and len(parts) == 1 and isinstance(parts[0], (ast.Name, ast.Subscript, ast.Call))
