"""NPU3xx: native code that a faster torch_npu API ("affinity API") can replace.

Name-matched APIs come from rule_tables/affinity.tsv (first torch-npu release and deprecations
included); code shapes are matched structurally. More of the vendor's affinity list (user-defined
classes and functions, attention and normalisation shapes) is still to come.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.bounded import unparse
from npu_lint.context import FileContext
from npu_lint.host_arrays import is_host_array
from npu_lint.rules import ApiRef, Rule
from npu_lint.rules.affinity_operands import fallback_of_sdpa, shown, transposed_operand
from npu_lint.tables import keyed
from npu_lint.versions import since_key

FAMILY = "affinity"


def affinity_row(api: str, ctx: FileContext) -> Optional[dict[str, str]]:
    """The table row for ``api`` if its affinity API exists, and is not deprecated, in the target release."""
    row = keyed("affinity.tsv", "api").get(api)
    if row is None or (row["since"] and ctx.target.key < since_key(row["since"])):
        return None
    if ctx.target.release in row["missing_in"].split():   # the wheel of that release does not register it
        return None
    if row["deprecated_since"] and ctx.target.key >= since_key(row["deprecated_since"]):
        successor = row["successor"]
        if not successor or successor == api:   # deprecated in favour of the very API the code calls
            return None
        return dict(row, affinity_api=successor, since="")   # the successor is part of torch
    return row


def _condition_holds(condition: str, call: ast.Call, ctx: FileContext) -> bool:
    if condition == "transposed_operand":   # matmul_transpose(a, b) is a @ bᵀ: the second operand is transposed
        return len(call.args) == 2 and transposed_operand(call.args[1], ctx) is not None
    if condition == "bidirectional":
        return any(kw.arg == "bidirectional" and isinstance(kw.value, ast.Constant) and kw.value.value is True
                   for kw in call.keywords)
    return not condition


def affinity_page(rule: type[Rule]) -> str:
    """The extra part of an NPU3xx rule page: its targets per release (with the evidence) and the examples that must
    and must not fire, from ``rule_tables/affinity.tsv`` and the rule's own examples."""
    table = keyed("affinity.tsv", "api")
    patterns = getattr(rule, "patterns", None)
    if patterns is None:   # NPU301 / NPU302: the name-matched rows
        wanted = ("class ", "def ") if rule.code == "NPU302" else ("torch", "timm", "apex", "adamp", "pytorch_", "a @ b^T")
        patterns = tuple(api for api in sorted(table) if api.startswith(wanted))
    lines = ["### Targets", "", "| matches | torch_npu API | since | deprecated | evidence |", "|---|---|---|---|---|"]
    for api in patterns:
        row = table.get(api)
        if row is None:
            continue
        deprecated = f"{row['deprecated_since']} ({row['successor'] or 'no successor'})" if row["deprecated_since"] \
            else "-"
        missing = f"; not in the {row['missing_in']} wheel" if row["missing_in"] else ""
        evidence = row["evidence"].split(";")[0].replace("|", "/")
        lines.append(f"| `{api}` | `{row['affinity_api']}` | {row['since'] or '-'}{missing} | {deprecated} | "
                     f"{row['source']}: {evidence} |")
    for title, examples in (("Must fire", rule.must_fire), ("Must not fire", rule.must_not_fire)):
        lines += ["", f"### {title}", ""]
        for example in examples:
            lines += ["```python", example.rstrip("\n"), "```"]
    return "\n".join(lines)


def with_note(row: dict[str, str]) -> str:
    """``; <note>`` from the table row (conditions and what to change beyond the call), or nothing."""
    return f"; {row['note']}" if row.get("note") else ""


