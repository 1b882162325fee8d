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

The pass itself is :mod:`npu_lint.analysis.binder`, the data it records :mod:`npu_lint.analysis.bindings` and where
``isinstance`` tests narrow names :mod:`npu_lint.analysis.narrowing`; their public names are re-exported here.
"""
from __future__ import annotations

import ast
import re
from bisect import bisect_right
from typing import Optional

from npu_lint.analysis.binder import _Binder, _bind_params, _bind_target
from npu_lint.analysis.bindings import (  # noqa: F401  (re-exported)
    ANNOTATION, AUGMENT, CLASS, DEF, DELETE, EXCEPT, IMPORT, LOOP, NONE, PARAM, STAR, VALUE, WITH, Binding, Narrowing,
    Position, Scope, _end)
from npu_lint.analysis.narrowing import _narrow_expression, isinstance_tests   # noqa: F401  (re-exported)

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def enclosing_class(scope: Optional[Scope]) -> Optional[ast.ClassDef]:
    """The class whose method ``scope`` is (or a scope inside such a method is); None outside every class."""
    while scope is not None and scope.cls is None:
        scope = scope.parent
    cls = scope.cls.node if scope is not None else None
    return cls if isinstance(cls, ast.ClassDef) else None


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


_INDEXED = 8   # lists longer than this are searched through a :class:`_Positions` / :class:`_Intervals` index


_MODULE_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\Z")


def literal_module(call: ast.Call) -> Optional[str]:
    """The dotted name a call is given as its one argument (``f("torch.nn")``), else None."""
    if len(call.args) != 1 or call.keywords:
        return None
    arg = call.args[0]
    if type(arg) is not ast.Constant or type(arg.value) is not str or not _MODULE_NAME.match(arg.value):
        return None
    return arg.value


def _alternative_names(value: object) -> bool:
    """``DataLoader if weighted else InfiniteDataLoader``: a choice between two (dotted) names."""
    return type(value) is ast.IfExp and isinstance(value.body, (ast.Name, ast.Attribute)) \
        and isinstance(value.orelse, (ast.Name, ast.Attribute))


def literal_getattr(call: ast.AST) -> Optional[tuple[ast.expr, str]]:
    """``getattr(torch.backends, "cudnn", None)`` -> (``torch.backends``, ``"cudnn"``): the object and the literal
    attribute name of a ``getattr`` call (the builtin is assumed; a default, if given, is the value when the
    attribute is missing, which leaves the name's meaning where it exists), else None."""
    if type(call) is not ast.Call or not isinstance(call.func, ast.Name) or call.func.id != "getattr" \
            or not 2 <= len(call.args) <= 3 or call.keywords:
        return None
    name = call.args[1]
    if type(name) is not ast.Constant or type(name.value) is not str or not name.value.isidentifier():
        return None
    return call.args[0], name.value


class _Positions:
    """A binding list's positions, for lookups in O(log n) on the long lists of hostile files (1,600 rebinds of one
    name were a scan per use). ``upto(pos)``: how many bindings a scan in list order passes before the first one
    after ``pos`` (a bisection of the prefix maxima: the same index whether or not the list is sorted)."""

    __slots__ = ("size", "maxima", "real", "ordered")

    def __init__(self, bindings: list[Binding]) -> None:
        self.size = len(bindings)
        self.maxima: list[Position] = []
        self.real: list[int] = []   # the index of the last binding up to each one that is not ``x = None``
        top: Optional[Position] = None
        last = -1
        for index, binding in enumerate(bindings):
            top = binding.pos if top is None or binding.pos > top else top
            self.maxima.append(top)
            if binding.tag != NONE:
                last = index
            self.real.append(last)
        self.ordered = all(a.pos <= b.pos for a, b in zip(bindings, bindings[1:]))

    def upto(self, pos: Optional[Position]) -> int:
        return self.size if pos is None else bisect_right(self.maxima, pos)

    def after(self, pos: Position) -> int:
        """Sorted lists only: the index of the first binding after ``pos``."""
        return bisect_right(self.maxima, pos)


class _Intervals:
    """``(start, end, ...)`` rows (loops, ``if`` arms) and which of them hold a position, in list order."""

    __slots__ = ("size", "order", "starts", "ends")

    def __init__(self, rows: list, first: int) -> None:
        self.size = len(rows)
        self.order = sorted(range(len(rows)), key=lambda i: rows[i][first])
        self.starts = [rows[i][first] for i in self.order]
        self.ends: list[Position] = []   # the largest end up to each row in the order of starts
        top = None
        for i in self.order:
            end = rows[i][first + 1]
            top = end if top is None or end > top else top
            self.ends.append(top)

    def holding(self, rows: list, first: int, pos: Position) -> list[int]:
        """The indices of the rows with ``start <= pos <= end``, ascending."""
        found = []
        j = bisect_right(self.starts, pos) - 1
        while j >= 0 and self.ends[j] >= pos:
            i = self.order[j]
            if rows[i][first + 1] >= pos:
                found.append(i)
            j -= 1
        found.sort()
        return found


_VIEWS = frozenset({"unbind", "chunk", "split", "tensor_split"})


def viewed_name(node: ast.AST) -> Optional[str]:
    """The plain name ``node`` is, or whose views it lists (``list(sizes.unbind(0))``, ``sizes.chunk(n)``: what a
    collective given them writes into is ``sizes``); None for anything else."""
    if type(node) is ast.Call and type(node.func) is ast.Name and node.func.id in ("list", "tuple") \
            and len(node.args) == 1:
        node = node.args[0]
    if type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr in _VIEWS:
        node = node.func.value
    return node.id if type(node) is ast.Name else None


class Scopes:
    """Every scope and binding of one module, and Python's name lookup over them."""

    def __init__(self, tree: ast.AST) -> None:
        self.module = Scope("module", tree, None)
        self.by_node: dict[int, Scope] = {id(tree): self.module}
        self.star_imports: list[str] = []
        self.calls: list[tuple[ast.Call, Scope]] = []   # statement-level calls (``y = f(x)``, ``f(x)``), for summaries
        self.statements: list[tuple[ast.stmt, Scope]] = []   # every statement, depth first in source order
        self._outer: dict[tuple[Scope, str], Optional[Binding]] = {}
        self._reaching: dict[tuple[Scope, str, Optional[Position]], list[Binding]] = {}   # keeps its scopes alive
        self._alone: dict[Binding, list[Binding]] = {}   # a binding that reaches a use alone: one list, shared
        self._api_roots: Optional[frozenset[str]] = None
        self._class_nodes: Optional[list[ast.AST]] = None   # the module's class statements, listed once
        self._class_defs: Optional[dict[str, list[tuple[ast.AST, ast.AST]]]] = None   # method name -> classes
        self._indexes: dict[int, tuple[list, object]] = {}   # id(list) -> (the list, its _Positions / _Intervals)
        self._on_names: Optional[dict[tuple[int, str], list[ast.Call]]] = None
        _Binder(self).run(tree)

    def close(self) -> None:
        """Break the scope <-> binding cycles, so the model is freed at once even with the collector off."""
        for scope in self.by_node.values():
            scope.names.clear()
            scope.attrs.clear()
            scope.ctx_attrs.clear()
            scope.augments.clear()
            scope.narrowed.clear()
            scope.parent = scope.cls = None
        self.by_node.clear()
        self.calls.clear()
        self._on_names = None
        self.statements.clear()
        self._outer.clear()
        self._reaching.clear()
        self._alone.clear()
        self._indexes.clear()
        self._class_nodes = self._class_defs = None

    def calls_on(self, scope: "Scope", name: str) -> list[ast.Call]:
        """The statement-level calls of ``scope`` whose receiver (``name.add_(n)``) or first argument
        (``dist.all_reduce(name)``, ``dist.all_gather(list(name.unbind(0)), n)``) is the plain name ``name``, in
        source order (indexed once a file: asked per
        binding, a scan of every call was quadratic in a function's bindings)."""
        if self._on_names is None:
            index: dict[tuple[int, str], list[ast.Call]] = {}
            for call, owner in self.calls:
                func = call.func
                names = set()
                if type(func) is ast.Attribute and type(func.value) is ast.Name:
                    names.add(func.value.id)
                written = viewed_name(call.args[0]) if call.args else None
                if written is not None:
                    names.add(written)
                for found in names:
                    index.setdefault((id(owner), found), []).append(call)
            self._on_names = index
        return self._on_names.get((id(scope), name), [])

    def rewind(self, count: int) -> None:
        """Drop the scopes opened after the first ``count`` (the expression scopes a first reader opened) and the
        lookups memoised, so that another reader of the same model starts from the bound module."""
        for key in list(self.by_node)[count:]:
            del self.by_node[key]
        self._outer.clear()
        self._reaching.clear()
        self._alone.clear()
        self._indexes.clear()

    def _positions(self, bindings: list[Binding]) -> _Positions:
        kept = self._indexes.get(id(bindings))
        if kept is None or kept[1].size != len(bindings):   # type: ignore[attr-defined]
            kept = self._indexes[id(bindings)] = (bindings, _Positions(bindings))
        return kept[1]   # type: ignore[return-value]

    def _holding(self, rows: list, first: int, pos: Position) -> list:
        """The rows of ``rows`` (loops: ``first`` 0, arms: 2) whose ``[start, end]`` holds ``pos``, in list order."""
        if len(rows) <= _INDEXED:
            return [row for row in rows if row[first] <= pos <= row[first + 1]]
        kept = self._indexes.get(id(rows))
        if kept is None or kept[1].size != len(rows):   # type: ignore[attr-defined]
            kept = self._indexes[id(rows)] = (rows, _Intervals(rows, first))
        return [rows[i] for i in kept[1].holding(rows, first, pos)]   # type: ignore[attr-defined]

    def _pick(self, bindings: list[Binding], pos: Optional[Position], local_function: bool) -> Optional[Binding]:
        """:func:`pick` through the list's index (the same answer)."""
        if len(bindings) <= _INDEXED:
            return pick(bindings, pos, local_function)
        index = self._positions(bindings)
        count = index.upto(pos)
        if count == 0:
            return self._pick(bindings, None, False) if local_function else None
        last = index.real[count - 1]
        if last < 0:
            return bindings[0]                  # only ``x = None`` bindings: the first
        if bindings[last].tag == DELETE and last + 1 < count:
            return bindings[last + 1]           # ``del x`` then ``x = None``
        return bindings[last]

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
            binding = self._pick(bindings, pos, scope.kind in ("function", "lambda", "comprehension"))
            if binding is not None and binding.guard and pos is not None and scope.arms and scope.kind == "function":
                binding = self._past_other_arms(bindings, binding, scope, pos)
            if binding is not None:
                return None if binding.tag == DELETE else binding
        # Above its own scope a name is late-bound: the same answer for every use. A comprehension runs where it
        # stands, though: the scopes around it (up to the first function) are read at its position.
        at = pos if scope.kind == "comprehension" else None
        key = (scope, name)
        if at is None and key in self._outer:
            return self._outer[key]
        found = None
        current = scope.parent
        while current is not None:
            if current.kind != "class":
                bindings = current.names.get(name)
                if bindings:
                    binding = self._pick(bindings, at, at is not None and current.kind != "module")
                    if binding is not None:
                        found = None if binding.tag == DELETE else binding
                        break
            if current.kind != "comprehension":
                at = None
            current = current.parent
        if scope.kind != "comprehension":
            self._outer[key] = found
        return found

    def _use_arms(self, scope: Scope, pos: Position) -> dict[int, int]:
        """{if id: arm} of the ``if`` arms of ``scope`` that hold ``pos``."""
        return {if_id: arm for if_id, arm, _start_, _end_ in self._holding(scope.arms, 2, pos)}

    @staticmethod
    def _other_arm(binding: Binding, arms: dict[int, int]) -> bool:
        """``binding`` sits in one arm of an ``if`` whose other arm holds the use (``arms``): it never reaches it."""
        return any(if_id in arms and arms[if_id] != arm for if_id, arm in binding.guard)

    def _past_other_arms(self, bindings: list[Binding], binding: Binding, scope: Scope, pos: Position) -> Binding:
        """The binding a use in one arm of an ``if`` sees when the last one before it sits in the other arm
        (``if x.device.type == "cpu": x = x.cpu().numpy()`` / ``else: x[x < t] = 0``, the ``else`` reads the tensor
        bound before the ``if``): the last earlier binding outside the use's other arms. Unchanged when a loop holds
        both (the other arm's value may come round) or when no earlier binding is left (a loop-carried value)."""
        arms = self._use_arms(scope, pos)
        if not self._other_arm(binding, arms):
            return binding
        if any(start <= binding.pos and pos <= end for start, end in self._holding(scope.loops, 0, pos)):
            return binding
        index = bindings.index(binding)
        chosen = None
        for earlier in reversed(bindings[:index]):
            if self._other_arm(earlier, arms):
                continue
            if earlier.tag != NONE:
                return earlier
            chosen = chosen or earlier   # ``x = None`` never hides an earlier binding
        return chosen or binding

    def api_roots(self) -> frozenset[str]:
        """The names some scope binds by an import or to a plain name or dotted name (``cuda = torch.cuda``): the only
        names that may stand for an API (lambdas and comprehensions, opened later, bind parameters and loop targets
        only)."""
        if self._api_roots is None:
            self._api_roots = frozenset(
                name for scope in self.by_node.values() for name, bindings in scope.names.items()
                if any(b.tag == IMPORT or (b.tag == VALUE and not b.path and (
                        isinstance(b.value, (ast.Name, ast.Attribute)) or _alternative_names(b.value)
                        or (type(b.value) is ast.Call and (literal_module(b.value) is not None   # ``try_import("torch")``
                                                            or literal_getattr(b.value) is not None))))
                       for b in bindings))
        return self._api_roots

    def class_nodes(self) -> list[ast.AST]:
        """The values of the module's class bindings (its ``class`` statements, in binding order), listed once:
        the binder made every module binding before anything asks (as :meth:`api_roots`)."""
        if self._class_nodes is None:
            self._class_nodes = [b.value for bindings in self.module.names.values() for b in bindings
                                 if b.tag == CLASS]
        return self._class_nodes

    def class_defs(self, name: str) -> list[tuple[ast.AST, ast.AST]]:
        """``(class, method)`` for each of :meth:`class_nodes` whose body defines a method ``name`` (its first such
        ``def``), in their order: indexed once, not a scan of every class per question."""
        if self._class_defs is None:
            index: dict[str, list[tuple[ast.AST, ast.AST]]] = {}
            for cls in self.class_nodes():
                seen: set[str] = set()
                for statement in cls.body:   # type: ignore[attr-defined]
                    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name not in seen:
                        seen.add(statement.name)
                        index.setdefault(statement.name, []).append((cls, statement))
            self._class_defs = index
        return self._class_defs.get(name, [])

    def plain_values(self, name: ast.Name, scope: Scope) -> Optional[list[tuple[ast.AST, Scope]]]:
        """The values (with their scopes) of every binding of ``name`` reaching it, when each is a plain assignment of
        a value (``x = expr``, not unpacked, a parameter or a loop target); None when one is not, or none reaches."""
        bindings = self.lookup_reaching(name.id, scope, (name.lineno, name.col_offset))
        if not bindings or any(b.tag != VALUE or b.path or not isinstance(b.value, ast.AST) for b in bindings):
            return None
        return [(b.value, b.scope) for b in bindings]   # type: ignore[misc]

    def lookup_reaching(self, name: str, scope: Scope, pos: Optional[Position]) -> list[Binding]:
        """The binding :meth:`lookup` gives and those in other arms of the same ``if`` chain before it (memoised per
        scope, name and position; callers only read the list)."""
        own = scope.names.get(name)
        if own is not None and len(own) == 1 and pos is not None:   # one binding in the scope, before the use, in
            binding = own[0]   # no ``if`` arm: it alone reaches (``lookup``'s answer), without a memo entry per use
            if not binding.guard and binding.pos <= pos and binding.tag != DELETE and name not in scope.globals \
                    and name not in scope.nonlocals:
                alone = self._alone.get(binding)
                if alone is None:
                    alone = self._alone[binding] = [binding]
                return alone
        key = (scope, name, pos)
        found = self._reaching.get(key)
        if found is None:
            found = self._reaching[key] = self._lookup_reaching(name, scope, pos)
        return found

    def _lookup_reaching(self, name: str, scope: Scope, pos: Optional[Position]) -> list[Binding]:
        binding = self.lookup(name, scope, pos)
        if binding is None:
            return []
        if not binding.guard:   # not inside an ``if`` arm: nothing else can reach the use (one list per binding,
            alone = self._alone.get(binding)   # whatever the use: 98,000 uses of ``torch`` in one file made as many)
            if alone is None:
                alone = self._alone[binding] = [binding]
            return alone
        owner = next((s for s in (binding.scope, self.module) if binding in s.names.get(name, ())), None)
        if owner is None:   # ``global``/``nonlocal`` bindings live in another scope's list
            return [binding]
        found = [b for b in reaching(owner.names[name], binding) if b.tag != DELETE]
        if len(found) > 1 and pos is not None and owner is scope and scope.kind == "function" and scope.arms:
            arms = self._use_arms(scope, pos)   # ``if a: x = 1 / elif b: x = 2 / else: use(x)``: neither reaches
            found = [b for b in found if b is binding or not self._other_arm(b, arms)]
        return found

    def may_reach(self, name: str, scope: Scope, pos: Position) -> list[Binding]:
        """Every binding of ``name`` that may reach a use at ``pos`` (a *may* query, for data flow): going back
        from the use, bindings until one that runs whenever the use runs (not in an ``if`` arm the use is not
        in), both arms of an ``if`` (an ``if`` without ``else`` keeps the earlier binding), ``n += v``, and in a
        loop the bindings later in its body (loop-carried). A binding in another arm of an ``if`` chain that holds
        the use never reaches it, unless a loop holding the use holds it too (``if a: x = f()`` / ``else: g(x)``). Names bound in an enclosing scope: as ``lookup``."""
        bindings = scope.names.get(name)
        if not bindings or name in scope.globals or name in scope.nonlocals:
            return self.lookup_reaching(name, scope, pos)
        guard = tuple((if_id, arm) for if_id, arm, start, end in self._holding(scope.arms, 2, pos))
        found: list[Binding] = []
        killer: Optional[Position] = None
        index = self._positions(bindings) if len(bindings) > _INDEXED else None
        ordered = index is not None and index.ordered
        earlier = (bindings[i] for i in range(index.after(pos) - 1, -1, -1)) if ordered else reversed(bindings)  # type: ignore
        arms: Optional[dict[int, int]] = None
        other_arms: list[Binding] = []
        for binding in earlier:
            if binding.pos > pos or binding.tag == NONE:
                continue
            if binding.guard and guard:   # another arm of an ``if`` holding the use: only round a loop holding both
                arms = dict(guard) if arms is None else arms
                if self._other_arm(binding, arms):
                    other_arms.append(binding)
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
        loops = self._holding(scope.loops, 0, pos)
        for loop_start, loop_end in loops:   # the back edge of loops holding the use
            if start_of_path < loop_start:
                later = bindings[index.after(pos):index.after(loop_end)] if ordered else bindings  # type: ignore
                found.extend(b for b in later if pos < b.pos <= loop_end and b.tag not in (NONE, DELETE))
                found.extend(b for b in other_arms if loop_start <= b.pos and b.tag != DELETE and b not in found)
        found.extend(b for b in scope.augments.get(name, ()) if start_of_path < b.pos <= pos or any(
            pos < b.pos <= end and start_of_path < start for start, end in loops))
        return found

    def attribute(self, scope: Scope, name: str) -> list[Binding]:
        """The ``self.<name> = ...`` bindings of the class whose method ``scope`` is (or is inside)."""
        current: Optional[Scope] = scope
        while current is not None and current.cls is None:
            current = current.parent
        if current is None:
            return []
        return [b for b in current.cls.attrs.get(name, ()) if b.tag != NONE]

    def ctx_attribute(self, scope: Scope, name: str) -> list[Binding]:
        """The ``ctx.<name> = ...`` bindings of the static ``forward`` / ``backward`` ... of the class whose such
        method ``scope`` is (or is inside); the resolver says whether the class is an autograd Function."""
        current: Optional[Scope] = scope
        while current is not None and current.ctx_name is None:
            current = current.parent
        if current is None or current.parent is None:
            return []
        return [b for b in current.parent.ctx_attrs.get(name, ()) if b.tag != NONE]

    def ctx_name(self, scope: Scope) -> Optional[str]:
        current: Optional[Scope] = scope
        while current is not None and current.ctx_name is None:
            current = current.parent
        return current.ctx_name if current is not None else None

    def self_name(self, scope: Scope) -> Optional[str]:
        current: Optional[Scope] = scope
        while current is not None:
            if current.cls is not None:
                return current.self_name
            current = current.parent
        return None
