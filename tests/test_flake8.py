"""The flake8 plugin as users run it: ``flake8 --select NPU`` in a real subprocess."""
from __future__ import annotations

import sys
from pathlib import Path

from npu_lint.core import analyse_source
from conftest import run

SOURCE = """import torch
import torch.distributed as dist

device = torch.device("cuda")
model = build().cuda()  # noqa: NPU203
free, total = torch.cuda.mem_get_info()
if dist.get_backend() == "nccl":
    pass
"""


def flake8(*args: str, cwd: Path):
    return run([sys.executable, "-m", "flake8", *args], cwd=cwd)


def lines(result) -> list[str]:
    return [line.split(":", 1)[1] for line in result.stdout.splitlines()]


def test_flake8_reports_the_core_findings_with_flake8_columns(tmp_path):
    (tmp_path / "train.py").write_text(SOURCE)
    result = flake8("--select", "NPU", "train.py", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    expected = [f"{f.line}:{f.col + 1}: {f.code} {f.message}" for f in analyse_source(SOURCE)
                if f.code != "NPU203"]   # flake8 honours the noqa comment itself
    assert lines(result) == expected
    assert [line.split()[1] for line in result.stdout.splitlines()] == ["NPU205", "NPU201", "NPU208"]


def test_not_selected_means_no_output(tmp_path):
    (tmp_path / "train.py").write_text(SOURCE)
    result = flake8("--select", "F", "train.py", cwd=tmp_path)
    assert "NPU" not in result.stdout and "F821" in result.stdout


def test_selection_is_worked_out_once_so_unselected_runs_cost_nothing(tmp_path, monkeypatch):
    import pytest
    parse_args = pytest.importorskip("flake8.options.parse_args").parse_args   # flake8 >= 6
    from npu_lint.flake8_plugin import NpuLintChecker
    monkeypatch.chdir(tmp_path)
    parse_args(["--select", "F"])
    assert NpuLintChecker.codes == frozenset()
    assert list(NpuLintChecker(None, "x.py", ["import torch\n", "m.cuda()\n"]).run()) == []
    parse_args(["--select", "NPU"])
    assert "NPU201" in NpuLintChecker.codes and "NPU102" not in NpuLintChecker.codes   # off by default
    parse_args(["--select", "NPU", "--extend-select", "NPU102"])
    assert "NPU102" in NpuLintChecker.codes
    parse_args(["--select", "NPU2", "--extend-ignore", "NPU205"])
    assert "NPU203" in NpuLintChecker.codes and "NPU205" not in NpuLintChecker.codes


def test_extend_ignore_and_version_option(tmp_path):
    (tmp_path / "train.py").write_text(SOURCE)
    result = flake8("--select", "NPU", "--extend-ignore", "NPU205", "--npu-torch-version", "2.1", "train.py",
                    cwd=tmp_path)
    codes = [line.split()[1] for line in result.stdout.splitlines()]
    assert codes == ["NPU202", "NPU208"]


def test_pyproject_version_and_flake8_option_wins(tmp_path):
    (tmp_path / "train.py").write_text(SOURCE)
    (tmp_path / "pyproject.toml").write_text('[tool.npu-lint]\ntorch-version = "2.1.0"\nignore = ["NPU208"]\n')
    from_pyproject = flake8("--select", "NPU", "train.py", cwd=tmp_path)
    assert [line.split()[1] for line in from_pyproject.stdout.splitlines()] == ["NPU205", "NPU202"]
    overridden = flake8("--select", "NPU", "--npu-torch-version", "2.6", "train.py", cwd=tmp_path)
    assert [line.split()[1] for line in overridden.stdout.splitlines()] == ["NPU205", "NPU201"]


def test_flake8_config_file_option(tmp_path):
    (tmp_path / "train.py").write_text(SOURCE)
    (tmp_path / "setup.cfg").write_text("[flake8]\nselect = NPU\nnpu-torch-version = 2.1\n")
    result = flake8("train.py", cwd=tmp_path)
    assert "NPU202" in result.stdout


def test_bad_version_is_one_line(tmp_path):
    (tmp_path / "train.py").write_text(SOURCE)
    result = flake8("--select", "NPU", "--npu-torch-version", "0.1", "train.py", cwd=tmp_path)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("npu-lint: error: --npu-torch-version")


def test_syntax_error_and_non_torch_files(tmp_path):
    (tmp_path / "broken.py").write_text("def f(:\n    x.cuda()\n")
    (tmp_path / "plain.py").write_text("MODE = 'cuda'\nprint(MODE == 'cuda')\n")
    result = flake8("--select", "NPU,E999", "broken.py", "plain.py", cwd=tmp_path)
    assert "Traceback" not in result.stderr
    assert [line.split()[1] for line in result.stdout.splitlines()] == ["E999"]


def test_parallel_jobs_give_the_same_findings(tmp_path):
    for index in range(6):
        (tmp_path / f"m{index}.py").write_text(SOURCE)
    one = flake8("--select", "NPU", "-j", "1", ".", cwd=tmp_path)
    two = flake8("--select", "NPU", "-j", "2", ".", cwd=tmp_path)
    assert sorted(one.stdout.splitlines()) == sorted(two.stdout.splitlines()) and len(one.stdout.splitlines()) == 18


def test_the_flake8_path_imports_neither_pandas_nor_libcst(tmp_path):
    code = ("import sys\nfrom npu_lint.flake8_plugin import NpuLintChecker\nimport ast\n"
            "src = open('train.py').read()\n"
            "list(NpuLintChecker(ast.parse(src), 'train.py', src.splitlines(True)).run())\n"
            "print(sorted(m for m in ('pandas', 'libcst', 'numpy') if m in sys.modules))\n")
    (tmp_path / "train.py").write_text(SOURCE)
    result = run([sys.executable, "-c", code], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_release_option_names_noqa_case_and_unknown_codes(tmp_path):
    (tmp_path / "train.py").write_text(SOURCE.replace("# noqa: NPU203", "# NOQA: npu203"))
    new = flake8("--select", "NPU", "--torch-npu-version", "2.1", "train.py", cwd=tmp_path)
    assert [line.split()[1] for line in new.stdout.splitlines()] == ["NPU205", "NPU202", "NPU208"]
    shown = flake8("--select", "NPU", "--disable-noqa", "train.py", cwd=tmp_path)
    assert "NPU203" in shown.stdout
    typo = flake8("--select", "E,NPU9", "train.py", cwd=tmp_path)
    assert typo.returncode == 2 and typo.stdout == ""
    assert typo.stderr.strip() == "npu-lint: error: --select: unknown rule selector: 'NPU9' (did you mean NPU419?)"


def test_the_plugin_freezes_start_up_state_once_and_holds_the_core_freeze(tmp_path):
    """The collector is off during each walk (its full passes scanned the whole model of the file), the core's own
    per-walk freeze is held off, and after the first file what is alive is frozen once; the same findings on every
    file."""
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text(SOURCE)
    script = (
        "import gc, sys\n"
        "from npu_lint import collector, flake8_plugin\n"
        "held = []\n"
        "real = collector.walking\n"
        "def spy():\n"
        "    held.append((collector.HELD[0], gc.isenabled()))\n"
        "    return real()\n"
        "collector.walking = spy   # the core imports it at each walk\n"
        "from flake8.main.cli import main\n"
        "code = main(['--isolated', '-j1', '--select=NPU', 'a.py', 'b.py', 'c.py'])\n"
        "print(code, held, collector.HELD[0], len(flake8_plugin._FROZEN), gc.get_freeze_count() > 0, file=sys.stderr)\n")
    result = run([sys.executable, "-c", script], cwd=tmp_path)
    assert result.stderr.strip().splitlines()[-1] == "1 [(1, False), (1, False), (1, False)] 0 1 True", result.stderr
    assert len(result.stdout.splitlines()) == 3 * 3
