"""Which method of the file a call through a class reaches, for the parameter kinds the file's calls pass
(:meth:`npu_lint.analysis.summaries.Summaries.callee`): ``self.helper(x)`` where a base class of the file defines
``helper``, ``super().helper(x)``, ``Helper.sel(obj, x)`` (a class of the file named: no implicit ``self``),
``cls.sel(x)`` in a ``@classmethod``, and ``self.sub.sel(x)`` where ``self.sub`` holds an instance of a class of the
file. Each answers the method's definition and how many leading parameters the call fills implicitly (``self``
through an instance, ``cls`` of a ``@classmethod``; nothing for a ``@staticmethod``). Bounded: the bases are
followed through the file's own classes only, each once; the names of the file's methods are collected once per
file (``self.sub.sel(x)`` is valued only when some class of the file defines ``sel``).
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis.nodes import own_method
from npu_lint.analysis.scopes import CLASS, DEF, Scope

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_BASES = 8   # how many of the file's classes up a chain of bases are searched for a method


def decorated(function: ast.AST, name: str) -> bool:
    return any((isinstance(d, ast.Name) and d.id == name) or (isinstance(d, ast.Attribute) and d.attr == name)
               for d in getattr(function, "decorator_list", ()))


def through_instance(function: ast.AST) -> tuple[ast.AST, int]:
    """A method called on an instance (or ``cls``): ``self`` is filled in, unless it is a ``@staticmethod``."""
    return function, 0 if decorated(function, "staticmethod") else 1


def through_class(function: ast.AST) -> tuple[ast.AST, int]:
    """A method called on its class by name (``Helper.sel(obj, x)``): the caller passes ``self`` explicitly;
    a ``@classmethod`` gets ``cls`` filled in."""
    return function, 1 if decorated(function, "classmethod") else 0


def _own_method(cls: ast.ClassDef, name: str) -> Optional[ast.AST]:
    return own_method(cls, name)   # the class body indexed once


def inherited_method(resolver: "Resolver", cls: ast.ClassDef, name: str, skip_own: bool = False) -> Optional[ast.AST]:
    """``name`` as the class ``cls`` of the file sees it: its own definition (unless ``skip_own``: ``super()``),
    else the nearest base of the file that defines it; None when the chain leaves the file first."""
    value = resolver.class_value(cls)   # fills the parents of the file's classes
    qualname = value[1] if value is not None and isinstance(value[1], str) else None
    if qualname is None:
        qualname = resolver._local_class_name(cls)
    seen: set[str] = set()
    for _ in range(_BASES):
        node = resolver._local_classes.get(qualname) if qualname else None
        if node is None or qualname in seen:
            return None
        seen.add(qualname)
        if not (skip_own and node is cls):
            found = _own_method(node, name)
            if found is not None:
                return found
        resolver.class_value(node)
        qualname = resolver._parents.get(qualname)
    return None


def enclosing_class(scope: Optional[Scope]) -> Optional[Scope]:
    while scope is not None and scope.cls is None:
        scope = scope.parent
    return scope.cls if scope is not None else None


def file_method_names(resolver: "Resolver") -> frozenset:
    """The names of the methods the file's classes define (collected once per file)."""
    key = ("file method names",)
    found = resolver._summaries.get(key)
    if found is None:
        names = set()
        for scope in resolver.scopes.by_node.values() if resolver.scopes is not None else ():
            if scope.kind == "class":
                names.update(name for name, bindings in scope.names.items() if any(b.tag == DEF for b in bindings))
        found = resolver._summaries[key] = frozenset(names)
    return found  # type: ignore[return-value]


def method_callee(resolver: "Resolver", func: ast.Attribute, scope: Scope) -> Optional[tuple[ast.AST, int]]:
    """The method of the file ``receiver.name(...)`` reaches where the receiver is ``super()``, a class of the
    file, or ``self.attr`` holding an instance of one (``self`` itself: :meth:`Summaries.callee`)."""
    receiver = func.value
    if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super":
        cls = enclosing_class(scope)
        if cls is None or not isinstance(cls.node, ast.ClassDef):
            return None
        found = inherited_method(resolver, cls.node, func.attr, skip_own=True)
        return through_instance(found) if found is not None else None
    if func.attr not in file_method_names(resolver):
        return None
    if isinstance(receiver, ast.Name):
        binding = resolver.binding(receiver, scope)
        if binding is not None and binding.tag == CLASS and isinstance(binding.value, ast.ClassDef):
            found = inherited_method(resolver, binding.value, func.attr)
            return through_class(found) if found is not None else None
        return None
    if isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and resolver.scopes is not None \
            and receiver.value.id == resolver.scopes.self_name(scope):
        value = resolver.value_of(receiver, scope)
        node = resolver._local_classes.get(value[1]) if value is not None and isinstance(value[1], str) else None
        found = inherited_method(resolver, node, func.attr) if node is not None else None
        return through_instance(found) if found is not None else None
    return None


def self_method(resolver: "Resolver", func: ast.Attribute, scope: Scope) -> Optional[tuple[ast.AST, int]]:
    """``self.name(...)`` where the class does not define ``name`` but a base class of the file does."""
    if func.attr not in file_method_names(resolver):
        return None
    cls = enclosing_class(scope)
    if cls is None or not isinstance(cls.node, ast.ClassDef):
        return None
    found = inherited_method(resolver, cls.node, func.attr, skip_own=True)
    return through_instance(found) if found is not None else None
