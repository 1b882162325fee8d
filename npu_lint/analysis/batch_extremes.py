"""The longest (or shortest) item of a batch, for the ``batch_max`` flow of :mod:`npu_lint.analysis.flows`:
``max(len(s) for s in batch)``, ``max(lengths)`` after ``lengths = [len(s) for s in batch]``, ``max(map(len,
batch))``, ``_max_by_axis([list(img.shape) for img in images])``, ``min(x.shape[0] for x in items)``, the
longest along each axis (``[max(s) for s in zip(*[x.shape for x in items])]``) and the running maximum ``m = max(m, len(s))`` of a loop over the items, ``len(max(items, key=len))``, the sizes of the longest item picked
by size (``longest = max(tensors, key=lambda t: t.shape[0])``, then ``longest.shape[0]``: :func:`longest_item`); and the largest of each item's own values (``max(ex["src_map"].max() for ex in
batch)``: :func:`items_maximum`, a value read from tensors for the ``host`` flow). Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis.appended_values import append_receivers
from npu_lint.analysis.index_forms import is_range
from npu_lint.analysis.nodes import of_type, walk
from npu_lint.analysis.paired_extremes import sizes_maximum
from npu_lint.analysis.scopes import LOOP, VALUE, Scope

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver


def padding_extreme(resolver: "Resolver", node: ast.Call, scope: Scope) -> bool:
    """What :func:`batch_extreme` finds, and the largest of a tensor the function compares with positions
    (``m = int(sizes.max().item())`` beside ``torch.arange(m) < sizes.unsqueeze(-1)``: one length per item). Asked
    by the padding summary only (a helper packing its items to ``m``, whose calls in other modules pad): in the
    flows such a value stays a value read back from a tensor (NPU403 names every size it fixes)."""
    if batch_extreme(resolver, node, scope):
        return True
    inner = node
    while isinstance(inner, ast.Call) and _last_name(inner.func) in _UNWRAP and not inner.keywords:
        inner = inner.func.value if isinstance(inner.func, ast.Attribute) else inner.args[0] \
            if len(inner.args) == 1 else None
    if not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
            and inner.func.attr in ("max", "amax") and not inner.args and not inner.keywords):
        return False
    items = inner.func.value
    return isinstance(items, ast.Name) and _position_lengths(resolver, items, scope)


def batch_extreme(resolver: "Resolver", node: ast.Call, scope: Scope) -> bool:
    """The longest (or shortest) item of a batch: ``max(len(s) for s in batch)``, ``max(lengths)`` after
    ``lengths = [len(s) for s in batch]``, ``max(map(len, batch))``, ``min(x.shape[0] for x in items)``,
    ``_max_by_axis([list(img.shape) for img in images])``, or the running maximum ``m = max(m, len(s))``
    in a loop over the items."""
    if _longest_by_key(node) or _max_of_lengths(resolver, node, scope) or _kept_longest(resolver, node, scope) \
            or _first_of_sorted(resolver, node, scope) or _ranks_maximum(resolver, node, scope) \
            or _read_of_kept_maximum(resolver, node, scope) or sizes_maximum(resolver, node, scope):
        return True
    if isinstance(node.func, ast.Name) and node.func.id == "sorted" and len(node.args) == 1 \
            and all(kw.arg == "reverse" for kw in node.keywords):
        # ``sorted(len(s) for s in batch)[-1]``: an order statistic of the items' lengths (session 21; a flow
        # reaches the call through the subscript picking from it)
        items = node.args[0]
        return _lengths(resolver, items, scope) if isinstance(items, ast.Name) else _item_lengths(items)
    node = _unwrapped(node)     # ``torch.max(lengths).item()``, ``int(np.max(lengths))``
    last = _last_name(node.func)
    if not (("max" in last.lower() and "argmax" not in last.lower())   # ``_max_by_axis``, not ``np.argmax``
            or (last == "min" and isinstance(node.func, ast.Name))) \
            or any(kw.arg != "default" for kw in node.keywords):
        return False
    args = node.args
    if len(args) == 2 and isinstance(args[1], ast.Constant) and isinstance(args[0], ast.Starred):
        args = [args[0].value]   # ``max(*span_counts, 1)``: the longest, at least a floor
    elif len(args) == 1 and isinstance(args[0], ast.Starred):
        args = [args[0].value]   # ``min(*[x.shape[0] for x in data])``: the items spread as arguments
    if len(args) == 2 and last != "max" and last != "min" and isinstance(args[1], ast.Constant):
        args = args[:1]   # ``torch.max(sizes, 0)``, ``np.max(shapes, 0)``: the largest along an axis
    if len(args) == 1:
        items = args[0]
        if isinstance(items, ast.Name):
            return _lengths(resolver, items, scope) or (
                last == "max" and isinstance(node.func, ast.Name) and _position_lengths(resolver, items, scope))
        made = _made_tensor(items)   # ``torch.max(torch.stack([img.shape[i] for img in images]))``
        if made is not items and isinstance(made, ast.Name):
            return _lengths(resolver, made, scope)
        return _item_lengths(made)
    if last not in ("max", "min") or not isinstance(node.func, ast.Name) or len(node.args) != 2:
        return False
    carried = [a for a in node.args if isinstance(a, ast.Name) and any(
        b.value is node for b in resolver.scopes.may_reach(a.id, scope, (a.lineno, a.col_offset)))]
    measured = [a for a in node.args if a not in carried and _length_of_loop_item(a, resolver, scope)]
    return bool(carried) and bool(measured)


_UNWRAP = frozenset({"int", "item"})


def _read_of_kept_maximum(resolver: "Resolver", node: ast.Call, scope: Scope) -> bool:
    """``int(m)`` / ``m.item()`` / ``int(m[0])`` of a name bound in the function to a batch maximum kept as a
    tensor (``m = torch.max(torch.stack([img.shape[1] for img in images]).float())``, ``m = torch.stack([...])
    .max(0).values``): the read is the longest item, not some other value of a tensor (session 21)."""
    if not (_last_name(node.func) in _UNWRAP and not node.keywords):
        return False
    inner = node.func.value if isinstance(node.func, ast.Attribute) and not node.args else node.args[0] \
        if isinstance(node.func, ast.Name) and len(node.args) == 1 else None
    while isinstance(inner, ast.Subscript) and isinstance(inner.slice, ast.Constant):
        inner = inner.value     # ``m[0]``: the longest along the first axis
    if not isinstance(inner, ast.Name):
        return False
    bound = resolver.bound_value(inner, scope)
    while isinstance(bound, (ast.Attribute, ast.Subscript)) and (
            (isinstance(bound, ast.Attribute) and bound.attr == "values")
            or (isinstance(bound, ast.Subscript) and isinstance(bound.slice, ast.Constant))):
        bound = bound.value     # ``.max(0).values``, ``.max(0)[0]``
    if not isinstance(bound, ast.Call) or _last_name(bound.func) in _UNWRAP:
        return False
    return _max_of_lengths(resolver, bound, scope) or (
        "max" in _last_name(bound.func) and _last_name(bound.func) != "argmax" and len(bound.args) == 1
        and not isinstance(bound.args[0], ast.Name) and _item_lengths(_made_tensor(bound.args[0])))
_REDUCERS = frozenset({"all_reduce", "all_reduce_multigpu"})


def _ranks_maximum(resolver: "Resolver", node: ast.Call, scope: Scope) -> bool:
    """``n = torch.tensor(x.size(1), device=d)``, ``dist.all_reduce(n, op=dist.ReduceOp.MAX)``, then
    ``n.item()`` / ``int(n)``: the longest item across the processes (each rank's batch padded to it before a
    gather). The reduced tensor is made from a size (``len()``, ``.size()``, ``.shape``, a batch maximum), and the
    MAX reduction is written in place by a call of the same function before the read."""
    receiver = None
    if isinstance(node.func, ast.Attribute) and node.func.attr == "item" and not node.args and not node.keywords:
        receiver = node.func.value
    elif isinstance(node.func, ast.Name) and node.func.id == "int" and len(node.args) == 1 and not node.keywords:
        receiver = node.args[0]
        if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute) \
                and receiver.func.attr == "item" and not receiver.args:
            receiver = receiver.func.value
    if not isinstance(receiver, ast.Name) or scope is None or resolver.scopes is None:
        return False
    function = scope.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    if not any(name == receiver.id and line <= node.lineno for name, line in _max_reductions(function)):
        return False
    for binding in resolver.scopes.may_reach(receiver.id, scope, (receiver.lineno, receiver.col_offset)):
        if binding.tag == VALUE and not binding.path and isinstance(binding.value, ast.AST) \
                and _made_of_size(resolver, binding.value, scope):
            return True
    return False


def _max_reductions(function: ast.AST) -> list[tuple[str, int]]:
    """(name, line) of each ``dist.all_reduce(name, op=ReduceOp.MAX)`` in ``function``: one walk per function, kept
    on the node (asked at every ``.item()`` / ``int()`` of the function: a walk each made long scripts quadratic)."""
    kept = getattr(function, "_npu_max_reductions", None)
    if kept is None:
        kept = [(call.args[0].id, call.lineno) for call in walk(function)
                if isinstance(call, ast.Call) and _last_name(call.func) in _REDUCERS and call.args
                and isinstance(call.args[0], ast.Name) and any(
                    isinstance(op, ast.Attribute) and op.attr == "MAX"
                    for op in list(call.args[1:2]) + [kw.value for kw in call.keywords if kw.arg == "op"])]
        function._npu_max_reductions = kept   # type: ignore[attr-defined]
    return kept


def _made_of_size(resolver: "Resolver", value: ast.AST, scope: Scope, depth: int = 0) -> bool:
    """A tensor made from a size: ``torch.tensor(len(ids))``, ``torch.tensor([x.size(1)])``, ``torch.tensor(
    max_len)`` of ``max_len = x.shape[1]`` / a batch maximum, ``torch.empty([]).fill_(n)``."""
    for part in walk(value):
        if isinstance(part, ast.Call) and (isinstance(part.func, ast.Name) and part.func.id == "len"
                                           or isinstance(part.func, ast.Attribute) and part.func.attr == "size"):
            return True
        if isinstance(part, ast.Attribute) and part.attr == "shape":
            return True
        if isinstance(part, ast.Call) and batch_extreme(resolver, part, scope):
            return True
        if isinstance(part, ast.Name) and depth < 2 and part is not value:
            for binding in resolver.scopes.may_reach(part.id, scope, (part.lineno, part.col_offset)):
                if binding.tag == VALUE and not binding.path and isinstance(binding.value, ast.AST) \
                        and binding.value is not value and _made_of_size(resolver, binding.value, scope, depth + 1):
                    return True
    return False


def _unwrapped(node: ast.Call) -> ast.Call:
    """The call inside ``int(...)`` / ``(...).item()`` (once each), when it is a call."""
    for _ in range(2):
        if not (_last_name(node.func) in _UNWRAP and not node.keywords):
            break
        inner = node.func.value if isinstance(node.func, ast.Attribute) and not node.args else node.args[0] \
            if isinstance(node.func, ast.Name) and len(node.args) == 1 else None
        if not isinstance(inner, ast.Call):
            break
        node = inner
    return node


def _max_of_lengths(resolver: "Resolver", node: ast.Call, scope: Scope) -> bool:
    """``lengths.max()``, ``int(ilens.max())``, ``seq_lens.max().item()``: the largest of a tensor of per-item
    lengths -- a name bound to ``[len(s) for s in batch]`` (or a tensor of it). A name alone is no evidence: a
    tensor of lengths passed in is a value read from a tensor (NPU403), not a batch maximum seen here."""
    while isinstance(node, ast.Call) and _last_name(node.func) in _UNWRAP and not node.keywords:
        inner = node.func.value if isinstance(node.func, ast.Attribute) else node.args[0] if len(node.args) == 1 \
            else None
        if not isinstance(inner, ast.Call):
            return False
        node = inner
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr in ("max", "amax", "min", "amin") and _axis_only(node)):
        return False
    items = _made_tensor(func.value)   # ``np.array(shapes).max(axis=0)``: the largest along each axis
    if isinstance(items, ast.Name):
        return _lengths(resolver, items, scope)
    return func.value is not items and _item_lengths(items)   # ``torch.tensor([len(s) for s in b]).max()``


def _axis_only(node: ast.Call) -> bool:
    """No argument but an axis: ``.max()``, ``.max(0)``, ``.max(dim=0)``, ``.max(axis=0)`` (session 21)."""
    return (len(node.args) <= 1 and all(isinstance(a, ast.Constant) and isinstance(a.value, int)
                                        for a in node.args)
            and all(kw.arg in ("axis", "dim") for kw in node.keywords))


_KEEP_AXES = frozenset({"unsqueeze", "view", "reshape", "to", "long", "int", "expand_as", "expand"})


def _position_lengths(resolver: "Resolver", name: ast.Name, scope: Scope) -> bool:
    """``sizes`` holds one length per item when the function compares it with positions (``arange(m)[None] <
    sizes[:, None]``, ``mask = torch.arange(m).repeat(b, 1); mask < sizes.unsqueeze(-1)``): the lengths-to-mask
    idiom, so ``sizes.max()`` is the longest item of the batch."""
    function = scope.node if scope is not None else None
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    for node in walk(function):
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1
                and isinstance(node.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE))):
            continue
        sides = (node.left, node.comparators[0])
        for mine, other in (sides, sides[::-1]):
            if _same_name(mine, name.id) and _positions(resolver, other, scope):
                return True
    return False


def _same_name(node: ast.AST, name: str) -> bool:
    """``sizes``, ``sizes.unsqueeze(-1)``, ``sizes[:, None]``, ``sizes.view(-1, 1)``."""
    for _ in range(4):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _KEEP_AXES:
            node = node.func.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        else:
            break
    return isinstance(node, ast.Name) and node.id == name


def _positions(resolver: "Resolver", node: ast.AST, scope: Scope, depth: int = 0) -> bool:
    """``torch.arange(m)`` (through reshapes and repeats), or a name bound to it in the function."""
    for part in walk(node):
        if isinstance(part, ast.Call) and _last_name(part.func) == "arange":
            return True
        if isinstance(part, ast.Name) and depth < 1:
            for binding in resolver.scopes.may_reach(part.id, scope, (part.lineno, part.col_offset)):
                if binding.tag == VALUE and not binding.path and isinstance(binding.value, ast.AST) \
                        and _positions(resolver, binding.value, scope, depth + 1):
                    return True
    return False


def _lengths(resolver: "Resolver", name: ast.Name, scope: Scope) -> bool:
    """``lengths = [len(s) for s in batch]`` (or ``torch.tensor([...])`` of it) reaches ``name``."""
    for binding in resolver.scopes.may_reach(name.id, scope, (name.lineno, name.col_offset)):
        if binding.tag == LOOP and not binding.path and _zipped_shapes(binding.value):
            return True   # ``[max(sizes) for sizes in zip(*[x.shape for x in samples])]``: each axis's longest
        if binding.tag != VALUE or not isinstance(binding.value, ast.AST):
            continue
        value = binding.value
        if binding.path:   # ``token_length, frames = [], []``: the element the name is bound to
            if len(binding.path) != 1 or not isinstance(value, (ast.Tuple, ast.List)) \
                    or binding.path[0] >= len(value.elts):
                continue
            value = value.elts[binding.path[0]]
        value = _made_tensor(value)
        if _item_lengths(value):
            return True
        if isinstance(value, ast.List) and not value.elts and _appended_lengths(resolver, name.id, binding.scope):
            return True
    return False


def _appended_lengths(resolver: "Resolver", name: str, scope: Scope) -> bool:
    """``shapes = []`` then ``shapes.append(elem.shape[1:])`` / ``shapes.append(len(s))`` for the items of a loop."""
    function = scope.node
    if function is None:
        return False
    inner = resolver.scopes.scope_of(function) if resolver.scopes else None
    if inner is None:
        return False
    loops: Optional[list[ast.For]] = None
    for node in walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name and len(node.args) == 1:
            if _length_of_loop_item(node.args[0], resolver, inner):   # ``x.shape[1:]`` too
                return True
            if loops is None:
                loops = [n for n in walk(function) if isinstance(n, ast.For)]
            if _length_made_per_step(node, loops):
                return True
    return False


_COUNTS = frozenset({"tensor", "as_tensor", "int"})


def _length_made_per_step(append: ast.Call, loops: list[ast.For]) -> bool:
    """``lengths.append(torch.tensor(len(frames)))`` where ``frames`` is made anew in the loop around the append
    (``frames = []`` per sample, filled by an inner loop): the length of each item the loop builds."""
    value = append.args[0]
    while isinstance(value, ast.Call) and value.args and _last_name(value.func) in _COUNTS:
        value = value.args[0]
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "len"
            and len(value.args) == 1 and isinstance(value.args[0], ast.Name)):
        return False
    measured = value.args[0].id
    for loop in loops:
        if not loop.lineno < append.lineno <= (loop.end_lineno or loop.lineno):
            continue
        if any(isinstance(n, ast.Assign) and n.lineno < append.lineno and any(
                isinstance(t, ast.Name) and t.id == measured for t in n.targets) for stmt in loop.body
               for n in walk(stmt)):
            return True
    return False


def _zipped_shapes(node: ast.AST) -> bool:
    """``zip(*[x.shape for x in samples])``: the items' sizes along each axis in turn."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "zip"
            and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Starred)
            and _item_lengths(node.args[0].value))


