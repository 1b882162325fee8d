"""The expression half of :class:`~npu_lint.project.facts.Extractor`: the calls, torch references and passed torch
objects under one expression, recorded in the current function's scope (resolved now through the semantic model, or
left pending for the module's late resolution)."""
from __future__ import annotations

import ast
import builtins
from typing import Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.names import rooted
from npu_lint.analysis.size_sinks import sink_names
from npu_lint.analysis.summaries_padding import batch_maximum
from npu_lint.project.fact_collates import KEY as COLLATE_KEY, collate_facts
from npu_lint.project.fact_types import PASSED_CALL, absolute

_BUILTINS = frozenset(dir(builtins))
_PARTIALS = frozenset({"functools.partial", "functools.partialmethod", "functools.wraps"})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}   # the fields of a node type that can hold expressions, last first
_NO_CHILD = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "module", "level", "kind", "conversion", "is_async",
                       "type_comment", "simple"})   # no node below (operators, names, flags)
_SKIP = frozenset({ast.Constant})   # children the walk would pop and drop
_SKIP_LIGHT = frozenset({ast.Constant, ast.Name})   # ... when calls and references are not recorded
_PASSED_KINDS = frozenset({"module", "optimizer", "scheduler", "scaler", "loader", "dataset", "sampler",
                           "tensor", "mask", "batch"})
_TYPE_TESTS = frozenset({"isinstance", "issubclass", "hasattr", "type"})   # their arguments are not uses
_NO_BINDING = type("_NoBinding", (), {"tag": ""})()   # what ``binding()`` stands for when there is none


class _Scope:
    __slots__ = ("kind", "name", "defs", "bound", "calls", "refs", "pending", "owner", "line", "values", "returns",
                 "value", "elements", "yields", "maximum", "pads", "reaches", "sizes", "sizing", "called",
                 "reads", "size_read", "compares", "fills", "grows", "forwards_loader", "counts",
                 "grad_free", "batches", "trains", "loader_arguments", "aspect", "flattens", "call_returns")

    def __init__(self, kind: str, name: str, owner: Optional[str] = None, line: int = 0) -> None:
        self.kind, self.name, self.owner, self.line = kind, name, owner, line
        self.defs: dict[str, str] = {}        # nested def/class name -> qualname inside the module
        self.bound: set[str] = set()          # names assigned or passed in here (locals shadow globals)
        self.calls: list[tuple[str, int]] = []
        self.refs: list[tuple[str, int]] = []
        self.pending: list[tuple[int, str, str, str]] = []   # (index in calls, root, rest, target prefix)
        # prefixes: '' (a name), '@result.' (calling what a call returned), '@on|METHOD|' + marker (a method of
        # a value whose origin is the resolved name)
        self.values: dict[str, list[tuple[str, str, str]]] = {}   # local name -> where its value comes from
        self.returns: list[tuple[str, str, str]] = []
        self.value: tuple[str, str] = ("", "")
        self.elements: tuple[tuple[str, str], ...] = ()
        self.yields: tuple[str, str] = ("", "")
        # the calls that may take a batch maximum (or ``pad_sequence``): worth asking for a padding summary
        self.maximum: list[ast.Call] = []
        self.pads: tuple[str, int, str, int] = ("", 0, "", -1)
        self.reaches: list[tuple[str, str, str]] = []   # what its returns are computed from (fact_reaches)
        self.sizes: tuple[tuple[str, int, str], ...] = ()   # the parameters it sizes a tensor with
        self.sizing = False   # it calls a shape sink or slices: worth a size summary (or calls a helper that does)
        self.reads = False    # every return gives a value read back from a tensor (``return bool(m.all())``)
        self.size_read = ""   # the flavour of a size read from the data some return may give (``return int(n.sum())``)
        self.compares = False   # every return compares values of unknown kind (``return args.rank == 0``)
        self.fills: tuple[str, ...] = ()   # size parameters filled from the data when left out
        self.grows: tuple[int, str, int] = (-1, "", -1)   # the parameter it returns grown by a concatenation
        self.forwards_loader = False   # it returns a DataLoader built with its own ``**kwargs`` (no drop_last)
        self.counts = ""   # the ``self`` attribute whose items its result has one of each for (item_counts.py)
        self.grad_free: tuple[tuple[str, int], ...] = ()   # declared without gradients: the parameters handed whole to its model
        self.batches: tuple[int, str] = (-1, "")   # it yields batches of a parameter in a parameter's size
        self.trains: tuple[tuple[str, int], ...] = ()   # the parameters a loop of its own trains on, per batch
        self.loader_arguments: tuple = ()   # how its one returned DataLoader takes its parameters
        self.aspect = False   # it returns a value resized keeping its aspect ratio (aspect_resizes.py)
        self.flattens = False   # it returns a list flattened from per-item lists (flattened.py)
        self.call_returns = 0   # every return hands on a call's result: how many distinct callees (returned_tuples.py)
        self.called: set[str] = set()   # the last names of what it calls otherwise (``helper``, ``self.helper``)


