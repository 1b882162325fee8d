"""The semantic model every rule asks: what a name refers to and what a value is.

Built once per file (:meth:`Resolver.attach`: scopes and bindings from :mod:`npu_lint.analysis.scopes`),
then answered lazily and memoised: qualified names through imports and namespace aliases
(:meth:`qualname`, :mod:`npu_lint.analysis.name_lookup`), value kinds (:meth:`value_of`, :meth:`kind_of`,
:mod:`npu_lint.analysis.kinds`) from constructors, factories, methods, operators, annotations, ``self.x`` bindings in any method, loops
over loaders, the bases of classes and the return values of the file's own functions (summaries,
computed once per function). The walk tells it which scope it is in (``enter_function`` / ``enter_class``
/ ``leave_scope``); nothing else is fed in order, so a binding anywhere in the module is known everywhere.
"""
from __future__ import annotations

import ast
from typing import Optional, Protocol, Union

from npu_lint.analysis import kinds as K
from npu_lint.analysis.summaries import (COMPUTING, CYCLES, IN_PROGRESS, MISSING, TRUNCATED, Summaries, cycle_hit,  # noqa: F401  (re-exported)
                                        memo, return_statements)
from npu_lint.analysis.configuration import configured
from npu_lint.analysis.declared import Declared
from npu_lint.analysis.nodes import of_type as _of_type, walk as _walk
from npu_lint.analysis.scalars import counted_number, length_call, python_draw, scalar
from npu_lint.analysis.flows import Flows
from npu_lint.analysis.call_values import _DTYPE_NAMES, FACTORY_NAMES, CallValues, moves
from npu_lint.analysis.callables import Callables
from npu_lint.analysis.elements import Elements
from npu_lint.analysis.receivers import Receivers
from npu_lint.analysis.step_growth import StateReads, StepGrowth
from npu_lint.analysis.training_steps import TrainingSteps
from npu_lint.analysis.index_uses import attribute_used_as_index, used_as_index
from npu_lint.analysis.usage import copies_of, used_as_mask, used_as_tensor
from npu_lint.analysis.name_lookup import NameLookup
from npu_lint.analysis.packed import FIELDS as PACKED_FIELDS, packed_sequence
from npu_lint.analysis.scalars import moved_to_host
from npu_lint.analysis.scopes import IMPORT, LOOP, PARAM, VALUE, ANNOTATION, WITH, Binding, Scope, Scopes

TENSOR, LOADER, BATCH, MASK = K.TENSOR, K.LOADER, K.BATCH, K.MASK
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_DEPTH = 40
_UNKNOWN = object()   # a value not computed yet (None is a value: unknown)
_DEFAULT_KINDS = frozenset({K.MODULE, K.OPTIMIZER, K.SCHEDULER, K.SCALER, K.LOADER, K.DATASET, K.SAMPLER})
_MODULE_CONTAINERS = frozenset({"torch.nn.ModuleList", "torch.nn.ModuleDict", "torch.nn.Sequential"})
_PARAMETER_CONTAINERS = frozenset({"torch.nn.ParameterDict", "torch.nn.ParameterList"})
_PANDAS_INDEXERS = frozenset({"loc", "iloc"})
# torch factories that make a tensor on the default device from sizes (or from Python data: ``torch.tensor(xs)``).
_HOST_FACTORIES = FACTORY_NAMES - {"bernoulli", "multinomial", "normal"}
# Methods that keep a tensor where it is (a cast, a copy, a view): ``.to`` only when it moves nothing.
_HOST_KEEPING = frozenset({"to", "type", "float", "long", "int", "bool", "double", "half", "clone", "detach",
                           "contiguous", "view", "reshape", "unsqueeze", "squeeze"})
_LOADER_PARTS = {"dataset": K.DATASET, "sampler": K.SAMPLER, "batch_sampler": K.SAMPLER}


class ProjectFacts(Protocol):
    """What the project index answers about names defined in other modules of the project."""

    def value_of_call(self, qualname: str, importer: str) -> Optional[K.Value]: ...

    def class_value(self, qualname: str, importer: str) -> Optional[K.Value]: ...

    def method_owner(self, cls: str, method: str) -> Optional[tuple[str, ...]]: ...

    def element_of_call(self, qualname: str, importer: str, index: int) -> Optional[K.Value]: ...

    def element_of_method(self, cls: str, method: str, index: int) -> Optional[K.Value]: ...

    def value_of_method(self, cls: str, method: str) -> Optional[K.Value]: ...

    def attribute_value(self, cls: str, attr: str) -> Optional[K.Value]: ...

    def field_verdict(self, attr: str) -> Optional[str]: ...

    def class_field_verdict(self, cls: str, attr: str) -> Optional[str]: ...

    def argument_value(self, function: str, name: str, position: Optional[int]) -> Optional[K.Value]: ...

    def overrides(self, cls: str, method: str) -> list[Optional[K.Value]]: ...

    def returned_size_read(self, qualname: str, importer: str) -> str: ...

    def defines_method(self, cls: str, method: str) -> bool: ...

    def external(self, qualname: str, importer: str) -> Optional[str]: ...

    def used_elsewhere(self, qualname: str, module: str) -> bool: ...

    def compares_unknowns(self, qualname: str, importer: str, depth: int = 0) -> bool: ...

    def subclass_attributes(self, cls: str, attr: str, inherited: bool = False) -> list[Optional[K.Value]]: ...

    def defines_class(self, cls: str) -> bool: ...

    def absolute(self, qualname: str, importer: str) -> Optional[str]: ...

    def host_only_function(self, qualname: str, importer: str) -> bool: ...

    def kernel_language(self, qualname: str, importer: str) -> Optional[str]: ...

    def attribute_default(self, cls: str, attr: str) -> object: ...


_PLACING = frozenset(K.MOVES) | {"cpu", "numpy", "tolist", "item"}   # calls that change where a value lives


def _arms(function: ast.AST) -> list[tuple[int, int]]:
    """The line ranges of the ``if`` arms and exception handlers of a function."""
    spans = []
    for node in _walk(function):
        blocks = [node.body, node.orelse] if isinstance(node, ast.If) else \
            [handler.body for handler in node.handlers] if isinstance(node, ast.Try) else []
        for block in blocks:
            if block:
                spans.append((block[0].lineno, block[-1].end_lineno or block[-1].lineno))
    return spans


def _conditional(moved: ast.Name, binding: Binding, function: ast.AST) -> bool:
    """The move runs only under a condition the binding is not under (``if mode == "cpu": x = x.cuda()`` after an
    OOM fallback): on the other path the value never needed moving, so it is no evidence it lived on the host."""
    where = getattr(binding.node, "lineno", None) or getattr(binding.value, "lineno", None) or 0
    return any(first <= moved.lineno <= last and not first <= where <= last for first, last in _arms(function))


