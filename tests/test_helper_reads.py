"""Session 25 (values25): the links NPU403 / NPU414 follow for values read back from tensors, checked by line."""
from __future__ import annotations

from npu_lint.core import analyse_source

HELPER = (
    "import torch\nimport torch.nn.functional as F\n"
    "def pool(p, token_lengths):\n    out, start = [], 0\n    for n in token_lengths:\n"
    "        out.append(p[start:start + n].mean(0))\n        start += n\n    return out\n"
    "def run(p: torch.Tensor, mask: torch.Tensor):\n    doclens = mask.sum(-1).tolist()\n"
    "    return torch.stack(pool(p, doclens))\n"
    "def pad_at_dim(t, pad, dim=-1):\n    return F.pad(t, (*((0, 0) * (-dim - 1)), *pad))\n"
    "def align(t: torch.Tensor, lens: torch.Tensor):\n    m = lens.amax()\n    t = pad_at_dim(t, (m, 0), dim=1)\n"
    "    return pad_at_dim(t, (1, -1), dim=1)\n"
)


def test_helper_every_call_hands_a_read_reports_inside():
    lines = {f.line for f in analyse_source(HELPER, codes=frozenset({"NPU403"}))}
    assert 6 in lines            # pool's slice: its every call passes a read
    assert 11 in lines           # the call that hands it over stays reported
    assert 13 not in lines       # pad_at_dim is also given constants: its pad is left to the call
    assert 16 in lines


def test_loop_counted_by_a_read_filling_a_dict_is_host_work():
    source = ("import torch\ndef pairs(counts: torch.Tensor):\n    counts_cpu = counts.tolist()\n    maps = []\n"
              "    for i in range(len(counts_cpu)):\n        n = counts_cpu[i]\n        to_idx = {}\n        k = 0\n"
              "        for a in range(n):\n            for b in range(n):\n                if a != b:\n"
              "                    to_idx[(a, b)] = k\n                    k += 1\n        maps.append(to_idx)\n"
              "    return maps\n")
    lines = {f.line for f in analyse_source(source, codes=frozenset({"NPU403"}))}
    assert not lines & {9, 10}   # the loops build a host dict: no operator the device runs