_CONVERTS = frozenset({"to", "float", "long", "int", "double", "cpu", "numpy"})


def _descending(call: ast.Call) -> Optional[bool]:
    """``torch.sort(x, descending=True)`` / ``x.sort(0, True)`` / ``torch.sort(x)``: whether it sorts longest first
    (None when the order is no constant)."""
    flag = next((kw.value for kw in call.keywords if kw.arg == "descending"), None)
    is_method = isinstance(call.func, ast.Attribute) and not (isinstance(call.func.value, ast.Name)
                                                              and call.func.value.id == "torch")
    positional = call.args[1:] if is_method else call.args[2:]
    if flag is None and positional:
        flag = positional[0]
    if flag is None:
        return False
    return flag.value if isinstance(flag, ast.Constant) and isinstance(flag.value, bool) else None


def sorted_lengths_first(resolver: "Resolver", node: ast.Subscript, scope: Scope) -> bool:
    """``input_lengths[0]`` of ``input_lengths, ids = torch.sort(torch.LongTensor([len(x[0]) for x in batch]),
    descending=True)`` (``[-1]`` sorted ascending; also ``torch.sort(...).values[0]``): the first of the items'
    lengths sorted longest first is the batch maximum (the Tacotron-style collate; session 27)."""
    index = node.slice
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub) and isinstance(index.operand, ast.Constant):
        position = -index.operand.value
    elif isinstance(index, ast.Constant) and isinstance(index.value, int):
        position = index.value
    else:
        return False
    if position not in (0, -1):
        return False
    sorted_by = node.value
    call = None
    if isinstance(sorted_by, ast.Attribute) and sorted_by.attr == "values" and isinstance(sorted_by.value, ast.Call):
        call = sorted_by.value
    elif isinstance(sorted_by, ast.Name):
        for binding in resolver.scopes.may_reach(sorted_by.id, scope, (sorted_by.lineno, sorted_by.col_offset)):
            if binding.tag == VALUE and binding.path == (0,) and isinstance(binding.value, ast.Call):
                call = binding.value
                break
    if call is None or _last_name(call.func) != "sort":
        return False
    descending = _descending(call)
    if descending is None or (position == 0) != descending:
        return False
    is_method = isinstance(call.func, ast.Attribute) and not (isinstance(call.func.value, ast.Name)
                                                              and call.func.value.id == "torch")
    items = call.func.value if is_method else call.args[0] if call.args else None
    if items is None:
        return False
    made = _made_tensor(items)
    if isinstance(made, ast.Name):
        return _lengths(resolver, made, scope)
    return made is not items and _item_lengths(made)


