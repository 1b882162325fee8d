"""``rule_tables/random_size_transforms.tsv`` (NPU411) comes from the libraries' sources through
``tools/transform_tables.py``: every row points at the line that draws the size, and the tool refuses a curated
class whose source draws nothing."""
from __future__ import annotations

import ast
import importlib.util
import re

import pytest

from conftest import REPO
from npu_lint import tables

TOOL = REPO / "tools" / "transform_tables.py"


def _tool():
    spec = importlib.util.spec_from_file_location("transform_tables", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_row_points_at_a_draw_in_a_named_library_release():
    rows = tables.read_tsv("random_size_transforms.tsv")
    assert {row["api"] for row in rows} >= {"torchvision.transforms.v2.RandomResize", "mmcv.transforms.RandomResize",
                                            "mmcv.transforms.RandomChoiceResize"}
    for row in rows:
        assert re.fullmatch(r"(torchvision|mmcv)==[\d.]+:[\w/]+\.py:\d+", row["source"]), row
        assert re.search(r"rand", row["draw"]), row
        assert row["why"], row
    assert {row["registry"] for row in rows if row["api"].startswith("mmcv.")} == {"RandomResize",
                                                                                   "RandomChoiceResize"}


def test_the_tool_writes_a_row_per_spelling_with_the_draws_line(tmp_path, monkeypatch):
    package = tmp_path / "lib"
    (package / "aug").mkdir(parents=True)
    (package / "aug" / "__init__.py").write_text("from .geometry import Jitter\n", encoding="utf-8")
    (package / "aug" / "geometry.py").write_text(
        "import torch\n\n\nclass Jitter:\n    def params(self):\n        s = torch.randint(10, 20, ())\n"
        "        return int(s)\n", encoding="utf-8")
    curated = tmp_path / "curated.csv"
    curated.write_text("api,registry,package,file,class,evidence\n"
                       "lib.aug.Jitter,Jitter,lib,aug/geometry.py,Jitter,size drawn per call\n", encoding="utf-8")
    tool = _tool()
    monkeypatch.setattr(tool, "CURATED", curated)
    (path,) = tool.build({"lib": ("1.0", package)}, tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines == [tool.HEADER,
                     "lib.aug.Jitter\tJitter\tsize drawn per call\ttorch.randint(10, 20, ())\tlib==1.0:aug/geometry.py:6",
                     "lib.aug.geometry.Jitter\tJitter\tsize drawn per call\ttorch.randint(10, 20, ())\t"
                     "lib==1.0:aug/geometry.py:6"]


def test_the_tool_refuses_a_class_that_draws_nothing(tmp_path, monkeypatch):
    package = tmp_path / "lib"
    package.mkdir()
    (package / "resize.py").write_text("class Resize:\n    def __call__(self, img):\n        return img\n",
                                       encoding="utf-8")
    curated = tmp_path / "curated.csv"
    curated.write_text("api,registry,package,file,class,evidence\nlib.Resize,,lib,resize.py,Resize,none\n",
                       encoding="utf-8")
    tool = _tool()
    monkeypatch.setattr(tool, "CURATED", curated)
    with pytest.raises(SystemExit, match="draws no random number"):
        tool.build({"lib": ("1.0", package)}, tmp_path)


def test_the_first_draw_is_found_in_any_method():
    tool = _tool()
    tree = ast.parse("import numpy as np\nclass A:\n    def a(self):\n        return 1\n"
                     "    @staticmethod\n    def b():\n        return np.random.randint(3)\n")
    assert tool.first_draw(tree.body[1]).lineno == 7
