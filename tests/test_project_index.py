"""The project index: module discovery, per-file facts, cross-module resolution, chains and the facts cache."""
from __future__ import annotations

import ast

import pytest

from conftest import REPO
from npu_lint.project import NoPackage, ProjectIndex, find_package
from npu_lint.project.facts import absolute, extract
from npu_lint.project.modules import discover

FIXLIB = REPO / "tests" / "third_party_fixtures" / "fixlib"


def facts_of(source: str, module: str = "pkg.mod"):
    return extract(ast.parse(source), module, "mod.py", False)


def calls_of(source: str, function: str) -> list[str]:
    return [target for target, _ in next(f for f in facts_of(source).functions if f.name == function).calls]


def refs_of(source: str, function: str) -> list[str]:
    return [api for api, _ in next(f for f in facts_of(source).functions if f.name == function).refs]


@pytest.fixture(scope="module")
def index() -> ProjectIndex:
    return ProjectIndex.build([FIXLIB])


def test_modules_are_named_from_their_package():
    modules, native = discover(FIXLIB)
    names = {m.name for m in modules}
    assert {"fixlib", "fixlib.core", "fixlib.core.ops", "fixlib.models.heads"} <= names
    assert [n.relative for n in native] == ["csrc/ops.cpp"]
    assert discover(FIXLIB / "core")[0][0].name.startswith("fixlib.core")   # a sub-package keeps its full name


def test_a_folder_its_files_import_by_name_is_a_namespace_package(tmp_path):
    wheel = tmp_path / "tabnetlike"          # a wheel shipped without __init__.py
    wheel.mkdir()
    (wheel / "net.py").write_text("import torch\nclass Net(torch.nn.Module):\n    pass\n")
    (wheel / "train.py").write_text("from tabnetlike.net import Net\nmodel = Net()\nmodel.eval()\n")
    assert {m.name for m in discover(wheel)[0]} == {"tabnetlike.net", "tabnetlike.train"}
    scripts = tmp_path / "scripts"           # must not: an import root whose files import each other by stem
    scripts.mkdir()
    (scripts / "net.py").write_text("import torch\n")
    (scripts / "train.py").write_text("from net import *\nimport scriptsx\n")
    assert {m.name for m in discover(scripts)[0]} == {"net", "train"}
    for layout in (("ultra", "ultra"), ("peftlike", "src", "peftlike")):   # must not: a checkout named like its package
        checkout = tmp_path / "checkouts" / layout[0]
        package = checkout.joinpath(*layout[1:])
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "m.py").write_text(f"from {layout[0]} import x\n")
        (checkout / "setup.py").write_text(f"from {layout[0]} import version\n")
        assert {m.name for m in discover(checkout)[0]} >= {layout[0], f"{layout[0]}.m"}


def test_a_folder_of_unpacked_projects_holds_import_roots(tmp_path):
    """``downloads/textbrewer-0.2.1.post1/src/textbrewer/x.py``: the unpacked project (a folder named unlike a
    module, with its own setup.py / pyproject.toml) is an import root, its ``src`` layout too."""
    for layout in (("textbrewer-0.2.1.post1", "src", "textbrewer"), ("kvpress-0.5.5", "kvpress")):
        folder = tmp_path / layout[-1]
        package = folder.joinpath(*layout)
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "m.py").write_text("from .n import *\n")
        (folder / layout[0] / "setup.py").write_text("")
        assert {m.name for m in discover(folder)[0]} == {layout[-1], f"{layout[-1]}.m"}
    loose = tmp_path / "loose"   # must not: a folder named unlike a module without a project of its own
    (loose / "setup-helpers" / "pkg").mkdir(parents=True)
    (loose / "setup-helpers" / "pkg" / "x.py").write_text("")
    assert discover(loose)[0] == []


def test_relative_names():
    assert absolute(".x.y", "pkg.sub.mod", False) == "pkg.sub.x.y"
    assert absolute("..x", "pkg.sub", True) == "pkg.x"
    assert absolute("torch.nn", "pkg.mod", False) == "torch.nn"


