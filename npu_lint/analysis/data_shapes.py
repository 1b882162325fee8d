"""Tensors whose shape depends on the data: the results of ``unique()``, ``nonzero()``, ``masked_select``,
one-argument ``torch.where`` and boolean-mask selections (``x[mask]``), through the names bound to them and the
calls that keep their first axis (``.squeeze(1)``, ``.view(-1)``, ``.long()``, ``[:, 0]``) and prefix slices
(``keep[:max_det]``: as many rows as the op kept, up to the bound).

Their metadata (``len(u)``, ``u.size(0)``, ``u.shape[0]``, ``u.numel()``) is a data value: the count of unique
labels or of selected elements is known only once the op has run. :meth:`npu_lint.analysis.flows.Flows.flows`
asks :func:`data_shaped` when it meets such a read. Nothing here is a rule.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.packed import batch_sizes_field
from npu_lint.analysis.index_forms import passed_argument
from npu_lint.analysis.scopes import PARAM, VALUE, Scope
from npu_lint.analysis.summaries import return_statements

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_METHODS = frozenset({"nonzero", "unique", "unique_consecutive", "masked_select", "argwhere"})
_FUNCTIONS = frozenset({"torch.nonzero", "torch.unique", "torch.unique_consecutive", "torch.masked_select",
                        "torch.argwhere", "torchvision.ops.nms", "torchvision.ops.batched_nms",
                        "torchvision.ops.boxes.nms", "torchvision.ops.boxes.batched_nms",
                        # numpy's on the host: the count is as much a value of the data (``len(np.unique(labels))``)
                        "numpy.flatnonzero", "numpy.argwhere", "numpy.unique"})
# numpy's that return a tuple of index arrays, one per axis (``np.nonzero(prob > t)[0]``, one-argument ``np.where``).
_NUMPY_TUPLES = frozenset({"numpy.nonzero", "numpy.where"})
# Methods that keep the first axis of their receiver (placement, dtype, squeezing the trailing axis).
_KEEPING = frozenset({"squeeze", "flatten", "float", "long", "int", "bool", "half", "to", "cpu", "detach", "clone",
                      "contiguous", "cuda", "npu", "type_as", "sort", "flip",
                      # elementwise, and the host copy: ``boxes.trunc().int().cpu().numpy()`` has the kept boxes' rows
                      "numpy", "copy", "trunc", "round", "floor", "ceil", "abs", "clamp", "clip", "sigmoid"})
_SHAPING = frozenset({"view", "reshape"})
# torch's factories that make a tensor of their first argument's shape: ``torch.full_like(kept, i)`` has its rows
_LIKE = frozenset({"torch.full_like", "torch.zeros_like", "torch.ones_like", "torch.empty_like", "torch.rand_like",
                   "torch.randn_like", "torch.randint_like"})
_DEPTH = 12
_FRAMES = 3   # calls of the file's own functions followed into (each callee's body has its own depth)
# A call of the file's own function followed into: (call, its scope, callee, offset, the depth at the call).
Frame = tuple[ast.Call, Scope, ast.AST, int, int]
# Calls whose result no longer has the shape of what they are given: Python numbers, reductions, metadata.
SCALAR_BUILTINS = frozenset({"len", "int", "float", "bool", "str", "round", "print"})
SHAPE_FREE = frozenset({"numel", "size", "dim", "item", "tolist", "sum", "mean", "any", "all", "__len__"})


def selects_by_mask(resolver: "Resolver", node: ast.Subscript, scope: Optional[Scope]) -> bool:
    """``scores[valid]``: an index the model knows is a mask, on a value that is not evidently a host array or a
    list (asked of the file's helpers by the rules and of every function by the project index)."""
    elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if not any(not isinstance(e, (ast.Slice, ast.Constant)) and (resolver.value_of(e, scope) or ("",))[0] == K.MASK
               for e in elements):
        return False
    value = resolver.value_of(node.value, scope)
    root = node.value
    while value is None and isinstance(root, ast.Attribute):
        root = root.value   # ``frame.columns[~frame.columns.str.contains(t)]``: a field of a host array (session 32)
        held = resolver.value_of(root, scope)
        if held is not None:
            return held[0] != K.HOST
    return value is None or value[0] not in (K.HOST, K.LIST)


def data_shaped(resolver: "Resolver", node: ast.AST, scope: Scope, depth: int = 0,
                frames: tuple[Frame, ...] = ()) -> Optional[ast.AST]:
    """The data-dependent op (a call or a mask selection) whose result ``node`` is, or keeps the first axis of;
    None when ``node`` is no such result (or the model cannot tell). Also through the file's own functions: what
    one returns (``return boxes[keep]``, or its parameter kept, ``def rerec(b): ...; return b``, filled in with
    the call's argument: ``frames``), and rows gathered by such a result (``boxes[keep]`` of ``keep = nms(...)``).
    Answers are kept per file (the same question comes back through every binding that reaches a name: without
    the memo a long function's rebinds made the paths multiply, minutes on one 5,000-line training script)."""
    if depth > _DEPTH or node is None or resolver.scopes is None:
        return None
    key = (id(node), id(scope), depth, tuple((id(frame[0]), frame[4]) for frame in frames))
    memo = resolver.data_shaped_memo
    if key in memo:
        return memo[key]
    found = memo[key] = _data_shaped(resolver, node, scope, depth, frames)
    return found


def _data_shaped(resolver: "Resolver", node: ast.AST, scope: Scope, depth: int,
                 frames: tuple[Frame, ...]) -> Optional[ast.AST]:
    kind = type(node)
    if kind in (ast.Name, ast.Attribute) and (packed := batch_sizes_field(resolver, node, scope)) is not None:
        return packed   # a PackedSequence's ``batch_sizes``: as long as the longest sequence, its values the counts
    if kind is ast.Name:
        for binding in resolver.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset)):
            if binding.tag == PARAM and frames and binding.node is not None and binding.scope.node is frames[-1][2]:
                call, at, function, offset, before = frames[-1]   # the callee's parameter: what this call passes
                passed = passed_argument(call, function, binding.node, offset)
                found = data_shaped(resolver, passed, at, before + 1, frames[:-1]) if passed is not None else None
            elif binding.tag == PARAM and not frames:
                found = _passed(resolver, binding, depth)   # ``def steps(inds): len(inds[0])``: what the calls pass
            elif binding.tag != VALUE or not isinstance(binding.value, ast.AST):
                continue
            elif binding.path:
                found = _element(resolver, binding.value, binding.scope, binding.path[0], depth + 1, frames)
            else:
                found = data_shaped(resolver, binding.value, binding.scope, depth + 1, frames)
            if found is not None:
                return found
        return None
    if kind is ast.Call:
        func = node.func
        name = resolver.qualname(func, scope)
        if name in _FUNCTIONS:
            return node if _tensor_result(node) else None
        if isinstance(func, ast.Attribute) and name is None:
            if func.attr in _METHODS:
                return node if tensor_receiver(resolver, func.value, scope) and _tensor_result(node) else None
            if func.attr in _KEEPING or (func.attr in _SHAPING and _flattened(node)):
                return data_shaped(resolver, func.value, scope, depth + 1, frames)
            if _transposed(node) and (stacked := _stacked_vectors(resolver, func.value, scope, depth, frames)):
                return stacked   # ``torch.stack([x1, y1, x2, y2]).permute(1, 0)``: one row per kept box again
            if func.attr == "index_select" and len(node.args) == 2 and _zero(node.args[0]):
                return data_shaped(resolver, node.args[1], scope, depth + 1, frames)   # ``x.index_select(0, keep)``
        if name in _LIKE and node.args:
            return data_shaped(resolver, node.args[0], scope, depth + 1, frames)   # ``torch.full_like(e, b)``
        if name == "torch.index_select" and len(node.args) == 3 and _zero(node.args[1]):
            return data_shaped(resolver, node.args[2], scope, depth + 1, frames)
        return _returned(resolver, node, scope, None, depth, frames)
    if kind is ast.BinOp and not isinstance(node.op, ast.MatMult):
        # elementwise arithmetic keeps the rows: ``x1 + w * 0.5`` of kept boxes (both operands such, or a number)
        left = data_shaped(resolver, node.left, scope, depth + 1, frames)
        if left is not None and (_number(node.right) or data_shaped(resolver, node.right, scope, depth + 1, frames)):
            return left
        if left is None and _number(node.left):
            return data_shaped(resolver, node.right, scope, depth + 1, frames)
        return None
    if kind is ast.Subscript:
        index = node.slice
        if isinstance(index, ast.Tuple) and index.elts and isinstance(index.elts[0], ast.Slice) \
                and index.elts[0].lower is None and index.elts[0].upper is None:
            return data_shaped(resolver, node.value, scope, depth + 1, frames)      # ``idx[:, 0]``: the same rows
        if isinstance(index, ast.Slice) and index.step is None:
            return data_shaped(resolver, node.value, scope, depth + 1, frames)      # ``keep[:max_det]``: min(count, k)
        if isinstance(index, ast.Constant) and isinstance(index.value, int) and isinstance(node.value, ast.Call):
            return _element(resolver, node.value, scope, index.value, depth + 1, frames)   # ``torch.where(m)[0]``
        if isinstance(index, ast.Constant) and isinstance(index.value, int) and not isinstance(index.value, bool) \
                and isinstance(node.value, ast.Name):
            return _named_element(resolver, node.value, scope, index.value, depth + 1, frames)   # ``inds[0]``
        if isinstance(index, (ast.Compare, ast.Name, ast.UnaryOp, ast.BinOp, ast.Call, ast.Attribute)) \
                and resolver.kind_of_at(index, scope) == K.MASK \
                and resolver.kind_of_at(node.value, scope) in (*K.TENSORS, None) and not resolver.is_host(node.value):
            return node                                                      # ``x[mask]``
        rows = index.elts[0] if isinstance(index, ast.Tuple) and index.elts else index
        if isinstance(rows, (ast.Name, ast.Call, ast.Subscript)) and resolver.kind_of_at(rows, scope) != K.MASK:
            return data_shaped(resolver, rows, scope, depth + 1, frames)     # ``boxes[keep]``: one row per index kept
        return None
    return None


