"""ruff/flake8 conventions, run as a user would: output formats, statistics, notebooks, and the same findings
through ``npu-lint check``, flake8 and ``npu-lint analyse`` on one fixture tree."""
from __future__ import annotations

import json
import os
import re
import stat
import sys
from pathlib import Path

import pytest

from conftest import REPO, run, tool

NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Train\n", "model.cuda() in prose is not code\n"]},
        {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
         "source": ["%matplotlib inline\n", "!pip install timm\n", "import torch\n",
                    "model = torch.nn.Linear(2, 2).cuda()\n", "if torch.cuda.is_available():\n",
                    "    !nvidia-smi\n", "x = torch.ones(2, device='cuda')  # NOQA: npu205"]},
        {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [],
         "source": ["%%bash\n", "python -c 'import torch; torch.ones(1).cuda()'\n"]},
        {"cell_type": "code", "execution_count": 3, "metadata": {}, "outputs": [],
         "source": ["files = !ls\n", "model?\n", "y = x.cuda()\n"]},
    ],
    "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5,
}

# (file, line in the file, 1-based column, code) each front end must report, and nothing else.
EXPECTED = {
    ("noqa_variants.py", 3, 5, "NPU203"),          # the only unsuppressed finding of the file
    ("cookie_latin1.py", 4, 5, "NPU203"),
    ("bom.py", 2, 5, "NPU203"),
    ("train.ipynb", 20, 14, "NPU203"),             # cell 2, line 4
    ("train.ipynb", 21, 9, "NPU201"),              # cell 2, line 5
    ("train.ipynb", 44, 10, "NPU203"),             # cell 4, line 3
    ("tests/test_gpu.py", 3, 1, "NPU201"),         # per-file-ignores drops its NPU203 only
}


def fixture_tree(root: Path) -> Path:
    root.mkdir()
    (root / "pyproject.toml").write_text('[tool.npu-lint]\nextend-exclude = ["generated/"]\n'
                                         '[tool.npu-lint.per-file-ignores]\n"tests/*" = ["NPU203"]\n')
    (root / "tests").mkdir()
    (root / "tests" / "test_gpu.py").write_text("import torch\nm = m.cuda()\ntorch.cuda.synchronize()\n")
    (root / "noqa_variants.py").write_text(
        "import torch\n"
        "a = torch.device('cuda')  # NOQA: npu205\n"          # codes are case-insensitive
        "b = Net().cuda()\n"
        "c = torch.ones(2,  # noqa: NPU2\n"                    # noqa on the first line of the statement
        "               device='cuda')\n"
        "d = m.cuda(  # noqa\n"
        ")\n")
    (root / "file_noqa.py").write_text("# flake8: noqa\nimport torch\nm.cuda()\n")
    (root / "cookie_latin1.py").write_bytes(
        "# -*- coding: latin-1 -*-\nimport torch\n# caf\xe9\nm = m.cuda()\n".encode("latin-1"))
    (root / "bom.py").write_bytes(b"\xef\xbb\xbfimport torch\nm = m.cuda()\n")
    (root / "generated").mkdir()
    (root / "generated" / "ops.py").write_text("import torch\nm.cuda()\n")
    (root / "train.ipynb").write_text(json.dumps(NOTEBOOK, indent=1))
    return root


def npu_lint(*args: str, cwd: Path):
    return run([tool("npu-lint"), *args], cwd=cwd)


