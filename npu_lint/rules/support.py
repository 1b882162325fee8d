"""NPU1xx: is this torch API supported on NPU for the target torch-npu release?

Verdicts come from rule_tables/support/<release>.tsv (see rule_tables/README.md for how each is
derived). Functions and classes are matched through the resolver (``torch.matmul``,
``nn.Conv2d``); methods when the receiver is an evident tensor (``x.masked_select(m)``).
"""
from __future__ import annotations

import ast
from functools import lru_cache
from typing import ClassVar, Optional

from npu_lint.context import FileContext
from npu_lint.cuda_facts import api_row
from npu_lint.rules import ApiRef, Rule
from npu_lint.support_facts import CAST_METHODS, method_api, support_table, visible_dtypes

FAMILY = "support"
_BASIS = {"official": "vendor support list", "vendor_list": "vendor analyser list",
          "official_nearest": "nearest documented release", "python_fact": "torch_npu marks it unsupported",
          "special_only": "sparse or quantized only", "no_kernel_1.11": "no NPU kernel and no CPU fallback",
          "derived": "derived from the wheel's kernels", "derived_cpu_fallback": "no NPU kernel in the wheel"}


def basis_text(basis: str) -> str:
    head, _, detail = basis.partition(":")
    text = _BASIS.get(head, head)
    return f"{text} {detail}" if detail else text


def api_reference(node: object, ctx: FileContext) -> Optional[tuple[str, ast.AST, Optional[ast.Call]]]:
    """(api, node to report at, the call if it is one) for a torch API reference the NPU1xx rules judge:
    a resolved ``torch.*`` name (not one NPU2xx reports) or a method called on an evident tensor. Found once per
    node and file, whichever of the support rules (and the report's inventory) asks first."""
    memo = ctx.scratch.get("api_reference")
    if memo is None:
        memo = ctx.scratch["api_reference"] = {}
    key = (id(node.node), node.qualname) if isinstance(node, ApiRef) else id(node)
    if key not in memo:
        memo[key] = _api_reference(node, ctx)
    return memo[key]


def _api_reference(node: object, ctx: FileContext) -> Optional[tuple[str, ast.AST, Optional[ast.Call]]]:
    if isinstance(node, ApiRef):
        api, where = node.qualname, node.node
        if not api.startswith("torch.") or _reported_as_cuda(api):
            return None
        return api, where, ctx.call_of(where)
    api = method_api(node, ctx)
    return (api, node, node) if api is not None else None


def _reported_as_cuda(api: str) -> bool:
    """NPU2xx already reports these names (cpp_extension.load only when it builds CUDA code)."""
    row = api_row(api)
    return row is not None and row["group"] != "cpp_extension"


@lru_cache(maxsize=None)
def _judged_methods(rule: type["_SupportRule"], release: str) -> frozenset[str]:
    return frozenset(api.rpartition(".")[2] for api, row in support_table(release).items()
                     if row["verdict"] in rule.verdicts and rule.judged(row))


class _SupportRule(Rule):
    family = FAMILY
    node_types = (ApiRef, ast.Call)
    triggers = ("torch",)
    verdicts: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def wants_api(cls, qualname: str) -> bool:
        return qualname.startswith("torch.") and not _reported_as_cuda(qualname)   # as _api_reference

    @classmethod
    def wants_call(cls, name: Optional[str], method: Optional[str]) -> bool:
        return method is not None and name == "torch.Tensor." + method   # method_api: an unresolved method

    def check(self, node: object, ctx: FileContext) -> None:
        if type(node) is ApiRef:   # its reference's API is its own name: no row of these verdicts, nothing to judge
            row = support_table(ctx.target.release).get(node.qualname)   # type: ignore[attr-defined]
            if row is None or row["verdict"] not in self.verdicts:
                return
        elif type(node) is ast.Call and getattr(node.func, "attr", None) not in self.judged_methods(
                ctx.target.release):
            return   # a method no API of this rule's verdicts has: no row to judge, the receiver is not asked
        reference = api_reference(node, ctx)
        if reference is None:
            return
        api, where, call = reference
        row = support_table(ctx.target.release).get(api)
        if row is not None and row["verdict"] in self.verdicts:
            self.judge(api, row, where, call, ctx)

    def judge(self, api: str, row: dict[str, str], where: ast.AST, call: Optional[ast.Call], ctx: FileContext) -> None:
        ctx.report(where, self.message.format(api=api, release=ctx.target.release, basis=basis_text(row["basis"])), api)

    @classmethod
    def judged(cls, row: dict[str, str]) -> bool:
        """Whether ``judge`` may report a row of these verdicts (all of them by default)."""
        return True

    @classmethod
    def judged_methods(cls, release: str) -> frozenset[str]:
        """The method names of the APIs this rule may report for ``release``: a method call's API is
        ``<class>.<method>`` (:func:`npu_lint.support_facts.method_api`), judged only with a row of the table."""
        return _judged_methods(cls, release)


