"""NPU401 at a nonzero computed on the host (``torch.tensor(keep)`` of positions a Python loop chose by tensor
values) and at the calls of the file's data-dependent helpers reached through ``functools.partial`` or an alias;
NPU402 at a selection by a parameter its own function treats as a mask."""
from __future__ import annotations

from npu_lint.core import analyse_source
from npu_lint.versions import Target


def _found(source: str, code: str) -> list[tuple[int, int]]:
    return [(f.line, f.col) for f in analyse_source(source, Target("2.8.0"), codes=frozenset({code}))]


HOST = '''import torch


def comprehension(x, flags: torch.Tensor):
    keep = [i for i, f in enumerate(flags.tolist()) if not f]
    idx = torch.tensor(keep, device=x.device)
    return x.index_select(0, idx)


def appended(x, scores: torch.Tensor, thr):
    keep = []
    for i in range(scores.shape[0]):
        if scores[i].item() <= thr:
            continue
        keep.append(i)
    return x[torch.LongTensor(keep)]


def elements(x, labels: torch.Tensor):
    keep = []
    for i, label in enumerate(labels):
        if label >= 0:
            keep.append(i)
    return x[x.new_tensor(keep).long()]


def sizes(x, labels: torch.Tensor, parts):
    keep = [i for i, p in enumerate(parts) if len(p) > 0 and labels is not None]
    return x[torch.tensor(keep)]


def values(scores: torch.Tensor):
    picked = []
    for i in range(len(scores)):
        if scores[i].item() > 0:
            picked.append(i)
        picked.append(0)
    return torch.tensor(picked)
'''


def test_positions_chosen_by_tensor_values_are_a_host_nonzero():
    found = _found(HOST, "NPU401")
    assert found == [(6, 10), (16, 13), (24, 13)]   # not sizes (lengths, None tests), not values (0 added always)
    message = next(f.message for f in analyse_source(HOST, Target("2.8.0"), codes=frozenset({"NPU401"})))
    assert "torch.tensor(keep)" in message and "flags.tolist()" in message and "nonzero_static" in message


def test_a_receiver_of_unknown_kind_counts_unless_the_file_shows_host_arrays():
    source = ("import torch\ndef f(x, flags):\n    keep = [i for i, f in enumerate(flags.tolist()) if f]\n"
              "    return x[torch.tensor(keep)]\n")
    assert _found(source, "NPU401") == [(4, 13)]
    assert _found("import numpy as np\n" + source.replace("flags.tolist()", "np.asarray(flags).tolist()"), "NPU401") == []


WRAPPERS = '''import functools
import torch


def positives(labels):
    return torch.where(labels > 0)[0]


pick = functools.partial(positives)
alias = positives


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pick = functools.partial(positives)
        self.other = self._positives

    def _positives(self, labels):
        return (labels > 0).nonzero()

    def forward(self, x, labels):
        fn = lambda l: torch.where(l > 0)[0]
        return x[pick(labels)], x[alias(labels)], x[self.pick(labels)], x[self.other(labels)], x[fn(labels)]
'''


def test_helpers_reached_through_partial_an_alias_or_a_self_attribute():
    found = _found(WRAPPERS, "NPU401")
    # the two ops themselves (6, 20) and the lambda's where (23); the four calls of line 24 reach them (through
    # partial, an alias, a self attribute) and repeat them: one finding per site, where the op stands
    assert found == [(6, 11), (20, 15), (23, 23)]


def test_a_mask_parameter_by_its_own_use():
    source = ("import torch\nimport torch.nn.functional as F\n"
              "def loss(logits, labels, ignore):\n    logits = logits.masked_fill(ignore, -1e4)\n"
              "    return F.cross_entropy(logits[~ignore], labels[~ignore])\n"
              "def keep(prob, mask):\n    dense = torch.where(mask, prob, 0)\n    return dense, prob[mask]\n"
              "def other(prob, mask):\n    return prob[mask]\n")
    assert _found(source, "NPU402") == [(5, 27), (5, 44), (8, 18)]