def test_check_flake8_and_analyse_agree_on_one_tree(tmp_path):
    root = fixture_tree(tmp_path / "proj")
    sarif = json.loads(npu_lint("check", "--select", "NPU2", "--output-format", "sarif", ".", cwd=root).stdout)
    from_check = {(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                   r["locations"][0]["physicalLocation"]["region"]["startLine"],
                   r["locations"][0]["physicalLocation"]["region"]["startColumn"], r["ruleId"])
                  for r in sarif["runs"][0]["results"]}
    flake8 = run([sys.executable, "-m", "flake8", "--select", "NPU2", "--filename", "*.py,*.ipynb", "."], cwd=root)
    from_flake8 = set()
    for line in flake8.stdout.splitlines():
        path, number, column, rest = line.split(":", 3)
        from_flake8.add((path[2:] if path.startswith("./") else path, int(number), int(column), rest.split()[0]))
    out = tmp_path / "out"
    report = npu_lint("analyse", "-i", str(root), "-o", str(out), "--select", "NPU2", "--format", "json", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    findings = json.loads((out / "proj_analysis" / "findings.json").read_text())["findings"]
    from_analyse = {(f["file"], f["line"], f["column"], f["code"]) for f in findings}
    assert from_check == EXPECTED
    assert from_flake8 == EXPECTED, flake8.stdout + flake8.stderr
    assert from_analyse == EXPECTED


def test_notebook_findings_point_at_cells(tmp_path):
    root = fixture_tree(tmp_path / "proj")
    result = npu_lint("check", "train.ipynb", cwd=root)
    assert result.returncode == 1
    assert [line.split(": ")[0] + " " + line.split(": ")[1].split()[0] for line in result.stdout.splitlines()] == [
        "train.ipynb:cell 2:4:9 NPU203", "train.ipynb:cell 2:5:4 NPU201", "train.ipynb:cell 4:3:5 NPU203"]
    items = json.loads(npu_lint("check", "--output-format", "json", "train.ipynb", cwd=root).stdout)
    assert [(i["cell"], i["location"]["row"], i["location"]["column"], i["code"]) for i in items] == [
        (2, 4, 9, "NPU203"), (2, 5, 4, "NPU201"), (4, 3, 5, "NPU203")]
    sarif = json.loads(npu_lint("check", "--output-format", "sarif", "train.ipynb", cwd=root).stdout)
    assert [r["properties"] for r in sarif["runs"][0]["results"]] == [
        {"cell": 2, "cellLine": 4}, {"cell": 2, "cellLine": 5}, {"cell": 4, "cellLine": 3}]


def test_notebook_magics_and_broken_cells(tmp_path):
    from npu_lint.notebooks import parse_notebook
    notebook = parse_notebook(json.dumps(NOTEBOOK))
    lines = notebook.source.splitlines()
    assert lines[:2] == ["pass", "pass"] and lines[5] == "    pass"   # magics, shell escapes, in a block too
    assert "bash" not in notebook.source and "model?" not in notebook.source
    timed = dict(NOTEBOOK, cells=[{"cell_type": "code", "metadata": {}, "outputs": [],
                                   "source": ["%%time\n", "import torch\n", "m.cuda()\n"]}])
    assert parse_notebook(json.dumps(timed)).source.splitlines()[:3] == ["pass", "import torch", "m.cuda()"]
    broken = dict(NOTEBOOK, cells=[{"cell_type": "code", "metadata": {}, "outputs": [], "source": "def f(:\n"}])
    (tmp_path / "b.ipynb").write_text(json.dumps(broken))
    (tmp_path / "nojson.ipynb").write_text("{not json")
    result = npu_lint("check", ".", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout.startswith("b.ipynb:cell 1:1:7: NPU001 syntax error")
    assert "nojson.ipynb: skipped: not a notebook (invalid JSON" in result.stderr


def test_sarif_validates_against_the_sarif_schema(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    root = fixture_tree(tmp_path / "proj")
    (root / "more.py").write_text((REPO / "examples" / "train_gpu.py").read_text())
    result = npu_lint("check", "--select", "ALL", "--output-format", "sarif", ".", cwd=root)
    assert result.returncode == 1
    document = json.loads(result.stdout)
    schema = json.loads((REPO / "tests" / "data" / "sarif-2.1.0-subset.schema.json").read_text())
    jsonschema.validate(document, schema)
    assert len(document["runs"][0]["results"]) > 40
    out = tmp_path / "out"
    assert npu_lint("analyse", "-i", str(root), "-o", str(out), "--format", "sarif", cwd=tmp_path).returncode == 0
    jsonschema.validate(json.loads((out / "proj_analysis" / "findings.sarif").read_text()), schema)
    broken = dict(document, version="2.0.0")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_github_gitlab_json_and_full_formats(tmp_path):
    (tmp_path / "a.py").write_text("import torch\nm = Net().cuda()\nlr = torch.optim.SGD(p, lr=0.1)\n")
    github = npu_lint("check", "--output-format", "github", "a.py", cwd=tmp_path)
    assert github.returncode == 1
    assert github.stdout.splitlines()[0] == (
        "::error title=npu-lint (NPU203),file=a.py,line=2,col=5,endLine=2::a.py:2:5: NPU203 .cuda() moves to a "
        "CUDA device: use .npu() (or .to(device) with an 'npu' device)")
    assert github.stdout.splitlines()[1].startswith("::warning title=npu-lint (NPU301),file=a.py,line=3,col=6")
    gitlab = json.loads(npu_lint("check", "--output-format", "gitlab", "a.py", cwd=tmp_path).stdout)
    assert [(g["check_name"], g["location"]["path"], g["location"]["lines"]["begin"], g["severity"]) for g in gitlab] \
        == [("NPU203", "a.py", 2, "major"), ("NPU301", "a.py", 3, "minor")]
    assert len({g["fingerprint"] for g in gitlab}) == 2
    items = json.loads(npu_lint("check", "--output-format", "json", "a.py", cwd=tmp_path).stdout)
    assert items[0]["code"] == "NPU203" and items[0]["location"] == {"row": 2, "column": 5}
    assert items[0]["fix"]["applicability"] == "safe" and items[1]["fix"] is None
    full = npu_lint("check", "--output-format", "full", "a.py", cwd=tmp_path).stdout.splitlines()
    assert full[:5] == ["a.py:2:5: NPU203 [*] .cuda() moves to a CUDA device: use .npu() (or .to(device) with an "
                        "'npu' device)", "  |", "2 | m = Net().cuda()", "  |     ^ NPU203", "  |"]
    empty = npu_lint("check", "--output-format", "json", "--select", "NPU4", "a.py", cwd=tmp_path)
    assert empty.returncode == 0 and json.loads(empty.stdout) == []


def test_statistics_in_ruffs_layout_then_the_migration_summary(tmp_path):
    (tmp_path / "a.py").write_text("import torch\nm = Net().cuda()\nn = Net().cuda()\ntorch.cuda.synchronize()\n"
                                   "from torch.utils.cpp_extension import CUDAExtension\n"
                                   "ext = CUDAExtension('x', ['x.cu'])\n")
    (tmp_path / "b.py").write_text("import torch\nx = torch.ones(2).cuda()\n")
    result = npu_lint("check", "--statistics", ".", cwd=tmp_path)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    # NPU215 on the import of CUDAExtension and on the call (session 21): counts first, then code order
    assert lines[:3] == ["3\tNPU203\t[*] cuda-method", "2\tNPU215\t[ ] cuda-extension",
                         "1\tNPU201\t[ ] cuda-api-redirected"]
    assert lines[3] == ""
    assert lines[4].startswith("Migration summary: 2 files to change, 6 lines to change, effort large")
    assert re.match(r"\s+a\.py\s+large\s+5\s+5\s+83", lines[7]) and re.match(r"\s+b\.py\s+small\s+1\s+1\s+1", lines[8])
    stats = json.loads(npu_lint("check", "--statistics", "--output-format", "json", ".", cwd=tmp_path).stdout)
    assert stats[0] == {"code": "NPU203", "name": "cuda-method", "count": 3, "fixable": True}


def test_help_names_exit_codes_defaults_and_choices(tmp_path):
    top = npu_lint(cwd=tmp_path)
    assert top.returncode == 2 and all(name in top.stderr for name in ("check", "analyse", "rules", "rule", "tables"))
    check = npu_lint("check", "--help", cwd=tmp_path).stdout
    assert "exit status" in check and "--torch-npu-version" in check and "--output-format" in check
    assert "default: torch-npu-version in [tool.npu-lint], else 2.14.0" in " ".join(check.split())
    analyse = " ".join(npu_lint("analyse", "--help", cwd=tmp_path).stdout.split())
    assert "torch_apis, third_party, affinity_apis, dynamic_shape" in analyse and "3 --fail-on" in analyse
    bad = npu_lint("check", "--nope", cwd=tmp_path)
    assert bad.stderr == "npu-lint: error: unrecognized arguments: --nope (see 'npu-lint check --help')\n"
    page = npu_lint("rule", "NPU203", cwd=tmp_path).stdout
    assert "`.cuda()`" in page and re.search(r"(?<!`)``(?!`)", page) is None   # Markdown, not reST


@pytest.mark.parametrize("spelling", ["-v", "--torch-npu-version", "--torch-version", "--npu-torch-version"])
def test_one_release_option_with_the_old_spellings(tmp_path, spelling):
    (tmp_path / "a.py").write_text("import torch\nfree, total = torch.cuda.mem_get_info()\n")
    assert "NPU202" in npu_lint("check", spelling, "2.1", "a.py", cwd=tmp_path).stdout


def test_analyse_reads_the_inputs_pyproject_and_prints_a_summary(tmp_path):
    root = tmp_path / "proj"
    (root / "legacy").mkdir(parents=True)
    for index in range(500):
        (root / f"m{index:03}.py").write_text("import torch\nm = m.cuda()\nfree = torch.cuda.mem_get_info()\n")
    (root / "legacy" / "old.py").write_text("import torch\nm.cuda()\n")
    (root / "pyproject.toml").write_text('[tool.npu-lint]\ntorch-npu-version = "2.1"\nignore = ["NPU203"]\n'
                                         'extend-exclude = ["legacy/"]\n')
    old_mask = os.umask(0o022)
    try:
        result = npu_lint("analyse", "-i", str(root), "-o", str(tmp_path / "reports"), cwd=tmp_path)
    finally:
        os.umask(old_mask)
    assert result.returncode == 0 and result.stderr == ""
    stdout = result.stdout.splitlines()
    assert len(stdout) <= 30 and stdout[-1] == f"Report: {tmp_path / 'reports' / 'proj_analysis'}"
    assert not any("WARNING" in line or "INFO" in line for line in stdout)
    report = tmp_path / "reports" / "proj_analysis"
    assert stat.S_IMODE(report.stat().st_mode) == 0o755
    log = (report / "pytorch_analysis.txt").read_text()
    assert "Target torch-npu release: 2.1.0" in log and "Mode: torch_apis" in log and "npu-lint 0.1.0" in log
    assert "ignore = NPU203" in log and "Rule tables: support/2.1.0.tsv sha256 " in log
    assert "[Progress:100.00%]" in log
    unsupported = (report / "unsupported_api.csv").read_text()
    assert unsupported.count("NPU202 torch.cuda.mem_get_info") == 500    # NPU202 on 2.1 (the configured release)
    assert "NPU203" not in (report / "cuda_usage.csv").read_text() and "legacy/old.py" not in log
    summary = (report / "migration_summary.csv").read_text().splitlines()
    assert summary[0].startswith("File,Effort,Lines To Change,Points") and summary[-1].startswith("TOTAL,")
    quiet = npu_lint("analyse", "-q", "-i", str(root), "-o", str(tmp_path / "reports"), "--force", "-v", "2.8",
                     cwd=tmp_path)
    assert quiet.returncode == 0 and quiet.stdout == "" and quiet.stderr == ""
    assert "Target torch-npu release: 2.8.0" in (report / "pytorch_analysis.txt").read_text()   # CLI overrides


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_analyse_draws_a_progress_bar_only_on_a_terminal(tmp_path):
    import pty
    import subprocess
    root = tmp_path / "proj"
    root.mkdir()
    for index in range(3):
        (root / f"m{index}.py").write_text("import torch\nm = m.cuda()\n")
    main, secondary = pty.openpty()
    try:
        process = subprocess.run([tool("npu-lint"), "analyse", "-i", str(root), "-o", str(tmp_path / "out")],
                                 stdout=secondary, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=300)
        os.close(secondary)
        chunks = []
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(main)
    shown = b"".join(chunks).decode()
    assert process.returncode == 0, process.stderr
    assert "\rAnalysing [" in shown and "100.0%" in shown and "Report: " in shown
    piped = npu_lint("analyse", "-i", str(root), "-o", str(tmp_path / "out"), "--force", cwd=tmp_path)
    assert "Analysing [" not in piped.stdout and "Report: " in piped.stdout


def test_effort_method_as_the_readme_states_it():
    from npu_lint.finding import Finding
    from npu_lint.summary import csv_rows, summarise

    def at(path, line, code):
        return path, Finding(code, "m", line, 0, line)
    findings = [at("a.py", 1, "NPU203"), at("a.py", 1, "NPU205"),      # one mechanical line: 1 point
                at("a.py", 2, "NPU101"),                                  # one rewrite line: 5 points
                at("a.py", 3, "NPU401"), at("a.py", 4, "NPU301"),        # tuning: 0.25 each, no line to change
                at("ext.py", 1, "NPU215"),                                # a port: 40 points and large
                at("tune.py", 5, "NPU402")]
    summary = summarise(findings)
    assert [(e.path, e.lines_to_change, e.points, e.size) for e in summary.files] == [
        ("ext.py", 1, 40.0, "large"), ("a.py", 2, 6.5, "small"), ("tune.py", 0, 0.25, "small")]
    assert summary.size == "large" and summary.lines_to_change == 3
    assert summary.families == {"CUDA usage": 3, "API support": 1, "dynamic shape": 2, "affinity API": 1}
    header, rows = csv_rows(summary)
    assert rows[-1][:4] == ["TOTAL", "large", 3, "46.75"]
    many = summarise([at("b.py", line, "NPU101") for line in range(1, 17)])   # 16 rewrite lines: 80 points
    assert many.files[0].size == "large" and summarise([at("c.py", 1, "NPU101")] * 3).files[0].size == "small"


def test_fail_on_all_and_unknown_codes(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("import torch\nm = m.cuda()\n")
    out = tmp_path / "out"
    assert npu_lint("analyse", "-q", "-i", str(root), "-o", str(out), "--fail-on", "ALL", cwd=tmp_path).returncode == 3
    clean = npu_lint("analyse", "-q", "-i", str(root), "-o", str(out), "--force", "--fail-on", "NPU1", cwd=tmp_path)
    assert clean.returncode == 0
    typo = npu_lint("analyse", "-i", str(root), "-o", str(out), "--force", "--fail-on", "NPU2O3", cwd=tmp_path)
    assert typo.returncode == 2 and typo.stderr.count("\n") == 1 and "unknown rule selector: 'NPU2O3' (did you mean NPU203?)" in typo.stderr
