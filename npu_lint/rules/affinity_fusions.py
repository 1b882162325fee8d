"""NPU309-NPU312: two neighbouring operators that one fused torch_npu operator replaces (``special`` affinity APIs).

Add + LayerNorm, GroupNorm + SiLU, add + softmax + dropout and scaled masked softmax. Each is matched on the
evident structure, never on names alone: the functional calls (``F.layer_norm``, ``F.silu``, ...), ``nn`` modules
assigned to ``self`` attributes in the same class (``self.norm = nn.LayerNorm(d)``), ``nn.Sequential``
neighbours and, where cheap, a name that carries the intermediate from the statement just before its use.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.context import FileContext
from npu_lint.rules import Rule
from npu_lint.rules.affinity_shapes import MESSAGE, report_shape
from npu_lint.rules.fusion_structure import (
    activation_kind,
    argument,
    branch_values,
    definition,
    fallback_of_sdpa,
    function_call,
    intermediate,
    is_last_dim,
    is_sum,
    module_call_input,
    module_made_by,
    read_only_here,
    record_module,
    shown,
    strip_casts,
)

FAMILY = "affinity"
_LAYER_NORM = ("torch.nn.functional.layer_norm", "torch.layer_norm")
_RMS_NORM = ("torch.nn.functional.rms_norm", "torch.rms_norm")
_VIEWS = ("reshape", "view", "flatten", "contiguous")
_GROUP_NORM = ("torch.nn.functional.group_norm", "torch.group_norm")
_SILU = ("torch.nn.functional.silu",)
_SOFTMAX = ("torch.softmax", "torch.nn.functional.softmax", "torch.special.softmax")
_DROPOUT = ("torch.nn.functional.dropout", "torch.dropout")


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


# -- NPU311 and NPU312 --------------------------------------------------------------------------------------------

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
