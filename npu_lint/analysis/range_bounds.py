"""The positions of a range over a size, for the flows of :mod:`npu_lint.analysis.flows`: ``len(range(0, m,
hop))`` (how many windows cover ``m``) and the last start ``starts[-1]`` of ``starts = list(range(0, m, hop))``
are computed from ``m``: a batch maximum or a value read from a tensor there still fixes the size they give
(``padded = starts[-1] + window`` of the sliding windows over a batch padded to its longest wave). A loop
over the range is no such size (its variable is an index; the loop count is the loop rules' business).
Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis.index_forms import constant_index, is_range
from npu_lint.analysis.scopes import Scope

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_WRAPPERS = frozenset({"list", "tuple"})


def range_of(resolver: "Resolver", node: ast.AST, scope: Scope) -> Optional[ast.Call]:
    """The ``range(...)`` call ``node`` is, through ``list()`` / ``tuple()`` and a name bound to it whole."""
    for _ in range(4):
        if isinstance(node, ast.Name):
            node = resolver.bound_value(node, scope)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _WRAPPERS \
                and len(node.args) == 1 and not node.keywords:
            node = node.args[0]
        else:
            break
    return node if is_range(node) and not node.keywords else None


def range_count(resolver: "Resolver", node: ast.Call, scope: Scope) -> Optional[ast.Call]:
    """``len(range(0, m, hop))`` (or of a name bound to it): the range whose bounds fix the count."""
    if isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1 and not node.keywords:
        return range_of(resolver, node.args[0], scope)
    return None


def range_element(resolver: "Resolver", node: ast.Subscript, scope: Scope) -> Optional[ast.Call]:
    """``starts[-1]`` / ``starts[0]`` of ``starts = list(range(0, m, hop))``: an element fixed by the bounds."""
    if constant_index(node.slice):
        return range_of(resolver, node.value, scope)
    return None
