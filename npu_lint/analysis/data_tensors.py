"""Data or configuration: whether a tensor's values come with each call (data) or are fixed by the code.

A tensor used where a size goes (``x[:, :lengths[b]]``, ``torch.zeros(coors[-1, 0] + 1)``, ``voxels[:voxel_num]``)
is read from the device; whether it is a *new* value per batch tells a dynamic shape from a fixed one. The code shows
data when the tensor comes, through names, tensor methods, indexing, arithmetic and torch functions, from:

- a parameter (of a function other than ``__init__``) that the model knows is a tensor (annotated, filled with tensors
  by the file's calls, used with tensor-only methods), unless a call of the file passes it configuration;
- ``self.x`` set outside ``__init__`` from such a value (``def initialize(self, src_len): self.src_len = src_len``);
- a batch of a data loader;
- what a call outside torch and outside the file (a compiled extension's op, another module's function) returns when
  it is passed such a tensor: an op's output.

Configuration is never data: ``torch.tensor([..literals..])``, ``x.new_tensor(self.num_grids)``, factories
(``torch.zeros``, ``torch.arange(n)``), a buffer or attribute a module sets only in ``__init__``. Anything the code
does not show is no data either: a rule asking stays silent.

:func:`filled_count` answers the out-parameter form of an op: ``n = op(points, buf, ...)`` (or ``n = torch.zeros(())``
passed to ``op(points, buf, n)``) then ``buf[:n]``: the op wrote ``n`` valid rows into a buffer of a fixed size.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.configuration import from_constants
from npu_lint.analysis.index_forms import passed_argument
from npu_lint.analysis.nodes import body_of, walk
from npu_lint.analysis.packed import batch_sizes_field
from npu_lint.analysis.scopes import PARAM, VALUE, Binding, Scope

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

PARAMETER_ROOT, BATCH_ROOT, OP_ROOT = "parameter", "batch", "op"
Root = tuple[str, ast.AST]   # (what shows the data, where: the parameter, the batch, the op's call)
_DEPTH = 12
_FACTORIES = frozenset("torch." + name for name in (
    "tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "arange", "linspace", "logspace", "eye",
    "zeros_like", "ones_like", "full_like", "empty_like", "meshgrid", "Tensor", "IntTensor", "LongTensor", "FloatTensor",
    "DoubleTensor", "HalfTensor", "BoolTensor", "ByteTensor"))
_NEW = frozenset({"new_tensor", "new_zeros", "new_ones", "new_full", "new_empty"})


def data_root(resolver: "Resolver", node: ast.AST, scope: Scope, depth: int = 0) -> Optional[Root]:
    """What shows that the tensor ``node`` holds data (None: configuration, or the code does not show it)."""
    if depth > _DEPTH or resolver.scopes is None or node is None:
        return None
    kind = type(node)
    if kind in (ast.Name, ast.Attribute) and (packed := batch_sizes_field(resolver, node, scope)) is not None:
        return OP_ROOT, packed   # a PackedSequence's ``batch_sizes``: how many sequences run at each step
    if kind is ast.Name:
        bindings = resolver.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset))
        roots = [_binding_root(resolver, b, depth + 1) for b in bindings]
        return roots[0] if roots and all(roots) else None
    if kind is ast.Attribute:
        receiver = node.value
        if isinstance(receiver, ast.Name) and receiver.id == resolver.scopes.self_name(scope):
            return _attribute_root(resolver, node, scope, depth)
        if node.attr in K.TENSOR_ATTRIBUTES:   # ``lengths.data``
            return data_root(resolver, receiver, scope, depth + 1)
        return (BATCH_ROOT, node) if resolver.kind_of_at(node, scope) == K.BATCH else None
    if kind is ast.Subscript:   # a row or an element of data
        if resolver.kind_of_at(node.value, scope) == K.BATCH:
            return BATCH_ROOT, node.value
        if isinstance(node.value, ast.Name) and resolver.kind_of_at(node.value, scope) is None \
                and resolver.kind_of_at(node, scope) in K.TENSORS:   # ``inputs["num_graphs"]`` of ``inputs: Dict[str,
            binding = resolver.binding(node.value, scope)            # Tensor]``: a tensor the caller passes in a mapping
            if binding is not None and binding.tag == PARAM:
                return _parameter_root(resolver, binding, held=True)
        return data_root(resolver, node.value, scope, depth + 1)
    if kind is ast.BinOp:
        return data_root(resolver, node.left, scope, depth + 1) or data_root(resolver, node.right, scope, depth + 1)
    if kind is ast.Call:
        return _call_root(resolver, node, scope, depth)
    return None


def _call_root(resolver: "Resolver", node: ast.Call, scope: Scope, depth: int) -> Optional[Root]:
    func = node.func
    name = resolver.qualname(func, scope)
    if name in _FACTORIES or (isinstance(func, ast.Attribute) and func.attr in _NEW):
        return None   # made by the code: configuration, or a buffer an op fills (filled_count's business)
    if resolver.kind_of_at(node, scope) == K.BATCH:
        return BATCH_ROOT, node
    if name is None and isinstance(func, ast.Attribute):
        if resolver.kind_of_at(func.value, scope) in K.TENSORS:   # ``src_len.repeat_interleave(k)``, ``x.long()``
            return data_root(resolver, func.value, scope, depth + 1)
    elif name is not None and name.startswith("torch."):   # ``torch.cumsum(lengths, 0)``: from its inputs
        return next(filter(None, (data_root(resolver, a, scope, depth + 1) for a in node.args)), None)
    if name is not None and name.startswith(("torch.", "numpy.", "math.", "builtins.")) \
            or resolver._own_function(node, scope) is not None:
        return None   # the file's own functions: their returns are the flows' business
    if any(data_root(resolver, a, scope, depth + 1) is not None for a in node.args):
        return OP_ROOT, node   # ``hard_voxelize(points, ...)``, ``tile(src_len, beam)``: an op's output
    return None


def _binding_root(resolver: "Resolver", binding: Binding, depth: int) -> Optional[Root]:
    if binding.tag == PARAM:
        return _parameter_root(resolver, binding)
    if binding.tag == VALUE and isinstance(binding.value, ast.AST):
        value = binding.value
        if binding.path:   # ``voxels, coors, n = op(points)``: an element of what an op returns
            return _call_root(resolver, value, binding.scope, depth) if isinstance(value, ast.Call) else None
        return data_root(resolver, value, binding.scope, depth)
    return None


def _parameter_root(resolver: "Resolver", binding: Binding, held: bool = False) -> Optional[Root]:
    """A tensor parameter (``held``: a parameter holding tensors under keys, the caller's tensors) the file's calls
    fill with data, or none of them calls."""
    function, scope = binding.scope.node, binding.scope
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.name == "__init__" \
            or binding.node is None or binding.name == scope.self_name:
        return None
    value = resolver.binding_value(binding)
    if not held and (value is None or value[0] not in K.TENSORS):
        return None
    for call, at, offset in resolver.call_sites(function):
        passed = passed_argument(call, function, binding.node, offset)
        if passed is not None and (from_constants(passed, resolver, at) or data_root(resolver, passed, at) is None):
            return None   # ``f(h, g, torch.IntTensor([self.hidden_size])[0])``: a call of the file passes no data
    return PARAMETER_ROOT, binding.node


def _attribute_root(resolver: "Resolver", node: ast.Attribute, scope: Scope, depth: int) -> Optional[Root]:
    """``self.src_len``: data when every method that sets it (``None`` in ``__init__`` aside) sets data, outside
    ``__init__`` (set only when the object is built, it is the object's configuration)."""
    bindings = [b for b in resolver.scopes.attribute(scope, node.attr)
                if not (isinstance(b.value, ast.Constant) and b.value.value is None)]
    if not bindings or any(getattr(b.scope.node, "name", None) == "__init__" for b in bindings):
        return None
    roots = [_binding_root(resolver, b, depth + 1) for b in bindings]
    return roots[0] if all(roots) else None


def filled_count(resolver: "Resolver", sliced: ast.AST, bound: ast.AST, scope: Scope) -> Optional[ast.Call]:
    """``buf[:n]`` where an op given data and the buffer ``buf`` returned ``n`` (``n = hard_voxelize(points, voxels,
    ...)``) or wrote it (``n = torch.zeros(()); op(points, voxels, n)``): the op's call (None: not this form)."""
    if not isinstance(sliced, ast.Name) or not isinstance(bound, ast.Name) or resolver.scopes is None:
        return None
    count = resolver.binding(bound, scope)
    buffer = resolver.binding(sliced, scope)
    if count is None or buffer is None or count.tag != VALUE or count.path or not isinstance(count.value, ast.Call):
        return None
    calls = [count.value] if not _made(resolver, count.value, scope) else [
        c for c in _statement_calls(count.scope) if c.lineno > count.pos[0] and _passes(resolver, c, count, scope)]
    for call in calls:
        if (resolver.qualname(call.func, scope) or "").startswith("torch."):
            continue   # ``torch.bucketize(v, fpr)`` reads its inputs, writes none of them
        if _passes(resolver, call, buffer, scope) and _call_root(resolver, call, count.scope, 0) is not None:
            return call
    return None


def _made(resolver: "Resolver", call: ast.Call, scope: Scope) -> bool:
    return resolver.qualname(call.func, scope) in _FACTORIES or (
        isinstance(call.func, ast.Attribute) and call.func.attr in _NEW)


def _passes(resolver: "Resolver", call: ast.Call, binding: Binding, scope: Scope) -> bool:
    """``call`` passes the value ``binding`` gives its name, positionally or by keyword."""
    return any(isinstance(a, ast.Name) and a.id == binding.name and resolver.binding(a, scope) is binding
               for a in list(call.args) + [kw.value for kw in call.keywords])


def _statement_calls(scope: Scope) -> list[ast.Call]:
    """The calls standing as statements in the scope's function (``op(points, voxels, n)``)."""
    body = body_of(scope.node)
    return [s.value for s in walk(ast.Module(body=list(body), type_ignores=[]))
            if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)]


def data_scalar(resolver: "Resolver", node: ast.AST, scope: Scope) -> Optional[Root]:
    """A name or ``self.x`` holding a tensor of data used where only a one-element tensor can stand (a slice bound, a
    ``range`` count): ``x[:n]`` with ``n: Tensor`` a parameter, ``self.src_len`` set from one."""
    if not (isinstance(node, ast.Name) or (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name))):
        return None
    if resolver.kind_of_at(node, scope) not in K.TENSORS:
        return None
    root = data_root(resolver, node, scope)
    # A field of a loader's batch as it comes (``prefix = batch["prefix"][0]``) is a host tensor, and as often a
    # setting the dataset repeats in every batch (a prompt length): no evidence of a device value that varies.
    return root if root is not None and root[0] != BATCH_ROOT else None


