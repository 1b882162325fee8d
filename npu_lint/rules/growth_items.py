"""NPU408's reading of a carried sequence whose every item grows: ``past = tuple((torch.cat([pk, k], 2),
torch.cat([pv, v], 2)) for (pk, pv), (k, v) in zip(past, new))`` in a loop over steps (a key/value cache of each
layer, rebuilt from its own items one step longer at every iteration). Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES
from npu_lint.rules.loop_arms import carried

_WRAPPERS = frozenset({"tuple", "list"})


def _comprehension_of(node: ast.Call, ctx: FileContext) -> Optional[ast.AST]:
    """The comprehension ``node`` is (part of) the element of."""
    parent = ctx.parent_anywhere(node)
    while parent is not None and not isinstance(parent, (ast.GeneratorExp, ast.ListComp, ast.stmt)):
        parent = ctx.parent_anywhere(parent)
    return parent if isinstance(parent, (ast.GeneratorExp, ast.ListComp)) else None


def _item_names(target: ast.AST, iterated: ast.AST, carried_name: str) -> set[str]:
    """The names a comprehension target binds from the items of ``carried_name`` (also through ``zip`` and
    ``enumerate``)."""
    if isinstance(iterated, ast.Name):
        return {n.id for n in walk(target) if isinstance(n, ast.Name)} if iterated.id == carried_name else set()
    if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.func.id in ("zip",
                                                                                                     "enumerate"):
        if iterated.func.id == "enumerate" and iterated.args and isinstance(target, ast.Tuple) \
                and len(target.elts) == 2:
            return _item_names(target.elts[1], iterated.args[0], carried_name)
        if iterated.func.id == "zip" and isinstance(target, ast.Tuple) and len(target.elts) == len(iterated.args):
            return {name for element, source in zip(target.elts, iterated.args)
                    for name in _item_names(element, source, carried_name)}
    return set()


def grown_items(node: ast.Call, ctx: FileContext) -> Optional[str]:
    """``name = tuple(... cat([item, new]) ... for item in name)`` (or a list comprehension) carried through a
    loop over steps, ``item`` bound from the items of ``name``: each item one step longer every iteration. The
    carried name, else None."""
    comprehension = _comprehension_of(node, ctx)
    if comprehension is None or len(comprehension.generators) != 1:   # type: ignore[attr-defined]
        return None
    value: ast.AST = comprehension
    parent = ctx.parent_anywhere(comprehension)
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in _WRAPPERS \
            and parent.args == [comprehension]:
        value, parent = parent, ctx.parent_anywhere(parent)
    if not (isinstance(parent, ast.Assign) and parent.value is value and len(parent.targets) == 1
            and isinstance(parent.targets[0], ast.Name)):
        return None
    name = parent.targets[0].id
    generator = comprehension.generators[0]   # type: ignore[attr-defined]
    items = _item_names(generator.target, generator.iter, name)
    first = node.args[0].elts[0] if isinstance(node.args[0], (ast.List, ast.Tuple)) and node.args[0].elts else None
    if not isinstance(first, ast.Name) or first.id not in items:
        return None
    loop = ctx.enclosing(parent, (ast.For, ast.While, *FUNCTION_TYPES))
    if not isinstance(loop, (ast.For, ast.While)) or not carried(loop, parent, name, ctx=ctx):
        return None
    return name
