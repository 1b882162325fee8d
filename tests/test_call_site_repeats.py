"""One data-dependent shape, one finding: a call of one of the file's helpers is not reported again (NPU401 /
NPU402) when the op or selection it repeats is reported inside the helper; and tensors still on the host until the
function moves them to the device (``labels = ids.clone()`` ... ``labels.to(device)``) compile nothing on the NPU."""
from __future__ import annotations

import pytest

from npu_lint.core import analyse_source
from npu_lint.versions import Target

_CODES = frozenset({"NPU401", "NPU402", "NPU403", "NPU413", "NPU414"})


def found(source: str) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in analyse_source("import torch\n" + source, Target("2.8.0"), codes=_CODES)]


def test_the_helper_reports_its_op_once():
    source = ("def positives(labels):\n    return torch.nonzero(labels > 0)\n"          # 3: the op
              "class Head(torch.nn.Module):\n    def _pos(self, x):\n        return x[x > 0]\n"   # 6: the selection
              "    def forward(self, x, labels):\n        return self._pos(x), positives(labels)\n")
    assert found(source) == [("NPU401", 3), ("NPU402", 6)]


def test_a_call_stays_when_only_it_is_selected():
    # the repeat is dropped only where the site's own finding is there to read
    source = "def keep(s):\n    return torch.unique(s)\ndef post(s):\n    return keep(s) + 1\n"
    assert [(f.code, f.line) for f in analyse_source("import torch\n" + source, Target("2.8.0"),
                                                     codes=frozenset({"NPU401"}))] == [("NPU401", 3)]


@pytest.mark.parametrize("source", [
    # labels built from the batch on the host, masked token by token, then moved
    "def f(batch, device, model, mid):\n    ids = torch.stack([x[0] for x in batch])\n    labels = ids.clone()\n"
    "    for i in range(labels.shape[0]):\n        idx = torch.where(labels[i] == mid)[0]\n"
    "        for j in idx:\n            labels[i][j] = -100\n    labels = labels.to(device)\n    return model(labels)\n",
    # a clip given by the caller, normalised on the host before it is moved
    "def f(ref, target, device, model):\n    audio, sr = ref\n    rms = torch.sqrt(torch.mean(torch.square(audio)))\n"
    "    if rms < target:\n        audio = audio * target / rms\n    audio = audio.to(device)\n    return model(audio)\n",
])
def test_host_until_moved(source):
    assert found(source) == []


@pytest.mark.parametrize("source, expected", [
    # moved to the host only on one path (``force_cpu``), and back where it came from: on the device otherwise
    ("def f(scores, boxes, force_cpu, thr):\n    if force_cpu:\n        scores = scores.cpu()\n"
     "    m = scores > thr\n    scores[m] = scores[m] * 2\n    return scores.to(boxes.device)\n", [("NPU402", 6)]),
    # moved before the test: a device tensor
    ("def f(x: torch.Tensor, device, t):\n    x = x.to(device)\n    if x.sum() > t:\n        x = torch.cat([x, x])\n    return x\n",
     [("NPU414", 4)]),
])
def test_device_values_still_fire(source, expected):
    assert found(source) == expected


def test_a_size_following_a_reported_selection_is_its_consumer():
    # the selection makes the count (NPU402, line 4); the expand only follows it: one shape, one finding
    source = ("def cells(offsets, lengths, n):\n    mask = lengths < n\n"
              "    kept = offsets[mask]\n    return kept, kept[None].expand(len(kept), 3)\n")
    assert found(source) == [("NPU402", 4)]
    # the loop over the rows of torch.unique's result: the unique is the site (NPU401, line 3)
    source = ("def rows(x, out):\n    u = torch.unique(x, dim=0)\n    for i in range(len(u)):\n"
              "        out = out + x[i]\n    return out\n")
    assert [c for c, _ in found(source)] == ["NPU401"]


def test_the_size_stays_when_its_op_is_not_reported_here():
    # only NPU403 selected: the consumer is the only finding left to read, kept
    source = ("def cells(offsets, lengths, n):\n    mask = lengths < n\n"
              "    kept = offsets[mask]\n    return torch.zeros(len(kept), 3)\n")
    assert [(f.code, f.line) for f in analyse_source("import torch\n" + source, Target("2.8.0"),
                                                     codes=frozenset({"NPU403"}))] == [("NPU403", 5)]
