"""NPU225: an operator's kernel registered for the CUDA dispatch key (``torch.library``)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.context import FileContext
from npu_lint.rules import Rule, short_source

FAMILY = "cuda"
# ``torch.library`` entry points that take a dispatch key or device type, and where it stands: (position, keyword).
_REGISTRARS = {"torch.library.impl": (1, "types"), "torch.library.register_kernel": (1, "device_types")}
# ``Library.impl(name, fn, dispatch_key)`` / ``op.register_kernel(device_types)``: the key's position and keyword.
_METHODS = {"impl": (2, "dispatch_key"), "register_kernel": (0, "device_types")}
_CUDA_KEYS = frozenset({"cuda", "autogradcuda", "sparsecuda", "quantizedcuda", "nestedtensorcuda"})


def _cuda_key(node: Optional[ast.AST]) -> Optional[str]:
    """The CUDA dispatch key a literal names (``"CUDA"``, ``["CUDA"]``, ``("cpu", "cuda")``), else None."""
    values = node.elts if isinstance(node, (ast.List, ast.Tuple, ast.Set)) else [node] if node is not None else []
    for value in values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value.lower() in _CUDA_KEYS:
            return value.value
    return None


def _argument(call: ast.Call, position: int, keyword: str) -> Optional[ast.AST]:
    found = next((k.value for k in call.keywords if k.arg == keyword), None)
    if found is None and len(call.args) > position and not any(isinstance(a, ast.Starred) for a in call.args):
        found = call.args[position]
    return found


class CudaKernelRegistration(Rule):
    """An operator's kernel registered for the CUDA dispatch key.

    What it does:
        Flags ``torch.library.impl(op, "CUDA")`` (also ``["CUDA"]``, ``types=``, as a decorator),
        ``torch.library.register_kernel(op, "cuda")``, ``lib.impl(name, fn, "CUDA")`` on a
        ``torch.library.Library`` made in the file and ``op.register_kernel("cuda")`` of a ``custom_op``:
        the implementation the operator runs on CUDA tensors (optimum-quanto's CUDA kernels, AWQ/Marlin GEMMs).
    Why it matters on NPU:
        NPU tensors dispatch to the ``PrivateUse1`` key. An operator whose only device kernel is registered for
        ``CUDA`` fails on them ("could not run ... with arguments from the PrivateUse1 backend"), and the
        kernel it registers (usually a CUDA extension's) has no NPU build.
    Example:
        @torch.library.impl("quanto::unpack", ["CUDA"])
        def unpack_cuda(t, bits):
            return ext.lib.unpack(t, bits)
    Use instead:
        Register an NPU implementation for ``"PrivateUse1"`` (torch_npu ops or an Ascend C kernel), or a
        ``CompositeExplicitAutograd`` implementation in torch ops that runs on every device.
    Fix safety:
        No fix.
    """

    code = "NPU225"
    name = "cuda-kernel-registration"
    family = FAMILY
    node_types = (ast.Call,)
    callees = frozenset(_REGISTRARS)
    methods = frozenset(_METHODS)
    triggers = ("library", "register_kernel")
    message = "{call} registers a kernel for the {key} dispatch key: NPU tensors dispatch to PrivateUse1, where the operator has no kernel; register an NPU implementation (torch_npu ops or Ascend C) or a composite of torch ops"
    must_fire = ("import torch\n@torch.library.impl('quanto::unpack', ['CUDA'])\ndef unpack_cuda(t, bits):\n"
                 "    return ext.lib.unpack(t, bits)\n",
                 "from torch.library import impl\n@impl('mylib::gemm', types='CUDA')\ndef gemm(a, b):\n    return a @ b\n",
                 "import torch\nlib = torch.library.Library('mylib', 'IMPL')\nlib.impl('gemm', gemm_cuda, 'CUDA')\n",
                 "import torch\n@torch.library.register_kernel('mylib::gemm', 'cuda')\ndef gemm(a, b):\n    return a @ b\n",
                 "import torch\n@torch.library.custom_op('mylib::f', mutates_args=())\ndef f(x: torch.Tensor) -> torch.Tensor:\n"
                 "    return x.clone()\n@f.register_kernel('cuda')\ndef _(x):\n    return x.clone()\n")
    must_not_fire = ("import torch\n@torch.library.impl('quanto::unpack', 'CPU')\ndef unpack_cpu(t, bits):\n    return t\n",
                     "import torch\nlib = torch.library.Library('mylib', 'IMPL')\n"
                     "lib.impl('gemm', gemm_npu, 'PrivateUse1')\n",
                     "import torch\n@torch.library.impl('mylib::gemm', 'CompositeExplicitAutograd')\ndef gemm(a, b):\n"
                     "    return a @ b\n",
                     # a method named impl on something else: a key that names no device
                     "def setup(registry, fn):\n    registry.impl('gemm', fn, 'fast')\n")

    def check(self, node: object, ctx: FileContext) -> None:
        assert isinstance(node, ast.Call)
        name = ctx.resolver.qualname(node.func)
        where = _REGISTRARS.get(name or "")
        if where is None and isinstance(node.func, ast.Attribute) and node.func.attr in _METHODS:
            where = _METHODS[node.func.attr]
        if where is None:
            return
        key = _cuda_key(_argument(node, *where))
        if key is None:
            return
        ctx.report(node, self.message.format(call=short_source(node.func, 40), key=key), name or "torch.library")