def _sliced(index: ast.AST) -> bool:
    """``[:n]``, ``[:, a:b]``: an index with a slice that has a bound other than a constant (``[..., :2]``)."""
    parts = index.elts if type(index) is ast.Tuple else (index,)   # type: ignore[attr-defined]
    return any(type(p) is ast.Slice and any(b is not None and not _constant(b) for b in (p.lower, p.upper, p.step))
               for p in parts)


def _constant(node: ast.AST) -> bool:
    """``2``, ``-1``: a number as it stands."""
    return type(node) is ast.Constant or (type(node) is ast.UnaryOp and type(node.operand) is ast.Constant)


def _constant_arguments(call: ast.Call) -> bool:
    """Every argument (keywords too) is a constant: ``x.view(-1)``, ``torch.zeros(3)``."""
    return all(_constant(a) for a in call.args) and all(_constant(k.value) for k in call.keywords)


def _maximum(call: ast.Call) -> bool:
    """A maximum the padding summary may find to be the items' longest (it decides): ``max(len(s) for s in xs)``,
    ``_max_by_axis(...)``, ``max(map(len, xs))``, of a name (``max(lengths)``, ``np.max(lengths)``,
    ``lengths.max()``) or a running one (``max(m, len(s))``)."""
    func = call.func
    last = func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else ""
    if "ax" not in last and "AX" not in last:
        return False    # the common case, without lowering the name
    last = last.lower()
    if "max" not in last or "argmax" in last:
        return False
    if batch_maximum(call):
        return True
    args = call.args
    if type(func) is ast.Attribute and not args:
        return type(func.value) is ast.Name   # ``lengths.max()``
    return (len(args) == 1 and type(args[0]) is ast.Name) or (len(args) == 2 and any(type(a) is ast.Name for a in args))


def _named(func: ast.AST, name: str) -> bool:
    return (func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else "") == name


