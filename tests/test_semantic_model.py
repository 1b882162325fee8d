"""The semantic model: Python's scopes, value kinds and the file's own function summaries.

Each case is a small program whose ``probe(x)`` call (or ``x.probe()``) asks the model what ``x`` is where it
stands; every inference has cases that must give the kind and cases that must not.
"""
from __future__ import annotations

import ast
from typing import Optional

import pytest

from conftest import flows
from npu_lint.context import FileContext
from npu_lint.core import Dispatch, _walk, analyse_source
from npu_lint.rules import ApiRef, Rule
from npu_lint.versions import Target


def probe(source: str) -> tuple[Optional[str], Optional[str]]:
    """(kind, class) of the receiver of the last ``.probe()`` call in ``source``."""
    seen: list[tuple[Optional[str], Optional[str]]] = []

    class Spy(Rule):
        code, node_types = "NPU998", (ast.Call,)

        def check(self, node, ctx):
            if isinstance(node.func, ast.Attribute) and node.func.attr == "probe":
                seen.append((ctx.resolver.kind_of(node.func.value), ctx.resolver.class_of(node.func.value)))

    ctx = FileContext(source, Target("2.8.0"))
    _walk(ast.parse(source), ctx, Dispatch([Spy]))
    assert seen, "no probe() call"
    return seen[-1]


def qualnames(source: str) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []

    class Spy(Rule):
        code, node_types = "NPU999", (ApiRef,)

        def check(self, ref, ctx):
            found.append((ref.node.lineno, ref.qualname))

    ctx = FileContext(source, Target("2.8.0"))
    _walk(ast.parse(source), ctx, Dispatch([Spy]))
    return found


# -- scopes -----------------------------------------------------------------------------------------
def test_module_import_after_the_function_that_uses_it():
    source = "def f(x):\n    return cuda_ext.nms(x)\n\nimport my_pkg.cuda_ext as cuda_ext\n"
    assert (2, "my_pkg.cuda_ext.nms") in qualnames(source)


def test_late_import_is_not_visible_before_it_at_module_level():
    assert qualnames("y = np.zeros(3)\nimport numpy as np\n") == [(2, "numpy")] or \
        (1, "numpy.zeros") not in qualnames("y = np.zeros(3)\nimport numpy as np\n")


def test_class_body_does_not_leak_into_methods():
    source = ("import torch\nclass M:\n    x = torch.zeros(3)\n    def f(self):\n        x.probe()\n")
    assert probe(source) == (None, None)


def test_local_shadows_module_import():
    source = "import torch\ndef f(torch):\n    return torch.cuda.synchronize()\n"
    assert not any(name.startswith("torch.cuda") for _, name in qualnames(source))


def test_global_and_nonlocal():
    source = ("import torch\nbuf = None\ndef init():\n    global buf\n    buf = torch.zeros(3)\n"
              "def use():\n    buf.probe()\n")
    assert probe(source)[0] == "tensor"
    source = ("import torch\ndef outer():\n    m = None\n    def inner():\n        nonlocal m\n"
              "        m = torch.ones(2) > 0\n    m.probe()\n")
    assert probe(source)[0] == "mask"


def test_del_unbinds():
    source = "import torch\nx = torch.zeros(3)\ndel x\nx.probe()\n"
    assert probe(source) == (None, None)


def test_import_error_fallback_keeps_the_import():
    source = ("try:\n    from apex import amp\nexcept ImportError:\n    amp = None\n"
              "def f(m, o):\n    return amp.initialize(m, o)\n")
    assert (6, "apex.amp.initialize") in qualnames(source)


def test_type_checking_imports():
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from torch import Tensor\n"
              "def f(x: 'Tensor'):\n    x.probe()\n")
    assert probe(source)[0] == "tensor"


def test_comprehension_variable_does_not_leak():
    source = "import torch\nx = torch.zeros(3)\nys = [x for x in range(3)]\nx.probe()\n"
    assert probe(source)[0] == "tensor"
    source = "import torch\nmasks = [torch.zeros(3) > 0 for _ in range(2)]\nys = [m.probe() for m in names]\n"
    assert probe(source) == (None, None)


def test_comprehension_reads_the_enclosing_function_where_it_stands():
    source = ("import torch\nimport numpy as np\ndef f(r):\n    x = torch.zeros(3)\n    ys = [x.probe() for _ in r]\n"
              "    x = np.zeros(3)\n    return ys\n")
    assert probe(source)[0] == "tensor"
    source = "import torch\ndef f(r):\n    ys = [x.probe() for _ in r]\n    x = torch.zeros(3)\n"
    assert probe(source)[0] == "tensor"   # before every binding: loop-carried, as for the function's own uses


