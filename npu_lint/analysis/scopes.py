"""Scopes and bindings, like Python's: built once per file by one pass over its statements.

Pyflakes and ruff defer function bodies so that a module-level name bound anywhere (an import at the bottom
of the file) is a binding when a function reads it. Here the same holds because every binding of the file
is recorded before any rule runs: :func:`bind_module` visits statements only (not expressions), so it costs
a fraction of the rule walk. Comprehension and lambda scopes are opened by the walk itself
(:meth:`Scopes.open_expression_scope`), as they bind no names outside themselves.

A name is looked up as Python does: its own scope, then enclosing function scopes (class bodies do not
leak into methods), then the module; ``global`` / ``nonlocal`` redirect the lookup. Within its own scope
a use sees the last binding before it (in a function, a use before every binding is a loop-carried
value: it sees the last binding); from an enclosing scope it sees the last binding of that scope
(late binding). ``x = None`` never hides an earlier binding (the ``except ImportError: x = None``
fallback, the ``self.x = None`` placeholder).
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.names import canonical

# Binding tags.
IMPORT, VALUE, NONE, PARAM, LOOP, WITH, DEF, CLASS, DELETE, EXCEPT, ANNOTATION, AUGMENT = (
    "import", "value", "none", "param", "loop", "with", "def", "class", "delete", "except", "annotation", "augment")
STAR = -1   # a path step for ``a, *rest = ...``
Position = tuple[int, int]
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_CALL_STATEMENTS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class Binding:
    """One place a name gets a value. ``value``: the expression (or, for imports, the qualified name);
    ``path``: where in an unpacked target the name sits (``a, (b, c) = v``: ``c`` has path (1, 1))."""

    __slots__ = ("name", "tag", "value", "path", "pos", "scope", "node", "guard")

    def __init__(self, name: str, tag: str, value: object, pos: Position, scope: "Scope",
                 node: Optional[ast.AST] = None, path: tuple[int, ...] = ()) -> None:
        self.name, self.tag, self.value, self.pos, self.scope, self.node, self.path = \
            name, tag, value, pos, scope, node, path
        self.guard: tuple[tuple[int, int], ...] = _GUARD[0]   # the if-arms (if id, arm) the binding sits in

    def __repr__(self) -> str:
        return f"Binding({self.name!r}, {self.tag}, line {self.pos[0]})"


class Scope:
    """A module, class, function, lambda or comprehension scope."""

    __slots__ = ("kind", "node", "parent", "names", "globals", "nonlocals", "attrs", "self_name", "cls", "arms",
                 "loops", "augments", "narrowed")

    def __init__(self, kind: str, node: Optional[ast.AST], parent: Optional["Scope"]) -> None:
        self.kind, self.node, self.parent = kind, node, parent
        self.names: dict[str, list[Binding]] = {}
        self.globals: set[str] = set()
        self.nonlocals: set[str] = set()
        self.attrs: dict[str, list[Binding]] = {}   # class scopes: ``self.x = ...`` from any method
        self.self_name: Optional[str] = None         # methods: the name of the first parameter
        self.cls: Optional[Scope] = None             # methods: the class scope ``self`` belongs to
        self.arms: list[tuple[int, int, Position, Position]] = []   # (if id, arm, start, end), outer ifs first
        self.loops: list[tuple[Position, Position]] = []             # ``for`` / ``while`` statements
        self.augments: dict[str, list[Binding]] = {}                 # ``n += v``: adds to ``n``, never replaces it
        # ``if isinstance(x, T):`` bodies, ``assert isinstance(x, T)`` to the block's end, refuted tests (else arms)
        self.narrowed: dict[str, list[Narrowing]] = {}

    def add(self, binding: Binding) -> None:
        """Record a binding where Python puts it: ``global`` names in the module, ``nonlocal`` ones in the
        enclosing function that has them (the value is still evaluated in ``binding.scope``)."""
        owner: Scope = self
        if binding.name in self.globals:
            owner = self.module()
        elif binding.name in self.nonlocals:
            owner = self.parent
            while owner is not None and (owner.kind == "class" or binding.name not in owner.names):
                owner = owner.parent
            owner = owner or self
        owner.names.setdefault(binding.name, []).append(binding)

    def module(self) -> "Scope":
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def __repr__(self) -> str:
        return f"Scope({self.kind}, {getattr(self.node, 'name', '')})"


_GUARD: list[tuple[tuple[int, int], ...]] = [()]   # the binder's current if-arms (set while binding)
# (start, end, classinfo, test position): where ``isinstance(name, classinfo)`` is known to hold.
Narrowing = tuple[Position, Position, ast.AST, Position, bool]   # ... and whether the test holds (False: refuted)
_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def isinstance_tests(test: ast.AST, negated: bool = False, holds: bool = True) -> list[tuple[str, ast.AST, ast.AST]]:
    """``(key, tested, classinfo)`` for each ``isinstance(x, classinfo)`` a condition asserts (``holds``; False: the
    tests it refutes) of a name or of ``self.attr`` (key ``x`` / ``self.attr``; ``and`` chains; ``negated``: the
    condition is known false, so ``not isinstance(...)`` asserts it)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return isinstance_tests(test.operand, not negated, holds)
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And if not negated else ast.Or):
        return [found for value in test.values for found in isinstance_tests(value, negated, holds)]
    if negated != holds and isinstance(test, ast.Call) and isinstance(test.func, ast.Name) \
            and test.func.id == "isinstance" and len(test.args) == 2 and not test.keywords:
        tested = test.args[0]
        if isinstance(tested, ast.Name):
            return [(tested.id, tested, test.args[1])]
        if isinstance(tested, ast.Attribute) and isinstance(tested.value, ast.Name):
            return [(f"{tested.value.id}.{tested.attr}", tested, test.args[1])]
    return []


