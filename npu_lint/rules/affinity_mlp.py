"""NPU305: gated MLPs (SwiGLU / GeGLU), packed (``chunk(2)``) or as two projections (the LLaMA MLP)."""
from __future__ import annotations

import ast
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES, Rule
from npu_lint.rules.affinity import affinity_page
from npu_lint.rules.affinity_shapes import FAMILY, MESSAGE, report_shape
from npu_lint.rules.affinity_operands import source_text
from npu_lint.rules.fusion_structure import activation_kind, definition, is_linear_call, record_module

_GATED = {"silu": "silu", "configured": "silu", "gelu": "gelu"}


def _is_two_way_chunk(value: ast.AST, ctx: FileContext) -> bool:
    """``x.chunk(2, dim=-1)`` or ``torch.chunk(x, 2, -1)``."""
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute) or value.func.attr != "chunk":
        return False
    args = value.args if ctx.resolver.qualname(value.func) is None else value.args[1:]
    chunks = args[0] if args else next((kw.value for kw in value.keywords if kw.arg == "chunks"), None)
    return isinstance(chunks, ast.Constant) and chunks.value == 2


class GatedLinearShape(Rule):
    """SwiGLU / GeGLU: ``a, b = x.chunk(2, -1)`` then ``F.silu(a) * b``, or ``F.silu(self.gate(x)) * self.up(x)``.

    What it does:
        Flags the product of an activated gate and an ungated value, in two spellings:
        packed, ``a, b = x.chunk(2, dim=-1)`` then ``act(a) * b`` (either half activated); and two projections of
        the same input, ``act(self.gate_proj(x)) * self.up_proj(x)`` (the LLaMA / Mistral / Qwen MLP), also through
        names assigned earlier in the function (``g = self.fc1_g(x)``; ``x = self.fc1_x(x)``; ``self.act(g) * x``,
        timm's ``GluMlp``). The activation is ``F.silu`` / ``F.gelu``, a ``self`` attribute holding ``nn.SiLU`` /
        ``nn.GELU``, or a configured one (``self.act_fn = ACT2FN[config.hidden_act]``: SwiGLU when the
        configuration says ``silu``, as LLaMA's does). The projections must be ``self`` attributes the class
        assigned an ``nn.Linear`` (or ``F.linear`` calls). Not flagged: products of halves of a three-way chunk,
        of unrelated tensors, of projections of different inputs, or with an activation the rule cannot see.
    Why it matters on NPU:
        ``npu_swiglu`` / ``npu_geglu`` do the split, the activation and the product in one operator
        (torch-npu 2.2.0+), saving two intermediates per MLP block. The two-projection form first needs
        ``gate_proj`` and ``up_proj`` merged into one ``nn.Linear`` of twice the width (gate rows first), whose
        output the fused operator takes.
    Example:
        down_proj = self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))
    Use instead:
        down_proj = self.down_proj(torch_npu.npu_swiglu(self.gate_up_proj(x), dim=-1))
    Fix safety:
        No fix: the weights must be merged, and the fused operator activates the first half.
    """

    code = "NPU305"
    patterns = ('silu(a) * b after chunk(2)', 'gelu(a) * b after chunk(2)', 'silu(gate(x)) * up(x)', 'gelu(gate(x)) * up(x)')
    page_extra = classmethod(lambda cls: affinity_page(cls))
    name = "gated-linear-shape"
    family = FAMILY
    node_types = (ast.Assign, ast.BinOp)
    triggers = ("chunk", "silu", "gelu", "SiLU", "GELU", "act")
    message = MESSAGE
    must_fire = (
        "import torch.nn.functional as F\na, b = x.chunk(2, dim=-1)\ny = F.silu(a) * b\n",
        "import torch\nimport torch.nn.functional as F\ngate, up = torch.chunk(h, 2, -1)\nout = up * F.gelu(gate)\n",
        "import torch.nn as nn\nimport torch.nn.functional as F\nclass MLP(nn.Module):\n    def __init__(self, d, h):\n"
        "        super().__init__()\n        self.gate_proj = nn.Linear(d, h)\n        self.up_proj = nn.Linear(d, h)\n"
        "        self.down_proj = nn.Linear(h, d)\n"
        "    def forward(self, x):\n        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))\n",
        "import torch.nn as nn\nfrom transformers.activations import ACT2FN\nclass MLP(nn.Module):\n"
        "    def __init__(self, config):\n        super().__init__()\n        self.w1 = nn.Linear(8, 16)\n"
        "        self.w3 = nn.Linear(8, 16)\n        self.act_fn = ACT2FN[config.hidden_act]\n"
        "    def forward(self, x):\n        g = self.w1(x)\n        x = self.w3(x)\n        return self.act_fn(g) * x\n",
        "import torch.nn as nn\nfrom transformers.activations import ACT2FN\nclass GatedDense(nn.Module):\n"
        "    def __init__(self, config):\n        super().__init__()\n        self.wi_0 = nn.Linear(8, 16)\n"
        "        self.wi_1 = nn.Linear(8, 16)\n        self.act = ACT2FN[config.dense_act_fn]\n"
        "    def forward(self, h):\n        hidden_gelu = self.act(self.wi_0(h))\n        hidden_linear = self.wi_1(h)\n"
        "        return hidden_gelu * hidden_linear\n",
    )
    must_not_fire = (
        "import torch.nn.functional as F\ny = F.silu(a) * b\n",
        "import torch.nn.functional as F\na, b, c = x.chunk(3, dim=-1)\ny = F.silu(a) * b\n",
        "import torch.nn as nn\nimport torch.nn.functional as F\nclass M(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.g = nn.Linear(8, 8)\n        self.u = nn.Linear(8, 8)\n"
        "    def forward(self, x, y):\n        return F.silu(self.g(x)) * self.u(y)\n",
        "import torch.nn as nn\nimport torch.nn.functional as F\nclass M(nn.Module):\n"
        "    def forward(self, x):\n        return F.silu(self.g(x)) * self.u(x)\n",
    )

    def check(self, node: ast.AST, ctx: FileContext) -> None:
        halves = ctx.scratch.setdefault("chunk_halves", set())   # (first, second) names of a two-way chunk
        gates = ctx.scratch.setdefault("activated_gates", set())   # (scope, name) bound to act(...)
        if isinstance(node, ast.Assign):
            record_module(node, ctx)
            target = node.targets[0]
            if isinstance(target, ast.Name) and activation_kind(node.value, node, ctx) is not None:
                gates.add((id(ctx.enclosing(node, FUNCTION_TYPES)), target.id))
            if isinstance(target, ast.Tuple) and len(target.elts) == 2 and \
                    all(isinstance(e, ast.Name) for e in target.elts) and _is_two_way_chunk(node.value, ctx):
                halves.add((target.elts[0].id, target.elts[1].id))
            return
        if not isinstance(node.op, ast.Mult):
            return
        statement = ctx.statement_of(node)
        for activated, other in ((node.left, node.right), (node.right, node.left)):
            if isinstance(activated, ast.Name) and statement is not None and \
                    (id(ctx.enclosing(node, FUNCTION_TYPES)), activated.id) in gates:   # ``g = self.act(...)``; ``g * u``
                activated = definition(activated, statement, ctx)[0]
            found = activation_kind(activated, node, ctx)
            if found is None:
                continue
            kind, gate = found
            if isinstance(gate, ast.Name) and isinstance(other, ast.Name) and \
                    ((gate.id, other.id) in halves or (other.id, gate.id) in halves):
                self._report(node, kind, "packed", (other.id, gate.id) in halves, ctx)
                return
            if self._two_projections(gate, other, node, ctx):
                self._report(node, kind, "projections", False, ctx)
                return

    @staticmethod
    def _two_projections(gate: ast.AST, up: ast.AST, anchor: ast.AST, ctx: FileContext) -> bool:
        statement = ctx.statement_of(anchor)
        if statement is None:
            return False
        inputs = []
        for side in (gate, up):
            value = definition(side, statement, ctx)[0] if isinstance(side, ast.Name) else side
            source = is_linear_call(value, anchor, ctx)
            if source is None:
                return False
            inputs.append(source_text(source, ctx))
        return inputs[0] is not None and inputs[0] == inputs[1]

    def _report(self, node: ast.BinOp, kind: str, form: str, second_half: bool, ctx: FileContext) -> None:
        fused = _GATED[kind]
        pattern = f"{fused}(a) * b after chunk(2)" if form == "packed" else f"{fused}(gate(x)) * up(x)"
        what = "SwiGLU" if fused == "silu" else "GeGLU"
        if kind == "configured":
            what += " when the configured activation is SiLU (GELU: npu_geglu)"
        if second_half:
            what += "; the second half is activated: swap the halves (the fused operator activates the first)"
        report_shape(self, node, pattern, ctx, what)
