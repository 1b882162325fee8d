"""The mask kept in a dict under a string key: ``t = {"pos_mask": labels > 0, "labels": labels}`` (or
``dict(pos_mask=...)``, or ``t = {}`` then ``t["pos_mask"] = ...``) and ``x[t["pos_mask"]]``; also the dict a function
of the file returns (``targets = self.get_targets(...)``; ``x[targets["pos_mask"]]``), the targets dicts of detection
and segmentation heads. The model's ``mapping_value`` joins every value of a dict (a mask and a tensor join to a
tensor); this reads the one key. Only a mask is answered (other kinds stay the join's), so nothing but the mask
questions of NPU402 / NPU303 changes. Nothing here reads a key's name."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import VALUE, Scope
from npu_lint.analysis.summaries import return_statements

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_DEPTH = 3


def keyed_mask(resolver: "Resolver", node: ast.Subscript, scope: Scope, depth: int) -> Optional[K.Value]:
    """``(MASK, None)`` when ``node`` reads a string key whose every value the code shows is a mask, else None."""
    key = node.slice
    if depth > _DEPTH or not (isinstance(key, ast.Constant) and isinstance(key.value, str)) \
            or not isinstance(node.value, ast.Name):
        return None
    found = _entries(resolver, node.value, key.value, scope, depth)
    if not found:
        return None
    values = [resolver.value_of(value, where, depth + 1) for value, where in found]
    return (K.MASK, None) if all(v is not None and v[0] == K.MASK for v in values) else None


def _entries(resolver: "Resolver", name: ast.Name, key: str, scope: Scope,
             depth: int) -> list[tuple[ast.AST, Scope]]:
    """The values stored under ``key`` in the dict ``name`` is bound to, each with the scope it is read in."""
    binding = resolver.binding(name, scope)
    if binding is None or binding.tag != VALUE or len(binding.path) > 1:
        return []
    value = binding.value
    if not binding.path and (isinstance(value, ast.Dict) or _dict_call(value, resolver, binding.scope)):
        return _built(resolver, binding, key)
    if isinstance(value, ast.Call):   # ``targets = self.get_targets(...)``, ``_, _, targets = self.get_targets(...)``
        own = resolver.callee(value, binding.scope)
        function = own[0] if own is not None else None
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return _returned(resolver, function, key, depth, binding.path[0] if binding.path else None)
    return []


def _dict_call(value: ast.AST, resolver: "Resolver", scope: Scope) -> bool:
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" \
        and not value.args and resolver.binding(value.func, scope) is None


def _built(resolver: "Resolver", binding, key: str) -> list[tuple[ast.AST, Scope]]:
    """The literal's value for ``key`` and the ``name[key] = v`` stores of the binding's scope; [] when the dict is
    merged into (``update``, ``|=``) or a store's key is not a constant (any key may be written)."""
    scope, value = binding.scope, binding.value
    if isinstance(value, ast.Dict):
        if any(k is None for k in value.keys):
            return []   # ``{**other, ...}``
        found = [(v, scope) for k, v in zip(value.keys, value.values)
                 if isinstance(k, ast.Constant) and k.value == key]
    else:
        found = [(kw.value, scope) for kw in value.keywords if kw.arg == key]
        if any(kw.arg is None for kw in value.keywords):
            return []
    if binding.name in _merged_names(resolver, scope):
        return []
    for target, stored in resolver._stored_items(scope).get(binding.name, ()):
        if binding not in resolver.scopes.lookup_reaching(binding.name, scope, (target.lineno, target.col_offset)):
            continue
        if not isinstance(target.slice, ast.Constant):
            return []
        if target.slice.value == key:
            found.append((stored, scope))
    return found


def _returned(resolver: "Resolver", function: ast.AST, key: str, depth: int,
              position: Optional[int] = None) -> list[tuple[ast.AST, Scope]]:
    """The values under ``key`` of the dicts every return statement of the file's function returns (element
    ``position`` of the tuple it returns, when the call is unpacked)."""
    inner = resolver.scopes.scope_of(function) if resolver.scopes is not None else None
    returns = [r.value for r in return_statements(function) if r.value is not None]
    if inner is None or not returns:
        return []
    found: list[tuple[ast.AST, Scope]] = []
    for returned in returns:
        if position is not None:
            if not isinstance(returned, ast.Tuple) or len(returned.elts) <= position \
                    or any(isinstance(e, ast.Starred) for e in returned.elts):
                return []
            returned = returned.elts[position]
        if isinstance(returned, ast.Name):
            entries = _entries(resolver, returned, key, inner, depth + 1)
        elif isinstance(returned, ast.Dict) or _dict_call(returned, resolver, inner):
            entries = _literal(returned, key, inner)
        else:
            return []
        if not entries:
            return []
        found.extend(entries)
    return found


def _literal(value: ast.AST, key: str, scope: Scope) -> list[tuple[ast.AST, Scope]]:
    if isinstance(value, ast.Dict):
        return [(v, scope) for k, v in zip(value.keys, value.values) if isinstance(k, ast.Constant) and k.value == key]
    return [(kw.value, scope) for kw in value.keywords if kw.arg == key]


def _merged_names(resolver: "Resolver", scope: Scope) -> frozenset[str]:
    """The names a scope merges into (``d.update(...)``, ``d.setdefault(...)``, ``d |= ...``), once per scope."""
    key = ("dict merges", id(scope))
    found = resolver._summaries.get(key)
    if found is None:
        names = set()
        for node in walk(scope.node) if scope.node is not None else ():
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                    "update", "setdefault") and isinstance(node.func.value, ast.Name):
                names.add(node.func.value.id)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
        found = resolver._summaries[key] = frozenset(names)
    return found   # type: ignore[return-value]
