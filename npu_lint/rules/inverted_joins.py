"""The inverted path of NPU409 (dynamic_samples.py), session 21 (concat21b): the join itself is the trigger.

``broad_joins.py`` fires when the model shows the count of items unfixed in a form it knows (an item's own part, a
``while`` a ``break`` ends, a test on the data ...). This path runs after it and turns the burden of proof around:
a join of a list that is no literal display of a fixed count fires unless the model proves every item fixed along
the joined dim and the count fixed.

- ``pad_sequence`` / ``nested_tensor`` / ``as_nested_tensor`` of anything but a literal display: these ops exist
  for items of different lengths (per-sample log-probs, per-prompt tokens, a ragged batch's rows).
- ``cat`` along dim 0 (``concat``, ``concatenate``, ``vstack``) of a list the function gets (a parameter, a field
  of another object ``batch.boxes``, an entry ``d[k]``, a slice of a parameter), of a list kept per key
  (``d.pop(k)``), or of a comprehension / ``map`` / loop-built list over such a sequence: per-trajectory chunks,
  per-sample log-prob lists, a trajectory list cut from a queue. Not: a helper's or a collective's result
  (per-level anchors, ``all_gather``), items a helper or callable object computes from each item, a local buffer
  cut at its fill, an autograd ``backward``.
Silent (the shape is proven static): a literal display (``cat([a, b])``, ``cat((x, *ys))`` included: the
growth path judges those), a join along another dim (a dim another object's method gives per key,
``data.__cat_dim__(key, item)`` in a graph collate, counts as dim 0), items of one row each (``x[None]``, ``unsqueeze(0)``,
``view(1, ...)``: a stack, the count is the batch's, NPU406's), items moved to the host (``.cpu()``), the pieces
of one tensor (``x.split(k)``, ``chunk``, ``unbind``: the join rebuilds it), a count proven fixed (``range`` of
settings, the model's modules, ``self``'s own containers and attributes), setup code (``__init__``, module level),
and ``stack``: its items are of one shape, only a count of values varies, left to the proof-based paths.
Asked per call of those ops; no walk of the file (the loop-built list uses broad_joins' per-function memo).
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.nodes import walk as _walk_nodes   # ``ast.walk``: the same nodes, in its order
from npu_lint.analysis.bindings import PARAM, VALUE
from npu_lint.context import FileContext
from npu_lint.rules import short_source
from npu_lint.rules.broad_joins import (JOIN_CATS, _additions, _comprehension_source, _encloses, _fixed_count,
                                        _function_of, _host_piece, _joined_dim, _loop_bindings, _own)

RAGGED = frozenset({"torch.nn.utils.rnn.pad_sequence", "torch.nested.nested_tensor",
                    "torch.nested.as_nested_tensor"})
INVERTED = RAGGED | (JOIN_CATS - {"torch.hstack", "torch.vstack"})    # vstack of rows is a stack
_ROW_VIEWS = frozenset({"view", "reshape"})


def _display(items: ast.AST) -> bool:
    return isinstance(items, (ast.List, ast.Tuple))


def _one_row(element: Optional[ast.AST]) -> bool:
    """``x[None]``, ``x.unsqueeze(0)``, ``x.view(1, -1)``, ``torch.tensor([a, b])[None]``: one row per item."""
    if isinstance(element, ast.Subscript):
        first = element.slice.elts[0] if isinstance(element.slice, ast.Tuple) and element.slice.elts \
            else element.slice
        return isinstance(first, ast.Constant) and first.value is None
    if isinstance(element, ast.Call) and isinstance(element.func, ast.Attribute):
        attr, args = element.func.attr, element.args
        if attr == "unsqueeze" and args and isinstance(args[0], ast.Constant) and args[0].value == 0:
            return True
        if attr in _ROW_VIEWS and args and isinstance(args[0], ast.Constant) and args[0].value == 1:
            return True
    return False


def _pieces_of_tensor(value: ast.AST, ctx: FileContext) -> bool:
    """``x.split(k)``, ``x.chunk(n)``, ``x.unbind(0)``, ``torch.split(x, k)``: one tensor's pieces."""
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
        and value.func.attr in ("split", "chunk", "unbind", "tensor_split")


_FACTORIES = frozenset({"zeros", "ones", "full", "empty", "rand", "randn", "randint", "arange", "new_zeros",
                        "new_ones", "new_full", "new_empty", "new_tensor"})
