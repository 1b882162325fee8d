"""NPU304-NPU307: code shapes that one fused torch_npu operator replaces (``special`` affinity APIs)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.bounded import same
from npu_lint.context import FileContext
from npu_lint.rules import Rule
from npu_lint.rules.affinity import affinity_row

FAMILY = "affinity"
_SOFTMAX = ("torch.softmax", "torch.nn.functional.softmax", "torch.Tensor.softmax")


def _same(a: ast.AST, b: ast.AST) -> bool:
    return same(a, b)   # bounded, non-recursive


def _call_name(node: ast.AST, ctx: FileContext) -> Optional[str]:
    """The qualified name of a call, with ``x.softmax(...)`` as ``torch.Tensor.softmax``."""
    if not isinstance(node, ast.Call):
        return None
    name = ctx.resolver.qualname(node.func)
    if name is None and isinstance(node.func, ast.Attribute):
        return "torch.Tensor." + node.func.attr
    return name


def report_shape(rule: Rule, node: ast.AST, pattern: str, ctx: FileContext, shape: str) -> None:
    """Report ``shape`` with the affinity API of ``pattern``, if the target release has it."""
    row = affinity_row(pattern, ctx)
    if row is not None:
        ctx.report(node, rule.message.format(shape=shape, affinity=row["affinity_api"], since=row["since"]), pattern)


class ActivationShape(Rule):
    """``x * torch.sigmoid(x)`` (SiLU) or ``x * torch.tanh(F.softplus(x))`` (Mish) written out by hand.

    What it does:
        Flags a product of an expression and ``sigmoid`` of the same expression, or of ``tanh(softplus())`` of it.
    Why it matters on NPU:
        Written out, these are two or three kernels with a full-size intermediate; ``npu_silu`` and
        ``npu_mish`` are one fused Ascend operator.
    Example:
        y = x * torch.sigmoid(x)
    Use instead:
        y = torch_npu.npu_silu(x)   # or torch.nn.functional.silu(x)
    Fix safety:
        No automatic fix yet.
    """

    code = "NPU304"
    name = "activation-shape"
    family = FAMILY
    node_types = (ast.BinOp,)
    triggers = ("sigmoid", "softplus")
    message = "{shape} is one fused operator on NPU: {affinity} (torch-npu {since}+)"
    must_fire = ("import torch\ny = x * torch.sigmoid(x)\n", "import torch\ny = torch.sigmoid(h) * h\n",
                 "import torch\nimport torch.nn.functional as F\ny = x * torch.tanh(F.softplus(x))\n")
    must_not_fire = ("import torch\ny = x * torch.sigmoid(g)\n", "import torch\ny = torch.sigmoid(x)\n")

    def check(self, node: ast.BinOp, ctx: FileContext) -> None:
        if not isinstance(node.op, ast.Mult):
            return
        for operand, other in ((node.left, node.right), (node.right, node.left)):
            name = _call_name(other, ctx)
            if name in ("torch.sigmoid", "torch.Tensor.sigmoid", "torch.nn.functional.sigmoid") and other.args \
                    and _same(other.args[0], operand):
                report_shape(self, node, "x * sigmoid(x)", ctx, "x * sigmoid(x)")
                return
            if name in ("torch.tanh", "torch.Tensor.tanh") and other.args and \
                    _call_name(other.args[0], ctx) == "torch.nn.functional.softplus" and \
                    other.args[0].args and _same(other.args[0].args[0], operand):
                report_shape(self, node, "x * tanh(softplus(x))", ctx, "x * tanh(softplus(x))")
                return


class GatedLinearShape(Rule):
    """SwiGLU / GeGLU: ``a, b = x.chunk(2, -1)`` then ``F.silu(a) * b`` (or ``F.gelu(a) * b``).

    What it does:
        Flags the product of ``silu`` (or ``gelu``) of one half of a two-way ``chunk``/``split`` with the other half.
    Why it matters on NPU:
        ``npu_swiglu`` / ``npu_geglu`` do the split, the activation and the product in one operator
        (torch-npu 2.2.0+), saving two intermediates per MLP block.
    Example:
        a, b = x.chunk(2, dim=-1)
        y = F.silu(a) * b
    Use instead:
        y = torch_npu.npu_swiglu(x, dim=-1)
    Fix safety:
        No fix: npu_swiglu applies SiLU to the first half, check the order.
    """

    code = "NPU305"
    name = "gated-linear-shape"
    family = FAMILY
    node_types = (ast.Assign, ast.BinOp)
    triggers = ("chunk", "split")
    message = "{shape} is one fused operator on NPU: {affinity} (torch-npu {since}+)"
    must_fire = ("import torch.nn.functional as F\na, b = x.chunk(2, dim=-1)\ny = F.silu(a) * b\n",
                 "import torch\nimport torch.nn.functional as F\ngate, up = torch.chunk(h, 2, -1)\nout = up * F.gelu(gate)\n")
    must_not_fire = ("import torch.nn.functional as F\ny = F.silu(a) * b\n",
                     "import torch.nn.functional as F\na, b, c = x.chunk(3, dim=-1)\ny = F.silu(a) * b\n")

    def check(self, node: ast.AST, ctx: FileContext) -> None:
        halves = ctx.scratch.setdefault("chunk_halves", set())
        if isinstance(node, ast.Assign):
            target, value = node.targets[0], node.value
            if isinstance(target, ast.Tuple) and len(target.elts) == 2 and all(isinstance(e, ast.Name) for e in target.elts) \
                    and _is_two_way_split(value, ctx):
                halves.add(tuple(sorted(e.id for e in target.elts)))
            return
        if not isinstance(node.op, ast.Mult):
            return
        for activated, other in ((node.left, node.right), (node.right, node.left)):
            name = _call_name(activated, ctx)
            if name not in ("torch.nn.functional.silu", "torch.nn.functional.gelu") or not activated.args:
                continue
            inner = activated.args[0]
            if isinstance(inner, ast.Name) and isinstance(other, ast.Name) and \
                    tuple(sorted((inner.id, other.id))) in halves:
                kind = "silu" if name.endswith("silu") else "gelu"
                report_shape(self, node, f"{kind}(a) * b after chunk(2)", ctx, f"{kind}(a) * b of the two halves")
                return


def _is_two_way_split(value: ast.AST, ctx: FileContext) -> bool:
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute) \
            or value.func.attr not in ("chunk", "split"):
        return False
    args = value.args if ctx.resolver.qualname(value.func) is None else value.args[1:]   # torch.chunk(x, 2, ...)
    return bool(args) and isinstance(args[0], ast.Constant) and args[0].value == 2 and value.func.attr == "chunk"


class RotateHalf(Rule):
    """The ``rotate_half`` of rotary position embeddings: ``torch.cat((-x2, x1), dim=-1)``.

    What it does:
        Flags ``torch.cat((-x2, x1), dim=-1)`` (the half rotation of RoPE).
    Why it matters on NPU:
        ``npu_rotary_mul(x, cos, sin)`` computes ``x * cos + rotate_half(x) * sin`` in one operator.
    Example:
        return torch.cat((-x2, x1), dim=-1)
    Use instead:
        q = torch_npu.npu_rotary_mul(q, cos, sin)
    Fix safety:
        No fix: the caller's ``x * cos + rotate_half(x) * sin`` is what gets replaced.
    """

    code = "NPU306"
    name = "rotate-half"
    family = FAMILY
    node_types = (ast.Call,)
    triggers = ("cat",)
    message = "{shape} (RoPE) is one fused operator on NPU: {affinity} (torch-npu {since}+)"
    must_fire = ("import torch\ndef rotate_half(x):\n    x1, x2 = x[..., :32], x[..., 32:]\n"
                 "    return torch.cat((-x2, x1), dim=-1)\n",)
    must_not_fire = ("import torch\ny = torch.cat((a, b), dim=-1)\n", "import torch\ny = torch.cat((-a, b), dim=0)\n")

    def check(self, node: ast.Call, ctx: FileContext) -> None:
        if _call_name(node, ctx) != "torch.cat" or not node.args or not isinstance(node.args[0], (ast.Tuple, ast.List)):
            return
        parts = node.args[0].elts
        dim = next((kw.value for kw in node.keywords if kw.arg == "dim"), node.args[1] if len(node.args) > 1 else None)
        last = isinstance(dim, ast.UnaryOp) and isinstance(dim.op, ast.USub) and isinstance(dim.operand, ast.Constant) \
            and dim.operand.value == 1
        if len(parts) == 2 and last and isinstance(parts[0], ast.UnaryOp) and isinstance(parts[0].op, ast.USub):
            report_shape(self, node, "cat((-x2, x1), dim=-1)", ctx, "cat((-x2, x1), dim=-1)")


class AttentionShape(Rule):
    """Hand-written attention: ``softmax(q @ k.transpose(-2, -1) * scale) @ v``.

    What it does:
        Flags the product with ``v`` of a softmax over ``q @ kᵀ`` scores, inline or through the names the scores
        and probabilities are assigned to in between (scale, mask and dropout steps allowed).
    Why it matters on NPU:
        ``npu_fusion_attention`` computes the whole block in one flash-style operator, without materialising
        the (sequence × sequence) score matrix.
    Example:
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        x = attn @ v
    Use instead:
        x = torch_npu.npu_fusion_attention(q, k, v, head_num, "BNSD", scale=self.scale)[0]
    Fix safety:
        No fix: the layout and head arguments depend on the model.
    """

    code = "NPU307"
    name = "attention-shape"
    family = FAMILY
    node_types = (ast.Assign, ast.BinOp, ast.Call)
    triggers = ("softmax",)
    message = "{shape} is one fused operator on NPU: {affinity} (torch-npu {since}+)"
    must_fire = ("import torch\nattn = (q @ k.transpose(-2, -1)) * scale\nattn = attn.softmax(dim=-1)\n"
                 "attn = self.attn_drop(attn)\nx = attn @ v\n",
                 "import torch\nout = torch.matmul(torch.softmax(torch.matmul(q, k.transpose(2, 3)), -1), v)\n")
    must_not_fire = ("import torch\nprobs = logits.softmax(-1)\ny = probs @ w\n",
                     "import torch\nscores = q @ k\nattn = scores.softmax(-1)\nx = attn @ v\n")

    def check(self, node: ast.AST, ctx: FileContext) -> None:
        scores = ctx.scratch.setdefault("attention_scores", set())
        probs = ctx.scratch.setdefault("attention_probs", set())
        if isinstance(node, ast.Assign):
            if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
                return
            name, value = node.targets[0].id, node.value
            if self._probs(value, ctx, scores):
                probs.add(name)
                scores.discard(name)
                return
            is_scores, reads_itself = False, False
            for sub in ast.walk(value):   # one walk: is it a score matrix, and does it read its own name?
                if isinstance(sub, ast.Name):
                    is_scores = is_scores or sub.id in scores
                    reads_itself = reads_itself or sub.id == name
                else:
                    operands = _matmul_operands(sub, ctx)
                    is_scores = is_scores or (operands is not None and _is_transposed(operands[1]))
                if is_scores:
                    break
            if is_scores:
                scores.add(name)
                probs.discard(name)
            elif not reads_itself:
                probs.discard(name)   # rebound to something else; ``attn = self.drop(attn)`` keeps its role
                scores.discard(name)
            return
        operands = _matmul_operands(node, ctx)
        left = operands[0] if operands else None
        if left is not None and (self._probs(left, ctx, scores) or
                                 (isinstance(left, ast.Name) and left.id in probs)):
            report_shape(self, node, "softmax(q @ k^T) @ v", ctx, "softmax(q @ kᵀ) @ v attention")

    def _scores(self, expr: ast.AST, ctx: FileContext, scores: set) -> bool:
        """``q @ k.transpose(-2, -1)`` (possibly scaled or masked), or a name holding it."""
        for sub in ast.walk(expr):
            operands = _matmul_operands(sub, ctx)
            if operands is not None and _is_transposed(operands[1]):
                return True
            if isinstance(sub, ast.Name) and sub.id in scores:
                return True
        return False

    def _probs(self, expr: ast.AST, ctx: FileContext, scores: set) -> bool:
        expr = _strip_dropout(expr, ctx)
        return _call_name(expr, ctx) in _SOFTMAX and self._scores(expr, ctx, scores)


def _strip_dropout(expr: ast.AST, ctx: FileContext) -> ast.AST:
    if isinstance(expr, ast.Call) and len(expr.args) >= 1:
        name = _call_name(expr, ctx) or ""
        if "drop" in name.lower() or (isinstance(expr.func, ast.Attribute) and "drop" in expr.func.attr.lower()):
            return expr.args[0]
    return expr


_MATMULS = ("matmul", "bmm")


def _matmul_operands(node: ast.AST, ctx: FileContext) -> Optional[tuple[ast.AST, ast.AST]]:
    """(left, right) of ``a @ b``, ``torch.matmul(a, b)`` or ``torch.bmm(a, b)``."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        return node.left, node.right
    if isinstance(node, ast.Call) and len(node.args) == 2 and (
            isinstance(node.func, ast.Name) or (isinstance(node.func, ast.Attribute) and node.func.attr in _MATMULS)) \
            and _call_name(node, ctx) in ("torch.matmul", "torch.bmm"):   # an attribute call must end in its name
        return node.args[0], node.args[1]
    return None