# must / must not, per inference ---------------------------------------------------------------------
def test_late_bound_module_function_is_resolved():
    source = "def a():\n    return b()\n\ndef b():\n    return 1\n"
    assert calls_of(source, "a") == ["pkg.mod.b"]


def test_local_variable_shadowing_a_module_function_is_not_an_edge():
    source = "def a(b):\n    return b()\n\ndef b():\n    return 1\n"
    assert calls_of(source, "a") == []


def test_late_import_at_the_bottom_is_resolved():
    source = "def a(x):\n    return _C.nms(x)\n\nfrom . import _C\n"
    assert calls_of(source, "a") == ["pkg._C.nms"]


def test_self_super_and_partial():
    source = ("import functools\nclass A:\n    def f(self):\n        return self.g() + super().f()\n"
              "def h():\n    return functools.partial(k, 1)\ndef k(a):\n    return a\n")
    assert calls_of(source, "A.f") == ["@self.g", "@super.f"]
    assert "pkg.mod.k" in calls_of(source, "h")


def test_isinstance_and_comparisons_are_not_uses_of_an_api():
    source = ("import torch\ndef f(m, x):\n    if isinstance(m, torch.nn.GRU) or x.dtype == torch.float16:\n"
              "        return 0\n")
    assert refs_of(source, "f") == []
    assert refs_of("import torch\ndef f(x):\n    return torch.var_mean(x)\n", "f") == ["torch.var_mean"]


def test_factories_and_held_objects():
    source = ("from torch import nn\nclass P(nn.Module):\n    def __init__(self):\n        self.pool = make()\n"
              "def make():\n    cls = Inner\n    return cls\nclass Inner:\n    pass\n")
    facts = facts_of(source)
    assert dict(next(c for c in facts.classes if c.name == "P").attrs) == {"pool": ("pkg.mod.make",)}
    assert next(f for f in facts.functions if f.name == "make").returns == ("=pkg.mod.Inner",)


# across modules ------------------------------------------------------------------------------------
def test_resolve_through_reexports_and_star_imports(index):
    assert index.resolve("fixlib.api_nms") == "fixlib.core.ops.nms_rotated"
    assert index.resolve("fixlib.pool_max") == "fixlib.models.heads.pool_max"   # through ``from .models import *``
    assert index.resolve("fixlib.Box.forward") == "fixlib.core.box.Box.forward"
    assert index.resolve("fixlib.Box._stat") == "fixlib.core.box.BaseBox._stat"   # inherited
    assert index.resolve("fixlib.nothing") is None
    assert index.resolve("torch.nn.Linear") is None


def test_public_names_shortest_after_the_definition(index):
    assert index.public_names("fixlib.core.ops.nms_rotated") == [
        "fixlib.core.ops.nms_rotated", "fixlib.api_nms", "fixlib.core.api_nms"]
    assert index.public_names("fixlib.models.heads.Head.forward")[:2] == [
        "fixlib.models.heads.Head.forward", "fixlib.Head.forward"]
    assert index.public_names("fixlib.models.heads.cycle_a") == ["fixlib.models.heads.cycle_a"]


def test_reaches_gives_the_shortest_chain_and_survives_cycles(index):
    is_leaf = {"torch.nn.functional.adaptive_max_pool2d"}.__contains__
    assert index.reaches("fixlib.models.heads.cycle_b", is_leaf) == [
        "fixlib.models.heads.cycle_b", "fixlib.models.heads.cycle_a", "fixlib.models.heads.pool_max",
        "torch.nn.functional.adaptive_max_pool2d"]
    assert index.reaches("fixlib.pool_max", is_leaf)[0] == "fixlib.models.heads.pool_max"
    assert index.reaches("fixlib.models.heads.safe", is_leaf) is None
    assert index.custom_ops == {"nms_rotated": "csrc/ops.cpp"}