def _narrow(scope: Scope, node: ast.AST, block_end: Position = (0, 0)) -> None:
    """Record where the ``isinstance`` tests of an ``if`` (or of a conditional expression a statement gives
    a value) hold: its body, and after an ``if not isinstance(x, T): return`` the rest of the block."""
    test, body, orelse = node.test, node.body, node.orelse
    if isinstance(node, ast.If):
        ranges = [(_start(body[0]), _end(body[-1]), True, isinstance_tests(test)),
                  (_start(body[0]), _end(body[-1]), False, isinstance_tests(test, holds=False))]
        if orelse:   # ``if isinstance(x, T): ... else: x is no T``
            ranges.append((_start(orelse[0]), _end(orelse[-1]), False, isinstance_tests(test, True, holds=False)))
        if isinstance(body[-1], _EXITS) and not orelse:
            ranges.append((_end(node), block_end, True, isinstance_tests(test, negated=True)))
    else:   # ``y = x.cpu() if isinstance(x, torch.Tensor) else x``
        ranges = [(_start(body), _end(body), True, isinstance_tests(test)),
                  (_start(orelse), _end(orelse), False, isinstance_tests(test, True, holds=False))]
    for start, end, holds, tests in ranges:
        for key, tested, classinfo in tests:
            scope.narrowed.setdefault(key, []).append((start, end, classinfo, _start(tested), holds))


def _arm_guard(statement: ast.stmt, arm: int, guard: tuple) -> tuple:
    """The guard of a nested body: ``if`` arms (body 0, ``else`` 1) are alternatives, and so are a ``try`` body
    (with its ``else``) and its handlers (``finally`` runs on either path)."""
    kind = type(statement)
    if kind is ast.If:
        return guard + ((id(statement), arm),)
    if kind is ast.Try or kind.__name__ == "TryStar":
        return guard + ((id(statement), 1 if arm == 1 else 0),) if arm < 3 else guard
    return guard


def alternatives(a: Binding, b: Binding) -> bool:
    """``a`` and ``b`` sit in different arms of one ``if``/``elif`` chain (or a ``try`` body and its handler):
    either may be the one that ran."""
    for (if_a, arm_a), (if_b, arm_b) in zip(a.guard, b.guard):
        if if_a != if_b:
            return False
        if arm_a != arm_b:
            return True
    return False


