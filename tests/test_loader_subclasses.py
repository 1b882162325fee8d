"""NPU406 / NPU415 at a call of a project DataLoader subclass defined in another module: judged with the call's
keywords when the class (and its project bases) names no ``drop_last`` (the index's class fact); a subclass that
passes ``drop_last`` itself decides its last batch."""
from __future__ import annotations

from pathlib import Path

from npu_lint.report.collect import collect
from npu_lint.versions import Target

LOADERS = '''import torch.utils.data as tud


class PlainLoader(tud.DataLoader):
    pass


class DropLoader(tud.DataLoader):
    def __init__(self, ds, **kw):
        super().__init__(ds, drop_last=True, **kw)


class StillDrops(DropLoader):
    pass
'''
TRAIN = '''import torch

from pkg.loaders import DropLoader, PlainLoader, StillDrops


def fit(model, opt, ds, bs):
    loader = PlainLoader(ds, batch_size=bs, shuffle=True)
    for x in loader:
        model(x).sum().backward()
        opt.step()


def evaluate(model, ds, bs):
    loader = PlainLoader(ds, batch_size=bs)
    model.eval()
    with torch.no_grad():
        for x in loader:
            model(x)


def fit_dropping(model, opt, ds, bs):
    for x in DropLoader(ds, batch_size=bs, shuffle=True):
        model(x).sum().backward()
        opt.step()
    for x in StillDrops(ds, batch_size=bs, shuffle=True):
        model(x).sum().backward()
        opt.step()
'''


def test_a_subclass_of_another_module_is_judged_at_its_calls(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "loaders.py").write_text(LOADERS)
    (tmp_path / "pkg" / "train.py").write_text(TRAIN)
    result = collect(tmp_path, Target("2.8.0"), lambda *args: None)
    found = {(path.rsplit("/", 1)[-1], f.line, f.code) for path, f in result.findings
             if f.code in ("NPU406", "NPU415")}
    assert found == {("train.py", 7, "NPU406"), ("train.py", 14, "NPU415")}
