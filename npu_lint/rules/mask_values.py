"""What the right-hand side of a boolean-mask assignment is: one fill value (NPU303 advises ``masked_fill_``) or
tensor rows, one per selected element (NPU402: no dense drop-in), and where the mask sits in the index (NPU303
advises only a mask alone on its dimensions; NPU402 takes a mask combined with another index). Shared by the two
rules."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.context import FileContext
from npu_lint.rules.fusion_structure import definition


def is_fill_value(node: ast.AST, ctx: FileContext) -> bool:
    """A number, ``-inf``/``float('-inf')``/``math.inf``/``torch.finfo(t).min``, or a name or attribute."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, complex)
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id == "float" and len(node.args) == 1 \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
    return isinstance(node, (ast.Name, ast.Attribute))


def computed_tensor(value: ast.AST, statement: ast.stmt, ctx: FileContext) -> bool:
    """A right-hand side that evidently holds tensor rows rather than one value: an evident tensor, or a name the
    function computed (``img_embed = self.visual(pixels)``; ``x[image_mask] = img_embed``), which no dense
    ``masked_fill_`` can write."""
    if not isinstance(value, ast.Name):
        return ctx.resolver.is_tensor(value)
    if ctx.resolver.is_tensor(value):
        return True
    defined = definition(value, statement, ctx)[0]
    return defined is not value and isinstance(defined, (ast.Call, ast.Subscript, ast.BinOp)) and \
        not is_number(defined)


def is_number(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    if isinstance(node, ast.Call):   # float('-inf')
        return isinstance(node.func, ast.Name) and node.func.id in ("float", "int")
    if isinstance(node, ast.Attribute):   # math.inf, torch.finfo(x.dtype).min
        return node.attr in ("inf", "nan", "min", "max", "eps", "pi", "e")
    return isinstance(node, ast.Constant)


def _full_slice(node: ast.AST) -> bool:
    return isinstance(node, ast.Slice) and node.lower is None and node.upper is None and node.step is None


def _is_ellipsis(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def mask_position(index: ast.AST) -> Optional[tuple[ast.AST, Optional[int]]]:
    """(the mask, how many dimensions precede it) for ``x[m]``, ``x[m, ...]``, ``x[:, m]``, ``x[:, :, m, :]``;
    ``None`` dimensions for ``x[..., m]`` (the mask covers the trailing dimensions). Other indexes: None."""
    if not isinstance(index, ast.Tuple):
        return index, 0
    masks = [i for i, item in enumerate(index.elts) if not (_full_slice(item) or _is_ellipsis(item))]
    if len(masks) != 1:
        return None
    position = masks[0]
    before, after = index.elts[:position], index.elts[position + 1:]
    if any(_is_ellipsis(item) for item in before):
        return (index.elts[position], None) if not after and len(before) == 1 else None
    if sum(_is_ellipsis(item) for item in after) > 1:
        return None
    return index.elts[position], len(before)
