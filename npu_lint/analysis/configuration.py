"""Configuration, not data: tensors whose values the code fixes (``torch.tensor(config.depths)``, ``x.new_tensor(
self.num_grids)``, a buffer or an attribute a module sets only in ``__init__``), and arrays numpy made. The data flows
(:mod:`npu_lint.analysis.flows`) and the data roots (:mod:`npu_lint.analysis.data_tensors`) ask them."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Iterator, Optional, Union

from npu_lint.analysis import kinds as K
from npu_lint.analysis.data_records import per_call_record, set_per_call
from npu_lint.analysis.constant_fills import FILLED, JOINED, constant_filled
from npu_lint.analysis.host_indices import host_selection
from npu_lint.analysis.in_place import written_in_place
from npu_lint.analysis.names import rooted
from npu_lint.analysis.nodes import of_type, walk
from npu_lint.analysis.scalars import number_parameter
from npu_lint.analysis.scopes import LOOP, PARAM, VALUE, Binding, Scope, enclosing_class, viewed_name

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_DEPTH = 30
# Tensors made of the values given (``torch.Tensor([...])`` and the typed constructors: the legacy spellings).
_CONSTRUCTORS = frozenset("torch." + name for name in ("tensor", "as_tensor", "Tensor", "LongTensor", "IntTensor",
                                                        "FloatTensor", "DoubleTensor"))
# The legacy typed constructors make a tensor of the values only from a sequence: ``torch.LongTensor(2)`` is an
# uninitialised tensor of two elements, written later (often from data).
_LEGACY = frozenset(name for name in _CONSTRUCTORS if name not in ("torch.tensor", "torch.as_tensor"))
_SEQUENCES = (ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp)
_NESTING = 6   # arithmetic of configuration, followed through so many operators
# torch's factories of positions, whose values follow from their arguments alone (``zeros`` / ``full`` are as often
# buffers an op then fills with data: ``counts = torch.zeros(b); counts.scatter_add_(0, batch, ones)``).
# ``eye`` too: an identity (``torch.eye(n, dtype=torch.bool)``, the leave-one-out or self-pair mask).
_MADE = frozenset("torch." + name for name in ("arange", "linspace", "logspace", "range", "eye"))


def numpy_made(receiver: ast.AST, resolver: "Resolver", scope: Scope, depth: int = 0) -> bool:
    """The receiver chain starts at a numpy or pandas call (``np.argsort(strides).tolist()``), directly or through
    a name bound once to one: host data, not a tensor's (``x.cpu().numpy().tolist()`` is a tensor's)."""
    node = receiver
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        if isinstance(node, ast.Call):
            name = resolver.qualname(node.func, scope) if isinstance(node.func, (ast.Name, ast.Attribute)) else None
            if name is not None:   # ``np.asarray(x.sum().cpu())`` wraps a tensor's data: no numpy-made array
                return rooted(name, ("numpy", "pandas")) and not any(
                    (value := resolver.value_of(a, scope)) is not None and (value[0] in K.TENSORS
                                                                            or value[1] == K.CPU_TENSOR)
                    for a in node.args)
            node = node.func
        node = node.value if isinstance(node, (ast.Attribute, ast.Subscript)) else node
    if isinstance(node, ast.BinOp) and depth < 3:   # ``(np.array(pos) - (tx, ty)).astype(int)``: numpy's arithmetic
        sides = (node.left, node.right)              # (session 25) with no tensor operand stays numpy's
        return any(numpy_made(side, resolver, scope, depth + 1) for side in sides) and not any(
            (value := resolver.value_of(side, scope)) is not None and value[0] in K.TENSORS for side in sides)
    if isinstance(node, ast.Name) and depth < 3 and resolver.scopes is not None:
        bindings = resolver.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset))
        return len(bindings) == 1 and bindings[0].tag == VALUE and not bindings[0].path \
            and isinstance(bindings[0].value, ast.AST) and numpy_made(bindings[0].value, resolver, bindings[0].scope,
                                                                        depth + 1)
    return False


def from_constants(receiver: ast.AST, resolver: "Resolver", scope: Scope, nesting: int = 0,
                   evident: bool = False) -> bool:
    """The receiver chain starts (through names bound once) at ``torch.tensor(...)`` / ``torch.as_tensor(...)`` /
    ``x.new_tensor(...)`` of a value that is no tensor and carries no value read from one (configuration; a
    comprehension of shapes, ``[f.shape[-2:] for f in feats]``, too), at ``torch.arange(depth)`` of such values,
    possibly in arithmetic with numbers, or at an attribute of a model that the code never binds (a buffer such as
    ``model.stride``) or sets only when it is built (:func:`built_state`). ``evident``: the values put in a tensor
    must be seen to be fixed (:func:`_fixed_values`), not merely carry no value read from a tensor
    (``torch.tensor(lengths)`` of a name of unknown origin may hold the batch's lengths)."""
    called = False   # ``receiver`` is the callee of the previous step (a method, not an attribute read)
    fed = False      # a call on the chain takes non-constant arguments
    field = False    # the chain went from a field to the object holding it (``self.input.mask`` to ``self.input``)
    held: Optional[Binding] = None   # the binding whose value ``receiver`` is (a name followed last)
    for _ in range(_DEPTH):
        if isinstance(receiver, ast.Name) and evident:   # every binding that may reach (a loop's own update too)
            bindings = resolver.scopes.may_reach(receiver.id, scope, (receiver.lineno, receiver.col_offset)) \
                if resolver.scopes is not None else []
            if len(bindings) != 1:
                return bool(bindings) and nesting < _NESTING and all(
                    b.tag in (VALUE, LOOP) and not b.path and isinstance(b.value, ast.AST)
                    and from_constants(b.value, resolver, b.scope, nesting + 1, evident) for b in bindings)
        if isinstance(receiver, ast.Name):   # ``grid = x.new_tensor(cfg.grids).cumsum(0)`` earlier
            binding = resolver.binding(receiver, scope)
            if binding is None or binding.tag not in (VALUE, LOOP) or binding.path \
                    or not isinstance(binding.value, ast.AST):
                return False   # ``for m in masks``: an element of a configuration tensor is configuration
            if collective_written(binding, resolver) or written_in_place(binding, resolver):
                return False   # ``dist.all_reduce(n, op=MAX)``: the other ranks' values now, not the code's;
                               # ``pos.add_(len(new))``: a value the run advances
            receiver, scope, held = binding.value, binding.scope, binding
            continue
        if isinstance(receiver, ast.BinOp):   # ``torch.arange(1, depth + 1) * 2``: configuration with numbers
            sides = (receiver.left, receiver.right)
            return nesting < _NESTING and any(resolver.kind_of_at(o, scope) in K.TENSORS for o in sides) and all(
                from_constants(o, resolver, scope, nesting + 1, evident) if resolver.kind_of_at(o, scope) in K.TENSORS
                else not resolver.flows(o, scope, sink=False) and (not evident or _scalar(o, resolver, scope))
                for o in sides)
        if not isinstance(receiver, (ast.Call, ast.Attribute, ast.Subscript)):
            return False
        if isinstance(receiver, ast.Attribute) and not called and not fed \
                and resolver.kind_of_at(receiver.value, scope) == K.MODULE and (
                    not _self(receiver.value, resolver, scope) or resolver.kind_of_at(receiver, scope) is None
                    and receiver.attr not in _class_state(resolver, scope)[1]):
            if field and _self(receiver.value, resolver, scope) and set_per_call(receiver, resolver, scope):
                return False   # (fields25) ``self.input.mask``: a field of what ``set_input(data)`` stores per call
            return True   # ``int(model.stride.max())``: an attribute of a model (a buffer, a parameter, its
                          # configuration) read from outside its class: model state, not the batch's data
        if isinstance(receiver, ast.Attribute) and not called and not fed and built_state(receiver, resolver, scope):
            return True   # ``int(self.stride.max())``: model state set once, when the module is built
        if isinstance(receiver, ast.Call) and (
                resolver.qualname(receiver.func, scope) in _CONSTRUCTORS
                or (isinstance(receiver.func, ast.Attribute) and receiver.func.attr == "new_tensor")):
            value = receiver.args[0] if receiver.args else None
            if isinstance(value, ast.Name):
                gathered = resolver.binding(value, scope)
                if gathered is not None and collective_written(gathered, resolver):
                    return False   # ``torch.tensor(sizes)`` after ``dist.all_gather(sizes, n)``: every rank's sizes
            if value is not None and host_selection(resolver, value, scope) is not None:
                return False   # ``torch.tensor([i for i, f in enumerate(done.tolist()) if not f])``: a host nonzero
            return value is not None and _of_values(receiver, resolver, scope) and resolver.kind_of_at(value, scope) not in K.TENSORS \
                and (not isinstance(value, (ast.ListComp, ast.GeneratorExp)) or shapes_only(value.elt)) \
                and not any(not _shape_parameter(f) for f in resolver.flows(value, scope, sink=False)) \
                and (not evident or _fixed_values(value, resolver, scope))   # ``[t.sum() for t in batch]``: data
        if isinstance(receiver, ast.Call) and resolver.qualname(receiver.func, scope) in _MADE:
            arguments = list(receiver.args) + [kw.value for kw in receiver.keywords]   # ``torch.arange(depth)``:
            return all(resolver.kind_of_at(a, scope) not in K.TENSORS for a in arguments) and not any(
                resolver.flows(a, scope, sink=False) for a in arguments)   # positions fixed by its arguments
        if evident and isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute):
            made = resolver.qualname(receiver.func, scope)   # constant_fills.py: ``torch.ones(n, n)``, written
            if made in FILLED:                                # only with constants at configured positions
                return constant_filled(receiver, held if held is not None and _on_chain(receiver, held.value) else None,
                                       resolver, scope)
            if made in JOINED and receiver.args and isinstance(receiver.args[0], (ast.List, ast.Tuple)) \
                    and receiver.args[0].elts and nesting < _NESTING:   # ``torch.stack((m1, m2))`` of such
                return all(from_constants(e, resolver, scope, nesting + 1, evident) for e in receiver.args[0].elts)
        if isinstance(receiver, ast.Call) and resolver.qualname(receiver.func, scope) in _TORCH_DRAWS:
            return False   # ``torch.multinomial(self.dist, n)``: random draws of a fixed distribution
        if isinstance(receiver, ast.Call) and receiver.args and isinstance(receiver.func, ast.Attribute) \
                and (resolver.qualname(receiver.func, scope) or "").startswith("torch."):
            if evident and resolver.kind_of_at(receiver.args[0], scope) not in K.TENSORS:
                return False   # ``torch.ones(n)``: a buffer the code may fill, not computed from a tensor
            if nesting < _NESTING and not all(from_constants(a, resolver, scope, nesting + 1, evident)
                                              for a in receiver.args[1:] if _operand(a, resolver, scope)):
                return False   # ``torch.max(torch.tensor(0), bins - 4)``: a bound clamps values of the data
            receiver = receiver.args[0]   # ``torch.cumsum(dims, 0)``: computed from its first argument
            continue
        if nesting < _NESTING and _data_selected(receiver, resolver, scope, nesting, evident):
            return False   # ``torch.arange(b)[keep]``, ``.masked_select(keep)``: the rows the data's index picks
        called = isinstance(receiver, ast.Call)
        field = field or (isinstance(receiver, ast.Attribute) and not called)
        if called and evident and not (isinstance(receiver.func, ast.Attribute)
                                       and resolver.kind_of_at(receiver.func.value, scope) in K.TENSORS):
            return False   # ``self.assigner.assign(pred_instances=p)``: what another object's method returns
        if called and any(not isinstance(a, ast.Constant) for a in receiver.args) \
                and not (isinstance(receiver.func, ast.Attribute) and receiver.func.attr in _MOVES):
            fed = True   # ``self.codec.encoded_length(lengths)``: computed from its arguments, not read from the model
            #              (``self.strides.to(x.device)``: the buffer's values, moved)
        receiver = receiver.func if called else receiver.value
    return False