class CallFacts:
    """Mixin of the extractor: what expressions call, reference and pass (its state lives on the extractor)."""

    def expressions(self, root: ast.AST) -> None:
        """Every call and torch reference under ``root`` (lambdas and comprehensions included)."""
        scope = self.function_scopes[-1] if self.function_scopes else None
        if scope is None:
            return   # module and class-body code: only its statements feed the resolver
        light = self.light   # still walked: the names bound inside (walrus, comprehension, lambda) count
        stack: list[ast.AST] = [root]
        push, ast_type, skip, skip_light = stack.append, ast.AST, _SKIP, _SKIP_LIGHT
        sinks = sink_names()
        while stack:
            node = stack.pop()
            node_type = type(node)
            if node_type is ast.Constant:
                continue
            if node_type is ast.Call:
                if not light:
                    self._call(node, scope)
                if _maximum(node) or _named(node.func, "pad_sequence"):
                    scope.maximum.append(node)
                if not scope.sizing:
                    func = node.func
                    last = func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else ""
                    if last in sinks:
                        scope.sizing = not _constant_arguments(node)   # ``x.view(-1)``: no parameter there
                    elif last:
                        scope.called.add(last)
                if node.keywords:
                    self._constructed_fields(node)   # (fields25: facts.py)
                if node.args or node.keywords:
                    self._passed_objects(node)
                    for keyword in node.keywords:
                        if keyword.arg == COLLATE_KEY:
                            self.collates.extend(collate_facts(keyword.value, self.resolver, self.module,
                                                               self.is_package))
                if isinstance(node.func, ast.Name) and node.func.id in _TYPE_TESTS:
                    continue
            elif node_type is ast.Compare:   # ``x.dtype == torch.float16``: a comparison, not a use
                stack.extend(item for item in [node.left, *node.comparators]
                             if not isinstance(item, (ast.Name, ast.Attribute)))
                continue
            elif node_type is ast.Attribute or node_type is ast.Name:
                if not light and type(getattr(node, "ctx", None)) is ast.Load:
                    self._reference(node, scope)
                if node_type is ast.Attribute:   # the inner names are part of this dotted name
                    while isinstance(node, ast.Attribute):
                        node = node.value
                    if not isinstance(node, ast.Name):
                        stack.append(node)   # ``f(x).shape``: the call inside still counts
                continue
            elif node_type is ast.Subscript:
                if not scope.sizing and _sliced(node.slice):   # ``x[:n]``: a slice bound may be a size
                    scope.sizing = True
            elif node_type is ast.NamedExpr:
                self.target(node.target)
            elif node_type is ast.Lambda:
                self.resolver.enter_function(node)
                for arg in node.args.args:
                    if scope is not None:
                        scope.bound.add(arg.arg)
                self.expressions(node.body)
                self.resolver.leave_scope()
                continue
            elif node_type is ast.comprehension:
                self.target(node.target)
            # The children, pushed last field first and each list backwards, so that they pop in source order (calls
            # are recorded in source order); constants are not pushed (nothing to record), nor, in a light walk,
            # names (a name records a reference only).
            fields = _CHILD_FIELDS.get(node_type)
            if fields is None:
                fields = _CHILD_FIELDS[node_type] = tuple(reversed([f for f in node._fields if f not in _NO_CHILD]))
            skipped = skip_light if light else skip
            for field in fields:
                value = getattr(node, field, None)
                if type(value) is list:
                    for item in reversed(value):
                        if type(item) not in skipped and isinstance(item, ast_type):
                            push(item)
                elif value is not None and type(value) not in skipped and isinstance(value, ast_type):
                    push(value)

    def _call(self, node: ast.Call, scope: Optional[_Scope]) -> None:
        if scope is None:
            return
        target = self._callee(node.func, scope, node.lineno)
        if target in _PARTIALS and node.args:
            self._callee(node.args[0], scope, node.lineno)

    def _callee(self, func: ast.AST, scope: _Scope, line: int) -> Optional[str]:
        """Record the call target of ``func``; returns it when it is known now."""
        if isinstance(func, ast.Attribute):
            value = func.value
            if func.attr == "cuda" or (self.resolver.qualname(func) is None and self.resolver.is_tensor(value)):
                scope.refs.append(("torch.Tensor." + func.attr, line))   # ``.cuda()`` on anything, tensor methods
            if isinstance(value, ast.Name) and value.id in ("self", "cls") and scope.owner is not None:
                scope.calls.append(("@self." + func.attr, line))
                return None
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super":
                scope.calls.append(("@super." + func.attr, line))
                return None
            if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "self" \
                    and scope.owner is not None:   # ``self.pool.reset()``: a method of what ``self.pool`` holds
                scope.calls.append((f"@selfattr.{value.attr}.{func.attr}", line))
                return None
            if isinstance(value, ast.Name) and value.id in scope.values:   # ``opt = Adam(...); opt.step()``
                for marker, origin, origin_rest in scope.values[value.id]:
                    scope.pending.append((len(scope.calls), origin, origin_rest, f"@on|{func.attr}|{marker}"))
                    scope.calls.append(("", line))
                return None
        elif not isinstance(func, ast.Name):
            return None
        qualname = self.resolver.qualname(func)
        if qualname is not None and not self._shadowed(func, scope):
            qualname = absolute(qualname, self.module, self.is_package)
            scope.calls.append((qualname, line))
            return qualname
        root, rest = self._name_parts(func)[:2]
        if isinstance(func, ast.Name) and root in scope.values:   # ``cls = get_attn(t); cls(c)``
            for marker, origin, origin_rest in scope.values[root]:
                scope.pending.append((len(scope.calls), origin, origin_rest, "" if marker else "@result."))
                scope.calls.append(("", line))
            return None
        if root:
            scope.pending.append((len(scope.calls), root, rest, ""))
            scope.calls.append(("", line))
        elif isinstance(func, ast.Attribute):
            self.unknown_receivers += 1
        return None

    def _passed_objects(self, node: ast.Call) -> None:
        """Record the torch objects and tensors (a mask, a batch) a call of an imported name passes
        (``Trainer(model)``, ``masked_loss(pred, valid)``)."""
        func = node.func
        if not isinstance(func, (ast.Name, ast.Attribute)):
            return
        found = []
        for position, argument in enumerate(node.args):
            if isinstance(argument, ast.Starred):
                break
            found.append((position, "", argument))
        found.extend((-1, kw.arg, kw.value) for kw in node.keywords if kw.arg)
        found = [item for item in found if isinstance(item[2], (ast.Name, ast.Attribute, ast.Call))]
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        if not found or not isinstance(root, ast.Name):
            return
        scopes = self.resolver.scopes
        if scopes is None:
            return
        shift = 0
        if root.id not in scopes.api_roots() or (self.resolver.binding(root) or _NO_BINDING).tag != "import":
            callee = self._module_forward(func)   # ``self.criterion(pred, mask)``: a project module's forward
            if callee is None:
                return   # a local, a parameter, a method of a value, or this file's own function
            shift = 1   # its parameters count ``self``
        else:
            callee = self.resolver.qualname(func)
            if callee is None or rooted(callee, ("torch", "numpy", "builtins")) or callee in _BUILTINS:
                return
            callee = absolute(callee, self.module, self.is_package)
        for position, keyword, argument in found:
            position = position + shift if position >= 0 else position
            if isinstance(argument, ast.Name) and not self._may_hold_object(argument):
                continue
            if isinstance(argument, ast.Call):   # ``Trainer(torch.optim.SGD(...))``: the constructor says it
                name = self.resolver.qualname(argument.func) if isinstance(argument.func, (ast.Name, ast.Attribute)) \
                    else None
                value = K.of_call(name) if name is not None and name.startswith("torch.") else None
            else:
                value = self.resolver.value_of(argument)
            if value is not None and value[0] in _PASSED_KINDS:
                self.passed.append((callee, position, keyword, value[0], value[1] or ""))
            elif value is None:   # ``Trainer(Net())``, ``net = build_net(); Trainer(net)``: what the index knows
                origin = self._called(argument)
                if origin is not None and not rooted(origin, ("torch", "numpy")):
                    self.passed.append((callee, position, keyword, PASSED_CALL, absolute(origin, self.module,
                                                                                         self.is_package)))

    def _module_forward(self, func: ast.AST) -> Optional[str]:
        """``pkg.heads.MaskedLoss.forward`` for a call of an object built from a class imported from the project
        (``self.criterion = MaskedLoss()`` in ``__init__``, then ``self.criterion(pred, mask)``): what it passes
        goes to that class's ``forward`` (the index resolves it only where the class defines or inherits one)."""
        resolver, scopes = self.resolver, self.resolver.scopes
        scope = resolver.current
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and func.value.id == scopes.self_name(scope):
            owner = scope
            while owner is not None and owner.cls is None:
                owner = owner.parent
            key = (id(owner.cls) if owner is not None else 0, func.attr)   # the same for every method of the class
            memo = self.__dict__.setdefault("_forwards", {})
            if key not in memo:
                memo[key] = self._forward_of(scopes.attribute(scope, func.attr))
            return memo[key]
        if isinstance(func, ast.Name):
            return self._forward_of(scopes.may_reach(func.id, scope, (func.lineno, func.col_offset)))
        return None

    def _forward_of(self, bindings: list) -> Optional[str]:
        """The ``forward`` of the project class the bindings construct (``MaskedLoss()``), if one does."""
        resolver = self.resolver
        for binding in bindings:
            value = binding.value
            if binding.tag != "value" or binding.path or not isinstance(value, ast.Call) \
                    or not isinstance(value.func, (ast.Name, ast.Attribute)):
                continue
            root = value.func
            while isinstance(root, ast.Attribute):
                root = root.value
            if not isinstance(root, ast.Name) or (resolver.binding(root, binding.scope) or _NO_BINDING).tag != "import":
                continue
            cls = resolver.qualname(value.func, binding.scope)
            if cls and not rooted(cls, ("torch", "torchvision", "torch_npu", "numpy", "builtins")):
                return absolute(cls, self.module, self.is_package) + ".forward"
        return None

    def _may_hold_object(self, name: ast.Name) -> bool:
        """Worth asking the model: not a parameter that only its callers could tell (that costs a search of the
        file's calls), an import, a function or a class."""
        binding = self.resolver.binding(name)
        if binding is None or binding.tag in ("import", "def", "class"):
            return False
        if binding.tag == "param" and binding.name == binding.scope.self_name and binding.scope.cls is not None:
            return True   # ``model_info(self)`` in a module's method
        return not (binding.tag == "param" and binding.node is not None and binding.node.annotation is None
                    and binding.value is None)

    def _called(self, argument: ast.AST) -> Optional[str]:
        """The imported callable whose result an argument is (``Net()``, or a name bound once to ``Net()``)."""
        scope = None
        if isinstance(argument, ast.Name):
            binding = self.resolver.binding(argument)
            if binding is None or binding.tag != "value" or binding.path:
                return None
            argument, scope = binding.value, binding.scope
        if isinstance(argument, ast.Call) and isinstance(argument.func, (ast.Name, ast.Attribute)):
            return self.resolver.qualname(argument.func, scope)
        return None

    def _reference(self, node: ast.AST, scope: Optional[_Scope]) -> None:
        qualname = self.resolver.qualname(node)
        if qualname is None or scope is None or not qualname.startswith("torch"):
            return
        if self._shadowed(node, scope):
            return
        if qualname.startswith(("torch.", "torch_npu.")) or qualname == "torch":
            scope.refs.append((qualname, node.lineno))