def _made_tensor(node: ast.AST) -> ast.AST:
    """``[len(s) for s in batch]`` of ``torch.tensor([len(s) for s in batch])`` / ``np.array(...)`` /
    ``list(map(len, batch))``; also (session 21) of a stack (``torch.stack([...])``, ``np.stack(shapes, 0)``) and
    through the conversions around it (``torch.stack([...]).to(torch.float32)``)."""
    for _ in range(3):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _CONVERTS \
                and isinstance(node.func.value, ast.Call):
            node = node.func.value
        else:
            break
    if isinstance(node, ast.Call) and _last_name(node.func) in ("tensor", "as_tensor", "LongTensor", "array",
                                                                 "asarray", "list", "tuple") and len(node.args) == 1:
        return node.args[0]
    if isinstance(node, ast.Call) and _last_name(node.func) in ("stack", "vstack") and node.args \
            and all(isinstance(a, ast.Constant) for a in node.args[1:]) \
            and all(kw.arg in ("axis", "dim") for kw in node.keywords):
        return node.args[0]
    return node


def _longest_by_key(node: ast.Call) -> bool:
    """``len(max(items, key=len))`` / ``len(min(items, key=len))``: the length of the longest (shortest) item."""
    if not (isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1):
        return False
    inner = node.args[0]
    return (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id in ("max", "min")
            and len(inner.args) == 1 and isinstance(inner.args[0], (ast.Name, ast.Attribute, ast.Subscript))
            and [(kw.arg, getattr(kw.value, "id", None)) for kw in inner.keywords] == [("key", "len")])