# -- value kinds ------------------------------------------------------------------------------------
@pytest.mark.parametrize("source, kind", [
    ("import torch\nm = torch.zeros(3, dtype=torch.bool)\nm.probe()\n", "mask"),
    ("import torch\nm = torch.zeros(3, dtype=torch.float32)\nm.probe()\n", "tensor"),
    ("import torch\nm = torch.ones(3) > 0\nz = torch.zeros_like(m)\nz.probe()\n", "mask"),
    ("import torch\nm = torch.ones(3) > 0\nz = torch.zeros_like(m, dtype=torch.float)\nz.probe()\n", "tensor"),
    ("import torch\na = torch.ones(3) > 0\nb = torch.ones(3) < 2\nm = ~a & b\nm.probe()\n", "mask"),
    ("import torch\nx = torch.ones(3)\nm = x.bool()\nm.probe()\n", "mask"),
    ("import torch\nx = torch.ones(3)\nm = x.isnan().logical_not()\nm.probe()\n", "mask"),
    ("import torch\nx = torch.ones(3)\nm = x.to(torch.bool)\nm.probe()\n", "mask"),
    ("import torch\nm = torch.ones(3) > 0\nf = m.float()\nf.probe()\n", "tensor"),
    # a mask cast to numbers is numbers (``(seq == tok).to(torch.int32)``, then written through another mask);
    # moved to a device, or cast to ``uint8`` (still indexes as a mask), it stays a mask
    ("import torch\ndef f(seq):\n    t = (seq == 3).to(torch.int32)\n    t.probe()\n", "tensor"),
    ("import torch\ndef f(seq):\n    t = (seq == 3).to(dtype=torch.int64)\n    t.probe()\n", "tensor"),
    ("import torch\ndef f(seq, dev):\n    t = (seq == 3).to(dev, dtype=torch.float)\n    t.probe()\n", "tensor"),
    ("import torch\ndef f(seq):\n    t = (seq == 3).type(torch.cuda.FloatTensor)\n    t.probe()\n", "tensor"),
    ("import torch\ndef f(seq, dev):\n    t = (seq == 3).to(dev)\n    t.probe()\n", "mask"),
    ("import torch\ndef f(seq):\n    t = (seq == 3).to(torch.uint8)\n    t.probe()\n", "mask"),
    # the pieces of a host tensor stay on the host (``scores.detach().cpu().unbind()``, then ``scores[i]``)
    ("import torch\ndef f(x: torch.Tensor):\n    parts = x.detach().cpu().unbind()\n    parts[0].probe()\n", "host"),
    ("import torch\ndef f(x: torch.Tensor):\n    for p in x.cpu().split(2):\n        p.probe()\n", "host"),
    ("import torch\ndef f(x: torch.Tensor):\n    parts = x.unbind()\n    parts[0].probe()\n", "tensor"),
    # torch's ``(dim, index)`` signature given a tensor index: the receiver (of unknown kind) was a tensor
    ("import torch\ndef f(state, off: torch.Tensor):\n    out = state.cache.gather(dim=2, index=off[:, None])\n"
     "    out.probe()\n", "tensor"),
    ("import torch\ndef f(m: torch.BoolTensor):\n    m.probe()\n", "mask"),
    ("import numpy as np\na = np.zeros(3)\nm = a > 0\nm.probe()\n", "host"),
    ("import numpy as np\nimport torch\nx = torch.ones(3)\na = x.cpu().numpy()\na.probe()\n", "host"),
    ("import torch\nx = torch.ones(3)\nv = x.tolist()\nv.probe()\n", "list"),
    ("import torch\ndef f(pred):\n    boxes = pred['bboxes'].cpu()\n    boxes.probe()\n", "host"),
    ("xs = [1, 2]\nxs.probe()\n", "list"),
    ("import torch\nx = torch.ones(3, 4)\nm = (x > 0).all(1)\nm.probe()\n", "mask"),
    ("import torch\nimport pandas as pd\ndef f(df):\n    m = df.kind == 'car'\n    m.probe()\n", "host"),
    ("import torch.nn as nn\nclass Net(nn.Module):\n    pass\nmodel = Net()\nmodel.probe()\n", "module"),
    ("import torch.nn as nn\nclass Base(nn.Module):\n    pass\nclass Net(Base):\n    pass\nm = Net().to('npu')\n"
     "m.probe()\n", "module"),
    ("import torch\nopt = torch.optim.Adam(params, lr=1e-3)\nopt.probe()\n", "optimizer"),
    ("import torch\nsched = torch.optim.lr_scheduler.StepLR(opt, 10)\nsched.probe()\n", "scheduler"),
    ("import torch\nscaler = torch.cuda.amp.GradScaler()\nscaler.probe()\n", "scaler"),
    ("from torch.utils.data import DataLoader\nloader = DataLoader(ds)\nloader.probe()\n", "loader"),
    ("from torch.utils.data import DataLoader\nfor images, labels in DataLoader(ds):\n    labels.probe()\n", "batch"),
    ("import torch\ndevice = torch.device('npu')\ndevice.probe()\n", "device"),
    ("import torch.nn as nn\nclass M(nn.Module):\n    def __init__(self):\n        self.fc = nn.Linear(2, 2)\n"
     "    def forward(self, x):\n        y = self.fc(x)\n        y.probe()\n", "tensor"),
    ("import torch\nclass M:\n    def reset(self):\n        self.valid = torch.ones(3) > 0\n"
     "    def forward(self, x):\n        self.valid.probe()\n", "mask"),
    ("import torch\ndef make(x):\n    return x > 0\ndef f(t: torch.Tensor):\n    m = make(t)\n    m.probe()\n", "mask"),
    ("import torch\ndef split(x: torch.Tensor):\n    return x[:1], x > 0\na, b = split(t)\nb.probe()\n", "mask"),
    ("import torch\nx = torch.ones(4)\nvalues, index = x.topk(2)\nindex.probe()\n", "tensor"),
    ("import torch\ndef f(labels):\n    m = labels.eq(labels.t())\n    m.probe()\n", "mask"),   # as ``==`` does
    ("import torch\ndef f(ids, pad):\n    m = ids.ne(pad)\n    m.probe()\n", "mask"),
    ("import torch\nimport torch.nn as nn\nmodel = nn.Linear(2, 2)\nfor p in model.parameters():\n    p.probe()\n",
     "tensor"),
    ("import torch\ndef f(x: 'torch.Tensor | None'):\n    x.probe()\n", "tensor"),
    # a transposed mask, the rows of one unpacked, and a stack of masks are masks; a stack with a float is not
    ("import torch\ndef f(g: torch.Tensor):\n    m = (g > 1).T\n    m.probe()\n", "mask"),
    ("import torch\ndef f(g: torch.Tensor):\n    j, k = ((g % 1 < 0.5) & (g > 1)).T\n    k.probe()\n", "mask"),
    ("import torch\ndef f(g: torch.Tensor):\n    j, k = (g > 1).T\n    m = torch.stack((torch.ones_like(j), j, k))\n"
     "    m.probe()\n", "mask"),
    ("import torch\ndef f(g: torch.Tensor):\n    j = g > 1\n    m = torch.stack((j.float(), j))\n    m.probe()\n", "tensor"),
    ("import torch\ndef f(g: torch.Tensor):\n    t = g.T\n    t.probe()\n", "tensor"),
    ("import torch\nclass Trainer:\n    def build(self, p):\n        if self.sgd:\n            return torch.optim.SGD(p, 0.1)\n"
     "        return torch.optim.Adam(p)\n    def setup(self):\n        self.opt = self.build(self.params)\n"
     "    def step(self):\n        self.opt.probe()\n", "optimizer"),
    # whole-tensor reductions are 0-d tensors; ``x.type(dtype)`` casts; a compare with a ``float`` is still a mask
    ("import torch\ndef f(x: torch.Tensor):\n    x.max().probe()\n", "tensor"),
    ("import torch\ndef f(x: torch.Tensor):\n    x.type(torch.half).probe()\n", "tensor"),
    ("import torch\ndef f(s, t: float):\n    (s > t).probe()\n", "mask"),
    # a parameter its own function calls a tensor-only method on (no caller, no annotation)
    ("import torch\ndef f(lengths):\n    m = lengths.unsqueeze(1)\n    lengths.probe()\n", "tensor"),
    ("import torch\ndef f(x, pad):\n    y = x.masked_fill(pad, 0)\n    x.probe()\n", "tensor"),
    # a parameter its own function uses as a boolean mask: masked_fill's mask, torch.where's condition, ``~m``,
    # ``m & (x > 0)``; unannotated or annotated ``Tensor``
    ("import torch\ndef f(x, pad):\n    y = x.masked_fill(pad, 0)\n    pad.probe()\n", "mask"),
    ("import torch\ndef f(x, keep):\n    y = torch.where(keep, x, 0)\n    keep.probe()\n", "mask"),
    ("import torch\ndef f(x, keep):\n    y = x.masked_fill(~keep, 0)\n    keep.probe()\n", "mask"),
    ("import torch\nfrom torch import Tensor\ndef f(x, m: Tensor):\n    y = m & (x > 0)\n    m.probe()\n", "mask"),
    # ``new_*`` factories with a bool dtype; an element of a name bound to a loop's tuple
    ("import torch\ndef f(x):\n    x.new_zeros(3, dtype=torch.bool).probe()\n", "mask"),
    ("import torch\ndef f(x: torch.Tensor, ys):\n    for i, item in enumerate(zip(x > 0, ys)):\n        m, y = item\n"
     "        m.probe()\n", "mask"),
    # a value of a mapping declared with its value type
    ("import torch\nfrom typing import Dict\ndef f(inputs: Dict[str, torch.Tensor]):\n    r = inputs['R']\n    r.probe()\n",
     "tensor"),
    ("import torch\nfrom typing import Mapping, Optional\ndef f(batch: Optional[Mapping[str, torch.Tensor]]):\n"
     "    batch['x'].probe()\n", "tensor"),
    # a value of a dict the function fills with tensors
    ("import torch\ndef f(batch):\n    out = {}\n    for k in batch[0]:\n        out[k] = torch.cat([d[k] for d in batch])\n"
     "    out['m'].probe()\n", "tensor"),
    # a parameter annotated ``Tensor`` that every caller of the file passes a mask is a mask
    ("import torch\nfrom torch import Tensor\ndef g(x: Tensor, m: Tensor):\n    m.probe()\n"
     "def f(x: Tensor):\n    return g(x, x > 0)\n", "mask"),
    ("import torch\nfrom torch import Tensor\ndef g(x: Tensor, m: Tensor):\n    m.probe()\n"
     "def f(x: Tensor):\n    return g(x, x > 0) + g(x, x * 2)\n", "tensor"),
    ("def f(n: int):\n    n.probe()\n", "object"),
    ("from typing import Optional\ndef f(x: Optional[int]):\n    x.probe()\n", "object"),
])

def test_kind(source, kind):
    assert probe(source)[0] == kind


@pytest.mark.parametrize("source", [
    "for step, (images, labels) in enumerate(train_loader):\n    images.probe()\n",   # a name is no evidence
    "def f(valid_mask):\n    valid_mask.probe()\n",
    "import torch\ndef f(x):\n    x.probe()\n",
    "import torch\nx = torch.ones(3)\nn = x.numel()\nn.probe()\n",
    "import torch\nx = torch.ones(3)\nx = 3\nx.probe()\n",
    "import torch\nm = torch.ones(3) > 0 if cond else np_mask\nm.probe()\n",
    "import torch\nfrom mylib import build\nm = build()\nm.probe()\n",
    "import torch\nimport pandas as pd\ndef f(df):\n    m = df.eq(3)\n    m.probe()\n",   # a Series has eq too
    # Python bools: compares of sizes, lengths and ``int``s; ``torch.is_*``; bare ``x.type()`` (a string); max by dim
    "import torch\ndef f(p: torch.Tensor, n: int):\n    (p.shape[0] == n).probe()\n",
    "from typing import Sequence\ndef f(ends: Sequence[int], dims: Sequence[int]):\n"
    "    for e, d in zip(ends, dims):\n        (e == (d - 1)).probe()\n",
    "def f(words, start, n):\n    (len(words) == start + n).probe()\n",
    "import torch\ndef f(x: torch.Tensor):\n    x.size(0).probe()\n    (x.size(0) > 3).probe()\n",
    "import torch\ntorch.is_autocast_enabled().probe()\n",
    "import torch\ndef f(x: torch.Tensor):\n    x.type().probe()\n",
    "import torch\ndef f(x: torch.Tensor):\n    x.max(dim=1).probe()\n",
    "import torch\ndef f(n: int):\n    (n == 0).probe()\n",
    # methods numpy shares (``max``, ``sum``, ``view``), a nested function's use, a name bound again
    "import torch\ndef f(a):\n    b = a.max() + a.sum() + a.view(-1)\n    a.probe()\n",
    "import torch\ndef f(a):\n    def g(a):\n        return a.unsqueeze(0)\n    a.probe()\n",
    "import torch\nfrom typing import Any, Dict\ndef f(inputs: Dict[str, Any]):\n    inputs['R'].probe()\n",
    "import torch\ndef f(batch):\n    out = {}\n    out['a'] = torch.zeros(2)\n    out['n'] = len(batch)\n    out['m'].probe()\n",
    "import torch\ndef f():\n    out = {'x': torch.ones(1)}\n    for k in out:\n        k.probe()\n",
    # a dict whose values are read from itself: a cycle, unknown (and no RecursionError)
    "import torch\ndef f(keys):\n    d = {}\n    for a, b in keys:\n        d[a] = d[b]\n    d['x'].probe()\n",
    "import torch\nfrom typing import Dict\ndef f(inputs: Dict[str, torch.Tensor]):\n    for k in inputs:\n        k.probe()\n",
    "import torch\ndef f(a):\n    a.probe()\n    a = torch.ones(2)\n    a.unsqueeze(0)\n",
    # no mask use of its own: numpy's where, ``&`` of two unknowns, a use in a nested function, ``x.new_zeros(3)``
    "import torch\nimport numpy as np\ndef f(a, m):\n    b = np.where(m, a, 0)\n    m.probe()\n",
    "import torch\ndef f(a, m):\n    b = a & m\n    m.probe()\n",
    "import torch\ndef f(a, m):\n    def g():\n        return a.masked_fill(m, 0)\n    m.probe()\n",
    "import torch\ndef f(x, ys):\n    for item in zip(x, ys):\n        m, y = item\n        m.probe()\n",
    # a gather of unknown things (``dist.gather(t, gather_list)``, an index of unknown kind)
    "import torch\ndef f(comm, t, parts):\n    comm.gather(t, parts).probe()\n",
    "import torch\ndef f(state):\n    state.gather(2, [0, 1]).probe()\n",
])
def test_unknown_stays_unknown(source):
    assert probe(source)[0] is None


