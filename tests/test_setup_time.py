"""Code that runs while a model is built (analysis/setup_time.py): NPU403 leaves a module's constructor and the
private helpers only it calls alone, unless another module of the project imports the helper (then it may run
per batch), or no project index says it does not."""
from __future__ import annotations

from pathlib import Path

from npu_lint.core import analyse_source
from npu_lint.report.collect import collect
from npu_lint.versions import Target

GRID = '''import torch


def _grid(res: torch.Tensor):
    res = res.tolist()
    return torch.arange(res[0])


class Occ(torch.nn.Module):
    def __init__(self, res):
        super().__init__()
        self.register_buffer("coords", _grid(res))
'''
TRIM = '''from pkg.grid import _grid


def step(model, res, x):
    return model(x + _grid(res).sum())
'''


def _npu403(root: Path) -> set[tuple[str, int]]:
    result = collect(root, Target("2.8.0"), lambda *args: None)
    return {(path, f.line) for path, f in result.findings if f.code == "NPU403"}


def test_a_private_helper_only_the_constructor_calls_is_setup(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "grid.py").write_text(GRID)
    assert _npu403(tmp_path) == set()


def test_a_private_helper_another_module_imports_may_run_per_batch(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "grid.py").write_text(GRID)
    (tmp_path / "pkg" / "train.py").write_text(TRIM)
    assert {line for path, line in _npu403(tmp_path) if path.endswith("grid.py")} == {5, 6}


def test_without_an_index_a_module_helper_is_not_known_to_be_setup() -> None:
    found = {(f.code, f.line) for f in analyse_source(GRID)}
    assert ("NPU403", 6) in found
