"""Receiver classes behind the API inventory's method names: ``isinstance`` narrowing, autograd Functions and
their ``ctx``, loaders' samplers, ``getattr(torch.optim, name)(...)``, parameter containers, scalers of either
class, and methods named on a base class only when the base has them. Each inference has cases that must give
the kind and cases that must not (``probe``: the receiver of the last ``.probe()``)."""
from __future__ import annotations

import pytest

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
    ("import torch\ndef f(x):\n    if isinstance(x, torch.Tensor):\n        x = str(x)\n        x.probe()\n", UNKNOWN),
    ("import torch\nimport numpy as np\ndef f(x):\n    if isinstance(x, (torch.Tensor, np.ndarray)):\n"
     "        x.probe()\n", UNKNOWN),
    ("import torch\ndef f(x):\n    if not isinstance(x, torch.Tensor):\n        print(x)\n    x.probe()\n", UNKNOWN),
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
'''


def test_inventory_names_of_these_receivers(tmp_path):
    rows = inventory(tmp_path, SOURCE)
    expected = {(8, "torch.autograd.function.FunctionCtx.save_for_backward"),
                (23, "torch.utils.data.distributed.DistributedSampler.set_epoch"),
                (24, "torch.autograd.Function.apply"), (26, "torch.amp.GradScaler.scale"),
                (27, "torch.amp.GradScaler.update"), (30, "torch.nn.Module.to")}
    assert expected <= rows, sorted(expected - rows)
    assert not {(29, "torch.nn.Module.update"), (31, "torch.Tensor.split")} & rows   # project methods, a str
