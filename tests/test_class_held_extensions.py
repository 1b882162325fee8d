"""NPU223 at calls into a compiled extension a class keeps for every caller (lava-dl's ``Accelerated``), also in a
project that registers operators of its own with ``TORCH_LIBRARY`` (the registered namespace's ``torch.ops`` calls
are asked first, then any other attribute receiver)."""
from __future__ import annotations

from pathlib import Path

from conftest import package_findings

DYNAMICS = '''import torch
from torch.utils.cpp_extension import load


class Accelerated:
    module = None

    @staticproperty
    def leaky_integrator():
        if Accelerated.module is None:
            Accelerated.module = load(name="dynamics", sources=["leaky_integrator.cu"])
        return Accelerated.module


def dynamics(x, decay):
    y = Accelerated.leaky_integrator.fwd(x, decay)
    return torch.ops.myops.scale(y)
'''
OPS_CPP = '''#include <torch/library.h>
TORCH_LIBRARY(myops, m) { m.def("scale(Tensor x) -> Tensor"); }
'''


def test_class_held_extension_with_registered_operators(tmp_path: Path) -> None:
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "ops.cpp").write_text(OPS_CPP, encoding="utf-8")
    found = package_findings(tmp_path, {"dynamics": DYNAMICS})
    calls = sorted((line, code) for name, line, code in found if name == "dynamics.py" and code == "NPU223")
    assert calls == [(16, "NPU223"), (17, "NPU223")]
