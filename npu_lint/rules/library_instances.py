"""NPU401's calls of library modules (session 24, dataops24): an instance of a library class whose forward sizes
its output by the data (``rule_tables/dynamic_shape.tsv`` rows of condition ``module_call``: mmcv's
``DynamicScatter``, one row per voxel found; torchaudio's ``Vad``, the waveform trimmed where the voice starts),
called where the code calls it. The instance is known by construction, not by name: a local name whose every
assignment in its function, or a field (``self.scatter``) whose every assignment in the file, is a call of such a
class (the qualified name the resolver gives the constructor). The construction itself is no site (nothing is
computed there). Memoised per file: broad_masks' assignment tables (one walk per function, one of the module)."""
from __future__ import annotations

import ast
from functools import lru_cache
from typing import Optional

from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES
from npu_lint.rules.broad_masks import assignment_values
from npu_lint.rules.dynamic_wrappers import dynamic_row
from npu_lint.tables import keyed

MODULE_CALL = "module_call"


def library_module_call(node: ast.Call, ctx: FileContext) -> Optional[tuple[str, dict]]:
    """``(class, row)`` when ``node`` calls an instance of a library class of the table whose forward's output size
    depends on the data (``transform(x)`` after ``transform = torchaudio.transforms.Vad(...)``, ``self.scatter(f,
    c)`` after ``self.scatter = DynamicScatter(...)``)."""
    if not any(ctx.mentions(word) for word in _class_names()):
        return None   # (the file names none of the table's module classes: nothing to look up)
    func = node.func
    if isinstance(func, ast.Name):
        values = _local_values(func, ctx)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        values = assignment_values(None, "." + func.attr, ctx)
    else:
        return None
    if not values:
        return None
    found: Optional[tuple[str, dict]] = None
    for value in values:
        if not isinstance(value, ast.Call):
            return None
        name = ctx.resolver.qualname(value.func)
        row = dynamic_row(name) if name else None
        if row is None or row["condition"] != MODULE_CALL:
            return None
        found = (name, row)
    return found


@lru_cache(maxsize=1)
def _class_names() -> tuple[str, ...]:
    """The last parts of the table's module classes (``DynamicScatter``, ``Vad``): a file naming none calls none."""
    return tuple(sorted({api.rsplit(".", 1)[-1] for api, row in keyed("dynamic_shape.tsv", "api").items()
                         if row["condition"] == MODULE_CALL}))


def _local_values(name: ast.Name, ctx: FileContext) -> list:
    """The values assigned to ``name`` in the innermost function that binds it (None entries: unreadable)."""
    function = ctx.enclosing_any(name, FUNCTION_TYPES)
    while function is not None:
        values = assignment_values(function, name.id, ctx)
        if values:
            return values
        function = ctx.enclosing_any(function, FUNCTION_TYPES)
    return []
