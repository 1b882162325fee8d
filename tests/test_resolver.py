"""The resolver decides every family's precision: import aliases, re-exports and tensor receivers."""
from __future__ import annotations

import ast

import pytest

from npu_lint.context import FileContext
from npu_lint.core import Dispatch, _walk
from npu_lint.rules import ApiRef, Rule
from npu_lint.versions import Target


def _spy(source: str):
    """Walk ``source`` once; return the ApiRef names and, per call line, whether its receiver is a tensor."""
    refs: list[tuple[int, str]] = []
    receivers: dict[int, bool] = {}

    class SpyRefs(Rule):
        code, node_types = "NPU999", (ApiRef,)

        def check(self, ref, ctx):
            refs.append((ref.node.lineno, ref.qualname))

    class SpyCalls(Rule):
        code, node_types = "NPU998", (ast.Call,)

        def check(self, node, ctx):
            if isinstance(node.func, ast.Attribute) and node.func.attr == "probe":
                receivers[node.lineno] = ctx.resolver.is_tensor(node.func.value)

    ctx = FileContext(source, Target("2.14.0"))
    _walk(ast.parse(source), ctx, Dispatch([SpyRefs, SpyCalls]))
    return refs, receivers


def names(source: str) -> list[str]:
    return [name for _, name in _spy(source)[0]]


@pytest.mark.parametrize("source,expected", [
    ("import torch\ntorch.cuda.synchronize()\n", "torch.cuda.synchronize"),
    ("import torch as t\nt.cuda.synchronize()\n", "torch.cuda.synchronize"),
    ("import torch.nn.functional as F\nF.gelu(x)\n", "torch.nn.functional.gelu"),
    ("from torch import cuda, nn\ncuda.synchronize()\n", "torch.cuda.synchronize"),
    ("from torch import cuda, nn\nnn.Linear(2, 2)\n", "torch.nn.Linear"),
    ("from torch.cuda import amp\namp.GradScaler()\n", "torch.cuda.amp.GradScaler"),
    ("from torch.cuda.amp import autocast as ac\nac()\n", "torch.cuda.amp.autocast"),
    ("import torch.cuda\ntorch.cuda.empty_cache()\n", "torch.cuda.empty_cache"),
    ("import torch.cuda as tc\ntc.device_count()\n", "torch.cuda.device_count"),
    ("def f():\n    import torch\n    torch.cuda.synchronize()\n", "torch.cuda.synchronize"),
    ("try:\n    import torch_npu as tn\nexcept ImportError:\n    tn = None\ntn.npu.synchronize()\n",
     "torch_npu.npu.synchronize"),
    ("import torch\ncuda = torch.cuda\ncuda.synchronize()\n", "torch.cuda.synchronize"),
    ("import torch\nsync = torch.cuda.synchronize\nsync()\n", "torch.cuda.synchronize"),
    ("from torch.nn.parallel import DataParallel\nDataParallel(m)\n", "torch.nn.DataParallel"),
    ("import torch.distributed.distributed_c10d as c10d\nc10d.init_process_group('nccl')\n",
     "torch.distributed.init_process_group"),
    ("from torch.utils.data.dataloader import DataLoader\nDataLoader(ds)\n", "torch.utils.data.DataLoader"),
    ("import os\nos.environ.get('X')\n", "os.environ.get"),
])
def test_qualified_names(source, expected):
    assert expected in names(source)


def test_only_maximal_chains_are_reported():
    assert names("import torch\ntorch.cuda.amp.GradScaler()\n") == ["torch.cuda.amp.GradScaler"]


@pytest.mark.parametrize("source", [
    "cuda.synchronize()\n",                       # never imported
    "class A:\n    def f(self):\n        self.cuda.synchronize()\n",
    "import torch\ntorch = object()\ntorch.cuda.synchronize()\n",
    "from . import cuda\ncuda.synchronize()\n",
])
def test_unresolved_names_are_not_torch(source):
    assert not any(name.startswith("torch.cuda") for name in names(source))


def test_relative_imports_keep_their_dots():
    assert "..ops._ext.roi_align" in names("from ..ops._ext import roi_align\nroi_align(x)\n")


def test_star_import_binds_nothing():
    assert names("from torch import *\ncuda.synchronize()\n") == []