_CONVERSIONS = frozenset({"tensor", "as_tensor", "LongTensor", "FloatTensor", "IntTensor", "BoolTensor", "from_numpy"})
_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "norm", "prod", "std", "var", "item"})
_PASS_THROUGH = frozenset({"to", "float", "long", "int", "half", "bool", "detach", "clone", "contiguous", "cuda",
                           "flatten", "squeeze", "type", "type_as", "abs", "sigmoid", "softmax", "exp", "log"})


def _reads(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in _walk_nodes(node))


def _fixed_items(element: Optional[ast.AST], ctx: FileContext, bound: frozenset = frozenset(),
                 binds: Optional[dict] = None, depth: int = 0) -> bool:
    """Every item is proven of one size along dim 0 (or the item is no device tensor): one row (``x[None]``), a
    host piece, a factory sized by values the loop does not bind (``torch.zeros(m)``, ``new_zeros((n, 1))``), a
    conversion of Python values (the proof-based paths judge those), a resize to a given size
    (``F.interpolate(x, size=n)``), a cut to a bound the loop does not bind (``f[:n]``), rows picked by a fixed
    index (``boxes[torch.arange(4)]``), or what a method of the item computes (``n.weights()``)."""
    if element is None or depth > 3:
        return False
    if binds and isinstance(element, ast.Name) and element.id in binds:
        return _fixed_items(binds[element.id], ctx, bound, binds, depth + 1)
    if _one_row(element) or (isinstance(element, ast.Call) and _host_piece(element, ctx)):
        return True
    if isinstance(element, ast.BinOp):
        return _fixed_items(element.left, ctx, bound, binds, depth + 1) \
            or _fixed_items(element.right, ctx, bound, binds, depth + 1)
    if isinstance(element, ast.IfExp):
        return _fixed_items(element.body, ctx, bound, binds, depth + 1) \
            and _fixed_items(element.orelse, ctx, bound, binds, depth + 1)
    if isinstance(element, ast.Subscript):
        index = element.slice.elts[0] if isinstance(element.slice, ast.Tuple) and element.slice.elts \
            else element.slice
        if isinstance(index, ast.Constant) and isinstance(index.value, int):
            return _fixed_items(element.value, ctx, bound, binds, depth + 1)     # ``F.interpolate(...)[0]``
        if isinstance(index, ast.Slice):
            return not _reads(index, set(bound)) and index.upper is not None and index.lower is None
        if isinstance(index, ast.Name) and binds and index.id in binds:
            made = binds[index.id]
            return isinstance(made, ast.Call) and isinstance(made.func, (ast.Attribute, ast.Name)) \
                and (made.func.attr if isinstance(made.func, ast.Attribute) else made.func.id) in _FACTORIES \
                and not _reads(made, set(bound))
        return False
    if not isinstance(element, ast.Call):
        return False
    func = element.func
    callee = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if callee in _CONVERSIONS:
        return True
    if callee in _REDUCTIONS and not element.args and not element.keywords:
        return True     # ``x.sum()``: one value per item
    if callee in _FACTORIES:
        sizes = element.args[:1] if callee in ("full", "new_full") else element.args
        return not any(_reads(a, set(bound)) for a in sizes) and not any(
            _reads(k.value, set(bound)) for k in element.keywords if k.arg in ("size", "end"))
    if callee == "interpolate" and (len(element.args) > 1 or any(k.arg in ("size", "scale_factor")
                                                                 for k in element.keywords)):
        return True
    if isinstance(func, ast.Attribute) and callee in _PASS_THROUGH:
        return _fixed_items(func.value, ctx, bound, binds, depth + 1)
    if callee in ("cat", "concat", "stack") and _joined_dim(element) != 0:
        # one record's fields side by side (``cat((t['id'], t['size']), -1)``): the proof paths'; but the item's own
        # rows joined with columns (``cat((polar, res[:, :2]), -1)``, ``cat([pad, tensor], -1)`` of the element
        # walked): as many rows as the element has (session 24: mmdet3d's per-sample points, chronos' per-group
        # variates)
        return not (callee != "stack" and element.args
                    and _rows_of_element(element, ctx, bound, binds or {}, depth))
    helper = isinstance(func, ast.Name) or isinstance(func, ast.Attribute) and _own(func) \
        or isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"
    qualname = ctx.resolver.qualname(func) or ""
    if (helper and not qualname or qualname and not qualname.startswith("torch.")) and element.args:
        return True     # what a helper or a callable object computes from the item (``pad(s, n)``, a metric's
                        # ``self._compute(p[None])``, ``transform(d[None])``): the proof paths follow helpers
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in bound \
            and ctx.resolver.qualname(func) is None:
        return True     # a method of the item (``n.weights()``): what it computes, not a field of rows
    return False


