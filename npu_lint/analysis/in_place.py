"""Tensors a function changes in place after making them: ``input_pos = torch.tensor([prompt_size])`` then
``input_pos.add_(len(new_tokens))`` in the generation loop. Made from configuration, the tensor no longer holds it
once an in-place operator writes a value in (a position that advances with the data): its ``.item()`` is a value
of the run, not a setting (:func:`npu_lint.analysis.configuration.from_constants` asks). Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from npu_lint.analysis.scalars import number_parameter
from npu_lint.analysis.scopes import PARAM, Binding, Scope

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

# In-place operators that write values (not ``requires_grad_`` / ``share_memory_``, no value; nor ``zero_``, a
# constant).
WRITING = frozenset({"add_", "sub_", "mul_", "div_", "copy_", "fill_", "clamp_", "index_add_", "index_copy_",
                     "index_fill_", "scatter_", "scatter_add_", "scatter_reduce_", "masked_fill_", "masked_scatter_",
                     "put_", "addcmul_", "addcdiv_", "lerp_", "floor_divide_", "remainder_", "copysign_"})


def written_in_place(binding: Binding, resolver: "Resolver") -> bool:
    """An in-place operator of :data:`WRITING` writes into the tensor bound here, later in its scope
    (``name.add_(n)``)."""
    if resolver.scopes is None:
        return False
    for call in resolver.scopes.calls_on(binding.scope, binding.name):
        func = call.func
        if type(func) is ast.Attribute and func.attr in WRITING \
                and type(func.value) is ast.Name and func.value.id == binding.name and call.lineno >= binding.pos[0] \
                and not _settled(call, binding.scope):
            return True
    return False


def _settled(call: ast.Call, scope: Scope) -> bool:
    """``dims.clamp_(max=dim_max)`` once, in no loop, with settings only (constants, parameters defaulting to or
    annotated as numbers, arithmetic of them): the tensor still holds configuration after the write. A write in a
    loop advances the value (``pos.add_(1)`` per generated token); a length or a name of unknown origin may be
    the data's (``pos.add_(len(new))``)."""
    position = (call.lineno, call.col_offset)
    if any(start <= position <= end for start, end in scope.loops):
        return False
    return all(_setting(a, scope, 0) for a in (*call.args, *(k.value for k in call.keywords)))


def _setting(node: ast.AST, scope: Scope, depth: int) -> bool:
    if depth > 4:
        return False
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp):
        return _setting(node.operand, scope, depth + 1)
    if isinstance(node, ast.BinOp):
        return _setting(node.left, scope, depth + 1) and _setting(node.right, scope, depth + 1)
    if not isinstance(node, ast.Name):
        return False
    bindings = scope.names.get(node.id, [])
    if len(bindings) != 1 or bindings[0].tag != PARAM:
        return False
    return number_parameter(bindings[0])
