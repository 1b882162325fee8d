"""CUDA code beside its NPU branch is not reported (npu_lint/analysis/dispatch.py)."""
from __future__ import annotations

import pytest

from npu_lint.core import analyse_source
from npu_lint.versions import Target


def cuda(source: str) -> list[tuple[str, int]]:
    found = analyse_source(source, Target("2.8.0"), codes=None)
    return [(f.code, f.line) for f in found if f.code.startswith("NPU2")]


@pytest.mark.parametrize("source", [
    "import torch\ndef set_device(device):\n    if device.startswith('cuda:'):\n        torch.cuda.set_device(device)\n"
    "    elif device.startswith('npu:'):\n        torch.npu.set_device(device)\n",
    "import torch\ndef avail(t):\n    if t == 'cuda':\n        return torch.cuda.is_available()\n    elif t == 'mps':\n"
    "        return torch.backends.mps.is_available()\n    elif t == 'npu':\n        return torch.npu.is_available()\n",
    "import torch\nif torch.cuda.is_available():\n    dev = torch.device('cuda')\nelif is_npu_available():\n"
    "    dev = torch.device('npu')\n",
    "import torch\nimport torch.distributed as dist\nbackends = {'cuda': 'nccl', 'npu': 'hccl'}\n",
    "import torch\nbackend = 'hccl' if on_ascend else 'nccl'\n",
    "import torch\ntry:\n    import torch_npu\n    HAS_NPU = True\nexcept ImportError:\n    HAS_NPU = False\n"
    "def sync():\n    if HAS_NPU:\n        torch_npu.npu.synchronize()\n    else:\n        torch.cuda.synchronize()\n",
])
def test_cuda_beside_an_npu_branch_is_silent(source):
    assert cuda(source) == []


@pytest.mark.parametrize("source, expected", [
    # no NPU arm: reported
    ("import torch\ndef set_device(device):\n    if device.startswith('cuda:'):\n        torch.cuda.set_device(device)\n"
     "    elif device == 'cpu':\n        pass\n", [("NPU206", 3), ("NPU201", 4)]),
    # "input" is not "npu"; a string in another statement is no branch
    ("import torch\nmode = 'input'\nif torch.cuda.is_available():\n    x = 1\nelse:\n    print('input')\n",
     [("NPU201", 3)]),
    # an NPU branch elsewhere in the file does not excuse an unrelated chain
    ("import torch\nif is_npu:\n    import torch_npu\nif flag:\n    torch.cuda.synchronize()\n", [("NPU201", 5)]),
    # a dict without an NPU entry
    ("import torch\nbackends = {'cuda': 'nccl', 'cpu': 'gloo'}\n", [("NPU205", 2), ("NPU207", 2)]),
])
def test_cuda_without_an_npu_branch_fires(source, expected):
    assert cuda(source) == expected