def _item_lengths(node: ast.AST) -> bool:
    """``[len(s) for s in batch]`` and friends, ``map(len, batch)``, ``torch.tensor([len(s) for s in batch])``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "map" \
            and len(node.args) == 2 and isinstance(node.args[0], ast.Name) and node.args[0].id == "len":
        return True
    if isinstance(node, (ast.GeneratorExp, ast.ListComp)) and (not _items_of_items(node) or isinstance(
            node.generators[0].iter, (ast.Tuple, ast.List))):
        return False    # ``min(t.shape[0] for t in (a, b, c))``: a few named tensors; a grid's cells: no batch
    return per_item_lengths(node)


def _items_of_items(node: ast.AST) -> bool:
    """One loop, or a loop over each item's own parts: ``for s in batch for img in s["images"]``; ``x.shape[0] for
    xs in b for x in xs`` (tensors' sizes: a grid's ``len(c) for row in grid for c in row`` stays out);
    ``len(s[n]) for s in samples for n in range(k)``."""
    generators = node.generators
    if len(generators) == 1:
        return True
    if len(generators) != 2:
        return False
    outer, inner = generators
    bound = {n.id for n in walk(outer.target) if isinstance(n, ast.Name)}
    if isinstance(inner.iter, ast.Call):
        return is_range(inner.iter) and isinstance(inner.target, ast.Name) and _indexes(node.elt, bound,
                                                                                           inner.target.id)
    if isinstance(inner.iter, ast.Name):
        return inner.iter.id in bound and _tensor_size(node.elt)
    part = inner.iter   # ``s["images"]``, ``s.images``: a named part of the item (``row[1:]`` is a grid's slice)
    while isinstance(part, (ast.Subscript, ast.Attribute)) and not (
            isinstance(part, ast.Subscript) and isinstance(part.slice, ast.Slice)):
        part = part.value
    return isinstance(part, ast.Name) and part.id in bound


def _indexes(element: ast.AST, items: set[str], index: str) -> bool:
    """``s[n]`` inside the element: an item of the outer loop indexed by the inner counter."""
    return any(isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in items
               and isinstance(n.slice, ast.Name) and n.slice.id == index for n in walk(element))


def _tensor_size(element: ast.AST) -> bool:
    """``x.shape[0]``, ``x.size(0)``: a tensor's size (``len(c)`` may measure anything)."""
    return (isinstance(element, ast.Subscript) and isinstance(element.value, ast.Attribute)
            and element.value.attr == "shape") or (isinstance(element, ast.Call)
                                                    and isinstance(element.func, ast.Attribute)
                                                    and element.func.attr == "size")


