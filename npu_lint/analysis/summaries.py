"""Summaries of a file's own functions and classes, computed once each and memoised: what a function
returns, what a tuple it returns holds, what instances of a class are (through its bases, in the file or, with a
project index, in other modules), where an inherited method comes from, and the kinds the file's own calls pass
to a function's parameters (the calls inside expressions found by name: :mod:`npu_lint.analysis.call_lines`).

A mixin of :class:`npu_lint.resolver.Resolver`, which supplies ``binding``, ``value_of``, ``qualname`` and the
scopes; kept apart so that the model's two halves (names and values, summaries) stay short.
"""
from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Callable, Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.call_lines import CallLines, nested_calls
from npu_lint.analysis.method_calls import method_callee, self_method
from npu_lint.analysis.returned_tuples import returned_length
from npu_lint.analysis.scopes import CLASS, DEF, VALUE, Binding, Scope
from npu_lint.analysis.nodes import body_of, class_bases, of_type, own_method, walk

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_DEPTH = 40
IN_PROGRESS = object()
_MISSING = object()
MISSING = _MISSING   # what ``store.get(key, MISSING)`` gives for a key memo() has not seen (for inlined memo hits)
COMPUTING = [0]   # how many memo() computations are under way: an answer given meanwhile may be a cycle's None
CYCLES = [0]   # how many questions met their own computation: an answer computed meanwhile may be provisional
TRUNCATED = [0]   # how many depth limits questions have met: an answer computed meanwhile was cut short there


_ACTIVE: dict[tuple[int, object], int] = {}   # (store, key) under computation -> how deep (COMPUTING at its start)
_NO_CYCLE = 1 << 30
_LOW = [_NO_CYCLE]   # the shallowest computation still under way that the current one met again (a cycle's None)
# Provisional answers (they read a cycle's None) kept while the computation they met is under way: (id(store), key)
# -> (answer, depth of that computation); and per depth, the keys to drop when the computation there ends.
_PROVISIONAL: dict[tuple[int, object], tuple[object, int]] = {}
_PROVISIONAL_AT: dict[int, list[tuple[int, object]]] = {}


def cycle_hit(store: dict, key: object) -> None:
    """A question met its own computation again (``store[key]`` in progress): what is computed from that None,
    above it, is provisional."""
    CYCLES[0] += 1
    depth = _ACTIVE.get((id(store), key))
    if depth is not None and depth < _LOW[0]:
        _LOW[0] = depth


def memo(store: dict, key: object, compute: Callable[[], object]) -> object:
    """``compute()`` once per key; None while it is being computed (a cycle through the same key). An answer that
    read such a None of a computation still under way further out is given but not kept: asked again later (the
    cycle closed), it is computed again, so no answer depends on the order the questions came in. Until that
    computation further out ends, such a provisional answer is reused (and is itself a cycle's answer for whoever
    reads it): without it, a loop whose body rebinds a name under a chain of ``if``s (every binding reaching every
    other) would enumerate every path through the chain, once per path (torch_geometric's ``BasicGNN.forward``)."""
    cached = store.get(key, _MISSING)
    if cached is IN_PROGRESS:
        cycle_hit(store, key)
        return None
    if cached is not _MISSING:
        return cached
    provisional = _PROVISIONAL.get((id(store), key))
    if provisional is not None:
        CYCLES[0] += 1
        if provisional[1] < _LOW[0]:
            _LOW[0] = provisional[1]
        return provisional[0]
    depth = COMPUTING[0]
    store[key] = IN_PROGRESS
    _ACTIVE[(id(store), key)] = depth
    outer = _LOW[0]
    _LOW[0] = _NO_CYCLE
    COMPUTING[0] += 1
    value = None
    try:
        value = compute()
    finally:
        COMPUTING[0] -= 1
        del _ACTIVE[(id(store), key)]
        low = _LOW[0]
        if low < depth:   # it read a None of a computation further out: provisional
            del store[key]
            _PROVISIONAL[(id(store), key)] = (value, low)
            _PROVISIONAL_AT.setdefault(low, []).append((id(store), key))
        else:
            store[key] = value
        for stale in _PROVISIONAL_AT.pop(depth, ()):   # the cycle through this computation closed
            _PROVISIONAL.pop(stale, None)
        _LOW[0] = min(outer, low) if low < depth else outer
    return value


