"""NPU304-NPU306, NPU308: code shapes that one fused torch_npu operator replaces (``special`` affinity APIs)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.bounded import same
from npu_lint.context import FileContext
from npu_lint.rules import Rule
from npu_lint.rules.affinity import affinity_page, affinity_row, with_note
from npu_lint.rules.affinity_operands import shown
from npu_lint.rules.fusion_structure import definition

FAMILY = "affinity"
MESSAGE = "{shape} is one fused operator on NPU: {affinity} (torch-npu {since}+){note}"


def _same(a: ast.AST, b: ast.AST) -> bool:
    return same(a, b)   # bounded, non-recursive


def call_name(node: ast.AST, ctx: FileContext) -> Optional[str]:
    """The qualified name of a call, with ``x.softmax(...)`` as ``torch.Tensor.softmax``."""
    if not isinstance(node, ast.Call):
        return None
    name = ctx.resolver.qualname(node.func)
    if name is None and isinstance(node.func, ast.Attribute):
        return "torch.Tensor." + node.func.attr
    return name


def report_shape(rule: Rule, node: ast.AST, pattern: str, ctx: FileContext, shape: str) -> None:
    """Report the code at ``node`` (quoted), described as ``shape``, with the affinity API of ``pattern`` and its
    conditions, if the target release has it."""
    row = affinity_row(pattern, ctx)
    if row is not None:
        text = f"{shown(node, ctx)} ({shape})"
        ctx.report(node, rule.message.format(shape=text, affinity=row["affinity_api"], since=row["since"],
                                             note=with_note(row)), pattern)


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
    patterns = ('x * sigmoid(x)', 'x * tanh(softplus(x))')
    page_extra = classmethod(lambda cls: affinity_page(cls))
    name = "activation-shape"
    family = FAMILY
    node_types = (ast.BinOp,)
    triggers = ("sigmoid", "softplus")
    message = MESSAGE
    must_fire = ("import torch\ny = x * torch.sigmoid(x)\n", "import torch\ny = torch.sigmoid(h) * h\n",
                 "import torch\nimport torch.nn.functional as F\ny = x * torch.tanh(F.softplus(x))\n")
    must_not_fire = ("import torch\ny = x * torch.sigmoid(g)\n", "import torch\ny = torch.sigmoid(x)\n")

    def check(self, node: ast.BinOp, ctx: FileContext) -> None:
        if not isinstance(node.op, ast.Mult):
            return
        left, right = node.left, node.right
        if not isinstance(left, ast.Call) and not isinstance(right, ast.Call):
            return   # neither operand is a call: no ``sigmoid(x)`` / ``tanh(...)`` (``call_name`` gives None)
        for operand, other in ((left, right), (right, left)):
            if not isinstance(other, ast.Call):
                continue
            name = call_name(other, ctx)
            if name in ("torch.sigmoid", "torch.Tensor.sigmoid", "torch.nn.functional.sigmoid") and other.args \
                    and type(other.args[0]) is type(operand) and _same(other.args[0], operand):
                report_shape(self, node, "x * sigmoid(x)", ctx, "SiLU written out")
                return
            if name in ("torch.tanh", "torch.Tensor.tanh") and other.args and \
                    call_name(other.args[0], ctx) == "torch.nn.functional.softplus" and \
                    other.args[0].args and _same(other.args[0].args[0], operand):
                report_shape(self, node, "x * tanh(softplus(x))", ctx, "Mish written out")
                return


class RotateHalf(Rule):
    """Rotary position embeddings written out: ``torch.cat((-x2, x1), dim=-1)`` or the complex form.

    What it does:
        Flags ``torch.cat((-x2, x1), dim=-1)`` (the half rotation of RoPE, ``rotate_half``), and the complex form
        of Meta's LLaMA and its copies: ``torch.view_as_real(xq_ * freqs_cis)`` where ``xq_`` is
        ``torch.view_as_complex(...)`` (inline, or a name assigned from it earlier in the function). Not flagged:
        the interleaved ``torch.stack((-x2, x1), dim=-1).flatten(-2)`` spelling (GPT-J, some timm models) and
        RoPE applied through ``torch.polar``.
    Why it matters on NPU:
        ``npu_rotary_mul(x, cos, sin)`` computes ``x * cos + rotate_half(x) * sin`` in one operator; with
        ``rotary_mode='interleave'`` (torch-npu 2.5.1+) it rotates adjacent pairs, as the complex form does.
    Example:
        return torch.cat((-x2, x1), dim=-1)
        xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    Use instead:
        q = torch_npu.npu_rotary_mul(q, cos, sin)
        xq_out = torch_npu.npu_rotary_mul(xq, cos, sin, rotary_mode="interleave")
    Fix safety:
        No fix: the caller's ``x * cos + rotate_half(x) * sin`` is what gets replaced, and the complex form needs
        ``cos`` / ``sin`` built from ``freqs_cis``.
    """

    code = "NPU306"
    patterns = ('cat((-x2, x1), dim=-1)', 'view_as_complex(x) * freqs_cis')
    page_extra = classmethod(lambda cls: affinity_page(cls))
    name = "rotate-half"
    family = FAMILY
    node_types = (ast.Call,)
    callees = frozenset({"torch.cat", "torch.view_as_real"})   # dispatch: the calls judged
    triggers = ("cat", "view_as_real")
    message = MESSAGE
    must_fire = ("import torch\ndef rotate_half(x):\n    x1, x2 = x[..., :32], x[..., 32:]\n"
                 "    return torch.cat((-x2, x1), dim=-1)\n",
                 "import torch\ndef rope(xq, freqs_cis):\n"
                 "    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))\n"
                 "    return torch.view_as_real(xq_ * freqs_cis).flatten(3)\n")
    must_not_fire = ("import torch\ny = torch.cat((a, b), dim=-1)\n", "import torch\ny = torch.cat((-a, b), dim=0)\n",
                     "import torch\ndef f(a, b):\n    return torch.view_as_real(a * b)\n")

    def check(self, node: ast.Call, ctx: FileContext) -> None:
        if call_name(node, ctx) == "torch.view_as_real":
            self._complex_form(node, ctx)
            return
        if call_name(node, ctx) != "torch.cat" or not node.args or not isinstance(node.args[0], (ast.Tuple, ast.List)):
            return
        parts = node.args[0].elts
        dim = next((kw.value for kw in node.keywords if kw.arg == "dim"), node.args[1] if len(node.args) > 1 else None)
        last = isinstance(dim, ast.UnaryOp) and isinstance(dim.op, ast.USub) and isinstance(dim.operand, ast.Constant) \
            and dim.operand.value == 1
        if len(parts) == 2 and last and isinstance(parts[0], ast.UnaryOp) and isinstance(parts[0].op, ast.USub):
            report_shape(self, node, "cat((-x2, x1), dim=-1)", ctx, "rotate_half of RoPE")

    def _complex_form(self, node: ast.Call, ctx: FileContext) -> None:
        product = node.args[0] if len(node.args) == 1 else None
        if not (isinstance(product, ast.BinOp) and isinstance(product.op, ast.Mult)):
            return
        statement = ctx.statement_of(node)
        for side in (product.left, product.right):
            value = definition(side, statement, ctx)[0] if isinstance(side, ast.Name) and statement else side
            if call_name(value, ctx) == "torch.view_as_complex":
                report_shape(self, node, "view_as_complex(x) * freqs_cis", ctx, "complex-form RoPE")
                return


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
    patterns = ('x * rsqrt(mean(x ** 2) + eps)',)
    page_extra = classmethod(lambda cls: affinity_page(cls))
    name = "rms-norm-shape"
    family = FAMILY
    node_types = (ast.Assign, ast.BinOp)
    triggers = ("rsqrt",)
    message = MESSAGE
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
            if call_name(side, ctx) in ("torch.rsqrt", "torch.Tensor.rsqrt") and side.args \
                    and isinstance(side.args[0], ast.BinOp) and isinstance(side.args[0].op, ast.Add) \
                    and (_mean_of_square(side.args[0].left, ctx) or _names_square(side.args[0].left, squares)):
                report_shape(self, node, "x * rsqrt(mean(x ** 2) + eps)", ctx, "RMSNorm")
                return


def _names_square(node: ast.AST, squares: set) -> bool:
    return isinstance(node, ast.Name) and node.id in squares


def _mean_of_square(node: ast.AST, ctx: FileContext) -> bool:
    if call_name(node, ctx) not in ("torch.Tensor.mean", "torch.mean"):
        return False
    inner = node.func.value if isinstance(node.func, ast.Attribute) and call_name(node, ctx) == "torch.Tensor.mean" \
        else (node.args[0] if node.args else None)
    if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr in ("pow", "square"):
        return inner.func.attr == "square" or (bool(inner.args) and isinstance(inner.args[0], ast.Constant)
                                                and inner.args[0].value == 2)
    return isinstance(inner, ast.BinOp) and (isinstance(inner.op, ast.Mult) and _same(inner.left, inner.right)
                                              or isinstance(inner.op, ast.Pow))
