"""Receiver classes behind the API inventory's method names: ``isinstance`` narrowing, autograd Functions and
their ``ctx``, loaders' samplers, ``getattr(torch.optim, name)(...)``, parameter containers, scalers of either
class, and methods named on a base class only when the base has them. Each inference has cases that must give
the kind and cases that must not (``probe``: the receiver of the last ``.probe()``)."""
from __future__ import annotations

import pytest

from conftest import package_inventory
from test_inventory_names import inventory
from test_semantic_model import probe

TENSOR = ("tensor", None)
UNKNOWN = (None, None)


@pytest.mark.parametrize("source, kind", [
    # an ``if isinstance(x, T):`` body, an ``elif``, a conditional expression, an early-exit guard
    ("import torch\ndef f(x):\n    if isinstance(x, torch.Tensor):\n        x.probe()\n", TENSOR),
    ("import torch\ndef f(x):\n    if isinstance(x, dict):\n        pass\n    elif isinstance(x, torch.Tensor):\n"
     "        x.probe()\n", TENSOR),
    ("import torch\ndef f(x):\n    y = x.probe() if isinstance(x, torch.Tensor) else x\n", TENSOR),
    ("import torch\ndef f(x):\n    if not isinstance(x, torch.Tensor):\n        return x\n    x.probe()\n", TENSOR),
    ("import torch\ndef f(x, m):\n    if isinstance(x, torch.Tensor) and m:\n        x.probe()\n", TENSOR),
    # the test says what the value is not: a dict, a list, a str
    ("import torch\ndef f(x: torch.Tensor):\n    if isinstance(x, dict):\n        x.probe()\n", ("object", None)),
    ("import torch\nfrom collections.abc import Mapping\ndef f(x: torch.Tensor):\n    if isinstance(x, Mapping):\n"
     "        x.probe()\n", ("object", None)),
    ("import torch\ndef f(x):\n    if isinstance(x, (list, tuple)):\n        x.probe()\n", ("list", None)),
    # must not: outside the body, the else arm, an ``or``, a rebinding in between, a tuple of disagreeing classes
    ("import torch\ndef f(x):\n    if isinstance(x, torch.Tensor):\n        pass\n    x.probe()\n", UNKNOWN),
    ("import torch\ndef f(x):\n    if isinstance(x, torch.Tensor):\n        pass\n    else:\n        x.probe()\n", UNKNOWN),
    ("import torch\ndef f(x, m):\n    if isinstance(x, torch.Tensor) or m:\n        x.probe()\n", UNKNOWN),
    ("import torch\ndef f(x):\n    if isinstance(x, torch.Tensor):\n        x = str(x)\n        x.probe()\n", ("object", "builtins.str")),   # str() of anything is a string
    ("import torch\nimport numpy as np\ndef f(x):\n    if isinstance(x, (torch.Tensor, np.ndarray)):\n"
     "        x.probe()\n", UNKNOWN),
    ("import torch\ndef f(x):\n    if not isinstance(x, torch.Tensor):\n        print(x)\n    x.probe()\n", UNKNOWN),
    # refuted: ``if not isinstance(x, torch.Tensor):``, the ``else`` of a test; a project class that is no tensor
    ("import torch\ndef f(x: torch.Tensor):\n    if not isinstance(x, torch.Tensor):\n        x.probe()\n",
     ("object", None)),
    ("import torch\ndef f(x: torch.Tensor):\n    if isinstance(x, torch.Tensor):\n        pass\n    else:\n"
     "        x.probe()\n", ("object", None)),
    ("import torch\nclass Boxes:\n    pass\ndef f(x: torch.Tensor):\n    if isinstance(x, Boxes):\n        x.probe()\n",
     ("object", "Boxes")),
    ("import torch\ndef f(x: torch.Tensor, m):\n    if not (isinstance(x, torch.Tensor) and m):\n        x.probe()\n",
     TENSOR),
    ("import torch\nclass Boxes(torch.nn.Module):\n    pass\ndef f(x):\n    if isinstance(x, Boxes):\n        x.probe()\n",
     ("module", "Boxes")),
    # ``self.x`` narrowed too, unless the method assigns it in between
    ("import torch\nclass A:\n    def __init__(self):\n        self.x = torch.zeros(1)\n    def f(self):\n"
     "        if isinstance(self.x, dict):\n            [k for k in self.x.probe()]\n", ("object", None)),
    ("import torch\nclass A:\n    def f(self, y):\n        if isinstance(self.x, torch.Tensor):\n"
     "            self.x = y\n            self.x.probe()\n", UNKNOWN),
    # a binding that says more than the test is kept
    ("import torch\ndef f():\n    m = torch.nn.Linear(2, 2)\n    if isinstance(m, torch.nn.Module):\n        m.probe()\n",
     ("module", "torch.nn.Linear")),
])
def test_isinstance_narrowing(source, kind):
    assert probe(source) == kind