def _rows_of_element(join: ast.Call, ctx: FileContext, bound: frozenset, binds: dict, depth: int) -> bool:
    """A piece of the display ``join`` puts side by side is a name the loop binds from its element (not rebound to
    an item proven of one size: ``t = t.view(1, -1)``), or a cut of one that keeps its rows (``res[:, :2]``)."""
    pieces = join.args[0]
    if not isinstance(pieces, (ast.List, ast.Tuple)):
        return False
    for piece in pieces.elts:
        if isinstance(piece, ast.Name) and piece.id in bound:
            made = binds.get(piece.id)
            if made is None or made is join or not _fixed_items(made, ctx, bound, binds, depth + 1):
                return True
        if isinstance(piece, ast.Subscript) and isinstance(piece.value, ast.Name) and piece.value.id in bound \
                and isinstance(piece.slice, ast.Tuple) and piece.slice.elts:
            first = piece.slice.elts[0]
            if isinstance(first, ast.Slice) and first.lower is None and first.upper is None and first.step is None \
                    or isinstance(first, ast.Constant) and first.value is Ellipsis:
                return True
    return False


def _item_attribute(element: Optional[ast.AST], bound: frozenset) -> bool:
    """``s.label``, ``d.gt_fields.heatmaps``: an attribute of the item object; the proof-based paths know the
    record classes whose attributes hold rows per instance (``gt_instances``), the rest is left to them."""
    while isinstance(element, ast.Call) and isinstance(element.func, ast.Attribute) \
            and element.func.attr in _PASS_THROUGH:
        element = element.func.value
    if not isinstance(element, ast.Attribute):
        return False
    root = element
    while isinstance(root, ast.Attribute):
        root = root.value
    return isinstance(root, ast.Name) and root.id in bound


_WRAPPERS = frozenset({"enumerate", "list", "tuple", "sorted", "reversed", "tqdm", "iter"})


def _walked(target: ast.AST, sequence: ast.AST, depth: int = 0) -> list[tuple[str, str]]:
    """The names a ``for`` target binds to the items of a sequence, each with the sequence's text:
    ``for i, g in enumerate(graphs)`` gives ``g`` for ``graphs``, ``for a, b in zip(xs, ys)`` each its own."""
    if depth > 3:
        return []
    while isinstance(sequence, ast.Call) and isinstance(sequence.func, ast.Name) and sequence.args \
            and sequence.func.id in _WRAPPERS:
        if sequence.func.id == "enumerate":
            if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
                return []
            target = target.elts[1]
        sequence = sequence.args[0]
    if isinstance(sequence, ast.Call) and isinstance(sequence.func, ast.Name) and sequence.func.id == "zip":
        if not (isinstance(target, ast.Tuple) and len(target.elts) == len(sequence.args)):
            return []
        return [pair for t, s in zip(target.elts, sequence.args) for pair in _walked(t, s, depth + 1)]
    if isinstance(target, ast.Name) and isinstance(sequence, (ast.Name, ast.Attribute, ast.Subscript)):
        return [(target.id, ast.dump(sequence))]
    return []


def _size_of(node: ast.AST, names: dict[str, str]) -> Optional[str]:
    """The item name whose size ``node`` reads: ``len(g)``, ``len(g.atoms)``, ``g.x.shape[0]``, ``g.x.size(0)``,
    ``g.pos.numel()``, ``g.num_nodes`` (a count the item records: ``num_*`` / ``n_*``), else None."""
    def root(expr: ast.AST) -> Optional[str]:
        while isinstance(expr, (ast.Attribute, ast.Subscript)):
            expr = expr.value
        return expr.id if isinstance(expr, ast.Name) and expr.id in names else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
            and len(node.args) == 1:
        return root(node.args[0])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
            node.func.attr == "numel" and not node.args
            or node.func.attr == "size" and len(node.args) == 1 and isinstance(node.args[0], ast.Constant)
            and node.args[0].value == 0):
        return root(node.func.value)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
            and isinstance(node.slice, ast.Constant) and node.slice.value == 0:
        return root(node.value.value)
    if isinstance(node, ast.Attribute) and (node.attr.startswith("num_") or node.attr.startswith("n_")) \
            and isinstance(node.value, ast.Name) and node.value.id in names:
        return node.value.id
    return None


