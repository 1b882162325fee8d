"""NPU303: boolean-mask assignment, with advice that writes exactly the elements the original writes.

``x[m] = v`` applies a boolean ``m`` to the *leading* dimensions of ``x`` (``x[:, m]`` from the second one,
``x[..., m]`` to the trailing ones), while ``masked_fill_`` broadcasts its mask from the *trailing* dimensions.
The advice therefore quotes the real index and, unless the mask evidently has the shape of ``x`` (a comparison
of ``x`` itself) or sits on the trailing dimensions, reshapes it to the rank of ``x`` first. ``x *= ~m`` (the
vendor's zero-fill advice) is not given: it needs a mask of ``x``'s shape and turns ``inf``/``nan`` into ``nan``.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.context import FileContext
from npu_lint.host_arrays import host_array_evidence
from npu_lint.rules import Rule
from npu_lint.rules.affinity import FAMILY, affinity_page, affinity_row
from npu_lint.rules.mask_reads import is_bool_index
from npu_lint.rules.affinity_operands import source_text
from npu_lint.rules.fusion_structure import definition
from npu_lint.rules.mask_values import computed_tensor as _computed_tensor, is_fill_value as _is_fill_value
from npu_lint.rules.mask_values import is_number as _is_number, mask_position

MASK_PATTERN = "input[condition] = value"


def _named_mask(node: ast.AST) -> bool:
    """A name that says it is a mask even once bound to a tensor (``mask_time_indices = torch.tensor(..., dtype=
    torch.bool)``): the semantic model calls it a tensor, the name calls it a mask."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        node = node.operand
    return isinstance(node, ast.Name) and "mask" in node.id.lower() and not node.id[:1].isupper()


_BOOL_METHODS = ("any", "all", "bool", "isnan", "isinf", "isfinite", "logical_not", "logical_and", "logical_or",
                 "eq", "ne", "lt", "le", "gt", "ge")
_BOOL_FUNCTIONS = ("torch.isnan", "torch.isinf", "torch.isfinite", "torch.logical_not", "torch.logical_and",
                   "torch.logical_or", "torch.any", "torch.all", "torch.eq", "torch.ne", "torch.lt", "torch.le",
                   "torch.gt", "torch.ge")


def defined_as_mask(node: ast.AST, statement: ast.stmt, ctx: FileContext, depth: int = 3) -> bool:
    """A boolean tensor by its definition in the function: a comparison, ``.any()`` / ``.all()`` / ``.bool()``,
    ``torch.zeros(..., dtype=torch.bool)``, and ``~`` / ``&`` / ``|`` of those (``to_suppress = a.any(1) | b``).

    The semantic model calls these tensors, not masks (to move into the model: a ``mask`` value kind for them).
    """
    if depth == 0:
        return False
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Invert, ast.Not)):
        return defined_as_mask(node.operand, statement, ctx, depth)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return defined_as_mask(node.left, statement, ctx, depth) or defined_as_mask(node.right, statement, ctx, depth)
    if isinstance(node, ast.Compare):
        return not isinstance(node.ops[0], (ast.Is, ast.IsNot, ast.In, ast.NotIn))
    if isinstance(node, ast.Call):
        if any(kw.arg == "dtype" and isinstance(kw.value, ast.Attribute) and kw.value.attr == "bool"
               for kw in node.keywords):
            return True
        name = ctx.resolver.qualname(node.func)
        if name is not None:
            return name in _BOOL_FUNCTIONS
        return isinstance(node.func, ast.Attribute) and node.func.attr in _BOOL_METHODS
    if isinstance(node, ast.Name):
        value, where = definition(node, statement, ctx)
        return value is not node and defined_as_mask(value, where, ctx, depth - 1)
    return False


def _same_text(a: Optional[str], b: Optional[str]) -> bool:
    return a is not None and b is not None and a.replace(" ", "") == b.replace(" ", "")


