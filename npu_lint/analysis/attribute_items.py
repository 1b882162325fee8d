"""The values of a dict the class keeps in ``self.x``, built empty and filled item by item:
``self.tokenizers = {}`` in ``__init__``, ``self.tokenizers[key] = Tokenizer(...)`` in a method of the class or
of a project base class (another module's, through the project index: its facts' ``x[]`` attribute), then
``self.tokenizers[key].encode(...)``: an instance of ``Tokenizer``. Only a subscript reads an item (iterating a
dict gives its keys); every ``self.x = ...`` of the class must be an empty dict, no method may merge into it
(``update``, ``setdefault``, ``|=``), and every store must agree."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import VALUE, Scope, enclosing_class

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

ITEMS = "[]"   # the suffix of the facts' attribute name for what ``self.x[k] = v`` stores


def empty_dict(value: ast.AST) -> bool:
    """``{}`` or ``dict()``."""
    if isinstance(value, ast.Dict):
        return not value.keys
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" \
        and not value.args and not value.keywords


def attribute_item(resolver: "Resolver", node: ast.Subscript, scope: Scope, depth: int) -> Optional[K.Value]:
    """What ``self.x[k]`` holds when ``self.x`` is a dict built empty and filled by ``self.x[k] = v`` (the values
    agreeing, one store at least); None otherwise."""
    source = node.value
    scopes = resolver.scopes
    if scopes is None or isinstance(node.slice, ast.Slice) or not isinstance(source, ast.Attribute) \
            or not isinstance(source.value, ast.Name) or source.value.id != scopes.self_name(scope):
        return None
    bindings = scopes.attribute(scope, source.attr)
    if not bindings or not all(b.tag == VALUE and not b.path and empty_dict(b.value) for b in bindings):
        return None
    owner = enclosing_class(scope)
    if owner is None:
        return None
    stores = _stores(resolver, owner, source.attr)
    if stores is None:
        return None
    found = [resolver.value_of(value, where, depth + 1) for value, where in stores]
    cls = resolver.class_value(owner)
    inherited = resolver.member_value(cls[1], source.attr + ITEMS, depth + 1) if cls and cls[1] else None
    if inherited is not None:
        found.append(inherited)
    return K.join(found) if found else None


def _stores(resolver: "Resolver", cls: ast.ClassDef, attr: str) -> Optional[list[tuple[ast.AST, Scope]]]:
    """The values ``self.attr[k] = v`` stores in the methods of ``cls``, each with the method's scope (once per
    class and attribute); None when a method merges into the dict (``self.attr.update(d)``, ``setdefault``,
    ``self.attr |= d``): items the code does not show."""
    key = ("item stores", id(cls), attr)
    found = resolver._summaries.get(key, key)
    if found is key:
        found = resolver._summaries[key] = _find_stores(resolver, cls, attr)
    return found   # type: ignore[return-value]


def _find_stores(resolver: "Resolver", cls: ast.ClassDef, attr: str) -> Optional[list[tuple[ast.AST, Scope]]]:
    found = []
    for method in cls.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not method.args.args:
            continue
        self_name = method.args.args[0].arg
        where = resolver.scopes.scope_of(method)
        if where is None:
            continue
        for statement in walk(method):
            if isinstance(statement, ast.Call) and isinstance(statement.func, ast.Attribute) \
                    and statement.func.attr in _MERGES and _self_attribute(statement.func.value, self_name, attr):
                return None
            if isinstance(statement, ast.AugAssign) and _self_attribute(statement.target, self_name, attr):
                return None
            if not isinstance(statement, ast.Assign):
                continue
            for target in statement.targets:
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute) \
                        and target.value.attr == attr and isinstance(target.value.value, ast.Name) \
                        and target.value.value.id == self_name:
                    found.append((statement.value, where))
    return found


_MERGES = frozenset({"update", "setdefault"})


def _self_attribute(node: ast.AST, self_name: str, attr: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) \
        and node.value.id == self_name
