"""NPU217 at the launch of another module's GPU kernel: ``from .triton_ops import dtw_kernel`` inside the launching
function (whisper's ``timing.dtw_cuda``), the launching file importing no kernel language itself. The project index
knows the kernel's module imports triton; a subscripted call of a plain project function is no launch."""
from __future__ import annotations

from pathlib import Path

from conftest import package_findings, run, tool

KERNELS = '''import triton
import triton.language as tl


@triton.jit
def dtw_kernel(cost, trace, x, N, BLOCK: tl.constexpr):
    pass
'''
HELPERS = '''import torch


def pick(items):
    return items
'''
TIMING = '''import torch


def dtw_cuda(x, BLOCK_SIZE=1024):
    from .triton_ops import dtw_kernel

    cost = torch.ones(x.shape[0] + 2, x.shape[1] + 2)
    dtw_kernel[(1,)](cost, cost, x, x.shape[1], BLOCK=BLOCK_SIZE)
    return cost


def table(x):
    from .helpers import pick

    return pick[0](x)
'''


def test_a_kernel_of_another_module_is_reported_at_its_launch(tmp_path: Path) -> None:
    found = package_findings(tmp_path, {"triton_ops": KERNELS, "helpers": HELPERS, "timing": TIMING})
    assert {(line, code) for name, line, code in found if name == "timing.py"} == {(8, "NPU217")}


def test_one_file_checked_alone_sees_the_python_module_beside_it(tmp_path: Path) -> None:
    """``npu-lint check pkg/timing.py`` builds no index: a relative import of a name from a Python file beside it
    (a function named like an extension) is no extension; a compiled ``.so`` in a package, or a module with no
    Python source, still is (NPU221)."""
    pkg = tmp_path / "pkg"
    (pkg / "ops").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "ops" / "__init__.py").write_text("")
    (pkg / "ops" / "deform_conv_cuda.so").write_text("")
    (pkg / "triton_ops.py").write_text("def median_filter_cuda(x):\n    return x\n")
    (pkg / "timing.py").write_text("import torch\nfrom .triton_ops import median_filter_cuda\n"
                                   "from .ops import deform_conv_cuda\nfrom . import nms_cuda\n")
    result = run([tool("npu-lint"), "check", "pkg/timing.py", "--select", "NPU221", "--exit-zero", "-q"], cwd=tmp_path)
    assert [line.split(" ")[0] for line in result.stdout.splitlines()] == ["pkg/timing.py:3:1:", "pkg/timing.py:4:1:"]
