"""NPU311-NPU312: softmax shapes of attention that one fused torch_npu operator replaces: add + softmax + dropout
and scaled masked softmax (``special`` affinity APIs)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.context import FileContext
from npu_lint.rules import Rule
from npu_lint.rules.affinity import affinity_page
from npu_lint.rules.affinity_operands import fallback_of_sdpa
from npu_lint.rules.affinity_shapes import MESSAGE, report_shape
from npu_lint.rules.fusion_structure import (
    argument,
    definition,
    function_call,
    intermediate,
    is_last_dim,
    is_sum,
    module_call_input,
    record_module,
    strip_casts,
)

FAMILY = "affinity"
_SOFTMAX = ("torch.softmax", "torch.nn.functional.softmax", "torch.special.softmax")
_DROPOUT = ("torch.nn.functional.dropout", "torch.dropout")


def _softmax_input(call: ast.AST, anchor: ast.AST, ctx: FileContext) -> Optional[ast.AST]:
    """The input of a softmax over the last dimension: ``F.softmax(s, dim=-1)``, ``torch.softmax(s, -1)``,
    ``s.softmax(-1)``, or ``self.softmax(s)`` holding an ``nn.Softmax(dim=-1)``."""
    if not isinstance(call, ast.Call):
        return None
    module_input = module_call_input(call, "Softmax", anchor, ctx)
    if module_input is not None:
        return module_input
    name = ctx.resolver.qualname(call.func)
    if name in _SOFTMAX:
        source, dim = argument(call, 0, "input"), argument(call, 1, "dim")
    elif name is None and isinstance(call.func, ast.Attribute) and call.func.attr == "softmax" and \
            not (isinstance(call.func.value, ast.Name) and call.func.value.id == "self"):
        source, dim = call.func.value, argument(call, 0, "dim")
    else:
        return None
    return source if dim is not None and is_last_dim(dim) else None


def _dropout_input(call: ast.Call, ctx: FileContext) -> Optional[ast.AST]:
    if function_call(call, _DROPOUT, ctx):
        return argument(call, 0, "input")
    return module_call_input(call, "Dropout", call, ctx)


class SoftmaxDropoutShape(Rule):
    """Attention probabilities: dropout of a last-dimension softmax of a sum, ``dropout(softmax(scores + mask, -1))``.

    What it does:
        Flags a dropout (``F.dropout``, ``torch.dropout``, or a ``self`` attribute holding an ``nn.Dropout``) of a
        softmax over the last dimension (``F.softmax``, ``torch.softmax``, ``Tensor.softmax``, an ``nn.Softmax(dim=-1)``
        attribute) whose input is a sum: inline (``scores * scale + mask``, ``torch.add(mask, scores, alpha=a)``), or a
        name whose last assignment in the function is one (``scores = scores + attention_mask``, also inside an
        ``if``; ``scores += mask``). Not flagged in the by-hand fallback of an ``if`` whose other branch calls
        ``F.scaled_dot_product_attention``. The softmax may be held in a name assigned just before the dropout
        (``probs = F.softmax(scores, dim=-1)`` then ``probs = self.dropout(probs)``, the BERT self-attention form).
    Why it matters on NPU:
        ``torch_npu.contrib.function.fuse_add_softmax_dropout`` runs the add, the softmax and the dropout as the
        single ``npu_dropout_with_add_softmax`` operator (for 4-D scores whose last dimension is 128, 256, 384 or
        512, and falls back to the three operators otherwise).
    Example:
        attention_scores = attention_scores + attention_mask
        attention_probs = nn.functional.softmax(attention_scores, dim=-1)
        attention_probs = self.dropout(attention_probs)
    Use instead:
        attention_probs = fuse_add_softmax_dropout(self.training, self.dropout, attention_mask, attention_scores,
                                                   self.attention_head_size, p=self.dropout.p)
    Fix safety:
        No fix: the wrapper takes the mask, the unscaled scores and the head size separately.
    """

    code = "NPU311"
    patterns = ('dropout(softmax(scores + mask, dim=-1))',)
    page_extra = classmethod(lambda cls: affinity_page(cls))
    name = "softmax-dropout-shape"
    family = FAMILY
    node_types = (ast.Assign, ast.Call)
    triggers = ("softmax", "Softmax")
    message = MESSAGE
    must_fire = (
        "import torch.nn.functional as F\np = F.dropout(F.softmax(s * scale + mask, dim=-1), 0.1)\n",
        "import torch.nn.functional as F\ndef attend(q, k, mask):\n    s = q @ k.transpose(-2, -1)\n    s = s + mask\n"
        "    return F.dropout(F.softmax(s, dim=-1), p=0.1, training=True)\n",
        "import torch.nn as nn\nclass SelfAttention(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.dropout = nn.Dropout(0.1)\n"
        "    def forward(self, scores, mask=None):\n        if mask is not None:\n            scores = scores + mask\n"
        "        probs = nn.functional.softmax(scores, dim=-1)\n        probs = self.dropout(probs)\n"
        "        return probs\n",
    )
    must_not_fire = (
        "import torch.nn.functional as F\np = F.dropout(F.softmax(s, dim=-1), 0.1)\n",
        "import torch.nn.functional as F\np = F.dropout(F.softmax(s + mask, dim=1), 0.1)\n",
        "import torch.nn.functional as F\np = F.dropout(F.log_softmax(s + mask, dim=-1), 0.1)\n",
        "import torch.nn as nn\nclass A(nn.Module):\n    def forward(self, s, mask):\n"
        "        return self.dropout(F.softmax(s + mask, dim=-1))\n",
        "import torch.nn.functional as F\ndef f(s, mask):\n    p = F.softmax(s + mask, dim=-1)\n    keep = p\n"
        "    out = F.dropout(p, 0.1)\n",
    )

    def check(self, node: ast.AST, ctx: FileContext) -> None:
        if isinstance(node, ast.Assign):
            record_module(node, ctx)
            return
        dropped = _dropout_input(node, ctx)
        if dropped is None:
            return
        statement = ctx.statement_of(node)
        found = intermediate(dropped, statement, ctx) if statement is not None else None
        scores = _softmax_input(strip_casts(found[0]), node, ctx) if found is not None else None
        if scores is not None and is_sum(definition(scores, found[1], ctx)[0], ctx, alpha=True) and \
                not fallback_of_sdpa(node, ctx):
            pattern = "dropout(softmax(scores + mask, dim=-1))"
            report_shape(self, node, pattern, ctx, "dropout(softmax(scores + mask, dim=-1))")


def _masked_fill(node: ast.AST, ctx: FileContext) -> Optional[tuple[ast.AST, ast.AST]]:
    """(filled tensor, fill value) of ``x.masked_fill(mask, v)`` or ``torch.masked_fill(x, mask, v)``."""
    if not isinstance(node, ast.Call):
        return None
    name = ctx.resolver.qualname(node.func)
    if name == "torch.masked_fill" and len(node.args) == 3:
        return node.args[0], node.args[2]
    if name is None and isinstance(node.func, ast.Attribute) and node.func.attr == "masked_fill" \
            and len(node.args) == 2:
        return node.func.value, node.args[1]
    return None


def _is_large_negative(node: ast.AST, ctx: FileContext) -> bool:
    """``float("-inf")``, ``-math.inf``, ``-1e9``, ``torch.finfo(x.dtype).min``."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool) and node.value < 0
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float" and node.args:
        arg = node.args[0]
        return isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.strip().startswith("-")
    return isinstance(node, ast.Attribute) and node.attr == "min" and isinstance(node.value, ast.Call) \
        and ctx.resolver.qualname(node.value.func) == "torch.finfo"


