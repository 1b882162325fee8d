"""The pre-commit hook, end to end: ``pre-commit try-repo`` against a throw-away git repository."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from conftest import REPO, run

pytestmark = pytest.mark.skipif(shutil.which("git") is None or not (REPO / ".git").exists(),
                                reason="needs git and a git checkout of npu-lint")


def pre_commit(*args: str, cwd) -> subprocess.CompletedProcess:
    return run([sys.executable, "-m", "pre_commit", *args], cwd=cwd)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    pytest.importorskip("pre_commit")
    path = tmp_path_factory.mktemp("user_project")
    for args in (["init", "-q"], ["config", "user.email", "t@example.com"], ["config", "user.name", "t"]):
        subprocess.run(["git", *args], cwd=path, check=True, capture_output=True)
    (path / "train.py").write_text("import torch\nmodel = Net().cuda()\nx = x.to('cuda')\n")
    (path / "clean.py").write_text("import torch\nmodel = Net().npu()\n")
    (path / "README.md").write_text("not python\n")
    subprocess.run(["git", "add", "."], cwd=path, check=True)
    return path


def test_manifest_is_valid():
    pytest.importorskip("pre_commit")
    result = pre_commit("validate-manifest", str(REPO / ".pre-commit-hooks.yaml"), cwd=REPO)
    assert result.returncode == 0, result.stdout + result.stderr


def test_hook_fails_on_findings_and_prints_them(project):
    result = pre_commit("try-repo", str(REPO), "npu-lint", "--files", "train.py", "clean.py", cwd=project)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "train.py:2:9: NPU203" in output and "train.py:3:10: NPU205" in output
    assert not any(line.startswith("clean.py:") for line in output.splitlines())


def test_hook_passes_on_clean_files(project):
    result = pre_commit("try-repo", str(REPO), "npu-lint", "--files", "clean.py", cwd=project)
    assert result.returncode == 0, result.stdout + result.stderr


def test_empty_file_set_does_not_crash(project):
    result = pre_commit("try-repo", str(REPO), "npu-lint", "--files", "README.md", cwd=project)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    env = dict(os.environ)
    direct = subprocess.run([sys.executable, "-m", "npu_lint", "check"], cwd=project, capture_output=True, env=env)
    assert direct.returncode == 0


def test_hook_fails_on_a_syntax_error_and_checks_notebooks(project):
    (project / "broken.py").write_text("import torch\ndef f(:\n    pass\n")
    (project / "explore.ipynb").write_text(
        '{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,\n'
        ' "source": ["!nvidia-smi\\n", "import torch\\n", "m = Net().cuda()"]}],\n'
        ' "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n')
    subprocess.run(["git", "add", "."], cwd=project, check=True)
    result = pre_commit("try-repo", str(REPO), "npu-lint", "--files", "broken.py", "explore.ipynb", cwd=project)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "broken.py:2:7: NPU001 syntax error" in output and "explore.ipynb:cell 1:3:5: NPU203" in output
