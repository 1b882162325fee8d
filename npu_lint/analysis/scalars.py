"""Python numbers by their look: the expressions that give an ``int`` or a ``float`` whatever their operands are
(``len(xs)``, ``x.size(0)``, ``x.shape[0]``, ``x.dim()``, ``int(t)``, ``t.item()``). Shared by the resolver's
comparisons (``n == 0`` is a Python bool, not a mask) and its ``isinstance`` narrowing (``size = x.size(d)`` is
never a tensor)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.declared import PYTHON_SCALARS
from npu_lint.analysis.scopes import VALUE, Binding

_NUMBER_CALLS = frozenset({"int", "float", "round"})
_NUMBER_METHODS = frozenset({"item", "nelement", "ndimension", "element_size"})


def length_call(node: ast.AST) -> bool:
    """``len(xs)``: a Python int, whatever its argument (``float('-inf')`` is compared with tensors too)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"


def size_read(node: ast.AST) -> bool:
    """``x.shape[0]``, ``x.ndim``, ``x.dim()``, ``x.numel()``, ``x.size(0)``: a size read as a Python int."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        return True
    return isinstance(node, ast.Attribute) and node.attr == "ndim" or isinstance(node, ast.Call) and isinstance(
        node.func, ast.Attribute) and node.func.attr in ("dim", "numel", "size") and len(node.args) == (
        node.func.attr == "size")


def scalar(node: ast.AST, value: Optional[K.Value]) -> bool:
    """A Python number or string: a constant, ``len(xs)``, a size read (``x.shape[0]``, ``x.size(1)``), a name
    annotated ``int``/``float``/``str``..."""
    return size_read(node) or (isinstance(node, ast.Constant) and not isinstance(node.value, type(...))) \
        or length_call(node) or (value is not None and value[0] == K.OBJECT and value[1] in PYTHON_SCALARS)


def python_number(node: ast.AST) -> bool:
    """An expression that gives a Python number: a numeric constant, a size read, ``len`` / ``int`` / ``float`` /
    ``round`` of anything, ``t.item()``."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if size_read(node) or length_call(node):
        return True
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Name) and func.id in _NUMBER_CALLS) or (
        isinstance(func, ast.Attribute) and func.attr in _NUMBER_METHODS)


def moved_to_host(binding: "Binding") -> bool:
    """``x = x.cpu()`` (``x.cpu().float()``, not ``.numpy()``): the name's own tensor moved to the host by its look.
    Under a condition (``if mode == "cpu":``, an OOM fallback) with another binding of the name reaching the use, the
    value is on the device on the path that skips it."""
    value = binding.value
    if binding.tag != VALUE or binding.path or not isinstance(value, ast.Call):
        return False
    moved = False
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        if value.func.attr in ("numpy", "tolist", "item"):
            return False   # ``if isinstance(x, Tensor): x = x.cpu().numpy()``: made host data on every path
        moved = moved or value.func.attr == "cpu"
        value = value.func.value
    return moved and isinstance(value, ast.Name) and value.id == binding.name