def _kept_longest(resolver: "Resolver", node: ast.AST, scope: Scope) -> bool:
    """``if len(s) > max_len: max_len = len(s)`` in a loop over the items: the running maximum kept by hand
    (the ``m = max(m, len(s))`` of older code), the value of the assignment under the test (a call, or a name:
    :func:`running_maximum`)."""
    function = scope.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    memo = resolver.__dict__.setdefault("_kept_longest", {})
    kept = memo.get(id(function))
    if kept is None:
        kept = memo[id(function)] = _kept_maxima(function)
    return id(node) in kept and _length_of_loop_item(node, resolver, scope)


def running_maximum(resolver: "Resolver", binding: object) -> bool:
    """``longest = n`` under ``if n > longest:`` in a loop, ``n`` a length of the loop's item (``n = len(s)``,
    ``n = ids[-1].size(0)``): the running maximum kept by hand through a name."""
    value = binding.value   # type: ignore[attr-defined]
    return isinstance(value, ast.Name) and _kept_longest(resolver, value, binding.scope)   # type: ignore[attr-defined]


def _first_of_sorted(resolver: "Resolver", node: ast.Call, scope: Scope) -> bool:
    """``len(batch[0]["input_ids"])`` after ``batch.sort(key=lambda x: len(x["input_ids"]), reverse=True)`` (or
    ``batch = sorted(batch, key=..., reverse=True)``; ``[-1]`` sorted ascending): the length of the longest item,
    the items sorted by it (the collate of older NLP code, sorting for ``pack_padded_sequence``). The item must be
    measured as the key measures it: the longest source is not the longest target."""
    if not (isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1 and not node.keywords):
        return False
    picked = node.args[0]
    while isinstance(picked, ast.Subscript) and not isinstance(picked.value, ast.Name):
        picked = picked.value
    if not (isinstance(picked, ast.Subscript) and isinstance(picked.value, ast.Name)
            and isinstance(picked.slice, (ast.Constant, ast.UnaryOp))):
        return False
    index = ast.literal_eval(picked.slice) if isinstance(picked.slice, ast.Constant) or (
        isinstance(picked.slice.op, ast.USub) and isinstance(picked.slice.operand, ast.Constant)) else None
    if index not in (0, -1):
        return False
    function = scope.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    name = picked.value.id
    sorts = [call for call in walk(function) if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
             and call.func.attr == "sort" and isinstance(call.func.value, ast.Name) and call.func.value.id == name]
    bound = resolver.bound_value(picked.value, scope)
    if isinstance(bound, ast.Call) and isinstance(bound.func, ast.Name) and bound.func.id == "sorted":
        sorts.append(bound)
    return any(_sorted_by_measure(call, node, picked, index) for call in sorts)