# torch.distributed's collectives that write the other ranks' values into their first argument.
_COLLECTIVE_WRITES = frozenset("torch.distributed." + name for name in (
    "all_reduce", "broadcast", "reduce", "recv", "irecv", "scatter", "all_gather_into_tensor", "reduce_scatter_tensor",
    "all_to_all_single", "all_gather", "all_gather_object"))   # the last two fill a list, their first argument


def _on_chain(receiver: ast.AST, value: object) -> bool:
    """``receiver`` is ``value`` or the receiver of a method chain ending in it (``torch.zeros(...).to(d).bool()``
    bound to a name: writes into that name are writes into what ``torch.zeros`` made)."""
    node = value
    for _ in range(_DEPTH):
        if node is receiver:
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        elif isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        else:
            return False
    return False


# torch's random draws: values of the run, whatever distribution (a model's buffer, configuration) they are drawn from.
_TORCH_DRAWS = frozenset("torch." + name for name in (
    "multinomial", "bernoulli", "normal", "poisson", "rand_like", "randn_like", "randint_like", "randperm"))


def collective_written(binding: Binding, resolver: "Resolver") -> bool:
    """The tensor bound here is the first argument of a collective of its scope (``dist.all_reduce(n, op=MAX)``,
    ``dist.broadcast(t, 0)``): it holds what the ranks' data gives, whatever the code put in it (``torch.tensor(
    x.size(1))``, the local length, becomes the longest of every rank's batch)."""
    if resolver.scopes is None:
        return False
    scope = binding.scope
    for call in resolver.scopes.calls_on(scope, binding.name):
        if call.args and viewed_name(call.args[0]) == binding.name and call.lineno >= binding.pos[0] \
                and resolver.qualname(call.func, scope) in _COLLECTIVE_WRITES:
            return True
    return False


