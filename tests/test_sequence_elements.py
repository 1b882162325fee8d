"""Elements of sequences (lists and tuples of tensors a function, a module or a comprehension gives: iterated or
indexed), receivers that may be something other than a tensor (a join with a project object or a host array: no
tensor method guessed for them) and GradScalers of every backend. Each inference has cases that must give the kind
and cases that must not (``probe``: the receiver of the last ``.probe()``)."""
from __future__ import annotations

import pytest

from conftest import package_inventory
from test_inventory_names import inventory
from test_semantic_model import probe

TENSOR = ("tensor", None)
UNKNOWN = (None, None)
H = "import torch\nimport numpy as np\nfrom typing import List, Tuple\n"


@pytest.mark.parametrize("source, kind", [
    # a list built by ``append`` / ``extend`` / ``+=``, a comprehension, ``[t] * n``, in this function or returned
    (H + "def f(xs):\n    out = []\n    for x in xs:\n        out.append(torch.relu(x))\n    for o in out:\n"
     "        o.probe()\n", TENSOR),
    (H + "def g(xs):\n    out = []\n    for x in xs:\n        out.append(torch.relu(x))\n    return out\n"
     "def f(xs):\n    for o in g(xs):\n        o.probe()\n", TENSOR),
    (H + "def f(xs):\n    out = [torch.relu(x) for x in xs]\n    out[0].probe()\n", TENSOR),
    (H + "def f(xs):\n    out = [torch.zeros(1)]\n    out += [torch.ones(1)]\n    out.extend([torch.ones(2)])\n"
     "    out[-1].probe()\n", TENSOR),
    (H + "def f(bs):\n    out = [torch.zeros(0, 6)] * bs\n    for det in out:\n        det.probe()\n", TENSOR),
    (H + "def f(n):\n    out = [torch.zeros(0, 6)] * n\n    out[1] = torch.ones(1, 6)\n    for det in out:\n"
     "        det.probe()\n", TENSOR),
    (H + "class A:\n    def g(self, x):\n        return [torch.zeros(1) for _ in x]\n    def f(self, x):\n"
     "        ys = self.g(x)\n        for t in ys:\n            t.probe()\n", TENSOR),
    # declared: ``-> List[Tensor]``, ``-> Tuple[Tensor, ...]``, a parameter ``List[Tensor]``; a returned tuple
    (H + "def g(x) -> List[torch.Tensor]:\n    return x\ndef f(x):\n    g(x)[0].probe()\n", TENSOR),
    (H + "def g(x) -> Tuple[torch.Tensor, torch.Tensor]:\n    return x\ndef f(x):\n    g(x)[1].probe()\n", TENSOR),
    (H + "def f(xs: List[torch.Tensor]):\n    xs[0].probe()\n", TENSOR),
    (H + "def f(xs: Tuple[torch.Tensor, ...]):\n    for i in range(2):\n        xs[i].probe()\n", TENSOR),
    (H + "def g(x):\n    return torch.zeros(1), torch.ones(1)\ndef f(x):\n    y = g(x)\n    y[1].probe()\n", TENSOR),
    (H + "def f(x: torch.Tensor):\n    parts = list(x.split(2))\n    parts[0].probe()\n", TENSOR),
    (H + "def f(x):\n    parts = list(x.split(2))\n    parts[0].probe()\n", UNKNOWN),   # ``x`` may be a str
    (H + "import torch\nmasks = []\nfor i in range(3):\n    masks.append(torch.ones(3) > i)\nmasks[0].probe()\n",
     ("mask", None)),
    # must not: an element of unknown kind, of another kind, replaced by an unknown, no element, a slice, a dict
    (H + "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)\n    out[0].probe()\n", UNKNOWN),
    (H + "def f(xs):\n    out = []\n    out.append(torch.zeros(1))\n    out.append(np.zeros(1))\n    out[0].probe()\n",
     UNKNOWN),
    (H + "def f(n, xs):\n    out = [torch.zeros(1)] * n\n    out[0] = xs\n    out[1].probe()\n", UNKNOWN),
    (H + "def f(n):\n    out = [[] for _ in range(n)]\n    for i in range(n):\n        out[i] = torch.cat(out[i])\n"
     "    for o in out:\n        o.probe()\n", UNKNOWN),
    (H + "def f(xs):\n    out = [torch.zeros(1)]\n    out.extend(xs)\n    out[0].probe()\n", UNKNOWN),
    (H + "def f(xs):\n    out = []\n    out[0].probe()\n", UNKNOWN),
    (H + "def f(xs):\n    out = [torch.zeros(1) for _ in xs]\n    out[1:].probe()\n", UNKNOWN),
    (H + "def f(xs):\n    d = {'a': torch.zeros(1)}\n    d['a'].probe()\n", TENSOR),   # a dict's values agree
    (H + "def f(xs):\n    d = {'a': torch.zeros(1), 'n': len(xs)}\n    d['a'].probe()\n", UNKNOWN),
    (H + "def f(xs):\n    names = ['a', 'b']\n    names[0].probe()\n", ("object", "builtins.str")),   # an element of a list of strings
    (H + "def g(x):\n    return torch.zeros(1), 3\ndef f(x):\n    y = g(x)\n    y[1].probe()\n", UNKNOWN),
    (H + "def f(xs, c):\n    out = [torch.zeros(1)]\n    if c:\n        out = xs\n    out[0].probe()\n", UNKNOWN),
    (H + "def f(xs):\n    arr = [np.zeros(1) for _ in xs]\n    arr[0].probe()\n", ("host", None)),
    # ``self.x`` holding a list a method builds; must not: another method binds it to an unknown
    (H + "class A:\n    def __init__(self):\n        self.anchors = self.make()\n    def make(self):\n"
     "        out = []\n        for i in range(3):\n            out.append(torch.zeros(i))\n        return out\n"
     "    def f(self, i):\n        self.anchors[i].probe()\n", TENSOR),
    (H + "class A:\n    def __init__(self):\n        self.anchors = [torch.zeros(1)]\n    def g(self, xs):\n"
     "        self.anchors = xs\n    def f(self):\n        for a in self.anchors:\n            a.probe()\n", UNKNOWN),
])
def test_sequence_elements(source, kind):
    assert probe(source) == kind


