"""The broad path of NPU405 (session 22, values22): padding up to a maximum whose items the model cannot type.

The proof-based path (:mod:`npu_lint.analysis.batch_extremes`) accepts a maximum when it sees the items' lengths
(``max(len(s) for s in batch)``). New code takes the maximum of anything else the items carry --
``max(batch_word_num)`` after ``batch_word_num = [inst.word_num for inst in batch]``, ``max([max(x) for x in
token_lens])`` of a parameter, ``lengths.max()`` of a tensor handed in -- and pads each item up to it. Here the
padding is the trigger: a count ``m - <each item's measure>`` (``[0] * (m - len(x))``, ``F.pad(x, (0, m - n))``)
whose ``m`` is a maximum taken in the function; silent only when the maximum is proven fixed (a literal of
constants, a module constant, a maximum of two named values: the longer of two, not a batch's). Nothing here
reports: dynamic_padding.py does."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.scopes import VALUE
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES
from npu_lint.rules.test_scope import test_code

_WRAPS = frozenset({"int", "item", "long"})
_METHODS = frozenset({"max", "amax"})
_LIBRARY_MAX = frozenset({"torch.max", "torch.amax", "numpy.max", "numpy.amax"})


def padded_list(node: ast.BinOp) -> Optional[ast.AST]:
    """The count a one-element list is repeated by, through a chain of products: ``[pad] * (m - len(x))``,
    ``[-1] * width * (m - len(x))`` (the row padding of a flattened grid: the last factor)."""
    if not isinstance(node.op, ast.Mult):
        return None
    for padded, count in ((node.left, node.right), (node.right, node.left)):
        inner = padded
        while isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Mult):
            inner = inner.left if isinstance(inner.left, (ast.List, ast.Tuple, ast.BinOp)) else inner.right
        if isinstance(inner, (ast.List, ast.Tuple)) and len(inner.elts) == 1:
            return count
    return None


def padding_maximum(count: ast.AST, node: ast.AST, ctx: FileContext) -> Optional[ast.Call]:
    """The maximum ``m`` of a padding count ``m - measure`` (the measure not a constant), taken in the function of
    ``node``; None when there is none or it is proven fixed, and in test code."""
    if not (isinstance(count, ast.BinOp) and isinstance(count.op, ast.Sub)) or isinstance(count.right, ast.Constant):
        return None
    function = ctx.enclosing(node, FUNCTION_TYPES)
    if function is None or test_code(node, ctx):
        return None
    return _maximum_in(count.left, function, ctx, 0)


def _maximum_in(value: ast.AST, function: ast.AST, ctx: FileContext, depth: int) -> Optional[ast.Call]:
    """A maximum call ``value`` is (through ``int()`` / ``.item()`` and arithmetic with constants), or a name of
    the function bound to one."""
    if depth > 3:
        return None
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub, ast.Mult)):
        for side, other in ((value.left, value.right), (value.right, value.left)):
            if isinstance(other, ast.Constant):
                return _maximum_in(side, function, ctx, depth + 1)
        return None
    if isinstance(value, ast.Call):
        inner = _unwrapped(value)
        return inner if _varying_maximum(inner, ctx) else None
    if isinstance(value, ast.Name):
        scopes = ctx.resolver.scopes
        if scopes is None:
            return None
        scope = scopes.scope_of(function)
        if scope is None:
            return None
        for binding in scopes.may_reach(value.id, scope, (value.lineno, value.col_offset)):
            if binding.tag != VALUE or binding.path or not isinstance(binding.value, ast.AST) \
                    or binding.scope is not scope:
                continue
            found = _maximum_in(binding.value, function, ctx, depth + 1)
            if found is not None:
                return found
    return None


def _unwrapped(node: ast.Call) -> ast.Call:
    """``int(m.max())``, ``lengths.max().item()``: the maximum inside."""
    while isinstance(node, ast.Call) and not node.keywords:
        func = node.func
        if isinstance(func, ast.Name) and func.id in _WRAPS and len(node.args) == 1 \
                and isinstance(node.args[0], ast.Call):
            node = node.args[0]
        elif isinstance(func, ast.Attribute) and func.attr in _WRAPS and not node.args \
                and isinstance(func.value, ast.Call):
            node = func.value
        else:
            break
    return node


def _varying_maximum(call: ast.Call, ctx: FileContext) -> bool:
    """``max(items)`` (the builtin, one iterable, no ``key``), ``t.max()`` / ``t.amax()`` without a dimension,
    ``torch.max(t)`` / ``np.max(t)``: a maximum over values the code does not fix. Fixed: a literal of constants,
    a module-level constant, a starred or two-value maximum (``max(a, b)``: the longer of two named values)."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in _METHODS and not call.args and not call.keywords:
        # a numpy array's maximum padding Python lists is host bookkeeping (the lists are not seen made a tensor)
        return not isinstance(func.value, (ast.Constant, ast.List, ast.Tuple)) \
            and ctx.resolver.kind_of(func.value) != K.HOST
    if call.keywords or len(call.args) != 1 or isinstance(call.args[0], ast.Starred):
        return False
    if isinstance(func, ast.Name) and func.id == "max":
        if ctx.resolver.definition(func) is not None:
            return False    # the file's own ``max``
    elif (ctx.resolver.qualname(func) or "") not in _LIBRARY_MAX:
        return False
    items = call.args[0]
    if isinstance(items, (ast.List, ast.Tuple, ast.Set)) and all(isinstance(e, ast.Constant) for e in items.elts):
        return False
    if isinstance(items, ast.Name):
        scopes = ctx.resolver.scopes
        binding = ctx.resolver.binding(items) if scopes is not None else None
        if binding is not None and binding.scope is not None and binding.scope.kind == "module" \
                and isinstance(binding.value, (ast.List, ast.Tuple, ast.Constant)):
            return False    # a module constant
    return True