class UnsupportedApi(_SupportRule):
    """A torch API that is not supported on NPU for the target release.

    What it does:
        Flags calls and references to torch functions, classes and tensor methods whose verdict for the
        target torch-npu release is "unsupported".
    Why it matters on NPU:
        These raise on an Ascend device (or, for sparse and quantized kernels, have no NPU
        implementation at all); the run stops where the API is first used.
    Example:
        q = torch.quantize_per_tensor(x, 0.1, 0, torch.quint8)
    Use instead:
        Rewrite with supported ops, move that step to the CPU explicitly, or pick a release that supports it
        (`npu-lint tables diff A B` lists what changes between releases).
    Fix safety:
        No fix.
    """

    code = "NPU101"
    name = "unsupported-api"
    verdicts = ("unsupported",)
    message = "{api} is not supported on NPU in torch-npu {release} ({basis})"
    must_fire = ("import torch\nq = torch.quantize_per_tensor(x, 0.1, 0, torch.quint8)\n",
                 "import torch\nx = torch.randn(8)\nvalues, index = x.mode()\n")
    must_not_fire = ("import torch\ny = torch.matmul(a, b)\n", "import torch\np = torch.nn.Parameter(w)\n",
                     "import torch\nvalues, index = stats.mode()\n")


class UnknownSupport(_SupportRule):
    """A torch API whose NPU support is not stated anywhere for the target release.

    What it does:
        Flags APIs that exist in the torch version of the target release but have no verdict in the
        vendor's lists, torch_npu's own facts or the wheel's kernels. Off by default under flake8; the
        migration report always lists them.
    Why it matters on NPU:
        Nobody has said it works: test these paths on an NPU before relying on them.
    Example:
        y = torch.some_rare_op(x)
    Use instead:
        Test it on NPU, or replace it with an API listed as supported.
    Fix safety:
        No fix.
    """

    code = "NPU102"
    name = "unknown-support"
    default_enabled = False
    verdicts = ("unknown",)
    message = "{api}: NPU support is not stated for torch-npu {release}: test it on NPU"
    must_fire = ("import torch\nx = torch.ones(3, 3)\nd = x.det()\n",)
    must_not_fire = ("import torch\ny = torch.matmul(a, b)\n",)


class CpuFallback(_SupportRule):
    """A torch API with no NPU kernel in the target release: it runs on the CPU.

    What it does:
        Flags APIs whose aten operators have no NPU kernel in the target torch-npu wheel.
    Why it matters on NPU:
        torch_npu runs such operators on the CPU with a warning: every call copies tensors to the host
        and back, which is slow (and an error when TORCH_NPU_FALLBACK_CPU_DISABLE=1).
    Example:
        y = torch.special.zeta(x, q)
    Use instead:
        An equivalent built from supported ops, or keep the step out of the hot loop.
    Fix safety:
        No fix.
    """

    code = "NPU104"
    name = "cpu-fallback"
    verdicts = ("cpu_fallback",)
    message = "{api} has no NPU kernel in torch-npu {release}: it runs on the CPU ({basis})"
    must_fire = ("import torch\ny = torch.digamma(x)\n",)
    must_not_fire = ("import torch\ny = torch.matmul(a, b)\n",)