_SCALAR_CALLS = ("math.sqrt", "numpy.sqrt", "math.log", "numpy.log")
_MATMULS = ("torch.matmul", "torch.bmm", "torch.baddbmm", "torch.einsum")
_CASTS = ("float", "half", "bfloat16", "to", "type", "type_as", "contiguous")


def _scalar_like(node: ast.AST, ctx: FileContext) -> bool:
    """A scale: a number, a plain name or attribute that is not an evident tensor, ``math.sqrt(d)``, ``d ** -0.5``."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float))
    if isinstance(node, ast.UnaryOp):
        return _scalar_like(node.operand, ctx)
    if isinstance(node, (ast.Name, ast.Attribute)):
        return not ctx.resolver.is_tensor(node)
    if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.MatMult):
        return _scalar_like(node.left, ctx) and _scalar_like(node.right, ctx)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("float", "int"):
        return True
    return isinstance(node, ast.Call) and (ctx.resolver.qualname(node.func) or "") in _SCALAR_CALLS


def _attention_scores(node: ast.AST, statement: ast.stmt, ctx: FileContext, depth: int = 4) -> bool:
    """``q @ kᵀ``-like scores: a matrix product (``@``, ``torch.matmul``, ``bmm``, ``baddbmm``, ``einsum``),
    possibly cast or scaled, inline or through the names it was assigned to."""
    if depth == 0:
        return False
    if isinstance(node, ast.Name):
        value, where = definition(node, statement, ctx)
        return value is not node and _attention_scores(value, where, ctx, depth - 1)
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.MatMult):
            return True
        if isinstance(node.op, ast.Div):
            return _scalar_like(node.right, ctx) and _attention_scores(node.left, statement, ctx, depth)
        if isinstance(node.op, ast.Mult):
            return any(_scalar_like(scale, ctx) and _attention_scores(x, statement, ctx, depth)
                       for scale, x in ((node.left, node.right), (node.right, node.left)))
        return False
    if isinstance(node, ast.Call):
        name = ctx.resolver.qualname(node.func)
        if name in _MATMULS:
            return True
        if name is None and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("matmul", "bmm"):
                return True
            if node.func.attr in _CASTS:
                return _attention_scores(node.func.value, statement, ctx, depth)
    return False


def _is_scaled_scores(node: ast.AST, statement: ast.stmt, ctx: FileContext) -> bool:
    """``scores * scale``, ``scale * scores`` or ``scores / scale``: a scalar-looking scale and attention scores."""
    if not isinstance(node, ast.BinOp):
        return False
    if isinstance(node.op, ast.Div):
        return _scalar_like(node.right, ctx) and _attention_scores(node.left, statement, ctx)
    if isinstance(node.op, ast.Mult):
        return any(_scalar_like(scale, ctx) and _attention_scores(x, statement, ctx)
                   for scale, x in ((node.left, node.right), (node.right, node.left)))
    return False


class ScaledMaskedSoftmaxShape(Rule):
    """Scaled masked softmax: ``softmax((x * scale).masked_fill(mask, -inf), dim=-1)``.

    What it does:
        Flags a softmax over the last dimension of ``masked_fill`` with a large negative value (``-inf``,
        ``-1e9``, ``torch.finfo(dtype).min``) of scaled attention scores (``(q @ kᵀ) * scale``,
        ``torch.matmul(q, kᵀ) / math.sqrt(d)``); the masked, the scaled and the product tensors may be names whose
        last assignment in the function is that ``masked_fill``, scaling or product (the usual
        ``if mask is not None: scores = scores.masked_fill(...)`` form). Scaled logits that are not a matrix
        product (sampling with a temperature over a vocabulary) are left alone.
    Why it matters on NPU:
        ``npu_scaled_masked_softmax(x, mask, scale)`` scales, masks and normalises in one operator, without two
        full-size (sequence × sequence) intermediates; it needs a last dimension from 32 to 8192 that is a
        multiple of 32 and a boolean mask where True means masked.
    Example:
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)
        p_attn = scores.masked_fill(mask == 0, -1e9).softmax(dim=-1)
    Use instead:
        p_attn = torch_npu.npu_scaled_masked_softmax(torch.matmul(q, k.transpose(-2, -1)), mask == 0,
                                                     1 / math.sqrt(d_k))
    Fix safety:
        No fix: the scale moves into the call and the mask must be boolean with True meaning masked.
    """

    code = "NPU312"
    patterns = ('softmax((x * scale).masked_fill(mask, -inf), dim=-1)',)
    page_extra = classmethod(lambda cls: affinity_page(cls))
    name = "scaled-masked-softmax-shape"
    family = FAMILY
    node_types = (ast.Call,)
    triggers = ("masked_fill",)
    message = MESSAGE
    must_fire = (
        "import torch\ny = torch.softmax((q @ k.mT * scale).masked_fill(mask, float('-inf')), dim=-1)\n",
        "import math\nimport torch\ndef attend(q, k, mask, d_k):\n"
        "    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)\n"
        "    if mask is not None:\n        scores = scores.masked_fill(mask == 0, -1e9)\n"
        "    return scores.softmax(dim=-1)\n",
    )
    must_not_fire = (
        "import torch\ny = torch.softmax(x.masked_fill(mask, float('-inf')), dim=-1)\n",
        "import torch\ny = torch.softmax((q @ k.mT * scale).masked_fill(mask, 0.0), dim=-1)\n",
        "import torch\ny = torch.softmax((q @ k.mT * scale).masked_fill(mask, float('-inf')), dim=1)\n",
        "import torch\ny = torch.softmax((a @ b).masked_fill(mask, -1e9), dim=-1)\n",
        "import torch\ndef sample(logits, temperature, banned):\n    logits = logits / temperature\n"
        "    return torch.softmax(logits.masked_fill(banned, float('-inf')), dim=-1)\n",
    )

    def check(self, node: ast.Call, ctx: FileContext) -> None:
        source = _softmax_input(node, node, ctx)
        statement = ctx.statement_of(node) if source is not None else None
        if statement is None:
            return
        value, where = definition(source, statement, ctx)
        filled = _masked_fill(value, ctx)
        if filled is not None and _is_large_negative(filled[1], ctx) and \
                _is_scaled_scores(*definition(filled[0], where, ctx), ctx) and not fallback_of_sdpa(node, ctx):
            pattern = "softmax((x * scale).masked_fill(mask, -inf), dim=-1)"
            report_shape(self, node, pattern, ctx, "softmax((x * scale).masked_fill(mask, -inf))")