_CALLERS = 2   # parameters followed to the file's calls of their function, one call level after another


def _passed(resolver: "Resolver", binding, depth: int) -> Optional[ast.AST]:
    """A parameter (its function not entered from a call): the data-dependent result some call of the file passes
    to it (``steps(dP, inds)`` with ``inds = torch.nonzero(m, as_tuple=True)``), at most two call levels up."""
    function = binding.scope.node
    if binding.node is None or depth > _DEPTH - 4 or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    levels = resolver._summaries.setdefault(("data-shaped callers",), [0])
    if levels[0] >= _CALLERS:
        return None
    levels[0] += 1
    try:
        for call, at, offset in resolver.call_sites(function):
            passed = passed_argument(call, function, binding.node, offset)
            if passed is not None and (found := data_shaped(resolver, passed, at, depth + 2)) is not None:
                return found
    finally:
        levels[0] -= 1
    return None


def _named_element(resolver: "Resolver", name: ast.Name, scope: Scope, index: int, depth: int,
                   frames: tuple[Frame, ...]) -> Optional[ast.AST]:
    """``inds[0]`` of ``inds = torch.nonzero(m, as_tuple=True)`` (or of a parameter some call fills with one): the
    element of the tuple a data-dependent op returned."""
    for binding in resolver.scopes.may_reach(name.id, scope, (name.lineno, name.col_offset)):
        if binding.tag == VALUE and not binding.path and isinstance(binding.value, ast.AST):
            value = binding.value
            if isinstance(value, ast.Name):
                found = _named_element(resolver, value, binding.scope, index, depth + 1, frames)
            elif isinstance(value, (ast.Call, ast.Tuple, ast.List)):
                found = _element(resolver, value, binding.scope, index, depth + 1, frames)
            else:
                found = None
        elif binding.tag == PARAM and binding.node is not None and not frames \
                and isinstance(binding.scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)) and depth <= _DEPTH - 4:
            found = None
            function = binding.scope.node
            levels = resolver._summaries.setdefault(("data-shaped callers",), [0])
            if levels[0] < _CALLERS:
                levels[0] += 1
                try:
                    for call, at, offset in resolver.call_sites(function):
                        passed = passed_argument(call, function, binding.node, offset)
                        if isinstance(passed, ast.Name):
                            found = _named_element(resolver, passed, at, index, depth + 2, ())
                        elif isinstance(passed, ast.Call):
                            found = _element(resolver, passed, at, index, depth + 2, ())
                        if found is not None:
                            break
                finally:
                    levels[0] -= 1
        else:
            found = None
        if found is not None:
            return found
    return None


