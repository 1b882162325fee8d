"""NPU401 at a call of a name chosen among several data-dependent callables: ``nms_func = nms_bev`` in one arm and
``nms_func = nms_normal_bev`` in the other, ``nms_op = batched_nms if cfg.batched else nms``, a table of them
(``{'rotate': nms_rotated, 'normal': nms}[kind]``), then ``nms_func(boxes, scores, thr)``. One candidate alone is an
alias, which ``helper_of_file`` already follows; here every candidate the semantic model shows must be a
data-dependent op (a table row that holds whatever the arguments, a project function returning one, the file's own
function whose returned value comes from one): a choice between NMS and a dense op is left alone. Nothing here is a
rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.scopes import PARAM, VALUE
from npu_lint.context import FileContext
from npu_lint.project.facts import ONE_ARGUMENT
from npu_lint.rules.dynamic_wrappers import (MASK_SELECTION, always_dynamic, dynamic_row, flags_left_off,
                                             wrapper_chain)


def chosen_dynamic(node: ast.Call, ctx: FileContext) -> Optional[tuple[list[str], dict[str, str]]]:
    """(the chain to report, the table row of its op) when ``node`` calls a name or ``self`` attribute bound to
    two or more callables that are all data-dependent ops; None otherwise."""
    func = node.func
    if isinstance(func, ast.Name):
        binding = ctx.resolver.binding(func)
        if binding is None or binding.tag not in (VALUE, PARAM):
            return None
    elif not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and ctx.resolver.scopes is not None
              and func.value.id == ctx.resolver.scopes.self_name(ctx.resolver.current)):
        return None
    candidates = ctx.resolver.callable_candidates(func, ctx.resolver.current)
    if len(candidates) < 2:
        return None
    names, leaves = [], []
    for kind, target, _ in candidates:
        chain = _candidate_chain(kind, target, node, ctx)
        if chain is None:
            return None
        names.append(chain[0].rsplit(".", 1)[-1])
        leaves.append(chain[-1])
    row = dynamic_row(leaves[0].removesuffix(ONE_ARGUMENT))
    if row is None:
        return None
    unique = list(dict.fromkeys(names))
    return [f"{ast.unparse(func)} ({' | '.join(unique)})", leaves[0]], row


def _candidate_chain(kind: str, target: object, call: ast.Call, ctx: FileContext) -> Optional[list[str]]:
    """``[name, ..., op]`` when the candidate is a data-dependent op, else None."""
    if kind == "api" and isinstance(target, str):
        if always_dynamic(target):
            return [target]
        chain = ctx.project.returned_leaf(target, ctx.module, always_dynamic) if ctx.project is not None else None
        return list(chain) if chain else None
    if kind == "def" and isinstance(target, (ast.FunctionDef, ast.AsyncFunctionDef)):
        chain = wrapper_chain(target, ctx, off=flags_left_off(call, target))
        if chain and chain[-1] != MASK_SELECTION and dynamic_row(chain[-1].removesuffix(ONE_ARGUMENT)) is not None:
            return chain
    return None
