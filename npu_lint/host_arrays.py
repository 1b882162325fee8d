"""Values that evidently live on the host: numpy and pandas arrays, tensors moved with ``.cpu()``.

Rules about tensor indexing (NPU303 mask assignment, NPU402 mask reads) fire on any subscript with a
boolean index in a torch file, unless the code shows the value is a host array: a numpy or pandas call,
``.numpy()`` / ``.cpu()``, a name whose reaching binding in the semantic model is assigned one of those
(a host *array*: narrower than the model's host kind, which also covers Python lists and scalars), a
comparison with a string, or a function that uses numpy and never torch.
"""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scalars import moved_to_host
from npu_lint.analysis.scopes import VALUE, Binding, Scope
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES

_DEPTH = 6


def _numpy_file(ctx: FileContext) -> bool:
    """The file mentions numpy or pandas at all (otherwise no name can hold one of their arrays)."""
    return ctx.mentions("numpy") or ctx.mentions("pandas")


def _function(node: ast.AST, ctx: FileContext) -> Optional[ast.AST]:
    return ctx.enclosing(node, FUNCTION_TYPES)


_FIELDS: dict[type, tuple[str, ...]] = {}   # node type -> the fields that can hold child nodes


_SCALARS = frozenset({"float", "int", "bool", "round"})


def _scalar_read(node: ast.AST) -> bool:
    """``float(x)``, ``int(a[i])``, ``x.item()``: a Python number, whatever array it was read from. Compared with a
    tensor it makes a mask of the tensor's device (``probs[probs < float(sorted_probs[np.argmax(c)])] = 0``)."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Name) and func.id in _SCALARS) or (isinstance(func, ast.Attribute)
                                                                    and func.attr == "item" and not node.args)


def _makes_tensor(node: ast.AST, ctx: FileContext) -> bool:
    """``torch.as_tensor(frame, device=device)``, ``torch.from_numpy(a)``, ``x.cuda()``: a call that returns a torch
    tensor whatever it was given -- the host array in its arguments is converted, not passed on."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "cuda":
        return True
    name = ctx.resolver.qualname(func)
    return name is not None and name.split(".", 1)[0] == "torch" and not name.endswith((".numpy", ".tolist", ".item"))


_SIZE_READS = frozenset({"shape", "ndim", "size", "dim", "numel", "nelement"})


def _size_read(node: ast.AST) -> bool:
    """``x.shape[1]``, ``x.size(0)``, ``len(x)``: a Python int whatever array it was read from (``nc =
    prediction.shape[1] - 4`` with ``prediction`` moved to the CPU on one path says nothing of ``x.split((4, nc))``)."""
    if isinstance(node, ast.Attribute):
        return node.attr in ("shape", "ndim")
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Name) and func.id == "len") or (isinstance(func, ast.Attribute)
                                                                 and func.attr in _SIZE_READS)