OTHERS = '''import torch
import numpy as np


class Boxes:
    def clamp_(self, low, high):
        return self


def joined(x, c):
    b = Boxes() if c else torch.zeros(1)
    b.clamp_(0, 1)
    if c:
        y = np.asarray(x)
    else:
        y = torch.as_tensor(x)
    y.clip(0, 1)
    y.permute(1, 0)
    z = [x] if c else torch.zeros(1)
    z.permute(1, 0)
    w = x
    w.permute(1, 0)


def make(c):
    if c:
        return Boxes()
    return torch.zeros(1)


class Holder:
    def __init__(self):
        self.b = Boxes()

    def reset(self):
        self.b = torch.zeros(1)

    def use(self):
        self.b.clamp_(0, 1)
        copy = self.b
        copy.clamp_(0, 1)
        make(True).clamp_(0, 1)
'''


def test_no_tensor_method_guessed_for_a_receiver_that_may_be_other(tmp_path):
    rows = inventory(tmp_path, OTHERS)
    # must not: a project object or a numpy array may reach the receiver (its own ``clamp_``, numpy's ``clip``)
    assert not {(12, "torch.Tensor.clamp_"), (17, "torch.Tensor.clip"), (39, "torch.Tensor.clamp_"),
                (41, "torch.Tensor.clamp_"), (42, "torch.Tensor.clamp_")} & rows, sorted(rows)
    # must: numpy has no ``permute``; a list has no tensor method; an unknown receiver as before
    assert {(18, "torch.Tensor.permute"), (20, "torch.Tensor.permute"), (22, "torch.Tensor.permute")} <= rows


@pytest.mark.parametrize("source, kind", [
    ("import torch\ns = torch.mlu.amp.GradScaler()\ns.probe()\n", ("scaler", "torch.mlu.amp.GradScaler")),
    ("import torch_xla.amp as xamp\ns = xamp.GradScaler()\ns.probe()\n", ("scaler", "torch_xla.amp.GradScaler")),
    ("from torch.distributed.fsdp.sharded_grad_scaler import ShardedGradScaler\ns = ShardedGradScaler()\ns.probe()\n",
     ("scaler", "torch.distributed.fsdp.sharded_grad_scaler.ShardedGradScaler")),
    ("import torch\ndef f(c):\n    if c:\n        return torch.xpu.amp.GradScaler()\n    return torch.amp.GradScaler()\n"
     "f(1).probe()\n", ("scaler", None)),
    ("import torch\ns = torch.amp.GradScaler()\ns.scale(1).probe()\n", TENSOR),
    # must not: another class of that name, a scaler's other methods
    ("import mylib.amp\ns = mylib.amp.GradScaler()\ns.probe()\n", UNKNOWN),
    ("import torch\ns = torch.amp.GradScaler()\ns.get_scale().probe()\n", UNKNOWN),
])
def test_grad_scalers(source, kind):
    assert probe(source) == kind


FACTORIES = '''import torch
from torch import optim


def build_optimizer(cfg, model):
    if cfg.name == "adam":
        optimizer = optim.Adam(model.parameters())
    elif cfg.name == "sgd":
        optimizer = optim.SGD(model.parameters())
    else:
        raise NotImplementedError(cfg.name)
    return optimizer


def make_scaler(amp):
    return torch.cuda.amp.GradScaler(enabled=amp)


class Heads(torch.nn.Module):
    def forward(self, x):
        outs = []
        for i in range(3):
            outs.append(x * i)
        return outs


def boxes(x):
    return [t[:, :4] for t in x.unbind(0)]
'''

