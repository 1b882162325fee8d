"""A sample cut to its own length: ``attn[b, :, :src_len[b]]``, ``x[i][:lengths[i]]``, or ``a[:mel_lengths[idx]]``
for ``a`` the element ``for idx, a in enumerate(alignments)`` gives. The slice bound is the element of a vector of
lengths picked by the same index that picks the sample it cuts: the sample's own length, a value read from the
tensor of lengths (a sync on NPU when it lives there) and a new shape per sample. Reviewers mark it whatever the
index is (a loop variable, a parameter, a comprehension's kept index), and whether the vector of lengths is a loader
batch's field, an attribute set in another module or a parameter: the pairing itself shows a per-sample length. A
vector the model knows as a host list or array, or as configuration (``torch.tensor([...])`` of constants), is left
alone by :func:`sample_cut`; so is a bound the resolver already follows (NPU403's ordinary reads). :func:`sample_count`
takes the host numbers a signature or a loop shows are one per sample (a ``list[int]`` parameter picked by the
sample's index, the values of ``enumerate(counts)`` beside the index that picks the sample): no sync then, but the
same new shape per sample."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.configuration import from_constants
from npu_lint.analysis.scopes import LOOP, PARAM, VALUE
from npu_lint.context import FileContext

_LOOPS_UP = 3   # enclosing ``for`` loops looked at for ``for i, x in enumerate(xs)``


def sample_cut(node: ast.Subscript, bounds: list[ast.AST], ctx: FileContext, scope) -> Optional[ast.Subscript]:
    """The pick ``lengths[i]`` (a bound of ``node``, or the value of a name bound once to it) that cuts the sample
    ``i`` of ``node``'s receiver (None: not this form)."""
    resolver = ctx.resolver
    for bound in map(_offset, bounds):
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


def _offset(bound: ast.AST) -> ast.AST:
    """``lengths[i] + 1`` -> ``lengths[i]``: a count and a constant (the background class, an end token)."""
    if isinstance(bound, ast.BinOp) and isinstance(bound.op, (ast.Add, ast.Sub)) \
            and isinstance(bound.right, ast.Constant) and isinstance(bound.right.value, int):
        return bound.left
    return bound


def _int_list(annotation: Optional[ast.AST]) -> bool:
    """``list[int]``, ``List[int]``, ``Sequence[int]``, ``typing.List[int]``: one number per sample, on the host."""
    if not isinstance(annotation, ast.Subscript) or not isinstance(annotation.slice, ast.Name) \
            or annotation.slice.id != "int":
        return False
    outer = annotation.value
    name = outer.attr if isinstance(outer, ast.Attribute) else outer.id if isinstance(outer, ast.Name) else ""
    return name in ("list", "List", "Sequence", "tuple", "Tuple")


def sample_count(node: ast.Subscript, bounds: list[ast.AST], ctx: FileContext, scope) -> Optional[ast.AST]:
    """The per-sample count that cuts the sample ``i`` of ``node``'s receiver when it is a host number, not a tensor's
    element (None otherwise): ``logits[bi, :num_objects[bi] + 1]`` with ``num_objects: list[int]`` a parameter
    (Cutie's loss), or ``x[b, :n + 1]`` in ``for b, n in enumerate(self.obj_nums)`` (DeAOT: the count of each
    sample, set per call; a comprehension's ``for b, n in enumerate(...)`` too). Either way each sample is cut to its
    own length: a new shape per sample."""
    resolver = ctx.resolver
    for bound in map(_offset, bounds):
        if isinstance(bound, ast.Subscript) and isinstance(bound.slice, ast.Name) \
                and isinstance(bound.value, ast.Name) and _cuts_sample(node, bound.slice.id, ctx):
            binding = resolver.binding(bound.value, scope)
            annotation = getattr(binding.node, "annotation", None) if binding is not None else None
            if binding is not None and binding.tag == PARAM and _int_list(annotation):
                return bound
        if isinstance(bound, ast.Name):
            binding = resolver.binding(bound, scope)
            loop = ctx.parent_anywhere(binding.value) if binding is not None and binding.tag == LOOP \
                and binding.path == (1,) and isinstance(binding.value, ast.AST) else None
            if not isinstance(loop, (ast.For, ast.comprehension)) or not isinstance(loop.target, ast.Tuple) \
                    or len(loop.target.elts) != 2 or not isinstance(loop.iter, ast.Call) \
                    or not isinstance(loop.iter.func, ast.Name) or loop.iter.func.id != "enumerate" \
                    or len(loop.iter.args) != 1:
                continue
            first, second = loop.target.elts
            counts = loop.iter.args[0]
            if not (isinstance(first, ast.Name) and isinstance(second, ast.Name) and second.id == bound.id) \
                    or not isinstance(counts, (ast.Name, ast.Attribute)) or resolver.is_host(counts) \
                    or from_constants(counts, resolver, scope):
                continue
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if isinstance(parts[0], ast.Name) and parts[0].id == first.id:   # ``x[b, :n]``: the sample b, cut
                value = resolver.value_of(counts, scope)
                if value is None or value[0] in (K.LIST, *K.TENSORS):
                    return bound
    return None
