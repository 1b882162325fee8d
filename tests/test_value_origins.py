"""Session 24 (values24): where NPU403 reports a size read from a tensor. The element picked by constants
(``batch_size = coors[-1, 0] + 1``) is reported on its own line too, where the sync is, as other reads are; and the
sequence lengths xformers' attention biases take (``BlockDiagonalMask.from_seqlens(q, kv_seqlen=...)``) are sizes."""
from __future__ import annotations

from npu_lint.core import analyse_source


def _lines(source: str) -> list[int]:
    return sorted(f.line for f in analyse_source(source, codes=frozenset({"NPU403"})))


def test_picked_element_is_reported_where_it_is_read() -> None:
    source = ("import torch\n"
              "def f(features, coors: torch.Tensor):\n"
              "    batch_size = coors[-1, 0] + 1\n"
              "    out = []\n"
              "    for i in range(batch_size):\n"
              "        out.append(features[coors[:, 0] == i].mean(0))\n"
              "    return torch.stack(out)\n")
    assert _lines(source) == [3, 5]


def test_picked_element_sizing_a_canvas_is_named_and_reported() -> None:
    source = ("import torch\n"
              "def f(pts_coors: torch.Tensor, x: torch.Tensor, n: int):\n"
              "    batch_size = pts_coors[-1, 0] + 1\n"
              "    canvas_len = n * batch_size\n"
              "    return x.new_zeros(canvas_len)\n")
    findings = analyse_source(source, codes=frozenset({"NPU403"}))
    assert sorted(f.line for f in findings) == [3, 5]
    assert "pts_coors[-1, 0]" in next(f.message for f in findings if f.line == 5)


def test_a_count_of_a_data_dependent_result_is_not_reported_on_its_own_line() -> None:
    # a shape read (the op that made the rows is the site): only the size that takes it
    source = ("import torch\n"
              "def f(labels: torch.Tensor):\n"
              "    uniq = labels.unique()\n"
              "    ways = uniq.numel()\n"
              "    return torch.empty(ways, 3)\n")
    assert _lines(source) == [5]


def test_xformers_sequence_lengths_read_from_a_tensor_are_sizes() -> None:
    source = ("import torch\n"
              "from xformers.ops.fmha.attn_bias import BlockDiagonalCausalWithOffsetPaddedKeysMask, BlockDiagonalMask\n"
              "def bias(seqlens, kv: torch.Tensor, cached: torch.Tensor, size: int):\n"
              "    a = BlockDiagonalMask.from_seqlens(q_seqlen=seqlens,\n"
              "                                       kv_seqlen=[s + c.item() for s, c in zip(seqlens, kv)])\n"
              "    b = BlockDiagonalCausalWithOffsetPaddedKeysMask.from_seqlens(\n"
              "        q_seqlen=seqlens, kv_padding=size, kv_seqlen=(kv + cached).clamp(max=size).tolist())\n"
              "    return a, b\n")
    assert _lines(source) == [4, 6]


def test_xformers_sequence_lengths_of_the_inputs_are_not() -> None:
    source = ("import torch\n"
              "from xformers.ops import fmha\n"
              "def bias(xs: list):\n"
              "    seqlens = [x.shape[0] for x in xs]\n"
              "    return fmha.BlockDiagonalMask.from_seqlens(seqlens)\n")
    assert _lines(source) == []