@pytest.mark.parametrize("source, cls", [
    ("import torch\nopt = torch.optim.Adam(params)\nopt.probe()\n", "torch.optim.Adam"),
    ("import torch.nn as nn\nclass Net(nn.Module):\n    pass\nm = Net()\nm.probe()\n", "Net"),
    ("import torch\nclass MyOpt(torch.optim.Optimizer):\n    pass\no = MyOpt(p)\no.probe()\n", "MyOpt"),
    ("import torch.nn as nn\nl = nn.Linear(2, 3)\nl.probe()\n", "torch.nn.Linear"),
    # the code returns one of two classes (a join that names none): the declared return class stands
    ("import torch\nclass A:\n    pass\nclass B(A):\n    pass\ndef make(c) -> A:\n    if c:\n        return A()\n"
     "    return B()\nv = make(1)\nv.probe()\n", "A"),
    # an element of ``nn.ModuleList(blocks)`` / ``nn.Sequential(*blocks)``: the blocks' class
    ("import torch.nn as nn\nclass Block(nn.Module):\n    pass\nclass Net(nn.Module):\n    def __init__(self):\n"
     "        self.convs = nn.ModuleList([Block() for _ in range(3)])\n    def forward(self, x):\n"
     "        for conv in self.convs:\n            conv.probe()\n", "Block"),
    ("import torch.nn as nn\nclass Block(nn.Module):\n    pass\nlayers = [Block(), Block()]\n"
     "for m in nn.Sequential(*layers):\n    m.probe()\n", "Block"),
])
def test_class_of_instances(source, cls):
    assert probe(source)[1] == cls


# -- rules asking the model ---------------------------------------------------------------------------
def _findings(source: str, release: str = "2.8.0", codes=None) -> list[tuple[str, int, int]]:
    return [(f.code, f.line, f.col) for f in analyse_source(source, Target(release), codes=codes)]


def test_optimizer_step_is_judged_by_the_optimizer_class():
    source = ("import torch\nimport torch.nn as nn\n\nclass Net(nn.Module):\n    pass\n\n"
              "def train(data):\n    model = Net()\n    opt = torch.optim.Adam(model.parameters())\n"
              "    for x in data:\n        opt.step()\n    model.share_memory()\n"
              "    sgd = torch.optim.SGD(model.parameters(), lr=0.1)\n    sgd.step()\n")
    found = _findings(source, codes=frozenset({"NPU101"}))
    assert ("NPU101", 11, 8) in found          # Adam.step: unsupported at 2.8.0 (official list)
    assert ("NPU101", 12, 4) in found          # nn.Module.share_memory on a project model
    assert not any(line == 14 for _, line, _ in found)   # SGD.step is supported


def test_cuda_grad_scaler_methods():
    source = ("import torch\nscaler = torch.cuda.amp.GradScaler()\n\ndef step(loss, opt):\n"
              "    scaler.scale(loss).backward()\n    scaler.step(opt)\n    scaler.update()\n"
              "x = torch.cuda.amp.GradScaler().scale(1.0)\n")
    found = [(line, col) for code, line, col in _findings(source, codes=frozenset({"NPU212"}))]
    assert found == [(2, 9), (8, 4)]   # the constructors: the methods of a scaler built here are not repeated
    received = ("import torch\n\ndef step(loss, opt, scaler: torch.cuda.amp.GradScaler):\n"
                "    scaler.scale(loss).backward()\n    scaler.step(opt)\n")
    found = [(line, col) for code, line, col in _findings(received, codes=frozenset({"NPU212"}))]
    assert found == [(3, 28)]   # the annotation names the class: that is the line to change


def test_wrapper_call_sites_in_the_same_file_repeat_nothing():
    """A call of the file's own wrapper reaches the op (the chain ``positives → torch.nonzero``), which is reported
    where it stands: one finding per site. Calls from other modules name the chain (test_project_model)."""
    source = ("import torch\n\ndef positives(labels):\n    inds = torch.nonzero(labels > 0)\n    return inds\n\n"
              "def count(labels):\n    return torch.nonzero(labels).numel()\n\n"
              "pos = positives(gt)\nn = count(gt)\n")
    findings = [f for f in analyse_source(source, Target("2.8.0"), codes=frozenset({"NPU401"}))]
    assert [(f.line, f.col) for f in findings] == [(4, 11), (8, 11)]


def test_late_bound_extension_and_registered_namespace():
    source = ("import torch\n\ndef nms(boxes, scores):\n    return _C.nms_rotated(boxes, scores)\n\n"
              "def nms2(boxes, scores):\n    return torch.ops.detectron2.nms_rotated(boxes, scores)\n\n"
              "def nms3(boxes, scores):\n    return torch.ops.torchvision.nms(boxes, scores, 0.5)\n\n"
              "from detectron2 import _C\n")
    from npu_lint.report.cuda_ops import operator_names, registered_ops
    ops = operator_names(registered_ops('TORCH_LIBRARY(detectron2, m) {\n  m.def("nms_rotated(Tensor a) -> Tensor");\n}\n'))
    ctx = FileContext(source, Target("2.8.0"))
    ctx.custom_ops = ops
    from npu_lint.core import analyse_tree
    found = [(f.line, f.col, f.api) for f in analyse_tree(ast.parse(source), source, Target("2.8.0"),
                                                          frozenset({"NPU223"}), ctx=ctx)]
    assert found == [(4, 11, "detectron2._C.nms_rotated"), (7, 11, "torch.ops.detectron2.nms_rotated")]


def test_registered_ops_read_the_namespace_and_impl_blocks():
    from npu_lint.report.cuda_ops import registered_ops
    text = ('TORCH_LIBRARY(myops, m) {\n  m.def("fused(Tensor x) -> Tensor");\n}\n'
            'TORCH_LIBRARY_IMPL(myops, CUDA, m) {\n  m.impl("fused", &fused_cuda);\n}\n'
            'PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def("legacy", &legacy);\n}\n')
    assert registered_ops(text) == [("myops", "fused"), ("", "legacy")]


def test_alternative_arms_all_reach_a_use():
    source = ("import torch\n\ndef stream(is_cuda, is_npu):\n    mod = None\n    if is_cuda:\n        mod = torch.cuda\n"
              "    elif is_npu:\n        mod = torch.cpu\n    return mod.current_stream()\n")
    assert (9, "torch.cuda.current_stream") in qualnames(source)
    assert (9, "torch.cpu.current_stream") in qualnames(source)
    # a later unconditional binding hides the earlier ones
    source = "import torch\nif c:\n    mod = torch.cuda\nmod = torch.cpu\nmod.synchronize()\n"
    assert [name for line, name in qualnames(source) if line == 5] == ["torch.cpu.synchronize"]


def test_bool_of_anything_is_a_mask():
    assert probe("def f(m):\n    m = m.bool()\n    m.probe()\n")[0] == "mask"
    assert probe("import pandas as pd\ndef f(df):\n    m = df.a.eq(1)\n    m.probe()\n")[0] is None


def test_methods_are_named_by_the_torch_class_unless_the_project_overrides_them():
    source = ("import torch\n\nclass MyAdam(torch.optim.Adam):\n    pass\n\n"
              "class Lookahead(torch.optim.Adam):\n    def step(self):\n        return None\n\n"
              "a = MyAdam(params)\na.step()\nb = Lookahead(params)\nb.step()\n")
    assert [(line, col) for _, line, col in _findings(source, codes=frozenset({"NPU101"}))] == [(11, 0)]


@pytest.mark.parametrize("source, kind", [
    ("import torch\ndef train(loader):\n    for x in loader:\n        x.probe()\n"
     "from torch.utils.data import DataLoader\ntrain(DataLoader(ds))\n", "batch"),
    ("import torch\nimport torch.nn as nn\nclass Head(nn.Module):\n    def forward(self, feats, mask):\n"
     "        mask.probe()\nclass Net(nn.Module):\n    def __init__(self):\n        self.head = Head()\n"
     "    def forward(self, x):\n        m = x > 0\n        out = self.head(x, m)\n        return out\n", "mask"),
    ("import torch\nclass Loss:\n    def _masked(self, pred, valid):\n        valid.probe()\n"
     "    def __call__(self, pred: torch.Tensor):\n        v = pred.isfinite()\n        return self._masked(pred, v)\n",
     "mask"),
])
def test_parameters_from_the_files_own_calls(source, kind):
    assert probe(source)[0] == kind