# Methods that pick elements of their receiver by a tensor argument (session 33).
_PICKING = frozenset({"masked_select", "index_select", "take", "gather", "take_along_dim"})


def _data_selected(receiver: ast.AST, resolver: "Resolver", scope: Scope, nesting: int, evident: bool) -> bool:
    """``receiver`` picks elements of a tensor by an index tensor the code does not fix: a subscript by one
    (``torch.arange(b)[keep]``) or a picking method (``torch.arange(b).masked_select(keep)``). Which elements, and
    how many, are the data's even when the tensor picked from is configuration (session 33: fairseq's
    ``batch_idxs``, the rows of the sentences still decoding)."""
    if isinstance(receiver, ast.Subscript):
        indices = receiver.slice.elts if isinstance(receiver.slice, ast.Tuple) else [receiver.slice]
    elif isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute) \
            and receiver.func.attr in _PICKING:
        indices = list(receiver.args) + [k.value for k in receiver.keywords if k.arg in ("index", "mask")]
    else:
        return False
    return any(not isinstance(i, (ast.Slice, ast.Constant)) and resolver.kind_of_at(i, scope) in K.TENSORS
               and not from_constants(i, resolver, scope, nesting + 1, evident) for i in indices)


def _operand(node: ast.AST, resolver: "Resolver", scope: Scope) -> bool:
    """A later argument of a torch function that is an operand, not an option: a tensor, or an expression the model
    cannot type (``bins - 4``); not a number, a dimension or a bare name of unknown kind (``dim``)."""
    kind = resolver.kind_of_at(node, scope)
    if kind in K.TENSORS:
        return True
    return kind is None and isinstance(node, (ast.BinOp, ast.Call, ast.Subscript)) \
        and not _scalar(node, resolver, scope)


