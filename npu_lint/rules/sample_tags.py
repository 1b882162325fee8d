"""How a list's items are joined and what each carries, for NPU409 (sample_items.py): whether a concatenation
runs along the items' first dimension, whether each item was made with an explicit leading 1 (one row per item,
whatever its other sizes), and whether each item's rows are tagged with the index of the item in its sequence
(``torch.cat((item.new_ones((item.shape[0], 1)) * i, item), -1)``: only needed when the items' row counts
differ)."""
from __future__ import annotations

import ast
from typing import Callable, Optional

from npu_lint.context import FileContext
from npu_lint.rules.sample_lengths import index_tag

_ALONG_DIM = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "numpy.concatenate", "numpy.concat"})
_ROWS = frozenset({"torch.vstack", "numpy.vstack", "numpy.row_stack"})
_SIDE_BY_SIDE = frozenset({"torch.hstack", "torch.column_stack", "numpy.hstack", "numpy.column_stack"})
_KEEP = frozenset({"float", "long", "int", "to", "type", "type_as", "half", "double", "cuda", "npu", "cpu",
                   "detach", "clone", "contiguous", "bool"})


def _dim(call: ast.Call) -> Optional[ast.AST]:
    return call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg in ("dim", "axis")),
                                                        None)


def _is(node: Optional[ast.AST], number: int) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == number


def along_rows(call: ast.Call, ctx: FileContext) -> bool:
    """``torch.cat(xs)``, ``torch.cat(xs, 0)``, ``torch.cat(xs, dim=0)``, ``torch.vstack(xs)`` (numpy's
    ``concatenate`` and ``vstack`` alike): the items are joined along their first dimension."""
    name = ctx.resolver.qualname(call.func)
    if name in _ROWS:
        return True
    if name not in _ALONG_DIM:
        return False
    dim = _dim(call)
    return dim is None or _is(dim, 0)


def leading_one(element: ast.AST) -> bool:
    """``x[None]``, ``x[None, :]``, ``x.unsqueeze(0)``, ``x.view(1, -1)``, ``x.reshape((1, n))`` (through
    ``.float()``, ``.to(dev)``): an item of one row."""
    node = element
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        attr, args = node.func.attr, node.args
        if attr == "unsqueeze":
            return bool(args) and _is(args[0], 0)
        if attr in ("view", "reshape"):
            first = args[0].elts[0] if args and isinstance(args[0], (ast.Tuple, ast.List)) and args[0].elts \
                else args[0] if args else None
            return _is(first, 1)
        if attr not in _KEEP:
            return False
        node = node.func.value
    if isinstance(node, ast.Subscript):
        index = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
        return isinstance(index, ast.Constant) and index.value is None
    return False


def tagged_rows(element: ast.AST, indices: dict[str, set[str]], assigned: Callable[[str], list[ast.AST]],
                ctx: FileContext, depth: int = 0) -> Optional[str]:
    """The loop index (of ``indices``: index name -> the names its item binds) whose value ``element`` writes
    on each of the item's rows: the column itself (``torch.full((len(t), 1), i)``) or the item joined with it
    side by side (``torch.cat((col, t), -1)``); a name ``assigned`` one of these in the loop body. Else None."""
    while isinstance(element, ast.Call) and isinstance(element.func, ast.Attribute) and element.func.attr in _KEEP:
        element = element.func.value
    if isinstance(element, ast.Name):
        if depth > 1:
            return None
        return next((found for value in assigned(element.id)
                     if (found := tagged_rows(value, indices, assigned, ctx, depth + 1)) is not None), None)
    found = index_tag(element, indices, assigned) or _padded_tag(element, indices, ctx)
    if found is not None or not isinstance(element, ast.Call) or not element.args \
            or not isinstance(element.args[0], (ast.Tuple, ast.List)):
        return found
    name = ctx.resolver.qualname(element.func)
    if name in _SIDE_BY_SIDE or (name in _ALONG_DIM and _dim(element) is not None and not _is(_dim(element), 0)):
        return next((found for part in element.args[0].elts
                     if (found := index_tag(part, indices, assigned)) is not None), None)
    return None


def _padded_tag(element: ast.AST, indices: dict[str, set[str]], ctx: FileContext) -> Optional[str]:
    """Session 33 (rec33a): ``F.pad(coors, (1, 0), mode="constant", value=i)``: a column of the loop index written
    before (or after) each of the item's rows (a voxel batch's sample index): the index, else None."""
    if not isinstance(element, ast.Call) or ctx.resolver.qualname(element.func) != "torch.nn.functional.pad" \
            or len(element.args) < 2:
        return None
    widths = element.args[1]
    if not isinstance(widths, (ast.Tuple, ast.List)) or len(widths.elts) != 2:
        return None     # only the last dim padded: a column per row
    value = element.args[3] if len(element.args) > 3 else next((k.value for k in element.keywords
                                                                 if k.arg == "value"), None)
    return value.id if isinstance(value, ast.Name) and value.id in indices else None