def test_a_folder_without_python_and_a_missing_package(tmp_path):
    with pytest.raises(NoPackage):
        ProjectIndex.build([tmp_path])
    with pytest.raises(NoPackage):
        find_package("no_such_package_npu_lint_test")
    assert find_package("pytest").name in ("pytest", "pytest.py") or find_package("pytest").is_dir()


def test_a_changed_file_is_the_only_one_parsed_again(tmp_path, monkeypatch):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "__init__.py").write_text("")
    for n in range(5):
        (lib / f"m{n}.py").write_text(f"def f{n}():\n    return {n}\n")
    cache = tmp_path / "cache"
    ProjectIndex.build([lib], cache_dir=cache)
    parsed = []
    import npu_lint.project.cache as cache_module
    original = cache_module.extract
    monkeypatch.setattr(cache_module, "extract", lambda tree, *a: parsed.append(a[0]) or original(tree, *a))
    (lib / "m3.py").write_text("import torch\ndef f3(x):\n    return torch.var_mean(x)\n")
    index = ProjectIndex.build([lib], cache_dir=cache)
    assert parsed == ["lib.m3"]
    assert index.reaches("lib.m3.f3", {"torch.var_mean"}.__contains__) == ["lib.m3.f3", "torch.var_mean"]


def test_building_a_module_reaches_its_forward_and_says_so(tmp_path):
    lib = tmp_path / "blib"
    lib.mkdir()
    (lib / "__init__.py").write_text("")
    (lib / "m.py").write_text(
        "import torch\nimport torch.nn.functional as F\n\nclass Pool(torch.nn.Module):\n"
        "    def forward(self, x):\n        return F.adaptive_max_pool2d(x, 1)\n\n"
        "def make():\n    return Pool()\n\ndef run(x):\n    return make()(x)\n")
    index = ProjectIndex.build([lib])
    is_leaf = {"torch.nn.functional.adaptive_max_pool2d"}.__contains__
    assert index.reaches("blib.m.make", is_leaf) == ["blib.m.make", "blib.m.Pool.forward",
                                                     "torch.nn.functional.adaptive_max_pool2d"]
    assert index.built_edge("blib.m.make", "blib.m.Pool.forward")
    assert index.reaches("blib.m.run", is_leaf)[:2] == ["blib.m.run", "blib.m.make"]


def test_methods_of_held_objects_and_of_local_values(tmp_path):
    lib = tmp_path / "mlib"
    lib.mkdir()
    (lib / "__init__.py").write_text("")
    (lib / "m.py").write_text(
        "import torch\n\nclass Pool:\n    def reset(self):\n        return torch.var_mean(self.w)\n\n"
        "class Head:\n    def __init__(self):\n        self.pool = Pool()\n\n    def reset(self):\n"
        "        return self.pool.reset()\n\n"
        "def train(model):\n    opt = torch.optim.Adam(model.parameters())\n    opt.step()\n    p = Pool()\n"
        "    return p.reset()\n\ndef other(x):\n    return x.reset()\n")
    index = ProjectIndex.build([lib])
    is_leaf = {"torch.var_mean", "torch.optim.Adam.step"}.__contains__
    assert index.reaches("mlib.m.Head.reset", is_leaf) == ["mlib.m.Head.reset", "mlib.m.Pool.reset", "torch.var_mean"]
    reached = index.reached(is_leaf)
    assert set(reached["mlib.m.train"]) == {"torch.optim.Adam.step", "torch.var_mean"}
    assert "mlib.m.other" not in reached   # a receiver of unknown type is not followed