_COMBINING = (ast.BitAnd, ast.BitOr, ast.BitXor)
_LISTING = frozenset({"list", "tuple", "sorted", "range"})


def _scalar(node: ast.AST, resolver: "Resolver", scope: Scope, depth: int = 0) -> bool:
    """A number the code fixes, in arithmetic with configuration (``torch.ceil(sizes / d) * d``): a constant, a
    shape (``x.shape[0]``, ``x.size(1)``, ``len(x)``), a parameter annotated ``int`` / ``float`` or defaulting to a
    number, a name bound to such numbers; not a name of unknown origin (a tensor the caller passes)."""
    if depth > 4:
        return False
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float))
    if isinstance(node, ast.UnaryOp):
        return _scalar(node.operand, resolver, scope, depth + 1)
    if isinstance(node, ast.BinOp):
        return _scalar(node.left, resolver, scope, depth + 1) and _scalar(node.right, resolver, scope, depth + 1)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute):
        return node.value.attr == "shape"
    if isinstance(node, ast.Attribute):
        return node.attr == "ndim"
    if isinstance(node, ast.Call):
        func = node.func
        return (isinstance(func, ast.Attribute) and func.attr in ("size", "dim", "numel")) or (
            isinstance(func, ast.Name) and func.id == "len")
    if isinstance(node, ast.Name) and resolver.scopes is not None:
        bindings = resolver.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset))
        return bool(bindings) and all(_scalar_binding(b, resolver, depth) for b in bindings)
    return False


def _scalar_binding(binding: Binding, resolver: "Resolver", depth: int) -> bool:
    if binding.tag == PARAM:
        return number_parameter(binding)
    return binding.tag == VALUE and not binding.path and isinstance(binding.value, ast.AST) \
        and _scalar(binding.value, resolver, binding.scope, depth + 1)


