"""``npu-lint analyse`` as a real subprocess: the vendor's layout, extra files, bad input, safety."""
from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

from conftest import REPO, run, tool

pytest.importorskip("pandas")

VENDOR_FILES = {
    "cuda_op_list.csv": ["File", "Api"],
    "unsupported_api.csv": ["File", "Start Line", "End Line", "OP", "Tips"],
    "unknown_api.csv": ["File", "Start Line", "End Line", "OP", "Tips"],
    "api_precision_advice.csv": ["File", "Start Line", "End Line", "OP", "Tips"],
    "api_performance_advice.csv": ["File", "Start Line", "End Line", "OP", "Tips"],
}
OPS_CPP = """#include <torch/extension.h>
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("nms", &nms, "nms (CUDA)");
  py::class_<RoIPool>(m, "RoIPool");
}
TORCH_LIBRARY_FRAGMENT(myops, m) {
  m.def("fused_gelu(Tensor x) -> Tensor");
}
"""


def analyse(*args: str, cwd: Path):
    return run([tool("npu-lint"), "analyse", *args], cwd=cwd)


def rows(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "detector"
    (root / "pkg" / "ops").mkdir(parents=True)
    (root / "train.py").write_text((REPO / "examples" / "train_gpu.py").read_text())
    (root / "pkg" / "ops" / "nms.cpp").write_text(OPS_CPP)
    (root / "pkg" / "ops" / "__init__.py").write_text(
        "import torch\nfrom . import nms_cuda\n\ndef nms(boxes, scores, thr):\n"
        "    return nms_cuda.nms(boxes, scores, thr)\n")
    (root / "pkg" / "quant.py").write_text("import torch\nq = torch.quantize_per_tensor(x, 0.1, 0, torch.quint8)\n")
    (tmp_path / "out").mkdir()
    return root


def test_vendor_layout_and_findings(project):
    result = analyse("-i", str(project), "-o", str(project.parent / "out"), "-v", "2.8", cwd=project.parent)
    assert result.returncode == 0, result.stderr
    report = project.parent / "out" / "detector_analysis"
    for name, header in VENDOR_FILES.items():
        assert rows(report / name)[0] == header, name
    assert (report / "pytorch_analysis.txt").is_file()
    assert rows(report / "cuda_op_list.csv")[1:] == [["pkg/ops/nms.cpp", "nms"], ["pkg/ops/nms.cpp", "RoIPool"],
                                                      ["pkg/ops/nms.cpp", "fused_gelu"]]
    unsupported = rows(report / "unsupported_api.csv")[1:]
    assert ["pkg/quant.py", "2", "2", "torch.quantize_per_tensor"] in [row[:4] for row in unsupported]
    assert any(row[0] == "pkg/ops/__init__.py" and row[1] == "5" and "NPU223" in row[4] for row in unsupported)
    assert any(row[0] == "train.py" and row[3] == "torch.nn.DataParallel" for row in unsupported)
    performance = rows(report / "api_performance_advice.csv")[1:]
    assert [row[3] for row in performance if row[0] == "NA"][-3:] == [
        "torch_npu.npu.set_compile_mode", "TASK_QUEUE_ENABLE", "HCCL_OP_BASE_FFTS_MODE_ENABLE"]
    inventory = rows(report / "api_inventory.csv")
    assert inventory[0] == ["File", "Start Line", "End Line", "API", "Status"] and len(inventory) > 30
    log = (report / "pytorch_analysis.txt").read_text()
    assert "[Progress:  0.00%]" in log and "Analyse run succeeded" in log
    assert "| unsupported_api.csv" in result.stdout and "| cuda_op_list.csv           |          3 |" in result.stdout
    leftovers = [p.name for p in (project.parent / "out").iterdir() if p.name.startswith(".")]
    assert leftovers == [".npu-lint-cache"], "a staging folder was left behind"


def test_json_sarif_versions_and_fail_on(project):
    out = project.parent / "out"
    result = analyse("-i", str(project), "-o", str(out), "--format", "json", "--format", "sarif",
                     "--versions", "2.1,2.8", "--fail-on", "NPU101", cwd=project.parent)
    assert result.returncode == 3, result.stderr
    report = out / "detector_analysis"
    findings = json.loads((report / "findings.json").read_text())["findings"]
    assert any(f["code"] == "NPU101" and f["file"] == "pkg/quant.py" for f in findings)
    sarif = json.loads((report / "findings.sarif").read_text())
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["tool"]["driver"]["name"] == "npu-lint"
    first = sarif["runs"][0]["results"][0]
    assert first["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1
    assert rows(report / "version_summary.csv")[0] == ["API", "2.1.0", "2.8.0"]
    # no NPU402 finding here (the ops wrapper's NMS is NPU401, the evaluation loader NPU415)
    clean = analyse("-i", str(project), "-o", str(out), "--force", "--fail-on", "NPU402", cwd=project.parent)
    assert clean.returncode == 0


def test_bad_input_is_one_line_and_writes_nothing(project, tmp_path):
    out = tmp_path / "out"
    (project / "notes.txt").write_text("x")
    (tmp_path / "bad.csv").write_text("name\nfoo\n")
    cases = [
        (["-i", str(tmp_path / "missing"), "-o", str(out)], 1, "does not exist"),
        (["-i", str(project / "train.py"), "-o", str(out)], 1, "is not a directory"),
        (["-i", str(project), "-o", str(tmp_path / "no" / "where")], 1, "its parent does not exist"),
        (["-i", str(project), "-o", "/proc"], 1, "/proc"),
        (["-i", str(project), "-o", str(project / "pkg")], 1, "inside the input"),
        (["-i", str(project), "-o", str(out), "-v", "3.0"], 2, "unknown torch-npu version"),
        (["-i", str(project), "-o", str(out), "-m", "magic"], 2, "invalid choice: 'magic'"),
        (["-i", str(project), "-o", str(out), "-j", "0"], 2, "0 is not between 1 and"),
        (["-i", str(project), "-o", str(out), "--fail-on", "XYZ"], 2, "unknown rule selector: 'XYZ'"),
        (["-i", str(project), "-o", str(out), "--select", "NPU9"], 2, "unknown rule selector: 'NPU9'"),
        (["-i", str(project / "pkg" / "ops" / "nothing"), "-o", str(out), "-m", "third_party"], 1, "does not exist"),
        (["-i", str(project), "-o", str(out), "-api", str(tmp_path / "bad.csv")], 2, "3rd-party API"),
        (["-i", str(project), "-o", str(out), "-env", str(tmp_path)], 1, "inside the input"),
    ]
    for args, status, text in cases:
        result = analyse(*args, cwd=tmp_path)
        assert result.returncode == status, (args, result.stderr)
        errors = [line for line in result.stderr.splitlines() if "error" in line]
        assert len(errors) == 1 and text in errors[0] and "Traceback" not in result.stderr, (args, result.stderr)
    assert list(out.iterdir()) == []


def test_existing_report_is_refused_without_prompting(project):
    out = project.parent / "out"
    assert analyse("-i", str(project), "-o", str(out), cwd=project.parent).returncode == 0
    again = analyse("-i", str(project), "-o", str(out), cwd=project.parent)
    assert again.returncode == 1 and "--force" in again.stderr
    assert analyse("-i", str(project), "-o", str(out), "--force", cwd=project.parent).returncode == 0


def test_skips_bad_files_and_symlinks_and_neutralises_cells(project, tmp_path):
    (project / "broken.py").write_text("def f(:\n")
    (project / "latin.py").write_bytes("x = 'caf\xe9'\n".encode("latin-1"))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("import torch\nm.cuda()\n")
    os.symlink(outside, project / "linked")
    (project / "=cmd.py").write_text("import torch\nq = torch.quantize_per_tensor(x, 0.1, 0, torch.quint8)\n")
    folder = tmp_path / "模型"
    folder.mkdir()
    result = analyse("-i", str(project), "-o", str(folder), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = folder / "detector_analysis"
    log = (report / "pytorch_analysis.txt").read_text()
    assert "broken.py syntax error at line 1" in log and "latin.py not valid UTF-8" in log
    assert "linked is a symbolic link, skip." in log
    assert not any("secret.py" in row[0] for row in rows(report / "api_inventory.csv"))
    assert any(row[0] == "'=cmd.py" for row in rows(report / "unsupported_api.csv"))


def test_parallel_and_cached_runs_write_the_same_report(project):
    out = project.parent / "out"
    contents = []
    for args in (["--no-cache"], ["--force"], ["--force"], ["--force", "-j", "2", "--no-cache"]):
        result = analyse("-i", str(project), "-o", str(out), *args, cwd=project.parent)
        assert result.returncode == 0, result.stderr
        report = out / "detector_analysis"
        contents.append({p.name: p.read_bytes() for p in sorted(report.glob("*.csv"))})
    assert contents[0] == contents[1] == contents[2] == contents[3]
    assert len(list((out / ".npu-lint-cache").glob("*.json"))) >= 3


def test_affinity_mode_writes_the_vendor_columns(project):
    (project / "model.py").write_text(
        "import torch\nimport torch.nn.functional as F\nfrom torchvision.ops import nms\n\n"
        "def head(q, k, boxes, scores, loss: torch.Tensor):\n"
        "    attn = torch.matmul(q, k.transpose(-2, -1))\n"
        "    keep = nms(boxes, scores, 0.5)\n"
        "    loss[loss > 10] = 0\n"
        "    return F.gelu(attn), keep\n")
    out = project.parent / "out"
    result = analyse("-i", str(project), "-o", str(out), "-m", "affinity_apis", cwd=project.parent)
    assert result.returncode == 0, result.stderr
    table = rows(out / "detector_analysis" / "affinity_api_call.csv")
    assert table[0] == ["File", "Start Line", "End Line", "Api Type", "Api Call Name", "Affinity Api Name"]
    model = [row[1:] for row in table[1:] if row[0] == "model.py"]
    assert model == [["6", "6", "torch", "torch.matmul", "torch_npu.contrib.function.matmul_transpose"],
                     ["7", "7", "function", "torchvision.ops.nms", "torch_npu.npu_nms_v4"],
                     ["8", "8", "special", "input[condition] = value",
                      "torch_npu.contrib.function.npu_fast_condition_index_put"],
                     ["9", "9", "torch", "torch.nn.functional.gelu", "torch_npu.fast_gelu"]]
    assert sorted(p.name for p in (out / "detector_analysis").iterdir()) == ["affinity_api_call.csv",
                                                                            "pytorch_analysis.txt"]
    assert "HAVE AFFINITY API" in (out / "detector_analysis" / "pytorch_analysis.txt").read_text()


def test_api_files_mark_third_party_apis_unsupported(project, tmp_path):
    (project / "seg.py").write_text("from mmcv.ops import nms\nkeep = nms(boxes, scores, 0.5)\n")
    api = tmp_path / "full_unsupported_results.csv"
    api.write_text('File,3rd-party API,Message\nmmcv/ops/nms.py,"mmcv.ops.nms\nmmcv.ops.nms.forward",x\n')
    out = project.parent / "out"
    result = analyse("-i", str(project), "-o", str(out), "-api", str(api), cwd=project.parent)
    assert result.returncode == 0, result.stderr
    unsupported = rows(out / "detector_analysis" / "unsupported_api.csv")
    assert ["seg.py", "2", "2", "mmcv.ops.nms"] in [row[:4] for row in unsupported]


def test_dynamic_shape_risks_get_their_own_file(project):
    (project / "train_multiscale.py").write_text(
        (REPO / "tests" / "fixtures" / "dynamic" / "train_multiscale.py").read_text())
    out = project.parent / "out"
    result = analyse("-i", str(project), "-o", str(out), cwd=project.parent)
    assert result.returncode == 0, result.stderr
    table = rows(out / "detector_analysis" / "dynamic_shape_risk.csv")
    assert table[0] == ["File", "Start Line", "Col", "End Line", "OP", "Tips"]   # our own file: a Col column
    found = [(row[0], int(row[1]), row[5].split()[0]) for row in table[1:] if row[0] == "train_multiscale.py"]
    assert found == [("train_multiscale.py", 26, "NPU405"), ("train_multiscale.py", 31, "NPU405"),
                     ("train_multiscale.py", 53, "NPU404"), ("train_multiscale.py", 64, "NPU403"),
                     ("train_multiscale.py", 65, "NPU403"), ("train_multiscale.py", 66, "NPU403"),
                     ("train_multiscale.py", 66, "NPU401"), ("train_multiscale.py", 67, "NPU403"),
                     ("train_multiscale.py", 71, "NPU406"), ("train_multiscale.py", 73, "NPU415")]
    assert "| dynamic_shape_risk.csv" in result.stdout


def test_mask_assignment_is_a_dynamic_shape_risk(project):
    """NPU303 (x[mask] = 0: IndexPut with a data-dependent nonzero) is listed with the NPU4xx risks; once only where
    NPU402 reports the same assignment: NPU402's row. Since session 21 NPU402's broad path reports a mask by
    construction written into any value not proven a non-tensor (``g``'s ``x`` of unknown kind): both rows are
    NPU402's."""
    (project / "masks.py").write_text("import torch\ndef f(x: torch.Tensor):\n    x[x > 0] = 0\n    return x\n"
                                      "def g(x):\n    x[x > 0] = 0\n    return x\n")
    out = project.parent / "out"
    result = analyse("-i", str(project), "-o", str(out), cwd=project.parent)
    assert result.returncode == 0, result.stderr
    table = rows(out / "detector_analysis" / "dynamic_shape_risk.csv")
    assert [(row[0], row[1], row[5].split()[0]) for row in table[1:] if row[0] == "masks.py"] == [
        ("masks.py", "3", "NPU402"), ("masks.py", "6", "NPU402")]