def _placed(value: ast.AST, resolver: "Resolver", scope: Scope) -> bool:
    """The expression says where its tensor lives: a ``device=`` keyword, a move (``.to(d)``, ``.cuda()``), or
    ``torch.tensor(t)`` / ``torch.as_tensor(t)`` of a tensor (which keeps ``t`` where it is, wherever that is)."""
    for node in _walk(value):
        if not isinstance(node, ast.Call):
            continue
        if any(k.arg == "device" for k in node.keywords):
            return True
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in K.MOVES and moves(node, resolver, scope):
            return True
        if node.args and resolver.qualname(func, scope) in ("torch.tensor", "torch.as_tensor"):
            data = resolver.value_of(node.args[0], scope)
            if data is None or data[0] in K.TENSORS:
                return True
    return False


def _from_placed(value: ast.AST, resolver: "Resolver", scope: Scope) -> bool:
    """``ids.clone()``, ``ids.detach().long()``: a tensor method chain whose root is a local name that one binding, a
    move or a factory given a device (``ids = batch[1].to(device)``), puts on the device where the chain reads it."""
    root = value
    while True:
        if isinstance(root, ast.Call) and isinstance(root.func, ast.Attribute) and root.func.attr in _COPIES:
            root = root.func.value
        elif isinstance(root, ast.Subscript):
            root = root.value
        else:
            break
    if root is value or not isinstance(root, ast.Name):
        return False
    source = resolver.binding(root, scope)
    if source is None or source.tag != VALUE or source.path or not isinstance(source.value, ast.AST) \
            or source.scope is not scope:
        return False
    return _placed(source.value, resolver, scope)


# Methods that copy or view a tensor where it lives (``labels = ids.clone()``).
_COPIES = frozenset({"clone", "detach", "long", "int", "float", "contiguous", "view", "reshape", "flatten"})


