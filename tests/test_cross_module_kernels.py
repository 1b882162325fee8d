"""NPU217 at the launch of another module's GPU kernel: ``from .triton_ops import dtw_kernel`` inside the launching
function (whisper's ``timing.dtw_cuda``), the launching file importing no kernel language itself. The project index
knows the kernel's module imports triton; a subscripted call of a plain project function is no launch."""
from __future__ import annotations

from pathlib import Path

from npu_lint.report.collect import collect
from npu_lint.versions import Target

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
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "triton_ops.py").write_text(KERNELS)
    (tmp_path / "pkg" / "helpers.py").write_text(HELPERS)
    (tmp_path / "pkg" / "timing.py").write_text(TIMING)
    result = collect(tmp_path, Target("2.8.0"), lambda *args: None)
    found = {(f.code, f.line) for path, f in result.findings if path.endswith("timing.py")}
    assert found == {("NPU217", 8)}