def test_parameters_stay_unknown_without_callers_that_show_them():
    assert probe("import torch\ndef f(mask):\n    mask.probe()\nf(get_mask())\n")[0] is None


def test_wrappers_returning_numbers_are_not_data_dependent():
    source = ("import torch\n\ndef stages(widths):\n    n, m = len(torch.unique(widths)), 3\n"
              "    return widths.tolist(), n\n\nw, n = stages(x)\n")
    assert [(line, col) for _, line, col in _findings(source, codes=frozenset({"NPU401"}))] == [(4, 15)]


def test_a_value_built_in_alternative_arms_keeps_only_what_they_share():
    source = ("import torch\ndef build(name, p):\n    if name == 'sgd':\n        opt = torch.optim.SGD(p, 0.1)\n"
              "    elif name == 'adam':\n        opt = torch.optim.Adam(p)\n    return opt\no = build(n, ps)\no.probe()\n")
    assert probe(source) == ("optimizer", None)


def test_unpacking_what_the_class_own_method_returns():
    source = ("import torch\nclass Assigner:\n    def info(self, priors: torch.Tensor):\n"
              "        inside = priors[:, 0] > 0\n        return inside | (priors[:, 1] > 0), inside\n"
              "    def assign(self, priors):\n        valid, inside = self.info(priors)\n        valid.probe()\n")
    assert probe(source)[0] == "mask"


def test_early_return_none_does_not_hide_what_a_function_returns():
    source = ("import torch\ndef valid(x: torch.Tensor):\n    if x is None:\n        return None\n    return x > 0\n"
              "m = valid(t)\nm.probe()\n")
    assert probe(source)[0] == "mask"


# -- data flow: the may-query over reaching bindings ------------------------------------------------


def reaching(source: str) -> list[int]:
    """The lines of the bindings of ``x`` that may reach the last ``probe(x)``."""
    found: list[list[int]] = []

    class Spy(Rule):
        code, node_types = "NPU995", (ast.Call,)

        def check(self, node, ctx):
            if isinstance(node.func, ast.Name) and node.func.id == "probe":
                name = node.args[0]
                found.append(sorted(b.pos[0] for b in ctx.resolver.scopes.may_reach(
                    name.id, ctx.resolver.current, (name.lineno, name.col_offset))))

    ctx = FileContext(source, Target("2.8.0"))
    _walk(ast.parse(source), ctx, Dispatch([Spy]))
    return found[-1]


@pytest.mark.parametrize("source, lines", [
    # both arms of an if/else; an if without else keeps the earlier binding
    ("def f(c):\n    if c:\n        x = 1\n    else:\n        x = 2\n    probe(x)\n", [3, 5]),
    ("def f(c):\n    x = 1\n    if c:\n        x = 2\n    probe(x)\n", [2, 4]),
    ("def f(c, d):\n    if c:\n        x = 1\n        if d:\n            x = 3\n    else:\n        x = 2\n    probe(x)\n",
     [3, 5, 7]),
    # an unconditional binding hides what came before it
    ("def f(c):\n    x = 1\n    if c:\n        x = 2\n    x = 3\n    probe(x)\n", [5]),
    # inside the arm that binds it, only that arm's binding
    ("def f(c):\n    x = 1\n    if c:\n        x = 2\n        probe(x)\n", [4]),
    # loop-carried: a later binding in the loop body reaches the next iteration
    ("def f(n):\n    x = 0\n    for i in range(n):\n        probe(x)\n        x = i\n", [2, 5]),
    ("def f(n):\n    for i in range(n):\n        x = i\n        probe(x)\n        x = 2\n", [3]),
    # ``+=`` adds to what reaches
    ("def f(ts):\n    x = 0\n    for t in ts:\n        x += t\n    probe(x)\n", [2, 4]),
    # another arm of the same if/elif chain never reaches the use, unless a loop holding the use holds both
    ("def f(a, b):\n    x = 0\n    if a:\n        x = 1\n    elif b:\n        probe(x)\n", [2]),
    ("def f(a):\n    x = 0\n    if a:\n        x = 1\n    else:\n        probe(x)\n", [2]),
    ("def f(a, n):\n    x = 0\n    for i in range(n):\n        if a:\n            x = 1\n        else:\n"
     "            probe(x)\n", [2, 5]),
    ("def f(a, n):\n    for i in range(n):\n        x = 0\n        if a:\n            x = 1\n        else:\n"
     "            probe(x)\n", [3]),
])
def test_bindings_that_may_reach_a_use(source, lines):
    assert reaching(source) == lines


@pytest.mark.parametrize("source, flavour, origin", [
    ("import torch\ndef f(t: torch.Tensor):\n    n = t.item()\n    probe(n)\n", "host", "t.item()"),
    ("import torch\ndef f(t):\n    n = int(t.sum())\n    probe(n)\n", "host", "int(t.sum())"),
    ("import torch\ndef f(m: torch.Tensor):\n    n = m.sum()\n    probe(n)\n", "zero_d", "m.sum()"),
    ("import torch\ndef f(m: torch.Tensor):\n    probe(torch.sum(m))\n", "zero_d", "torch.sum(m)"),
    ("import torch\ndef f(m: torch.Tensor):\n    n = (m > 0).sum()\n    k = min(n, 8)\n    probe(k)\n",
     "zero_d", "(m > 0).sum()"),
    ("import torch\ndef f(m: torch.Tensor, p):\n    n = m.sum() * p\n    probe(n + 1)\n", "zero_d", "m.sum()"),
    ("import torch\ndef f(m: torch.Tensor, p):\n    n = m.sum() * p\n    probe(int(n))\n", "host", "int(n)"),
    # through arithmetic, round(), tuple unpacking, comprehensions
    ("import torch\ndef f(t: torch.Tensor):\n    h, w = t.tolist()\n    probe(round(w / 2) + 1)\n", "host", "t.tolist()"),
    ("import torch\ndef f(t: torch.Tensor):\n    a, b = t.min().item(), 3\n    probe(a)\n", "host", "t.min().item()"),
    ("import torch\ndef f(t: torch.Tensor):\n    sizes = [int(v) for v in t]\n    probe(sizes)\n", "host", "int(v)"),
    ("import torch\ndef f(t: torch.Tensor):\n    sizes = [v for v in t]\n    probe(sizes)\n", "element", "t"),
    # iterating a tensor, or a list read from one
    ("import torch\ndef f(counts: torch.Tensor):\n    for n in counts:\n        probe(n)\n", "element", "counts"),
    ("import torch\ndef f(a: torch.Tensor, b: torch.Tensor):\n    for i, (x, y) in enumerate(zip(a, b)):\n"
     "        probe(y)\n", "element", "b"),
    ("import torch\ndef f(c: torch.Tensor):\n    for n in c.tolist():\n        probe(n)\n", "host", "c.tolist()"),
    ("import torch\ndef f(c: torch.Tensor):\n    for i in range(3):\n        probe(c[i])\n", "element", "c[i]"),
    # an attribute bound in another method, before or after this one
    ("import torch\nclass H:\n    def use(self):\n        probe(self.k)\n    def set(self, t: torch.Tensor):\n"
     "        self.k = t.item()\n", "host", "t.item()"),
    # what the file's own functions and methods return, and pass to parameters
    ("import torch\ndef count(m: torch.Tensor):\n    return int(m.sum().item())\ndef f(m):\n    probe(count(m))\n",
     "host", "m.sum().item()"),
    ("import torch\nclass H:\n    def count(self, m):\n        return m.max().item(), 3\n    def f(self, m):\n"
     "        n, k = self.count(m)\n        probe(n)\n", "host", "m.max().item()"),
    ("import torch\ndef pad(x, n):\n    probe(n)\ndef run(x, t):\n    pad(x, t.item())\n", "host", "t.item()"),
    ("import torch\ndef twice(n):\n    return n * 2\ndef f(t):\n    b = twice(4)\n    a = twice(t.item())\n"
     "    probe(a)\n", "host", "t.item()"),
    ("import torch\nclass H:\n    @staticmethod\n    def pad(x, n):\n        probe(n)\n    def run(self, x, t):\n"
     "        self.pad(x, t.item())\n", "host", "t.item()"),
    # random draws and batch maxima
    ("import random\nimport torch\ndef f():\n    s = random.choice([320, 640])\n    probe(s)\n", "random",
     "random.choice([320, 640])"),
    ("import torch\ndef f(batch):\n    n = max(len(s) for s in batch)\n    probe(n)\n", "batch_max",
     "max((len(s) for s in batch))"),
])
def test_values_read_from_tensors_flow(source, flavour, origin):
    assert (flavour, origin) in flows(source)


