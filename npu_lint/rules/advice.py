"""NPU106/NPU107: precision and performance advice for code that runs on NPU.

The targets are the vendor analyser's (rule_tables/advice.tsv, from its advice list); the tips are
npu-lint's own words. Optimizer and fused-operator replacements belong to NPU3xx.
"""
from __future__ import annotations

import ast
from functools import lru_cache
from typing import Optional

from npu_lint.context import FileContext
from npu_lint.rules import ApiRef, Rule
from npu_lint.support_facts import dtype_token, method_api
from npu_lint.tables import keyed

FAMILY = "advice"


def tip(api: str, code: str) -> Optional[str]:
    row = keyed("advice.tsv", "api").get(api)
    return row["tip"] if row is not None and row["code"] == code else None


@lru_cache(maxsize=None)
def _tip_methods(code: str) -> frozenset[str]:
    """The last names of the APIs with a tip of ``code``."""
    return frozenset(api.rpartition(".")[2] for api, row in keyed("advice.tsv", "api").items() if row["code"] == code)


def _keyword(call: ast.Call, name: str) -> Optional[ast.keyword]:
    return next((kw for kw in call.keywords if kw.arg == name), None)


def _has_star_kwargs(call: ast.Call) -> bool:
    return any(kw.arg is None for kw in call.keywords)


class PrecisionAdvice(Rule):
    """An API whose NPU results can differ from the GPU's (precision advice).

    What it does:
        Flags the APIs the vendor gives precision advice for: ``torch.matmul``, ``torch.baddbmm``,
        ``torch.reshape``, ``nn.Embedding`` / ``F.embedding``. Off by default under flake8 (it is advice,
        not a defect); the migration report always lists it.
    Why it matters on NPU:
        Ascend kernels accumulate fp16/bf16 matmuls at reduced precision by default, fuse some
        operations in ways that can overflow in fp16, and reduce embedding gradients with atomic adds,
        so results differ slightly from a GPU run.
    Example:
        scores = torch.matmul(q, k.transpose(-2, -1))
    Use instead:
        torch.npu.matmul.allow_hf32 = False   # when results must match the GPU bit for bit
    Fix safety:
        No fix.
    """

    code = "NPU106"
    name = "precision-advice"
    family = FAMILY
    default_enabled = False
    node_types = (ApiRef, ast.Call)
    triggers = ("matmul", "baddbmm", "reshape", "mbedding")
    message = "{api}: {tip}"
    must_fire = ("import torch\ny = torch.baddbmm(c, a, b)\n", "import torch.nn as nn\nemb = nn.Embedding(10, 4)\n",
                 "import torch\nq = torch.randn(2, 2)\ns = q.matmul(k)\n")
    must_not_fire = ("import torch\ny = torch.bmm(a, b)\n", "import numpy as np\ny = np.matmul(a, b)\n")

    @classmethod
    def wants_api(cls, qualname: str) -> bool:
        return tip(qualname, cls.code) is not None

    @classmethod
    def wants_call(cls, name: Optional[str], method: Optional[str]) -> bool:
        # method_api on an unresolved method, whose API (``<class>.<method>``) can have a tip only by that name
        return method is not None and name == "torch.Tensor." + method and method in _tip_methods(cls.code)

    def check(self, node: object, ctx: FileContext) -> None:
        if isinstance(node, ApiRef):
            api, where = node.qualname, node.node
        else:
            api, where = method_api(node, ctx), node
        text = tip(api, self.code) if api else None
        if text:
            ctx.report(where, self.message.format(api=api, tip=text), api)


class PerformanceAdvice(Rule):
    """A setting or call that is slow on NPU (performance advice).

    What it does:
        Flags anomaly detection and gradcheck, a ``DataLoader`` without ``pin_memory=True``, a
        ``DistributedDataParallel`` without ``bucket_cap_mb``, and a batch taken from a data loader moved
        with ``.to(device)`` without ``non_blocking=True``.
    Why it matters on NPU:
        Host-side synchronisation and small transfers dominate step time on NPU: anomaly detection
        syncs after every operator, unpinned batches copy synchronously, and small DDP buckets mean many
        HCCL calls.
    Example:
        loader = DataLoader(dataset, batch_size=64, shuffle=True)
    Use instead:
        loader = DataLoader(dataset, batch_size=64, shuffle=True, pin_memory=True)
    Fix safety:
        No automatic fix yet (adding pin_memory=True is safe).
    """

    code = "NPU107"
    name = "performance-advice"
    family = FAMILY
    node_types = (ApiRef, ast.Call)
    triggers = ("anomaly", "gradcheck", "DataLoader", "DistributedDataParallel", ".to(")
    message = "{api}: {tip}"
    must_fire = ("import torch\ntorch.autograd.set_detect_anomaly(True)\n",
                 "from torch.utils.data import DataLoader\nloader = DataLoader(ds, batch_size=8)\n",
                 "from torch.nn.parallel import DistributedDataParallel as DDP\nm = DDP(m, device_ids=[0])\n",
                 "import torch\nfrom torch.utils.data import DataLoader\ndef train(train_loader: DataLoader, device):\n    for x, y in train_loader:\n        x = x.to(device)\n")
    must_not_fire = ("from torch.utils.data import DataLoader\nloader = DataLoader(ds, pin_memory=True)\n",
                     "from torch.utils.data import DataLoader\nloader = DataLoader(ds, **cfg)\n",
                     "import torch\nfor x, y in train_loader:\n    x = x.to(device, non_blocking=True)\n",
                     "import torch\nfor x, y in train_loader:\n    x = x.to(torch.float16)\n",
                     "import torch\nx = torch.randn(2).to(device)\n",
                     "import torch\nfor p in model.parameters():\n    p.data = p.data.to(device)\n")

    @classmethod
    def wants_api(cls, qualname: str) -> bool:
        return tip(qualname, cls.code) is not None

    methods = frozenset({"to"})   # dispatch: the calls judged (``x.to(device)``)

    def check(self, node: object, ctx: FileContext) -> None:
        if isinstance(node, ApiRef):
            self._api(node, ctx)
        elif isinstance(node.func, ast.Attribute) and node.func.attr == "to":
            self._transfer(node, ctx)

    def _api(self, ref: ApiRef, ctx: FileContext) -> None:
        text = tip(ref.qualname, self.code)
        if text is None:
            return
        call = ctx.call_of(ref.node)
        if ref.qualname == "torch.utils.data.DataLoader":
            pinned = call is not None and _keyword(call, "pin_memory")
            if call is None or pinned or _has_star_kwargs(call):
                return
        elif ref.qualname == "torch.nn.parallel.DistributedDataParallel":
            if call is None or _keyword(call, "bucket_cap_mb") or _has_star_kwargs(call):
                return
        ctx.report(ref.node, self.message.format(api=ref.qualname, tip=text), ref.qualname)

    def _transfer(self, call: ast.Call, ctx: FileContext) -> None:
        if (not call.args or _keyword(call, "non_blocking") or len(call.args) > 1
                or dtype_token(call.args[0], ctx) or not ctx.resolver.is_batch(call.func.value)):
            return
        ctx.report(call, self.message.format(api="Tensor.to", tip=tip("to", self.code)), "torch.Tensor.to")