def _fixed_values(value: ast.AST, resolver: "Resolver", scope: Scope, depth: int = 0) -> bool:
    """Values the code shows to be fixed: constants, literal lists of them (``[1] * n``, then ``counts[0] = 2``),
    a comprehension of shapes (checked by the caller), ``list(range(n))``, a name every binding reaching it holds
    such values, and every value appended, extended or stored into it afterwards (``ids = []`` then
    ``ids.extend([i] * len(boxes))`` in a loop is the data's)."""
    if depth > 4:
        return False
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.UnaryOp):
        return _fixed_values(value.operand, resolver, scope, depth + 1)
    if isinstance(value, (ast.List, ast.Tuple)):
        return all(_fixed_values(e, resolver, scope, depth + 1) for e in value.elts)
    if isinstance(value, (ast.ListComp, ast.GeneratorExp)):
        return True   # of shapes only: :func:`from_constants` asked :func:`shapes_only`
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):   # ``[1] * n``
        return any(isinstance(s, (ast.List, ast.Tuple)) and _fixed_values(s, resolver, scope, depth + 1)
                   for s in (value.left, value.right))
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        return all(_fixed_values(s, resolver, scope, depth + 1) for s in (value.left, value.right))
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _LISTING \
            and resolver.qualname(value.func, scope) in (None, "builtins." + value.func.id):
        return value.func.id == "range" or all(_fixed_values(a, resolver, scope, depth + 1) for a in value.args)
    if isinstance(value, ast.Name) and resolver.scopes is not None:   # what is added later too (``ids.extend(...)``)
        bindings = resolver.scopes.may_reach(value.id, scope, (value.lineno, value.col_offset))
        return bool(bindings) and all(
            b.tag == VALUE and not b.path and isinstance(b.value, ast.AST)
            and _fixed_values(b.value, resolver, b.scope, depth + 1)
            and all(_fixed_values(v, resolver, b.scope, depth + 1) for v in resolver.added_values(b)) for b in bindings)
    return False


def configured(node: ast.AST, resolver: "Resolver", scope: Scope, nesting: int = 0) -> bool:
    """A tensor whose values the code fixes, the same every batch: configuration (:func:`from_constants`), or a
    mask comparing or combining only such tensors and constants (``~torch.eye(n, dtype=torch.bool)``, ``dims !=
    fixed``, ``(dims.unsqueeze(-1) != fixed).all(-1)``, ``padded.sum() == 0`` of a tensor of shapes). A name of
    unknown kind or a parameter is not: what a caller passes may be data."""
    if nesting > _NESTING:
        return False
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return configured(node.operand, resolver, scope, nesting + 1)
    if isinstance(node, ast.BoolOp):
        return all(configured(v, resolver, scope, nesting + 1) for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, _COMBINING):
        return all(configured(v, resolver, scope, nesting + 1) for v in (node.left, node.right))
    if isinstance(node, ast.Compare):
        sides = (node.left, *node.comparators)
        return any(not isinstance(s, ast.Constant) for s in sides) \
            and all(configured(s, resolver, scope, nesting + 1) for s in sides)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and isinstance(node.func.value, (ast.Compare, ast.UnaryOp, ast.BinOp)) \
            and all(isinstance(a, ast.Constant) for a in (*node.args, *(kw.value for kw in node.keywords))):
        return configured(node.func.value, resolver, scope, nesting + 1)   # ``(a != b).all(dim=-1)``
    return from_constants(node, resolver, scope, evident=True)


_SHAPE_CALLS = frozenset({"size", "numel", "dim", "len"})
_SHAPE_NODES = (ast.Name, ast.Constant, ast.Load, ast.Tuple, ast.List, ast.BinOp, ast.UnaryOp, ast.operator,
                ast.unaryop, ast.Slice, ast.Subscript)


def _item_length(node: ast.AST) -> bool:
    """``len(t)``, ``t.numel()``, ``t.size(0)``, ``t.shape[0]``, ``t.size(-1)``: how long each item is (the tokens of
    a target, the boxes of an image, the samples of a clip), which varies with the data, unlike the spatial sizes of
    feature levels (``f.size(2)``, ``f.shape[-2:]``)."""
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        axis = node.args[0] if node.args else None
    elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        name, axis = "size", node.slice
    else:
        return False
    if isinstance(axis, ast.UnaryOp) and isinstance(axis.op, ast.USub) and isinstance(axis.operand, ast.Constant):
        axis = ast.Constant(value=-axis.operand.value)
    return name in ("len", "numel") or (name == "size" and isinstance(axis, ast.Constant) and axis.value in (0, -1))


def shapes_only(element: ast.AST) -> bool:
    """``f.shape[-2:]``, ``(x.size(2), x.size(3))``: a comprehension's element made of spatial sizes only (what a
    tensor built from it holds is metadata, read without a sync), not of a tensor's values nor of each item's
    length (``[len(t) for t in targets]``: the lengths of a batch's targets are data)."""
    sized = False
    for node in walk(element):
        if _item_length(node):
            return False
        if isinstance(node, ast.Attribute):
            if node.attr not in ("shape", "size", "numel", "dim"):   # ``x.size(2)``: the call's callee
                return False
            sized = True
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name not in _SHAPE_CALLS and name not in ("int", "tuple", "list"):
                return False
            sized = sized or name in _SHAPE_CALLS
        elif not isinstance(node, _SHAPE_NODES):
            return False
    return sized


