"""NPU409's sibling path (session 33, rec33a): a join of one of several results a call gives per element, whose
sibling the function tags row by row with the element's index.

A loop that unpacks one call per sample (``res_voxels, res_coors, res_num_points = self.voxel_layer(res)``, a
voxelization, a sparse encoder, a per-image detector) and appends each result to its own list: when the function
writes the sample's index on every row of one of them (``F.pad(res_coors, (1, 0), value=i)``, ``torch.full((len(c),
1), i)`` joined side by side, in the same loop or in a later ``for i, c in enumerate(coors)``), the rows differ in
number from sample to sample -- a tag is only needed then -- and the results the same call gave beside it have the
same rows: their joins along dim 0 vary too (the inverted path takes a callable object's result of the item as
fixed, and the tag proves only the tagged list). Asked per join after the other paths; the loop's assignments are
read through broad_joins' per-file memo.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules.broad_joins import JOIN_CATS, _encloses, _function_of, _joined_dim
from npu_lint.rules.filled_joins import _fills, _enclosing_loops
from npu_lint.rules.sample_tags import tagged_rows


def _assigned(loop: ast.AST, name: str) -> list[ast.AST]:
    return [stmt.value for stmt in walk(loop) if isinstance(stmt, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)]


def _indices(loop: ast.AST) -> dict[str, set[str]]:
    """``{"i": {"res"}}`` for ``for i, res in enumerate(points)``; empty for any other loop."""
    source, target = loop.iter, loop.target   # type: ignore[attr-defined]
    if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "enumerate" \
            and isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name):
        return {target.elts[0].id: {n.id for n in walk(target.elts[1]) if isinstance(n, ast.Name)}}
    return {}


def _tagged(loop: ast.AST, name: str, ctx: FileContext) -> bool:
    """``name`` is given the loop's index on each of its rows in ``loop``'s body."""
    indices = _indices(loop)
    return bool(indices) and any(tagged_rows(value, indices, lambda n: _assigned(loop, n), ctx) is not None
                                 for value in _assigned(loop, name))


def _tagged_later(function: ast.AST, lists: set[str], after: int, ctx: FileContext) -> Optional[int]:
    """A later ``for i, c in enumerate(lst)`` over one of ``lists`` that tags ``c``'s rows: its line."""
    for loop in walk(function):
        if isinstance(loop, ast.For) and loop.lineno > after and isinstance(loop.iter, ast.Call) \
                and loop.iter.args and isinstance(loop.iter.args[0], ast.Name) and loop.iter.args[0].id in lists:
            indices = _indices(loop)
            for item in {n for names in indices.values() for n in names}:
                for stmt in walk(loop):
                    if isinstance(stmt, ast.Assign) and tagged_rows(stmt.value, indices,
                                                                   lambda n: _assigned(loop, n), ctx) is not None \
                            and any(isinstance(n, ast.Name) and n.id == item for n in walk(stmt.value)):
                        return loop.lineno
    return None


def sibling_join(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """Why the joined list's items vary: a sibling result of the same call tagged with the sample's index."""
    if name not in JOIN_CATS or name in ("torch.hstack", "torch.vstack") or not node.args \
            or not isinstance(node.args[0], ast.Name) or _joined_dim(node) != 0:
        return None
    function = _function_of(node, ctx)
    if function is None or getattr(function, "name", "") == "__init__":
        return None
    fills = _fills(function, ctx)
    for call, added in fills.get(node.args[0].id, ()):
        if call.lineno > node.lineno or not isinstance(added, ast.Name):
            continue
        loops = [loop for loop in _enclosing_loops(call, ctx) if not _encloses(loop, node)]
        if not loops:
            continue
        loop = loops[0]
        unpack = next((stmt for stmt in walk(loop) if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)
                       and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)
                       and any(isinstance(e, ast.Name) and e.id == added.id for e in stmt.targets[0].elts)), None)
        if unpack is None:
            continue
        siblings = {e.id for e in unpack.targets[0].elts if isinstance(e, ast.Name) and e.id != added.id}
        for sibling in sorted(siblings):
            if _tagged(loop, sibling, ctx):
                return (f"one of the results of {ast.unparse(unpack.value.func)}() "
                        f"per element (line {unpack.lineno}), whose sibling {sibling} the loop tags row by row with the "
                        f"element's index: as many rows as it")
        lists = {key for key, adds in fills.items() if any(isinstance(a, ast.Name) and a.id in siblings
                                                           and _encloses(loop, c) for c, a in adds)}
        later = _tagged_later(function, lists, loop.lineno, ctx) if lists else None
        if later is not None:
            return (f"one of the results of {ast.unparse(unpack.value.func)}() per element (line {unpack.lineno}), "
                    f"whose siblings the loop of line {later} tags row by row with their index: as many rows as they")
    return None
