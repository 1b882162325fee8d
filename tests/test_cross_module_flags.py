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