@pytest.mark.parametrize("source, kind", [
    ("import torch\nclass Fn(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
     "        ctx.probe()\n", ("ctx", "torch.autograd.function.FunctionCtx")),
    ("import torch\nclass Fn(torch.autograd.function.Function):\n    @staticmethod\n    def backward(ctx, g):\n"
     "        ctx.probe()\n", ("ctx", "torch.autograd.function.FunctionCtx")),
    # must not: a module's forward, a non-static method, a plain class
    ("import torch\nclass Net(torch.nn.Module):\n    @staticmethod\n    def forward(ctx, x):\n        ctx.probe()\n",
     UNKNOWN),
    ("class Fn:\n    @staticmethod\n    def forward(ctx, x):\n        ctx.probe()\n", UNKNOWN),
    # a loader's sampler and dataset; ``getattr(torch.optim, name)(...)``
    ("from torch.utils.data import DataLoader\ndef f(dl: DataLoader):\n    dl.sampler.probe()\n", ("sampler", None)),
    ("from torch.utils.data import DataLoader\ndef f(dl: DataLoader):\n    dl.dataset.probe()\n", ("dataset", None)),
    ("def f(dl):\n    dl.sampler.probe()\n", UNKNOWN),
    ("import torch\ndef f(p, n):\n    getattr(torch.optim, n, torch.optim.Adam)(p).probe()\n", ("optimizer", None)),
    ("import torch\ndef f(p, n):\n    getattr(torch.nn, n)().probe()\n", ("module", None)),
    ("import torch\ndef f(p, n):\n    getattr(torch, n)(p).probe()\n", UNKNOWN),
    ("import torch\ndef f(o, n):\n    getattr(o, n)(1).probe()\n", UNKNOWN),
    # an element of a parameter container is a tensor; of a module list a module of its own class
    ("import torch\np = torch.nn.ParameterDict({})\np['a'].probe()\n", TENSOR),
    ("import torch\nm = torch.nn.ModuleList([])\nm[0].probe()\n", ("module", None)),
    ("import torch\ndef f(c, x):\n    m = torch.nn.ModuleDict() if c else torch.nn.ParameterDict()\n    m['a'].probe()\n",
     UNKNOWN),
    ("import torch\nclass BufferDict(torch.nn.Module):\n    pass\nb = BufferDict()\nb['a'].probe()\n", UNKNOWN),
    # ``self.x`` set by a base class of the file
    ("import torch\nclass Base(torch.nn.Module):\n    def __init__(self, layer: torch.nn.Module):\n"
     "        super().__init__()\n        self.layer = layer\nclass Sub(Base):\n    def f(self):\n        self.layer.probe()\n",
     ("module", "torch.nn.Module")),
    ("import torch\nclass Base:\n    pass\nclass Sub(Base):\n    def f(self):\n        self.layer.probe()\n", UNKNOWN),
    # a distribution and what sampling it gives; a project class merely named like one is not
    ("import torch\nd = torch.distributions.Normal(0, 1)\nd.probe()\n",
     ("distribution", "torch.distributions.Normal")),
    ("import torch\nd = torch.distributions.Normal(0, 1)\nd.rsample().probe()\n", TENSOR),
    ("import torch\nd = torch.distributions.Normal(0, 1)\nd.batch_shape.probe()\n", UNKNOWN),
    ("class Normal:\n    pass\nd = Normal()\nd.sample().probe()\n", UNKNOWN),
    # ``self.post(x)``: the method's return, joined with what the subclasses that define it again return
    ("import torch\nclass B:\n    def post(self, p):\n        return p\n    def run(self, x: torch.Tensor):\n"
     "        y = self.post(x)\n        y.probe()\n", TENSOR),
    ("import torch\nclass B:\n    def post(self, p):\n        return p\n    def run(self, x: torch.Tensor):\n"
     "        y = self.post(x)\n        y.probe()\nclass C(B):\n    def post(self, p):\n        return [p]\n", UNKNOWN),
    ("import torch\nclass B:\n    def post(self, p):\n        return p\n    def run(self, x: torch.Tensor):\n"
     "        y = self.post(x)\n        y.probe()\nclass C(B):\n    def post(self, p):\n        return torch.zeros(1)\n", TENSOR),
    # ``torch.__version__.split('+')[0]`` is a string, ``torch.split(x, 2)[0]`` a tensor
    ("import torch\ntorch.__version__.split('+')[0].probe()\n", UNKNOWN),
    ("import torch\ntorch.split(x, 2)[0].probe()\n", TENSOR),
])
def test_receiver_kinds(source, kind):
    assert probe(source) == kind