def test_a_project_named_like_torch_keeps_its_wrappers(tmp_path):
    """A package whose name starts with ``torch`` (torchvision, torchtune) is the project, not torch: its wrappers
    of data-dependent ops are reported at their calls in other modules, ``torch.where(keep)[0]`` included."""
    import json
    import os
    import subprocess
    import sys
    lib = tmp_path / "torchvis"
    (lib / "ops").mkdir(parents=True)
    (lib / "models").mkdir()
    for folder in (lib, lib / "ops", lib / "models"):
        (folder / "__init__.py").write_text("")
    (lib / "ops" / "boxes.py").write_text(
        "import torch\n\ndef remove_small(boxes, min_size):\n    keep = (boxes[:, 2] - boxes[:, 0]) >= min_size\n"
        "    keep = torch.where(keep)[0]\n    return keep\n\ndef first(boxes):\n    return torch.where(boxes)[1:]\n")
    (lib / "models" / "rpn.py").write_text(
        "from torchvis.ops import boxes as box_ops\n\ndef filter_boxes(b):\n"
        "    keep = box_ops.remove_small(b, 1.0)\n    other = box_ops.first(b)\n    return b[keep], other\n")
    env = dict(os.environ, NPU_LINT_CACHE_DIR=str(tmp_path / "cache"))
    result = subprocess.run([sys.executable, "-m", "npu_lint", "check", "--select", "NPU401", "--output-format",
                             "json", "--exit-zero", "torchvis"], cwd=tmp_path, env=env, capture_output=True, text=True)
    found = {(os.path.relpath(item["filename"], tmp_path).replace(os.sep, "/"), item["location"]["row"])
             for item in json.loads(result.stdout)}
    assert ("torchvis/models/rpn.py", 4) in found, (found, result.stderr)
    assert ("torchvis/models/rpn.py", 5) in found   # a slice of where's tuple holds its index tensors


def test_a_module_level_alias_of_a_definition_resolves_to_it(tmp_path):
    """``Model = DetectionModel`` (YOLOv5 keeps the old name): importers of ``Model`` build a ``DetectionModel``;
    must not: a name bound twice at module level, an alias of a value that is no definition."""
    lib = tmp_path / "alib"
    lib.mkdir()
    (lib / "__init__.py").write_text("")
    (lib / "yolo.py").write_text(
        "import torch\nfrom torch import nn\n\nclass DetectionModel(nn.Module):\n    pass\n\nModel = DetectionModel\n"
        "Twice = DetectionModel\nTwice = nn.Linear\nsize = config.size\nLN = nn.LayerNorm\n")
    (lib / "train.py").write_text("from alib.yolo import Model, Twice, LN\nm = Model()\nm.eval()\nln = LN(4)\n")
    index = ProjectIndex.build([lib])
    assert index.resolve("alib.yolo.Model") == "alib.yolo.DetectionModel"
    assert index.resolve("alib.train.Model") == "alib.yolo.DetectionModel"
    assert index.resolve("alib.yolo.Twice") is None
    assert index.resolve("alib.yolo.size") is None
    assert dict(index.modules["alib.yolo"].imports)["LN"] == "torch.nn.LayerNorm"


def test_torch_re_exported_by_a_package_of_the_project(tmp_path):
    """``from mlpkg.torch_utils import torch, nn`` where ``mlpkg/torch_utils/__init__.py`` re-exports the ``torch``
    its submodule ``torch.py`` imports (ML-Agents' convention): the package's name, not the submodule, is what
    importers get, so ``torch.nonzero`` is torch's and the module is a torch file (its methods are judged too)."""
    import json
    import os
    import subprocess
    import sys
    utils = tmp_path / "mlpkg" / "torch_utils"
    utils.mkdir(parents=True)
    (tmp_path / "mlpkg" / "__init__.py").write_text("")
    (utils / "__init__.py").write_text("from mlpkg.torch_utils.torch import torch as torch  # noqa\n"
                                       "from mlpkg.torch_utils.torch import nn  # noqa\n")
    (utils / "torch.py").write_text("import os\n\nimport torch  # noqa\nfrom torch import nn  # noqa\n\n"
                                    "def default_device():\n    return torch.device('cpu')\n")
    (tmp_path / "mlpkg" / "partition.py").write_text(
        "from mlpkg.torch_utils import torch, nn\n\n\ndef partition(data, parts, n):\n    out = []\n"
        "    for i in range(n):\n        out += [data[(parts == i).nonzero().squeeze(1)]]\n    return out\n\n\n"
        "def pick(x):\n    return torch.nonzero(x), torch.cuda.is_available()\n")
    env = dict(os.environ, NPU_LINT_CACHE_DIR=str(tmp_path / "cache"))
    result = subprocess.run([sys.executable, "-m", "npu_lint", "check", "--select", "NPU401,NPU201", "--output-format",
                             "json", "--exit-zero", "mlpkg"], cwd=tmp_path, env=env, capture_output=True, text=True)
    found = {(item["code"], item["location"]["row"]) for item in json.loads(result.stdout)}
    assert found == {("NPU401", 7), ("NPU401", 12), ("NPU201", 12)}, (found, result.stderr)