@pytest.mark.parametrize("source", [
    "import torch\ndef f(t: torch.Tensor):\n    n = t.shape[0]\n    probe(n)\n",
    "import torch\ndef f(t: torch.Tensor):\n    n = len(t.tolist())\n    probe(n)\n",
    "import torch\ndef f(t: torch.Tensor):\n    n = t.item()\n    n = 4\n    probe(n)\n",
    # a tensor computed from a value is no size; a 0-d tensor mixed into tensor arithmetic neither
    "import torch\ndef f(x: torch.Tensor, t: torch.Tensor):\n    y = x * t.item()\n    probe(y)\n",
    "import torch\ndef f(x: torch.Tensor, m: torch.Tensor):\n    y = x * m.sum()\n    probe(y)\n",
    # the enumerate() counter, not the element
    "import torch\ndef f(t: torch.Tensor):\n    for i, v in enumerate(t):\n        probe(i)\n",
    # numpy's reductions; configuration put into a tensor
    "import numpy as np\nimport torch\ndef f(a):\n    n = int(np.max(a))\n    probe(n)\n",
    "import torch\ndef f(cfg):\n    d = torch.tensor(cfg.depths).cumsum(0).tolist()\n    probe(d)\n",
    "import torch\ndef f(x, cfg):\n    g = x.new_tensor(cfg.grids)\n    for i in range(3):\n        probe(g[i])\n",
    # a method of another class; a parameter nobody in the file passes a value to
    "import torch\nclass A:\n    def a(self, t):\n        self.k = t.item()\nclass B:\n    def b(self):\n"
    "        probe(self.k)\n",
    "import torch\ndef f(x, n):\n    probe(n)\n",
    # ... also through a closure that reads the enclosing function's parameter
    "import torch\ndef size_for(hw):\n    def scaled(r):\n        return hw[0] * r\n    return scaled(2)\n"
    "def f(t, img):\n    a = size_for(t.tolist())\n    b = size_for(img.shape)\n    probe(b)\n",
    # a function's summary is filled in per call: another call passing a tensor's value does not leak here
    "import torch\ndef twice(n):\n    return n * 2\ndef f(t):\n    a = twice(t.item())\n    b = twice(4)\n    probe(b)\n",
    "import random\nimport torch\ndef f():\n    random.seed(0)\n    s = 320\n    probe(s)\n",
])
def test_no_flow_without_a_value_read_from_a_tensor(source):
    assert flows(source) == []


def test_long_chains_of_bindings_and_calls_keep_the_stack_bounded():
    chain = "\n".join(f"    n{i} = n{i - 1} + 1" for i in range(1, 3000))
    source = f"import torch\ndef f(x, t):\n    n0 = t.item()\n{chain}\n    return x[:n2999]\n"
    analyse_source(source, codes=frozenset({"NPU403"}))   # no RecursionError
    calls = "\n".join(f"def f{i}(t):\n    return f{i + 1}(t) + 1" for i in range(400))
    source = f"import torch\n{calls}\ndef f400(t):\n    return t.item()\ndef g(x, t):\n    return x[:f0(t)]\n"
    analyse_source(source, codes=frozenset({"NPU403"}))
    near = "import torch\ndef f(x, t):\n    n0 = t.item()\n    n1 = n0 + 1\n    n2 = n1 * 2\n    return x[:n2]\n"
    assert [(f.line, f.code) for f in analyse_source(near, codes=frozenset({"NPU403"}))] == [(3, "NPU403"),
                                                                                             (6, "NPU403")]


# -- callables chosen at run time (issue 14) -----------------------------------------------------------
@pytest.mark.parametrize("source, kind", [
    ("import torch\nclass H(torch.nn.Module):\n    def __init__(self, cfg):\n"
     "        self.mask_fn = self._a if cfg else self._b\n    def _a(self, x):\n        return x > 0\n"
     "    def _b(self, x):\n        return torch.isnan(x)\n    def forward(self, x):\n        m = self.mask_fn(x)\n"
     "        m.probe()\n", "mask"),
    ("import torch\ndef f(x, mode):\n    fn = {'nan': torch.isnan, 'inf': torch.isinf}[mode]\n    m = fn(x)\n"
     "    m.probe()\n", "mask"),
    ("import torch\nclass S:\n    def _mask_thr(self, x):\n        return x > 0\n    def _mask_nan(self, x):\n"
     "        return torch.isnan(x)\n    def run(self, x, mode):\n        m = getattr(self, f'_mask_{mode}')(x)\n"
     "        m.probe()\n", "mask"),
    ("import torch\ndef f(x, strict):\n    fn = (lambda t: t > 0) if strict else torch.isfinite\n    m = fn(x)\n"
     "    m.probe()\n", "mask"),
    ("import torch\nimport functools\ndef thr(x, t):\n    return x > t\ndef f(x):\n"
     "    fn = functools.partial(thr, t=0.5)\n    m = fn(x)\n    m.probe()\n", "mask"),
    # a mask and a tensor among the candidates: a tensor
    ("import torch\nclass S:\n    def _a(self, x):\n        return x > 0\n    def _b(self, x):\n        return torch.relu(x)\n"
     "    def run(self, x, c):\n        fn = self._a if c else self._b\n        m = fn(x)\n        m.probe()\n", "tensor"),
])
def test_callables_chosen_at_run_time_join_their_candidates(source, kind):
    assert probe(source)[0] == kind


@pytest.mark.parametrize("source", [
    # a candidate the code does not show: unknown
    "import torch\nclass S:\n    def _a(self, x):\n        return x > 0\n    def run(self, x, other):\n"
    "        fn = self._a if other.c else other.fn\n        m = fn(x)\n        m.probe()\n",
    "import torch\ndef f(x, fn):\n    m = fn(x)\n    m.probe()\n",
    "import torch\ndef f(x, mode):\n    m = getattr(torch, mode)(x)\n    m.probe()\n",
    "import torch\ndef f(x, table, mode):\n    m = table[mode](x)\n    m.probe()\n",
])
def test_callables_with_an_unknown_candidate_stay_unknown(source):
    assert probe(source)[0] is None


def test_size_helpers_are_reported_at_the_call_that_reads_the_value():
    source = ("import torch\ndef pad(x, n):\n    return x.new_zeros(n, x.shape[1])\ndef outer(x, k):\n"
              "    return pad(x, k + 1)\ndef run(x, mask):\n    return outer(x, int(mask.sum()))\n")
    found = analyse_source(source, Target("2.8.0"), codes=frozenset({"NPU403"}))
    lines = sorted(f.line for f in found)
    assert lines == [3, 7]   # inside the helper, and at the call that reads the value (not at outer's own call)
    call = next(f for f in found if f.line == 7)
    assert "outer(int(mask.sum())) → pad(n) → .new_zeros()" in call.message


def test_mask_assignment_of_computed_rows_is_npu402_once():
    source = ("import torch\ndef f(x: torch.Tensor, y: torch.Tensor):\n    m = x > 0\n    x[m] = y[m] * 2\n"
              "    x[m] = torch.sigmoid(y)\n    x[m] = 0\n")
    found = sorted((f.code, f.line) for f in analyse_source(source, Target("2.8.0"),
                                                            codes=frozenset({"NPU402", "NPU303"})))
    # the read y[m] (not the write again), the computed rows, and NPU303's fill value naming the nonzero; the fill
    # on a device tensor (x: torch.Tensor) with a mask by kind is NPU402's too, its own message
    assert found == [("NPU303", 6), ("NPU402", 4), ("NPU402", 5), ("NPU402", 6)]
    assert "data-dependent nonzero" in next(f.message for f in analyse_source(source, Target("2.8.0"),
                                                                           codes=frozenset({"NPU303"})))


@pytest.mark.parametrize("source, kind", [
    ("import torch\ndef thr(x):\n    return x > 0\ndef f(x, mask_fn=thr):\n    m = mask_fn(x)\n    m.probe()\n", "mask"),
    # a caller passes another callable: the join (a tensor)
    ("import torch\ndef thr(x):\n    return x > 0\ndef f(x, mask_fn=thr):\n    m = mask_fn(x)\n    m.probe()\n"
     "y = f(a, torch.relu)\n", "tensor"),
    ("import torch\ndef f(x, mask_fn=None):\n    m = mask_fn(x)\n    m.probe()\n", None),
])
def test_parameters_with_a_default_callable(source, kind):
    assert probe(source)[0] == kind

# -- what annotations, isinstance tests and None arms say (issue 10: API inventory) ----------------------------------
_NT = "import torch as th\nfrom typing import NamedTuple, Optional, Tuple, Iterator\n"