def reaching(bindings: list[Binding], chosen: Binding) -> list[Binding]:
    """``chosen`` and the earlier bindings in other arms of the same ``if`` chain (``x = a`` / ``else: x = b``)."""
    found = [chosen]
    for binding in reversed(bindings[:bindings.index(chosen)]):
        if binding.tag == NONE:
            continue
        if not all(alternatives(binding, other) for other in found):
            break
        found.append(binding)
    return found


def _end(node: ast.AST) -> Position:
    return (getattr(node, "end_lineno", None) or node.lineno, getattr(node, "end_col_offset", None) or 0)


def _start(node: ast.AST) -> Position:
    return (node.lineno, node.col_offset)


def pick(bindings: list[Binding], pos: Optional[Position], local_function: bool) -> Optional[Binding]:
    """The binding a use at ``pos`` sees (``pos`` None: late binding, the last one)."""
    chosen = None
    for binding in bindings:
        if pos is not None and binding.pos > pos:
            break
        if binding.tag != NONE or chosen is None or chosen.tag == DELETE:
            chosen = binding
    if chosen is None and local_function:
        return pick(bindings, None, False)   # a use before every binding in a function: loop-carried
    return chosen


class Scopes:
    """Every scope and binding of one module, and Python's name lookup over them."""

    def __init__(self, tree: ast.AST) -> None:
        self.module = Scope("module", tree, None)
        self.by_node: dict[int, Scope] = {id(tree): self.module}
        self.star_imports: list[str] = []
        self.calls: list[tuple[ast.Call, Scope]] = []   # statement-level calls (``y = f(x)``, ``f(x)``), for summaries
        self._outer: dict[tuple[int, str], Optional[Binding]] = {}
        _Binder(self).run(tree)

    def close(self) -> None:
        """Break the scope <-> binding cycles, so the model is freed at once even with the collector off."""
        for scope in self.by_node.values():
            scope.names.clear()
            scope.attrs.clear()
            scope.augments.clear()
            scope.narrowed.clear()
            scope.parent = scope.cls = None
        self.by_node.clear()
        self.calls.clear()
        self._outer.clear()

    def rewind(self, count: int) -> None:
        """Drop the scopes opened after the first ``count`` (the expression scopes a first reader opened) and the
        lookups memoised, so that another reader of the same model starts from the bound module."""
        for key in list(self.by_node)[count:]:
            del self.by_node[key]
        self._outer.clear()

    def scope_of(self, node: ast.AST) -> Optional[Scope]:
        """The scope a function, lambda, class or comprehension node opens (None before it is opened)."""
        return self.by_node.get(id(node))

    def open_expression_scope(self, node: ast.AST, parent: Scope) -> Scope:
        """A lambda or comprehension scope, opened when the walk reaches it."""
        scope = self.by_node.get(id(node))
        if scope is not None:
            return scope
        if isinstance(node, ast.Lambda):
            scope = Scope("lambda", node, parent)
            _bind_params(node, scope)
        else:
            scope = Scope("comprehension", node, parent)
            for generator in node.generators:
                _bind_target(scope, generator.target, generator.iter, LOOP, _end(generator.iter), ())
            for element in (getattr(node, "elt", None), getattr(node, "key", None), getattr(node, "value", None)):
                _narrow_expression(element, scope)   # ``[v.item() if isinstance(v, Tensor) else v for v in xs]``
        self.by_node[id(node)] = scope
        return scope

    def lookup(self, name: str, scope: Scope, pos: Optional[Position]) -> Optional[Binding]:
        """The binding ``name`` has at ``pos`` in ``scope`` (None: unbound, a builtin or a star import)."""
        if name in scope.globals:
            scope = self.module
        bindings = scope.names.get(name)
        if bindings and name not in scope.nonlocals:
            binding = pick(bindings, pos, scope.kind in ("function", "lambda", "comprehension"))
            if binding is not None:
                return None if binding.tag == DELETE else binding
        # Above its own scope a name is late-bound: the same answer for every use. A comprehension runs where it
        # stands, though: the scopes around it (up to the first function) are read at its position.
        at = pos if scope.kind == "comprehension" else None
        key = (id(scope), name)
        if at is None and key in self._outer:
            return self._outer[key]
        found = None
        current = scope.parent
        while current is not None:
            if current.kind != "class":
                bindings = current.names.get(name)
                if bindings:
                    binding = pick(bindings, at, at is not None and current.kind != "module")
                    if binding is not None:
                        found = None if binding.tag == DELETE else binding
                        break
            if current.kind != "comprehension":
                at = None
            current = current.parent
        if scope.kind != "comprehension":
            self._outer[key] = found
        return found

    def lookup_reaching(self, name: str, scope: Scope, pos: Optional[Position]) -> list[Binding]:
        """The binding :meth:`lookup` gives and those in other arms of the same ``if`` chain before it."""
        binding = self.lookup(name, scope, pos)
        if binding is None:
            return []
        if not binding.guard:   # not inside an ``if`` arm: nothing else can reach the use
            return [binding]
        owner = next((s for s in (binding.scope, self.module) if binding in s.names.get(name, ())), None)
        if owner is None:   # ``global``/``nonlocal`` bindings live in another scope's list
            return [binding]
        return [b for b in reaching(owner.names[name], binding) if b.tag != DELETE]

    def may_reach(self, name: str, scope: Scope, pos: Position) -> list[Binding]:
        """Every binding of ``name`` that may reach a use at ``pos`` (a *may* query, for data flow): going back
        from the use, bindings until one that runs whenever the use runs (not in an ``if`` arm the use is not
        in), both arms of an ``if`` (an ``if`` without ``else`` keeps the earlier binding), ``n += v``, and in a
        loop the bindings later in its body (loop-carried). Names bound in an enclosing scope: as ``lookup``."""
        bindings = scope.names.get(name)
        if not bindings or name in scope.globals or name in scope.nonlocals:
            return self.lookup_reaching(name, scope, pos)
        guard = tuple((if_id, arm) for if_id, arm, start, end in scope.arms if start <= pos <= end)
        found: list[Binding] = []
        killer: Optional[Position] = None
        for binding in reversed(bindings):
            if binding.pos > pos or binding.tag == NONE:
                continue
            if binding.tag == DELETE:
                killer = binding.pos
                break
            found.append(binding)
            if guard[:len(binding.guard)] == binding.guard:
                killer = binding.pos
                break
        if not found and killer is None:
            binding = self.lookup(name, scope, pos)   # a use before every binding: as ``lookup``
            return [binding] if binding is not None else []
        start_of_path = killer or (0, 0)
        for loop_start, loop_end in scope.loops:   # the back edge of loops holding the use
            if loop_start <= pos <= loop_end and start_of_path < loop_start:
                found.extend(b for b in bindings if pos < b.pos <= loop_end and b.tag not in (NONE, DELETE))
        found.extend(b for b in scope.augments.get(name, ()) if start_of_path < b.pos <= pos or any(
            start <= pos <= end and pos < b.pos <= end and start_of_path < start for start, end in scope.loops))
        return found

    def attribute(self, scope: Scope, name: str) -> list[Binding]:
        """The ``self.<name> = ...`` bindings of the class whose method ``scope`` is (or is inside)."""
        current: Optional[Scope] = scope
        while current is not None and current.cls is None:
            current = current.parent
        if current is None:
            return []
        return [b for b in current.cls.attrs.get(name, ()) if b.tag != NONE]

    def self_name(self, scope: Scope) -> Optional[str]:
        current: Optional[Scope] = scope
        while current is not None:
            if current.cls is not None:
                return current.self_name
            current = current.parent
        return None