def test_a_package_binding_a_variable_of_its_submodule_is_no_re_export(tmp_path):
    """``from pkg.text.symbols import symbols`` in ``pkg/text/__init__.py`` binds the list ``symbols.py`` defines
    under the submodule's own name: no outside name, and no endless ``symbols.symbols.symbols...`` chain."""
    import os
    import subprocess
    import sys
    text = tmp_path / "pkg" / "text"
    text.mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (text / "__init__.py").write_text("from pkg.text import cleaners\nfrom pkg.text.symbols import symbols\n\n"
                                      "_ids = {s: i for i, s in enumerate(symbols)}\n")
    (text / "symbols.py").write_text("symbols = ['a', 'b']\n")
    (text / "cleaners.py").write_text("import torch\n\ndef clean(x):\n    return torch.nonzero(x)\n")
    (tmp_path / "pkg" / "use.py").write_text("from pkg.text import symbols\n\nn = len(symbols.symbols)\n")
    env = dict(os.environ, NPU_LINT_CACHE_DIR=str(tmp_path / "cache"))
    result = subprocess.run([sys.executable, "-m", "npu_lint", "check", "--select", "NPU4", "--exit-zero", "pkg"],
                            cwd=tmp_path, env=env, capture_output=True, text=True)
    assert result.returncode == 0 and "internal error" not in result.stderr, result.stderr
    assert "cleaners.py:4" in result.stdout


