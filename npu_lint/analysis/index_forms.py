"""What an index or a size read looks like, by syntax alone (no model): ``x.shape[0]``, ``x.size(0)``, an element
index moved by a loop (``lengths[i]``), a constant index (``ts[-1]``), and the argument a call passes to a
parameter. Used by the data flows (:mod:`npu_lint.analysis.flows`) and the rules that follow sizes into helpers."""
from __future__ import annotations

import ast
from typing import Optional


def passed_argument(call: ast.Call, function: ast.AST, arg: ast.arg, offset: int) -> Optional[ast.AST]:
    """The argument ``call`` passes to parameter ``arg`` of ``function`` (None: not shown, or behind ``*xs``)."""
    positional = [a.arg for a in function.args.posonlyargs + function.args.args]
    index = positional.index(arg.arg) if arg.arg in positional else None
    if index is not None and 0 <= index - offset < len(call.args):
        if any(isinstance(a, ast.Starred) for a in call.args[:index - offset + 1]):
            return None
        return call.args[index - offset]
    return next((kw.value for kw in call.keywords if kw.arg == arg.arg), None)


def first_axis_of_shape(node: ast.Subscript) -> bool:
    """``x.shape[0]``."""
    return isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
        and isinstance(node.slice, ast.Constant) and node.slice.value == 0


def counts(call: ast.Call) -> bool:
    """``x.size(0)``, ``x.size()``, ``x.numel()``, ``x.nelement()``: a count that includes the first axis."""
    attr = call.func.attr  # type: ignore[attr-defined]
    if attr in ("numel", "nelement", "__len__"):
        return True
    return attr == "size" and (not call.args or (isinstance(call.args[0], ast.Constant) and call.args[0].value == 0))


INDEX_TYPES = (ast.Name, ast.BinOp, ast.Attribute, ast.UnaryOp, ast.Constant)


def element_index(index: ast.AST) -> bool:
    """``i``, ``b, i``, ``lvl - 1``: an index that a loop moves over elements with (no slice, no ``...``, no
    ``None``; a constant ``[0]`` alone is left out: it as often picks from a tuple the model takes for a tensor)."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    moving = INDEX_TYPES[:3]
    return any(isinstance(p, moving) for p in parts) and all(
        isinstance(p, INDEX_TYPES) and (not isinstance(p, ast.Constant) or type(p.value) is int) for p in parts)


def constant_index(index: ast.AST) -> bool:
    """``[0]``, ``[-1]``: one element picked by a constant."""
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
        index = index.operand
    return isinstance(index, ast.Constant) and type(index.value) is int


def constant_element(index: ast.AST) -> bool:
    """``[-1, 0]``: one element of an array picked by constants on two axes or more (a Python tuple or list takes no
    tuple index, so the receiver is an array: ``batch_size = coors[-1, 0] + 1``)."""
    return isinstance(index, ast.Tuple) and len(index.elts) >= 2 and all(constant_index(e) for e in index.elts)


def is_range(node: ast.AST) -> bool:
    """``range(...)``: a count of steps."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"