def _self(node: ast.AST, resolver: "Resolver", scope: Scope) -> bool:
    return isinstance(node, ast.Name) and resolver.scopes is not None and node.id == resolver.scopes.self_name(scope)


def built_state(node: ast.Attribute, resolver: "Resolver", scope: Scope) -> bool:
    """``self.stride`` of an object (a model, a loss) fixed when the object is built, the same value for every batch:
    its class sets it (``self.x = ...``, ``self.register_buffer("x", ...)``, ``register_parameter``) only in
    ``__init__`` or, anywhere, to configuration (``torch.tensor(cfg.sizes)``), and no other method writes into it in
    place (``self.x[idx] = v``, ``self.x.copy_(v)``, ``self.x += v``): a buffer of strides, anchors, a grid's
    resolution."""
    if not isinstance(node.value, ast.Name) or resolver.scopes is None \
            or node.value.id != resolver.scopes.self_name(scope):
        return False
    bindings = resolver.scopes.attribute(scope, node.attr)
    registered, written = _class_state(resolver, scope)
    if node.attr in written:
        return False
    where = registered.get(node.attr, ())
    if not bindings and not where:
        return _mixed_in_state(node.attr, resolver, scope)
    if any(per_call_record(b, resolver) for b in bindings):
        return False   # (fields25) ``self.metadata = metadata`` of a record the file builds per call: its data
    return all(name == "__init__" for name in where) and all(
        getattr(b.scope.node, "name", None) == "__init__" or (
            b.tag == VALUE and not b.path and (_made_of_configuration(b.value, resolver, b.scope)
                                               or _moved_itself(b.value, node.attr))) for b in bindings) \
        and (where or any(getattr(b.scope.node, "name", None) == "__init__" or b.tag != VALUE
                          or not _moved_itself(b.value, node.attr) for b in bindings))


# Moves and casts that keep a tensor's values (session 27): ``self.alpha = self.alpha.to(device=x.device)``.
_MOVES = frozenset({"to", "cuda", "cpu", "npu", "float", "half", "double", "bfloat16", "type_as", "contiguous"})


def _moved_itself(value: object, attr: str) -> bool:
    """``self.x.to(...)`` / ``self.x.float()`` bound back to ``self.x``: the same values on another device or dtype."""
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _MOVES \
        and isinstance(value.func.value, ast.Attribute) and value.func.value.attr == attr \
        and isinstance(value.func.value.value, ast.Name)


def _mixed_in_state(attr: str, resolver: "Resolver", scope: Scope) -> bool:
    """``self.action_space`` in a mixin (a class of no base) that never sets it: the class it is mixed into sets it
    when the object is built (``class Policy(CategoricalMixin, Model)``, ``Model.__init__`` sets ``action_space``).
    State, unless a class deriving from the mixin (in this file or, through the project index, in others) holds a
    tensor there."""
    cls = enclosing_class(scope)
    if cls is None or any(not (isinstance(b, ast.Name) and b.id == "object") for b in cls.bases) \
            or cls.keywords or any(getattr(s, "name", None) == attr for s in cls.body):
        return False
    own = resolver.class_value(cls)
    held = [resolver.member_value(value[1], attr) for other in resolver._local_class_nodes()
            if other is not cls and resolver._derives(other, cls)
            for value in (resolver.class_value(other),) if value and value[1]]
    if resolver.project is not None and own and own[1]:
        held += resolver.project.subclass_attributes(own[1], attr, inherited=True)
    return not any(value is not None and value[0] in K.TENSORS for value in held)


def _made_of_configuration(value: object, resolver: "Resolver", scope: Scope) -> bool:
    """``torch.tensor(cfg.sizes)`` itself (not a chain through other attributes, which could lead back here)."""
    return isinstance(value, ast.Call) and (
        resolver.qualname(value.func, scope) in _CONSTRUCTORS
        or (isinstance(value.func, ast.Attribute) and value.func.attr == "new_tensor")) \
        and _of_values(value, resolver, scope) and from_constants(value, resolver, scope)


def _shape_parameter(flow: tuple) -> bool:
    """A flow that is only a parameter declared a shape (``tensor_shape: torch.Size``): sizes its callers give
    (``torch.prod(torch.tensor(tensor_shape)).item()`` counts the elements of that shape), not values read from data."""
    binding = flow[1] if len(flow) > 1 else None
    if flow[0] != "parameter" or not isinstance(binding, Binding) or binding.tag != PARAM:
        return False
    annotation = getattr(binding.node, "annotation", None)
    return (isinstance(annotation, ast.Attribute) and annotation.attr == "Size") or (
        isinstance(annotation, ast.Name) and annotation.id == "Size")