def _extension_findings(tmp_path, file_end: str) -> set:
    """(code, line) of the NPU221/NPU223 findings of ``npu-lint check proj`` (a subprocess) on the file named so."""
    import json
    import os
    import subprocess
    import sys
    env = dict(os.environ, NPU_LINT_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run([sys.executable, "-m", "npu_lint", "check", "--select", "NPU221,NPU223", "--output-format",
                             "json", "--exit-zero", "proj"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return {(item["code"], item["location"]["row"]) for item in json.loads(result.stdout)
            if item["filename"].endswith(file_end)}


def test_the_extensions_a_setup_py_declares_are_compiled_modules(tmp_path):
    """``CUDAExtension("dcn.ext", ...)`` (also through ``extension = CUDAExtension``) in setup.py: ``from dcn import
    ext`` imports a compiled module and ``ext.forward(...)`` calls into it, a module no Python file defines, and
    ``from dcn.knn._C import dist; dist(x)`` too; must not: the C++-only ``CppExtension`` of the same setup.py,
    a Python module of the package, and a setup.py that builds no CUDA code declares nothing."""
    from npu_lint.project.extensions import EXTENSION, declared_extensions
    root = tmp_path / "proj"
    lib = root / "dcn"
    (lib / "knn").mkdir(parents=True)
    (lib / "__init__.py").write_text("")
    (lib / "knn" / "__init__.py").write_text("")
    (lib / "helpers.py").write_text("def forward(x):\n    return x\n")
    (root / "setup.py").write_text(
        "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension, CppExtension\n"
        "extension = CUDAExtension\n"
        "setup(ext_modules=[extension('dcn.ext', ['a.cpp', 'a.cu']), CUDAExtension(name='dcn.knn._C', sources=['k.cu']),"
        " CppExtension('dcn.cpu', ['c.cpp'])])\n")
    (lib / "ops.py").write_text(
        "import torch\nfrom dcn import ext\nfrom dcn import cpu\nfrom dcn import helpers\nfrom dcn.knn._C import dist\n\n"
        "def run(x):\n    y = ext.forward(x)\n    z = helpers.forward(x)\n    return dist(y), cpu.forward(z)\n")
    assert declared_extensions((root / "setup.py").read_text()) == [(EXTENSION, "dcn.ext"), (EXTENSION, "dcn.knn._C")]
    assert declared_extensions("from setuptools import setup, Extension\nsetup(ext_modules=[Extension('m', ['m.c'])])\n") == []
    found = _extension_findings(tmp_path, "ops.py")
    assert found == {("NPU221", 2), ("NPU221", 5), ("NPU223", 8), ("NPU223", 10)}, found


def test_a_build_script_named_like_setup_declares_extensions_too(tmp_path):
    """hqq 0.2.8: ``hqq/kernels/setup_cuda.py`` builds ``CUDAExtension("hqq_aten", ...)`` and ``quantize.py`` does
    ``try: import hqq_aten`` then ``hqq_aten.dequantize(...)``: a compiled module (NPU221, NPU223). Must not: a
    ``setup_utils.py`` that builds nothing declares nothing, and stays an importable module of the package."""
    from npu_lint.project.modules import is_build_script
    assert is_build_script("setup_cuda.py") and is_build_script("setup.py") and not is_build_script("mysetup.py")
    root = tmp_path / "proj"
    (root / "qq" / "kernels").mkdir(parents=True)
    (root / "qq" / "__init__.py").write_text("")
    (root / "qq" / "kernels" / "setup_cuda.py").write_text(
        "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension, BuildExtension\n"
        "setup(name='qq_aten', ext_modules=[CUDAExtension('qq_aten', ['a.cpp', 'a_kernel.cu'])],\n"
        "      cmdclass={'build_ext': BuildExtension})\n")
    (root / "qq" / "setup_utils.py").write_text("def forward(x):\n    return x\n")
    (root / "qq" / "quantize.py").write_text(
        "import torch\nfrom qq import setup_utils\ntry:\n    import qq_aten\nexcept Exception:\n    qq_aten = None\n\n"
        "def deq(w):\n    return qq_aten.dequantize(w), setup_utils.forward(w)\n")
    found = _extension_findings(tmp_path, "quantize.py")
    assert found == {("NPU221", 4), ("NPU223", 9)}, found


def test_a_star_import_of_a_module_that_does_not_parse_resolves_to_nothing(tmp_path):
    """unitrack 1.0.0: ``states/__init__.py`` star-imports ``base_state.py``, which Python 3.11 cannot parse, and a
    sibling imports ``State`` from it. Resolving ``State`` read the package again through the star import, with
    the name one ``base_state`` longer each time, until RecursionError skipped every file of the project.
    Must: nothing, no error; the sibling's own class still resolves; a star import of a module that parses still
    re-exports (must not lose it)."""
    lib = tmp_path / "trk"
    (lib / "states").mkdir(parents=True)
    (lib / "__init__.py").write_text("from .value import *\nfrom .states import *\n")
    (lib / "states" / "__init__.py").write_text("from .base_state import *\nfrom .value import *\n")
    (lib / "states" / "base_state.py").write_text("type State[T] = list[T]\nclass Base[T]:\n    pass\n")
    (lib / "states" / "value.py").write_text(
        "import torch\nfrom .base_state import State\n\nclass Value(State):\n    def update(self, x):\n"
        "        return x.nonzero()\n")
    (lib / "value.py").write_text("import torch\n\nclass Tracker(torch.nn.Module):\n    pass\n")
    index = ProjectIndex.build([lib])
    assert index.resolve("trk.states.base_state.State") is None
    assert index.resolve("trk.states.State") is None
    assert index.mro("trk.states.value.Value")[0] == "trk.states.value.Value"
    assert index.resolve("trk.states.Value") == "trk.states.value.Value"
    assert index.resolve("trk.Tracker") == "trk.value.Tracker"