@pytest.mark.parametrize("source, kind", [
    # fields of a project NamedTuple / dataclass annotated ``th.Tensor``
    (_NT + "class S(NamedTuple):\n    obs: th.Tensor\ndef f(s: S):\n    s.obs.probe()\n", ("tensor", None)),
    (_NT + "from dataclasses import dataclass\n@dataclass\nclass S:\n    obs: th.Tensor = None\n"
     "def f():\n    s = S()\n    s.obs.probe()\n", ("tensor", None)),
    # tuple-unpacked results of functions / methods annotated ``-> tuple[th.Tensor, th.Tensor]``
    (_NT + "def g(x) -> tuple[th.Tensor, th.Tensor]:\n    return x, x\ndef f(x):\n    a, b = g(x)\n    b.probe()\n",
     ("tensor", None)),
    (_NT + "class P:\n    def ev(self, x) -> Tuple[th.Tensor, Optional[th.Tensor]]:\n        return x, None\n"
     "def f(p: P, x):\n    v, lp = p.ev(x)\n    lp.probe()\n", ("tensor", None)),
    # ``isinstance`` narrowing: after an assert, in an ``if`` body, after ``if not ...: return``
    (_NT + "def f(x):\n    assert isinstance(x, th.Tensor)\n    x.probe()\n", ("tensor", None)),
    (_NT + "def f(x):\n    if isinstance(x, th.Tensor) and x.ndim:\n        x.probe()\n", ("tensor", None)),
    (_NT + "def f(x):\n    if not isinstance(x, th.Tensor):\n        return x\n    x.probe()\n", ("tensor", None)),
    # past ``if not (A and B): return`` both hold
    (_NT + "def f(x):\n    if not (isinstance(x, th.Tensor) and x.ndim):\n        return\n    x.probe()\n",
     ("tensor", None)),
    (_NT + "import numpy as np\ndef f(x: np.ndarray):\n    if isinstance(x, th.Tensor):\n        x.probe()\n",
     ("tensor", None)),
    # attributes declared in the class body or with ``self.x: T`` (a base class's), Optional and None arms
    (_NT + "class Base:\n    optimizer: th.optim.Optimizer\nclass T(Base):\n    def f(self):\n"
     "        self.optimizer.probe()\n", ("optimizer", "torch.optim.Optimizer")),
    (_NT + "class T:\n    def __init__(self):\n        self.opt: th.optim.Optimizer = th.optim.SGD([], 0.1)\n"
     "    def f(self):\n        self.opt.probe()\n", ("optimizer", "torch.optim.SGD")),
    (_NT + "class T:\n    def __init__(self):\n        self.s: Optional[th.cuda.amp.GradScaler] = None\n"
     "    def f(self):\n        self.s.probe()\n", ("scaler", "torch.cuda.amp.GradScaler")),
    (_NT + "class T:\n    def __init__(self, amp):\n        self.s = th.cuda.amp.GradScaler() if amp else None\n"
     "    def f(self):\n        self.s.probe()\n", ("scaler", "torch.cuda.amp.GradScaler")),
    (_NT + "def f(x: 'None | th.Tensor'):\n    x.probe()\n", ("tensor", None)),
    # loops and comprehensions over annotated containers and literal tuples; what a generator yields
    (_NT + "def f(xs: tuple[th.Tensor, ...], d):\n    [t.probe() for t in xs]\n", ("tensor", None)),
    (_NT + "from typing import List\ndef f(xs: List[th.Tensor], d):\n    for t in xs:\n        t.probe()\n",
     ("tensor", None)),
    (_NT + "def f(a: th.Tensor, b: th.Tensor):\n    for t in (a, b):\n        t.probe()\n", ("tensor", None)),
    (_NT + "class S(NamedTuple):\n    obs: th.Tensor\ndef gen() -> Iterator[S]:\n    yield S(None)\n"
     "def f():\n    for s in gen():\n        s.obs.probe()\n", ("tensor", None)),
    # a method only tensors have, chained: its result is a tensor whatever the receiver
    (_NT + "def f(x):\n    x.long().probe()\n", ("tensor", None)),
    # a project method annotated (or built) to return a numpy array
    (_NT + "import numpy as np\nclass P:\n    def proba(self, x) -> np.ndarray:\n        return self.run(x)\n"
     "def f(p: P, x):\n    p.proba(x).probe()\n", ("host", None)),
    (_NT + "import numpy as np\nclass P:\n    def proba(self, x):\n        return np.stack(x)\n"
     "def f(x):\n    P().proba(x).probe()\n", ("host", None)),
    # a value annotated with a class of another library: an instance of it, never a tensor
    ("import torch\nfrom PIL import Image\ndef f(im: Image.Image):\n    im.probe()\n", ("object", "PIL.Image.Image")),
])
def test_annotations_and_narrowing(source, kind):
    assert probe(source) == kind


@pytest.mark.parametrize("source", [
    # rebound after the test, or used outside the narrowed block, or a test that proves nothing
    _NT + "def f(x, g):\n    assert isinstance(x, th.Tensor)\n    x = g(x)\n    x.probe()\n",
    _NT + "def f(x):\n    if isinstance(x, th.Tensor):\n        pass\n    x.probe()\n",
    _NT + "def f(x, c):\n    if isinstance(x, th.Tensor) or c:\n        x.probe()\n",
    _NT + "import numpy as np\ndef f(x):\n    assert isinstance(x, (th.Tensor, np.ndarray))\n    x.probe()\n",
    _NT + "def f(x):\n    if not isinstance(x, th.Tensor):\n        print(x)\n    x.probe()\n",
    # annotations that do not agree on one kind
    _NT + "import numpy as np\nfrom typing import Union\ndef f(x: Union[th.Tensor, np.ndarray]):\n    x.probe()\n",
    _NT + "import numpy as np\ndef f(xs: tuple[th.Tensor, np.ndarray]):\n    for t in xs:\n        t.probe()\n",
    _NT + "from typing import Any\ndef f(x: Any):\n    x.probe()\n",
    # a field nothing declares: its name is no evidence
    _NT + "class S:\n    pass\ndef f(s: S):\n    s.obs.probe()\n",
    _NT + "class S(NamedTuple):\n    obs: th.Tensor\ndef f(s: S):\n    s.mask.probe()\n",
    # a method numpy arrays and tensors share, on a value of unknown kind
    _NT + "def f(x):\n    x.flatten().probe()\n",
    # a None arm with a value of unknown kind
    _NT + "def f(c, g):\n    s = g() if c else None\n    s.probe()\n",
])
def test_annotations_and_narrowing_must_not(source):
    assert probe(source)[0] is None


@pytest.mark.parametrize("source, kind", [
    (_NT + "def heads(x) -> Tuple[th.Tensor, th.Tensor]:\n    return x, x\ndef f(x, d):\n    outs = heads(x)\n"
     "    [t.probe() for t in outs]\n", ("tensor", None)),
    (_NT + "def heads(x: th.Tensor):\n    return x.flip(0), x.abs()\ndef f(x, d):\n    for t in heads(x):\n"
     "        t.probe()\n", ("tensor", None)),
    (_NT + "import numpy as np\ndef heads(x: th.Tensor):\n    return x, np.ones(1)\ndef f(x, d):\n    for t in heads(x):\n"
     "        t.probe()\n", (None, None)),
])
def test_iterating_what_a_function_returns(source, kind):
    assert probe(source) == kind


@pytest.mark.parametrize("source, kind", [
    (_NT + "def f(v):\n    return v.probe() if isinstance(v, th.Tensor) else v\n", ("tensor", None)),
    (_NT + "def f(d):\n    return {k: v.probe() if isinstance(v, th.Tensor) else v for k, v in d.items()}\n",
     ("tensor", None)),
    (_NT + "def f(v, log):\n    log(v.probe() if isinstance(v, th.Tensor) else float(v))\n", ("tensor", None)),
    # the other arm, and a test on another name, prove nothing
    (_NT + "def f(v):\n    return v if isinstance(v, th.Tensor) else v.probe()\n", (None, None)),
    (_NT + "def f(v, w):\n    return v.probe() if isinstance(w, th.Tensor) else v\n", (None, None)),
])
def test_conditional_expressions_narrow_their_body(source, kind):
    assert probe(source) == kind


@pytest.mark.parametrize("call", [
    "torch.stack([helper(x, n) for x in items])",     # inside a comprehension
    "out.append(helper(items[0], n))",                # an argument of another call
    "torch.cat([helper(items[0], n), items[1]])",     # inside a list
    "helper(items[0], n) if items else None",         # inside an expression
])
def test_a_parameter_takes_what_calls_inside_expressions_pass(call: str) -> None:
    """Summaries see every call of the file's function, not only statement-level ones (``y = f(x)``)."""
    source = ("import torch\ndef helper(x, size):\n    probe(size)\n"
              f"def caller(items, out):\n    n = int(items[0].sum())\n    {call}\n")
    assert ("host", "int(items[0].sum())") in flows(source)


@pytest.mark.parametrize("call", [
    "torch.stack([other(x, n) for x in items])",      # another function of the same name's length
    "torch.stack([obj.helper_two(x, n) for x in items])",
    "# helper(items[0], n) in a comment",
])
def test_calls_of_other_names_fill_no_parameter(call: str) -> None:
    source = ("import torch\ndef helper(x, size):\n    probe(size)\ndef other(x, size):\n    return x\n"
              f"def caller(items, out, obj):\n    n = int(items[0].sum())\n    {call}\n")
    assert flows(source) == []


@pytest.mark.parametrize("source, value", [
    # a product of two masks is a mask; a mask times a number is not
    ("import torch\ndef f(y: torch.Tensor, p: torch.Tensor):\n    ((y == p) * (y != -100)).probe()\n", ("mask", None)),
    ("import torch\ndef f(y: torch.Tensor):\n    ((y > 0) * 0.5).probe()\n", ("tensor", None)),
    # torch functions that return Python numbers, and a helper returning one or a constant
    ("import torch\nn = torch.distributed.get_world_size()\nn.probe()\n", ("object", "int")),
    ("import torch\ndef ws():\n    if torch.distributed.is_initialized():\n"
     "        return torch.distributed.get_world_size()\n    return 1\nws().probe()\n", ("object", "int")),
    ("import torch\ndef ws():\n    return torch.cuda.device_count() > 1\nws().probe()\n", (None, None)),
    # OpenCV returns numpy arrays
    ("import cv2\nimport torch\nim = cv2.imread('a.png')\nim.probe()\n", ("host", None)),
    # a helper returning a tensor or a constant: unknown (they disagree)
    ("import torch\ndef f(x: torch.Tensor):\n    if x is None:\n        return 0\n    return x * 2\nf(y).probe()\n",
     (None, None)),
])
def test_numbers_and_mask_products(source, value):
    assert probe(source) == value


