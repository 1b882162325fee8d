"""NPU314: softmax cross entropy with one-hot or soft targets written out."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.context import FileContext
from npu_lint.rules import Rule
from npu_lint.rules.affinity import affinity_page
from npu_lint.rules.affinity_shapes import FAMILY, MESSAGE, call_name, report_shape
from npu_lint.rules.fusion_structure import argument, definition, is_last_dim

_LOG_SOFTMAX = ("torch.nn.functional.log_softmax", "torch.log_softmax", "torch.Tensor.log_softmax")


def _last_dim_log_softmax(node: ast.AST, ctx: FileContext) -> bool:
    name = call_name(node, ctx)
    if name not in _LOG_SOFTMAX:
        return False
    dim = argument(node, 0, "dim") if name == "torch.Tensor.log_softmax" else argument(node, 1, "dim")
    return dim is not None and is_last_dim(dim)


def _product_with_log_softmax(node: ast.AST, statement: ast.stmt, ctx: FileContext) -> bool:
    """``-t * F.log_softmax(x, dim=-1)``, ``t * log_probs`` (a name bound to one), negated or not."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)):
        return False
    for side in (node.left, node.right):
        if isinstance(side, ast.UnaryOp) and isinstance(side.op, ast.USub):
            side = side.operand
        value = definition(side, statement, ctx)[0] if isinstance(side, ast.Name) else side
        if _last_dim_log_softmax(value, ctx):
            return True
    return False


class SoftmaxCrossEntropyShape(Rule):
    """Cross entropy with one-hot or soft targets written out: ``torch.sum(-t * F.log_softmax(x, -1), dim=-1)``.

    What it does:
        Flags a sum over the last dimension (``torch.sum(..., dim=-1)``, ``.sum(-1)``) of the product of a target
        and a last-dimension ``log_softmax`` of logits, negated inside or outside the sum, inline or through a name
        holding the log-probabilities (timm's ``SoftTargetCrossEntropy``, mixup and label-smoothing losses, one-hot
        losses). Not flagged: ``F.cross_entropy`` / ``nn.CrossEntropyLoss`` (already one operator), a
        ``log_softmax`` over another dimension, and sums over other dimensions.
    Why it matters on NPU:
        ``npu_softmax_cross_entropy_with_logits(logits, labels)`` computes the softmax, the log and the weighted
        sum in one operator (torch-npu 2.1.0+), without the full-size log-probability tensor; hard labels can use
        ``F.cross_entropy`` (with ``label_smoothing=``) instead of building a one-hot tensor at all.
    Example:
        loss = torch.sum(-target * F.log_softmax(x, dim=-1), dim=-1)
    Use instead:
        loss = torch_npu.npu_softmax_cross_entropy_with_logits(x, target)
    Fix safety:
        No fix: the targets must be float probabilities of the logits' shape.
    """

    code = "NPU314"
    patterns = ('-(one_hot * log_softmax(x)).sum(-1)',)
    page_extra = classmethod(lambda cls: affinity_page(cls))
    name = "softmax-cross-entropy-shape"
    family = FAMILY
    node_types = (ast.Call,)
    callees = frozenset({"torch.sum", "torch.Tensor.sum"})   # dispatch: the calls judged
    triggers = ("log_softmax",)
    message = MESSAGE
    must_fire = (
        "import torch\nimport torch.nn.functional as F\nloss = torch.sum(-target * F.log_softmax(x, dim=-1), dim=-1)\n",
        "import torch.nn.functional as F\ndef ce(logits, one_hot):\n    logp = F.log_softmax(logits, dim=-1)\n"
        "    return -(one_hot * logp).sum(-1)\n",
    )
    must_not_fire = (
        "import torch.nn.functional as F\nloss = F.cross_entropy(x, y)\n",
        "import torch\nimport torch.nn.functional as F\nloss = torch.sum(-target * F.log_softmax(x, dim=1), dim=0)\n",
        "import torch\nimport torch.nn.functional as F\nkl = torch.sum(p * torch.log(p / q), dim=-1)\n",
    )

    def check(self, node: ast.Call, ctx: FileContext) -> None:
        summed = self._summed(node, ctx)
        statement = ctx.statement_of(node)
        if summed is not None and statement is not None and _product_with_log_softmax(summed, statement, ctx):
            report_shape(self, node, "-(one_hot * log_softmax(x)).sum(-1)", ctx,
                         "softmax cross entropy with one-hot or soft targets")

    @staticmethod
    def _summed(node: ast.AST, ctx: FileContext) -> Optional[ast.AST]:
        name = call_name(node, ctx)
        if name == "torch.sum":
            source, dim = argument(node, 0, "input"), argument(node, 1, "dim")
        elif name == "torch.Tensor.sum" and isinstance(node.func, ast.Attribute):
            source, dim = node.func.value, argument(node, 0, "dim")
        else:
            return None
        return source if dim is not None and is_last_dim(dim) else None