def paired_pick(resolver: "Resolver", bound: ast.AST, function: Optional[ast.AST], scope: Scope) -> Optional[ast.AST]:
    """A slice bound that is one sample's value of a vector of data, picked by a constant (``n = lengths[0]``, or
    ``lengths[0]`` itself), where the function cuts that same sample to it somewhere (``mel[0][:n]``,
    ``batch["mel"][0, :, :n]``): the sample's own length, a value that varies per batch (not a setting every sample
    repeats). The pick (None: not this form). The vector holds data: a tensor parameter, a loader batch's field
    (default collate makes each sample's number one element of a tensor), an op's output; never configuration."""
    pick = bound
    if isinstance(bound, ast.Name):
        binding = resolver.binding(bound, scope)
        if binding is None or binding.tag != VALUE or binding.path or not isinstance(binding.value, ast.Subscript):
            return None
        pick = binding.value
        scope = binding.scope
    if not isinstance(pick, ast.Subscript) or constant_index_value(pick.slice) is None:
        return None
    vector = pick.value
    if resolver.kind_of_at(vector, scope) not in K.TENSORS or from_constants(vector, resolver, scope) \
            or data_root(resolver, vector, scope) is None:
        return None
    sample = constant_index_value(pick.slice)
    if function is None:
        return None
    for node in walk(function):
        if isinstance(node, ast.Subscript) and _cuts_sample(node, sample, bound, pick):
            return pick
    return None


def constant_index_value(index: ast.AST) -> Optional[int]:
    """``[0]`` / ``[-1]``: the constant (None: not one)."""
    sign = 1
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
        index, sign = index.operand, -1
    return sign * index.value if isinstance(index, ast.Constant) and type(index.value) is int else None


def _cuts_sample(node: ast.Subscript, sample: int, bound: ast.AST, pick: ast.Subscript) -> bool:
    """``x[s][:n]`` / ``x[s, :, :n]`` with ``n`` the bound (its name, or the pick itself) and ``s`` the sample."""
    def is_bound(b: Optional[ast.AST]) -> bool:
        if b is None:
            return False
        if isinstance(bound, ast.Name):
            return isinstance(b, ast.Name) and b.id == bound.id
        return ast.dump(b) == ast.dump(pick)
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    slices = [p for p in parts if isinstance(p, ast.Slice)]
    if not any(is_bound(s.lower) or is_bound(s.upper) for s in slices):
        return False
    if isinstance(parts[0], ast.Slice):   # ``x[s][:n]``: the sample picked first
        receiver = node.value
        return isinstance(receiver, ast.Subscript) and constant_index_value(receiver.slice) == sample
    return constant_index_value(parts[0]) == sample   # ``x[s, :, :n]``