def _bind_params(node: ast.AST, scope: Scope) -> None:
    args = node.args
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    pos = _start(node)
    for arg, default in zip(positional, defaults):
        scope.add(Binding(arg.arg, PARAM, default, pos, scope, arg))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        scope.add(Binding(arg.arg, PARAM, default, pos, scope, arg))
    for arg in (args.vararg, args.kwarg):
        if arg is not None:
            scope.add(Binding(arg.arg, PARAM, None, pos, scope, None))


def _bind_target(scope: Scope, target: ast.AST, value: Optional[ast.AST], tag: str, pos: Position,
                 path: tuple[int, ...], statement: Optional[ast.AST] = None) -> None:
    stack = [(target, path)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, ast.Name):
            none = tag == VALUE and isinstance(value, ast.Constant) and value.value is None and not where
            scope.add(Binding(node.id, NONE if none else tag, value, pos, scope, statement, where))
        elif isinstance(node, (ast.Tuple, ast.List)):
            stack.extend((element, where + (index,)) for index, element in enumerate(node.elts))
        elif isinstance(node, ast.Starred):
            stack.append((node.value, where + (STAR,)))
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and scope.cls is not None \
                and node.value.id == scope.self_name:
            none = isinstance(value, ast.Constant) and value.value is None and not where
            scope.cls.attrs.setdefault(node.attr, []).append(
                Binding(node.attr, NONE if none else tag, value, pos, scope, statement, where))