# ``map``/``imap`` as a whole word called: a name or attribute there, then what may stand between a callee and its
# ``(`` (blanks, line breaks and continuations, comments, the closing parentheses of ``(pool.map)(f, xs)``). A file
# without it has no such call, and its whole walk is not made for the question (160 corpus files hold the word, 30
# the call form, 24 a call).
_MAP_WORD = re.compile(r"(?<![\w])i?map(?![\w])(?:[\s)\\]|#[^\n]*\n)*\(")
_RETURN_CHAIN = 3   # how far ``return helper(x)`` is followed for the elements of a returned tuple


def _map_call(node: ast.Call) -> bool:
    """``map(f, xs)``, ``pool.map(f, xs)``, ``executor.imap(f, xs)``: positional arguments only."""
    if len(node.args) < 2 or node.keywords:
        return False
    func = node.func
    return (isinstance(func, ast.Name) and func.id == "map") or (isinstance(func, ast.Attribute)
                                                                 and func.attr in ("map", "imap"))


class Summaries:
    """Function and class summaries (mixed into the Resolver)."""

    def _argument_value(self, binding: Binding, depth: int) -> Optional[K.Value]:
        """A parameter's value from the file's own calls of its function: what the callers that show it agree on."""
        function = binding.scope.node
        arg = binding.node
        if arg is None or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or depth > _DEPTH // 2:
            return None
        positional = [a.arg for a in function.args.posonlyargs + function.args.args]
        index = positional.index(arg.arg) if arg.arg in positional else None
        values = self._passed_values(function, index, arg.arg, depth, _FORWARDS)
        if index is not None and not values:
            values.extend(self._mapped_values(function, index, depth))
        known = [value for value in values if value is not None]
        if not known and self.project is not None and self.module_name:   # ``Trainer(model, opt)`` elsewhere
            return self.project.argument_value(f"{self.module_name}.{_qualified(binding.scope)}", arg.arg, index)
        return K.join(known) if known else None

    def _passed_values(self, function: ast.AST, index: Optional[int], name: str, depth: int,
                       hops: int) -> list[Optional[K.Value]]:
        """What the file's calls of ``function`` pass to its parameter ``name`` (at ``index`` among the positional
        ones), through a caller's own ``*args`` / ``**kwargs`` handed on whole (``def f(x, *args, **kwargs): return
        g(x, *args, **kwargs)``: what ``f``'s callers pass in that place), at most ``hops`` such forwards deep."""
        values: list[Optional[K.Value]] = []
        for call, scope, offset in self.call_sites(function):
            position = index - offset if index is not None else -1
            starred = next((i for i, a in enumerate(call.args) if isinstance(a, ast.Starred)), None)
            passed = None
            if position >= 0 and (starred is None or position < starred) and position < len(call.args):
                passed = call.args[position]
            elif position >= 0 and starred is not None:   # ``g(x, *args)``: the forwarded positionals
                if starred == len(call.args) - 1 and hops > 0:
                    outer = _forwarding(scope, call.args[starred].value, "vararg")
                    if outer is not None:
                        first = len(outer.args.posonlyargs + outer.args.args)
                        values.extend(self._passed_values(outer, first + position - starred, "", depth + 1, hops - 1))
                continue
            else:
                passed = next((kw.value for kw in call.keywords if kw.arg == name), None) if name else None
                if passed is None and name and hops > 0:   # ``g(x, **kwargs)``: a keyword the caller's callers name
                    spread = next((kw.value for kw in call.keywords if kw.arg is None), None)
                    outer = _forwarding(scope, spread, "kwarg") if spread is not None else None
                    if outer is not None:
                        values.extend(self._passed_values(outer, None, name, depth + 1, hops - 1))
            if passed is not None:
                values.append(self.value_of(passed, scope, depth + 1))
        return values

    def _mapped_values(self, function: ast.AST, index: int, depth: int) -> list[Optional[K.Value]]:
        """What a function handed to ``map`` gets at its parameter ``index``: an element of the matching iterable
        (``executor.map(self._item, peaks, padding_mask)``, ``map(fn, xs)``: one call per element, their parameters
        filled in from the iterables in turn)."""
        if self.scopes is None:
            return []
        key = ("mapped", id(function))
        found = self._summaries.get(key)
        if found is None:
            found = self._summaries[key] = self._map_calls(function)
        values = []
        for call, scope, offset in found:   # type: ignore[union-attr]
            position = index - offset
            if 0 <= position < len(call.args) - 1 and not any(isinstance(a, ast.Starred) for a in call.args):
                values.append(self._iter_element(call.args[1 + position], scope, (), depth + 1))
        return values

    def _map_calls(self, function: ast.AST) -> list[tuple[ast.Call, Scope, int]]:
        """The file's ``map(f, ...)`` / ``pool.map(f, ...)`` / ``executor.map(f, ...)`` calls handing ``function``
        (by its name, or ``self.name`` for a method of the same class), with the parameters the call fills implicitly."""
        name = getattr(function, "name", None)
        scope = self.scopes.scope_of(function) if name is not None else None
        if scope is None:
            return []
        method = scope.parent is not None and scope.parent.kind == "class"
        found = []
        for node, at in self._file_map_calls():
            first = node.args[0]
            if method and isinstance(first, ast.Attribute) and first.attr == name \
                    and isinstance(first.value, ast.Name) and first.value.id == self.scopes.self_name(at) \
                    and self._same_class(at, scope.parent):
                found.append((node, at, 1))
            elif not method and isinstance(first, ast.Name) and first.id == name:
                binding = self.binding(first, at)
                if binding is not None and binding.node is function:
                    found.append((node, at, 0))
        return found

    def _file_map_calls(self) -> list[tuple[ast.Call, Scope]]:
        """Every ``map(f, xs, ...)`` / ``pool.map`` / ``executor.imap`` call of the file with its scope: one walk per
        file (a walk per function asked made long files quadratic: +18 % on timm and mmdet)."""
        key = ("map calls",)
        found = self._summaries.get(key)
        if found is None:
            found = []
            calls = self.scopes.calls if self.source is None or _MAP_WORD.search(self.source) else ()
            if calls and not any(_map_call(node) for node in of_type(self.scopes.module.node, ast.Call)):
                calls = ()   # the word only in a comment, a string, ``self.map = ...``: no such call anywhere
            for statement_call, at in calls:   # no ``map``/``imap`` word in the text: no such call to walk for
                for node in walk(statement_call):
                    if isinstance(node, ast.Call) and len(node.args) >= 2 and not node.keywords:
                        func = node.func
                        if (isinstance(func, ast.Name) and func.id == "map") \
                                or (isinstance(func, ast.Attribute) and func.attr in ("map", "imap")):
                            found.append((node, at))
            self._summaries[key] = found
        return found  # type: ignore[return-value]

    def defined_names(self) -> frozenset[str]:
        """The names of the file's functions and methods (``def``, ``async def``: the scopes the binder opened for
        them), once per file: ``callee`` finds only the file's own definitions."""
        key = ("defined names",)
        found = self._summaries.get(key)
        if found is None:
            found = self._summaries[key] = frozenset(
                scope.node.name for scope in self.scopes.by_node.values()
                if type(scope.node) is ast.FunctionDef or type(scope.node) is ast.AsyncFunctionDef)
        return found  # type: ignore[return-value]

    @staticmethod
    def _same_class(at: Scope, cls: Scope) -> bool:
        current: Optional[Scope] = at
        while current is not None:
            if current is cls:
                return True
            current = current.parent
        return False

    def call_sites(self, function: ast.AST) -> list[tuple[ast.Call, Scope, int]]:
        """The file's calls of ``function`` (``f(x)``, ``self.f(x)``, a module's ``forward`` through
        ``self.block(x)`` or ``model(x)``), with the scope of each and how many leading parameters the call fills
        implicitly (1 for ``self``): the statement-level calls (``y = f(x)``), and for a function of the file the
        calls inside expressions too (``torch.stack([pad(x, m) for x in items])``, ``out.append(f(x))``), found
        once per name."""
        if self._call_index is None:
            self._call_index = {}
            for call, scope in (self.scopes.calls if self.scopes else ()):
                self._index_call(call, scope)
        keys = self._summaries.get(("called as", id(function)))
        if keys is None:
            keys = self._summaries[("called as", id(function))] = self._called_as(function)
        for key in keys:
            if key in self._nested:
                continue
            self._nested.add(key)
            if self._call_lines is None:
                self._call_lines = CallLines(self.scopes, self.source)
            for call, scope in nested_calls(self.scopes, self._call_lines, key):
                self._index_call(call, scope)
        return self._call_index.get(id(function), [])

    def _called_as(self, function: ast.AST) -> list[str]:
        """How the file calls ``function`` inside expressions: ``name`` (a function), ``.name`` (a method, through
        ``self.name(...)``), the class's name for its ``__init__``, and for a module's ``forward`` the names and
        ``self`` attributes bound to an instance of its class (``self.criterion = MaskedL2()``)."""
        name = getattr(function, "name", None)
        scope = self.scopes.scope_of(function) if name is not None and self.scopes is not None else None
        if scope is None:
            return []
        if scope.cls is None:   # a ``@staticmethod`` is called as ``self.name(...)`` / ``Cls.name(...)`` too
            return ["." + name] if scope.parent is not None and scope.parent.kind == "class" else [name]
        cls_name = getattr(scope.cls.node, "name", None)
        if name == "__init__":
            return [cls_name] if cls_name else []
        if name != "forward" or not cls_name:
            return [] if name.startswith("__") else ["." + name]
        keys = [".forward"]
        for other in self.scopes.by_node.values():
            for attr, bindings in list(other.attrs.items()) + list(other.names.items()):
                if any(isinstance(b.value, ast.Call) and isinstance(b.value.func, ast.Name)
                       and b.value.func.id == cls_name for b in bindings):
                    keys.append(("." + attr) if attr in other.attrs else attr)
        return list(dict.fromkeys(keys))

    def _index_call(self, call: ast.Call, scope: Scope) -> None:
        target = self.callee(call, scope)
        if target is not None:
            self._call_index.setdefault(id(target[0]), []).append((call, scope, target[1]))

    def callee(self, call: ast.Call, scope: Scope) -> Optional[tuple[ast.AST, int]]:
        func = call.func
        if isinstance(func, ast.Name):
            binding = self.binding(func, scope)
            if binding is None:
                return None
            if binding.tag == DEF:
                return binding.value, 0
            if binding.tag == CLASS:
                return method_def(binding.value, "__init__", 1)
            value = self.binding_value(binding)
            return self._forward(value)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and self.scopes is not None \
                and func.value.id == self.scopes.self_name(scope):
            current: Optional[Scope] = scope
            while current is not None and current.cls is None:
                current = current.parent
            if current is not None:
                method = next((b for b in current.cls.names.get(func.attr, ()) if b.tag == DEF), None)
                if method is not None:   # ``self.helper(x)`` of a ``@staticmethod``: no implicit first parameter
                    decorators = method.value.decorator_list
                    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in decorators)
                    return method.value, 0 if static else 1
                inherited = self_method(self, func, scope)   # ``self.select(x, m)`` defined by a base of the file
                if inherited is not None:
                    return inherited
            return self._forward(self.value_of(func, scope))
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            return self._instance_method(func, scope) or method_callee(self, func, scope)   # ``pid.step(err)`` of
        if isinstance(func, ast.Attribute):   # ``pid = Controller(h)``; ``super().sel(x)``, ``self.sub.sel(x)``
            return method_callee(self, func, scope)
        return None

    def _instance_method(self, func: ast.Attribute, scope: Scope) -> Optional[tuple[ast.AST, int]]:
        """The method of a local instance of one of the file's classes, read from the name's one binding
        (``pid = Controller(h)``: no kind asked, so no summary in progress is entered)."""
        binding = self.binding(func.value, scope)
        if binding is None or binding.tag != VALUE or binding.path or not isinstance(binding.value, ast.Call) \
                or not isinstance(binding.value.func, ast.Name):
            return None
        cls = self.binding(binding.value.func, binding.scope)
        if cls is None or cls.tag != CLASS:
            return None
        found = method_def(cls.value, func.attr, 1)
        if found is None:
            return None
        static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in found[0].decorator_list)
        return found[0], 0 if static else 1

    def _forward(self, value: Optional[K.Value]) -> Optional[tuple[ast.AST, int]]:
        if value is None or value[0] != K.MODULE or value[1] not in self._local_classes:
            return None
        return method_def(self._local_classes[value[1]], "forward", 1)

    def returns(self: "Resolver", function: ast.AST) -> Optional[K.Value]:
        """The value a function of this file returns: its return statements agree on it (computed once;
        ``return None`` exits are left out), or its return annotation says it (``-> np.ndarray``)."""
        def compute() -> Optional[K.Value]:
            scope = self.scopes.scope_of(function) if self.scopes else None
            if scope is None:
                return None
            values = [_python_constant(r.value) or self.value_of(r.value, scope) for r in return_statements(function)
                      if r.value is not None and not (isinstance(r.value, ast.Constant) and r.value.value is None)]
            inferred = K.join(values) if values else None
            annotation = getattr(function, "returns", None)
            declared = self.annotation_value(annotation, scope.parent or scope) if annotation is not None else None
            return K.refine(declared, inferred)
        return memo(self._summaries, ("returns", id(function)), compute)

    def returned_elements(self: "Resolver", function: ast.AST) -> tuple[Optional[K.Value], ...]:
        """What each element of the tuple a function returns is, when every return gives a tuple of the same
        length (``return boxes, mask``) or the return annotation is a tuple of fixed length; () otherwise. For the
        project index."""
        scope = self.scopes.scope_of(function) if self.scopes else None
        arms = self.element_annotations(getattr(function, "returns", None), scope.parent or scope) if scope else None
        if arms and not (len(arms) == 2 and isinstance(arms[1], ast.Constant) and arms[1].value is Ellipsis):
            return tuple(self._returned_element(function, index) for index in range(len(arms)))
        length = returned_length(self, function, scope) if scope is not None else 0
        return tuple(self._returned_element(function, index) for index in range(length)) if length > 0 else ()

    def _returned_element(self: "Resolver", function: ast.AST, index: int, depth: int = 0) -> Optional[K.Value]:
        scope = self.scopes.scope_of(function) if self.scopes else None
        if scope is None:
            return None
        annotation = getattr(function, "returns", None)
        declared = self.element_annotation_value(annotation, scope.parent or scope, index) if annotation else None
        values = []
        for statement in return_statements(function):
            value = statement.value
            if isinstance(value, ast.Call) and depth < _RETURN_CHAIN:   # ``return self.__build_tensor(x, n)``: the
                callee = self.callee(value, scope)                       # element that function's tuple holds
                if callee is not None and callee[0] is not function \
                        and isinstance(callee[0], (ast.FunctionDef, ast.AsyncFunctionDef)) \
                        and callee[0].name != "__init__":
                    values.append(self._returned_element(callee[0], index, depth + 1))
                    continue
            if not isinstance(value, ast.Tuple) or index >= len(value.elts):
                values = []
                break
            values.append(self.value_of(value.elts[index], scope))
        if values and all(v is not None and v[0] in K.TENSORS for v in values) and any(v[0] == K.MASK for v in values):
            inferred: Optional[K.Value] = (K.MASK, None)   # a mask on the main path, placeholder tensors on early exits
        else:
            inferred = K.join(values) if values else None
        return K.refine(declared, inferred)

    def yielded(self: "Resolver", function: ast.AST) -> Optional[K.Value]:
        """What iterating a function's result gives: the element of its return annotation (``Iterator[T]``,
        ``Generator[T, None, None]``, ``List[T]``, ``tuple[T, ...]``) or what its ``yield`` statements agree on."""
        def compute() -> Optional[K.Value]:
            scope = self.scopes.scope_of(function) if self.scopes else None
            if scope is None:
                return None
            annotation = getattr(function, "returns", None)
            declared = self.element_annotation_value(annotation, scope.parent or scope, -1) if annotation else None
            yields = _yields(function)
            values = [self.value_of(node.value, scope) for node in yields if node.value is not None]
            if not yields:   # a function returning a tuple or a list: iterating it gives its elements
                values = list(self.returned_elements(function)) or [self.returned_sequence_element(function)]
            return K.refine(declared, K.join(values) if values else None)
        return memo(self._summaries, ("yields", id(function)), compute)

    def method_owners(self, cls: str, method: str) -> tuple[str, ...]:
        """The classes whose ``method`` a call on an instance of ``cls`` may reach, nearest first: empty when
        a project class on the way defines it (project code, not a torch API)."""
        owners = []
        seen: set[str] = set()
        if cls not in self._local_classes and self.project is not None:
            found = self.project.method_owner(cls, method)
            if found is not None:
                return found
        while cls in self._local_classes and cls not in seen:
            seen.add(cls)
            if method_def(self._local_classes[cls], method, 0) is not None:
                return ()
            cls = self._parents.get(cls, "")
            if cls not in self._local_classes and self.project is not None:
                found = self.project.method_owner(cls, method)   # a base class in another project module
                if found is not None:
                    return found
        if cls:
            owners.append(cls)
        return tuple(owners)

    def super_owners(self, method: str, named: Optional[str] = None) -> Optional[tuple[str, tuple[str, ...]]]:
        """``super().forward(x)`` (``super(Net, self)`` with ``named="Net"``) in a method of a class of this file:
        the class's kind and the classes whose ``method`` the call may reach, its own definition skipped
        (``(module, ("torch.nn.RNNBase",))``); None outside a class, in a class with no known base, when a project
        base defines the method, or for ``super(Other, obj)``."""
        current: Optional[Scope] = self.current
        while current is not None and current.cls is None:
            current = current.parent
        if current is None or not isinstance(current.cls.node, ast.ClassDef) \
                or (named is not None and named != current.cls.node.name):
            return None
        value = self.class_value(current.cls.node)
        parent = self._parents.get(value[1]) if value is not None and value[1] else None
        if parent is None:
            return None
        owners = self.method_owners(parent, method)
        return (value[0], owners) if owners else None

    def _local_class_name(self, node: ast.ClassDef) -> str:
        """A project class's qualified name (``pkg.models.Net``; ``Net`` when the module name is unknown)."""
        name = f"{self.module_name}.{node.name}" if self.module_name else node.name
        self._local_classes[name] = node
        return name

    def class_value(self: "Resolver", node: ast.ClassDef) -> Optional[K.Value]:
        """What instances of a class of this file are, from its bases (``class Net(nn.Module)``: a module)."""
        return memo(self._summaries, ("class", id(node)), lambda: self._class_value(node))

    def _class_value(self: "Resolver", node: ast.ClassDef) -> Optional[K.Value]:
        value = None
        own = self._local_class_name(node)
        scope = (self.scopes.scope_of(node).parent if self.scopes and self.scopes.scope_of(node) else None)
        for base in class_bases(node):
            if scope is None:
                break
            local = self.definition(base, scope) if isinstance(base, ast.Name) else None
            if isinstance(local, ast.ClassDef):
                value = self.class_value(local)
                if value is not None:
                    self._parents[own] = self._local_class_name(local)
            else:
                name = self.qualname(base, scope)
                if name is None:
                    continue
                value = K.of_class(name)
                if value is not None and value[0] not in _CLASS_KINDS:
                    return value   # a scaler, host data: no class of its own to name
                if value is None and self.project is not None:
                    value = self.project.class_value(name, self.module_name)
                if value is not None:
                    self._parents[own] = value[1] or name   # the project's absolute name of the base
            if value is not None and value[0] != K.OBJECT:
                break
        # a class no torch kind fits: an instance of it (its own methods and attributes), with its bases for them
        return (value[0] if value is not None else K.OBJECT), own


