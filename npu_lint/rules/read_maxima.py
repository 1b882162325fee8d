"""A list padded to a maximum read back from a tensor, for NPU405 (dynamic_padding.py): ``t += [stop] *
(int(lengths.max().item()) - len(t))`` -- each item padded up to the largest value of a tensor of the batch (its
lengths), a target that changes with every batch."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.context import FileContext

_MAXIMA = frozenset({"max", "amax"})
_READS = frozenset({"item", "tolist"})


def _maximum_read(node: ast.AST) -> Optional[ast.Call]:
    """``t.max().item()``, ``int(t.max())``, ``t.amax().item()``: the whole-tensor maximum read to the host."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("int", "float") \
            and len(node.args) == 1:
        inner = node.args[0]
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr in _READS:
            inner = inner.func.value
        return _maximum_read(inner) if not _whole_max(inner) else inner   # type: ignore[return-value]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _READS \
            and _whole_max(node.func.value):
        return node.func.value   # type: ignore[return-value]
    return None


def _whole_max(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MAXIMA \
        and not node.args and not node.keywords and not isinstance(node.func.value, ast.Constant)


def read_maximum(count: ast.AST, ctx: FileContext) -> Optional[ast.AST]:
    """``M - len(t)`` (``M - t.size(0)``) where ``M`` is a tensor's maximum read back (spelled there, or a name
    bound to it in the function) and ``t`` the item padded: the maximum, else None. The receiver must be a tensor
    the model knows or cannot tell (numpy's ``arr.max()`` is host data)."""
    if not isinstance(count, ast.BinOp) or not isinstance(count.op, ast.Sub):
        return None
    right = count.right
    if not (isinstance(right, ast.Call) and (isinstance(right.func, ast.Name) and right.func.id == "len"
                                             or isinstance(right.func, ast.Attribute) and right.func.attr == "size")):
        return None
    left = count.left
    if isinstance(left, ast.Name):
        binding = ctx.resolver.binding(left)
        if binding is None or binding.tag != "value" or binding.path or binding.value is None:
            return None
        left = binding.value
    found = _maximum_read(left)
    if found is None:
        return None
    receiver = found.func.value   # type: ignore[attr-defined]
    if ctx.resolver.is_host(receiver) or ctx.resolver.kind_of(receiver) not in (None, "tensor"):
        return None
    return found
