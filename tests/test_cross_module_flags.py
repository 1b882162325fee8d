"""NPU414 at ``if helper(x):`` where the helper is a function of another module: a comparison of values of unknown
kind (``return args.rank == 0``) is a Python bool by its look (the index's ``compares`` fact, followed through the
functions whose results a helper returns); a comparison of a tensor stays a branch on the data."""
from __future__ import annotations

from pathlib import Path

from npu_lint.report.collect import collect
from npu_lint.versions import Target

DIST = '''def is_global_master(args):
    return args.rank == 0


def is_local_master(args):
    return args.local_rank == 0


def is_master(args, local=False):
    return is_local_master(args) if local else is_global_master(args)


def has_foreground(labels, ignore: int):
    return (labels != ignore).sum() > 0
'''
TRAIN = '''import torch

from pkg.dist import has_foreground, is_master


def evaluate(model, data, args):
    if not is_master(args):
        return {}
    out = []
    for x, y in data:
        out.append(model(x).argmax(-1) == y)
    return torch.cat(out).float().mean()


def loss(logits: torch.Tensor, labels: torch.Tensor):
    if has_foreground(labels, -1):
        return torch.nn.functional.cross_entropy(logits, labels, ignore_index=-1)
    return logits.sum() * 0
'''


def test_a_rank_check_of_another_module_is_no_branch_on_the_data(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "dist.py").write_text(DIST)
    (tmp_path / "pkg" / "train.py").write_text(TRAIN)
    result = collect(tmp_path, Target("2.8.0"), lambda *args: None)
    found = {(path.rsplit("/", 1)[-1], f.line) for path, f in result.findings if f.code == "NPU414"}
    assert found == {("train.py", 16)}


BASE = '''import torch
from torch import nn


class BaseLoss(nn.Module):
    def reduce(self, x):
        return x.mean()
'''
SUBCLASS = '''from .base import BaseLoss


class MaskedLoss(BaseLoss):
    def forward(self, pred, target):
        valid = target > 0
        if valid.any():
            return self.reduce(pred[valid])
        return pred.sum() * 0
'''
NUMPY_ONLY = '''from .config import THRESHOLD


def pick(a):
    m = a > THRESHOLD
    if m.any():
        return a[m]
    return a
'''


def test_a_module_that_gets_torch_only_through_project_classes_is_checked(tmp_path: Path) -> None:
    """``loss.py`` never imports torch: it subclasses the project's ``nn.Module``, so its tensors are checked; a
    module that imports only a constant of the project stays a file without torch."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "base.py").write_text(BASE)
    (tmp_path / "pkg" / "config.py").write_text("import torch\nTHRESHOLD = 0.5\n")
    (tmp_path / "pkg" / "loss.py").write_text(SUBCLASS)
    (tmp_path / "pkg" / "pick.py").write_text(NUMPY_ONLY)
    result = collect(tmp_path, Target("2.8.0"), lambda *args: None)
    found = {(path.rsplit("/", 1)[-1], f.line, f.code) for path, f in result.findings if f.code.startswith("NPU4")}
    # the branch on ``valid.any()`` whose arm selects through the mask (tensor work whatever ``pred`` is) too
    assert found == {("loss.py", 8, "NPU402"), ("loss.py", 7, "NPU414")}
HELPERS = '''import torch


def append_token(ids, tok):
    return torch.cat([ids, tok.view(-1, 1)], dim=1)


def join(a, b):
    return torch.cat([a, b], dim=1)


def step(tokens, logits):
    nxt = logits.argmax(-1)
    tokens = torch.cat([tokens, nxt[:, None]], dim=-1)
    return tokens, (nxt == 0).all()
'''
GENERATE = '''from pkg import helpers
from pkg.helpers import append_token, join


def greedy(model, ids, n):
    for _ in range(n):
        ids = append_token(ids, model(ids).argmax(-1))
    return ids


def greedy_until(model, tokens):
    done = False
    while not done:
        tokens, done = helpers.step(tokens, model(tokens))
    return tokens


def once(model, ids, n):
    for _ in range(n):
        out = join(ids, model(ids))
    ids = append_token(ids, model.eos)
    return out, ids
'''


def test_a_step_helper_of_another_module_fed_back_by_a_loop_grows(tmp_path: Path) -> None:
    """NPU408 at the call: the helper returns its parameter grown (the index's ``grows`` fact), the loop feeds
    the result back; two parameters joined, or a helper called once after the loop, stay silent."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "helpers.py").write_text(HELPERS)
    (tmp_path / "pkg" / "generate.py").write_text(GENERATE)
    result = collect(tmp_path, Target("2.8.0"), lambda *args: None)
    found = {(path.rsplit("/", 1)[-1], f.line) for path, f in result.findings if f.code == "NPU408"}
    # and the step helper itself (growth_views.step_parameter, session 21): its parameter joined with the step's
    # output and handed back, seen without the index too (flake8)
    assert found == {("generate.py", 7), ("generate.py", 14), ("helpers.py", 14)}


RUNNER = '''import torch


class ModelManager:
    def __init__(self, model):
        self.model = model

    @torch.inference_mode()
    def __call__(self, image, mask):
        return self.model(image, mask)

    def describe(self, image):
        return image.shape
'''
BATCH = '''import numpy as np
from PIL import Image

from pkg.runner import ModelManager


def run(paths, model):
    manager = ModelManager(model)
    for p in paths:
        img = np.array(Image.open(p).convert("RGB"))
        out = manager(img, None)
        manager.describe(np.array(Image.open(p)))
'''


def test_an_image_file_handed_to_another_modules_inference_entry_has_its_own_size(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "runner.py").write_text(RUNNER)
    (tmp_path / "pkg" / "batch.py").write_text(BATCH)
    result = collect(tmp_path, Target("2.8.0"), lambda *args: None)
    found = {(path.rsplit("/", 1)[-1], f.line) for path, f in result.findings if f.code == "NPU419"}
    assert found == {("batch.py", 10)}


BLOCK = '''import torch
from torch import nn
from torch_scatter import scatter


class Block(nn.Module):
    def forward(self, x, index, total: int = -1):
        return scatter(x, index, dim=0, dim_size=total)
'''
NET = '''import torch
from torch import nn
from typing import Dict

from .block import Block


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([Block() for _ in range(3)])

    def forward(self, batch: Dict[str, torch.Tensor]):
        total = int(batch["num_atoms"].sum())
        x = batch["x"]
        for conv in self.convs:
            x = conv(x, batch["batch"], total=total)
            x = conv(x, batch["batch"], total=x.shape[0])
        return x
'''


def test_a_module_of_another_module_whose_forward_sizes_a_tensor_with_a_read_value(tmp_path: Path) -> None:
    from conftest import package_findings
    found = {(name, line) for name, line, code in package_findings(tmp_path, {"block": BLOCK, "net": NET})
             if code == "NPU403"}
    assert found == {("net.py", 14), ("net.py", 17)}
