"""A class's own ``__iter__`` yielding chunks cut in fixed steps (``class ChunkSampler(Sampler)``, ``yield
idx[i:i + self.batch_size]`` in ``for i in range(0, n, bs)``; a batch iterator yielding ``self.collate(...)`` of
them): the loader it is given to as ``batch_sampler=``, or the loop iterating it, batches by those chunks, so the
short last one is a short last batch (GOLD: custom batch samplers/iterators that yield a short tail). Nothing
here is a rule: NPU407 (short_chunks.py) asks it of a chunk never made a tensor in its own loop. loops26."""
from __future__ import annotations

import ast

from npu_lint.context import FileContext


def sampler_yield(node: ast.AST, loop: ast.AST, ctx: FileContext) -> bool:
    """``node`` (a chunk) is yielded by the ``__iter__`` of a class (a sampler's, or a batch iterator's: the class
    is what a loop iterates batch by batch), whole or inside the yielded value (``yield self.collate([self.data[j]
    for j in order[i:i + bs]])``), directly or through the name it is bound to in ``loop``."""
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
    if not isinstance(function, ast.FunctionDef) or function.name != "__iter__" \
            or not isinstance(ctx.parent(function), ast.ClassDef):
        return False
    current, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, (ast.Yield, ast.stmt)):
        current, parent = parent, ctx.parent(parent)
    if isinstance(parent, ast.Yield):
        return True
    names = {t.id for t in parent.targets if isinstance(t, ast.Name)} \
        if isinstance(parent, ast.Assign) and parent.value is current else set()
    return bool(names) and any(isinstance(y, ast.Yield) and y.value is not None
                               and any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(y.value))
                               for y in ast.walk(loop))