def counted_op(resolver: "Resolver", read: ast.AST, scope: Optional[Scope]) -> Optional[ast.AST]:
    """The data-dependent op whose count ``read`` is (``len(x)``, ``x.size(0)``, ``x.shape[0]``, ``x.numel()``)."""
    measured = read.args[0] if isinstance(read, ast.Call) and isinstance(read.func, ast.Name) and read.args else \
        read.func.value if isinstance(read, ast.Call) and isinstance(read.func, ast.Attribute) else \
        read.value.value if isinstance(read, ast.Subscript) and isinstance(read.value, ast.Attribute) else \
        getattr(read, "value", None)
    return data_shaped(resolver, measured, scope) if isinstance(measured, ast.AST) and scope is not None else None


def host_op(resolver: "Resolver", op: Optional[ast.AST], scope: Optional[Scope] = None) -> bool:
    """numpy's data-dependent op (``np.nonzero(prob > t)``): its count is the data's, but a host value; an NPU shape
    only where it sizes a device tensor."""
    return isinstance(op, ast.Call) and (resolver.qualname(op.func, scope) or "").startswith("numpy.")


def _number(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def _transposed(call: ast.Call) -> bool:
    """``.t()``, ``.permute(1, 0)``, ``.transpose(0, 1)``: the two axes of a matrix swapped."""
    attr, args = call.func.attr, call.args   # type: ignore[attr-defined]
    values = [a.value for a in args if isinstance(a, ast.Constant)] if len(args) == 2 and not call.keywords else None
    return (attr == "t" and not args) or (attr == "permute" and values == [1, 0]) or (
        attr == "transpose" and values in ([0, 1], [1, 0]))


def _stacked_vectors(resolver: "Resolver", node: ast.AST, scope: Scope, depth: int,
                     frames: tuple[Frame, ...]) -> Optional[ast.AST]:
    """``torch.stack([a, b, c])`` along the first axis of vectors, one of them of a data-dependent length: its
    second axis has that length (the first counts the vectors)."""
    if not (isinstance(node, ast.Call) and resolver.qualname(node.func, scope) == "torch.stack" and node.args
            and isinstance(node.args[0], (ast.List, ast.Tuple)) and (len(node.args) == 1 and not node.keywords
                                                                     or len(node.args) == 2 and _zero(node.args[1]))):
        return None
    return next((found for e in node.args[0].elts
                 if (found := data_shaped(resolver, e, scope, depth + 1, frames)) is not None), None)


def _zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0


def _returned(resolver: "Resolver", call: ast.Call, scope: Scope, index: Optional[int], depth: int,
              frames: tuple[Frame, ...]) -> Optional[ast.AST]:
    """What a call of the file's own function returns (``index``: the element of a returned tuple), through its
    returns; its parameters take what this call passes."""
    if len(frames) >= _FRAMES or (callee := resolver.own_function(call, scope)) is None:
        return None
    function, offset = callee
    inner = resolver.scopes.scope_of(function)
    if inner is None or function in (f[2] for f in frames):
        return None
    for statement in return_statements(function):
        value = statement.value
        if index is not None:
            if not isinstance(value, (ast.Tuple, ast.List)) or index >= len(value.elts) \
                    or any(isinstance(e, ast.Starred) for e in value.elts):
                continue
            value = value.elts[index]
        found = data_shaped(resolver, value, inner, 0, frames + ((call, scope, function, offset, depth),)) \
            if value is not None else None
        if found is not None:
            return found
    return None


def _element(resolver: "Resolver", value: ast.AST, scope: Scope, index: int, depth: int,
             frames: tuple[Frame, ...] = ()) -> Optional[ast.AST]:
    """An element of the tuple some data-dependent ops return: ``rows, cols = torch.where(mask)``,
    ``labels, counts = t.unique(return_counts=True)`` (not the inverse indices: they have the input's shape); of a
    literal tuple (``boxes, inds = boxes[keep], inds[keep]``) and of the tuple a file's own function returns."""
    if isinstance(value, (ast.Tuple, ast.List)):
        if isinstance(index, int) and 0 <= index < len(value.elts) \
                and not any(isinstance(e, ast.Starred) for e in value.elts):
            return data_shaped(resolver, value.elts[index], scope, depth + 1, frames)
        return None
    if not isinstance(value, ast.Call):
        return None
    if isinstance(index, int) and index >= 0 and (found := _returned(resolver, value, scope, index, depth,
                                                                     frames)) is not None:
        return found
    func = value.func
    name = resolver.qualname(func, scope) or ""
    last = func.attr if isinstance(func, ast.Attribute) else name.rsplit(".", 1)[-1]
    keywords = {kw.arg: kw.value for kw in value.keywords}
    if last == "where" and name in ("torch.where", "") and len(value.args) == 1 and not value.keywords:
        return value
    if name in _NUMPY_TUPLES and len(value.args) == 1 and not value.keywords:
        return value   # ``np.nonzero(prob > t)``: each axis's indices, as many as the elements that hold
    if last in ("nonzero", "argwhere") and _constant(keywords.get("as_tuple")) is True:
        return value if data_shaped_call(resolver, value, scope) else None
    if last in ("unique", "unique_consecutive"):
        inverse = _constant(keywords.get("return_inverse")) is True
        counts = _constant(keywords.get("return_counts")) is True
        if index == 0 or (counts and index == 1 + inverse):
            return value if data_shaped_call(resolver, value, scope) else None
    return None


def data_shaped_call(resolver: "Resolver", call: ast.Call, scope: Scope) -> bool:
    name = resolver.qualname(call.func, scope)
    if name in _FUNCTIONS:
        return True
    return name is None and isinstance(call.func, ast.Attribute) and call.func.attr in _METHODS \
        and tensor_receiver(resolver, call.func.value, scope)


def tensor_receiver(resolver: "Resolver", receiver: ast.AST, scope: Scope) -> bool:
    """A tensor, or a value of unknown kind in a file that imports no data-frame library and no column picked by
    name (``df["label"].unique()``): numpy arrays and Python's types have no ``unique`` method (numpy's
    ``nonzero`` method gives a tuple: a known numpy array is left out by its kind)."""
    kind = resolver.kind_of_at(receiver, scope)
    if kind in K.TENSORS:
        return True
    if kind is not None or resolver.is_host(receiver) or resolver.has_frames():
        return False
    return not any(isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant)
                   and isinstance(n.slice.value, str) for n in walk(receiver))


def _tensor_result(call: ast.Call) -> bool:
    """One tensor (not the tuple that ``as_tuple=True`` / ``return_counts=True`` give)."""
    return not any(kw.arg in ("as_tuple", "return_inverse", "return_counts") and _constant(kw.value) is True
                   for kw in call.keywords)


def _flattened(call: ast.Call) -> bool:
    """``view(-1)`` / ``reshape(-1)``: one axis holding every element."""
    return len(call.args) == 1 and isinstance(call.args[0], ast.UnaryOp) \
        and isinstance(call.args[0].operand, ast.Constant) and call.args[0].operand.value == 1


def _constant(node: Optional[ast.AST]) -> object:
    return node.value if isinstance(node, ast.Constant) else None
