"""Bounded, non-recursive views of user-controlled ``ast`` subtrees: text for messages and structural equality.

``ast.unparse`` and ``ast.dump`` recurse once per nesting level and cost the size of the whole subtree, so a
1,000-term sum or a 400-link attribute chain ends in ``RecursionError`` and calling them on every node of a long
line is quadratic. Rules use :func:`unparse` and :func:`same` instead: both visit a bounded number of nodes with
an explicit stack.
"""
from __future__ import annotations

import ast
from typing import Optional

MAX_NODES = 64      # nodes copied into the text of one message
MAX_DEPTH = 24      # nesting kept in that text
MAX_COMPARED = 500  # nodes compared before two subtrees count as different
_ELIDED = "..."
# Leaf singletons unparse needs to see as they are (operators, contexts).
_KEEP = (ast.operator, ast.unaryop, ast.cmpop, ast.boolop, ast.expr_context)


def _pruned(node: ast.AST, max_nodes: int, max_depth: int) -> ast.AST:
    """A copy of ``node`` whose expressions beyond ``max_nodes`` nodes or ``max_depth`` levels read ``...``."""
    budget = max_nodes
    root = type(node)()
    stack: list[tuple[ast.AST, ast.AST, int]] = [(node, root, 0)]

    def child(value: ast.AST, depth: int) -> ast.AST:
        nonlocal budget
        if isinstance(value, _KEEP):
            return value
        too_deep = depth > max_depth and not isinstance(value, (ast.Name, ast.Constant))
        if isinstance(value, (ast.expr, ast.stmt)) and (budget <= 0 or too_deep):
            elided = ast.Name(id=_ELIDED, ctx=ast.Load())
            return ast.Expr(value=elided) if isinstance(value, ast.stmt) else elided
        budget -= 1
        copy = type(value)()
        stack.append((value, copy, depth))
        return copy

    while stack:
        original, copy, depth = stack.pop()
        for name in original._fields:
            value = getattr(original, name, None)
            if isinstance(value, list):
                value = [child(item, depth + 1) if isinstance(item, ast.AST) else item for item in value]
            elif isinstance(value, ast.AST):
                value = child(value, depth + 1)
            setattr(copy, name, value)
        for name in original._attributes:   # positions: unparse reads lineno for type comments
            if hasattr(original, name):
                setattr(copy, name, getattr(original, name))
    return root


def unparse(node: ast.AST, limit: Optional[int] = None, max_nodes: int = MAX_NODES, max_depth: int = MAX_DEPTH) -> str:
    """``ast.unparse(node)`` for a message: deep or large parts elided as ``...``, cut to ``limit`` characters."""
    try:
        text = ast.unparse(_pruned(node, max_nodes, max_depth))
    except (RecursionError, AttributeError, KeyError, TypeError, ValueError):
        text = f"<{type(node).__name__.lower()}>"
    if limit is not None and len(text) > limit:
        text = text[:limit - 3] + "..."
    return text


def same(a: ast.AST, b: ast.AST, max_nodes: int = MAX_COMPARED) -> bool:
    """``ast.dump(a) == ast.dump(b)`` (fields, not positions), iteratively; subtrees larger than ``max_nodes``
    count as different."""
    stack: list[tuple[object, object]] = [(a, b)]
    seen = 0
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, ast.AST):
            seen += 1
            if seen > max_nodes:
                return False
            stack.extend((getattr(x, name, None), getattr(y, name, None)) for name in x._fields)
        elif isinstance(x, list):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif x != y:
            return False
    return True
