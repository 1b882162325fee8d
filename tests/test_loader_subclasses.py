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


POSITIONAL_LOADER = '''import torch


def graph_collate(batch):
    return batch


class DataLoader(torch.utils.data.DataLoader):
    def __init__(self, dataset, batch_size=1, shuffle=False, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=graph_collate, **kwargs):
        super().__init__(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers, collate_fn, **kwargs)


class ConfigLoader(torch.utils.data.DataLoader):
    def __init__(self, dataset, config, shuffle=False):
        super().__init__(dataset, batch_size=config.batch_size, shuffle=shuffle)


class Inherited(torch.utils.data.DataLoader):
    pass
'''
POSITIONAL_ENGINE = '''import torch
from torch.utils import data as torch_data

from pkg import data


class Engine:
    def train(self):
        sampler = torch_data.DistributedSampler(self.train_set, self.world_size, self.rank)
        loader = data.DataLoader(self.train_set, self.batch_size, sampler=sampler)
        for batch in loader:
            self.model(batch).backward()
            self.optimizer.step()

    def evaluate(self, split):
        test_set = getattr(self, "%s_set" % split)
        loader = data.DataLoader(test_set, self.batch_size, sampler=self.sampler)
        self.model.eval()
        for batch in loader:
            self.model.predict(batch)

    def one_by_one(self):
        for batch in data.DataLoader(self.train_set, 1, True):
            self.model(batch).backward()
            self.optimizer.step()

    def configured(self, cfg):
        for batch in data.ConfigLoader(self.train_set, cfg, True):
            self.model(batch).backward()
            self.optimizer.step()

    def inherited(self):
        for batch in data.Inherited(self.train_set, 32, True):
            self.model(batch).backward()
            self.optimizer.step()
'''


def test_positional_arguments_of_another_module_s_subclass(tmp_path: Path) -> None:
    """``data.DataLoader(train_set, self.batch_size, sampler=s)`` of a package re-exporting its DataLoader subclass:
    the positional arguments are its ``__init__``'s (DataLoader's when it defines none); a batch size of 1, or a
    second parameter that is no batch size (``config``), leaves it alone."""
    (tmp_path / "pkg" / "data").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "data" / "__init__.py").write_text(
        "from .dataloader import DataLoader, ConfigLoader, Inherited\n")
    (tmp_path / "pkg" / "data" / "dataloader.py").write_text(POSITIONAL_LOADER)
    (tmp_path / "pkg" / "engine.py").write_text(POSITIONAL_ENGINE)
    result = collect(tmp_path, Target("2.8.0"), lambda *args: None)
    found = {(path.rsplit("/", 1)[-1], f.line, f.code) for path, f in result.findings
             if f.code in ("NPU406", "NPU415") and path.endswith("engine.py")}
    assert found == {("engine.py", 10, "NPU406"), ("engine.py", 17, "NPU415"), ("engine.py", 33, "NPU406")}


FACTORY = '''from torch.utils.data import DataLoader


def build_dataloader(dataset, batch_size=64, num_workers=0, shuffle=True, drop_last=None):
    if drop_last is None:
        drop_last = len(dataset) % batch_size == 1
    return DataLoader(dataset, batch_size, shuffle, num_workers=num_workers, drop_last=drop_last)


def make_loader(dataset, batch_size, shuffle=False):
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=shuffle)
    return loader


def phase_loader(dataset, batch_size, split):
    return DataLoader(dataset, batch_size=batch_size, drop_last=split == "train")
'''

FACTORY_CALLS = '''import torch
from pkg.factory import build_dataloader, make_loader, phase_loader
from pkg import factory


def main(args, model, train_dset, val_dset, trainer):
    train_loader = build_dataloader(train_dset, args.batch_size, args.num_workers)
    val_loader = build_dataloader(val_dset, args.batch_size, args.num_workers, shuffle=False)
    trainer.fit(model, train_loader, val_loader)


def predict(model, ds, bs):
    loader = factory.build_dataloader(ds, bs, shuffle=False)
    kept = make_loader(ds, bs)
    dropped = build_dataloader(ds, bs, drop_last=True)
    single = make_loader(ds, 1)
    phased = phase_loader(ds, bs, "val")
    model.eval()
    with torch.no_grad():
        for x in loader:
            model(x)
        for batches in (kept, dropped, single, phased):
            for x in batches:
                model(x)
'''


def test_a_loader_factory_of_another_module_is_judged_at_its_calls(tmp_path: Path) -> None:
    """``build_dataloader(val_dset, bs, shuffle=False)`` of another module: the factory's parameters (its
    ``drop_last`` defaulting to None) take what each call passes; a call passing ``drop_last=True`` or a batch
    size of 1 keeps no short batch, and a factory computing its own ``drop_last`` is judged inside it only."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "factory.py").write_text(FACTORY)
    (tmp_path / "pkg" / "train.py").write_text(FACTORY_CALLS)
    result = collect(tmp_path, Target("2.8.0"), lambda *args: None)
    found = {(path.rsplit("/", 1)[-1], f.line, f.code) for path, f in result.findings
             if f.code in ("NPU406", "NPU415") and path.endswith("train.py")}
    assert found == {("train.py", 7, "NPU406"), ("train.py", 8, "NPU415"), ("train.py", 13, "NPU415"),
                     ("train.py", 14, "NPU415")}