def _sizes_read(function: ast.AST) -> dict[str, int]:
    """The sequences (by text) whose items' sizes the function reads in a loop or comprehension over them
    (``num_cum_node += graph.num_node``, ``torch.stack([g.num_node for g in graphs])``, ``offsets.append(len(d))``):
    the line of the first such read. A size only compared (``len(s) == n``, an ``assert``) proves nothing."""
    found: dict[str, int] = {}
    for node in _walk_nodes(function):
        if isinstance(node, (ast.For, ast.AsyncFor)):
            pairs, region = _walked(node.target, node.iter), node.body
        elif isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)) and node.generators:
            gen = node.generators[0]
            pairs, region = _walked(gen.target, gen.iter), [node.elt]
        else:
            continue
        if not pairs:
            continue
        names = dict(pairs)
        compared: set[int] = set()
        for part in region:
            for sub in _walk_nodes(part):
                if isinstance(sub, (ast.Compare, ast.Assert)):
                    compared.update(id(n) for n in _walk_nodes(sub))
        for part in region:
            for sub in _walk_nodes(part):
                if id(sub) in compared:
                    continue
                item = _size_of(sub, names)
                if item is not None:
                    key = names[item]
                    found[key] = min(found.get(key, sub.lineno), sub.lineno)
    return found


def _sized_attribute(element: ast.AST, pairs: list[tuple[str, str]], function: ast.AST,
                     ctx: FileContext) -> Optional[int]:
    """An item's attribute (``graph.edge_list``) joined from a sequence whose items' sizes the same function reads
    (``graph.num_node`` summed into offsets, a tensor of them): a function that tracks each item's size joins items
    of different sizes (a graph batch's nodes and edges, a record's per-object rows). The line of that read."""
    while isinstance(element, ast.Call) and isinstance(element.func, ast.Attribute) \
            and element.func.attr in _PASS_THROUGH:
        element = element.func.value
    root = element
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name):
        return None
    key = dict(pairs).get(root.id)
    if key is None:
        return None
    return ctx.per_node("inverted_joins_sizes_read", function, _sizes_read).get(key)


def _targets(generators_or_loop) -> frozenset:
    names = set()
    for target in generators_or_loop:
        names.update(n.id for n in _walk_nodes(target) if isinstance(n, ast.Name))
    return frozenset(names)


def _sequence_given(sequence: ast.AST, ctx: FileContext, depth: int = 0) -> Optional[str]:
    """What the list (or the sequence a comprehension walks) is, when nothing proves its count and items fixed."""
    if depth > 3 or _display(sequence):
        return None
    if isinstance(sequence, ast.Starred):
        return None
    if _own(sequence) or _fixed_count(sequence, ctx):
        return None     # the object's own containers, a count of settings or of modules, a tensor's rows
    if isinstance(sequence, ast.Call):
        if _pieces_of_tensor(sequence, ctx):
            return None
        func = sequence.func
        if isinstance(func, ast.Name) and func.id in ("list", "tuple", "reversed", "sorted", "enumerate", "tqdm") \
                and sequence.args:
            return _sequence_given(sequence.args[0], ctx, depth + 1)
        if isinstance(func, ast.Name) and func.id == "zip":
            return next(filter(None, (_sequence_given(a, ctx, depth + 1) for a in sequence.args)), None)
        if isinstance(func, ast.Name) and func.id == "range" and len(sequence.args) == 1 \
                and isinstance(sequence.args[0], ast.Call) and isinstance(sequence.args[0].func, ast.Name) \
                and sequence.args[0].func.id == "len" and sequence.args[0].args:
            return _sequence_given(sequence.args[0].args[0], ctx, depth + 1)     # ``range(len(samples))``
        if isinstance(func, ast.Attribute) and func.attr in ("pop", "get", "setdefault") \
                and not _own(func.value) and ctx.resolver.qualname(func) is None:
            return f"what {short_source(func, 24)}() returns"      # a list kept per key (``parts.pop(tid)``)
        return None     # a helper's or a collective's result (per-level anchors, ``all_gather``): not proven data
    if isinstance(sequence, ast.Subscript):
        root = sequence.value
        if _own(root):
            return None
        index = sequence.slice
        if isinstance(index, ast.Constant) or isinstance(index, ast.Slice) and all(
                b is None or isinstance(b, (ast.Constant, ast.UnaryOp)) or _own(b) for b in (index.lower, index.upper)):
            return None     # a list at a fixed position or cut by constants or settings (``reps[0]``,
                            # ``embeddings[1:]``, ``feats[:self.num_large_crops]``):
                            # the input's columns or mini-batch chunks, a structure of the call
        if isinstance(root, ast.Name) and isinstance(sequence.slice, ast.Slice):
            binding = ctx.resolver.binding(root)
            if binding is None or binding.tag != PARAM:
                return None     # a local buffer cut at its fill (``patches[:n]``): a count, NPU406's tail
        return f"the list {short_source(sequence, 30)}"
    if isinstance(sequence, ast.Attribute):
        root = sequence
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if isinstance(root, ast.Name) and root.id in ("self", "cls"):
            return None
        return f"the field {short_source(sequence, 30)}"
    if isinstance(sequence, ast.Name):
        binding = ctx.resolver.binding(sequence)
        if binding is None:
            return None
        if binding.tag == PARAM:
            return f"the list {sequence.id} the function is given"
        if binding.tag == VALUE and not binding.path and isinstance(binding.value, ast.AST):
            value = binding.value
            if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice):
                return _sequence_given(value.value, ctx, depth + 1)
            if isinstance(value, ast.Call):
                return _sequence_given(value, ctx, depth + 1)
            if isinstance(value, (ast.Name, ast.Attribute, ast.Subscript)):
                return _sequence_given(value, ctx, depth + 1)
    return None


