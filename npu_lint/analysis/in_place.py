"""Tensors a function changes in place after making them: ``input_pos = torch.tensor([prompt_size])`` then
``input_pos.add_(len(new_tokens))`` in the generation loop. Made from configuration, the tensor no longer holds it
once an in-place operator writes a value in (a position that advances with the data): its ``.item()`` is a value
of the run, not a setting (:func:`npu_lint.analysis.configuration.from_constants` asks). Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from npu_lint.analysis.scopes import Binding

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
                and type(func.value) is ast.Name and func.value.id == binding.name and call.lineno >= binding.pos[0]:
            return True
    return False