def _of_values(call: ast.Call, resolver: "Resolver", scope: Scope) -> bool:
    """The constructor makes a tensor of the values it is given: ``torch.tensor(x)``, ``x.new_tensor(v)``, and the
    legacy ``torch.LongTensor([...])`` of a sequence (``torch.LongTensor(2)`` is two uninitialised elements)."""
    return resolver.qualname(call.func, scope) not in _LEGACY or (
        bool(call.args) and isinstance(call.args[0], _SEQUENCES))


_REGISTER = frozenset({"register_buffer", "register_parameter"})


def _class_state(resolver: "Resolver", scope: Scope) -> tuple[dict[str, list[str]], frozenset[str]]:
    """The attributes the class of the method ``scope`` registers (``self.register_buffer("x", ...)``: ``{x: the
    methods that do}``) and those a method other than ``__init__`` writes into in place (memoised per class)."""
    cls = enclosing_class(scope)
    if cls is None:
        return {}, frozenset()
    key = ("class state", id(cls))
    found = resolver._summaries.get(key)
    if found is None:
        found = resolver._summaries[key] = _scan_class(cls)
    return found   # type: ignore[return-value]


def _self_attribute(node: ast.AST, self_name: str) -> Optional[str]:
    """``x`` of ``self.x`` (through subscripts: ``self.x[i]``)."""
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name:
        return node.attr
    return None


def _methods(cls: ast.ClassDef) -> Iterator[tuple[Union[ast.FunctionDef, ast.AsyncFunctionDef], str]]:
    """The methods of ``cls`` that take a first parameter, with its name (``self``)."""
    for method in cls.body:
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.args.args:
            yield method, method.args.args[0].arg