def _sorted_by_measure(call: ast.Call, measure: ast.Call, picked: ast.Subscript, index: int) -> bool:
    """``call`` sorts so that ``picked`` (``items[index]``) is the item ``measure`` finds longest."""
    keywords = {kw.arg: kw.value for kw in call.keywords}
    reverse = keywords.get("reverse")
    descending = isinstance(reverse, ast.Constant) and reverse.value is True
    if (index == 0) != descending or set(keywords) - {"key", "reverse"} or "key" not in keywords:
        return False
    key = keywords["key"]
    if isinstance(key, ast.Name):
        return key.id == "len" and measure.args[0] is picked
    if not (isinstance(key, ast.Lambda) and len(key.args.args) == 1 and not key.args.vararg):
        return False
    arg, text = key.args.args[0].arg, ast.unparse(picked)

    class _Put(ast.NodeTransformer):
        def visit_Name(self, n: ast.Name) -> ast.AST:
            return ast.parse(text, mode="eval").body if n.id == arg else n
    expected = _Put().visit(ast.parse(ast.unparse(key.body), mode="eval").body)
    return ast.unparse(expected) == ast.unparse(measure)


_ABOVE = (ast.Gt, ast.GtE)
_BELOW = (ast.Lt, ast.LtE)


def _kept_maxima(function: ast.AST) -> frozenset[int]:
    """The values assigned to a name under a test that they exceed it (``if len(s) > m: m = len(s)``)."""
    kept = set()
    for node in of_type(function, ast.If):
        if not (isinstance(node.test, ast.Compare) and len(node.test.ops) == 1):
            continue
        op, left, right = node.test.ops[0], node.test.left, node.test.comparators[0]
        measure, held = (left, right) if isinstance(op, _ABOVE) else (right, left) if isinstance(op, _BELOW) \
            else (None, None)
        if not isinstance(held, (ast.Name, ast.Attribute)) or not isinstance(measure, (ast.Call, ast.Name)):
            continue
        held_text, measure_text = ast.unparse(held), ast.unparse(measure)
        for statement in node.body:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.value,
                    (ast.Call, ast.Name)) and ast.unparse(statement.targets[0]) == held_text \
                    and ast.unparse(statement.value) == measure_text:
                kept.add(id(statement.value))
    return frozenset(kept)