def _nodes(expr: ast.AST, ctx: FileContext) -> Iterator[ast.AST]:
    """``ast.walk`` without its per-node generators (the same nodes; context and operator markers left out), not
    inside a Python number read from an array (:func:`_scalar_read`) nor inside the arguments of a call that makes
    a torch tensor of them (:func:`_makes_tensor`)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if _scalar_read(node) or _size_read(node):
            continue
        if _makes_tensor(node, ctx):
            yield node
            continue
        yield node
        node_type = type(node)
        if node_type is ast.IfExp:   # ``4 if "balanced" in mode else 1``: the test is not the value
            stack.extend((node.body, node.orelse))
            continue
        fields = _FIELDS.get(node_type)
        if fields is None:
            fields = _FIELDS[node_type] = tuple(f for f in node_type._fields if f not in ("ctx", "op", "ops"))
        for field in fields:
            value = getattr(node, field, None)
            if type(value) is list:
                stack.extend(item for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append(value)


def _is_numpy(expr: ast.AST, ctx: FileContext, scope: Optional[Scope], depth: int = 0) -> bool:
    for node in _nodes(expr, ctx):
        if isinstance(node, ast.Name) and scope is not None and _numpy_name(node, ctx, scope, depth):
            return True
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("numpy", "cpu"):
                return True   # host arrays and tensors moved to the CPU: not NPU work
            name = ctx.resolver.qualname(node.func)
            if name is not None and name.split(".", 1)[0] in ("numpy", "pandas"):
                return True
        if isinstance(node, ast.Compare) and not isinstance(node.ops[0], (ast.In, ast.NotIn)) and any(
                isinstance(operand, ast.Constant) and isinstance(operand.value, str)
                for operand in [node.left, *node.comparators]):
            return True   # ``df[df.kind == 'car']``: tensors are not compared with strings
    return False


def _numpy_name(node: ast.Name, ctx: FileContext, scope: Scope, depth: int) -> bool:
    """Some binding of the name that reaches this use (in the semantic model) is assigned a host array."""
    if depth > _DEPTH or ctx.resolver.scopes is None:
        return False
    position = (node.lineno, node.col_offset)
    bindings = ctx.resolver.scopes.lookup_reaching(node.id, scope, position)
    if any(moved_to_host(binding) for binding in bindings):   # ``if mps: x = x.cpu()``: the binding before the
        bindings = ctx.resolver.scopes.may_reach(node.id, scope, position)   # ``if`` reaches the use too
    kept = [binding for binding in bindings if not moved_to_host(binding)]
    if kept and len(kept) < len(bindings):
        bindings = kept   # ``if mode == "cpu": x = x.cpu()``: a fallback arm; elsewhere ``x`` stays on the device
    return any(_numpy_binding(binding, ctx, depth + 1) for binding in bindings)


def _numpy_binding(binding: Binding, ctx: FileContext, depth: int) -> bool:
    if binding.tag != VALUE or not isinstance(binding.value, ast.AST) or binding.scope.kind == "class":
        return False
    verdicts = ctx.scratch.setdefault("numpy_bindings", {})
    key = id(binding)
    if key not in verdicts:
        verdicts[key] = False   # a binding that feeds itself (``a = a + 1``) is not evidence of itself
        verdicts[key] = _is_numpy(binding.value, ctx, binding.scope, depth)
    return verdicts[key]


def is_host_array(expr: ast.AST, ctx: FileContext, anchor: ast.AST) -> bool:
    """``expr`` evidently holds a host array (``anchor``: the node whose function scope the names live in)."""
    if ctx.resolver.is_host(expr):
        return True
    return _is_numpy(expr, ctx, ctx.resolver.current if _numpy_file(ctx) else None)


def host_array_evidence(subscript: ast.Subscript, index: ast.expr, ctx: FileContext,
                        statement: Optional[ast.stmt] = None) -> bool:
    """The indexed value or the mask evidently comes from numpy or pandas. ``statement``: the statement holding
    the subscript, for a rule that runs on the statement before the walk reaches the subscript."""
    if ctx.resolver.is_host(subscript.value) or ctx.resolver.is_host(index) or (
            ctx.resolver.has_frames() and _keyed_by_itself(subscript, index)) or _stored_into_host(subscript, ctx):
        return True
    if not _numpy_file(ctx):
        return False
    scope = ctx.resolver.current
    return _is_numpy(subscript.value, ctx, scope) or _is_numpy(index, ctx, scope) \
        or (_numpy_function(_function(statement or subscript, ctx), ctx) and not _torch_evident(subscript, index, ctx))


def _torch_evident(subscript: ast.Subscript, index: ast.expr, ctx: FileContext) -> bool:
    """The model knows the indexed value is a tensor, or the mask is made by a method only torch tensors have
    (``i[i.less(stop)]``): no host array, though the function uses numpy and never names torch."""
    if ctx.resolver.kind_of(subscript.value) in (K.TENSOR, K.BATCH):
        return True
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and node.func.attr in K.TORCH_ONLY_MASK_METHODS for node in walk(index))


def _stored_into_host(subscript: ast.Subscript, ctx: FileContext) -> bool:
    """``out[keep] = image[keep]`` with ``out`` a host array (``cv2.resize``'s result): what is read is stored into
    numpy, which takes no device tensor, so it is read on the host too."""
    parent = ctx.parent(subscript)
    return isinstance(parent, ast.Assign) and parent.value is subscript and bool(parent.targets) and all(
        isinstance(target, ast.Subscript) and ctx.resolver.is_host(target.value) for target in parent.targets)


def _keyed_by_itself(subscript: ast.Subscript, index: ast.expr) -> bool:
    """``df[df["split"] == name]``: a value indexed by a test on one of its own columns named by a string -- a
    pandas frame (a tensor has no string keys, and a dict of tensors is not indexed by a tensor)."""
    target = ast.dump(subscript.value)
    return any(isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
               and isinstance(node.slice.value, str) and ast.dump(node.value) == target for node in ast.walk(index))


def _numpy_function(function: Optional[ast.AST], ctx: FileContext) -> bool:
    """The enclosing function uses numpy and never torch: an evaluation or data-pipeline helper."""
    verdicts = ctx.scratch.setdefault("numpy_functions", {})
    scope = id(function)
    if scope not in verdicts:
        roots = set()
        if function is not None:
            for node in walk(function):
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                    roots.add((ctx.resolver.qualname(node.value) or "").split(".", 1)[0])
        verdicts[scope] = bool(roots & {"numpy", "pandas"}) and not roots & {"torch", "torchvision", "torch_npu"}
    return verdicts[scope]


def _plain_root(node: ast.AST) -> Optional[ast.Name]:
    """``x``, ``x[i]``, ``x > t``, ``x[i] > t`` -> ``x``: the value itself or a part of it, no call in between (``x.cpu()``
    would say ``x`` is a tensor)."""
    while True:
        if isinstance(node, ast.Compare) and len(node.comparators) == 1:
            node = node.left
        elif isinstance(node, ast.Subscript):
            node = node.value
        else:
            break
    return node if isinstance(node, ast.Name) else None


def _numpy_uses(function: ast.AST, ctx: FileContext) -> frozenset[str]:
    """The names a function uses as numpy arrays: ``x.astype(...)`` (no torch tensor has ``astype``), ``x`` (or a
    part of it, or a comparison of it) handed to a numpy or scipy function (``np.nonzero(cellprob > t)``)."""
    memo = ctx.scratch.setdefault("numpy_uses", {})
    found = memo.get(id(function))
    if found is None:
        names = set()
        for node in walk(function):
            if not isinstance(node, ast.Call):
                continue
            if isinstance(node.func, ast.Attribute) and node.func.attr == "astype" \
                    and isinstance(node.func.value, ast.Name):
                names.add(node.func.value.id)
                continue
            qualname = ctx.resolver.qualname(node.func) or ""
            if qualname.split(".", 1)[0] in ("numpy", "scipy"):
                for arg in node.args:
                    root = _plain_root(arg)
                    if root is not None:
                        names.add(root.id)
        found = memo[id(function)] = frozenset(names)
    return found


def numpy_parameter(node: ast.AST, ctx: FileContext) -> bool:
    """Session 27: ``node`` is a parameter the function never rebinds and uses as a numpy array elsewhere
    (:func:`_numpy_uses`: cellpose's ``masks_to_flows(masks)`` with ``torch.from_numpy(masks.astype("int64"))``,
    ``compute_masks(dP, cellprob)`` with ``np.nonzero(cellprob > t)``): a test of it reads a host array."""
    if not isinstance(node, ast.Name) or not _numpy_file(ctx) or ctx.resolver.scopes is None:
        return False
    binding = ctx.resolver.binding(node)
    if binding is None or binding.tag != "param" or not isinstance(binding.scope.node, FUNCTION_TYPES):
        return False
    if node.id not in _numpy_uses(binding.scope.node, ctx):
        return False
    return all(b.tag == "param" for b in binding.scope.names.get(node.id, ()))