_TRANSPOSES = ("permute", "transpose")
_RESHAPES = ("reshape", "view")


class ConfusionTransposeShape(Rule):
    """A transpose chained with a reshape: ``x.permute(...).contiguous().view(...)`` or ``x.view(...).permute(...)``.

    What it does:
        Flags one expression that chains ``permute`` / ``transpose`` (optionally ``.contiguous()``) with ``reshape``
        / ``view``, in either order, on a torch tensor (``permute`` or ``view`` in the chain, or an evident tensor):
        the head split and merge of attention layers. Off by default: the shape is everywhere in transformer code
        and each site saves one copy; select it (``--select NPU315``) when tuning a model's hot path.
    Why it matters on NPU:
        ``npu_confusion_transpose(x, perm, shape, transpose_first)`` does the transpose and the reshape as one
        operator (torch-npu 2.1.0+) instead of a transpose, a contiguous copy and a view.
    Example:
        x = x.transpose(1, 2).contiguous().view(B, N, C)
    Use instead:
        x = torch_npu.npu_confusion_transpose(x, (0, 2, 1, 3), (B, N, C), True)
    Fix safety:
        No fix: ``transpose`` must be written as a full permutation.
    """

    code = "NPU315"
    patterns = ('permute(...).reshape(...)',)
    page_extra = classmethod(lambda cls: affinity_page(cls))
    name = "confusion-transpose-shape"
    family = FAMILY
    default_enabled = False
    node_types = (ast.Call,)
    methods = frozenset(_RESHAPES + _TRANSPOSES)   # dispatch: the calls judged
    triggers = ("permute", "transpose")
    message = MESSAGE
    must_fire = ("import torch\ny = x.permute(0, 2, 1, 3).contiguous().view(b, n, c)\n",
                 "import torch\ny = x.view(b, n, h, d).permute(0, 2, 1, 3)\n")
    must_not_fire = ("import torch\ny = x.permute(0, 2, 1, 3)\n", "import numpy as np\ny = a.transpose(1, 0).reshape(-1)\n",
                     "import torch\ny = x.permute(0, 2, 1, 3).float()\n")

    def check(self, node: ast.Call, ctx: FileContext) -> None:
        consumed = ctx.scratch.setdefault("confusion_transpose_inner", set())
        if not isinstance(node.func, ast.Attribute) or ctx.resolver.qualname(node.func) is not None \
                or id(node) in consumed:
            return   # the inner link of a chain already reported at its outer call
        outer = node.func.attr
        inner = node.func.value
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr == "contiguous":
            inner = inner.func.value
        if not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)):
            return
        first = inner.func.attr
        if outer in _RESHAPES and first in _TRANSPOSES:
            transpose_first = True
        elif outer in _TRANSPOSES and first in _RESHAPES:
            transpose_first = False
        else:
            return
        torch_only = "permute" in (outer, first) or "view" in (outer, first)
        if torch_only or ctx.resolver.is_tensor(inner.func.value):
            consumed.add(id(inner))
            order = "transpose then reshape" if transpose_first else "reshape then transpose"
            report_shape(self, node, "permute(...).reshape(...)", ctx, f"{order}, transpose_first={transpose_first}")