class DtypePrecision(_SupportRule):
    """An API used with a dtype outside what the NPU supports for it.

    What it does:
        Flags supported APIs whose listed NPU dtypes do not include the dtype the code visibly uses:
        a ``dtype=`` argument, or a cast right before the call (``x.double().matmul(y)``,
        ``x.to(torch.float64).sum()``).
    Why it matters on NPU:
        Unlisted dtypes are cast down (float64 often runs as float32), rejected, or computed with lower
        precision on Ascend hardware, so results drift from the GPU run.
    Example:
        y = torch.matmul(a.double(), b)
    Use instead:
        y = torch.matmul(a.float(), b)
    Fix safety:
        No fix: changing the dtype changes the numerics.
    """

    code = "NPU105"
    name = "dtype-precision"
    verdicts = ("supported",)
    message = "{api} on NPU supports {dtypes}; {dtype} here may be cast down or rejected"
    must_fire = ("import torch\ny = torch.matmul(a.double(), b)\n",
                 "import torch\nx = torch.randn(3, 3)\ny = x.to(torch.float64).matmul(w)\n",
                 "import torch\ny = torch.nonzero(torch.randn(3), dtype=torch.float64)\n")
    must_not_fire = ("import torch\ny = torch.matmul(a.float(), b)\n", "import torch\ny = torch.matmul(a.half(), b)\n",
                     "import torch\ny = torch.matmul(a, b)\n")

    @classmethod
    def judged(cls, row: dict[str, str]) -> bool:
        return len(set(filter(None, row["dtypes"].split("|")))) >= 2 or bool(row["dtype_caveats"].strip("|"))

    def check(self, node: object, ctx: FileContext) -> None:
        if type(node) is ast.Call and not _may_show_dtype(node):
            return   # no ``dtype=`` and no cast on the receiver or an argument: ``visible_dtypes`` finds none
        if type(node) is ApiRef:   # ``judge`` needs the reference's call to show a dtype: asked before the row
            call = ctx.call_of(node.node)   # type: ignore[attr-defined]   # (and before api_reference's memo entry)
            if call is None or not _may_show_dtype(call):
                return
        super().check(node, ctx)

    def judge(self, api: str, row: dict[str, str], where: ast.AST, call: Optional[ast.Call], ctx: FileContext) -> None:
        if call is None or not _may_show_dtype(call):   # the reference's call (an ApiRef event; calls are gated in
            return                                       # ``check``)
        allowed, caveats = _dtype_sets(row["dtypes"], row["dtype_caveats"])
        if not (len(allowed) >= 2 or caveats):   # a one-dtype list is too thin to judge by
            return
        for node, token in visible_dtypes(call, ctx):
            if (allowed and token not in allowed) or token in caveats:
                ctx.report(where, self.message.format(api=api, dtypes=", ".join(sorted(allowed)) or "other dtypes",
                                                      dtype=token), api)
                return


@lru_cache(maxsize=None)
def _dtype_sets(dtypes: str, caveats: str) -> tuple[frozenset[str], frozenset[str]]:
    """A row's dtypes and dtype caveats as sets (split once per distinct text, not once per reference)."""
    return frozenset(filter(None, dtypes.split("|"))), frozenset(filter(None, caveats.split("|")))


def _may_show_dtype(call: ast.Call) -> bool:
    """What :func:`npu_lint.support_facts.visible_dtypes` needs to find a dtype in a call, by its form alone: a
    ``dtype=`` keyword, or a cast (``.float()``, ``.to(...)``, ``.type(...)``) as an argument or the receiver."""
    for kw in call.keywords:
        if kw.arg == "dtype":
            return True
    for operand in call.args:
        if type(operand) is ast.Call and _casts(operand):
            return True
    func = call.func
    return isinstance(func, ast.Attribute) and type(func.value) is ast.Call and _casts(func.value)


def _casts(call: ast.Call) -> bool:
    func = call.func
    return type(func) is ast.Attribute and ((func.attr in CAST_METHODS and not call.args and not call.keywords)
                                            or (func.attr in ("to", "type") and bool(call.args)))


class ThirdPartyApi(Rule):
    """A third-party API marked unsupported through ``api-files`` / ``-api``.

    What it does:
        Flags calls and references whose qualified name (``mmcv.ops.nms``, ``mmdet.models.utils.foo``) is named in
        the ``3rd-party API`` column of the CSV files given with ``analyse -api`` or ``[tool.npu-lint] api-files``
        (the ``full_unsupported_results.csv`` that ``npu-lint analyse -m third_party`` or the vendor's analyser
        writes), or in the cached results of the ``third-party`` packages. The message gives the chain from the
        library API to the unsupported torch API or custom CUDA operator it reaches.
    Why it matters on NPU:
        The library function reaches an unsupported torch API or a custom CUDA operator inside the library, so
        the call fails on NPU although nothing in your own code looks wrong.
    Example:
        from mmcv.ops import nms
        keep = nms(boxes, scores, 0.5)
    Use instead:
        An NPU build of the library, or the torch_npu operator the library call stands for.
    Fix safety:
        No fix.
    """

    code = "NPU103"
    name = "third-party-unsupported"
    family = FAMILY
    node_types = (ApiRef,)
    triggers = ("import",)   # a third-party API reaches a file through an import
    message = "{api} is a third-party API marked unsupported on NPU (api-files)"
    example_third_party = ("mmcv.ops.nms", "mmdet.models.layers.DropBlock")
    must_fire = ("from mmcv.ops import nms\nkeep = nms(boxes, scores, 0.5)\n",
                 "import mmdet.models.layers as layers\nblock = layers.DropBlock(0.1, 3)\n")
    must_not_fire = ("from mmcv.ops import roi_align\nout = roi_align(x, rois)\n", "nms = None\nkeep = nms\n")

    def check(self, ref: ApiRef, ctx: FileContext) -> None:
        if ctx.third_party and ref.qualname in ctx.third_party:
            reason = ctx.third_party.reason(ref.qualname) if hasattr(ctx.third_party, "reason") else ""
            message = self.message.format(api=ref.qualname)
            ctx.report(ref.node, f"{message}: {reason}" if reason else message, ref.qualname)
