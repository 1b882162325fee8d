"""The values a function appends to a list it builds (``sizes = []`` ... ``sizes.append(int((batch == b).sum()))``,
``sizes.extend(counts.tolist())``, ``sizes += [n]``): the list's elements, for the flows of
:mod:`npu_lint.analysis.flows` (``torch.split(x, sizes)`` then takes its sizes from those reads), as ``xs[i] = v``
stores are (:meth:`npu_lint.analysis.elements.Elements.stored_values`). Only appends the list's binding reaches.
Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from npu_lint.analysis.nodes import walk

if TYPE_CHECKING:
    from npu_lint.analysis.scopes import Binding, Scope
    from npu_lint.resolver import Resolver

_ADDING = frozenset({"append", "extend", "insert"})


def appended_values(resolver: "Resolver", binding: "Binding") -> list[ast.AST]:
    """The values appended to the list ``binding`` gives its name, where the appends see that binding."""
    found = []
    for receiver, value in _appends(resolver, binding.scope).get(binding.name, ()):
        if binding in resolver.scopes.lookup_reaching(binding.name, binding.scope,
                                                      (receiver.lineno, receiver.col_offset)):
            found.append(value)
    return found


def append_receivers(resolver: "Resolver", scope: "Scope", name: str) -> list[ast.Name]:
    """Where the scope's own body appends to ``name`` (``name.append(v)``, ``extend``, ``insert``): the receivers,
    from the memoised index of the scope's appends."""
    return [receiver for receiver, _ in _appends(resolver, scope).get(name, ())]


def _appends(resolver: "Resolver", scope: "Scope") -> dict[str, list[tuple[ast.Name, ast.AST]]]:
    """``name.append(v)`` / ``name.extend(v)`` / ``name.insert(i, v)`` in a scope's own body, by name (memoised)."""
    key = ("appends", id(scope))
    found = resolver._summaries.get(key)
    if found is None:
        found = {}
        node = scope.node
        if node is not None and not isinstance(node, ast.Module):
            for call in walk(node):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _ADDING \
                        and isinstance(call.func.value, ast.Name) and call.args and not call.keywords:
                    found.setdefault(call.func.value.id, []).append((call.func.value, call.args[-1]))
        resolver._summaries[key] = found
    return found   # type: ignore[return-value]