def _is_transposed(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute) and node.attr in ("mT", "T"):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("transpose", "t")


class RmsNormShape(Rule):
    """RMSNorm written out: ``x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)``.

    What it does:
        Flags a product with ``rsqrt`` of (the mean of a square, plus epsilon): ``pow(2)``, ``x * x`` or
        ``square()`` followed by ``mean`` (LlamaRMSNorm, T5LayerNorm and their copies).
    Why it matters on NPU:
        ``npu_rms_norm`` computes the normalisation (and the weight scaling) in one operator instead of
        five, with fp32 accumulation inside.
    Example:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
    Use instead:
        return torch_npu.npu_rms_norm(x, self.weight, epsilon=self.eps)[0]
    Fix safety:
        No fix.
    """

    code = "NPU308"
    name = "rms-norm-shape"
    family = FAMILY
    node_types = (ast.Assign, ast.BinOp)
    triggers = ("rsqrt",)
    message = "{shape} is one fused operator on NPU: {affinity} (torch-npu {since}+)"
    must_fire = ("import torch\ny = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)\n",
                 "import torch\nvariance = h.pow(2).mean(-1, keepdim=True)\nh = h * torch.rsqrt(variance + 1e-6)\n",
                 "import torch\ny = torch.rsqrt((x * x).mean(dim=-1, keepdim=True) + eps) * x\n")
    must_not_fire = ("import torch\ny = x * torch.rsqrt(v)\n", "import torch\ny = x / torch.sqrt(x.var(-1) + eps)\n")

    def check(self, node: ast.AST, ctx: FileContext) -> None:
        squares = ctx.scratch.setdefault("mean_of_squares", set())
        if isinstance(node, ast.Assign):   # ``variance = x.pow(2).mean(-1, keepdim=True)``
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and _mean_of_square(node.value, ctx):
                squares.add(node.targets[0].id)
            return
        if not isinstance(node.op, ast.Mult):
            return
        for side in (node.left, node.right):
            if _call_name(side, ctx) in ("torch.rsqrt", "torch.Tensor.rsqrt") and side.args \
                    and isinstance(side.args[0], ast.BinOp) and isinstance(side.args[0].op, ast.Add) \
                    and (_mean_of_square(side.args[0].left, ctx) or _names_square(side.args[0].left, squares)):
                report_shape(self, node, "x * rsqrt(mean(x ** 2) + eps)", ctx, "RMSNorm")
                return


def _names_square(node: ast.AST, squares: set) -> bool:
    return isinstance(node, ast.Name) and node.id in squares


def _mean_of_square(node: ast.AST, ctx: FileContext) -> bool:
    if _call_name(node, ctx) not in ("torch.Tensor.mean", "torch.mean"):
        return False
    inner = node.func.value if isinstance(node.func, ast.Attribute) and _call_name(node, ctx) == "torch.Tensor.mean" \
        else (node.args[0] if node.args else None)
    if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr in ("pow", "square"):
        return inner.func.attr == "square" or (bool(inner.args) and isinstance(inner.args[0], ast.Constant)
                                                and inner.args[0].value == 2)
    return isinstance(inner, ast.BinOp) and (isinstance(inner.op, ast.Mult) and _same(inner.left, inner.right)
                                              or isinstance(inner.op, ast.Pow))
