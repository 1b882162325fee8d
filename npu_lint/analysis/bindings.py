"""The data of name binding: a :class:`Binding` (one place a name gets a value) and a :class:`Scope` (module, class,
function, lambda or comprehension), their tags and source positions. Built by :mod:`npu_lint.analysis.binder`,
looked up by :class:`npu_lint.analysis.scopes.Scopes` (which re-exports these names)."""
from __future__ import annotations

import ast
from typing import Optional

# Binding tags.
IMPORT, VALUE, NONE, PARAM, LOOP, WITH, DEF, CLASS, DELETE, EXCEPT, ANNOTATION, AUGMENT = (
    "import", "value", "none", "param", "loop", "with", "def", "class", "delete", "except", "annotation", "augment")
STAR = -1   # a path step for ``a, *rest = ...``
Position = tuple[int, int]
# The static methods of an autograd Function whose first parameter is the call's context (``ctx``).
AUTOGRAD_STATIC = frozenset({"forward", "backward", "setup_context", "jvp", "vjp"})

_GUARD: list[tuple[tuple[int, int], ...]] = [()]   # the binder's current if-arms (set while binding)
# (start, end, classinfo, test position): where ``isinstance(name, classinfo)`` is known to hold.
Narrowing = tuple[Position, Position, ast.AST, Position, bool]   # ... and whether the test holds (False: refuted)


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
                 "loops", "augments", "narrowed", "ctx_attrs", "ctx_name")

    def __init__(self, kind: str, node: Optional[ast.AST], parent: Optional["Scope"]) -> None:
        self.kind, self.node, self.parent = kind, node, parent
        self.names: dict[str, list[Binding]] = {}
        self.globals: set[str] = set()
        self.nonlocals: set[str] = set()
        self.attrs: dict[str, list[Binding]] = {}   # class scopes: ``self.x = ...`` from any method
        self.self_name: Optional[str] = None         # methods: the name of the first parameter
        # class scopes: ``ctx.x = ...`` in a static ``forward`` / ``backward`` (an autograd Function's context, shared
        # by the two halves of one call); function scopes: the name of that first parameter
        self.ctx_attrs: dict[str, list[Binding]] = {}
        self.ctx_name: Optional[str] = None
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


def _end(node: ast.AST) -> Position:
    return (getattr(node, "end_lineno", None) or node.lineno, getattr(node, "end_col_offset", None) or 0)


def _start(node: ast.AST) -> Position:
    return (node.lineno, node.col_offset)
