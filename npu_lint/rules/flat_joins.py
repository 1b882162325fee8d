"""NPU409's flattened path (session 24, concat24): a tensor made of per-item lists FLATTENED into one.

The other paths ask how many items a list holds and how long each is; a list of Python values flattened out of
per-item lists escapes them: ``torch.tensor(sum(prompt_chunks, []))`` (one token per token of every prompt),
``torch.tensor(sum([[i] * n for i, n in enumerate(seqlens)], []))`` (a batch index per token),
``torch.LongTensor(idx)`` after ``idx.extend([i] * len(cands))`` per tree, ``torch.as_tensor([t["reward"] for t
in flat])`` with ``flat = flatten_sequences_time_first(episodes)`` (a project helper in another module that
extends a list per step: the index's ``flattens`` fact). Its length is the pieces' lengths together, so it
changes with the data unless every piece is proven of one length (:mod:`npu_lint.analysis.flattened`).

Fires at ``torch.tensor`` / ``as_tensor`` / ``LongTensor`` ... of such a list (or of a comprehension over one),
and at a ``cat`` along dim 0 of a ``sum(..., [])`` / ``chain`` / extended list of tensors. Silent: pieces that are
displays or a display repeated by a constant or a setting (``[0] * 4``, ``[c] * self.k``), a flattening of a
display of lists or of ``self``'s own containers (a model's parameter groups: a flat gradient is the model's own
size), setup code (``__init__``, module level). Asked per call after the other paths found nothing; the
function's assignments are memoised per file.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.flattened import Flattening
from npu_lint.context import FileContext
from npu_lint.rules.broad_joins import JOIN_CATS, JOIN_TENSORS, _function_of, _joined_dim


def _helper(ctx: FileContext, call: ast.Call) -> str:
    """A call of a function returning a flattened list: the file's own (its returns asked, not deeper) or another
    module's (the project index's ``flattens``)."""
    definition = ctx.resolver.definition(call.func)
    if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if definition.name == "__init__":
            return ""
        from npu_lint.analysis.flattened import returns_flattened
        found = ctx.per_node("flat_joins_returns", definition, lambda f: returns_flattened(ctx.resolver, f))
        return f"{definition.name}() returns per-item lists flattened into one" if found else ""
    project = ctx.resolver.project
    name = ctx.resolver.qualname(call.func)
    if project is not None and name and "." in name and project.flattening(name, ctx.resolver.module_name):
        return f"{name.rsplit('.', 1)[-1]}() returns per-item lists flattened into one"
    return ""


def flat_join(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """What the flattened list is made of, when ``node`` makes a tensor of one (or joins one), else None."""
    if not node.args or name not in JOIN_TENSORS and name not in JOIN_CATS:
        return None
    if name in JOIN_CATS and _joined_dim(node) != 0:
        return None
    function = _function_of(node, ctx)
    if function is None or getattr(function, "name", "") == "__init__":
        return None
    asker = ctx.per_node("flat_joins_asker", function,
                         lambda f: Flattening(ctx.resolver, f, lambda call: _helper(ctx, call)))
    items = node.args[0]
    if name in JOIN_CATS and isinstance(items, (ast.ListComp, ast.GeneratorExp)):
        return None     # a comprehension of tensors: the other paths' (a flat gradient is the model's size)
    if name in JOIN_TENSORS and isinstance(items, (ast.List, ast.Tuple)) and len(items.elts) == 1 \
            and not isinstance(items.elts[0], ast.Starred):
        items = items.elts[0]   # ``torch.tensor([ids])``: a batch of one row, the row as long as the list
    found = asker.of(items, node.lineno)
    return found or None