def test_the_call_index_reads_match_statements_and_module_level_calls() -> None:
    """Calls on a ``match`` header, in a case and at module level are indexed without error (review findings)."""
    source = ("import torch\nclass Box:\n    def __init__(self, t):\n        self.t = t\n"
              "def pad_to(x, n):\n    return torch.cat([x, x.new_zeros(n - x.shape[0])])\n"
              "def f(b, items):\n    match Box(b):\n        case Box(t=t) if pad_to(t, 3) is not None:\n"
              "            m = max(len(x) for x in items)\n            return [pad_to(x, m) for x in items]\n"
              "y = pad_to(torch.zeros(3), 5)\n")
    found = analyse_source(source, Target("2.8.0"), codes=frozenset({"NPU405"}))
    assert [(f.line, f.code) for f in found] == [(10, "NPU405")]


@pytest.mark.parametrize("source, kind", [
    ("import torch\nm = torch.triu(torch.ones(4, 4, dtype=torch.bool), 1)\nm.probe()\n", "mask"),
    ("import torch\nm = torch.ones(4, 4, dtype=torch.bool).tril()\nm.probe()\n", "mask"),
    ("import torch\ndef f(x: torch.Tensor):\n    torch.triu(x * 2).probe()\n", "tensor"),
])
def test_triangles_keep_what_they_are_given(source, kind):
    assert probe(source)[0] == kind


def test_arithmetic_methods_numpy_lacks_give_a_tensor_unless_pandas_is_imported():
    """``norm(err / tol).abs()``: numpy arrays and Python's numbers have no ``abs`` / ``sqrt`` method; pandas does."""
    assert probe("def f(norm, x):\n    d = norm(x).abs()\n    d.probe()\n")[0] == "tensor"
    assert probe("def f(x):\n    d = x.pow(2).mean().sqrt()\n    d.probe()\n")[0] == "tensor"
    assert probe("import pandas as pd\ndef f(norm, x):\n    d = norm(x).abs()\n    d.probe()\n")[0] is None
    assert probe("def f(x):\n    d = x.abs(1, 2)\n    d.probe()\n")[0] is None


def test_reductions_given_torchs_dim_keyword_give_a_tensor():
    """``feats["mask"].sum(dim=-1)``: numpy and pandas spell the keyword ``axis``; xarray names its dimensions."""
    assert probe("def f(feats):\n    n = feats['mask'].sum(dim=-1)\n    n.probe()\n")[0] == "tensor"
    assert probe("def f(x, d):\n    p = x.softmax(dim=d)\n    p.probe()\n")[0] == "tensor"
    assert probe("def f(ds):\n    n = ds.sum(dim='time')\n    n.probe()\n")[0] is None
    assert probe("def f(a):\n    n = a.sum(axis=-1)\n    n.probe()\n")[0] is None
    assert probe("def f(a):\n    n = a.mean(-1, keepdim=True)\n    n.probe()\n")[0] == "tensor"
    assert probe("def f(a):\n    n = a.mean(-1, keepdims=True)\n    n.probe()\n")[0] is None
    assert probe("def f(x):\n    v = x.max(dim=1)\n    v.probe()\n")[0] is None   # (values, indices)
    assert probe("import pandas as pd\ndef f(x):\n    n = x.sum(dim=1)\n    n.probe()\n")[0] is None


@pytest.mark.parametrize("source, value", [
    # Python strings: literals, f-strings, joins and formats, str(), concatenation with a string
    ("def f(parts):\n    s = ''.join(parts)\n    s.probe()\n", ("object", "builtins.str")),
    ("def f(parts, n):\n    s = ''.join(parts)\n    s = s[:n] + '/' + s[n:]\n    s.probe()\n", ("object", "builtins.str")),
    ("def f(x):\n    s = f'{x}'\n    s.probe()\n", ("object", "builtins.str")),
    ("def f(x):\n    s = str(x).strip()\n    s.probe()\n", ("object", "builtins.str")),
    ("def f(n):\n    s = 'step %d' % n\n    s.probe()\n", ("object", "builtins.str")),
    # not strings: a shadowed str, a method named like a str method on an unknown value, arithmetic
    ("def f(x, str):\n    s = str(x)\n    s.probe()\n", (None, None)),
    ("def f(x):\n    s = x.replace(1, 2)\n    s.probe()\n", (None, None)),
    ("import torch\ndef f(x: torch.Tensor):\n    s = x + 1\n    s.probe()\n", ("tensor", None)),
])
def test_python_strings(source, value):
    assert probe(source) == value


def test_a_string_sliced_to_a_growing_length_is_no_shape():
    source = ("import torch\ndef f(parts, lens):\n    s = ''.join(parts)\n    n = 0\n    for k in lens:\n"
              "        n += k\n        s = s[:n] + '/' + s[n:]\n    return torch.zeros(3)\n")
    assert not analyse_source(source, Target("2.8.0"), codes=frozenset({"NPU412"}))
    grown = source.replace("s = ''.join(parts)", "s = torch.as_tensor(parts)").replace(" + '/' + s[n:]", "")
    assert [f.code for f in analyse_source(grown, Target("2.8.0"), codes=frozenset({"NPU412"}))] == ["NPU412"]


@pytest.mark.parametrize("source, kind", [
    # ``.isin`` is a method of pandas only (torch and numpy have functions): host data; ``torch.isin`` is a mask
    ("def f(df, ids):\n    m = df.index.isin(ids)\n    m.probe()\n", "host"),
    ("import torch\ndef f(x: torch.Tensor, ids):\n    m = torch.isin(x, ids)\n    m.probe()\n", "mask"),
])
def test_isin(source, kind):
    assert probe(source)[0] == kind


def test_a_frame_selected_by_isin_is_no_mask_selection():
    source = ("import torch\ndef split(train, val_idx):\n    val = train[train.index.isin(val_idx)]\n"
              "    return train[~train.index.isin(val_idx)], val\n")
    assert not analyse_source(source, Target("2.8.0"), codes=frozenset({"NPU402"}))
    tensor = "import torch\ndef split(x: torch.Tensor, ids):\n    return x[torch.isin(x, ids)]\n"
    assert [f.code for f in analyse_source(tensor, Target("2.8.0"), codes=frozenset({"NPU402"}))] == ["NPU402"]


# -- modules bound by an import helper (``torch = try_import("torch")``) -------------------------------------------
@pytest.mark.parametrize("source, line, name", [
    ("import importlib\ntorch = importlib.import_module('torch')\nx = torch.zeros(3)\n", 3, "torch.zeros"),
    ("nn = __import__('torch.nn')\ny = nn.cuda.synchronize()\n", 2, "torch.cuda.synchronize"),
    # the file's own helper returning import_module of its argument (None when the import fails)
    ("import importlib\ndef try_import(name):\n    try:\n        return importlib.import_module(name)\n"
     "    except ImportError:\n        return None\ntorch = try_import('torch')\ndef f():\n"
     "    return torch.cuda.synchronize()\n", 9, "torch.cuda.synchronize"),
    # an ``if TYPE_CHECKING`` import beside the helper's binding
    ("from typing import TYPE_CHECKING\nimport importlib\nif TYPE_CHECKING:\n    import torch\nelse:\n"
     "    torch = importlib.import_module('torch')\nz = torch.ones(2)\n", 7, "torch.ones"),
])
def test_modules_bound_by_import_helpers(source, line, name):
    assert (line, name) in qualnames(source)


@pytest.mark.parametrize("source", [
    # a helper that does not return the module its argument names; a non-literal name; a logger
    "import importlib\ndef load(name):\n    return importlib.import_module('pkg.' + name)\n"
    "torch = load('torch')\nx = torch.zeros(3)\n",
    "import importlib\ndef build(name):\n    return make(name)\ntorch = build('torch')\nx = torch.zeros(3)\n",
    "import importlib\nname = 'torch'\ntorch = importlib.import_module(name)\nx = torch.zeros(3)\n",
    "import logging\ntorch = logging.getLogger('torch')\nx = torch.zeros(3)\n",
])
def test_other_calls_given_a_module_name_bind_no_module(source):
    assert not any(name.startswith("torch.") for _, name in qualnames(source))


def test_a_module_bound_by_an_import_helper_makes_tensors():
    source = ("import importlib\ntorch = importlib.import_module('torch')\ndef f(x):\n"
              "    s = torch.svd(x)[1]\n    m = s > 1e-6\n    m.probe()\n")
    assert probe(source)[0] == "mask"


