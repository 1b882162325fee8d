"""A sample cut to its own length: ``attn[b, :, :src_len[b]]``, ``x[i][:lengths[i]]``, or ``a[:mel_lengths[idx]]``
for ``a`` the element ``for idx, a in enumerate(alignments)`` gives. The slice bound is the element of a vector of
lengths picked by the same index that picks the sample it cuts: the sample's own length, a value read from the
tensor of lengths (a sync on NPU when it lives there) and a new shape per sample. Reviewers mark it whatever the
index is (a loop variable, a parameter, a comprehension's kept index), and whether the vector of lengths is a loader
batch's field, an attribute set in another module or a parameter: the pairing itself shows a per-sample length. A
vector the model knows as a host list or array, or as configuration (``torch.tensor([...])`` of constants), is left
alone; so is a bound the resolver already follows (NPU403's ordinary reads)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.configuration import from_constants
from npu_lint.analysis.scopes import VALUE
from npu_lint.context import FileContext

_LOOPS_UP = 3   # enclosing ``for`` loops looked at for ``for i, x in enumerate(xs)``


def sample_cut(node: ast.Subscript, bounds: list[ast.AST], ctx: FileContext, scope) -> Optional[ast.Subscript]:
    """The pick ``lengths[i]`` (a bound of ``node``, or the value of a name bound once to it) that cuts the sample
    ``i`` of ``node``'s receiver (None: not this form)."""
    resolver = ctx.resolver
    for bound in bounds:
        pick = bound
        if isinstance(bound, ast.Name):
            binding = resolver.binding(bound, scope)
            if binding is None or binding.tag != VALUE or binding.path or not isinstance(binding.value, ast.Subscript):
                continue
            pick = binding.value
        if not isinstance(pick, ast.Subscript) or not isinstance(pick.slice, ast.Name):
            continue
        index = pick.slice.id
        if not _cuts_sample(node, index, ctx):
            continue
        vector = pick.value
        if not isinstance(vector, (ast.Name, ast.Attribute)) or resolver.is_host(vector):
            continue
        value = resolver.value_of(vector, scope)
        if value is not None and value[0] not in K.TENSORS:
            continue   # a Python number, a string, an object the model knows: no vector of lengths
        if from_constants(vector, resolver, scope):
            continue
        return pick
    return None


def _cuts_sample(node: ast.Subscript, index: str, ctx: FileContext) -> bool:
    """``x[i, ..., :n]``, ``x[i][:n]`` or ``x[:n]`` with ``x`` the item ``for i, x in enumerate(...)`` gives."""
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if not isinstance(parts[0], ast.Slice):
        return isinstance(parts[0], ast.Name) and parts[0].id == index
    receiver = node.value
    if isinstance(receiver, ast.Subscript):
        return isinstance(receiver.slice, ast.Name) and receiver.slice.id == index
    if not isinstance(receiver, ast.Name):
        return False
    loop = node
    for _ in range(_LOOPS_UP):
        loop = ctx.enclosing(loop, (ast.For, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))
        if not isinstance(loop, ast.For):
            return False
        target, source = loop.target, loop.iter
        if isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(source, ast.Call) \
                and isinstance(source.func, ast.Name) and source.func.id == "enumerate":
            first, second = target.elts
            if isinstance(first, ast.Name) and first.id == index:
                return isinstance(second, ast.Name) and second.id == receiver.id
    return False
