"""NPU309-NPU310: two neighbouring operators that one fused torch_npu operator replaces (``special`` affinity APIs).

Add + LayerNorm / RMSNorm and GroupNorm + SiLU (the softmax shapes are in ``affinity_softmax.py``). Each is
matched on the evident structure, never on names alone: the functional calls (``F.layer_norm``, ``F.silu``, ...), ``nn`` modules
assigned to ``self`` attributes in the same class (``self.norm = nn.LayerNorm(d)``), ``nn.Sequential``
neighbours and, where cheap, a name that carries the intermediate from the statement just before its use.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.context import FileContext
from npu_lint.rules import Rule
from npu_lint.rules.affinity import affinity_page
from npu_lint.rules.affinity_shapes import MESSAGE, report_shape
from npu_lint.rules.affinity_operands import shown
from npu_lint.rules.fusion_structure import (
    activation_kind,
    argument,
    branch_values,
    definition,
    function_call,
    intermediate,
    is_sum,
    module_call_input,
    module_made_by,
    read_only_here,
    record_module,
)

FAMILY = "affinity"
_LAYER_NORM = ("torch.nn.functional.layer_norm", "torch.layer_norm")
_RMS_NORM = ("torch.nn.functional.rms_norm", "torch.rms_norm")
_VIEWS = ("reshape", "view", "flatten", "contiguous")
_GROUP_NORM = ("torch.nn.functional.group_norm", "torch.group_norm")
_SILU = ("torch.nn.functional.silu",)


# -- NPU309 -------------------------------------------------------------------------------------------------------

class AddLayerNormShape(Rule):
    """Residual add followed by a norm: ``F.layer_norm(x + r, ...)``, ``self.norm(x + r)``, add + RMSNorm.

    What it does:
        Flags a layer norm or an RMSNorm whose input is the sum of two tensors: ``F.layer_norm(x + r, ...)``,
        ``F.rms_norm``, or a call of a ``self`` attribute that the class assigned an ``nn.LayerNorm``, an
        ``nn.RMSNorm`` or a model's own RMSNorm class (``LlamaRMSNorm``, ``Qwen2RMSNorm``, ``T5LayerNorm``). The
        sum may be inline or the last value the name got earlier in the function, also inside an ``if``/``else``
        (``hidden_states = residual + hidden_states``; ``residual = hidden_states``; ``self.post_attention_layernorm(
        hidden_states)``), and may be used again afterwards: the pre-LN residual pattern
        ``x = x + self.attn(self.norm1(x))``; ``x = x + self.mlp(self.norm2(x))`` is reported at ``norm2``.
        Sums with a literal or with a ``self`` parameter such as a position embedding (a broadcast, which the fused
        operator does not do) are left alone, and so is a name whose last binding the rule cannot read (a tuple
        target, a loop variable).
    Why it matters on NPU:
        ``npu_add_layer_norm`` and ``npu_add_rms_norm`` (torch-npu 2.2.0+) add and normalise in one operator and
        also return the sum for the residual, instead of writing the full-size sum to memory and reading it back.
    Example:
        hidden_states = self.LayerNorm(hidden_states + input_tensor)
        x = x + self.drop_path(self.attn(self.norm1(x)))
        x = x + self.drop_path(self.mlp(self.norm2(x)))
    Use instead:
        ln = self.LayerNorm
        hidden_states = torch_npu.npu_add_layer_norm(hidden_states, input_tensor, ln.weight, ln.bias, ln.eps)[0]
        y, _, _, x = torch_npu.npu_add_layer_norm(x, branch, ln.weight, ln.bias, ln.eps, additional_output=True)
    Fix safety:
        No fix: the two operands must have the same shape and the module's parameters are passed by hand.
    """

    code = "NPU309"
    patterns = ('layer_norm(x + residual)', 'rms_norm(x + residual)')
    page_extra = classmethod(lambda cls: affinity_page(cls))
    name = "add-norm-shape"
    family = FAMILY
    node_types = (ast.Assign, ast.Call)
    triggers = ("layer_norm", "LayerNorm", "RMSNorm", "rms_norm")
    message = MESSAGE
    must_fire = (
        "import torch.nn.functional as F\ny = F.layer_norm(x + residual, (768,), w, b, 1e-5)\n",
        "import torch.nn as nn\nclass Output(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
        "        self.LayerNorm = nn.LayerNorm(d, eps=1e-12)\n"
        "    def forward(self, h, x):\n        return self.LayerNorm(h + x)\n",
        "import torch.nn as nn\nclass Block(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
        "        self.norm = nn.LayerNorm(d)\n"
        "    def forward(self, x, r):\n        h = x + self.attn(x)\n        return self.norm(h)\n",
        "import torch.nn as nn\nclass Block(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
        "        self.norm = nn.LayerNorm(d)\n"
        "    def forward(self, x, r):\n        h = x + r\n        y = self.norm(h)\n        return y + h\n",
        "import torch.nn as nn\nclass Layer(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
        "        self.post_norm = LlamaRMSNorm(d)\n"
        "    def forward(self, h, residual):\n        h = residual + h\n        residual = h\n"
        "        h = self.post_norm(h)\n        return h + residual\n",
        "import torch.nn as nn\nclass Block(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
        "        self.norm1 = nn.LayerNorm(d)\n        self.norm2 = nn.LayerNorm(d)\n"
        "    def forward(self, x):\n        x = x + self.attn(self.norm1(x))\n        x = x + self.mlp(self.norm2(x))\n"
        "        return x\n",
    )
    must_not_fire = (
        "import torch.nn.functional as F\ny = F.layer_norm(x, (768,), w, b)\n",
        "import torch.nn as nn\nclass Vit(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
        "        self.norm = nn.LayerNorm(d)\n"
        "    def forward(self, x):\n        return self.norm(x + self.pos_embed)\n",
        "import torch.nn as nn\nclass Block(nn.Module):\n    def forward(self, x, r):\n"
        "        return self.norm(x + r)\n",
        "import torch.nn.functional as F\ny = F.layer_norm(x + 1, (768,))\n",
        "import torch.nn as nn\nclass Block(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
        "        self.norm = nn.LayerNorm(d)\n"
        "    def forward(self, x, r):\n        x = x + r\n        x, w = self.attn(x)\n        return self.norm(x)\n",
        "import torch.nn as nn\nclass Block(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
        "        self.norm = nn.LayerNorm(d)\n"
        "    def forward(self, x, r, g):\n        if g is None:\n            x = x + r\n        else:\n"
        "            x = self.norm(x)\n        return x\n",
    )

    def check(self, node: ast.AST, ctx: FileContext) -> None:
        if isinstance(node, ast.Assign):
            record_module(node, ctx)
            return
        pattern = "layer_norm(x + residual)"
        if function_call(node, _LAYER_NORM, ctx):
            source = argument(node, 0, "input")
        elif function_call(node, _RMS_NORM, ctx):
            source, pattern = argument(node, 0, "input"), "rms_norm(x + residual)"
        else:
            source = module_call_input(node, "LayerNorm", node, ctx)
            if source is None:
                source, pattern = module_call_input(node, "RMSNorm", node, ctx), "rms_norm(x + residual)"
        statement = ctx.statement_of(node) if source is not None else None
        if statement is None:
            return
        value, where = definition(source, statement, ctx)
        for _ in range(2):   # ``x = x.reshape(B, -1, C)`` between the add and the norm (timm Swin): a view of the sum
            base = value.func.value if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
                value.func.attr in _VIEWS else None
            if not (isinstance(base, ast.Name) and isinstance(source, ast.Name) and base.id == source.id):
                break
            value, where = definition(base, where, ctx)
        if is_sum(value, ctx):
            what = "residual add then RMSNorm" if pattern.startswith("rms") else "residual add then LayerNorm"
            if value is not source:
                what += f", the add being {shown(value, ctx, 40)}"
            report_shape(self, node, pattern, ctx, what)


# -- NPU310 -------------------------------------------------------------------------------------------------------

def _group_norm_output(node: ast.AST, anchor: ast.AST, ctx: FileContext) -> bool:
    return function_call(node, _GROUP_NORM, ctx) or module_call_input(node, "GroupNorm", anchor, ctx) is not None


class GroupNormSiluShape(Rule):
    """GroupNorm followed by SiLU: ``F.silu(self.norm(x))`` with an ``nn.GroupNorm``, or ``F.silu(F.group_norm(...))``.

    What it does:
        Flags SiLU / Swish applied to the output of a group norm (``F.group_norm``, or a ``self`` attribute the
        class assigned an ``nn.GroupNorm``): ``F.silu``, a ``self`` attribute holding an ``nn.SiLU`` or a configured
        activation whose name is known (``self.nonlinearity = get_activation(act)`` with ``act="swish"`` as the
        default, diffusers), or ``h * torch.sigmoid(h)``; inline or through a name assigned in the
        statement just before (``h = self.norm1(h)`` then ``h = self.nonlinearity(h)``, the diffusers
        ``ResnetBlock2D`` form); and ``nn.GroupNorm(...)`` directly followed by ``nn.SiLU()`` in an ``nn.Sequential``.
        Not flagged: norms that only look like a GroupNorm (``AdaGroupNorm``, ``SpatialNorm``), a Swish behind a
        user function (``nonlinearity(h)`` defined in the file), an activation taken from the configuration
        (``ACT2FN[config.feat_extract_activation]``: GELU in wav2vec2).
    Why it matters on NPU:
        ``npu_group_norm_silu`` (torch-npu 2.2.0+) normalises and activates in one operator, saving a full-size
        intermediate per ResNet block of a diffusion UNet or VAE.
    Example:
        h = F.silu(self.norm1(x))
    Use instead:
        h = torch_npu.npu_group_norm_silu(x, self.norm1.weight, self.norm1.bias, self.norm1.num_groups,
                                          self.norm1.eps)[0]
    Fix safety:
        No fix: the module's parameters are passed by hand and the operator returns a tuple.
    """

    code = "NPU310"
    patterns = ('silu(group_norm(x))',)
    page_extra = classmethod(lambda cls: affinity_page(cls))
    name = "group-norm-silu-shape"
    family = FAMILY
    node_types = (ast.Assign, ast.Call, ast.BinOp)
    triggers = ("GroupNorm", "group_norm")
    message = MESSAGE
    must_fire = (
        "import torch.nn.functional as F\ny = F.silu(F.group_norm(x, 32, w, b))\n",
        "import torch.nn as nn\nimport torch.nn.functional as F\nclass Res(nn.Module):\n    def __init__(self, c):\n"
        "        super().__init__()\n        self.norm1 = nn.GroupNorm(32, c)\n"
        "    def forward(self, x):\n        return F.silu(self.norm1(x))\n",
        "import torch.nn as nn\nclass Res(nn.Module):\n    def __init__(self, c):\n        super().__init__()\n"
        "        self.norm1 = nn.GroupNorm(32, c)\n        self.act = nn.SiLU()\n"
        "    def forward(self, h):\n        h = self.norm1(h)\n        h = self.act(h)\n        return h\n",
        "import torch.nn as nn\nhead = nn.Sequential(nn.GroupNorm(32, 128), nn.SiLU(), nn.Conv2d(128, 3, 3))\n",
        "import torch\nimport torch.nn as nn\nclass Res(nn.Module):\n    def __init__(self, c):\n        super().__init__()\n"
        "        self.norm1 = nn.GroupNorm(32, c)\n"
        "    def forward(self, h):\n        h = self.norm1(h)\n        h = h * torch.sigmoid(h)\n        return h\n",
        "import torch.nn as nn\nfrom diffusers.models.activations import get_activation\nclass Res(nn.Module):\n"
        "    def __init__(self, c, act='swish'):\n        super().__init__()\n        self.norm1 = nn.GroupNorm(32, c)\n"
        "        self.nonlinearity = get_activation(act)\n"
        "    def forward(self, h):\n        h = self.norm1(h)\n        h = self.nonlinearity(h)\n        return h\n",
        "import torch.nn as nn\nclass Decoder(nn.Module):\n    def __init__(self, c):\n        super().__init__()\n"
        "        self.norm_out = nn.GroupNorm(32, c)\n        self.act = nn.SiLU()\n"
        "    def forward(self, h, emb=None):\n        if emb is None:\n            h = self.norm_out(h)\n"
        "        else:\n            h = self.norm_out(h, emb)\n        h = self.act(h)\n        return h\n",
    )
    must_not_fire = (
        "import torch.nn.functional as F\ny = F.silu(self.norm1(x))\n",
        "import torch.nn as nn\nimport torch.nn.functional as F\nclass Res(nn.Module):\n    def __init__(self, c):\n"
        "        super().__init__()\n        self.norm1 = nn.BatchNorm2d(c)\n"
        "    def forward(self, x):\n        return F.silu(self.norm1(x))\n",
        "import torch.nn as nn\nhead = nn.Sequential(nn.GroupNorm(32, 128), nn.Conv2d(128, 128, 3), nn.SiLU())\n",
        "import torch.nn.functional as F\nh = F.group_norm(x, 32)\nskip = h\nh = F.silu(h)\n",
    )

    def check(self, node: ast.AST, ctx: FileContext) -> None:
        if isinstance(node, ast.Assign):
            record_module(node, ctx)
            return
        what = "GroupNorm then SiLU"
        if isinstance(node, ast.BinOp):
            source = _swish_input(node, ctx)
            what = "GroupNorm then Swish, x * sigmoid(x)"
        elif ctx.resolver.qualname(node.func) == "torch.nn.Sequential":
            for first, second in zip(node.args, node.args[1:]):
                if module_made_by(first, ctx) == "GroupNorm" and module_made_by(second, ctx) == "SiLU":
                    report_shape(self, first, "silu(group_norm(x))", ctx, "nn.GroupNorm then nn.SiLU")
            return
        else:
            found = activation_kind(node, node, ctx)   # a configured activation (ACT2FN[config.x]) is not enough:
            source = found[1] if found is not None and found[0] == "silu" else None   # wav2vec2's is GELU
        statement = ctx.statement_of(node) if source is not None else None
        if statement is None:
            return
        # the Swish reads its input twice: the norm's output is the name's last value rather than a dying temporary
        found = definition(source, statement, ctx) if isinstance(node, ast.BinOp) else intermediate(source, statement, ctx)
        if found is None and isinstance(source, ast.Name) and read_only_here(source.id, statement, ctx):
            found = next(((value, statement) for value in branch_values(source.id, statement, ctx)
                          if _group_norm_output(value, node, ctx)), None)   # the VAE decoder's if/else norm
        if found is not None and _group_norm_output(found[0], node, ctx):
            report_shape(self, node, "silu(group_norm(x))", ctx, what)


def _swish_input(node: ast.BinOp, ctx: FileContext) -> Optional[ast.AST]:
    """``h`` of ``h * torch.sigmoid(h)`` (either order; ``h`` a name)."""
    if not isinstance(node.op, ast.Mult):
        return None
    for value, gate in ((node.left, node.right), (node.right, node.left)):
        if isinstance(value, ast.Name) and isinstance(gate, ast.Call) and len(gate.args) == 1 and \
                isinstance(gate.args[0], ast.Name) and gate.args[0].id == value.id and \
                (ctx.resolver.qualname(gate.func) in ("torch.sigmoid", "torch.nn.functional.sigmoid") or
                 (isinstance(gate.func, ast.Attribute) and gate.func.attr == "sigmoid")):
            return value
    return None