class AffinityApi(Rule):
    """A torch or torchvision call that has a faster torch_npu counterpart.

    What it does:
        Flags calls whose NPU counterpart is a fused torch_npu API available in the target release:
        ``torch.optim`` optimizers (``NpuFused*``), ``F.gelu`` / ``nn.GELU`` (``fast_gelu``, an approximation:
        the message says so), ``torch.roll``, a matrix product whose second operand is transposed
        (``torch.matmul(a, b.t())``, ``a @ b.transpose(-2, -1)``, ``x @ torch.transpose(W, 0, 1)``,
        ``k.permute(0, 1, 3, 2)``, ``.T`` / ``.mT``), RMSNorm, bidirectional LSTM, and torchvision box ops
        (``nms``, ``batched_nms``, ``roi_align``, ``box_iou``, ``deform_conv2d``, ..., also through
        ``torchvision.ops.boxes``). The message quotes the call and adds the counterpart's dtype and shape
        conditions. Replacements the vendor deprecated, or that the target release's wheel does not register,
        are not suggested. Not flagged: a transposed first operand (``a.t() @ b``), products in the by-hand fallback
        of an ``if`` whose other branch calls ``F.scaled_dot_product_attention``, transposes of other dims
        (``transpose(0, 2)``), ``F.scaled_dot_product_attention`` (torch-npu 2.1.0 to 2.14.0 register an NPU
        kernel for ``aten::scaled_dot_product_attention``, ``wheels/aten_npu_<release>.csv``; torch 1.11 has no
        SDPA).
    Why it matters on NPU:
        The torch_npu versions run as single fused Ascend kernels (fused optimizers update all parameters
        in one flattened buffer, box ops avoid host round trips), which is where NPU training time is won.
    Example:
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        scores = torch.matmul(q, k.transpose(-2, -1))
    Use instead:
        optimizer = torch_npu.optim.NpuFusedAdamW(model.parameters(), lr=1e-3)
        scores = torch_npu.contrib.function.matmul_transpose(q, k)
    Fix safety:
        Safe for the fused optimizers and for ``nn.SiLU()`` called without arguments (to
        ``torch_npu.contrib.module.SiLU()``, for releases before 2.6.0, which deprecated it), which
        ``npu-lint check --fix`` swaps in files that already ``import torch_npu``. The rest are reported only:
        ``nn.SiLU(inplace=True)`` has no counterpart argument, ``torch_npu.fast_gelu`` is a function (not a module)
        that approximates GELU, box ops differ in argument order and output padding, and ``matmul_transpose``
        takes the operand untransposed.
    """

    fix_safety = "safe"

    code = "NPU301"
    page_extra = classmethod(lambda cls: affinity_page(cls))
    name = "affinity-api"
    family = FAMILY
    node_types = (ApiRef, ast.BinOp)
    triggers = ("optim", "gelu", "GELU", "SiLU", "roll", "matmul", "RMSNorm", "rms_norm", "LSTM", "torchvision", "Lamb",
                "AdamP", "BertAdam", "RMSpropTF", "@")
    message = "{source} has a faster NPU counterpart: {affinity} (torch-npu {since}+){note}"
    must_fire = ("import torch\nopt = torch.optim.AdamW(model.parameters(), lr=1e-3)\n",
                 "import torch.nn.functional as F\ny = F.gelu(x)\n",
                 "from torchvision.ops import nms\nkeep = nms(boxes, scores, 0.5)\n",
                 "import torch\ns = torch.matmul(q, k.transpose(-2, -1))\n",
                 "import torchvision\nout = torchvision.ops.roi_align(feats, rois, (7, 7))\n",
                 "import torch\ny = x @ torch.transpose(W, 0, 1)\n", "import torch\ny = torch.matmul(a, b.t())\n",
                 "import torch\ns = q @ k.permute(0, 1, 3, 2)\n",
                 "from torchvision.ops import boxes as box_ops\nkeep = box_ops.batched_nms(b, s, c, 0.5)\n")
    must_not_fire = ("import torch\ns = torch.matmul(q, k)\n", "import torch.nn as nn\nrnn = nn.LSTM(128, 256)\n",
                     "import torch.nn as nn\nact = nn.SiLU()\n",          # deprecated for the default target
                     "import torch\nopt_cls = torch.optim.AdamW\n", "import torch\ny = a.t() @ b\n",
                     "import torch\ny = a @ b.transpose(0, 2)\n", "import torch\ny = a @ b.permute(0, 2, 1, 3)\n",
                     "import numpy as np\ny = a @ b.T\n",
                     "import numpy as np\nimport torch\nw = np.ones((3, 3))\ny = w @ w.T\n")

    @classmethod
    def wants_api(cls, qualname: str) -> bool:
        return keyed("affinity.tsv", "api").get(qualname) is not None   # as affinity_row, for any release

    def check(self, node: object, ctx: FileContext) -> None:
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.MatMult) and ctx.uses_torch and transposed_operand(node.right, ctx) is not None \
                    and not is_host_array(node.left, ctx, node) and not is_host_array(node.right, ctx, node):
                self._report(node, "a @ b^T", ctx)
            return
        call = ctx.call_of(node.node)
        if call is None:
            return
        row = affinity_row(node.qualname, ctx)
        if row is not None and _condition_holds(row["condition"], call, ctx):
            self._report(call, node.qualname, ctx, node.node)

    def _report(self, node: ast.AST, api: str, ctx: FileContext, where: Optional[ast.AST] = None) -> None:
        row = affinity_row(api, ctx)
        if row is None or (row["condition"] == "transposed_operand" and fallback_of_sdpa(node, ctx)):
            return
        ctx.report(where or node, self.message.format(source=shown(node, ctx), affinity=row["affinity_api"],
                                                      since=row["since"], note=with_note(row)), api)


_BASES = ("Module", "Function")