# -- a local declared alone (``distances: Tensor``) ---------------------------------------------------------------
@pytest.mark.parametrize("source, kind", [
    ("import torch\nfrom torch import Tensor\ndef f(index, q):\n    d: Tensor\n    i: Tensor\n"
     "    d, i = index.search(q, 4)\n    d.probe()\n", "tensor"),
    ("import torch\nfrom torch import Tensor\ndef f(index, q):\n    d: Tensor\n    d = index.search(q, 4)\n"
     "    d.probe()\n", "tensor"),
    # what the assigned value is known to be wins over the declaration
    ("import torch\nimport numpy as np\nfrom torch import Tensor\ndef f(q):\n    d: Tensor\n"
     "    d = np.zeros(3)\n    d.probe()\n", "host"),
])
def test_a_local_declared_alone_holds_its_annotation(source, kind):
    assert probe(source)[0] == kind


def test_a_declaration_in_another_function_says_nothing():
    source = ("import torch\nfrom torch import Tensor\ndef g():\n    d: Tensor\ndef f(index, q):\n"
              "    d = index.search(q, 4)\n    d.probe()\n")
    assert probe(source) == (None, None)


# -- lists bound by unpacking empty literals (``keep, masks = [], []``) --------------------------------------------
@pytest.mark.parametrize("source, kind", [
    ("import torch\ndef f(xs):\n    outs, masks = [], []\n    for x in xs:\n        masks.append(x > 0)\n"
     "        outs.append(x)\n    m = torch.cat(masks)\n    m.probe()\n", "mask"),
    ("import torch\ndef f(xs):\n    outs, masks = [], []\n    for x in xs:\n        masks.append(x > 0)\n"
     "        outs.append(x.float())\n    m = torch.cat(outs)\n    m.probe()\n", "tensor"),
])
def test_lists_bound_by_unpacking_empty_literals_keep_what_is_appended(source, kind):
    assert probe(source)[0] == kind


def test_an_unpacked_list_that_is_not_an_empty_literal_stays_unknown():
    source = ("import torch\ndef f(xs, pair):\n    outs, masks = pair\n    for x in xs:\n        masks.append(x > 0)\n"
              "    m = torch.cat(masks)\n    m.probe()\n")
    assert probe(source)[0] != "mask"


# -- an attribute updated from itself (``self.x = self.x[keep]``) -------------------------------------------------
@pytest.mark.parametrize("source, kind", [
    ("import torch\nclass G:\n    def start(self, x: torch.Tensor):\n        self.lens = (x != 0).sum(-1)\n"
     "    def drop(self, keep):\n        self.lens = self.lens[keep]\n    def use(self):\n        self.lens.probe()\n",
     "tensor"),
    ("import torch\nclass G:\n    def start(self, x: torch.Tensor):\n        self.flag = x > 0\n"
     "    def grow(self, n):\n        self.flag = self.flag.repeat(n, 1)\n    def use(self):\n        self.flag.probe()\n",
     "mask"),
    # set in a base class, updated from itself in the subclass
    ("import torch\nclass Base:\n    def start(self, x: torch.Tensor):\n        self.lens = (x != 0).sum(-1)\n"
     "class G(Base):\n    def drop(self, keep):\n        self.lens = self.lens[keep]\n        self.lens.probe()\n",
     "tensor"),
])
def test_an_attribute_updated_from_itself_keeps_the_kind_of_its_other_bindings(source, kind):
    assert probe(source)[0] == kind


def test_an_attribute_read_back_from_itself_is_no_tensor():
    source = ("import torch\nclass G:\n    def start(self, x: torch.Tensor):\n        self.lens = (x != 0).sum(-1)\n"
              "    def drop(self):\n        self.lens = self.lens.tolist()\n    def use(self):\n        self.lens.probe()\n")
    assert probe(source)[0] not in ("tensor", "mask")


# -- names read with ``getattr`` of a literal, names chosen by a conditional expression ------------------------------
@pytest.mark.parametrize("source, line, name", [
    ("import torch\ncudnn = getattr(torch.backends, 'cudnn', None)\ncudnn.benchmark = True\n", 3,
     "torch.backends.cudnn.benchmark"),
    ("import torch\nm = getattr(torch.backends, 'cuda', None)\nmm = getattr(m, 'matmul', None)\nmm.allow_tf32 = True\n",
     4, "torch.backends.cuda.matmul.allow_tf32"),
    ("import torch\ngetattr(torch, 'cuda').synchronize()\n", 2, "torch.cuda.synchronize"),
    ("import torch\nmod = torch.cuda if on_gpu else torch.cpu\nmod.synchronize()\n", 3, "torch.cuda.synchronize"),
    ("import torch\nmod = torch.cuda if on_gpu else torch.cpu\nmod.synchronize()\n", 3, "torch.cpu.synchronize"),
])
def test_getattr_of_a_literal_and_conditional_aliases(source, line, name):
    assert (line, name) in qualnames(source)


@pytest.mark.parametrize("source", [
    # a file's own ``getattr``, a name that is no literal, an object that is no namespace
    "import torch\ndef getattr(o, n, d=None):\n    return d\nc = getattr(torch.backends, 'cudnn')\nc.benchmark = True\n",
    "import torch\nname = 'cudnn'\nc = getattr(torch.backends, name)\nc.benchmark = True\n",
    "import torch\nc = getattr(model, 'cudnn', None)\nc.benchmark = True\n",
    # a choice with a value in one arm: no alias
    "import torch\nmod = torch.cuda if on_gpu else make()\nmod.synchronize()\n",
])
def test_no_alias_without_a_literal_namespace(source):
    assert not any(name.startswith(("torch.backends.cudnn.", "torch.cuda.")) for _, name in qualnames(source))


def test_existence_probes_of_a_namespace_are_no_references():
    source = ("import torch\ncudnn = getattr(torch.backends, 'cudnn', None)\nif cudnn is not None:\n"
              "    if hasattr(cudnn, 'allow_tf32'):\n        cudnn.allow_tf32 = False\n")
    assert [line for line, name in qualnames(source) if name.startswith("torch.backends.cudnn")] == [5]


@pytest.mark.parametrize("source, kind", [
    # torch-only comparison methods: a mask whatever the receiver, pandas in the file or not
    ("import torch\ndef f(i, ids):\n    m = i.less(ids)\n    m.probe()\n", "mask"),
    ("import torch\nimport pandas as pd\ndef f(i, ids):\n    m = i.greater_equal(ids)\n    m.probe()\n", "mask"),
    ("import torch\ndef f(x):\n    m = x.isnan().logical_not()\n    m.probe()\n", "mask"),
])
def test_torch_only_mask_methods(source, kind):
    assert probe(source)[0] == kind


@pytest.mark.parametrize("source", [
    "import torch\nimport pandas as pd\ndef f(s, v):\n    m = s.lt(v)\n    m.probe()\n",   # a Series has lt
    "import torch\ndef f(s, v):\n    m = s.isna()\n    m.probe()\n",
])
def test_shared_comparison_methods_stay_unknown_beside_pandas(source):
    assert probe(source)[0] is None


def test_counting_what_a_negated_name_leaves_out_makes_it_a_mask():
    """TerraMind: ``n = (~mask_all[0]).sum()`` counts the positions a mask leaves out; must not: a sum of the
    negated numbers (``(-m[0]).sum()``)."""
    counted = "import torch\ndef f(d):\n    m = d['mask']\n    n = (~m[0]).sum()\n    m.probe()\n"
    assert probe(counted) == ("mask", None)
    summed = "import torch\ndef f(d):\n    m = d['mask']\n    n = (-m[0]).sum()\n    m.probe()\n"
    assert probe(summed) == (None, None)


@pytest.mark.parametrize("call", ["torch.gather(m, 1, idx)", "m.gather(1, idx)", "torch.index_select(m, 0, idx)",
                                  "m.narrow(1, 0, 4)", "torch.take_along_dim(m, idx, 1)", "m.select(0, 1)"])
def test_picking_elements_of_a_mask_keeps_a_mask(call):
    """``decoder_mask = torch.gather(decoder_mask_all, 1, ids_keep)``: the elements picked are still booleans; must
    not: the same of a float tensor, or with a numeric dtype asked for."""
    assert probe(f"import torch\ndef f(x, idx):\n    m = x > 0\n    ({call}).probe()\n") == ("mask", None)
    assert probe(f"import torch\ndef f(x, idx):\n    m = x.long() * 2\n    ({call}).probe()\n") == ("tensor", None)


def test_a_registered_buffer_is_an_attribute_of_every_method():
    """UniTrack's memory: ``self.register_buffer("index_mask", torch.zeros((n,), dtype=torch.bool))`` in ``__init__``,
    ``self.index_range[self.index_mask]`` in another method: a mask; must not: a buffer another object registers,
    a name that is no literal."""
    made = ("import torch\nclass M(torch.nn.Module):\n    def __init__(self, n):\n        super().__init__()\n"
            "        self.register_buffer('index_mask', torch.zeros((n,), dtype=torch.bool), persistent=False)\n"
            "        self.register_buffer('index_range', torch.arange(n))\n    def step(self):\n        {probe}.probe()\n")
    assert probe(made.format(probe="self.index_mask")) == ("mask", None)
    assert probe(made.format(probe="self.index_range"))[0] == "tensor"
    other = made.replace("self.register_buffer('index_mask'", "other.register_buffer('index_mask'").replace(
        "def __init__(self, n)", "def __init__(self, n, other)")
    assert probe(other.format(probe="self.index_mask")) == (None, None)
    named = made.replace("self.register_buffer('index_mask'", "self.register_buffer(key")
    assert probe(named.format(probe="self.index_mask")) == (None, None)
