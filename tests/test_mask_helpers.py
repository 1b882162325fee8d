"""NPU402 at the calls of the file's helpers that return a selection by a boolean mask (not at calls of helpers
that only read one element of such a selection)."""
from __future__ import annotations

from npu_lint.core import analyse_source
from npu_lint.versions import Target

HELPERS = '''import torch


def flatten(scores, labels, ignore=None):
    if ignore is None:
        return scores, labels
    valid = labels != ignore
    return scores.view(-1)[valid.view(-1)], labels[valid]


def best(sensitivity, specificity, thresholds, floor):
    indices = specificity >= floor
    sensitivity, thresholds = sensitivity[indices], thresholds[indices]
    idx = torch.argmax(sensitivity)
    return sensitivity[idx], thresholds[idx]


def dense(scores, labels):
    return scores * (labels > 0)


def loss(scores, labels, spec, thr):
    s, l = flatten(scores, labels, 255)
    top = best(scores, spec, thr, 0.5)
    return s.sum() + dense(scores, labels).sum() + top[0]
'''


def test_only_the_helper_returning_a_selection_is_reported_at_its_call():
    found = [(f.line, f.col) for f in analyse_source(HELPERS, Target("2.8.0"), codes=frozenset({"NPU402"}))]
    # the selections themselves (lines 8 and 13: valid.view(-1) is a mask too); not the call of flatten (line 23),
    # which repeats the selection reported inside it at line 8; not best (one element), not dense
    assert found == [(8, 11), (8, 44), (13, 30), (13, 52)]


def test_helpers_of_loops_over_selections():
    source = ("import torch\n"
              "def nms(boxes, scores, thr):\n"                                   # 2
              "    keep = []\n    order = scores.argsort(descending=True)\n"
              "    while order.numel() > 0:\n"
              "        keep.append(order[0])\n"
              "        order = order[1:][scores[order[1:]] < thr]\n"             # 7: the selection itself
              "    return torch.stack(keep)\n"
              "def sums(xs, thr):\n    out = []\n    for x in xs:\n"
              "        out.append(x[x > thr].sum())\n"                           # 12: the selection itself
              "    return torch.stack(out)\n"
              "def post(b, s, xs):\n"
              "    return nms(b, s, 0.5), sums(xs, 0.1)\n")                      # 15: nms only (sums: numbers)
    found = [(f.line, f.col) for f in analyse_source(source, Target("2.8.0"), codes=frozenset({"NPU402"}))]
    assert found == [(7, 16), (12, 19), (15, 11)]