_CLASS_KINDS = (K.MODULE, K.OPTIMIZER, K.SCHEDULER, K.DATASET, K.SAMPLER, K.LOADER, K.AUTOGRAD, K.DISTRIBUTION,
                K.INSTANCE)


def _python_constant(node: ast.AST) -> Optional[K.Value]:
    """``return 1`` / ``return False``: a Python number (joined with ``return dist.get_world_size()``: an int)."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
        return K.OBJECT, type(node.value).__name__
    return None


def _qualified(scope: Scope) -> str:
    """``Trainer.__init__``: a function's name inside its module, as the project index names it."""
    names = []
    current: Optional[Scope] = scope
    while current is not None and current.node is not None and current.kind in ("function", "class"):
        names.append(current.node.name)
        current = current.parent
    return ".".join(reversed(names))


_FORWARDS = 3   # how many ``*args`` / ``**kwargs`` hand-ons a parameter's value is followed back through


def _forwarding(scope: Scope, value: ast.AST, field: str) -> Optional[ast.AST]:
    """The function whose own ``*args`` (``field="vararg"``) or ``**kwargs`` (``"kwarg"``) ``value`` names, where
    the call runs in that function itself (not in a nested function or comprehension)."""
    function = scope.node
    if scope.kind != "function" or not isinstance(value, ast.Name) \
            or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    own = getattr(function.args, field)
    if own is None or own.arg != value.id:
        return None
    return function


