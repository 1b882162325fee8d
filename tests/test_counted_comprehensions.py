"""NPU403 on two carriers of a value read back from a tensor (session 33): a comprehension counted by it whose element
evidently runs tensor work (a tensor of the model's, a torch call; numpy work and unknown names are left alone), and
an autograd Function's ``ctx`` attribute set in ``forward`` and read in ``backward``."""
from __future__ import annotations

from npu_lint.core import analyse_source


def _lines(source: str) -> list[int]:
    return sorted(f.line for f in analyse_source(source, codes=frozenset({"NPU403"})))


def test_a_comprehension_counted_by_a_read_is_a_loop_count() -> None:
    source = ("import torch\ndef split(kp: torch.Tensor, idx: torch.Tensor):\n    n = int(idx.max().item()) + 1\n"
              "    masks = [idx == i for i in range(n)]\n    return torch.cat([kp[m] for m in masks])\n")
    assert _lines(source) == [3, 4]


def test_a_comprehension_without_evident_tensor_work_is_left_alone() -> None:
    source = ("import torch\ndef names(idx: torch.Tensor):\n    n = int(idx.max().item()) + 1\n"
              "    return [str(i) for i in range(n)]\n")
    assert _lines(source) == []
    numpy = ("import numpy as np\nimport torch\ndef spans(pad: torch.Tensor, starts):\n"
             "    sz = pad.shape[0] - pad.long().sum().item()\n"
             "    return np.asarray([starts[j] + k for j in range(len(starts)) for k in range(sz)])\n")
    assert _lines(numpy) == []


def test_ctx_attributes_carry_reads_from_forward_to_backward() -> None:
    source = ("import torch\nfrom torch.autograd import Function\nclass Gather(Function):\n"
              "    @staticmethod\n    def forward(ctx, x, sizes):\n        ctx.sizes = sizes.tolist()\n"
              "        ctx.width = x.shape[1]\n        return x\n"
              "    @staticmethod\n    def backward(ctx, grads):\n        a = grads[:, :ctx.width]\n"
              "        return grads.split(ctx.sizes), None\n")
    assert _lines(source) == [6, 12]
