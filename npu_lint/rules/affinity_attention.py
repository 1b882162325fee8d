"""NPU307: attention written out, ``softmax(q @ kᵀ) @ v``, in the spellings today's models use.

Scores are any matrix product of two activations (``@``, ``torch.matmul``, ``bmm``, ``baddbmm``, ``einsum``;
not a product with a ``self`` parameter, which is a projection), possibly transposed any way, scaled, masked,
cast, in one statement or several. Probabilities are a softmax of scores (``F.softmax``, ``torch.softmax``,
``.softmax(dim=-1)``, through casts and dropout). The shape is complete when probabilities are the left operand
of another matrix product, or are returned from the function (the caller multiplies by ``v``: diffusers'
``get_attention_scores``). The finding sits where the shape starts: the score product.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES, Rule
from npu_lint.rules.affinity import affinity_page
from npu_lint.rules.affinity_shapes import FAMILY, MESSAGE, call_name, report_shape
from npu_lint.rules.affinity_operands import fallback_of_sdpa, transposed_operand
from npu_lint.rules.fusion_structure import is_self_parameter

_SOFTMAX = ("torch.softmax", "torch.nn.functional.softmax", "torch.Tensor.softmax", "torch.special.softmax")
_PRODUCTS = ("torch.matmul", "torch.bmm", "torch.baddbmm", "torch.einsum", "torch.Tensor.matmul", "torch.Tensor.bmm")
_CASTS = ("float", "half", "bfloat16", "to", "type", "type_as", "contiguous")
PATTERN = "softmax(q @ k^T) @ v"
_PROBS_HELPERS = ("get_attention_scores", "attention_probs")


def _last_name(node: ast.AST) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


# The call names ``product_operands`` accepts (a superset: it also checks the callee and the arguments).
_PRODUCTS = frozenset({"torch.matmul", "torch.bmm", "torch.Tensor.matmul", "torch.Tensor.bmm", "torch.baddbmm",
                       "torch.einsum"})


def product_operands(node: ast.AST, ctx: FileContext) -> Optional[list[ast.AST]]:
    """The operands of ``a @ b``, ``torch.matmul(a, b)``, ``a.matmul(b)``, ``torch.bmm``, ``torch.baddbmm(c, a, b)``,
    ``torch.einsum('...', a, b)``; None for anything else."""
    if isinstance(node, ast.BinOp):
        return [node.left, node.right] if isinstance(node.op, ast.MatMult) else None
    if not isinstance(node, ast.Call) or not isinstance(node.func, (ast.Name, ast.Attribute)):
        return None
    if isinstance(node.func, ast.Attribute) and node.func.attr not in ("matmul", "bmm", "baddbmm", "einsum"):
        return None   # cheap pre-check before resolving the name
    name = call_name(node, ctx)
    if name in ("torch.matmul", "torch.bmm") and len(node.args) == 2:
        return list(node.args)
    if name in ("torch.Tensor.matmul", "torch.Tensor.bmm") and len(node.args) == 1:
        return [node.func.value, node.args[0]]
    if name == "torch.baddbmm" and len(node.args) >= 3:
        return list(node.args[1:3])
    if name == "torch.einsum" and len(node.args) == 3 and isinstance(node.args[0], ast.Constant):
        return list(node.args[1:])
    return None


def _strip(expr: ast.AST, ctx: FileContext) -> ast.AST:
    """Casts (``.to(dtype)``, ``.float()``, ``.type_as(q)``) and dropout (``self.attn_drop(p)``, ``F.dropout(p)``)."""
    for _ in range(8):
        if not isinstance(expr, ast.Call):
            return expr
        func = expr.func
        if isinstance(func, ast.Attribute) and func.attr in _CASTS and ctx.resolver.qualname(func) is None:
            expr = func.value
            continue
        name = call_name(expr, ctx) or ""
        attr = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if expr.args and ("dropout" in name.lower() or "drop" in attr.lower()):
            expr = expr.args[0]
            continue
        return expr
    return expr


class AttentionShape(Rule):
    """Hand-written attention: ``softmax(q @ k.transpose(-2, -1) * scale) @ v``.

    What it does:
        Flags attention written out: a softmax of attention scores multiplied by the values. Accepted spellings:
        scores from ``@``, ``torch.matmul``, ``bmm``, ``baddbmm`` or ``einsum`` of two activations, whatever
        transposes ``k`` (``k.transpose(-2, -1)``, ``k.permute(0, 1, 3, 2)``, ``torch.transpose(k, 2, 3)``, ``k.mT``,
        a key already transposed, or none: the non-local block ``softmax(theta_x @ phi_x) @ g_x``); the scale applied
        inline, in a separate statement or to ``q`` and ``k`` beforehand; an additive or ``masked_fill`` mask;
        ``F.softmax``, ``torch.softmax`` or ``.softmax(dim=-1)``, with a cast (``dtype=torch.float32`` then
        ``.to(q.dtype)``) and dropout in between; the product with ``v`` by ``@``, ``matmul``, ``bmm`` or ``einsum``,
        or the probabilities returned to a caller that does it (diffusers' ``get_attention_scores``, whose callers'
        ``torch.bmm(attn.get_attention_scores(q, k, mask), v)`` are reported too). The steps
        may be one expression or statements of one function. The finding sits on the score product, where the
        shape starts. Not flagged: products with a ``self`` parameter (projections, codebooks), a softmax that
        never meets a matrix product, the hand-written fallback in the other branch of an ``if`` that calls
        ``F.scaled_dot_product_attention`` (timm's ``fused_attn``), and ``F.scaled_dot_product_attention``, which torch-npu 2.1.0 to 2.14.0 run
        on their own NPU kernel (``aten::scaled_dot_product_attention`` is registered with an ``op_api``
        implementation in every 2.x wheel's ``aten_npu_<release>.csv``; whether that kernel is the flash one for
        every mask and dropout setting the data does not say).
    Why it matters on NPU:
        ``npu_fusion_attention`` computes the whole block in one flash-style operator, without materialising
        the (sequence × sequence) score matrix.
    Example:
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        attn = self.attn_drop(attn)
        x = attn @ v
    Use instead:
        x = torch_npu.npu_fusion_attention(q, k, v, self.num_heads, "BNSD", scale=self.scale,
                                           keep_prob=1 - self.attn_drop.p)[0]
    Fix safety:
        No fix: the layout and head arguments depend on the model.
    """

    code = "NPU307"
    patterns = ('softmax(q @ k^T) @ v',)
    page_extra = classmethod(lambda cls: affinity_page(cls))
    name = "attention-shape"
    family = FAMILY
    node_types = (ast.Assign, ast.BinOp, ast.Call, ast.Return)
    triggers = ("softmax", "get_attention_scores")
    message = MESSAGE

    @classmethod
    def wants_call(cls, name: Optional[str], method: Optional[str]) -> bool:
        return name in _PRODUCTS   # a call is looked at only as a product (``product_operands``)
    must_fire = ("import torch\nattn = (q @ k.transpose(-2, -1)) * scale\nattn = attn.softmax(dim=-1)\n"
                 "attn = self.attn_drop(attn)\nx = attn @ v\n",
                 "import torch\nout = torch.matmul(torch.softmax(torch.matmul(q, k.transpose(2, 3)), -1), v)\n",
                 "import torch\nimport torch.nn.functional as F\ndef nonlocal_block(theta_x, phi_x, g_x):\n"
                 "    f = torch.matmul(theta_x, phi_x)\n    f_div_c = F.softmax(f, dim=-1)\n"
                 "    return torch.matmul(f_div_c, g_x)\n",
                 "import torch\nfrom torch import nn\ndef eager(q, k, v, mask, scaling):\n"
                 "    w = torch.matmul(q, k.transpose(2, 3)) * scaling\n    if mask is not None:\n        w = w + mask\n"
                 "    w = nn.functional.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)\n"
                 "    w = nn.functional.dropout(w, p=0.1, training=True)\n    return torch.matmul(w, v)\n",
                 "import torch\ndef get_attention_scores(self, query, key):\n"
                 "    scores = torch.baddbmm(bias, query, key.transpose(-1, -2), beta=0, alpha=self.scale)\n"
                 "    probs = scores.softmax(dim=-1)\n    return probs\n",
                 "import torch\ndef attend(q, k, v):\n    dots = torch.einsum('bhid,bhjd->bhij', q, k) * 0.125\n"
                 "    attn = dots.softmax(dim=-1)\n    return torch.einsum('bhij,bhjd->bhid', attn, v)\n",
                 "import torch\ndef __call__(self, attn, query, key, value, attention_mask=None):\n"
                 "    attention_probs = attn.get_attention_scores(query, key, attention_mask)\n"
                 "    return torch.bmm(attention_probs, value)\n",
                 "import torch\ndef psa(q, k, v, scale):\n    attn = (q.transpose(-2, -1) @ k) * scale\n"
                 "    attn = attn.softmax(dim=-1)\n    return v @ attn.transpose(-2, -1)\n",
                 "import torch\nimport torch.nn.functional as F\ndef sam(q, k, v):\n    w = (q * 0.1) @ k.transpose(-2, -1)\n"
                 "    w = F.softmax(w, dtype=torch.float32, dim=-1).to(q.dtype)\n    p = F.dropout(w, p=0.1)\n"
                 "    return p @ v\n")
    must_not_fire = ("import torch\nprobs = logits.softmax(-1)\ny = probs @ w\n",
                     "import torch\ndef quantize(self, z):\n    d = z @ self.codebook\n    p = d.softmax(-1)\n"
                     "    return p @ self.codebook.t()\n",
                     "import torch\ndef f(q, k):\n    s = q @ k.transpose(-2, -1)\n    return s.argmax(-1)\n"
                     "def g(s, v):\n    return s.softmax(-1) @ v\n",
                     "import torch\nimport torch.nn.functional as F\ny = F.scaled_dot_product_attention(q, k, v)\n",
                     "import torch\nimport torch.nn.functional as F\ndef attend(self, q, k, v):\n    if self.fused_attn:\n"
                     "        x = F.scaled_dot_product_attention(q, k, v)\n    else:\n        attn = q @ k.transpose(-2, -1)\n"
                     "        attn = attn.softmax(dim=-1)\n        x = attn @ v\n    return x\n")

    def check(self, node: ast.AST, ctx: FileContext) -> None:
        statement = isinstance(node, (ast.Assign, ast.Return))
        operands = None if statement else product_operands(node, ctx)
        if not statement and not operands:
            return   # a call or operator that is no product: nothing to look up
        scope = id(ctx.enclosing(node, FUNCTION_TYPES))
        scores = ctx.scratch.setdefault("attention_scores", {})   # (scope, name) -> the score product
        probs = ctx.scratch.setdefault("attention_probs", {})     # (scope, name) -> the score product
        if isinstance(node, ast.Assign):
            self._assign(node, scope, scores, probs, ctx)
        elif isinstance(node, ast.Return):
            value = _strip(node.value, ctx) if node.value is not None else None
            if isinstance(value, ast.Name):
                self._report(probs.get((scope, value.id)), ctx)
            elif value is not None:
                self._report(self._softmax_of_scores(value, scope, scores, ctx), ctx)
        else:
            left = _strip(operands[0], ctx)
            start = probs.get((scope, left.id)) if isinstance(left, ast.Name) else \
                self._softmax_of_scores(left, scope, scores, ctx)
            if start is None and len(operands) == 2:   # ``v @ attn.transpose(-2, -1)``: (P V^T)^T layout
                right = transposed_operand(operands[1], ctx)
                right = _strip(right, ctx) if right is not None else None
                start = probs.get((scope, right.id)) if isinstance(right, ast.Name) else None
            self._report(start, ctx)

    def _assign(self, node: ast.Assign, scope: int, scores: dict, probs: dict, ctx: FileContext) -> None:
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            return
        key, value = (scope, node.targets[0].id), node.value
        if key in probs:   # ``p = torch.bmm(p, v)``: the product uses p before this statement rebinds it
            for sub in walk(value):
                operands = product_operands(sub, ctx)
                left = _strip(operands[0], ctx) if operands else None
                if isinstance(left, ast.Name) and left.id == key[1]:
                    self._report(probs[key], ctx)
        start = self._softmax_of_scores(_strip(value, ctx), scope, scores, ctx)
        if start is not None:
            probs[key] = start
            scores.pop(key, None)
            return
        start = self._scores_in(value, scope, scores, probs, ctx)
        if start is not None:
            scores[key] = start
            probs.pop(key, None)
            return
        stripped = _strip(value, ctx)
        if isinstance(stripped, ast.Name) and stripped.id == key[1]:
            return   # ``attn = self.attn_drop(attn)``, ``w = w.to(q.dtype)``: same role
        if isinstance(stripped, ast.Name) and (scope, stripped.id) in probs:
            probs[key] = probs[(scope, stripped.id)]   # ``attn_probs = F.dropout(attn_weights, p)`` (SAM)
            scores.pop(key, None)
            return
        probs.pop(key, None)
        scores.pop(key, None)

    def _scores_in(self, expr: ast.AST, scope: int, scores: dict, probs: dict,
                   ctx: FileContext) -> Optional[ast.AST]:
        """The score product ``expr`` holds (``q @ kᵀ * scale + mask``, ``s.masked_fill(m, -inf)``), else None."""
        for sub in walk(expr):
            if isinstance(sub, ast.Name) and (scope, sub.id) in scores:
                return scores[(scope, sub.id)]
            operands = product_operands(sub, ctx)
            if operands and not any(is_self_parameter(o) for o in operands):
                left = _strip(operands[0], ctx)
                if not (isinstance(left, ast.Name) and (scope, left.id) in probs):
                    return sub
        return None

    def _softmax_of_scores(self, expr: ast.AST, scope: int, scores: dict, ctx: FileContext) -> Optional[ast.AST]:
        if isinstance(expr, ast.Call) and isinstance(expr.func, (ast.Name, ast.Attribute)) and \
                _last_name(expr.func).endswith(_PROBS_HELPERS) and ctx.resolver.qualname(expr.func) is None:
            return expr   # ``attn.get_attention_scores(q, k, mask)`` (diffusers): the helper returns probabilities
        if call_name(expr, ctx) not in _SOFTMAX:
            return None
        method = call_name(expr, ctx) == "torch.Tensor.softmax" and not (
            isinstance(expr.func.value, ast.Name) and expr.func.value.id == "self")   # ``self.softmax(s)``: a module
        inner = expr.func.value if method else (expr.args[0] if expr.args else None)
        return self._scores_in(inner, scope, scores, {}, ctx) if inner is not None else None

    def _report(self, start: Optional[ast.AST], ctx: FileContext) -> None:
        if start is None:
            return
        done = ctx.scratch.setdefault("attention_reported", set())
        if id(start) not in done:
            done.add(id(start))
            if not fallback_of_sdpa(start, ctx):
                report_shape(self, start, PATTERN, ctx, "attention softmax(q @ kᵀ) @ v starting here")
