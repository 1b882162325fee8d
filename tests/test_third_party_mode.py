"""``npu-lint analyse -m third_party`` end to end, and its results fed back through ``-api``, ``api-files``,
``third-party`` and flake8 as NPU103 with the chain."""
from __future__ import annotations

import csv
import os
import shutil
import subprocess
from pathlib import Path
from typing import Optional

import pytest

from conftest import REPO, run, tool

pytest.importorskip("pandas")

FIXTURES = REPO / "tests" / "third_party_fixtures"
FIVE = ("cuda_op.csv", "framework_unsupported_op.csv", "migration_needed_op.csv", "unknown_op.csv",
        "full_unsupported_results.csv")


def analyse(*args: str, cwd: Path, env: Optional[dict] = None):
    if env is None:
        return run([tool("npu-lint"), "analyse", *args], cwd=cwd)
    return run_env([tool("npu-lint"), "analyse", *args], cwd, env)


def run_env(args: list, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL,
                          timeout=600)


def rows(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


@pytest.fixture()
def library_report(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    out.mkdir()
    result = analyse("-i", str(FIXTURES / "fixlib"), "-o", str(out), "-v", "2.8.0", "-m", "third_party",
                     "--no-cache", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return out / "fixlib_analysis"


def test_fixture_library_gives_exactly_the_expected_files(library_report):
    for name in FIVE + ("third_party_chains.csv",):
        assert rows(library_report / name) == rows(FIXTURES / "expected" / name), name
    log = (library_report / "pytorch_analysis.txt").read_text(encoding="utf-8")
    assert "Start the analysis of models/heads.py." in log
    assert "can be used as the -api parameter" in log
    assert "| framework_unsupported_op.csv |          3 |" in log
    assert "| full_unsupported_results.csv |          9 |" in log
    assert "calls resolved" in log


def test_cycle_decorator_inheritance_and_reexports_in_the_chains(library_report):
    chains = {row[0] + " " + row[2]: row[3] for row in rows(library_report / "third_party_chains.csv")[1:]}
    assert chains["fixlib.models.heads.cycle_b torch.nn.functional.adaptive_max_pool2d"] == (
        "fixlib.models.heads.cycle_b → fixlib.models.heads.cycle_a → fixlib.models.heads.pool_max → "
        "torch.nn.functional.adaptive_max_pool2d")
    assert chains["fixlib.core.box.Box.forward torch.var_mean"].split(" → ")[1] == "fixlib.core.box.BaseBox._stat"
    assert chains["fixlib.models.heads.post nms_rotated"].endswith("(custom CUDA operator)")
    affected = {row[0]: row[1].split("\n") for row in rows(library_report / "cuda_op.csv")[1:]}
    assert {"fixlib.api_nms", "fixlib.core.api_nms", "fixlib.post"} <= set(affected["nms_rotated"])
    # isinstance(x, torch.nn.GRU) is not a use; a helper with only supported ops is not affected
    text = (library_report / "third_party_chains.csv").read_text(encoding="utf-8")
    assert "torch.nn.GRU" not in text and "heads.safe" not in text


def test_more_than_100_affected_names_are_split_over_rows(tmp_path):
    lib = tmp_path / "wide"
    lib.mkdir()
    (lib / "__init__.py").write_text("")
    body = "import torch\n\ndef leaf(x):\n    return torch.var_mean(x)\n" + "".join(
        f"\n\ndef f{n}(x):\n    return leaf(x)\n" for n in range(120))
    (lib / "many.py").write_text(body)
    out = tmp_path / "out"
    out.mkdir()
    assert analyse("-i", str(lib), "-o", str(out), "-v", "2.8.0", "-m", "third_party", cwd=tmp_path).returncode == 0
    table = rows(out / "wide_analysis" / "framework_unsupported_op.csv")[1:]
    assert [row[0] for row in table] == ["torch.var_mean", "torch.var_mean"]
    assert [len(row[1].split("\n")) for row in table] == [100, 21]


def _app(tmp_path: Path) -> Path:
    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "app", app)
    return app


EXPECTED_APP = [
    ("train.py", "5", "fixlib.Box", "fixlib.core.box.Box.forward → fixlib.core.box.BaseBox._stat → torch.var_mean"),
    ("train.py", "6", "fixlib.post", "fixlib.models.heads.post → fixlib.core.ops.nms_rotated → "
                                     "torch.ops.fixlib.nms_rotated (custom CUDA operator)"),
    ("train.py", "7", "fixlib.models.heads.pool_max",
     "fixlib.models.heads.pool_max → torch.nn.functional.adaptive_max_pool2d"),
]


def test_chaining_through_api_option(library_report, tmp_path):
    app = _app(tmp_path)
    out = tmp_path / "out"
    result = analyse("-i", str(app), "-o", str(out), "-v", "2.8.0", "-api",
                     str(library_report / "full_unsupported_results.csv"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    found = [(r[0], r[1], r[3], r[4].split(": ", 1)[1]) for r in rows(out / "app_analysis" / "unsupported_api.csv")[1:]
             if r[4].startswith("NPU103")]
    assert found == EXPECTED_APP


def test_chaining_through_api_files_in_check_and_flake8(library_report, tmp_path):
    app = _app(tmp_path)
    (app / "pyproject.toml").write_text(
        f'[tool.npu-lint]\napi-files = ["{(library_report / "full_unsupported_results.csv").as_posix()}"]\n')
    check = run([tool("npu-lint"), "check", "--select", "NPU103", "train.py"], cwd=app)
    assert check.returncode == 1, check.stderr
    lines = check.stdout.splitlines()
    assert [line.split(":")[1] for line in lines] == ["5", "6", "7"]
    assert all(line.endswith(chain) for line, (*_, chain) in zip(lines, EXPECTED_APP))
    flake8 = run([tool("flake8"), "--select", "NPU103", "train.py"], cwd=app)
    assert [line.split(":")[1] for line in flake8.stdout.splitlines()] == ["5", "6", "7"], flake8.stderr
    assert "→ torch.var_mean" in flake8.stdout


def test_vendor_file_works_with_api(tmp_path):
    candidates = [root / "shared" / "data" / "vendor_runs" / "timm-1.0.31-third_party" / "full_unsupported_results.csv"
                  for root in (REPO.parent, REPO.parent.parent)]
    vendor = next((path for path in candidates if path.is_file()), None)
    if vendor is None:
        pytest.skip("the vendor's timm run is not available")
    app = tmp_path / "app"
    app.mkdir()
    (app / "m.py").write_text("from timm.layers import create_classifier\nfrom timm.layers.norm import "
                              "_layer_norm_cf\nhead = create_classifier(8, 2)\ny = _layer_norm_cf(x, w, b, 1e-5)\n")
    (tmp_path / "out").mkdir()
    result = analyse("-i", str(app), "-o", str(tmp_path / "out"), "-api", str(vendor), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    found = {r[3]: r[4] for r in rows(tmp_path / "out" / "app_analysis" / "unsupported_api.csv")[1:]}
    assert "torch.nn.AdaptiveMaxPool2d" in found["timm.layers.create_classifier"]
    # the vendor wrote layers.norm._layer_norm_cf: it counts under the package prefix too
    assert "→ torch.var_mean" in found["timm.layers.norm._layer_norm_cf"]


def test_package_option_and_third_party_setting(tmp_path):
    site = tmp_path / "site"
    shutil.copytree(FIXTURES / "fixlib", site / "fixlib")
    env = dict(os.environ, PYTHONPATH=str(site), NPU_LINT_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONDONTWRITEBYTECODE="1")
    out = tmp_path / "out"
    out.mkdir()
    result = analyse("--package", "fixlib", "-o", str(out), "-v", "2.8.0", "-m", "third_party", cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    assert rows(out / "fixlib_analysis" / "cuda_op.csv") == rows(FIXTURES / "expected" / "cuda_op.csv")
    cached = list((tmp_path / "cache" / "third_party").iterdir())
    assert [path.name for path in cached] == ["fixlib-unknown-2.8.0"]
    assert (cached[0] / "full_unsupported_results.csv").is_file()
    app = _app(tmp_path)
    (app / "pyproject.toml").write_text('[tool.npu-lint]\ntorch-version = "2.8.0"\nthird-party = ["fixlib"]\n')
    check = run_env([tool("npu-lint"), "check", "--select", "NPU103", "train.py"], app, env)
    assert [line.split(":")[1] for line in check.stdout.splitlines()] == ["5", "6", "7"], check.stderr
    missing = analyse("--package", "no_such_pkg_xyz", "-o", str(out), "-m", "third_party", cwd=tmp_path, env=env)
    errors = [line for line in missing.stderr.splitlines() if line.strip()]
    assert missing.returncode == 2 and len(errors) == 1 and "not installed" in errors[0], missing.stderr


def test_bad_input_is_one_line_and_no_report(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    empty = tmp_path / "empty"
    (empty / "docs").mkdir(parents=True)
    (tmp_path / "bad.csv").write_text("File,Message\nx.py,y\n")
    cases = [
        (["-i", str(empty), "-o", str(out), "-m", "third_party"], 1, "holds no Python module"),
        (["-i", str(FIXTURES / "fixlib"), "-o", str(out), "-m", "third_party", "-api", str(tmp_path / "bad.csv")], 2,
         "bad.csv has no '3rd-party API' column"),
        (["-i", str(FIXTURES / "fixlib"), "--package", "fixlib", "-o", str(out), "-m", "third_party"], 2, "either"),
        (["--package", "fixlib", "-o", str(out)], 2, "only applies to -m third_party"),
    ]
    for args, status, text in cases:
        result = analyse(*args, cwd=tmp_path)
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert result.returncode == status and len(lines) == 1 and text in lines[0], (args, result.stderr)
    assert [path.name for path in out.iterdir() if not path.name.startswith(".npu-lint-cache")] == []


def test_env_roots_carry_reachability_but_are_not_reported(tmp_path):
    lib, env_root = tmp_path / "lib" / "mylib", tmp_path / "envroot" / "helper"
    lib.mkdir(parents=True)
    env_root.mkdir(parents=True)
    (lib / "__init__.py").write_text("")
    (lib / "core.py").write_text("from helper.ops import slow\n\n\ndef api(x):\n    return slow(x)\n")
    (env_root / "__init__.py").write_text("")
    (env_root / "ops.py").write_text("import torch\n\n\ndef slow(x):\n    return torch.var_mean(x)\n")
    out = tmp_path / "out"
    out.mkdir()
    result = analyse("-i", str(lib), "-o", str(out), "-v", "2.8.0", "-m", "third_party", "-env",
                     str(env_root.parent), "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = out / "mylib_analysis"
    assert rows(report / "framework_unsupported_op.csv")[1:] == [["torch.var_mean", "mylib.core.api"]]
    import json
    affected = json.loads((report / "third_party.json").read_text(encoding="utf-8"))["affected"]
    assert [item["chain"] for item in affected] == [["mylib.core.api", "helper.ops.slow", "torch.var_mean"]]
    without = analyse("-i", str(lib), "-o", str(out), "-v", "2.8.0", "-m", "third_party", "--force", cwd=tmp_path)
    assert without.returncode == 0 and rows(report / "framework_unsupported_op.csv")[1:] == []


def test_a_custom_operator_name_in_another_library_is_not_the_library_operator(tmp_path):
    lib = tmp_path / "oplib"
    (lib / "csrc").mkdir(parents=True)
    (lib / "csrc" / "nms.cpp").write_text('PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def("nms", &nms);\n}\n')
    (lib / "__init__.py").write_text("")
    (lib / "ops.py").write_text("import torchvision\nfrom . import _ext\n\n\ndef mine(b, s):\n"
                                "    return _ext.nms(b, s, 0.5)\n\n\ndef theirs(b, s):\n"
                                "    return torchvision.ops.nms(b, s, 0.5)\n")
    out = tmp_path / "out"
    out.mkdir()
    assert analyse("-i", str(lib), "-o", str(out), "-v", "2.8.0", "-m", "third_party", cwd=tmp_path).returncode == 0
    assert rows(out / "oplib_analysis" / "cuda_op.csv")[1:] == [["nms", "oplib.ops.mine"]]