def _length_of_loop_item(node: ast.AST, resolver: "Resolver", scope: Scope, depth: int = 0) -> bool:
    """``len(s)`` / ``s.shape[0]`` / ``s.size(0)`` / ``len(s["ids"])`` where ``s`` is the target of a loop, or the
    item the loop has just appended to a list (``ids[-1].size(0)`` after ``ids.append(...)``); also through a name
    bound to one (``n = len(s)`` then ``m = max(m, n)`` or ``if n > m: m = n``)."""
    if isinstance(node, ast.Name):
        if depth:
            return False
        bindings = resolver.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset))
        return bool(bindings) and all(b.tag == VALUE and not b.path and isinstance(b.value, (ast.Call, ast.Subscript))
                                      and _length_of_loop_item(b.value, resolver, b.scope, depth + 1)
                                      for b in bindings)
    measured = None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and node.args:
        measured = node.args[0]
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size":
        measured = node.func.value
    elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        measured = node.value.value
    last = isinstance(measured, ast.Subscript) and isinstance(measured.slice, ast.UnaryOp) \
        and isinstance(measured.slice.op, ast.USub) and isinstance(measured.slice.operand, ast.Constant) \
        and measured.slice.operand.value == 1 and isinstance(measured.value, ast.Name)
    while isinstance(measured, (ast.Subscript, ast.Attribute)):
        measured = measured.value
    if not isinstance(measured, ast.Name):
        return False
    if last and _appended_in_loop(resolver, measured.id, node, scope):
        return True   # ``ids[-1].size(0)``: the item this iteration appended
    return any(b.tag == LOOP for b in resolver.scopes.may_reach(measured.id, scope, (measured.lineno,
                                                                                     measured.col_offset)))


def _appended_in_loop(resolver: "Resolver", name: str, use: ast.AST, scope: Scope) -> bool:
    """A ``for`` loop of the function holds both ``use`` and an append to ``name`` before it."""
    function = scope.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    line = getattr(use, "lineno", 0)
    appends = [r.lineno for r in append_receivers(resolver, scope, name) if r.lineno <= line]
    return bool(appends) and any(loop.lineno <= a and line <= (loop.end_lineno or loop.lineno)
                                 for loop in of_type(function, ast.For) if loop.lineno <= line for a in appends)


def per_item_lengths(node: ast.AST) -> bool:
    """``len(s) for s in batch``, ``[list(img.shape) for img in images]``, ``x.size(0) for x in xs``, and arithmetic
    of them (``len(s) + 2`` with the end tokens, a length rounded up to a multiple in both arms of an ``if``)."""
    if not isinstance(node, (ast.GeneratorExp, ast.ListComp)):
        return False
    bound = {n.id for g in node.generators for n in walk(g.target) if isinstance(n, ast.Name)}
    return _measured(node.elt, bound, 0)


_LENGTH_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)


def _measured(element: ast.AST, bound: set[str], depth: int) -> bool:
    """``element`` measures the loop's item (``bound``): its length, shape or size, or arithmetic of one."""
    if depth > 3:
        return False
    if isinstance(element, ast.IfExp):   # ``x.shape[0] if x.dim() == 2 else 1``: a size, or a constant
        arms = [a for a in (element.body, element.orelse) if not isinstance(a, ast.Constant)]
        return bool(arms) and all(_measured(a, bound, depth + 1) for a in arms)
    if isinstance(element, ast.BinOp) and isinstance(element.op, _LENGTH_ARITHMETIC):
        if isinstance(element.op, ast.Sub):   # ``len(line) - len(line.lstrip())``: a difference is an offset
            return _measured(element.left, bound, depth + 1) and not _measured(element.right, bound, depth + 1)
        return _measured(element.left, bound, depth + 1) or _measured(element.right, bound, depth + 1)
    if isinstance(element, ast.Call) and _last_name(element.func) in ("list", "tuple", "tensor", "as_tensor") \
            and len(element.args) == 1:
        element = element.args[0]
    measured = None
    if isinstance(element, ast.Attribute) and element.attr == "shape":
        measured = element.value
    elif isinstance(element, ast.Subscript) and isinstance(element.value, ast.Attribute) \
            and element.value.attr == "shape":
        measured = element.value.value
    elif isinstance(element, ast.Call) and isinstance(element.func, ast.Name) and element.func.id == "len" \
            and element.args:
        measured = element.args[0]
    elif isinstance(element, ast.Call) and isinstance(element.func, ast.Attribute) and element.func.attr == "size":
        measured = element.func.value
    elif _recorded_length(element, bound):
        return True
    return measured is not None and any(isinstance(n, ast.Name) and n.id in bound for n in walk(measured))