def _built_list(items: ast.Name, node: ast.Call, function: ast.AST, ctx: FileContext,
                sized_only: bool = False) -> Optional[str]:
    """A list the function fills by ``append`` in a ``for`` over a sequence whose count nothing fixes (with
    ``sized_only``, a list unpacked empty beside others: only items' attributes whose sizes the function reads)."""
    found = None
    memo = ctx.scratch.setdefault("inverted_additions", {})
    for where, added in _additions(function, ctx).get(items.id, ()):
        if not isinstance(where, (ast.For, ast.AsyncFor)) or _encloses(where, node) or where.lineno > node.lineno:
            continue
        key = (where, added, sized_only)   # the same for every join of the list (150 joins asked each addition)
        if key not in memo:
            memo[key] = _addition(where, added, function, ctx, sized_only)
        verdict = memo[key]
        if verdict is None:
            return None
        found = found or verdict
    return found


def _addition(where: ast.AST, added: Optional[ast.AST], function: ast.AST, ctx: FileContext,
              sized_only: bool) -> Optional[str]:
    """What one addition ``items.append(added)`` in the loop ``where`` says of the list: why its count varies, or
    None when the addition shows the items fixed (the whole list is then left alone)."""
    binds = _loop_bindings(where, ctx)
    bound = set(_targets([where.target]))   # type: ignore[attr-defined]
    for _ in range(3):      # names the body binds from the item (``n = len(t)``) vary with it too
        bound |= {k for k, v in binds.items() if _reads(v, bound)}
    value = binds.get(added.id, added) if isinstance(added, ast.Name) else added
    if added is None or _fixed_items(added, ctx, frozenset(bound), binds):
        return None
    sized = None
    if _item_attribute(value, frozenset(bound)):
        sized = _sized_attribute(value, _walked(where.target, where.iter), function, ctx)   # type: ignore[attr-defined]
    if sized is None and (sized_only or _item_attribute(value, frozenset(bound))):
        return None
    if _batch_loop(where, ctx):
        return None
    given = _sequence_given(where.iter, ctx)   # type: ignore[attr-defined]
    if given is None:
        return None
    return f"one item per element of {given} (loop of line {where.lineno})" + (
        f", whose sizes the function reads at line {sized}" if sized else "")


_DEVICE_MOVES = frozenset({"to", "cuda", "npu"})


