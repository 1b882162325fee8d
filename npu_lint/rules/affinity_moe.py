"""NPU313: MoE routing written out, top-k of a softmax over the router logits."""
from __future__ import annotations

import ast
import re
from typing import Optional

from npu_lint.context import FileContext
from npu_lint.rules import Rule
from npu_lint.rules.affinity import affinity_page
from npu_lint.rules.affinity_shapes import FAMILY, MESSAGE, call_name, report_shape
from npu_lint.rules.fusion_structure import argument, definition, is_last_dim, own_nodes, reads, scope_of

_SOFTMAX = ("torch.softmax", "torch.nn.functional.softmax", "torch.Tensor.softmax")
_ROUTING = re.compile(r"rout|gat(e|ing)|expert|moe", re.IGNORECASE)
_CASTS = ("float", "to", "type_as")


def _softmax_input(node: ast.AST, ctx: FileContext) -> Optional[ast.AST]:
    """The logits of a softmax over the last dimension (``dim=-1``, or ``dim=1`` of 2-D router logits)."""
    name = call_name(node, ctx)
    if name not in _SOFTMAX:
        return None
    if name == "torch.Tensor.softmax":
        source, dim = node.func.value, argument(node, 0, "dim")
    else:
        source, dim = argument(node, 0, "input"), argument(node, 1, "dim")
    if dim is None or not (is_last_dim(dim) or (isinstance(dim, ast.Constant) and dim.value == 1)):
        return None
    while isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and source.func.attr in _CASTS:
        source = source.func.value
    return source


def _names(*nodes: Optional[ast.AST]) -> str:
    found = []
    for node in nodes:
        if isinstance(node, ast.Name):
            found.append(node.id)
        elif isinstance(node, ast.Attribute):
            found.append(node.attr)
        elif isinstance(node, ast.Call):
            found.append(_names(node.func))
        elif isinstance(node, ast.Tuple):
            found.extend(_names(e) for e in node.elts)
    return " ".join(found)


class MoeGatingShape(Rule):
    """MoE routing: ``torch.topk(F.softmax(router_logits, dim=-1), k)``.

    What it does:
        Flags a top-k (``torch.topk``, ``.topk``) of a softmax over the last dimension of router logits, inline or
        through a name assigned earlier in the function (``routing_weights = F.softmax(router_logits, dim=1,
        dtype=torch.float)`` then ``torch.topk(routing_weights, self.top_k, dim=-1)``, the Mixtral / Qwen-MoE /
        DeepSeek form), unless the full probabilities are read again (an auxiliary load-balancing loss needs
        them). Routing is told from other top-k-of-softmax code (top-5 accuracy, sampling) by the names
        involved: the logits, the probabilities, the result or the enclosing function or class mention routing,
        a gate or experts (``router``, ``gate``, ``gating``, ``expert``, ``moe``).
    Why it matters on NPU:
        ``npu_moe_gating_top_k_softmax`` (torch-npu 2.3.1+) computes the softmax and the top-k selection of the
        router in one operator; the token dispatch that follows has its own fused operators
        (``npu_moe_init_routing``, and ``npu_moe_token_permute`` / ``npu_moe_token_unpermute`` from 2.6.0).
    Example:
        routing_weights = F.softmax(router_logits, dim=1, dtype=torch.float)
        routing_weights, selected_experts = torch.topk(routing_weights, self.top_k, dim=-1)
    Use instead:
        routing_weights, selected_experts, _ = torch_npu.npu_moe_gating_top_k_softmax(router_logits, None,
                                                                                     k=self.top_k)
    Fix safety:
        No fix: the operator returns three tensors and does not renormalise the top-k weights.
    """

    code = "NPU313"
    patterns = ('topk(softmax(router_logits, -1), k)',)
    page_extra = classmethod(lambda cls: affinity_page(cls))
    name = "moe-gating-shape"
    family = FAMILY
    node_types = (ast.Call,)
    callees = frozenset({"torch.topk", "torch.Tensor.topk"})   # dispatch: the calls judged
    triggers = ("topk",)
    message = MESSAGE
    must_fire = (
        "import torch\nimport torch.nn.functional as F\ndef route(router_logits, k):\n"
        "    routing_weights = F.softmax(router_logits, dim=1, dtype=torch.float)\n"
        "    return torch.topk(routing_weights, k, dim=-1)\n",
        "import torch\nclass MoEGate:\n    def forward(self, logits):\n        scores = logits.softmax(dim=-1)\n"
        "        return torch.topk(scores, k=self.top_k, dim=-1, sorted=False)\n",
    )
    must_not_fire = (
        "import torch\nimport torch.nn.functional as F\ndef accuracy(logits, target):\n"
        "    probs = F.softmax(logits, dim=1)\n    return probs.topk(5, dim=1)\n",
        "import torch\nimport torch.nn.functional as F\ndef route(router_logits, k):\n"
        "    return torch.topk(router_logits, k, dim=-1)\n",
        "import torch\nimport torch.nn.functional as F\ndef route(router_logits, k):\n"
        "    probs = F.softmax(router_logits, dim=0)\n    return torch.topk(probs, k)\n",
        "import torch\nimport torch.nn.functional as F\ndef aux_loss(gate_logits, k):\n"
        "    routing_weights = F.softmax(gate_logits, dim=-1)\n    _, experts = torch.topk(routing_weights, k, dim=-1)\n"
        "    return routing_weights.mean(0) * experts.float().mean()\n",
    )

    def check(self, node: ast.Call, ctx: FileContext) -> None:
        name = call_name(node, ctx)
        if name == "torch.topk":
            source, dim = argument(node, 0, "input"), argument(node, 2, "dim")
        elif name == "torch.Tensor.topk" and isinstance(node.func, ast.Attribute):
            source, dim = node.func.value, argument(node, 1, "dim")
        else:
            return
        if source is None or (dim is not None and not is_last_dim(dim) and
                              not (isinstance(dim, ast.Constant) and dim.value == 1)):
            return
        statement = ctx.statement_of(node)
        value = definition(source, statement, ctx)[0] if statement is not None else source
        logits = _softmax_input(value, ctx)
        if logits is None or (isinstance(source, ast.Name) and
                              reads(source.id, own_nodes(scope_of(statement, ctx))) > 1):
            return   # the full probabilities are used again (an auxiliary loss): the softmax stays
        owner = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        outer = ctx.enclosing(owner, (ast.ClassDef,)) if owner is not None else None
        targets = statement.targets[0] if isinstance(statement, ast.Assign) else None
        words = " ".join([_names(source, logits, targets), getattr(owner, "name", ""), getattr(outer, "name", "")])
        if _ROUTING.search(words):
            report_shape(self, node, "topk(softmax(router_logits, -1), k)", ctx, "MoE router top-k of a softmax")