def _has_receiver_shape(mask: ast.AST, receiver: Optional[str], ctx: FileContext) -> bool:
    """The mask is a comparison of the receiver itself (``x[x < t]``, ``x[~(x > 0) & m]``): x's shape, since the
    comparison broadcasts to at least x's rank and indexing accepts at most x's leading dimensions."""
    if isinstance(mask, ast.UnaryOp) and isinstance(mask.op, ast.Invert):
        return _has_receiver_shape(mask.operand, receiver, ctx)
    if isinstance(mask, ast.BinOp) and isinstance(mask.op, (ast.BitAnd, ast.BitOr)):
        return _has_receiver_shape(mask.left, receiver, ctx) or _has_receiver_shape(mask.right, receiver, ctx)
    if isinstance(mask, ast.Compare) and len(mask.comparators) == 1:   # broadcasting x with y: x's rank or more,
        return any(_same_text(source_text(side, ctx), receiver)             # and indexing needs x's rank or less
                   for side in (mask.left, mask.comparators[0]))
    return False


def _atom(text: str, node: ast.AST) -> str:
    """``text`` usable as the receiver of a method call."""
    simple = isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.Constant))
    return text if simple else f"({text})"


def dense_advice(receiver: str, mask: str, value: str, leading: Optional[int], full_shape: bool,
                 shape_of: Optional[str] = None) -> str:
    """Python code that writes exactly the elements ``receiver[<index>] = value`` writes, densely.

    ``leading``: dimensions of ``receiver`` before the mask (``x[:, m]``: 1), None for ``x[..., m]``.
    ``mask`` must be usable as a method receiver (a name, or parenthesised); ``shape_of``: a name with the mask's
    shape (``m`` for ``~m``), default the mask itself.
    """
    if full_shape or leading is None:
        return f"{receiver}.masked_fill_({mask}, {value})"
    shape_of = shape_of or mask
    ones = f"(1,) * {leading} + " if leading else ""
    rest = f" - {leading}" if leading else ""
    shaped = f"{mask}.reshape({ones}{shape_of}.shape + (1,) * ({receiver}.dim(){rest} - {shape_of}.dim()))"
    return f"{receiver}.masked_fill_({shaped}, {value})"


def _fresh_name(*texts: str) -> str:
    name = "sel"
    while any(name in text for text in texts):
        name += "_"
    return name


