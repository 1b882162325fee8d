"""What the API inventory names a reference (api_inventory.csv), and the model facts behind it: methods of
schedulers and scalers, ``self`` in a module's methods, tensors moved with ``.cpu()``, generic annotations,
comprehensions reading the name they are assigned to, try/except alternatives and torch's re-exports."""
from __future__ import annotations

import csv
import subprocess
import sys

import pytest

from npu_lint.analysis.names import canonical
from test_semantic_model import probe

TRAIN = '''import torch
from torch.utils.data import DataLoader


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2)
        self.register_buffer("scale", torch.ones(2))

    def forward(self, x):
        for p in self.parameters():
            p.requires_grad_(False)
        return self.fc(x)


def train(loader: DataLoader[int], model: Net):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, 1)
    scaler = torch.amp.GradScaler("npu")
    for x, y in loader:
        loss = model(x.to("npu")).sum()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        sched.step()
        print(loss.detach().cpu().numpy(), y.cpu().tolist())
    feats = {"a": torch.zeros(1)}
    feats = torch.stack([v for k, v in feats.items()])
    return feats
'''


def inventory(tmp_path, source: str) -> set[tuple[int, str]]:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "train.py").write_text(source, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "npu_lint", "analyse", "-i", str(project), "-o", str(tmp_path / "out"),
                           "-v", "2.8.0"], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "out" / "proj_analysis" / "api_inventory.csv", encoding="utf-8") as handle:
        return {(int(row["Start Line"]), row["API"]) for row in csv.DictReader(handle)}


def test_inventory_names_methods_by_their_receivers_class(tmp_path):
    rows = inventory(tmp_path, TRAIN)
    expected = {
        (9, "torch.nn.Module.register_buffer"), (12, "torch.nn.Module.parameters"), (13, "torch.Tensor.requires_grad_"),
        (23, "torch.amp.GradScaler.scale"), (24, "torch.amp.GradScaler.step"), (25, "torch.amp.GradScaler.update"),
        (26, "torch.optim.lr_scheduler.StepLR.step"), (22, "torch.Tensor.to"),
        (27, "torch.Tensor.cpu"), (27, "torch.Tensor.numpy"), (27, "torch.Tensor.tolist"),
    }
    assert expected <= rows, sorted(expected - rows)
    assert not any(api == "torch.Tensor.items" for _, api in rows)   # the comprehension reads the dict


@pytest.mark.parametrize("source, kind", [
    ("import torch\nclass Net(torch.nn.Module):\n    def f(self):\n        self.probe()\n", ("module", "Net")),
    ("import torch\nclass Net(torch.nn.Module):\n    @classmethod\n    def f(cls):\n        cls.probe()\n", (None, None)),
    # a class no torch kind fits: an instance of it (its own methods, never a tensor's)
    ("class Plain:\n    def f(self):\n        self.probe()\n", ("object", "Plain")),
    ("class Net:\n    pass\nm = Net()\nm.probe()\n", ("object", "Net")),
    ("import torch\ndef f(t: torch.Tensor):\n    t.cpu().probe()\n", ("host", "torch.Tensor")),
    ("import torch\ndef f(t: torch.Tensor):\n    t.cpu().numpy().probe()\n", ("host", None)),
    ("import torch\ndef f(t):\n    t.cpu().probe()\n", ("host", None)),
    ("from torch.utils.data import DataLoader\ndef f(dl: DataLoader[int]):\n    dl.probe()\n",
     ("loader", "torch.utils.data.DataLoader")),
    ("from typing import List\ndef f(xs: List[int]):\n    xs.probe()\n", ("list", None)),   # a Python list, no tensor
    ("import torch\ndef f(x):\n    m = torch.any(x > 0, dim=1)\n    m.probe()\n", ("mask", None)),
    # a try body and its handler are alternatives: the classes disagree, the kind stays
    ("import torch\ntry:\n    s = torch.amp.GradScaler('npu')\nexcept TypeError:\n    s = torch.cuda.amp.GradScaler()\n"
     "s.probe()\n", ("scaler", None)),
    ("import torch\ntry:\n    s = torch.cuda.amp.GradScaler()\nfinally:\n    pass\ns.probe()\n",
     ("scaler", "torch.cuda.amp.GradScaler")),
    ("import torch\nx = {}\nx = torch.stack([v for v in x.values()])\n[v for v in x.probe()]\n", ("tensor", None)),
    # inverting a value of unknown kind: a mask (``embeddings[~enqueue_mask]``); a constant is not
    ("import torch\ndef f(x, keep):\n    m = ~keep\n    m.probe()\n", ("mask", None)),
    ("import torch\ndef f(x):\n    m = ~1\n    m.probe()\n", (None, None)),
    # (audit27) numpy's ``astype`` gives a host array, even of a comparison the model took for a mask
    ("import numpy as np\ndef f(g, q, keep):\n    m = (g[:, None] == q).astype(np.int32)\n    m[0][keep].probe()\n",
     ("host", None)),
])
def test_model_facts_behind_the_names(source, kind):
    assert probe(source) == kind


