"""NPU409's evidence for a list of per-sample results one helper computes sample by sample (OpenMMLab's
``multi_apply(self._get_targets_single, priors, gt_instances, ...)``): the element the list is unpacked from is,
in the helper, a tensor of no rows on one path (``cls_preds.new_zeros((0, num_classes))``: the placeholder of an
image without objects) and another value on another, or a per-sample field (``sampling_result.pos_gt_bboxes``).
Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import VALUE
from npu_lint.analysis.summaries import method_def, return_statements
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES

_APPLIERS = ("multi_apply",)   # ``multi_apply(func, *args)``: ``tuple(map(list, zip(*map(func, *args))))``


def _helper(func: ast.AST, call: ast.Call, ctx: FileContext) -> Optional[ast.AST]:
    """The function of the file ``func`` names: ``self._get_targets_single`` (a method of the class around the
    call), a module-level function, either through ``functools.partial(f, ...)``."""
    if isinstance(func, ast.Call) and func.args and (ctx.resolver.qualname(func.func) or "").endswith("partial"):
        func = func.args[0]
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        cls = ctx.enclosing(call, (ast.ClassDef,))
        found = method_def(cls, func.attr, 1) if isinstance(cls, ast.ClassDef) else None
        return found[0] if found is not None else None
    if isinstance(func, ast.Name):
        return next((s for s in ctx.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and s.name == func.id), None)
    return None


def mapped_items(items: ast.Name, ctx: FileContext, empty_rows, per_sample_field) -> Optional[str]:
    """Why the list ``items``, unpacked from ``multi_apply(helper, ...)``, holds per-sample items of different
    lengths: the helper's element at that position is a tensor of no rows on one path beside other values, or a
    per-sample field; else None. ``empty_rows`` / ``per_sample_field`` are sample_items' tests."""
    binding = ctx.resolver.binding(items)
    if binding is None or binding.tag != VALUE or len(binding.path) != 1 or not isinstance(binding.value, ast.Call):
        return None
    call = binding.value
    name = ctx.resolver.qualname(call.func) or ""
    if not call.args or not name.endswith(_APPLIERS):
        return None
    helper = _helper(call.args[0], call, ctx)
    if not isinstance(helper, FUNCTION_TYPES):
        return None
    position = binding.path[0]
    returned = [r.value.elts[position] for r in return_statements(helper)
                if isinstance(r.value, ast.Tuple) and position < len(r.value.elts)]
    names = {e.id for e in returned if isinstance(e, ast.Name)}
    values = [e for e in returned if not isinstance(e, ast.Name)]
    values += [child.value for child in walk(helper) if isinstance(child, ast.Assign) and len(child.targets) == 1
               and isinstance(child.targets[0], ast.Name) and child.targets[0].id in names]
    empties = [v for v in values if empty_rows(v)]
    helper_name = getattr(helper, "name", "?")
    if empties and len(empties) < len(values):
        return (f"{helper_name}() gives an item of 0 rows (line {empties[0].lineno}) for a sample without objects, "
                f"rows otherwise")
    field = next((v for v in values if per_sample_field(v)), None)
    if field is not None:
        return f"{helper_name}() gives each sample's per-sample field {ast.unparse(field)[:40]}"
    return None
