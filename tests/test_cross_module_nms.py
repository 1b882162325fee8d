"""NPU401 at a call of another module's non-maximum suppression: a torch NMS of the project is reported where it is
called; one in a module that imports no torch package (numpy and scipy only: topaz's ``non_maximum_suppression``)
is host work, also when the call goes through a name chosen by a conditional expression."""
from __future__ import annotations

from pathlib import Path

from npu_lint.report.collect import collect
from npu_lint.versions import Target

HOST = '''import numpy as np


def non_maximum_suppression(x, r, threshold=-np.inf):
    order = np.argsort(x.ravel())[::-1]
    return x.ravel()[order[:r]], order[:r]


def non_maximum_suppression_3d(x, r, threshold=-np.inf):
    return non_maximum_suppression(x.reshape(x.shape[0], -1), r, threshold)
'''
DEVICE = '''import torch


def batched_nms(boxes, scores, thr):
    keep = []
    order = scores.argsort(descending=True)
    while order.numel() > 0:
        keep.append(order[0])
        order = order[1:][scores[order[1:]] < thr]
    return torch.stack(keep)
'''
EXTRACT = '''import torch

from pkg.algorithms import non_maximum_suppression, non_maximum_suppression_3d
from pkg.ops import batched_nms


def extract(score, dims, radius):
    nms = non_maximum_suppression if dims == 2 else non_maximum_suppression_3d
    return nms(score, radius), non_maximum_suppression(score, radius)


def detect(model, images):
    boxes, scores = model(images)
    return batched_nms(boxes, scores, 0.5)
'''


def test_a_numpy_nms_of_another_module_is_host_work(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "algorithms.py").write_text(HOST)
    (tmp_path / "pkg" / "ops.py").write_text(DEVICE)
    (tmp_path / "pkg" / "extract.py").write_text(EXTRACT)
    result = collect(tmp_path, Target("2.8.0"), lambda *args: None)
    found = {(path.rsplit("/", 1)[-1], f.line) for path, f in result.findings
             if f.code == "NPU401" and path.endswith("extract.py")}
    assert found == {("extract.py", 14)}
