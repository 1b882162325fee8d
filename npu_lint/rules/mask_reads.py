"""NPU402's reading of a subscript: whether an index is a boolean mask (``is_bool_index``, also asked by NPU303 and
NPU409), whether the indexed value is evidently a tensor, what an assignment through a mask writes, and the file's
helpers returning a boolean-mask selection (a call leaving an optional mask out selects nothing). Nothing here is
a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.names import rooted
from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.resolver import MASK
from npu_lint.rules import short_source
from npu_lint.rules.dynamic_wrappers import MASK_SELECTION, flags_left_off, helper_of_file, wrapper_chain, wrapper_site
from npu_lint.rules.mask_values import computed_tensor, is_fill_value

# Calls that return a boolean tensor (a mask) when given tensors.
_BOOL_FUNCTIONS = frozenset({
    "torch.isnan", "torch.isinf", "torch.isfinite", "torch.isneginf", "torch.isposinf", "torch.logical_and",
    "torch.logical_or", "torch.logical_not", "torch.logical_xor", "torch.eq", "torch.ne", "torch.gt", "torch.ge",
    "torch.lt", "torch.le", "torch.isin", "torch.bernoulli"})
_BOOL_METHODS = frozenset({"bool", "isnan", "isinf", "isfinite", "logical_and", "logical_or", "logical_not",
                           "logical_xor", "eq", "ne", "gt", "ge", "lt", "le"})   # no ``isin``: pandas' method


def is_bool_index(node: ast.expr, ctx: FileContext) -> bool:
    """A boolean mask: a comparison, ``~``/``&``/``|`` of masks, a name bound to one, ``torch.isnan(x)``, ``m.bool()``."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Invert, ast.Not)):
        return is_bool_index(node.operand, ctx) or ctx.resolver.kind_of(node) == MASK   # ``x[~keep]``
    if isinstance(node, ast.Call):
        name = ctx.resolver.qualname(node.func)
        if name is not None:   # ``torch.triu(causal, 1)`` of a mask keeps it one
            return name in _BOOL_FUNCTIONS or ((rooted(name, ("torch",)) or name == "functools.reduce")
                                               and ctx.resolver.kind_of(node) == MASK)   # (masks folded: session 32)
        if isinstance(node.func, ast.Attribute) and node.func.attr in _BOOL_METHODS:
            return True
    return ctx.resolver.kind_of(node) == MASK   # ``x[fn(x)]``: a callable whose every candidate returns a mask


def tensor_evidence(subscript: ast.Subscript, index: ast.expr, ctx: FileContext) -> bool:
    """The indexed value, or the tensor the mask was computed from, is evidently a torch tensor."""
    if ctx.resolver.is_tensor(subscript.value):
        return True
    while isinstance(index, ast.UnaryOp):
        index = index.operand
    if isinstance(index, ast.Compare):
        return ctx.resolver.is_tensor(index.left) or any(ctx.resolver.is_tensor(c) for c in index.comparators)
    if isinstance(index, ast.Call):
        name = ctx.resolver.qualname(index.func)
        if name is not None:
            return name in _BOOL_FUNCTIONS
        return ctx.resolver.is_tensor(index.func.value) if isinstance(index.func, ast.Attribute) else False
    return False


def mask_helper_site(node: ast.Call, ctx: FileContext) -> Optional[ast.AST]:
    """Where the selection :func:`mask_helper` found stands in this file (inside the helper)."""
    definition = helper_of_file(node, ctx)
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    return wrapper_site(definition, ctx, flags_left_off(node, definition))


def mask_helper(node: ast.Call, ctx: FileContext) -> Optional[list[str]]:
    """``flatten(scores, labels)`` where the file's ``flatten`` returns ``scores[valid]``: the chain to it."""
    definition = helper_of_file(node, ctx)
    if definition is None:
        return None
    chain = wrapper_chain(definition, ctx, off=flags_left_off(node, definition)
                          if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)) else frozenset())
    return chain if chain and chain[-1] == MASK_SELECTION else None


def rows_written(node: ast.Subscript, ctx: FileContext) -> Optional[ast.AST]:
    """``x[mask] = rows`` where the right-hand side is tensor rows, not one fill value (NPU303's case), and reads
    nothing through a mask itself (``x[m] = y[m] * 2``: NPU402 on the read already): the value written, else None."""
    parent = ctx.parent(node)
    if not isinstance(parent, ast.Assign) or len(parent.targets) != 1 or parent.targets[0] is not node:
        return None
    value = parent.value
    if is_fill_value(value, ctx) and not computed_tensor(value, parent, ctx):
        return None
    if not computed_tensor(value, parent, ctx) and not isinstance(value, (ast.Call, ast.BinOp, ast.Subscript)):
        return None
    return None if reads_through_mask(value, ctx) else value


def reads_through_mask(value: ast.AST, ctx: FileContext) -> bool:
    """``y[m] * 2``: the value reads through a boolean mask (that read is reported)."""
    return any(isinstance(child, ast.Subscript) and not isinstance(child.slice, (ast.Slice, ast.Constant))
               and is_bool_index(child.slice, ctx) for child in walk(value))


def type_name(value: ast.AST, ctx: FileContext) -> bool:
    """``Optional`` of ``Optional[...]``: a capitalised name no enclosing function binds (a parameter or local named
    ``A``, ``C`` or ``X`` is a matrix of the math it runs, not a generic type)."""
    if not isinstance(value, ast.Name) or not value.id[:1].isupper():
        return False
    scope = ctx.resolver.current
    while scope is not None and scope.kind != "module":
        if value.id in scope.names and scope.kind != "class":
            return False
        scope = scope.parent
    return True


def index_text(index: ast.AST) -> str:
    """``mask, idx`` for the index of ``m[mask, idx]`` (no parentheses around a tuple of indexes)."""
    if not isinstance(index, ast.Tuple) or not index.elts:
        return short_source(index)
    text = ", ".join(short_source(element, 40) for element in index.elts)
    return text if len(text) <= 40 else text[:37] + "..."


def assigned(node: ast.Subscript, ctx: FileContext) -> bool:
    """``x[...] = v``: the subscript is the one target of an assignment."""
    parent = ctx.parent(node)
    return isinstance(parent, ast.Assign) and len(parent.targets) == 1 and parent.targets[0] is node


def updated_in_place(node: ast.Subscript, ctx: FileContext) -> bool:
    """``x[mask] += v``: the masked elements are read, then written back."""
    parent = ctx.parent(node)
    return isinstance(parent, ast.AugAssign) and parent.target is node