def _definition_key(node: ast.AST, ctx: FileContext) -> Optional[str]:
    """``class DropPath`` / ``def multiclass_nms`` when the definition re-implements a torch_npu API."""
    if isinstance(node, ast.ClassDef):
        key = f"class {node.name}"
        bases = [unparse(base).rsplit(".", 1)[-1] for base in node.bases]
        methods = {item.name for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
        return key if any(base in _BASES for base in bases) and "forward" in methods else None
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        key = f"def {node.name}"
        row = keyed("affinity.tsv", "api").get(key)
        if row is None:
            return None
        params = [arg.arg for arg in node.args.posonlyargs + node.args.args]
        if row["condition"] == "coder_with_stride":
            owner = ctx.parent(node)
            return key if isinstance(owner, ast.ClassDef) and "Coder" in owner.name and "stride" in params else None
        return key if len([p for p in params if p not in ("self", "cls")]) >= 2 else None
    return None


class ReimplementedApi(Rule):
    """A user-defined class or function that re-implements a torch_npu API, and its call sites.

    What it does:
        Flags definitions that the vendor's affinity list names (timm ``DropPath``, yolov5 ``Focus``, ``Mish``,
        fairseq ``MultiheadAttention`` / ``FairseqDropout``, ``ROIAlign``, ``PSROIPool``,
        ``ModulatedDeformConv2dFunction``, ``LabelSmoothingCrossEntropy`` (timm), mmdet ``multiclass_nms`` / ``fast_nms``, ``channel_shuffle``, YOLO box
        coders' ``encode`` / ``decode``, ``single_level_responsible_flags``), matched by name and structure
        (an ``nn.Module`` / ``autograd.Function`` with ``forward``; a function with the expected arguments), not
        by an exact parameter list; and the calls of those classes and functions, in the file or imported.
    Why it matters on NPU:
        Each has a fused torch_npu implementation; the Python version runs as many small operators.
    Example:
        class DropPath(nn.Module):
            def forward(self, x): ...
    Use instead:
        from torch_npu.contrib.module import NpuDropPath
    Fix safety:
        No fix: signatures differ.
    """

    code = "NPU302"
    page_extra = classmethod(lambda cls: affinity_page(cls))
    name = "reimplemented-api"
    family = FAMILY
    node_types = (ast.ClassDef, ast.FunctionDef, ast.Call)
    triggers = ("DropPath", "Focus", "Mish", "MultiheadAttention", "FairseqDropout", "ROIAlign", "PSROIPool",
                "ModulatedDeformConv2dFunction", "multiclass_nms", "fast_nms", "channel_shuffle", "encode", "decode",
                "single_level_responsible_flags", "LabelSmoothingCrossEntropy")
    message = "{name} re-implements a fused NPU API: use {affinity}{since}{note}"
    must_fire = ("import torch.nn as nn\nclass DropPath(nn.Module):\n    def forward(self, x):\n        return x\n",
                 "from timm.layers import DropPath\nblock = DropPath(0.1)\n",
                 "def multiclass_nms(multi_bboxes, multi_scores, score_thr, nms_cfg):\n    pass\n"
                 "dets = multiclass_nms(b, s, 0.05, cfg)\n",
                 "class YOLOBBoxCoder:\n    def encode(self, bboxes, gt_bboxes, stride):\n        pass\n",
                 "import torch.nn as nn\nclass Mish(nn.Module):\n    def forward(self, x):\n        return x\n")  # -> nn.Mish
    must_not_fire = ("class DropPath:\n    pass\n", "class Coder:\n    def encode(self, text):\n        pass\n",
                     "from torch.nn import MultiheadAttention\nattn = MultiheadAttention(64, 8)\n")

    def check(self, node: ast.AST, ctx: FileContext) -> None:
        defined = ctx.scratch.setdefault("reimplemented", set())
        if isinstance(node, ast.Call):
            key = self._call_key(node, ctx, defined)
            where = node
        else:
            key = _definition_key(node, ctx)
            where = node
            if key is not None:
                defined.add(key.split(" ", 1)[1])
        if key is None:
            return
        row = affinity_row(key, ctx)
        if row is not None:
            name = key if not isinstance(node, ast.Call) else f"{key.split(' ', 1)[1]}(...)"
            since = f" (torch-npu {row['since']}+)" if row["since"] else ""
            ctx.report(where, self.message.format(name=name, affinity=row["affinity_api"], since=since,
                                                  note=with_note(row)), key)

    def _call_key(self, node: ast.Call, ctx: FileContext, defined: set) -> Optional[str]:
        if isinstance(node.func, ast.Name) and node.func.id in defined:
            name = node.func.id
        else:
            qualified = ctx.resolver.qualname(node.func)
            if not qualified or qualified.split(".", 1)[0] in ("torch", "torch_npu"):
                return None
            name = qualified.rsplit(".", 1)[-1]
        for kind in ("class", "def"):
            row = keyed("affinity.tsv", "api").get(f"{kind} {name}")
            if row is not None and row["condition"] != "coder_with_stride":
                return f"{kind} {name}"
        return None
