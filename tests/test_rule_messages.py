"""Messages that read as sentences whatever the table row says."""
from __future__ import annotations

import pytest

from npu_lint.core import analyse_source


@pytest.mark.parametrize(("name", "expected"), [
    ("CUDA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES is ignored on NPU: use ASCEND_RT_VISIBLE_DEVICES"),
    ("CUDA_DEVICE_MAX_CONNECTIONS", "CUDA_DEVICE_MAX_CONNECTIONS is ignored by the NPU runtime"),
    ("CUDA_HOME", "CUDA_HOME is the CUDA toolkit path: NPU builds use the CANN toolkit (ASCEND_HOME_PATH / set_env.sh)"),
])
def test_env_var_messages_read_as_sentences(name: str, expected: str) -> None:
    findings = analyse_source(f"import os\nvalue = os.environ.get({name!r})\n", codes=frozenset({"NPU219"}))
    assert [f.message for f in findings] == [expected]


@pytest.mark.parametrize(("source", "expected"), [
    # the table's cell is a note, not an API: the message says there is no counterpart, not "use (no ... found)"
    ("import torch\nx = torch.cuda.OutOfMemoryError\n",
     "torch.cuda.OutOfMemoryError has no NPU equivalent: remove it or guard it for CUDA only"),
    # a note that says what to use instead keeps its advice
    ("import torch\ntorch.cuda.comm.broadcast(t, [0, 1])\n",
     "torch.cuda.comm.broadcast has no NPU equivalent: use torch.distributed collectives over HCCL"),
    # a real counterpart is named
    ("import torch\nalloc = torch.cuda.CUDAPluggableAllocator('a.so', 'alloc', 'free')\n",
     "torch.cuda.CUDAPluggableAllocator is not redirected by transfer_to_npu: use torch_npu.npu.NPUPluggableAllocator"),
])
def test_cuda_api_messages_read_as_sentences(source: str, expected: str) -> None:
    findings = analyse_source(source, codes=frozenset({"NPU202"}))
    assert [f.message for f in findings] == [expected]