def _narrow_expression(value: Optional[ast.AST], scope: Scope) -> None:
    """``x.item() if isinstance(x, Tensor) else x`` as a statement's value, one of its call's arguments or an
    element of its tuple, list or dict (not deeper: the binder reads statements, not whole expressions)."""
    kind = type(value)
    if kind is ast.Call:
        candidates = [a for a in value.args if type(a) is ast.IfExp]
        candidates += [k.value for k in value.keywords if type(k.value) is ast.IfExp]
    elif kind is ast.IfExp:
        candidates = [value]
    elif kind is ast.Tuple or kind is ast.List:
        candidates = [e for e in value.elts if type(e) is ast.IfExp]
    elif kind is ast.Dict:
        candidates = [v for v in value.values if type(v) is ast.IfExp]
    else:
        return
    for candidate in candidates:
        while type(candidate) is ast.IfExp:   # ``a if isinstance(x, A) else b if isinstance(x, B) else c``
            _narrow(scope, candidate)
            candidate = candidate.orelse


class _Binder:
    """One pass over the statements of a module (bodies of functions and classes included)."""

    def __init__(self, scopes: Scopes) -> None:
        self.scopes = scopes
        self.block_end: Position = (0, 0)   # the end of the block the current statement sits in

    def run(self, tree: ast.AST) -> None:
        """Depth first, in source order (a scope's bindings stay sorted by position)."""
        top = getattr(tree, "body", [])
        stack: list[tuple[object, Scope, tuple, Position]] = [
            (iter(top), self.scopes.module, (), _end(top[-1]) if top else (0, 0))]
        try:
            while stack:
                body, scope, guard, self.block_end = stack[-1]
                statement = next(body, None)
                if statement is None:
                    stack.pop()
                    continue
                _GUARD[0] = guard
                nested: list[tuple[list, Scope]] = []
                self.statement(statement, scope, nested)
                for arm, (inner, inner_scope) in reversed(list(enumerate(nested))):
                    inner_guard = () if inner_scope is not scope else _arm_guard(statement, arm, guard)
                    stack.append((iter(inner), inner_scope, inner_guard, _end(inner[-1]) if inner else (0, 0)))
        finally:
            _GUARD[0] = ()

    def statement(self, node: ast.stmt, scope: Scope, stack: list) -> None:
        kind = type(node)
        value = getattr(node, "value", None)
        if type(value) is ast.Call and kind in _CALL_STATEMENTS:
            self.scopes.calls.append((value, scope))
        if value is not None and kind in _CALL_STATEMENTS:
            _narrow_expression(value, scope)
        if kind is ast.Assign:
            for target in node.targets:
                _bind_target(scope, target, node.value, VALUE, _end(node), (), node)
        elif kind is ast.AnnAssign:   # ``x: Optional[T] = None`` declares what ``x`` holds where it is used
            declared = node.value is None or (isinstance(node.value, ast.Constant) and node.value.value is None)
            tag = ANNOTATION if declared else VALUE
            value = node.annotation if declared else node.value
            _bind_target(scope, node.target, value, tag, _end(node), (), node)
        elif kind is ast.Import:
            for alias in node.names:
                if alias.asname:
                    scope.add(Binding(alias.asname, IMPORT, canonical(alias.name), _end(node), scope, node))
                else:
                    root = alias.name.split(".", 1)[0]
                    scope.add(Binding(root, IMPORT, root, _end(node), scope, node))
        elif kind is ast.ImportFrom:
            module = "." * (node.level or 0) + (node.module or "")
            for alias in node.names:
                if alias.name == "*":
                    self.scopes.star_imports.append(module)
                    continue
                full = f"{module}.{alias.name}" if module and not module.endswith(".") else module + alias.name
                scope.add(Binding(alias.asname or alias.name, IMPORT, canonical(full), _end(node), scope, node))
        elif kind is ast.AugAssign:
            if isinstance(node.target, ast.Name):
                binding = Binding(node.target.id, AUGMENT, node.value, _end(node), scope, node)
                scope.augments.setdefault(node.target.id, []).append(binding)
        elif kind in (ast.For, ast.AsyncFor):
            scope.loops.append((_start(node), _end(node)))
            _bind_target(scope, node.target, node.iter, LOOP, _end(node.iter), (), node)
            stack.append((node.body, scope))
            stack.append((node.orelse, scope))
        elif kind in _FUNCTIONS:
            scope.add(Binding(node.name, DEF, node, _end(node), scope, node))
            function = Scope("function", node, scope)
            _bind_params(node, function)
            if scope.kind == "class" and (node.args.posonlyargs or node.args.args) and not any(
                    isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list):
                function.cls = scope
                function.self_name = (node.args.posonlyargs + node.args.args)[0].arg
            self.scopes.by_node[id(node)] = function
            stack.append((node.body, function))
        elif kind is ast.ClassDef:
            scope.add(Binding(node.name, CLASS, node, _end(node), scope, node))
            body = Scope("class", node, scope)
            self.scopes.by_node[id(node)] = body
            stack.append((node.body, body))
        elif kind in (ast.With, ast.AsyncWith):
            for item in node.items:
                if item.optional_vars is not None:
                    _bind_target(scope, item.optional_vars, item.context_expr, WITH, _end(item.context_expr), (), node)
            stack.append((node.body, scope))
        elif kind is ast.Assert:   # the rest of the block knows what the test proves
            for key, tested, classinfo in isinstance_tests(node.test):
                scope.narrowed.setdefault(key, []).append((_end(node), self.block_end, classinfo, _start(tested), True))
        elif kind is ast.Global:
            scope.globals.update(node.names)
        elif kind is ast.Nonlocal:
            scope.nonlocals.update(node.names)
        elif kind is ast.Delete:
            for target in node.targets:
                if isinstance(target, ast.Name):
                    scope.add(Binding(target.id, DELETE, None, _end(node), scope, node))
        elif kind is ast.If or kind is ast.While:
            if kind is ast.While:
                scope.loops.append((_start(node), _end(node)))
            else:
                for arm, body in enumerate((node.body, node.orelse)):
                    if body:
                        scope.arms.append((id(node), arm, _start(body[0]), _end(body[-1])))
                _narrow(scope, node, self.block_end)
            stack.append((node.body, scope))
            stack.append((node.orelse, scope))
        elif kind is ast.Try or kind.__name__ == "TryStar":
            stack.append((node.body, scope))
            stack.append((node.handlers, scope))
            stack.append((node.orelse, scope))
            stack.append((node.finalbody, scope))
        elif kind is ast.ExceptHandler:
            if node.name:
                scope.add(Binding(node.name, EXCEPT, node.type, _start(node), scope, node))
            stack.append((node.body, scope))
        elif kind.__name__ == "Match":
            for case in node.cases:
                stack.append((case.body, scope))
