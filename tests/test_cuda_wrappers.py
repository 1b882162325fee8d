"""NPU201 at the call of a project function that is a small wrapper of a CUDA action with no NPU arm
(``def gc_cuda(): gc.collect(); torch.cuda.empty_cache()``, ``def to_cuda(batch): ... value.cuda()``), in another
module: the call is a CUDA use of its line. Silent: a wrapper with an NPU arm, a large function that happens to call
``torch.cuda`` somewhere, an availability query, a seeding helper."""
from __future__ import annotations

from pathlib import Path

import json

from conftest import run, tool

UTIL = '''import gc

import torch


def gc_cuda():
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def to_cuda(batch):
    for key, value in batch.items():
        if isinstance(value, torch.Tensor):
            batch[key] = value.cuda()
    return batch


def free_memory():
    if hasattr(torch, "npu") and torch.npu.is_available():
        torch.npu.empty_cache()
    elif torch.cuda.is_available():
        torch.cuda.empty_cache()


def has_gpu():
    return torch.cuda.is_available()


def seed_everything(seed):
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
'''
TRAIN = '''from pkg import util
from pkg.util import free_memory, gc_cuda, has_gpu, seed_everything, to_cuda


def fit(model, loader, optimizer):
    for batch in loader:
        batch = to_cuda(batch)
        loss = model(**batch)
        loss.backward()
        optimizer.step()
    gc_cuda()
    util.gc_cuda()
    free_memory()
    seed_everything(0)
    return has_gpu()
'''


def test_the_call_of_a_project_cuda_wrapper_is_a_cuda_use(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "util.py").write_text(UTIL)
    (tmp_path / "pkg" / "train.py").write_text(TRAIN)
    done = run([tool("npu-lint"), "check", "--select", "NPU201", "--output-format", "json", "-q", "--no-cache",
                "--exit-zero", str(tmp_path)], cwd=tmp_path)
    found = {d["location"]["row"] for d in json.loads(done.stdout) if d["filename"].endswith("train.py")}
    assert found == {7, 11, 12}