class Resolver(NameLookup, Declared, Receivers, Summaries, Flows, Callables, Elements, CallValues, StepGrowth, StateReads,
               TrainingSteps):
    """Scopes, bindings and value kinds of one module (what annotations declare, receivers that ``isinstance`` tests,
    base classes and overrides tell, summaries of its functions and classes, the data flow of values read from
    tensors, calls through callables chosen at run time and steps that grow their input: the mixins)."""

    def __init__(self) -> None:
        self.scopes: Optional[Scopes] = None
        self._stack: list[Scope] = []
        self.project: Optional[ProjectFacts] = None
        self.module_name = ""
        self._qualnames: dict[ast.AST, tuple[str, ...]] = {}
        self._names_shared: dict[tuple[str, ...], tuple[str, ...]] = {}   # the distinct answers of ``_qualnames``
        self._values: dict[int, object] = {}
        self._answers: dict[tuple, Optional[K.Value]] = {}   # value_of asked from outside: (node, scope, walk's scope)
        self._flows: dict[object, object] = {}
        self.data_shaped_memo: dict[tuple, object] = {}   # analysis.data_shapes.data_shaped's answers, per file
        self._summarising: list[ast.AST] = []   # the functions whose flow summaries are being computed
        self._flow_nesting = 0
        self._inner: dict[tuple[ast.AST, Scope, Scope], tuple[Optional[K.Value], int]] = {}   # expressions asked inside
        self._host_chain = 0   # torch ops of host tensors followed one inside another (call_values)
        self._summaries: dict[tuple[str, int], object] = {}
        self._kept: list[ast.AST] = []
        self._call_index: Optional[dict[int, list[tuple[ast.Call, Scope, int]]]] = None
        self._adders: Optional[dict[int, list[tuple[ast.Call, Scope]]]] = None   # ``xs.append(v)`` by binding of xs
        self._local_classes: dict[str, ast.ClassDef] = {}
        self._frames: Optional[bool] = None   # the file imports pandas/polars (memo of has_frames)
        self._parents: dict[str, str] = {}   # a project class -> its base (a project class or a torch class)
        self.source: Optional[str] = None   # the module's text, when the caller has it (finds nested calls fast)
        self._nested: set[str] = set()   # the function names whose calls inside expressions are indexed
        self._call_lines: Optional[object] = None   # where calls by name are (call_lines.CallLines), built once
        self._usage: dict[int, object] = {}   # a function's names called with tensor-only methods (analysis.usage)
        self._mask_usage: dict[object, object] = {}   # a function's names used as boolean masks (analysis.usage)
        self._numpy_reads: dict[int, list[ast.Name]] = {}   # a function's names given to ``.numpy()`` / ``np.asarray``
        self._moves_of: dict[int, tuple[ast.Call, ...]] = {}   # a moved name (``_moved_names``) -> its move
        # aspect_resizes.thumbnail_before's ``x.thumbnail(...)`` statements per scope (None: not yet searched; False:
        # the file has none)
        self.thumbnails: Union[None, bool, dict[int, dict[str, list[ast.Expr]]]] = None

    # -- building ------------------------------------------------------------------------
    def attach(self, tree: ast.AST, scopes: Optional[Scopes] = None) -> None:
        """Bind every name of ``tree`` (one pass over its statements; ``scopes``: already bound, by the project
        index build); the walk then enters its scopes."""
        self.scopes = scopes if scopes is not None else Scopes(tree)
        self._stack = [self.scopes.module]
        self._inner.clear()
        self.data_shaped_memo.clear()

    def close(self) -> None:
        """Free the model (its scopes hold reference cycles): for callers that build many in a row."""
        if self.scopes is not None:
            self.scopes.close()
        self.scopes, self._stack = None, []
        self._qualnames.clear()
        self._names_shared.clear()
        self._values.clear()
        self._inner.clear()
        self._answers.clear()
        self._flows.clear()
        self.data_shaped_memo.clear()
        self._summarising.clear()
        self._summaries.clear()
        self._call_index = None
        self._nested.clear()
        self._call_lines = None
        self._adders = None
        self._local_classes.clear()
        self._usage.clear()
        self._mask_usage.clear()
        self._numpy_reads.clear()
        self._moves_of.clear()
        self._frames = None

    def has_frames(self) -> bool:
        """The file imports pandas or polars, whose frames and series also have ``eq``/``gt``/... methods."""
        if self._frames is None:
            self._frames = any(v.split(".")[0] in ("pandas", "polars", "modin") for v in self.file_imports().values())
        return self._frames

    def file_imports(self) -> dict[str, str]:
        """Every import of the module, in any scope, as ``name -> qualified name`` (a later import of a name wins):
        the file-wide view the project index's facts resolve names with, read from the model's bindings."""
        found: list[tuple[tuple[int, int], str, str]] = []
        for scope in (self.scopes.by_node.values() if self.scopes is not None else ()):
            for name, bindings in scope.names.items():
                found.extend((b.pos, name, b.value) for b in bindings if b.tag == IMPORT)
        imports = {"torch": "torch"}
        imports.update((name, value) for _, name, value in sorted(found, key=lambda item: item[0]))
        return imports

    # -- the walk's position ---------------------------------------------------------------
    @property
    def current(self) -> Scope:
        if not self._stack:   # used without a tree: an empty module
            self.attach(ast.Module(body=[], type_ignores=[]))
        return self._stack[-1]

    def enter_function(self, node: ast.AST) -> None:
        """A function, lambda or comprehension: its scope becomes the current one until ``leave_scope``."""
        scope = self.scopes.scope_of(node) if self.scopes else None
        self._stack.append(scope or self._open(node))

    def enter_class(self, node: Optional[ast.AST] = None) -> None:
        scope = self.scopes.scope_of(node) if (self.scopes and node is not None) else None
        self._stack.append(scope or Scope("class", node, self.current))

    def _open(self, node: ast.AST) -> Scope:
        if self.scopes is not None and isinstance(node, (ast.Lambda,) + _COMPREHENSIONS):
            return self.scopes.open_expression_scope(node, self.current)
        return Scope("function", node, self.current)

    def leave_scope(self) -> None:
        if len(self._stack) > 1:
            self._stack.pop()

    # -- values --------------------------------------------------------------------------
    def kind_of(self, node: ast.AST) -> Optional[str]:
        """``tensor``, ``mask``, ``batch``, ``host``, ``module``, ``optimizer``, ``loader``, ... or None."""
        value = self.value_of(node)
        return value[0] if value else None

    def class_of(self, node: ast.AST) -> Optional[str]:
        """The qualified class of an instance (``torch.optim.Adam``; ``torch.nn.Module`` for a project model)."""
        value = self.value_of(node)
        return value[1] if value else None

    def is_tensor(self, node: ast.AST) -> bool:
        return self.kind_of(node) in K.TENSORS

    def configured(self, node: ast.AST, scope: Optional[Scope] = None) -> bool:
        """A tensor whose values the code fixes, the same every batch (``torch.tensor(cfg.sizes)``, a tensor of
        shapes, ``~torch.eye(n, dtype=torch.bool)``, a comparison of such tensors): ``analysis/configuration.py``."""
        return configured(node, self, scope or self.current)

    def is_batch(self, node: ast.AST) -> bool:
        """A value taken from a data loader (``for images, labels in loader``)."""
        return self.kind_of(node) == BATCH

    def is_host(self, node: ast.AST) -> bool:
        """A numpy / pandas array, a Python list or a tensor moved to the CPU."""
        value = self.value_of(node)
        return value is not None and (value[0] in (K.HOST, K.LIST) or value == K.STR)

    def value_of(self, node: ast.AST, scope: Optional[Scope] = None, depth: int = 0) -> Optional[K.Value]:
        """What ``node`` is where it stands in ``scope`` (default: the walk's). A question asked from outside the
        model's own computations (depth 0, no summary or memoised value under way: nothing half-computed can
        be read) is answered once per node, scope and walk position: rules ask the same nodes again."""
        if depth or COMPUTING[0] or self._summarising or self._flow_nesting:
            kind = type(node)
            if kind is ast.Name or kind is ast.Constant:   # names: their bindings' values are memoised
                return self._value_of(node, scope, depth)
            current = self.current   # an expression asked again inside one question (``d.get(k)[0]`` asks its
            key = (node, scope or current, current)   # receiver from several places): answered once (the objects as
            known = self._inner.get(key)   # the key, not their ids: no int made per question)
            if known is not None and (known[1] < 0 or depth >= known[1]):
                return known[0]
            truncated, cycles = TRUNCATED[0], CYCLES[0]
            value = self._value_of(node, scope, depth)
            if CYCLES[0] == cycles:   # not from a cycle's provisional None; cut short: kept for as deep or deeper
                self._inner[key] = (value, -1 if TRUNCATED[0] == truncated else depth)
            return value
        current = self.current   # in the key too: a question inside may default to the walk's scope
        key = (node, scope or current, current)
        answer = self._answers.get(key, _UNKNOWN)
        if answer is _UNKNOWN:
            answer = self._answers[key] = self._value_of(node, key[1], 0)
        return answer

    def _value_of(self, node: ast.AST, scope: Optional[Scope] = None, depth: int = 0) -> Optional[K.Value]:
        if depth > _DEPTH or node is None:
            if node is not None:
                TRUNCATED[0] += 1
            return None
        scope = scope or self.current
        kind = type(node)
        if kind is ast.Name:
            if self.scopes is None:
                return None
            bindings = self.scopes.lookup_reaching(node.id, scope, (node.lineno, node.col_offset))
            if len(bindings) == 1:
                value = self.binding_value(bindings[0], depth + 1)
            else:
                value = K.join([self.binding_value(b, depth + 1) for b in bindings]) if bindings else None
            if value is not None and value[0] == K.HOST and all(moved_to_host(b) for b in bindings):
                value = self._device_arm(node, scope, value, depth)
            if scope.narrowed or scope.kind == "comprehension" or scope.kind == "lambda":   # else no test to ask
                return self._narrowed(node, scope, value, bindings)
            return value
        if kind is ast.Attribute:
            return self._attribute_value(node, scope, depth + 1)
        if kind is ast.Call:
            return self._call_value(node, scope, depth + 1)
        if kind is ast.Compare:
            if isinstance(node.ops[0], (ast.Is, ast.IsNot, ast.In, ast.NotIn)) or len(node.ops) != 1:
                return None
            if any(isinstance(o, ast.Constant) and isinstance(o.value, str) for o in (node.left, *node.comparators)):
                return K.HOST, None   # ``df.kind == 'car'``: tensors are not compared with strings
            if any(isinstance(o, ast.Constant) and o.value is None for o in (node.left, *node.comparators)):
                return None   # ``x == None``: a tensor gives Python's ``False`` (no element is read), not a mask
            operands = [self.value_of(o, scope, depth + 1) for o in (node.left, *node.comparators)]
            operands = [(K.HOST, K.PYTHON_NUMBER) if v is None and python_draw(o, self, scope) else v
                        for o, v in zip((node.left, *node.comparators), operands)]   # ``random() < p``: a Python bool
            if any(v is not None and v[0] == K.HOST for v in operands):
                if any(v == (K.HOST, K.CPU_TENSOR) for v in operands) \
                        or not any(v is not None and v[0] in K.TENSORS for v in operands):
                    return K.HOST, None   # (``angles > self.angle``, ``self.angle = np.radians(a)``: a tensor
                return K.MASK, None       # beside a numpy number is compared by torch: a mask; beside a CPU
                #                           tensor it is on the CPU too)
            if all(scalar(o, v) or (isinstance(o, ast.BinOp) and self._scalar_arithmetic(o, scope, depth + 1))
                   or ((v is None or v[0] not in K.TENSORS) and counted_number(o, self, scope))
                   for o, v in zip((node.left, *node.comparators), operands)):
                return None   # ``n == 0`` with ``n: int``, ``n_step % cfg.k == 0`` of a counter: a Python bool
                #               (``x > t`` with ``t: float`` stays a mask; so does ``batch_idx == b`` of a counter)
            if not any(v is not None and v[0] in K.TENSORS for v in operands) \
                    and any(length_call(o) for o in (node.left, *node.comparators)):
                return None   # ``len(words) == start + n``: a Python bool
            return K.MASK, None
        if kind is ast.BinOp:
            return self._binop_value(node, scope, depth + 1)
        if kind is ast.UnaryOp:
            if isinstance(node.op, ast.Not):
                return None
            value = self.value_of(node.operand, scope, depth + 1)
            if value is None and isinstance(node.op, ast.Invert) and not isinstance(node.operand, ast.Constant):
                return K.MASK, None   # ``~keep``: inverting a value of unknown kind is a mask's operation
            return value
        if kind is ast.Subscript:
            value = self.value_of(node.value, scope, depth + 1)
            if value is None or value[0] == K.LIST:   # ``outs[0]``: an element of a sequence (elements.py)
                return self.subscript_element(node, scope, depth + 1)
            if value[0] in (K.TENSOR, K.BATCH):
                return K.TENSOR, None
            if value[0] == K.MODULE:   # ``self.blocks[i]``: a module of its own class; ``params[k]``: a tensor
                if value[1] in _PARAMETER_CONTAINERS:
                    return K.TENSOR, None
                return (K.MODULE, None) if value[1] in _MODULE_CONTAINERS else None
            if value == (K.HOST, K.HOST_ENCODING):   # ``enc["input_ids"]``: a field, a tensor made on the CPU
                index = node.slice
                return (K.HOST, K.CPU_TENSOR) if isinstance(index, ast.Constant) and isinstance(index.value, str) \
                    else None
            return value if value[0] in (K.MASK, K.HOST) else None
        if kind in (ast.List, ast.ListComp):
            return K.LIST, None
        if kind is ast.IfExp:   # ``GradScaler() if amp else None``: a scaler where it is used
            arms = [arm for arm in (node.body, node.orelse) if not (isinstance(arm, ast.Constant) and arm.value is None)]
            return K.join([self.value_of(arm, scope, depth + 1) for arm in arms])
        if kind in (ast.NamedExpr, ast.Await):
            return self.value_of(node.value, scope, depth + 1)
        if kind is ast.JoinedStr or (kind is ast.Constant and isinstance(node.value, str)):
            return K.STR
        return None

    def _device_arm(self, node: ast.Name, scope: Scope, value: K.Value, depth: int) -> Optional[K.Value]:
        """``if mode == "cpu": x = x.cpu()`` (an OOM fallback) with ``x`` a device tensor on the path that skips the
        arm: what those other bindings say (the path an NPU port runs), else the host value."""
        others = [b for b in self.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset))
                  if not moved_to_host(b)]
        if not others:
            return value
        other = K.join([self.binding_value(b, depth + 1) for b in others])
        return other if other is None or other[0] in K.TENSORS else value

    def binding_value(self, binding: Binding, depth: int = 0) -> Optional[K.Value]:
        key = id(binding)
        cached = self._values.get(key, MISSING)   # memo()'s answer for a key it holds, without a closure
        if cached is not MISSING:
            if cached is IN_PROGRESS:
                cycle_hit(self._values, key)
                return None
            return cached
        return memo(self._values, key, lambda: self._binding_value(binding, depth))

    def _binding_value(self, binding: Binding, depth: int) -> Optional[K.Value]:
        tag, scope = binding.tag, binding.scope
        if tag == VALUE:
            if binding.path:
                value = self._element(binding.value, scope, binding.path, depth)
                if self._moved_after(binding, value):
                    return (K.HOST, K.CPU_TENSOR)
                if value is None:
                    value = self._declared(binding)
                if value is None and self._used_as_mask(binding):
                    return K.MASK, None   # ``(d, i), keep = self.pick(m)``, then ``x[~keep]`` in its own body
                return value
            value = self.value_of(binding.value, scope, depth)
            if value is None and isinstance(binding.node, ast.AnnAssign):   # ``opt: Optimizer = build(...)``
                return self.annotation_value(binding.node.annotation, scope)
            if value is None:   # ``out: Tensor`` declared alone, then ``out = search(...)``
                value = self._declared(binding)
            if value is None and used_as_index(self, binding):   # ``idx = inputs["idx"]``, then ``scatter(x, idx)``
                return K.TENSOR, None
            if (value is None or value == (K.TENSOR, None)) and self._used_as_mask(binding):
                return K.MASK, None   # ``valid = torch.cat(valids)``, then ``torch.logical_and(t >= 0, valid)``
            if value is not None and value[0] in K.TENSORS and (self._read_as_numpy(binding)
                                                                or self._made_then_moved(binding)):
                return K.HOST, K.CPU_TENSOR   # ``out = torch.ones(n, m)`` ... ``out.numpy()``: a CPU tensor
            if self._moved_after(binding, value):
                return K.HOST, K.CPU_TENSOR   # ``labels = ids.clone()`` ... ``labels = labels.to(device)``
            return value
        if tag == ANNOTATION:
            return self.annotation_value(binding.value, scope)
        if tag == PARAM:
            if binding.name == scope.self_name and scope.cls is not None and _instance_method(scope.node):
                return self.class_value(scope.cls.node)   # ``self`` in a method: an instance of its class
            if self.autograd_ctx(binding, scope):   # ``ctx`` of ``MyFn.forward(ctx, x)``: ``ctx.save_for_backward``
                return K.CTX, K.FUNCTION_CTX
            arg = binding.node
            if arg is not None and arg.annotation is not None:
                value = self.annotation_value(arg.annotation, scope.parent or scope)
                if value == (K.TENSOR, None):   # ``valid_mask: Tensor``: the file's callers may say it is a mask,
                    passed = self._argument_value(binding, depth)   # or its own code (``x.masked_fill(m, 0)``)
                    if passed is not None and passed[0] == K.MASK or self._used_as_mask(binding):
                        return K.MASK, None
                    return value
                if value is not None:
                    return value
            default = binding.value
            if default is not None and not (isinstance(default, ast.Constant) and default.value is None):
                value = self.value_of(default, scope.parent or scope, depth)
                if value is not None and value[0] == K.DEVICE:
                    return value
                if value is not None and value[0] in _DEFAULT_KINDS:   # ``loss=nn.MSELoss()``: a caller may pass
                    passed = self._argument_value(binding, depth)         # another module, still a module
                    return passed if passed is not None and passed[0] == value[0] else (value[0], None)
            passed = self._argument_value(binding, depth)
            if (passed is None or passed == (K.TENSOR, None)) and self._used_as_mask(binding):
                return K.MASK, None   # ``prob.masked_fill(~mask, 0)`` in its own body: a boolean mask
            if passed is None and self._used_as_tensor(binding):   # ``lengths.unsqueeze(1)`` in its own body
                passed = K.TENSOR, None
            if passed is None and self.iterated_by_training(binding):   # ``for data in X: ... loss.backward();
                return K.LOADER, None                                     # opt.step()``: X yields batches
            if passed is not None and passed[0] in (K.TENSOR, K.MASK) and self._moved_after(binding, passed):
                return K.HOST, K.CPU_TENSOR   # ``def f(audio): rms = audio.pow(2).mean() ... audio.to(device)``
            return passed
        if tag == LOOP:
            return self._iter_element(binding.value, scope, binding.path, depth)
        if tag == WITH and not binding.path:   # ``with torch.profiler.profile() as prof``: ``__enter__`` gives itself
            value = self.value_of(binding.value, scope, depth)
            return value if value is not None and value[0] == K.INSTANCE else None
        return None

    def _own_attribute_join(self, bindings: list[Binding], attr: str, depth: int) -> Optional[K.Value]:
        """What ``self.attr`` holds in any method: the join of its bindings, where a binding that updates it from
        itself (``self.seqlen = self.seqlen[self.flag]``, a cycle the model cannot value) takes the kind the other
        bindings agree on when that is a tensor's (a mask stays one through indexing and mask-keeping methods)."""
        values = [self.binding_value(b, depth) for b in bindings]
        if len(values) == 1 or None not in values:
            return K.join(values)
        kept = [v for b, v in zip(bindings, values) if v is not None or not self._wraps_itself(b, attr)]
        if len(kept) < len(values) and kept and None not in kept:
            # ``self.model, self.opt = self.accelerator.prepare(self.model, self.opt)``: the attribute handed back
            # wrapped for the devices holds what its other bindings give it
            return K.join(kept)
        updates = [_self_update(b, attr) if v is None else None for b, v in zip(bindings, values)]
        others = [v for v, u in zip(values, updates) if u is None]
        if not others or len(others) == len(values):
            return K.join(values)
        joined = K.join(others)
        if joined is None or joined[0] not in K.TENSORS:
            return K.join(values)
        if joined[0] == K.MASK and all(u in (None, K.MASK) for u in updates):
            return joined
        return K.TENSOR, None

    def _wraps_itself(self, binding: Binding, attr: str) -> bool:
        """``self.opt`` bound by ``self.model, self.opt = accelerator.prepare(self.model, self.opt)`` (or
        ``self.opt = accelerator.prepare(self.opt)``): the call hands the attribute itself back (passed_through)."""
        call, self_name = binding.value, binding.scope.self_name
        if binding.tag != VALUE or not isinstance(call, ast.Call) or self_name is None or len(binding.path) > 1:
            return False
        passed = self.passed_through(call, binding.scope)
        index = binding.path[0] if binding.path else 0
        if passed is None or (not binding.path and len(passed) != 1) or not isinstance(index, int) \
                or not 0 <= index < len(passed):
            return False
        arg = passed[index]
        return isinstance(arg, ast.Attribute) and arg.attr == attr and isinstance(arg.value, ast.Name) \
            and arg.value.id == self_name

    def _declared(self, binding: Binding) -> Optional[K.Value]:
        """What a bare declaration of the name in the same function says it holds (``distances: Tensor`` alone,
        then ``distances, idx = index.search(q, k)``): Python's annotation of a local holds for its every
        binding; None without one (or with several that disagree)."""
        if binding.scope.kind != "function":
            return None
        declared = [b for b in binding.scope.names.get(binding.name, ()) if b.tag == ANNOTATION]
        if not declared:
            return None
        values = {self.annotation_value(b.value, binding.scope) for b in declared}
        return values.pop() if len(values) == 1 else None

    def _used_as_tensor(self, binding: Binding) -> bool:
        function = binding.scope.node
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        return used_as_tensor(function, binding.name, self._usage, lambda node: self.binding(node, binding.scope)
                              is binding, self.source) or used_as_index(self, binding)

    def _read_as_numpy(self, binding: Binding) -> bool:
        """The tensor ``binding`` gives its name is read with ``name.numpy()`` / ``np.asarray(name)`` /
        ``np.array(name)`` (this binding reaching): these raise on a device tensor, so the value is on the CPU (not
        ``.tolist()`` / ``.item()``, which read a device tensor back)."""
        function = binding.scope.node
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        names = self._numpy_reads.get(id(function))
        if names is None:
            names = []
            for node in _of_type(function, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute) and func.attr == "numpy" and isinstance(func.value, ast.Name) \
                        and not node.args and not node.keywords:
                    names.append(func.value)
                elif len(node.args) == 1 and isinstance(node.args[0], ast.Name) and isinstance(func, ast.Attribute) \
                        and func.attr in ("asarray", "array") and isinstance(func.value, ast.Name) \
                        and self.qualname(func, binding.scope) in ("numpy.asarray", "numpy.array"):
                    names.append(node.args[0])
            if id(function) in self._numpy_results():   # ``f(x).numpy()`` in this file: what ``f`` returns
                names += [node.value for node in _of_type(function, ast.Return) if isinstance(node.value, ast.Name)]
            self._numpy_reads[id(function)] = names
        return any(name.id == binding.name and self._derived_from(name, binding) for name in names)

    def _moved_after(self, binding: Binding, value: Optional[K.Value]) -> bool:
        """A tensor (or a value of unknown kind the function uses as a tensor: ``x.shape``, ``x.sum()``) that its
        function moves to the device later (``labels = ids.clone()`` ... ``labels = labels.to(device)``; a parameter
        ``audio`` ... ``audio = audio.to(device)``; not a cast): until that move it lives on the host, and so do
        the values computed from it there. A loader's batch keeps its kind (what it holds is asked elsewhere)."""
        function = binding.scope.node
        if self.scopes is None or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        if value is not None and value[0] not in (K.TENSOR, K.MASK):
            return False
        moved = [name for name in self._moved_names(function, binding.scope) if name.id == binding.name]
        if not moved:
            return False   # asked first: the moves of a function are found once, the other questions per binding
        if value is None and not (self._used_as_tensor(binding) or self._torch_operand(binding, function)):
            return False
        if binding.tag == VALUE and isinstance(binding.value, ast.AST) and _placed(binding.value, self, binding.scope):
            return False   # made with ``device=``, moved already, or ``torch.as_tensor(t)`` keeping ``t`` where it is
        if binding.tag == VALUE and not binding.path and _from_placed(binding.value, self, binding.scope):
            return False   # ``ids = batch[1].to(device)``, ``labels = ids.clone()``: a copy of a device tensor (the
            #                later ``labels.to(device)`` moves nothing)
        moved = [name for name in moved if not self._aligned(name) and not _conditional(name, binding, function)]
        return bool(moved) and any(self._reaches_move(name, binding) for name in moved)

    def _aligned(self, name: ast.Name) -> bool:
        """``x.to(y.device)`` / ``x.to(device=y.device)``: put beside another tensor, wherever that lives (a way back
        after a ``.cpu()``, an alignment of operands): no evidence that ``x`` was on the host."""
        found = self._moves_of.get(id(name))
        if not found:
            return False
        call = found[0]
        targets = list(call.args[:1]) + [k.value for k in call.keywords if k.arg == "device"]
        return any(isinstance(t, ast.Attribute) and t.attr == "device" and self._beside(t.value) for t in targets)

    def _beside(self, owner: ast.AST) -> bool:
        """The owner of a ``.device`` is a tensor (or a value of unknown kind that is not ``self``): ``x.to(y.device)``
        aligns ``x`` with ``y``; ``x.to(self.device)`` / ``x.to(model.device)`` is a move to the accelerator."""
        if isinstance(owner, ast.Name) and self.scopes is not None and owner.id == self.scopes.self_name(self.current):
            return False
        value = self.value_of(owner)
        return value is None or value[0] in K.TENSORS

    def _torch_operand(self, binding: Binding, function: ast.AST) -> bool:
        """The binding's value is handed to a torch function (``torch.mean(audio)``; not ``torch.nn.*``, whose
        classes take configuration) where it reaches: a tensor."""
        key = ("torch operands", id(function))   # the function's calls by the name of their first argument, once
        memo = self._summaries.get(key)
        if memo is None or memo[0] is not function:   # type: ignore[index]
            found: dict[str, list[ast.Call]] = {}
            for node in _walk(function):
                if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name):
                    found.setdefault(node.args[0].id, []).append(node)
            memo = self._summaries[key] = (function, found)
        for node in memo[1].get(binding.name, ()):   # type: ignore[index]
            name = self.qualname(node.func, binding.scope)
            if name is not None and name.startswith("torch.") and not name.startswith("torch.nn.") \
                    and binding in self.scopes.lookup_reaching(binding.name, binding.scope,
                                                               (node.args[0].lineno, node.args[0].col_offset)):
                return True
        return False

    def _reaches_move(self, moved: ast.Name, binding: Binding) -> bool:
        """``binding`` may reach the moved name ``moved``, directly or through rebindings of the name that keep the
        value where it is (``audio = torch.mean(audio, 0)``, ``audio = audio * k``, ``x = x[:, :n]``, in ``if``
        arms too; not a move, ``.cpu()`` or ``.numpy()``)."""
        scope, name = binding.scope, binding.name
        uses, seen, found = [moved], set(), False
        for _ in range(8):
            following: list[ast.Name] = []
            for use in uses:
                for reaching in self.scopes.may_reach(name, scope, (use.lineno, use.col_offset)):
                    if moved_to_host(reaching):
                        return False   # ``if force_cpu: x = x.cpu()`` ... ``x.to(boxes.device)``: the way back;
                        #                on the path that skips the ``.cpu()`` the value stays on the device
                    if reaching is binding:
                        found = True
                        continue
                    if id(reaching) in seen or reaching.tag != VALUE or reaching.path \
                            or not isinstance(reaching.value, ast.AST):
                        continue
                    seen.add(id(reaching))
                    names = [n for n in _walk(reaching.value) if isinstance(n, ast.Name) and n.id == name]
                    if names and not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                                         and n.func.attr in _PLACING for n in _walk(reaching.value)):
                        following.extend(names)
            if not following:
                return found
            uses = following
        return found

    def _made_then_moved(self, binding: Binding) -> bool:
        """``labels = torch.full((n, m), -100)`` (a factory told no device), filled, then ``labels.to(device)``: the
        value is made on the host and lives there until that move (the moved value is a device tensor)."""
        call = binding.value
        if not isinstance(call, ast.Call) or any(k.arg == "device" for k in call.keywords):
            return False
        name = self.qualname(call.func, binding.scope)
        if name is None or not name.startswith("torch.") or name.rpartition(".")[2] not in _HOST_FACTORIES:
            return False
        if name.rpartition(".")[2] in ("tensor", "as_tensor") and call.args:
            data = self.value_of(call.args[0], binding.scope)   # ``torch.as_tensor(t)`` keeps ``t`` where it is
            if data is None or data[0] in K.TENSORS:
                return False
        function = binding.scope.node
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        if any(name.id == binding.name and self._derived_from(name, binding)
               for name in self._moved_names(function, binding.scope)):
            return True
        positions = self._moved_results().get(id(function))   # ``padded, lens = pad(xs)``, then ``lens.to(device)``
        if not positions:
            return False
        for node in _walk(function):
            if isinstance(node, ast.Return) and node.value is not None:
                returned = [(-1, node.value)] if isinstance(node.value, ast.Name) else \
                    list(enumerate(node.value.elts)) if isinstance(node.value, ast.Tuple) else []
                if any(position in positions and isinstance(value, ast.Name) and value.id == binding.name
                       and self._derived_from(value, binding) for position, value in returned):
                    return True
        return False

    def moved_later(self, node: ast.Name) -> bool:
        """The tensor ``node`` reads is moved to the device later in its function (``labels = ids.clone()``, written
        through a mask, then ``labels = labels.to(device)``): where ``node`` stands it still lives on the host."""
        scope = self.current
        function = scope.node
        if self.scopes is None or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        bindings = self.scopes.lookup_reaching(node.id, scope, (node.lineno, node.col_offset))
        if len(bindings) != 1:
            return False
        if bindings[0].tag == VALUE and not bindings[0].path and _from_placed(bindings[0].value, self, bindings[0].scope):
            return False   # a copy of a tensor the function put on the device: the later move moves nothing
        return any(moved.id == node.id and (moved.lineno, moved.col_offset) > (node.lineno, node.col_offset)
                   and self._derived_from(moved, bindings[0]) for moved in self._moved_names(function, scope))

    def made_on_host(self, node: ast.Name, scope: Optional[Scope] = None, depth: int = 0) -> bool:
        """The tensor ``node`` reads was made by a torch factory told no device (``x = torch.randn(8)``,
        ``labels = torch.full((n,), -100)``, ``w = torch.ones(n) * weight``; not ``torch.tensor(t)`` of a tensor):
        it lives on the CPU. So is a cast, a copy or a comparison of such tensors (``target = (target >
        0.5).to(torch.float32)``, ``t = target.clone()``)."""
        if self.scopes is None or depth > 4:
            return False
        bindings = self.scopes.lookup_reaching(node.id, scope or self.current, (node.lineno, node.col_offset))
        if len(bindings) != 1 or bindings[0].tag != VALUE or bindings[0].path:
            return False
        call = bindings[0].value
        if isinstance(call, ast.AST) and self._host_derived(call, bindings[0].scope, depth):
            return True
        while isinstance(call, ast.BinOp):   # ``w = torch.ones(n) * weight``: arithmetic keeps the factory's
            left = call.left                   # CPU tensor on the CPU (a 1-d CPU tensor takes no device operand)
            call = left if isinstance(left, ast.Call) or isinstance(left, ast.BinOp) else call.right
        if not isinstance(call, ast.Call) or any(k.arg == "device" for k in call.keywords):
            return False
        name = self.qualname(call.func, bindings[0].scope)
        if name is None or not name.startswith("torch.") or name.rpartition(".")[2] not in _HOST_FACTORIES:
            return False
        if name.rpartition(".")[2] in ("tensor", "as_tensor") and call.args:
            data = self.value_of(call.args[0], bindings[0].scope)
            return data is not None and data[0] not in K.TENSORS
        return True

    def _host_derived(self, value: ast.AST, scope: Scope, depth: int) -> bool:
        """``(t > 0.5).to(torch.float32)``, ``t.clone()``, ``~t``: computed only from tensors made on the host (names
        :meth:`made_on_host` answers) and constants, by casts, copies and comparisons, never moved."""
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _HOST_KEEPING:
            if value.func.attr in K.MOVES and moves(value, self, scope):
                return False
            return self._host_operand(value.func.value, scope, depth)
        if isinstance(value, ast.Compare):
            sides = (value.left, *value.comparators)
            return any(not isinstance(s, ast.Constant) for s in sides) \
                and all(self._host_operand(s, scope, depth) for s in sides)
        if isinstance(value, ast.UnaryOp):
            return self._host_operand(value.operand, scope, depth)
        return False

    def _host_operand(self, node: ast.AST, scope: Scope, depth: int) -> bool:
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            return self.made_on_host(node, scope, depth + 1)
        return isinstance(node, (ast.Call, ast.Compare, ast.UnaryOp)) and depth < 4 \
            and self._host_derived(node, scope, depth + 1)

    def _moved_names(self, function: ast.AST, scope: Scope) -> list[ast.Name]:
        """The names ``function`` moves: ``x.to(device)``, ``x.cuda()``, ``x.npu()`` (not a cast)."""
        key = -id(function)
        moved = self._numpy_reads.get(key)
        if moved is None:
            calls = [(root, node) for node in _of_type(function, ast.Call)
                     if isinstance(node.func, ast.Attribute)
                     and node.func.attr in K.MOVES and (root := _kept_root(node.func.value)) is not None
                     and moves(node, self, scope)]
            moved = [root for root, _ in calls]
            for root, node in calls:
                self._moves_of[id(root)] = (node,)
            self._numpy_reads[key] = moved
        return moved

    def _moved_results(self) -> dict[int, set[int]]:
        """The file's functions whose result (-1) or tuple element (its index) a caller binds and then moves:
        ``padded, lens, mask = padding(xs)`` ... ``lens = lens.to(device)`` (built once a file)."""
        found = self._numpy_reads.get(1)
        if found is None:
            found = {}
            for statement, scope in (self.scopes.statements if self.scopes is not None else ()):
                if not isinstance(statement, ast.Assign) or len(statement.targets) != 1 \
                        or not isinstance(statement.value, ast.Call) or not isinstance(statement.value.func, ast.Name):
                    continue
                definition = self.definition(statement.value.func, scope)
                caller = scope.node
                if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                        or not isinstance(caller, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                target = statement.targets[0]
                targets = [(-1, target)] if isinstance(target, ast.Name) else \
                    list(enumerate(target.elts)) if isinstance(target, ast.Tuple) else []
                for position, name in targets:
                    if isinstance(name, ast.Name) and any(
                            moved.id == name.id and any(b.node is statement for b in self.scopes.lookup_reaching(
                                moved.id, scope, (moved.lineno, moved.col_offset)))
                            for moved in self._moved_names(caller, scope)):
                        found.setdefault(id(definition), set()).add(position)
            self._numpy_reads[1] = found   # type: ignore[assignment]
        return found   # type: ignore[return-value]

    def _derived_from(self, name: ast.Name, binding: Binding) -> bool:
        """``binding`` reaches ``name``, or a binding that reaches it derives from ``binding``'s by operations that keep
        a tensor where it is (``out = out[:, :n]``, ``out = out.long()``; not ``.to`` / ``.cuda`` / ``.npu``)."""
        for _ in range(4):
            reaching = self.scopes.lookup_reaching(name.id, binding.scope, (name.lineno, name.col_offset))
            if binding in reaching:
                return True
            if len(reaching) != 1 or reaching[0].tag != VALUE or reaching[0].path:
                return False
            source = reaching[0].value
            while isinstance(source, (ast.Subscript, ast.Call, ast.Attribute)):
                if isinstance(source, ast.Call):
                    func = source.func
                    if not isinstance(func, ast.Attribute) or func.attr in K.MOVES or func.attr == "type":
                        return False
                    source = source.func
                source = source.value
            if not isinstance(source, ast.Name) or source.id != binding.name:
                return False
            name = source
        return False

    def _numpy_results(self) -> set[int]:
        """The file's functions whose result a statement reads with ``f(...).numpy()`` (built once a file)."""
        found = self._numpy_reads.get(0)
        if found is None:
            found = set()
            for call, scope in (self.scopes.calls if self.scopes is not None else ()):
                func = call.func
                if isinstance(func, ast.Attribute) and func.attr == "numpy" and isinstance(func.value, ast.Call) \
                        and isinstance(func.value.func, ast.Name) and not call.args:
                    definition = self.definition(func.value.func, scope)
                    if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        found.add(id(definition))
            self._numpy_reads[0] = found   # type: ignore[assignment]
        return found   # type: ignore[return-value]

    def _used_as_mask(self, binding: Binding) -> bool:
        function = binding.scope.node
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False

        def refers(node: ast.Name) -> bool:   # the use's binding, or one in another arm of its ``if`` chain
            return self.binding(node, binding.scope) is binding or binding in self.scopes.lookup_reaching(
                node.id, binding.scope, (node.lineno, node.col_offset))   # (``if c: k = f()`` / ``else: k = g()``)
        qualname = lambda func: self.qualname(func, binding.scope)   # noqa: E731
        if used_as_mask(function, binding.name, self._mask_usage, refers, qualname, self.source):
            return True
        # session 32: a plain copy of the name used as a mask (``ce_mask = mask`` ... ``x.masked_fill_(~ce_mask, -1)``,
        # lerobot's VQ codebook): the copy holds the same value, so the name is a mask too
        for alias in copies_of(function, binding.name, self._mask_usage, self.source):
            def refers_copy(node: ast.Name, alias: str = alias) -> bool:
                return any(b.tag == VALUE and not b.path and isinstance(b.value, ast.Name)
                           and b.value.id == binding.name and refers(b.value)
                           for b in self.scopes.may_reach(alias, binding.scope, (node.lineno, node.col_offset)))
            if used_as_mask(function, alias, self._mask_usage, refers_copy, qualname, self.source):
                return True
        return False

    def _scalar_arithmetic(self, node: ast.BinOp, scope: Scope, depth: int) -> bool:
        """``d - 1`` with ``d`` an ``int``: arithmetic of Python numbers only."""
        sides = (node.left, node.right)
        return all(scalar(side, self.value_of(side, scope, depth)) or (
            isinstance(side, ast.BinOp) and depth < _DEPTH and self._scalar_arithmetic(side, scope, depth + 1))
            for side in sides)

    def _attribute_value(self, node: ast.Attribute, scope: Scope, depth: int,
                         known: object = _UNKNOWN) -> Optional[K.Value]:
        """``known``: the receiver's value when the caller has it (a chain of calls evaluates each receiver once)."""
        receiver = node.value
        if isinstance(receiver, ast.Name) and self.scopes is not None and receiver.id == self.scopes.self_name(scope):
            bindings = self.scopes.attribute(scope, node.attr)
            value = self._own_attribute_join(bindings, node.attr, depth) if bindings else None
            updates = [_self_update(b, node.attr) for b in bindings] if value is None and bindings else []
            if updates and all(updates):   # only ``self.x = self.x[keep]`` here: what a base class sets it to
                base = self.own_member(scope, node.attr, depth, skip=True)
                if base is not None and base[0] in K.TENSORS:
                    value = base if base[0] == K.MASK and all(u == K.MASK for u in updates) else (K.TENSOR, None)
            if value is None:   # declared in the class body or set in a base class (this file's, or another module's)
                value = self.own_member(scope, node.attr, depth, skip=not bindings)
            return self._narrowed_attribute(node, scope, value, bindings)
        if node.attr in _PANDAS_INDEXERS:
            return K.HOST, None   # ``df.loc[mask]``: pandas' indexers, which no tensor has
        if node.attr in PACKED_FIELDS and packed_sequence(self, receiver, scope):
            return K.TENSOR, None   # ``packed.batch_sizes``, ``packed.data``: a PackedSequence's fields
        if node.attr in K.TENSOR_ATTRIBUTES or node.attr == "device" or node.attr in _LOADER_PARTS:
            value = self.value_of(receiver, scope, depth) if known is _UNKNOWN else known
            if node.attr == "device":
                return (K.DEVICE, None) if value is not None and value[0] in K.TENSORS + (K.MODULE,) else None
            if node.attr in _LOADER_PARTS:   # ``loader.sampler.set_epoch(e)``, ``len(loader.dataset)``
                return (_LOADER_PARTS[node.attr], None) if value is not None and value[0] == K.LOADER else None
            if value is not None and value[0] == K.MASK and node.attr in ("T", "mT", "data"):
                return K.MASK, None   # ``j, k = (gxy > 1).T``: a transposed mask is a mask
            if value == (K.HOST, K.CPU_TENSOR) and node.attr != "grad":
                return value   # ``probs.cpu().T``: still on the host
            return (K.TENSOR, None) if value is not None and value[0] in K.TENSORS else None
        name = self.qualname(node, scope)
        if name is not None and name.startswith("torch.") and name[6:] in _DTYPE_NAMES:
            return K.DTYPE, name
        if name is None:   # ``samples.actions``: a field of a project class (a NamedTuple, a dataclass, an attribute)
            value = self.value_of(receiver, scope, depth) if known is _UNKNOWN else known
            if value is not None and value[0] in (K.OBJECT, K.MODULE, K.OPTIMIZER) and value[1]:
                member = self.member_value(value[1], node.attr, depth)
                if member is None and value[0] == K.OBJECT and self.project is not None \
                        and self.project.field_verdict(node.attr) == K.MASK:
                    return K.MASK, None   # (fields25) every store of the field in the project is a mask
                return member
            if value == (K.HOST, K.HOST_ENCODING) and not node.attr.startswith("_"):
                return K.HOST, K.CPU_TENSOR   # ``enc.offset_mapping``: a field of a tokenizer's output
            if value == (K.HOST, K.CPU_TENSOR) and node.attr in _REDUCTION_FIELDS:
                return K.HOST, K.CPU_TENSOR   # ``x.cpu().max(-1).indices``: a host op's values and indices
            if value is None and self.project is not None and self.project.field_verdict(node.attr) == K.MASK:
                return K.MASK, None   # (fields25) a receiver of unknown class: every store of the field is a mask
            if value is None and attribute_used_as_index(self, node, scope):   # ``scatter(x, data.batch)``
                return K.TENSOR, None
        return None


# The fields of what a reduction along a dim returns (``torch.return_types.max``): its values and its indices.
_REDUCTION_FIELDS = frozenset({"values", "indices"})


def _self_update(binding: Binding, attr: str) -> Optional[str]:
    """``self.x = self.x[keep]`` / ``self.x = self.x.repeat(n, 1)``: a binding computed from the attribute itself
    by indexing and tensor methods; MASK when every step keeps a mask, TENSOR otherwise, None for any other
    binding (a call of something else, ``.tolist()``, ``.item()``)."""
    if binding.tag != VALUE or binding.path or binding.scope.self_name is None:
        return None
    node, kind = binding.value, K.MASK
    for _ in range(8):
        if isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr not in K.NOT_TENSOR_METHODS and node.func.attr not in ("cpu", "numpy"):
            if node.func.attr not in K.MASK_KEEPING:
                kind = K.TENSOR
            node = node.func.value
        elif isinstance(node, ast.Attribute) and node is not binding.value:
            return kind if node.attr == attr and isinstance(node.value, ast.Name) \
                and node.value.id == binding.scope.self_name else None
        else:
            return None
    return None


# Whole reductions of a tensor to one number (see ``_kept_root``).
_COUNTS = frozenset({"sum", "mean", "max", "min", "prod", "any", "all", "count_nonzero", "nansum", "nanmean", "norm",
                     "numel", "amax", "amin"})


def _kept_root(node: ast.AST) -> Optional[ast.Name]:
    """The name a chain of operations that keep a tensor where it is starts from (``labels`` of
    ``labels.view(-1).long()``, ``x[:, 0]``); None through a move or a call of anything else. Not through a whole
    reduction (``n = mask.sum().to(device)``, session 32): a count or a total put on the device, often one already
    there (trl's ``labels.sum().to(self.accelerator.device)`` after the batch was moved), says nothing of where the
    reduced tensor lives."""
    for _ in range(8):
        if isinstance(node, ast.Name):
            return node
        if isinstance(node, ast.Call):
            func = node.func
            if not isinstance(func, ast.Attribute) or func.attr in K.MOVES or func.attr == "type" \
                    or (func.attr in _COUNTS and not node.args and not node.keywords):
                return None
            node = func.value
        elif isinstance(node, (ast.Subscript, ast.Attribute)):
            node = node.value
        else:
            return None
    return None


def _instance_method(function: Optional[ast.AST]) -> bool:
    """Not a ``@classmethod`` (whose first parameter is the class, not an instance)."""
    return isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and not any(
        isinstance(d, ast.Name) and d.id == "classmethod" for d in function.decorator_list)