SOURCE = '''import torch
from torch.utils.data import DataLoader


class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2


class Metric(torch.nn.Module):
    def update(self, x):
        pass


class Other(torch.nn.Module):
    def update(self, x):
        pass


def train(x, loader: DataLoader, epoch, flag):
    loader.sampler.set_epoch(epoch)
    y = Fn.apply(x)
    s = torch.amp.GradScaler("npu") if flag else torch.cuda.amp.GradScaler()
    s.scale(y).backward()
    s.update()
    m = Metric() if flag else Other()
    m.update(y)
    m.to("npu")
    v = torch.__version__.split("+")[0].split(".")
    n = torch.distributions.Poisson(1).sample((3,))
    g = torch.Generator()
    g.manual_seed(0)
    with torch.profiler.profile() as prof:
        prof.step()
    prof.items()
    (x == 1).astype(int)


class Sampler(torch.distributions.Normal):
    def draw(self):
        return self.map_fn(self.sample())
'''


def test_inventory_names_of_these_receivers(tmp_path):
    rows = inventory(tmp_path, SOURCE)
    expected = {(8, "torch.autograd.function.FunctionCtx.save_for_backward"),
                (23, "torch.utils.data.distributed.DistributedSampler.set_epoch"),
                (24, "torch.autograd.Function.apply"), (26, "torch.amp.GradScaler.scale"),
                (27, "torch.amp.GradScaler.update"), (30, "torch.nn.Module.to"),
                (32, "torch.distributions.poisson.Poisson.sample"), (34, "torch.Generator.manual_seed"),
                (36, "torch.profiler.profile.step")}
    assert expected <= rows, sorted(expected - rows)
    # project methods, a str, a container method, an attribute of a project subclass of a torch class
    assert not {(29, "torch.nn.Module.update"), (31, "torch.Tensor.split")} & rows
    assert not [row for row in rows if row[0] in (37, 38) or row[1].endswith("map_fn")], sorted(rows)
    assert (43, "torch.distributions.normal.Normal.sample") in rows   # inherited from the torch class


MODELS = '''import torch


class Net(torch.nn.Module):
    def forward(self, x):
        return x


def build_model(cfg):
    if cfg:
        return Net()
    return Net()


def build_names():
    return [Net() for _ in range(2)]


def pick(cfg):
    if cfg:
        return Net()
    return cfg.model


class Layer:
    def __init__(self, base_layer: torch.nn.Module, opt: torch.optim.SGD):
        self.base_layer = base_layer
        self.opt = opt


class Trainer:
    def __init__(self, model, opt, sched=None, other=None):
        self.model = model
        self.opt = opt
        self.sched = sched
        self.other = other

    def step(self):
        self.model.train()
        self.opt.step()
        self.sched.step()
        self.other.step()


def configure(model):
    return torch.optim.SGD(model.parameters(), lr=0.1)
'''

TRAIN = '''import torch
from .models import Trainer, build_model, build_names, configure, pick, Layer
from . import models


class Lora(torch.nn.Module, Layer):
    def forward(self, x):
        self.opt.zero_grad()
        return self.base_layer(x).to("npu")


def main(cfg, thing):
    net = build_model(cfg)
    net.eval()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    Trainer(net, opt, sched=torch.optim.lr_scheduler.StepLR(opt, 1), other=thing)
    configure(models.Net())
    nets = build_names()
    nets.append(1)
    chosen = pick(cfg)
    chosen.eval()
'''