def _batch_loop(loop: ast.AST, ctx: FileContext) -> bool:
    """Session 32 (prec32): a loop over a data loader's batches, which its body moves to the device (``for x, y in
    loader: x = x.to(device)``, ``data, label = data.to(device), label.to(device)``): the list it fills holds one
    result per batch (predictions, features, labels of an evaluation pass) and is joined once after the pass, its
    length the dataset's size, the same on every pass (the short last batch is NPU406's)."""
    iterable = loop.iter   # type: ignore[attr-defined]
    while isinstance(iterable, ast.Call) and iterable.args and not (
            isinstance(iterable.func, ast.Name) and iterable.func.id == "zip"):
        iterable = iterable.args[0]   # ``enumerate(loader)``, ``tqdm(loader)``
    if not isinstance(iterable, (ast.Name, ast.Attribute)):
        return False   # ``zip(targets, indices)``: per-image items paired, not a loader's batches (rfdetr)
    if ctx.resolver.kind_of(iterable) == K.LOADER:
        return True    # ``test_dl: DataLoader``: a loader the model knows, whatever the body moves
    names = {n.id for n in _walk_nodes(loop.target) if isinstance(n, ast.Name)}   # type: ignore[attr-defined]
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _DEVICE_MOVES
               and isinstance(n.func.value, ast.Name) and n.func.value.id in names
               for statement in loop.body for n in _walk_nodes(statement))   # type: ignore[attr-defined]


def _item_dim(node: ast.Call, ctx: FileContext) -> bool:
    """``cat(values, dim=data.__cat_dim__(key, item))``: the dim an object's method gives per key (graph collates:
    node and edge attributes join along their element dim, mostly 0). A dim given as a parameter (generic join
    helpers) or computed by torch (``x.dim() - 1``) stays silent."""
    dim = next((k.value for k in node.keywords if k.arg in ("dim", "axis")), None)
    dim = node.args[1] if len(node.args) > 1 else dim
    return isinstance(dim, ast.Call) and isinstance(dim.func, ast.Attribute) and bool(dim.args) \
        and not _own(dim.func) and ctx.resolver.qualname(dim.func) is None


def _empty_list(binding) -> bool:
    """``xs = []``, or one of several lists unpacked at once: ``xs, edges, batch = [], [], []`` (those: only for
    items' attributes whose sizes the function reads, session 27; the rest stays as it was)."""
    value = binding.value
    if isinstance(value, ast.List) and not value.elts and not binding.path:
        return True
    if len(binding.path) == 1 and isinstance(value, (ast.Tuple, ast.List)) \
            and not any(isinstance(e, ast.Starred) for e in value.elts) and binding.path[0] < len(value.elts):
        part = value.elts[binding.path[0]]
        return isinstance(part, ast.List) and not part.elts
    return False


def inverted_join(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """Why the join's shape is not proven static, else None: see the module's docstring."""
    if name not in INVERTED or not node.args:
        return None
    function = _function_of(node, ctx)
    if function is None or getattr(function, "name", "") in ("__init__", "backward") or ".test" in f".{ctx.module}":
        return None
    items = node.args[0]
    if _display(items):
        return None
    if name in RAGGED:
        return f"items of different lengths (what {name.rsplit('.', 1)[-1]} exists for)"
    if _joined_dim(node) != 0 and not _item_dim(node, ctx):
        return None
    source = _comprehension_source(items)
    if source is not None:
        element = items.elt if isinstance(items, (ast.ListComp, ast.GeneratorExp)) else None
        names = _targets([g.target for g in items.generators]) if element is not None else frozenset()
        sized = None
        if element is not None and _fixed_items(element, ctx, names):
            return None
        if element is not None and _item_attribute(element, names):
            generator = items.generators[0]
            sized = _sized_attribute(element, _walked(generator.target, generator.iter), function, ctx)
            if sized is None:
                return None
        given = _sequence_given(source[0], ctx)
        return (f"one item per element of {given}" + (f", whose sizes the function reads at line {sized}"
                                                      if sized else "")) if given else None
    if isinstance(items, ast.Name):
        binding = ctx.resolver.binding(items)
        if binding is not None and binding.tag == VALUE and not binding.path \
                and isinstance(binding.value, (ast.ListComp, ast.GeneratorExp, ast.Call)) \
                and _comprehension_source(binding.value) is not None:
            value = binding.value
            element = value.elt if isinstance(value, (ast.ListComp, ast.GeneratorExp)) else None
            names = _targets([g.target for g in value.generators]) if element is not None else frozenset()
            if element is not None and (_fixed_items(element, ctx, names) or _item_attribute(element, names)):
                return None
            given = _sequence_given(_comprehension_source(value)[0], ctx)
            return f"one item per element of {given}" if given else None
        if binding is not None and binding.tag == VALUE and _empty_list(binding):
            return _built_list(items, node, function, ctx, sized_only=bool(binding.path))
    given = _sequence_given(items, ctx)
    return f"the items of {given}" if given else None