def method_def(cls: ast.ClassDef, name: str, offset: int) -> Optional[tuple[ast.AST, int]]:
    found = own_method(cls, name)   # the class body indexed once
    return (found, offset) if found is not None else None


def _yields(function: ast.AST) -> list[ast.Yield]:
    """The ``yield`` statements of a function's own body: ``yield x`` and ``y = yield x``. Statements only: a yield
    inside a larger expression is not read (walking every expression of every function cost a third of the
    project index)."""
    return _returns_and_yields(function)[1]


_YIELDING = (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _returns_and_yields(function: ast.AST) -> tuple[list[ast.Return], list[ast.Yield]]:
    """The ``return`` statements and the statement-level ``yield`` values of a function's own body (not of functions
    or classes nested in it), in one pass over its statements; kept on the node (the project index asks both of
    every function, the rules ask again; freed with the tree)."""
    kept = getattr(function, "_npu_returns", None)
    if kept is not None:
        return kept
    returns: list[ast.Return] = []
    yields: list[ast.Yield] = []
    stack = list(body_of(function))
    while stack:   # every statement, nested blocks included, in the order the earlier two walks took
        node = stack.pop()
        node_type = type(node)
        if node_type is ast.Return:
            returns.append(node)
        elif node_type in _YIELDING:
            if type(node.value) is ast.Yield:
                yields.append(node.value)
        elif node_type not in _NESTED:
            for field in _BLOCKS:
                block = getattr(node, field, None)
                if block:
                    stack.extend(block)
    found = (returns, yields)
    try:
        function._npu_returns = found   # type: ignore[attr-defined]
    except AttributeError:
        pass
    return found


def return_statements(function: ast.AST) -> list[ast.Return]:
    """The ``return`` statements of a function's own body (not of functions or classes nested in it); kept on
    the node (asked thousands of times per project, freed with the tree)."""
    return _returns_and_yields(function)[0]
