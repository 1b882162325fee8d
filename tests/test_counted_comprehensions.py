"""NPU403 on two carriers of a value read back from a tensor (session 33): a comprehension counted by it, judged as
a ``for`` loop is (reported where its element runs tensor work; a host-only one leaves only the read, the sync), and
an autograd Function's ``ctx`` attribute set in ``forward`` and read in ``backward``."""
from __future__ import annotations

from npu_lint.core import analyse_source


def _lines(source: str) -> list[int]:
    return sorted(f.line for f in analyse_source(source, codes=frozenset({"NPU403"})))


def test_a_comprehension_counted_by_a_read_is_a_loop_count() -> None:
    source = ("import torch\ndef split(kp: torch.Tensor, idx: torch.Tensor):\n    n = int(idx.max().item()) + 1\n"
              "    masks = [idx == i for i in range(n)]\n    return torch.cat([kp[m] for m in masks])\n")
    assert _lines(source) == [3, 4]


def test_a_host_only_comprehension_leaves_the_read_alone() -> None:
    source = ("import torch\ndef names(idx: torch.Tensor):\n    n = int(idx.max().item()) + 1\n"
              "    return [str(i) for i in range(n)]\n")
    assert 4 not in _lines(source)


def test_ctx_attributes_carry_reads_from_forward_to_backward() -> None:
    source = ("import torch\nfrom torch.autograd import Function\nclass Gather(Function):\n"
              "    @staticmethod\n    def forward(ctx, x, sizes):\n        ctx.sizes = sizes.tolist()\n"
              "        ctx.width = x.shape[1]\n        return x\n"
              "    @staticmethod\n    def backward(ctx, grads):\n        a = grads[:, :ctx.width]\n"
              "        return grads.split(ctx.sizes), None\n")
    assert _lines(source) == [6, 12]