@pytest.mark.parametrize("name, public", [
    ("torch.nn.modules.GroupNorm", "torch.nn.GroupNorm"),
    ("torch.nn.modules.normalization.GroupNorm.forward", "torch.nn.GroupNorm.forward"),
    ("torch.optim.optimizer.Optimizer", "torch.optim.Optimizer"),
    ("torch.optim.adam.Adam.step", "torch.optim.Adam.step"),
    ("torch.optim.lr_scheduler.StepLR", "torch.optim.lr_scheduler.StepLR"),
    ("torch.nn.modules.utils._pair", "torch.nn.modules.utils._pair"),
    ("torch.nn.parallel.DataParallel", "torch.nn.DataParallel"),
])
def test_reexports_map_to_the_public_name(name, public):
    assert canonical(name) == public


WRONG_ROWS = '''import numpy as np
import torch as th

try:
    import wandb
except ImportError:
    wandb = None


class Anchors:
    def expand(self, n):
        return self


class Model(th.nn.Module):
    def predict_proba(self, x) -> np.ndarray:
        return self(x).detach().cpu().numpy()


class Logger:
    def __init__(self):
        self._wandb = wandb

    def log(self, loss: th.Tensor, model: Model, anchors: Anchors, x):
        self._wandb.log({"loss": loss.item()})
        probs = model.predict_proba(x)
        print(probs.astype(np.float32).any(), anchors.expand(2))
        th.default_generator.manual_seed(0)


def pick(ema: bool) -> th.nn.Module:
    return Model()


class State:
    value: th.Tensor   # declared a tensor, holds a list

    def add(self, v):
        self.value.append(v)
        pick(True).update(v)
        pick(True).parameters()
'''


def test_inventory_leaves_out_what_is_not_a_torch_method(tmp_path):
    rows = inventory(tmp_path, WRONG_ROWS)
    for line, api in [(25, "torch.Tensor.log"), (27, "torch.Tensor.astype"), (27, "torch.Tensor.any"),
                      (27, "torch.Tensor.expand"), (28, "torch.default_generator.manual_seed")]:
        assert (line, api) not in rows
    assert {(25, "torch.Tensor.item"), (28, "torch.Generator.manual_seed"), (17, "torch.Tensor.numpy"),
            (41, "torch.nn.Module.parameters")} <= rows
    # a method no tensor has; ``nn.ModuleDict.update`` is no method of a module declared ``-> nn.Module``
    assert not any(line in (39, 40) for line, _ in rows)


WRAPPED = '''import torch
import torch.multiprocessing as mp
from accelerate import Accelerator
from monai.data import MetaTensor


class Trainer:
    def __init__(self, model):
        self.accelerator = Accelerator()
        self.opt = torch.optim.Adam(model.parameters(), lr=1e-4)
        self.model, self.opt = self.accelerator.prepare(model, self.opt)

    def train(self, x):
        loss = self.model(x).mean()
        self.accelerator.backward(loss)
        self.opt.step()
        return self.accelerator.gather(loss)


def share(x, queue):
    q = mp.Queue()
    q.put(x)
    m = MetaTensor(x)
    return m.permute(1, 0)
'''


def test_inventory_follows_wrapped_attributes_and_leaves_out_library_objects(tmp_path):
    """(audit27) ``self.opt`` handed back by ``accelerator.prepare(.., self.opt)`` is still the Adam its other
    binding makes (``Adam.step`` is unsupported at 2.8.0: the row matters); an instance of another library's class
    (``Accelerator()``, ``mp.Queue()``) is no tensor, whatever its methods are called; ``MetaTensor`` may be one."""
    rows = inventory(tmp_path, WRAPPED)
    assert {(16, "torch.optim.Adam.step"), (24, "torch.Tensor.permute")} <= rows
    for line, api in [(15, "torch.Tensor.backward"), (17, "torch.Tensor.gather"), (22, "torch.Tensor.put")]:
        assert (line, api) not in rows


TORCHVISION_BASE = '''import torchvision
from torchvision.models.vgg import VGG


class MobileNetEncoder(torchvision.models.MobileNetV2):
    def load_state_dict(self, state_dict, **kwargs):
        state_dict.pop("classifier.1.bias", None)
        super().load_state_dict(state_dict, **kwargs)


class VGGEncoder(VGG):
    def load_state_dict(self, state_dict, **kwargs):
        super().load_state_dict(state_dict, **kwargs)
'''


def test_subclasses_of_torchvision_models_are_modules(tmp_path):
    """(audit27) An encoder deriving from a torchvision model (library_classes.tsv: ``VGG``, ``MobileNetV2``
    derive from ``nn.Module``) calls ``nn.Module``'s methods through ``super()``."""
    rows = inventory(tmp_path, TORCHVISION_BASE)
    assert {(8, "torch.nn.Module.load_state_dict"), (13, "torch.nn.Module.load_state_dict")} <= rows