class MaskedAssignment(Rule):
    """Boolean-mask assignment ``x[mask] = value``.

    What it does:
        Flags assignments whose index is a boolean mask: a comparison (``x[x > 0] = 0``,
        ``logits[logits < thr] = -inf``), an inverted or combined mask (``x[~m] = v``, ``x[a == b] = v``), a name
        bound to one (``keep = scores > thr``; ``labels[keep] = bg``), or a mask in a later dimension
        (``x[:, m] = v``, ``x[..., m] = v``), with a number (``-inf``, ``float('-inf')``, ``torch.finfo(t).min``
        included), a name or an attribute on the right, in files that use torch. The receiver may be a parameter.
        A right-hand side the function computed as a tensor (``img_embed = self.visual(pixels)``; ``x[m] = img_embed``:
        one row per selected element) is left alone: no dense operator writes it.
        Host arrays (numpy, pandas, ``.cpu()`` tensors, see ``npu_lint/host_arrays.py``) are left alone, and so
        are right-hand sides that are tensors read through the same mask (``x[m] = y[m] * 2``) and indexes that
        mix a mask with integer positions or partial slices.
    Why it matters on NPU:
        Boolean-mask assignment becomes IndexPut with a data-dependent nonzero on NPU: slow, and a device
        sync. A dense ``masked_fill_`` writes the same elements without either.
    Example:
        loss[ignore_mask] = 0
        logits[:, banned] = float('-inf')
    Use instead:
        loss.masked_fill_(ignore_mask.reshape(ignore_mask.shape + (1,) * (loss.dim() - ignore_mask.dim())), 0)
        logits.masked_fill_(banned.reshape((1,) * 1 + banned.shape + (1,) * (logits.dim() - 1 - banned.dim())),
                            float('-inf'))
        The message quotes the real index: a boolean index covers the *leading* dimensions it is applied to,
        ``masked_fill_`` broadcasts from the *trailing* ones, so the mask is reshaped to the rank of ``x`` unless
        it is evidently of ``x``'s shape (``x[x < t] = v`` → ``x.masked_fill_(x < t, v)``) or sits on the trailing
        dimensions (``x[..., m]``). When the value is a name, the advice holds for a scalar value; a value with one
        entry per selected element has no dense drop-in. The vendor's
        ``torch_npu.contrib.function.npu_fast_condition_index_put(x, mask, value)`` (not in place) needs a
        boolean mask of ``x``'s shape. ``x *= ~mask`` is not advised: it needs the same shape and turns ``inf``
        and ``nan`` into ``nan``. ``tests/test_masked_assignment_runtime.py`` runs every form of advice against
        the original on random CPU tensors.
    Fix safety:
        Unsafe: ``npu-lint check --fix --unsafe-fixes`` rewrites ``x[mask] = <number>`` as
        ``x.masked_fill_(mask, <number>)`` (a dense operator, in place like the original). Indexing applies a boolean mask to the
        leading dimensions of ``x`` (and also accepts integer index tensors), while ``masked_fill_`` broadcasts
        the mask from the trailing dimensions and needs a bool tensor: they agree when the mask has the shape of
        ``x``. A name or an expression on the right is not rewritten.
    """

    fix_safety = "unsafe"

    code = "NPU303"
    patterns = ('input[condition] = value',)
    page_extra = classmethod(lambda cls: affinity_page(cls))
    name = "masked-assignment"
    family = FAMILY
    node_types = (ast.Assign,)
    triggers = ("] =",)   # an assignment to a subscript
    message = "{statement} is a slow IndexPut on NPU (boolean-mask assignment: a data-dependent nonzero and a device sync): keep the mask dense, `{advice}`; {note}"
    must_fire = ("import torch\nx = torch.randn(8)\nx[x > 0] = 0\n",
                 "import torch\nlabels = torch.zeros(4)\nkeep = scores > thr\nlabels[keep] = background\n",
                 "import torch\ndef f(w: torch.Tensor, valid_mask):\n    w[~valid_mask] = value\n",
                 "import torch\nweights = torch.ones(3)\nmask = (dist < radius) & ok\nweights[mask] = 1.0\n",
                 "import torch\ndef assign(max_overlaps, valid_mask, ious):\n    max_overlaps[valid_mask] = ious\n",
                 "import torch\ndef f(ids, pad_mask):\n    pad = 0\n    ids[pad_mask] = pad\n",
                 "import torch\ndef top_p(logits, threshold):\n    logits[logits < threshold] = -float('inf')\n",
                 "import torch\ndef ban(logits, mask):\n    logits[:, mask] = float('-inf')\n",
                 "import torch\ndef f(scores, labels):\n    scores[labels == 0] = 0\n",
                 "import torch\ndef f(feats, m):\n    mask_time = torch.tensor(m, dtype=torch.bool)\n    feats[mask_time] = 0\n",
                 "import torch\ndef f(x, a, b, frame):\n    drop = a.any(dim=1) | b\n    x[drop] = frame\n")
    must_not_fire = ("import torch\nx = torch.zeros(3)\nx[0] = 1\n",
                     # written on the host, moved to the device after the write
                     "import torch\ndef f(self, x, device):\n    keep, labels = self.targets(x)\n"
                     "    labels[~keep] = -100\n    labels = labels.view(-1).long().to(device)\n    return labels\n",
                     "import torch\nimport numpy as np\ndef f(img, thr):\n    out = np.asarray(img)\n    out[out > thr] = 0\n", "import torch\nx[i] = y\n",
                     "import torch\nd['key'] = v\n", "import torch\nx = torch.zeros(3)\nx[x > 0] = y[x > 0] * 2\n",
                     "import numpy as np\nimport torch\nseg = np.zeros((4, 4))\nseg[seg == 0] = 255\n",
                     "import torch\ndef f(x, mask):\n    x[0, mask] = 0\n",
                     "import torch\ndef f(x, mask):\n    x[1:, mask] = 0\n",
                     "import torch\ndef f(x, Mask):\n    x[Mask] = 0\n",
                     "import torch\ndef f(self, embeds, pixels, image_mask):\n    img_embed = self.visual(pixels)\n"
                     "    embeds[image_mask] = img_embed\n",
                     "import torch\ndef f(x, ids):\n    idx = ids.nonzero(as_tuple=True)[0]\n    x[idx] = 0\n")

    def check(self, node: ast.Assign, ctx: FileContext) -> None:
        if not ctx.uses_torch:
            return
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Subscript):
            return
        target, value = node.targets[0], node.value
        if not _is_fill_value(value, ctx) or _computed_tensor(value, node, ctx):
            return
        position = mask_position(target.slice)
        if position is None:
            return
        mask, leading = position
        if isinstance(mask, (ast.Slice, ast.Constant)) or not (
                is_bool_index(mask, ctx) or _named_mask(mask) or defined_as_mask(mask, node, ctx)):
            return
        if not self._tensor_side(target, mask, ctx) and host_array_evidence(target, mask, ctx, node):
            return
        if isinstance(target.value, ast.Name) and ctx.resolver.moved_later(target.value):
            return   # ``labels[labels == pad] = -100`` then ``labels = labels.to(device)``: written on the host
        row = affinity_row(MASK_PATTERN, ctx)
        if row is None:
            return
        ctx.report(node, self._message(node, target, mask, leading, value, ctx), MASK_PATTERN)

    @staticmethod
    def _tensor_side(target: ast.Subscript, mask: ast.AST, ctx: FileContext) -> bool:
        """The assigned array is evidently a torch tensor (numpy mask assignment is not an NPU matter)."""
        if ctx.resolver.is_tensor(target.value):
            return True
        index = mask.operand if isinstance(mask, ast.UnaryOp) else mask
        return isinstance(index, ast.Compare) and ctx.resolver.is_tensor(index.left)

    @staticmethod
    def _message(node: ast.Assign, target: ast.Subscript, mask: ast.AST, leading: Optional[int], value: ast.AST,
                 ctx: FileContext) -> str:
        receiver, mask_text, value_text = source_text(target.value, ctx), source_text(mask, ctx), source_text(value, ctx)
        statement = f"{receiver or 'x'}[{source_text(target.slice, ctx) or 'mask'}] = {value_text or 'value'}"
        full_shape = leading == 0 and _has_receiver_shape(mask, receiver, ctx)
        receiver = _atom(receiver, target.value) if receiver else "x"
        value_text = value_text or "value"
        bind, shape_of = "", None
        if mask_text is None:
            mask_text = "mask"   # too long to quote: the user names it
        elif not full_shape and leading is not None:
            if isinstance(mask, ast.UnaryOp) and isinstance(mask.op, ast.Invert) and isinstance(mask.operand, ast.Name):
                mask_text, shape_of = f"(~{mask.operand.id})", mask.operand.id
            elif not isinstance(mask, ast.Name):   # the reshape reads the mask three times: name it once
                name = _fresh_name(receiver, value_text, mask_text)
                bind, mask_text = f"{name} = {mask_text}; ", name
        advice = bind + dense_advice(receiver, mask_text, value_text, leading, full_shape, shape_of)
        notes = []
        if not _is_number(value):
            notes.append(f"this holds for a scalar {value_text}; one value per selected element has no dense drop-in")
        if full_shape:
            notes.append(f"or torch_npu.contrib.function.npu_fast_condition_index_put({receiver}, {mask_text}, "
                         f"{value_text}) (not in place)")
        elif leading is None:
            notes.append("the mask covers the trailing dimensions, as masked_fill_ broadcasts it")
        else:
            notes.append("the reshape puts the mask on the dimensions the index puts it on (masked_fill_ "
                         f"broadcasts from the last); npu_fast_condition_index_put needs a mask of {receiver}'s shape")
        return MaskedAssignment.message.format(statement=statement, advice=advice, note="; ".join(notes))
