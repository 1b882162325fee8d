"""Data flow of values read from tensors: the *may* query of the semantic model.

Value kinds (:mod:`npu_lint.analysis.kinds`) join the reaching bindings of a name by agreement; a question
such as "may this size have been read back from a tensor?" needs the union instead: some binding that may
reach the use (:meth:`npu_lint.analysis.scopes.Scopes.may_reach`: both arms of an ``if``, an ``if`` without
``else``, loop-carried values, ``n += v``) carries such a value. :meth:`Flows.flows` answers it for any
expression, through arithmetic, ``min`` / ``max`` / ``int`` / ``round``, tuples and their unpacking,
comprehensions, iteration, ``self.x`` bound in any method of the class, the parameters the file's own calls
fill, and what the file's own functions and methods return (a summary per function, computed once).

A flow is ``(flavour, source)``: the source expression and what it is:

- ``host``: a host scalar or list read from a tensor (``t.item()``, ``t.tolist()``, ``int(t)``);
- ``zero_d``: a 0-d tensor from a full reduction (``mask.sum()``, ``torch.sum(x)``): a size read back from the
  device as soon as it is used as one;
- ``element``: an element of a tensor iterated over (``for n in counts``);
- ``random``: a draw from ``random`` / ``numpy.random``;
- ``batch_max``: the maximum of the items' lengths or shapes (``max(len(s) for s in batch)``);
- ``data_size``: the length of a tensor whose shape depends on the data (``labels.unique().size(0)``,
  ``len(x[mask])``: :mod:`npu_lint.analysis.data_shapes`).

A mixin of :class:`npu_lint.resolver.Resolver` (it supplies ``value_of``, ``qualname``, ``scopes``).
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Callable, Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.appended_values import appended_values
from npu_lint.analysis.batch_extremes import (batch_extreme, items_maximum, longest_item, running_maximum,
                                              sorted_lengths_first)
from npu_lint.analysis.computed_tensors import computed_tensor
from npu_lint.analysis.configuration import collective_written, from_constants, numpy_made, passes_data
from npu_lint.analysis.data_shapes import data_shaped
from npu_lint.analysis.host_made import host_made
from npu_lint.analysis.index_forms import (constant_element, constant_index, counts, element_index,
                                           first_axis_of_shape, passed_argument)
from npu_lint.analysis.item_counts import counted_elements, untyped
from npu_lint.analysis.kept_reductions import kept_reduction
from npu_lint.analysis.loop_counters import counting_test
from npu_lint.analysis.range_bounds import range_count, range_element
from npu_lint.analysis.scopes import (AUGMENT, DEF, LOOP, PARAM, STAR, VALUE, Binding, Scope)
from npu_lint.analysis.summaries import IN_PROGRESS, MISSING, TRUNCATED, cycle_hit, memo, return_statements

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

HOST, ZERO_D, ELEMENT, RANDOM, BATCH_MAX = "host", "zero_d", "element", "random", "batch_max"
PICKED = "picked"   # an element picked by constants on two axes (``coors[-1, 0]``): data as a loop count
DATA_SIZE = "data_size"
# torch's random draws (``*_like`` follow their input's device; the others are made on the host unless ``device=``).
TORCH_DRAWS = frozenset("torch." + name for name in (
    "rand", "randn", "randint", "randperm", "bernoulli", "multinomial", "normal", "poisson", "rand_like",
    "randn_like", "randint_like"))
PARAMETER = "parameter"   # inside a function's summary: its own parameter, filled in from each call's argument
Flow = tuple[str, ast.AST]   # (flavour, source expression); a PARAMETER flow holds the parameter's Binding
_NONE: tuple[Flow, ...] = ()
_MAX_FLOWS = 6
_DEPTH = 30
_NESTING = 60
_HOST_METHODS = frozenset({"item", "tolist"})
# Seeded random generator objects, and the methods of theirs that draw a number (numpy's ``Generator`` and legacy
# ``RandomState``, Python's ``random.Random``); ``shuffle`` / ``permutation`` reorder, they size nothing.
_GENERATORS = frozenset({"numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.Generator",
                         "random.Random"})
GENERATOR_DRAWS = frozenset({"choice", "integers", "randint", "random", "uniform", "normal", "rand", "randn",
                              "random_integers", "random_sample", "randrange", "triangular", "beta", "gamma",
                              "poisson", "binomial", "exponential", "lognormal", "gauss", "standard_normal"})
_LIBRARIES = ("torch.", "numpy.", "math.", "builtins.", "pandas.")   # never a project helper
# Full reductions: without arguments they give a 0-d tensor.
ZERO_D_METHODS = frozenset({"sum", "count_nonzero", "max", "min", "amax", "amin", "argmax", "argmin", "prod"})
_REDUCTIONS = ZERO_D_METHODS | {"mean"}
_PYTHON_VALUES = ((K.HOST, K.PYTHON_NUMBER), (K.LIST, None))   # no tensor there: ``size.tolist()`` reads nothing
_TORCH_REDUCTIONS = frozenset("torch." + name for name in ZERO_D_METHODS)
# Calls that pass their arguments' values on (a size computed from a size).
_PASSING = frozenset({"min", "max", "int", "float", "round", "abs", "sum", "sorted", "list", "tuple", "divmod", "zip",
                      "math.ceil", "math.floor", "math.trunc", "math.sqrt", "math.prod", "numpy.ceil", "numpy.floor",
                      "numpy.round", "numpy.clip", "numpy.minimum", "numpy.maximum", "operator.index"})
# Methods that give a scalar an axis (the element or 0-d tensor becomes data, a vector of positions, no size).
_VECTOR_MAKING = frozenset({"reshape", "view", "flatten", "ravel", "unsqueeze", "expand", "repeat", "tile",
                            "unflatten", "reshape_as", "view_as", "expand_as"})
# Metadata: never a value read from the tensor's data.
METADATA_METHODS = frozenset({"size", "dim", "ndimension", "numel", "nelement", "element_size", "stride",
                              "get_device", "is_contiguous", "is_floating_point", "data_ptr", "__len__", "type"})
METADATA_ATTRIBUTES = frozenset({"shape", "dtype", "device", "ndim", "is_cuda", "layout", "requires_grad"})
_METADATA_CALLS = frozenset({"len", "isinstance", "hasattr", "getattr", "type", "id", "range", "print", "str", "repr",
                             "format", "bool"})
# Keyword arguments that carry no size.
_NO_SIZE_KEYWORDS = frozenset({"device", "dtype", "layout", "requires_grad", "pin_memory", "out", "generator",
                               "memory_format", "non_blocking", "dim", "keepdim"})


class Flows:
    """The may-query over reaching bindings (mixed into the Resolver)."""

    def flows(self: "Resolver", node: ast.AST, scope: Optional[Scope] = None, sink: bool = True,
              depth: int = 0) -> tuple[Flow, ...]:
        """The values read from tensors (or drawn at random, or batch maxima) that ``node`` may be computed
        from, at most a few, nearest first. ``sink``: ``node`` is used as a size where it stands, so a 0-d
        tensor anywhere in it counts (``x[:mask.sum() + 1]``); inside a binding only a 0-d tensor kept as a
        value does (``n = mask.sum()``, ``k = min(n, 5)``), not one mixed into tensor arithmetic."""
        if node is None or depth > _DEPTH or self.scopes is None or self._flow_nesting > _NESTING:
            if node is not None and self.scopes is not None:
                TRUNCATED[0] += 1
            return _NONE   # nesting: through bindings, summaries and calls, the Python stack stays bounded
        self._flow_nesting += 1
        try:
            return self._flows_of(node, scope or self.current, sink, depth)
        finally:
            self._flow_nesting -= 1

    def _flows_of(self: "Resolver", node: ast.AST, scope: Scope, sink: bool, depth: int) -> tuple[Flow, ...]:
        kind = type(node)
        if kind is ast.Name:
            found: list[Flow] = []
            for binding in self.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset)):
                found.extend(self.binding_flows(binding))
            return _unique(found)
        if kind is ast.Attribute:
            if node.attr in METADATA_ATTRIBUTES:
                if node.attr == "shape" and (extreme := longest_item(self, node.value, scope)) is not None:
                    return ((BATCH_MAX, extreme),)   # ``*longest.shape`` of the batch's longest item
                return ((DATA_SIZE, node),) if node.attr == "shape" and data_shaped(self, node.value, scope) else _NONE
            receiver = node.value
            if isinstance(receiver, ast.Name) and receiver.id == self.scopes.self_name(scope):
                found = []
                for binding in self.scopes.attribute(scope, node.attr):
                    found.extend(self.binding_flows(binding))
                return _unique(found)
            if isinstance(receiver, ast.Name) and receiver.id == self.scopes.ctx_name(scope) \
                    and self.kind_of_at(receiver, scope) == K.CTX:   # ``ctx.sizes`` set in forward, read in backward
                return _unique([f for b in self.scopes.ctx_attribute(scope, node.attr) for f in self.binding_flows(b)])
            return _NONE
        if kind in (ast.Call, ast.Subscript, ast.BinOp):
            found = self._composite_flows(node, scope, sink, depth + 1)
            if found and not sink and self.kind_of_at(node, scope) in K.TENSORS:
                # A tensor computed from a value (``x * n``, ``torch.arange(n)``, ``latents.to(dtype)``) is no
                # size; only a 0-d tensor kept as one (``num = mask.sum() * 0.5``) still is, and so is the
                # arithmetic of a batch maximum held in a 0-d tensor with plain numbers (``m - x.size(-1)`` of
                # ``m = lengths.amax()``: no operand a tensor that carries nothing).
                kept = (BATCH_MAX,) + _SCALARS if kind is ast.BinOp and not any(
                    self.kind_of_at(o, scope) in K.TENSORS and not self.flows(o, scope, sink, depth + 1)
                    for o in (node.left, node.right)) else _SCALARS
                found = tuple(f for f in found if f[0] in kept and f[1] is not node) or \
                    tuple(f for f in found if f[1] is node)
            return found
        if kind is ast.UnaryOp:
            return _NONE if isinstance(node.op, ast.Not) else self.flows(node.operand, scope, sink, depth + 1)
        if kind is ast.IfExp:
            return _unique([f for o in (node.body, node.orelse) for f in self.flows(o, scope, sink, depth + 1)])
        if kind in (ast.BoolOp, ast.Tuple, ast.List, ast.Set, ast.Dict):
            elements = node.values if kind in (ast.BoolOp, ast.Dict) else node.elts
            return _unique([f for e in elements for f in self.flows(e, scope, sink, depth + 1)])
        if kind in (ast.Starred, ast.NamedExpr, ast.Await):
            return self.flows(node.value, scope, sink, depth + 1)
        if kind in (ast.ListComp, ast.GeneratorExp, ast.SetComp):
            inner = self.scopes.open_expression_scope(node, scope)
            return self.flows(node.elt, inner, sink, depth + 1)
        return _NONE

    def _composite_flows(self: "Resolver", node: ast.AST, scope: Scope, sink: bool, depth: int) -> tuple[Flow, ...]:
        if type(node) is ast.Call:
            return self._call_flows(node, scope, sink, depth)
        if type(node) is ast.Subscript:
            shape = isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
            if shape and (extreme := longest_item(self, node.value.value, scope)) is not None:
                return ((BATCH_MAX, extreme),)  # ``longest.shape[0]``, ``longest = max(xs, key=len)``
            if shape and first_axis_of_shape(node) and data_shaped(self, node.value.value, scope):
                return ((DATA_SIZE, node),)     # ``labels.unique().shape[0]``: a count known once the op ran
            if not shape and sorted_lengths_first(self, node, scope):
                return ((BATCH_MAX, node),)     # ``input_lengths[0]`` of the items' lengths sorted longest first
            if not shape and (positions := range_element(self, node, scope)) is not None:
                return self._range_flows(positions, scope, sink, depth)   # ``starts[-1]`` of ``range(0, m, hop)``
            found = [] if shape else list(self.flows(node.value, scope, sink, depth))
            tensor = self.kind_of_at(node.value, scope) in K.TENSORS
            if not tensor:   # ``sizes[lvl]``: picked by a data value
                found.extend(f for f in self.flows(node.slice, scope, sink, depth) if f[0] != ZERO_D)
            if tensor and ((element_index(node.slice) and self.kind_of_at(node.slice, scope) not in K.TENSORS
                            and not from_constants(node.value, self, scope)) or (
                    constant_index(node.slice) and data_shaped(self, node.value, scope) is not None)):
                found.insert(0, (ELEMENT, node))   # ``lengths[i]``; ``ts[-1]`` of ``ts = x[x > t]``
            elif tensor and constant_index(node.slice) and computed_tensor(self, node.value, scope):
                found.insert(0, (ELEMENT, node))   # ``num_repeats[0]`` of ``torch.ceil(c * inv).long()``: data
            elif tensor and constant_element(node.slice) and not from_constants(node.value, self, scope):
                found.insert(0, (PICKED, node))    # ``coors[-1, 0]``: often metadata kept in a tensor (a shape)
            return _unique(found)
        operands = (node.left, node.right)
        found = [f for o in operands for f in self.flows(o, scope, sink, depth)]
        if not sink and any(f[0] in _SCALARS for f in found) and any(
                self.kind_of_at(o, scope) in K.TENSORS and not self.flows(o, scope, sink, depth) for o in operands):
            found = [f for f in found if f[0] not in _SCALARS]   # ``x * mask.sum()``: a tensor, not a size
        return _unique(found)

    def _range_flows(self: "Resolver", positions: ast.Call, scope: Scope, sink: bool, depth: int) -> tuple[Flow, ...]:
        """What the bounds of ``range(start, stop, step)`` carry (its count and its elements picked by a constant)."""
        return _unique([f for a in positions.args for f in self.flows(a, scope, sink, depth)])

    def flow_of(self: "Resolver", node: ast.AST, flavours: tuple[str, ...],
                scope: Optional[Scope] = None) -> Optional[Flow]:
        """The first flow of one of ``flavours`` that ``node``, used as a size where it stands, may carry."""
        return next((f for f in self.flows(node, scope) if f[0] in flavours), None)

    def kind_of_at(self: "Resolver", node: ast.AST, scope: Scope) -> Optional[str]:
        value = self.value_of(node, scope)
        return value[0] if value else None

    def binding_flows(self: "Resolver", binding: Binding) -> tuple[Flow, ...]:
        """What a binding may carry (memoised; a cycle through the same binding carries nothing more)."""
        key = (id(binding), id(self._summarising[-1])) if self._summarising else id(binding)
        cached = self._flows.get(key, MISSING)   # memo()'s answer for a key it holds, without a closure
        if cached is not MISSING:
            if cached is IN_PROGRESS:
                cycle_hit(self._flows, key)
                return _NONE
            return cached or _NONE
        return memo(self._flows, key, lambda: self._binding_flows(binding)) or _NONE

    def _binding_flows(self: "Resolver", binding: Binding) -> tuple[Flow, ...]:
        tag, scope, value = binding.tag, binding.scope, binding.value
        if tag in (VALUE, AUGMENT):
            if binding.path:
                return self._element_flows(value, scope, binding.path)
            found = self.flows(value, scope, sink=False)
            if not found and tag == VALUE and kept_reduction(self, value, scope):
                return ((ZERO_D, value),)   # ``max_len = ilens.max()`` of a parameter: a 0-d tensor kept as a size
            if not found and tag == VALUE and type(value) is ast.Name and running_maximum(self, binding):
                return ((BATCH_MAX, binding.node),)   # ``if n > longest: longest = n``, ``n = ids[-1].size(0)``
            if not found and tag == AUGMENT and counting_test(self, binding) is not None:
                return ((HOST, binding.node),)   # ``count += 1`` under ``if keep[i]:`` or in a loop the data ends
            if tag == VALUE and _builds_list(value):   # ``shape = list(x.shape); shape[dim] = n``: n is in it
                stored = [f for v in self.stored_values(binding) + appended_values(self, binding)
                          for f in self.flows(v, scope, sink=False)]   # ``sizes.append(int(n))`` too
                return _unique(list(found) + stored) if stored else found
            return found
        if tag == LOOP:
            return self._iteration_flows(value, scope, binding.path)
        if tag == PARAM:
            if binding.node is not None and self._open_parameter(binding):
                return ((PARAMETER, binding),)   # summarising its function (or a closure in it): each call fills it in
            return self._argument_flows(binding)
        return _NONE

    def _element_flows(self: "Resolver", value: ast.AST, scope: Scope, path: tuple[int, ...]) -> tuple[Flow, ...]:
        """``a, b = value``: the element at ``path`` (of a literal tuple, or of what the file's function returns)."""
        index = path[0]
        if isinstance(value, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in value.elts):
            if index == STAR or index >= len(value.elts):
                return _NONE
            element = value.elts[index]
            return self._element_flows(element, scope, path[1:]) if path[1:] else self.flows(element, scope, False)
        if isinstance(value, ast.Call) and index != STAR:
            callee = self._own_function(value, scope)
            if callee is not None:
                return self._at_call(value, callee, self.returned_element_flows(callee[0], path), scope)
        return self.flows(value, scope, sink=False)

    def _iteration_flows(self: "Resolver", source: ast.AST, scope: Scope, path: tuple[int, ...]) -> tuple[Flow, ...]:
        """``for target in source``: the elements of a list read from a tensor, or of a tensor itself."""
        found = self.iterated(source, scope, path)
        if found is None:
            return _NONE
        source, path = found
        if isinstance(source, ast.Call) and self.qualname(source.func, scope) == "range":
            return _NONE   # ``for i in range(n)``: an index, the loop count is the rule's business
        found = [f for f in self.flows(source, scope, sink=False) if f[0] != ZERO_D]
        if not found and not path and (self.kind_of_at(source, scope) in (K.TENSOR, K.MASK)
                                       or self.copied_back(source, scope)) \
                and not from_constants(source, self, scope):   # ``for s in self.strides``: configuration
            found = [(ELEMENT, source)]
        if not found and not path and type(source) is ast.Name and self._gathered(source, scope):
            found = [(ELEMENT, source)]   # ``for n in sizes`` after ``dist.all_gather(sizes, n)``: every rank's sizes
        return _unique(found)

    def _gathered(self: "Resolver", name: ast.Name, scope: Scope) -> bool:
        """A list of tensors a collective filled (``dist.all_gather(sizes, size)``): each item is another rank's."""
        binding = self.binding(name, scope)
        return binding is not None and binding.tag == VALUE and collective_written(binding, self)

    def copied_back(self: "Resolver", node: ast.AST, scope: Scope, depth: int = 0) -> bool:
        """A host tensor copied from a device tensor the code computed (``lengths = mask.sum(-1).cpu()``, also
        through a parameter some call of the file fills with one): its values were read back, and each one used
        as a size is a new shape on the device (a reader's tensor or a factory's is no such copy)."""
        if depth > 4 or self.scopes is None or self.value_of(node, scope) not in ((K.HOST, K.CPU_TENSOR), (K.HOST, None), None):
            return False
        if isinstance(node, ast.Name):
            for binding in self.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset)):
                if binding.tag == VALUE and not binding.path and isinstance(binding.value, ast.AST) \
                        and self.copied_back(binding.value, binding.scope, depth + 1):
                    return True
                if binding.tag == PARAM and binding.node is not None \
                        and isinstance(binding.scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    for call, at, offset in self.call_sites(binding.scope.node):
                        passed = passed_argument(call, binding.scope.node, binding.node, offset)
                        if passed is not None and self.copied_back(passed, at, depth + 1):
                            return True
            return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args:
            receiver = node.func.value
            if node.func.attr == "cpu":   # a receiver the model cannot type (``net(x).cpu()``) is taken as a tensor
                kind = self.kind_of_at(receiver, scope)   # too: ``.cpu()`` of no module's value (session 21)
                return (kind in K.TENSORS or kind is None and isinstance(receiver, (ast.Call, ast.Subscript))) \
                    and not from_constants(receiver, self, scope)
            if node.func.attr in ("long", "int", "detach", "clone", "contiguous"):
                return self.copied_back(receiver, scope, depth + 1)
        return False

    def numpy_read_back(self: "Resolver", receiver: ast.AST, scope: Scope) -> bool:
        """The receiver of ``.numpy()`` holds values the code computed on the device: a host copy of one
        (:meth:`copied_back`: ``boxes.trunc().int().cpu()``), through ``detach`` / dtype casts. ``.numpy()`` then
        reads every value back, as ``.tolist()`` does; a reader's or a factory's host tensor (``torch.from_numpy``,
        ``read_image``), configuration and numpy's own arrays are no such read."""
        while isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute) and not receiver.args \
                and receiver.func.attr in ("detach", "long", "int", "float", "double", "half", "contiguous", "clone",
                                           "squeeze", "flatten"):
            if self.copied_back(receiver, scope):
                return True
            receiver = receiver.func.value
        return self.copied_back(receiver, scope)

    def _argument_flows(self: "Resolver", binding: Binding) -> tuple[Flow, ...]:
        """A parameter: what the file's own calls of its function pass to it."""
        function, arg = binding.scope.node, binding.node
        if arg is None or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return _NONE
        found: list[Flow] = []
        for call, scope, offset in self.call_sites(function):
            passed = passed_argument(call, function, arg, offset)
            if passed is not None:
                found.extend(self.flows(passed, scope, sink=False))
        return _unique(found)

    def parameters_reaching(self: "Resolver", node: ast.AST, function: ast.AST, scope: Scope) -> tuple[Binding, ...]:
        """The parameters of ``function`` that ``node`` (used as a size inside it, in ``scope``) may be computed
        from: the summary "this parameter is a size", which a call fills in with its argument."""
        def compute() -> tuple[Flow, ...]:
            return tuple(f for f in self.flows(node, scope) if f[0] == PARAMETER and f[1].scope.node is function)
        return tuple(flow[1] for flow in self._summarise(function, compute))

    def own_function(self: "Resolver", call: ast.Call, scope: Optional[Scope] = None) -> Optional[tuple[ast.AST, int]]:
        """The file's own function or method a call runs, and how many leading parameters it fills implicitly."""
        return self._own_function(call, scope or self.current)

    def _own_function(self: "Resolver", call: ast.Call, scope: Scope) -> Optional[tuple[ast.AST, int]]:
        """The file's own function or method a call runs (``helper(x)``, ``self.helper(x)``), and how many
        leading parameters the call fills implicitly."""
        func = call.func
        if isinstance(func, ast.Name):
            binding = self.binding(func, scope)
            return (binding.value, 0) if binding is not None and binding.tag == DEF else None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if self.scopes is not None and func.attr not in self.defined_names():
                return None   # no function of the file has the name: whatever ``callee`` finds is no match
            method = self.callee(call, scope)
            if method is not None and getattr(method[0], "name", None) == func.attr:
                return method
        return None

    def _open_parameter(self: "Resolver", binding: Binding) -> bool:
        """A parameter of a function being summarised, or of a function enclosing it (a closure reads it)."""
        if not self._summarising:
            return False
        function = binding.scope.node
        if function in self._summarising:
            return True
        current = self.scopes.scope_of(self._summarising[-1])
        while current is not None:
            if current.node is function:
                return True
            current = current.parent
        return False

    def _at_call(self: "Resolver", call: ast.Call, callee: tuple[ast.AST, int], summary: tuple[Flow, ...],
                 scope: Scope) -> tuple[Flow, ...]:
        """A function's summary at one call: its parameters replaced by what this call passes to them (those of
        an enclosing function stay open while it is summarised, else take what its callers pass)."""
        found: list[Flow] = []
        for flow in summary:
            if flow[0] != PARAMETER:
                found.append(flow)
                continue
            binding = flow[1]
            if binding.scope.node is callee[0]:
                passed = passed_argument(call, callee[0], binding.node, callee[1])
                if passed is not None:
                    found.extend(self.flows(passed, scope, sink=False))
            elif self._open_parameter(binding):
                found.append(flow)
            else:
                found.extend(self._argument_flows(binding))
        return _unique(found)

    def _call_flows(self: "Resolver", node: ast.Call, scope: Scope, sink: bool, depth: int) -> tuple[Flow, ...]:
        source = self.source_flow(node, scope, sink)
        if source is not None:
            return (source,)
        func = node.func
        callee = self._own_function(node, scope)
        if callee is not None:
            return self._at_call(node, callee, self.returned_flows(callee[0]), scope)
        name = self.qualname(func, scope)
        if name is not None and self.project is not None and not name.startswith(_LIBRARIES):
            flavour = self.project.returned_size_read(name, self.module_name)
            if flavour and passes_data(self, node, flavour, scope):   # ``n = count_fg(mask)`` of another module
                flavour = flavour.split("@")[0]                         # returning ``int(mask.sum())``; an element
                return (((ZERO_D if flavour == ELEMENT else flavour), node),)   # returned: a 0-d tensor here
        if isinstance(func, ast.Name) and func.id in _METADATA_CALLS and name is None:
            if (positions := range_count(self, node, scope)) is not None:
                return self._range_flows(positions, scope, sink, depth)   # ``len(range(0, m, hop))``
            if func.id == "len" and len(node.args) == 1 and data_shaped(self, node.args[0], scope):
                return ((DATA_SIZE, node),)
            if func.id == "len" and len(node.args) == 1 and (extreme := longest_item(self, node.args[0], scope)):
                return ((BATCH_MAX, extreme),)
            return _NONE
        if isinstance(func, ast.Attribute) and name is None:
            if func.attr == "size" and (extreme := longest_item(self, func.value, scope)) is not None:
                return ((BATCH_MAX, extreme),)
            if func.attr in METADATA_METHODS:
                if counts(node) and data_shaped(self, func.value, scope):
                    return ((DATA_SIZE, node),)     # ``idx.size(0)`` of ``mask.nonzero()``
                return _NONE
            receiver = self.flows(func.value, scope, sink, depth)
            if receiver and func.attr in _VECTOR_MAKING:   # ``grid[i].reshape(-1)``: a tensor with an axis, no size
                receiver = tuple(f for f in receiver if f[0] not in _SCALARS) or _NONE
            if receiver:
                return receiver
        arguments = list(node.args) + [kw.value for kw in node.keywords if kw.arg not in _NO_SIZE_KEYWORDS]
        passing = (isinstance(func, ast.Name) and func.id in _PASSING and name is None) or name in _PASSING
        found = [f for a in arguments for f in self.flows(a, scope, sink, depth)]
        if not passing and not sink:
            found = [f for f in found if f[0] != ZERO_D]   # ``torch.exp(mask.sum())``: a tensor, no size
        return _unique(found)

    def source_flow(self: "Resolver", node: ast.Call, scope: Optional[Scope] = None,
                    sink: bool = True) -> Optional[Flow]:
        """``t.item()``, ``t.tolist()``, ``int(t.sum())`` (host), ``mask.sum()`` / ``torch.sum(x)`` (a 0-d
        tensor), ``random.choice(...)`` (random), ``max(len(s) for s in batch)`` (batch maximum)."""
        scope = scope or self.current
        func = node.func
        if batch_extreme(self, node, scope):   # before the host and 0-d reads: ``int(lengths.max())``
            return BATCH_MAX, node
        if items_maximum(node) and not from_constants(node.args[0].elt, self, scope):
            return HOST, node   # ``max(ex["src_map"].max() for ex in batch)``: each comparison reads a tensor
        if isinstance(func, ast.Name) and func.id in ("max", "min", "sum") and len(node.args) == 1 and not node.keywords \
                and self.binding(func, scope) is None and (self.kind_of_at(node.args[0], scope) in K.TENSORS or (
                    func.id == "max" and self.kind_of_at(node.args[0], scope) is None
                    and untyped(self, node.args[0], scope))) \
                and not from_constants(node.args[0], self, scope):
            return ZERO_D, node   # ``max(lengths)`` of a tensor: its largest element, compared on the host (``sum``
                                  # of a tensor's slice, ``sum(g.batch_num_nodes()[a:b])``: a 0-d tensor too)
        if isinstance(func, ast.Name) and func.id == "sum" and len(node.args) == 1 and not node.keywords \
                and counted_elements(self, node.args[0], scope):
            return ZERO_D, node   # ``sum([length > t for length in lengths])``: a count of a tensor's elements
        if isinstance(func, ast.Attribute) and func.attr in _HOST_METHODS and not node.args:
            if from_constants(func.value, self, scope) or numpy_made(func.value, self, scope) \
                    or self.value_of(func.value, scope) in _PYTHON_VALUES:
                return None   # ``torch.tensor(config.depths).cumsum(0).tolist()``: configuration, not data;
                              # ``np.argsort(strides).tolist()``: a numpy array's, no device read
            return HOST, node
        if isinstance(func, ast.Attribute) and func.attr == "numpy" and not node.args and not node.keywords \
                and self.qualname(func, scope) is None and self.numpy_read_back(func.value, scope):
            return HOST, node   # ``boxes.cpu().numpy()``: the detector's values on the host, as ``.tolist()`` reads
        if isinstance(func, ast.Name) and func.id in ("int", "float", "round") and len(node.args) == 1:
            value = node.args[0]
            if isinstance(value, ast.Compare):   # ``int(len(xs) % bs != 0)``: a Python bool unless a side is a tensor
                if self.kind_of_at(value, scope) in K.TENSORS and any(   # not ``int(mask is not None)``
                        self.kind_of_at(o, scope) in K.TENSORS for o in (value.left, *value.comparators)):
                    return HOST, node
                return None
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                    and value.func.attr in _REDUCTIONS and from_constants(value.func.value, self, scope) \
                    or isinstance(value, (ast.Subscript, ast.Attribute, ast.Name)) and from_constants(value, self, scope):
                return None   # ``int(self.stride.max())``, ``int(self.strides[0])``: the model's own state or
                              # configuration, not data
            if host_made(self, value, scope) and self.qualname(value.func, scope) not in TORCH_DRAWS:
                return None   # ``int(torch.div(h, 2, rounding_mode="floor"))`` of shape numbers: arithmetic on
                              # host numbers done by torch, its value known without the data
            if self.kind_of_at(value, scope) in K.TENSORS or (
                    isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                    and value.func.attr in _REDUCTIONS and not value.args[1:]
                    and self.qualname(value.func, scope) is None   # not np.min(...)
                    and self.kind_of_at(value.func.value, scope) != K.HOST):   # nor an array's (``isinstance``)
                return HOST, node
            return None
        if isinstance(func, ast.Name) and func.id in ("list", "tuple") and len(node.args) == 1 and not node.keywords \
                and self.binding(func, scope) is None and self.kind_of_at(node.args[0], scope) in K.TENSORS \
                and not from_constants(node.args[0], self, scope):
            return HOST, node   # ``list(mask.sum(1))``: the tensor's elements, each read where used as a number
        if isinstance(func, ast.Attribute) and func.attr in ZERO_D_METHODS and not node.args and not node.keywords:
            receiver = self.kind_of_at(func.value, scope)
            if self.qualname(func, scope) is None and not from_constants(func.value, self, scope) and (
                    receiver in K.TENSORS or isinstance(func.value, ast.Compare)
                    or (sink and receiver not in (K.HOST, K.LIST))):
                return ZERO_D, node
            return None
        if isinstance(func, ast.Attribute) and func.attr in GENERATOR_DRAWS and self.random_generator(func.value, scope):
            return RANDOM, node   # ``self.rng.uniform(a, b)`` of ``self.rng = np.random.default_rng(seed)``
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name):
            return None
        name = self.qualname(func, scope)
        if name is None:
            return None
        if name in _TORCH_REDUCTIONS and len(node.args) == 1 and not node.keywords:
            return None if from_constants(node.args[0], self, scope) else (ZERO_D, node)   # ``torch.sum(x)``
        if name.startswith(("random.", "numpy.random.")) and name != "random.seed" \
                and not name.endswith(("seed", "RandomState", "default_rng", "Generator")):
            return RANDOM, node
        return None

    def random_generator(self: "Resolver", node: ast.AST, scope: Scope) -> bool:
        """``node`` holds a seeded random generator object: numpy's (``np.random.default_rng(seed)``,
        ``RandomState(seed)``, ``Generator(PCG64())``) or Python's (``random.Random(seed)``), bound to a name of the
        function or to an attribute of ``self`` (every binding the model finds for it makes one)."""
        if isinstance(node, ast.Name):
            binding = self.binding(node, scope)
            values = [(binding.value, binding.scope)] if binding is not None and binding.tag == VALUE \
                and not binding.path else []
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and self.scopes is not None \
                and node.value.id == self.scopes.self_name(scope):
            values = [(b.value, b.scope) for b in self.scopes.attribute(scope, node.attr)
                      if b.tag == VALUE and not b.path]
        else:
            return False
        return bool(values) and all(isinstance(v, ast.Call) and self.qualname(v.func, s) in _GENERATORS
                                    for v, s in values)

    def returned_flows(self: "Resolver", function: ast.AST) -> tuple[Flow, ...]:
        """The summary "returns a value read from a tensor": what any of the function's returns may carry,
        with ``(PARAMETER, arg)`` for what it returns of its own parameters (each call fills those in)."""
        def compute() -> tuple[Flow, ...]:
            scope = self.scopes.scope_of(function) if self.scopes else None
            if scope is None:
                return _NONE
            return _unique([f for r in return_statements(function) if r.value is not None
                            for f in self.flows(r.value, scope, sink=False)])
        return memo(self._summaries, ("flows", id(function)), lambda: self._summarise(function, compute)) or _NONE

    def _summarise(self: "Resolver", function: ast.AST, compute: Callable[[], tuple[Flow, ...]]) -> tuple[Flow, ...]:
        self._summarising.append(function)
        try:
            return compute()
        finally:
            self._summarising.pop()

    def returned_element_flows(self: "Resolver", function: ast.AST, path: tuple[int, ...]) -> tuple[Flow, ...]:
        """``a, (b, c) = helper()``: what the element at ``path`` of the tuples the function returns may carry."""
        def compute() -> tuple[Flow, ...]:
            scope = self.scopes.scope_of(function) if self.scopes else None
            if scope is None:
                return _NONE
            found: list[Flow] = []
            for statement in return_statements(function):
                if statement.value is not None:
                    found.extend(self._element_flows(statement.value, scope, path))
            return _unique(found)
        return memo(self._summaries, ("element flows", id(function), path),
                    lambda: self._summarise(function, compute)) or _NONE


def _builds_list(value: ast.AST) -> bool:
    """``[...]``, ``[... for ...]``, ``list(...)``, ``xs.copy()``: a new list whose elements the function may then
    set (``counts = self.counts.copy()`` then ``counts[i] = keep.sum().item()``)."""
    return type(value) in (ast.List, ast.ListComp) or (
        type(value) is ast.Call and type(value.func) is ast.Name and value.func.id == "list") or (
        type(value) is ast.Call and type(value.func) is ast.Attribute and value.func.attr == "copy"
        and not value.args and not value.keywords)


_SCALARS = (ZERO_D, ELEMENT, PICKED)   # 0-d tensors: a sum, an element picked (``lengths[k] + 1`` is still a size)


def _unique(found: list[Flow]) -> tuple[Flow, ...]:
    seen: dict[int, Flow] = {}
    for flow in found:
        seen.setdefault(id(flow[1]), flow)
        if len(seen) >= _MAX_FLOWS:
            break
    return tuple(seen.values())
