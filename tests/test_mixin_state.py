"""A mixin's attribute set by the class it is mixed into (NPU403, ``analysis/configuration.py``): state when that
class sets it on construction, the data when a class deriving from the mixin (in another module, through the
project index) holds a tensor there."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

MIXIN = ("import torch\n\n\nclass SplitMixin:\n    def act(self, logits):\n"
         "        return torch.split(logits, self.sizes.tolist(), dim=-1)\n")


def _check(tmp_path: Path, base: str) -> str:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mixins.py").write_text(MIXIN)
    (package / "base.py").write_text(base)
    (package / "policy.py").write_text("from pkg.base import Base\nfrom pkg.mixins import SplitMixin\n\n\n"
                                       "class Policy(SplitMixin, Base):\n    pass\n")
    done = subprocess.run([sys.executable, "-m", "npu_lint", "check", "--no-cache", "--select", "NPU403", "pkg"],
                          capture_output=True, text=True, cwd=tmp_path, stdin=subprocess.DEVNULL)
    return done.stdout


def test_a_mixin_attribute_set_when_built_is_state(tmp_path):
    base = "import torch\n\n\nclass Base(torch.nn.Module):\n    def __init__(self, space):\n" \
           "        super().__init__()\n        self.sizes = space.nvec\n"
    assert "NPU403" not in _check(tmp_path, base)


def test_a_mixin_attribute_the_partner_fills_with_data_is_reported(tmp_path):
    base = "import torch\n\n\nclass Base(torch.nn.Module):\n    def forward(self, x, lengths: torch.Tensor):\n" \
           "        self.sizes = lengths.sum(0)\n        return self.act(x)\n"
    assert "pkg/mixins.py:6:16: NPU403" in _check(tmp_path, base)
