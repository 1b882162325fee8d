"""NPU2xx on names, line by line: what is reported beside what stays quiet in one file."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest import REPO, run
from npu_lint.core import analyse_source


def lines(source: str, code: str) -> list[int]:
    return sorted({f.line for f in analyse_source(source, codes=frozenset({code}))})


def test_a_fallback_import_is_reported_and_the_uses_of_the_name_are_not():
    """``try: from torch.amp import GradScaler / except ImportError: from torch.cuda.amp import GradScaler``: the
    CUDA import is the line to change; a use may be the generic class (ignite's annotations), as may one of an
    import per backend (mmengine's ``scaler_type = GradScaler``)."""
    source = ("import torch\ntry:\n    from torch.amp import GradScaler\nexcept ImportError:\n"
              "    from torch.cuda.amp import GradScaler\n"
              "def step(scaler: GradScaler = None):\n    return scaler\n"
              "if torch.npu.is_available():\n    from torch.npu.amp import Scaler\nelse:\n"
              "    from torch.cuda.amp import GradScaler as Scaler\nscaler_type = Scaler\n")
    assert lines(source, "NPU212") == [5]   # line 11 sits beside its NPU arm (dispatch.py)


def test_only_a_cuda_binding_is_reported_at_its_use():
    source = "from torch.cuda.amp import GradScaler\nscaler = GradScaler()\n"
    assert lines(source, "NPU212") == [1, 2]


def test_the_inherited_methods_of_a_cuda_subclass_are_not_reported():
    """fairscale's ``ShardedGradScaler(torch.cuda.amp.GradScaler)`` calling ``self.unscale_(optimizer)``: the class
    statement is the line to change."""
    source = ("from torch.cuda.amp.grad_scaler import GradScaler as Base\nclass Sharded(Base):\n"
              "    def step(self, opt):\n        self.unscale_(opt)\n        return self._scale\n"
              "def use(s: Base, opt):\n    s.unscale_(opt)\n")
    assert lines(source, "NPU212")[:2] == [1, 2] and 4 not in lines(source, "NPU212")


def test_a_library_cuda_name_is_reported_at_import_and_use_but_not_the_packages_own():
    source = ("from pytorch_lightning.accelerators.cuda import CUDAAccelerator\n"
              "def on_gpu(a):\n    return isinstance(a, CUDAAccelerator) or CUDAAccelerator.is_available()\n")
    assert lines(source, "NPU202") == [1, 3]


def test_the_projects_own_cuda_named_class_is_not_a_library_name(tmp_path: Path, monkeypatch) -> None:
    """d3rlpy's ``CudaGraphWrapper`` used inside d3rlpy: the project's own code, reported where it does CUDA work."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "util.py").write_text("class CudaGraphWrapper:\n    pass\n")
    (tmp_path / "pkg" / "algo.py").write_text("import torch\nfrom pkg.util import CudaGraphWrapper\n"
                                              "f = CudaGraphWrapper()\nv = torch.version.cuda\n")
    monkeypatch.setenv("PYTHONPATH", str(REPO))   # this tree's npu_lint, not an installed one
    done = run([sys.executable, "-m", "npu_lint", "check", "--select", "NPU202", "--output-format", "json", "-q",
                "--no-cache", "--exit-zero", str(tmp_path)], cwd=tmp_path)
    found = {d["location"]["row"] for d in json.loads(done.stdout) if d["filename"].endswith("algo.py")}
    assert found == {4}