TRAINER = '''import numpy as np
import torch
from .factories import build_optimizer, make_scaler, Heads, boxes


class Trainer:
    def __init__(self, cfg, model):
        self.optimizer = build_optimizer(cfg, model)
        self.scaler = make_scaler(cfg.amp)
        self.heads = Heads()

    def setup(self, amp):
        self.scaler2 = torch.cuda.amp.GradScaler(enabled=amp)

    def step(self, loss, x):
        self.scaler.scale(loss).backward()
        self.scaler2.step(self.optimizer)
        self.optimizer.zero_grad()
        for out in self.heads(x):
            out.clamp_(0, 1)
        for det in boxes(x):
            det.clamp_(0, 1)
        first = boxes(x)[0]
        first.clamp_(0, 1)


def per_class(pred_cls, target_cls):
    classes, counts = np.unique(target_cls, return_counts=True)
    for c in classes:
        hits = pred_cls == c
        hits.sum()
'''


def test_factories_and_sequences_across_modules(tmp_path):
    inventory = package_inventory(tmp_path, {"factories": FACTORIES, "train": TRAINER})
    rows = {(line, api) for path, line, api in inventory if path == "pkg/train.py"}
    expected = {(16, "torch.cuda.amp.GradScaler.scale"), (16, "torch.Tensor.backward"),
                (17, "torch.cuda.amp.GradScaler.step"), (18, "torch.optim.Optimizer.zero_grad"),
                (20, "torch.Tensor.clamp_"), (22, "torch.Tensor.clamp_"), (24, "torch.Tensor.clamp_")}
    assert expected <= rows, sorted(expected - rows)
    # must not: numpy's ``unique`` unpacked (the project index knows no such function): host arrays
    assert not [row for row in rows if row[0] == 31], sorted(rows)


@pytest.mark.parametrize("source, kind", [
    # calling a module: a tensor, unless its project class returns something else from ``forward`` / ``__call__``
    (H + "class Plain(torch.nn.Module):\n    def forward(self, x):\n        return x.flatten(1)\n"
     "m = Plain()\nm(1).probe()\n", TENSOR),
    (H + "class R:\n    pass\nclass Head(torch.nn.Module):\n    def forward(self, x):\n        return R()\n"
     "m = Head()\nm(1).probe()\n", ("object", "R")),
    (H + "class M(torch.nn.Module):\n    def __call__(self, x):\n        return x.run()\nm = M()\nm(1).probe()\n",
     UNKNOWN),
    (H + "class R:\n    pass\nclass Many(torch.nn.Module):\n    def forward(self, x):\n        return [R() for _ in x]\n"
     "m = Many()\nfor r in m(1):\n    r.probe()\n", ("object", "R")),
    (H + "class Heads(torch.nn.Module):\n    def forward(self, x):\n        return [x.flatten(1) for _ in x]\n"
     "m = Heads()\nfor t in m(1):\n    t.probe()\n", TENSOR),
    (H + "m = torch.nn.Linear(2, 2)\nm(1).probe()\n", TENSOR),
    # the parameters and buffers of torch's layers; must not: a module of unknown class, a project module
    (H + "fc = torch.nn.Linear(2, 2)\nfc.weight.probe()\n", TENSOR),
    (H + "bn = torch.nn.BatchNorm2d(2)\nbn.running_var.probe()\n", TENSOR),
    (H + "def f(m: torch.nn.Module):\n    m.weight.probe()\n", UNKNOWN),
    (H + "class Net(torch.nn.Module):\n    pass\nn = Net()\nn.weight.probe()\n", UNKNOWN),
])
def test_module_calls_and_layer_parameters(source, kind):
    assert probe(source) == kind


BASE = "class Base:\n    def __init__(self):\n        self.iouv = None\n    def match(self):\n        self.iouv.probe()\n"


@pytest.mark.parametrize("source, kind", [
    # ``self.x = None`` in a base class, the same kind in every subclass that assigns it: a base method's ``self.x``
    ("import torch\n" + BASE + "class Det(Base):\n    def __init__(self):\n        super().__init__()\n"
     "        self.iouv = torch.linspace(0.5, 0.95, 10)\n", TENSOR),
    # must not: subclasses that disagree, no subclass, the base's own assignment says it
    ("import torch\n" + BASE + "class Det(Base):\n    def __init__(self):\n        self.iouv = torch.zeros(1)\n"
     "class Seg(Base):\n    def __init__(self):\n        self.iouv = [1]\n", UNKNOWN),
    ("import torch\n" + BASE, UNKNOWN),
    ("import torch\nclass Base:\n    def __init__(self):\n        self.iouv = torch.zeros(1)\n    def match(self):\n"
     "        self.iouv.probe()\nclass Det(Base):\n    def __init__(self):\n        self.iouv = {}\n", TENSOR),
])
def test_attributes_subclasses_assign(source, kind):
    assert probe(source) == kind
