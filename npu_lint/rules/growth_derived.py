"""NPU408, broad path (session 23, growth23): a join of a sequence the same loop of steps grows.

The op is the trigger: ``y = cat([g, new], dim)`` in a loop of steps (broad_joins' ``_step_loop``: a ``while``,
steps of a ``range``, a loader) where ``g`` (whole, its rows reordered ``g[beam_idx, :]``, or rearranged
``g.view(...)``) is a name the loop grows by a ``cat`` of itself (``token_ids = cat([token_ids, tok], -1)``), or a
name the loop binds from the rows of one (``group_ids = input_ids[group_idx]`` in a loop over beam groups nested in
the decoding loop): ``y`` is one step longer at every iteration too, a new shape per step (FastNLP's beam search
``_token_ids = cat([token_ids, next_tokens], -1)``, group beam search in Hugging Face's copies and open_clip's CoCa
``group_input_ids = cat([group_input_ids[beam_idx, :], next], -1)``). The growth itself is reported at its own
``cat`` by broad_joins.py; this path reports the joins that follow it.

Silent for a window of the grown name (``g[:, -1:]``, a slice: a fixed length), the grown name joined back into
itself (broad_joins' business, with its own reasons to stay silent: trimmed, set otherwise), a name the loop also
cuts back (``g = g[:, -n:]``), a host piece, and outside a loop of steps. The per-loop index of grown names is built
once (``FileContext.per_node``).
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.analysis.step_growth import rearranged, reordered
from npu_lint.bounded import unparse
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES
from npu_lint.rules.growth_carried import named_join

_CATS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.hstack"})
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _base(piece: ast.AST) -> Optional[str]:
    """``g`` for ``g``, ``g[beam_idx, :]``, ``g.index_select(0, i)``, ``g.view(b, -1)``; None for a window."""
    for _ in range(4):
        if isinstance(piece, ast.Name):
            return piece.id
        rows = reordered(piece)
        if rows is not piece:
            piece = rows
        elif isinstance(piece, ast.Call) and isinstance(piece.func, ast.Attribute) \
                and rearranged(piece, unparse(piece.func.value)):
            piece = piece.func.value
        else:
            return None
    return None


def _grown_in(loop: ast.AST) -> tuple[frozenset[str], dict[str, str]]:
    """Names the loop grows by a ``cat`` of themselves (never cut back by a slice in it), and names it binds from
    the rows of one of them (``group_ids = input_ids[idx]``) -> that name."""
    grown: set[str] = set()
    cut: set[str] = set()
    bound: dict[str, list[ast.AST]] = {}
    for node in walk(loop):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            continue
        target, value = node.targets[0].id, node.value
        bound.setdefault(target, []).append(value)
        if isinstance(value, ast.Subscript) and any(isinstance(n, ast.Slice) for n in ast.walk(value.slice)) \
                and _base(value) is None:
            cut.add(target)
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in (
                "cat", "concat", "hstack") and value.args and isinstance(value.args[0], (ast.List, ast.Tuple)) \
                and len(value.args[0].elts) >= 2 and _base(value.args[0].elts[0]) == target:
            grown.add(target)
    grown -= cut
    rows = {}
    for name, values in bound.items():
        if name in cut:
            continue
        sources = {_base(v) if not isinstance(v, ast.Name) else None for v in values
                   if not (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in (
                       "cat", "concat", "hstack"))}
        if len(sources) == 1 and next(iter(sources)) in grown - {name}:
            rows[name] = next(iter(sources))   # set from another grown name's rows (and maybe joined again)
    return frozenset(grown), rows


def derived_join(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """What grows (for the message), else None: see the module's docstring."""
    stmt = named_join(node, name, ctx, _CATS)
    if stmt is None:
        return None
    base = _base(node.args[0].elts[0])
    if base is None:
        return None
    from npu_lint.rules.broad_joins import _host_piece, _step_loop
    if any(_host_piece(p, ctx) for p in node.args[0].elts[1:]):
        return None
    target = stmt.targets[0].id
    child, parent = stmt, ctx.parent(stmt)
    while parent is not None and not isinstance(parent, FUNCTION_TYPES):
        if isinstance(parent, _LOOPS) and child in parent.body and _step_loop(parent, ctx):
            grown, rows = ctx.per_node("growth_derived", parent, _grown_in)
            if base in rows:
                return (f"{target} = cat([{base}, ...]) of {base}, rows of {rows[base]}, which the loop of line "
                        f"{parent.lineno} grows,")
            if base in grown and target != base:
                return f"{target} = cat([{base}, ...]) of {base}, which the loop of line {parent.lineno} grows,"
        child, parent = parent, ctx.parent(parent)
    return None