def _scan_class(cls: ast.ClassDef) -> tuple[dict[str, list[str]], frozenset[str]]:
    registered: dict[str, list[str]] = {}
    written: set[str] = set()
    for method, me in _methods(cls):   # the calls first, then the assignments (a set: their order is free)
        for node in of_type(method, ast.Call):
            if isinstance(node.func, ast.Attribute):
                func = node.func
                if func.attr in _REGISTER and isinstance(func.value, ast.Name) and func.value.id == me and node.args \
                        and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                    registered.setdefault(node.args[0].value, []).append(method.name)
                elif method.name != "__init__" and func.attr.endswith("_") and not func.attr.startswith("_"):
                    attr = _self_attribute(func.value, me)   # ``self.occs.copy_(v)``, ``self.x[i].fill_(0)``
                    if attr is not None:
                        written.add(attr)
        if method.name == "__init__":
            continue
        for node in (*of_type(method, ast.Assign), *of_type(method, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:   # ``self.occs[idx] = v``; ``self.count += 1`` (a binding, too)
                if isinstance(target, ast.Subscript) or isinstance(node, ast.AugAssign):
                    attr = _self_attribute(target, me)
                    if attr is not None:
                        written.add(attr)
    return registered, frozenset(written)


def passes_data(resolver: "Resolver", call: ast.Call, flavour: str, scope: Scope) -> bool:
    """A project function's ``size_read`` read of a parameter (``host@mask@0``) is data at this call when the
    argument there is a tensor or carries a value read from one; a read of its own data always is."""
    if "@" not in flavour:
        return True
    _, parameter, position = flavour.split("@")
    argument = next((kw.value for kw in call.keywords if kw.arg == parameter), None)
    if argument is None and 0 <= int(position) < len(call.args) \
            and not any(isinstance(a, ast.Starred) for a in call.args[:int(position) + 1]):
        argument = call.args[int(position)]
    if argument is None or isinstance(argument, ast.Constant) or from_constants(argument, resolver, scope):
        return False   # ``stride=model.stride``: a buffer of the model, configuration
    kind = resolver.kind_of_at(argument, scope)
    if kind in K.TENSORS or any(f[0] != "random" for f in resolver.flows(argument, scope)):
        return True
    return kind is None and isinstance(argument, (ast.Name, ast.Subscript))   # ``mask``, ``batch["mask"]``: not
    # ``model.stride`` (an attribute of unknown kind: a setting as often as data) nor ``max(int(s), 32)``


_COUNT_METHODS = frozenset({"add_", "sub_", "fill_", "zero_"})
_NUMBER_FACTORIES = frozenset("torch." + name for name in ("zeros", "ones", "full", "scalar_tensor"))


def counter_state(node: ast.AST, resolver: "Resolver", scope: Scope) -> bool:
    """``self.steps`` of a class that keeps a count in a tensor: it sets it only to a tensor of host numbers
    (``torch.tensor([start + 1], device=d)``, ``torch.zeros(1)``, a ``register_buffer`` of one) and changes it only by
    constants (``self.steps += 1``, ``self.steps.add_(1)``, ``.zero_()``). A value read from it (``int(self.steps.item())``)
    is the step number, the same on every run whatever the data: a schedule, not the batch's values. (Sizes made
    from it still grow with the steps: this says what the count is, not that it stays fixed.)"""
    if not isinstance(node, ast.Attribute) or not _self(node.value, resolver, scope) or resolver.scopes is None:
        return False
    cls = enclosing_class(scope)
    if cls is None:
        return False
    key = ("counters", id(cls))
    counted = resolver._summaries.get(key)
    if counted is None:
        counted = resolver._summaries[key] = _scan_counts(cls)
    if node.attr not in counted[0] or node.attr in counted[1]:
        return False
    bindings = resolver.scopes.attribute(scope, node.attr)
    return all(b.tag == VALUE and not b.path and isinstance(b.value, ast.Call)
               and _of_numbers(b.value, resolver, b.scope) for b in bindings)


def _of_numbers(call: ast.Call, resolver: "Resolver", scope: Scope) -> bool:
    """``torch.tensor([n + 1])``, ``torch.zeros(1)``: a tensor of host numbers, no tensor among its arguments."""
    name = resolver.qualname(call.func, scope)
    if name not in _CONSTRUCTORS and name not in _NUMBER_FACTORIES:
        return False
    arguments = list(call.args) + [kw.value for kw in call.keywords if kw.arg not in ("device", "dtype")]
    return all(resolver.kind_of_at(a, scope) not in K.TENSORS and not resolver.flows(a, scope, sink=False)
               for a in arguments)


def _scan_counts(cls: ast.ClassDef) -> tuple[frozenset[str], frozenset[str]]:
    """The attributes a method advances by a constant (``self.x += 1``, ``self.x.add_(1)``) and those it writes
    otherwise in place (``self.x += n``, ``self.x[i] = v``, ``self.x.copy_(v)``)."""
    stepped: set[str] = set()
    written: set[str] = set()
    for method, me in _methods(cls):
        for node in walk(method):
            if isinstance(node, ast.AugAssign):
                attr = _self_attribute(node.target, me)
                if attr is not None:
                    constant = isinstance(node.target, ast.Attribute) and isinstance(node.op, (ast.Add, ast.Sub)) \
                        and isinstance(node.value, ast.Constant) and type(node.value.value) in (int, float)
                    (stepped if constant else written).add(attr)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    attr = _self_attribute(target, me) if isinstance(target, ast.Subscript) else None
                    if attr is not None:
                        written.add(attr)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr.endswith("_") and not node.func.attr.startswith("_"):
                attr = _self_attribute(node.func.value, me)
                if attr is None:
                    continue
                if node.func.attr in _COUNT_METHODS and all(isinstance(a, ast.Constant) for a in node.args) \
                        and not node.keywords and isinstance(node.func.value, ast.Attribute):
                    stepped.add(attr)
                elif node.func.attr == "copy_" and len(node.args) == 1 and isinstance(node.func.value, ast.Attribute) \
                        and _restored(node.args[0], method):
                    continue   # ``self.step.copy_(tensor(pkg["step"]))``: the count a checkpoint saved, put back
                else:
                    written.add(attr)
    return frozenset(stepped), frozenset(written)


def _checkpoint_load(node: ast.AST) -> bool:
    """``torch.load(path, ...)`` (written so: the module's own name)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "load" \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == "torch"


def _restored(value: ast.AST, method: ast.AST) -> bool:
    """A value read from a checkpoint the method loads (session 32, prec32): ``tensor(pkg["step"])`` or
    ``pkg["step"]`` with ``pkg = torch.load(path)`` in the method (an item of what ``torch.load`` returned, through
    ``tensor(...)`` / ``torch.tensor(...)``), or ``torch.load(...)[k]`` itself: the step count the run saved."""
    if isinstance(value, ast.Call) and len(value.args) == 1 and not isinstance(value.func, ast.Attribute) \
            or isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "tensor" \
            and len(value.args) == 1:
        value = value.args[0]
    if not isinstance(value, ast.Subscript):
        return False
    root = value.value
    if _checkpoint_load(root):
        return True
    if not isinstance(root, ast.Name):
        return False
    loaded = [n for n in walk(method) if isinstance(n, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == root.id for t in n.targets)]
    return bool(loaded) and all(_checkpoint_load(n.value) for n in loaded)