_LENGTH_WORDS = frozenset({"len", "lens", "length", "lengths"})


def _recorded_length(element: ast.AST, bound: set[str]) -> bool:
    """The length each item records of itself: ``audio_len for _, audio_len in batch`` (a field unpacked from the
    item), ``s["length"] for s in batch``, ``ex.seq_len for ex in batch``: a name that says length (a ``_`` word
    ``len`` / ``length``) of the loop's item. ``x[1] for x in batch`` says nothing of what it holds."""
    if isinstance(element, ast.Name):
        name = element.id if element.id in bound else ""
    elif isinstance(element, ast.Subscript) and isinstance(element.value, ast.Name) and element.value.id in bound \
            and isinstance(element.slice, ast.Constant) and isinstance(element.slice.value, str):
        name = element.slice.value
    elif isinstance(element, ast.Attribute) and isinstance(element.value, ast.Name) and element.value.id in bound:
        name = element.attr
    else:
        return False
    return any(word in _LENGTH_WORDS for word in name.lower().split("_"))


def _last_name(func: ast.AST) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


_EXTREMES = frozenset({"max", "amax", "min", "amin"})


def items_maximum(node: ast.Call) -> bool:
    """``max(ex["src_map"].max() for ex in batch)``, ``max([t.max() for t in data])``: the builtin maximum (or
    minimum) of each item's own largest value, the item the comprehension's target."""
    func = node.func
    if not (type(func) is ast.Name and func.id in ("max", "min") and len(node.args) == 1 and not node.keywords
            and type(node.args[0]) in (ast.GeneratorExp, ast.ListComp)):
        return False
    element = node.args[0].elt
    if type(element) is ast.Call and type(element.func) is ast.Attribute and element.func.attr == "item" \
            and not element.args:
        element = element.func.value
    if not (type(element) is ast.Call and type(element.func) is ast.Attribute and element.func.attr in _EXTREMES
            and not element.args and not element.keywords):
        return False
    receiver = element.func.value
    while type(receiver) in (ast.Attribute, ast.Subscript):
        receiver = receiver.value
    bound = {n.id for g in node.args[0].generators for n in walk(g.target) if type(n) is ast.Name}
    return type(receiver) is ast.Name and receiver.id in bound


_SIZE_KEYS = frozenset({"len", "numel", "torch.numel"})


def longest_item(resolver: "Resolver", node: ast.AST, scope: Scope) -> Optional[ast.Call]:
    """``longest`` bound to ``max(tensors, key=lambda t: t.shape[0])`` (or ``key=len``, ``key=torch.numel``,
    ``min(...)`` for the shortest): the item of a batch picked by its size, whose sizes (``longest.shape[0]``,
    ``len(longest)``, ``*longest.shape``) are the batch's extreme; the ``max``/``min`` call, else None. The call
    itself counts too (``max(seqs, key=len).shape[-1]``)."""
    if picked_by_size(node):
        return node   # type: ignore[return-value]
    if not isinstance(node, ast.Name) or resolver.scopes is None:
        return None
    for binding in resolver.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset)):
        if binding.tag == VALUE and not binding.path and picked_by_size(binding.value):
            return binding.value   # type: ignore[return-value]
    return None


def picked_by_size(value: object) -> bool:
    """``max(tensors, key=lambda t: t.shape[0])``, ``min(items, key=len)``, ``max(arrs, key=torch.numel)``."""
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("max", "min")
            and len(value.args) == 1
            and isinstance(value.args[0], (ast.Name, ast.Attribute, ast.Subscript, ast.ListComp))
            and len(value.keywords) == 1 and value.keywords[0].arg == "key" and _size_key(value.keywords[0].value))


def _size_key(key: ast.AST) -> bool:
    """``len``, ``torch.numel``, ``lambda t: t.shape[0]`` / ``len(t)`` / ``t.size(0)`` / ``t.numel()``."""
    if isinstance(key, (ast.Name, ast.Attribute)):
        return ast.unparse(key) in _SIZE_KEYS
    if not isinstance(key, ast.Lambda) or len(key.args.args) != 1:
        return False
    body = key.body
    if isinstance(body, ast.Call) and isinstance(body.func, ast.Attribute) and body.func.attr == "numel":
        return isinstance(body.func.value, ast.Name) and body.func.value.id == key.args.args[0].arg
    probe = ast.ListComp(elt=body, generators=[ast.comprehension(target=ast.Name(id=key.args.args[0].arg),
                                                                 iter=ast.Name(id="_"), ifs=[], is_async=0)])
    return per_item_lengths(probe)
