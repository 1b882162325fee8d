"""Tensors made from a Python list whose length a walk over the data decides, for NPU409 (dynamic_samples.py):
``while stack: node = stack.pop(); ...; ids.append(tok)`` then ``torch.tensor(ids)`` (a trie of samples packed
into one row), or ``if mask[p]: index.append(pos)`` with ``mask`` a tensor's values read back (``.tolist()``) --
as many elements as the data holds nodes or set flags, a new length at every batch."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import children as _children   # ``ast.iter_child_nodes``, as a list
from npu_lint.analysis.flows import HOST
from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES

_GROW = frozenset({"append", "extend", "insert"})


def _worklist(loop: ast.While) -> bool:
    """``while stack:`` / ``while len(queue)`` / ``while queue and ...`` whose body pops the list it tests: a walk
    over a structure built from the data (a trie, a graph), as many steps as it holds nodes."""
    names = {n.id for n in walk(loop.test) if isinstance(n, ast.Name)}
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("pop", "popleft")
               and isinstance(n.func.value, ast.Name) and n.func.value.id in names for n in walk(loop))


def _read_flag(test: ast.AST, ctx: FileContext) -> bool:
    """``mask[p]`` (``if mask[p]:``) with ``mask`` holding a tensor's values read back to the host."""
    if not isinstance(test, ast.Subscript) or not isinstance(test.value, ast.Name):
        return False
    return any(flow[0] == HOST for flow in ctx.resolver.flows(test.value))


def traversed_list(node: ast.Call, ctx: FileContext) -> Optional[tuple[ast.AST, str]]:
    """``torch.tensor(xs)`` where the function grows the list ``xs`` (made empty or as a constant list) inside a
    ``while`` loop that walks a worklist, or under an ``if`` on a flag read back from a tensor inside a loop: the
    statement that decides the count and how, else None."""
    if not node.args or not isinstance(node.args[0], ast.Name):
        return None
    name = node.args[0].id
    function = ctx.enclosing(node, FUNCTION_TYPES)
    if function is None:
        return None
    cache = ctx.scratch.setdefault("traversed_lists", {})
    grown = cache.get(id(function))
    if grown is None:
        grown = cache[id(function)] = _grown_lists(function, ctx)
    return grown.get(name)


def _grown_lists(function: ast.AST, ctx: FileContext) -> dict[str, tuple[ast.AST, str]]:
    """Per list name: where a data walk or a read flag decides how often the function grows it."""
    found: dict[str, tuple[ast.AST, str]] = {}
    stack: list[tuple[ast.AST, Optional[tuple[ast.AST, str]], bool]] = [(function, None, False)]
    while stack:
        node, why, looped = stack.pop()
        if node is not function and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                                       ast.ClassDef)):
            continue
        if isinstance(node, ast.While) and _worklist(node):
            why = (node, f"the walk of the worklist at line {node.lineno}")
        elif isinstance(node, ast.If) and looped and why is None and _read_flag(node.test, ctx):
            why = (node, f"the flag {ast.unparse(node.test)} read back from a tensor (line {node.lineno})")
        if why is not None and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in _GROW and isinstance(node.func.value, ast.Name):
            found.setdefault(node.func.value.id, why)
        inner = looped or isinstance(node, (ast.For, ast.While))
        for child in _children(node):
            stack.append((child, why, inner))
    return found