def test_kinds_across_modules(tmp_path):
    rows = package_inventory(tmp_path, {"models": MODELS, "train": TRAIN})
    # a factory in another module returning a project module; the constructor's and a function's parameters
    # from what other modules pass (a module built there, an optimizer, a scheduler by keyword)
    expected = {("pkg/train.py", 14, "torch.nn.Module.eval"), ("pkg/train.py", 15, "torch.nn.Module.parameters"),
                ("pkg/models.py", 39, "torch.nn.Module.train"), ("pkg/models.py", 40, "torch.optim.SGD.step"),
                ("pkg/models.py", 41, "torch.optim.lr_scheduler.StepLR.step"),
                ("pkg/models.py", 46, "torch.nn.Module.parameters"),
                # ``self.x`` of a base class in another module
                ("pkg/train.py", 8, "torch.optim.SGD.zero_grad"), ("pkg/train.py", 9, "torch.Tensor.to")}
    assert expected <= rows, sorted(expected - rows)
    # must not: an unknown argument, a list of modules, a factory with a return the index cannot tell
    assert not [row for row in rows if row[:2] in {("pkg/models.py", 42), ("pkg/train.py", 19),
                                                   ("pkg/train.py", 21)}]


SUPER_AND_ALIASES = '''import torch
from abc import ABC
from torch import nn
from torch.autograd import Function


class Packed(ABC, nn.RNNBase):
    def forward(self, x, hx=None):
        return super().forward(x, hx=hx)


class Base(nn.Module):
    def forward(self, x):
        return x


class Child(Base):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return super().forward(x) + super().train()

    def other(self, x, cls):
        return super(Child, self).train(), super(cls, x).train()


class Sparsemax(Function):
    @staticmethod
    def forward(ctx, x):
        return x


sparsemax = Sparsemax.apply
helper = Child.forward


def run(values):
    y = torch.stack(values).type(torch.float16).to("npu")
    name = torch.zeros(1).type()
    return sparsemax(y), helper(y), name.upper()
'''


def test_super_calls_aliased_apply_and_type_casts(tmp_path):
    rows = inventory(tmp_path, SUPER_AND_ALIASES)
    # super(): the torch base's method (RNNBase has no forward of its own); Function.apply through a module alias;
    # ``.type(dtype)`` is a cast giving a tensor
    expected = {(9, "torch.nn.Module.forward"), (22, "torch.nn.Module.train"), (41, "torch.autograd.Function.apply"),
                (39, "torch.Tensor.type"), (39, "torch.Tensor.to"), (25, "torch.nn.Module.train")}
    assert expected <= rows, sorted(expected - rows)
    # must not: a project base's own forward through super(), ``super().__init__``, ``super(cls, x)``, a project
    # method alias,
    # the string ``x.type()`` returns
    assert not [row for row in rows if row[0] in (19, 22) and row[1].endswith(("forward", "__init__"))], sorted(rows)
    assert not [row for row in rows if row[0] == 41 and "forward" in row[1]], sorted(rows)
    assert (41, "torch.Tensor.upper") not in rows
    assert len([row for row in rows if row[0] == 25]) == 1, sorted(rows)   # not ``super(cls, x)``


GENERIC_BASE = '''from typing import Generic, TypeVar
import torch
from torch.nn import Module

T = TypeVar("T")


class Base(Generic[T]):
    def __init__(self, model: Module, optimizer: torch.optim.Optimizer):
        self.model: Module = model
        self.optimizer = optimizer
'''

GENERIC_CHILD = '''from abc import ABC
from torch import nn
from pkg.base import Base


class PackNet(ABC, nn.Module):
    def prune(self, p: float):
        pass


class Local(Base[int]):
    pass


class Strategy(Local):
    def step(self):
        self.optimizer.step()
        self.model.train()


def _get_model(strategy: "Base") -> PackNet:
    model = strategy.model
    return model


def go(strategy: Strategy):
    model = _get_model(strategy)
    model.prune(0.5)
    return model.eval()
'''


def test_generic_bases_and_declared_subclasses(tmp_path):
    rows = package_inventory(tmp_path, {"base": GENERIC_BASE, "child": GENERIC_CHILD})
    # ``Base[int]`` is ``Base``: its ``self.optimizer`` / ``self.model`` reach the subclass's methods (through a
    # class of this file, from another module)
    expected = {("pkg/child.py", 17, "torch.optim.Optimizer.step"), ("pkg/child.py", 18, "torch.nn.Module.train"),
                ("pkg/child.py", 29, "torch.nn.Module.eval")}
    assert expected <= rows, sorted(expected - rows)
    # a project method of the declared return class (``-> PackNet``), though the returned value is typed
    # ``nn.Module``: project code, no torch API
    assert not [row for row in rows if row[:2] == ("pkg/child.py", 28)], rows
