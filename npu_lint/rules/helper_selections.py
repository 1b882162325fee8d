"""NPU409's helper path (session 33, rec33a): a join of what the file's own helper returns per step as a selection.

A loop that calls a helper of the file once per image, class or level (``anchor_targets =
self.anchor_target_single_assigner(...)``), unpacks its tuple (``(labels, ..., pos_inds, neg_inds) =
anchor_targets``) and appends one element to a list joined along dim 0 after the loop: when the helper binds that
element to a data-dependent selection on some path (``torch.nonzero(m).squeeze(-1)``, ``x[mask]``, ``unique``, a
sampler's ``sampling_result.pos_inds``), each item holds as many rows as the data keeps, so the joined length
changes with the data. The other paths take a helper's result as fixed (it mostly is: features, per-level
anchors); this one reads the helper. Asked per join after the other paths; each helper's answer is memoised per
file.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules.broad_joins import JOIN_CATS, _encloses, _function_of, _joined_dim
from npu_lint.rules.filled_joins import _SELECTIONS, _enclosing_loops, _fills
from npu_lint.rules.mask_reads import is_bool_index

_KEEP = frozenset({"squeeze", "view", "reshape", "flatten", "long", "int", "to", "contiguous", "detach", "clone",
                   "cpu", "cuda", "npu", "unique"})
_SAMPLER_FIELDS = frozenset({"pos_inds", "neg_inds", "pos_assigned_gt_inds", "pos_gt_bboxes", "pos_gt_labels",
                             "pos_bboxes", "neg_bboxes", "pos_priors", "neg_priors"})


def _selection(value: ast.AST, ctx: FileContext) -> bool:
    """A data-dependent selection: ``torch.nonzero(m, as_tuple=False).squeeze(-1).unique()``, one-argument
    ``torch.where(m)[0]``, ``x[mask]``, a sampler's ``res.pos_inds``."""
    while True:
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _KEEP:
            if value.func.attr == "unique":
                return True
            value = value.func.value
        elif isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) \
                and isinstance(value.slice.value, int):
            value = value.value      # ``torch.where(m)[0]``
        else:
            break
    if isinstance(value, ast.Call):
        func = value.func
        callee = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if callee not in _SELECTIONS or callee == "where" and len(value.args) != 1:
            return False
        return (ctx.resolver.qualname(func) or "torch.").startswith("torch.")
    if isinstance(value, ast.Attribute):
        return value.attr in _SAMPLER_FIELDS
    if isinstance(value, ast.Subscript) and isinstance(value.ctx, ast.Load):
        index = value.slice.elts[0] if isinstance(value.slice, ast.Tuple) and value.slice.elts else value.slice
        return not isinstance(index, (ast.Slice, ast.Constant)) and is_bool_index(index, ctx)
    return False


def _returned_selection(helper: ast.AST, position: int, length: int, ctx: FileContext) -> Optional[int]:
    """The line where ``helper`` binds the ``position``-th element of the ``length``-tuple it returns to a selection,
    else None (memoised per helper and position)."""
    memo = ctx.scratch.setdefault("helper_selections", {})
    key = (id(helper), position, length)
    if key in memo:
        return memo[key]
    memo[key] = None
    for ret in walk(helper):
        if not isinstance(ret, ast.Return) or not isinstance(ret.value, ast.Tuple) or len(ret.value.elts) != length:
            continue
        element = ret.value.elts[position]
        candidates = [element]
        if isinstance(element, ast.Name):
            candidates = [stmt.value for stmt in walk(helper) if isinstance(stmt, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == element.id for t in stmt.targets)]
        found = next((c.lineno for c in candidates if _selection(c, ctx)), None)
        if found is not None:
            memo[key] = found
            break
    return memo[key]


def _helper_calls(value: ast.AST, loop: ast.AST) -> list[ast.Call]:
    """``value`` itself when a call, else the calls the loop binds the name ``value`` to."""
    if isinstance(value, ast.Call):
        return [value]
    if not isinstance(value, ast.Name):
        return []
    return [stmt.value for stmt in walk(loop) if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)
            and any(isinstance(t, ast.Name) and t.id == value.id for t in stmt.targets)]


def helper_selection_join(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """Why the joined list's items vary: the file's helper returns each as a selection the data decides."""
    if name not in JOIN_CATS or name in ("torch.hstack", "torch.vstack") or not node.args \
            or not isinstance(node.args[0], ast.Name) or _joined_dim(node) != 0:
        return None
    function = _function_of(node, ctx)
    if function is None or getattr(function, "name", "") == "__init__":
        return None
    for call, added in _fills(function, ctx).get(node.args[0].id, ()):
        if call.lineno > node.lineno or not isinstance(added, ast.Name):
            continue
        loops = [loop for loop in _enclosing_loops(call, ctx) if not _encloses(loop, node)]
        if not loops:
            continue
        for stmt in walk(loops[0]):
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], (ast.Tuple, ast.List))):
                continue
            elts = stmt.targets[0].elts
            position = next((i for i, e in enumerate(elts) if isinstance(e, ast.Name) and e.id == added.id), None)
            if position is None or any(isinstance(e, ast.Starred) for e in elts):
                continue
            for helper_call in _helper_calls(stmt.value, loops[0]):
                own = ctx.resolver.own_function(helper_call)
                helper = own[0] if own is not None else None
                if not isinstance(helper, (ast.FunctionDef, ast.AsyncFunctionDef)) or helper is function:
                    continue
                line = _returned_selection(helper, position, len(elts), ctx)
                if line is not None:
                    return (f"what {helper.name}() returns per step of the loop of line {loops[0].lineno}, a selection "
                            f"the data decides (line {line})")
    return None