@pytest.mark.parametrize("source,line,expected", [
    ("import torch\nx = torch.randn(3)\nx.probe()\n", 3, True),
    ("import torch\nx = torch.zeros(3).float()\nx.probe()\n", 3, True),
    ("import torch\nx = torch.device('cpu')\nx.probe()\n", 3, False),
    ("import torch\nn = torch.randn(3).numel()\nn.probe()\n", 3, False),
    ("import torch.nn.functional as F\ny = F.relu(x)\ny.probe()\n", 3, True),
    ("import torch\ndef f(x: torch.Tensor):\n    x.probe()\n", 3, True),
    ("from torch import Tensor\ndef f(x: Tensor, y: int):\n    y.probe()\n", 3, False),
    ("from torch import Tensor\ndef f(x: Tensor):\n    x.probe()\n", 3, True),
    ("import torch\nfrom typing import Optional\ndef f(x: Optional[torch.Tensor]):\n    x.probe()\n", 4, True),
    ("import torch.nn as nn\nclass M(nn.Module):\n    def __init__(self):\n        self.w = nn.Parameter(w0)\n"
     "    def forward(self, x):\n        return self.w.probe()\n", 6, True),
    ("from torch.utils.data import DataLoader\nloader = DataLoader(ds)\nfor images, labels in loader:\n"
     "    images.probe()\n", 4, True),
    ("from torch.utils.data import DataLoader\ntrain_loader = DataLoader(ds)\n"
     "for step, (images, labels) in enumerate(train_loader):\n    images.probe()\n", 4, True),
    ("from torch.utils.data import DataLoader\ntrain_loader = DataLoader(ds)\n"
     "for step, (images, labels) in enumerate(train_loader):\n    step.probe()\n", 4, False),
    ("from tqdm import tqdm\nfrom torch.utils.data import DataLoader\nval_loader = DataLoader(ds)\n"
     "for batch in tqdm(val_loader):\n    batch.probe()\n", 5, True),
    # unknown stays unknown: a name that merely looks like a loader is not one
    ("for step, (images, labels) in enumerate(train_loader):\n    images.probe()\n", 2, False),
    ("for item in items:\n    item.probe()\n", 2, False),
    ("import torch\nx = torch.ones(2)\ny = x * 2 + 1\ny.probe()\n", 4, True),
    ("import torch\nx = torch.ones(2)\nx = 3\nx.probe()\n", 4, False),
    ("import torch\nx = torch.ones(2)\nx[0].probe()\n", 3, True),
    ("import torch\nx = torch.ones(2)\nx.T.probe()\n", 3, True),
    ("import torch\ndef f():\n    x = torch.ones(2)\nx.probe()\n", 4, False),   # function scope closed
])
def test_tensor_receivers(source, line, expected):
    assert _spy(source)[1][line] is expected


@pytest.mark.parametrize("source,expected", [
    ("import os, torch\n", True), ("from torch import nn\n", True), ("  import torchvision.models as m\n", True),
    ("from mmdet.apis import init_detector\n", True), ("import torchy\n", False), ("# import torch\n", False),
    ("x = 'import torch'\n", False), ("import numpy as np\n", False),
    # torch through a star import, used; a star import alone, or torch only named in a comment, is not
    ("from .data.all import *\ndevice = torch.device('cuda', 0)\n", True),
    ("from .core import *\nx = 1\n", False), ("import os\n# see torch.cuda\n", False),
    ("from .core import *\nd = 'cuda'  # like torch.device('cuda')\n", False),
    # torch bound by an import helper given its name; another library's name is not torch
    ("from .utils import try_import\ntorch = try_import('torch')\n", True),
    ("import importlib\nnn = importlib.import_module(\"torch.nn\")\n", True),
    ("import importlib\njax = importlib.import_module('jax')\n", False),
])
def test_which_files_use_torch(source, expected):
    from npu_lint.context import uses_torch
    assert uses_torch(source) is expected


@pytest.mark.parametrize("source,expected", [
    # a module a class keeps after a lazy import: ``Knn.faiss`` / ``self.faiss`` stand for ``faiss``
    ("class Knn:\n    faiss = None\n    def load(self):\n        import faiss\n        Knn.faiss = faiss\n"
     "    def index(self, d):\n        return Knn.faiss.IndexFlatL2(d)\n", "faiss.IndexFlatL2"),
    ("import numpy as np\nclass A:\n    def __init__(self):\n        self.np = np\n    def f(self, x):\n"
     "        return self.np.asarray(x)\n", "numpy.asarray"),
])
def test_module_kept_on_a_class(source: str, expected: str) -> None:
    assert expected in names(source)


@pytest.mark.parametrize("source", [
    # another value too, a from-import (a function or a class), or a parameter: no module
    "import faiss\nclass Knn:\n    faiss = None\n    def load(self, other):\n        Knn.faiss = faiss if other is None else other\n"
    "    def index(self, d):\n        return Knn.faiss.IndexFlatL2(d)\n",
    "from faiss import IndexFlatL2\nclass Knn:\n    def __init__(self):\n        self.make = IndexFlatL2\n"
    "    def index(self, d):\n        return self.make.reset(d)\n",
    "import faiss\nclass Knn:\n    faiss = 3\n    def load(self):\n        Knn.faiss = faiss\n"
    "    def index(self, d):\n        return Knn.faiss.IndexFlatL2(d)\n",
])
def test_no_module_kept_on_a_class(source: str) -> None:
    last = source.count("\n")   # the use is on the last line
    assert [name for line, name in _spy(source)[0] if line == last] == []
