"""``npu-lint check`` as a real subprocess: output, exit codes and bad input."""
from __future__ import annotations

from pathlib import Path

from conftest import REPO, run, tool

GPU_CODE = """import torch

model = Net().cuda()
if torch.cuda.is_available():
    torch.cuda.synchronize()  # noqa: NPU201
x = x.to("cuda:0")  # noqa
"""


def npu_lint(*args: str, cwd: Path) -> "object":
    return run([tool("npu-lint"), *args], cwd=cwd)


def test_output_format_and_exit_code(tmp_path):
    (tmp_path / "train.py").write_text(GPU_CODE)
    result = npu_lint("check", "train.py", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "train.py:3:9: NPU203 .cuda() moves to a CUDA device: use .npu() (or .to(device) with an 'npu' device)",
        "train.py:4:4: NPU201 torch.cuda.is_available is a CUDA API: on NPU use torch_npu.npu.is_available "
        "(transfer_to_npu redirects it from torch-npu 2.1.0)",
    ]
    assert "Found 2 errors." in result.stderr


def test_disable_noqa_and_exit_zero(tmp_path):
    (tmp_path / "train.py").write_text(GPU_CODE)
    result = npu_lint("check", "--disable-noqa", "--exit-zero", "train.py", cwd=tmp_path)
    assert result.returncode == 0
    assert [line.split()[1] for line in result.stdout.splitlines()] == ["NPU203", "NPU201", "NPU201", "NPU205"]


def test_clean_file_and_no_files_exit_zero(tmp_path):
    (tmp_path / "ok.py").write_text("import torch\nx = torch.ones(2).npu()\n")
    assert npu_lint("check", "ok.py", cwd=tmp_path).returncode == 0
    empty = npu_lint("check", cwd=tmp_path)
    assert empty.returncode == 0 and empty.stdout == "" and empty.stderr == ""


def test_directories_are_walked_and_excludes_honoured(tmp_path):
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "a.py").write_text("m.cuda()\n")
    (tmp_path / "pkg" / "sub" / "b.py").write_text("m.cuda()\n")
    (tmp_path / "pkg" / "notes.txt").write_text("m.cuda()\n")
    (tmp_path / "venv").mkdir()
    (tmp_path / "venv" / "c.py").write_text("m.cuda()\n")
    (tmp_path / "pyproject.toml").write_text('[tool.npu-lint]\nextend-exclude = ["pkg/sub"]\n')
    result = npu_lint("check", ".", cwd=tmp_path)
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == ["pkg/a.py"]


def test_select_ignore_and_per_file_ignores(tmp_path):
    (tmp_path / "tests").mkdir()
    source = "import torch\nm.cuda()\nd = torch.device('cuda')\n"
    (tmp_path / "a.py").write_text(source)
    (tmp_path / "tests" / "t.py").write_text(source)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.npu-lint]\nignore = ["NPU205"]\n[tool.npu-lint.per-file-ignores]\n"tests/*" = ["NPU2"]\n')
    result = npu_lint("check", ".", cwd=tmp_path)
    assert [line.split()[1] for line in result.stdout.splitlines()] == ["NPU203"]
    result = npu_lint("check", "--select", "NPU205", "a.py", cwd=tmp_path)
    assert [line.split()[1] for line in result.stdout.splitlines()] == ["NPU205"]


def test_torch_version_changes_the_verdict(tmp_path):
    (tmp_path / "a.py").write_text("import torch\nfree, total = torch.cuda.mem_get_info()\n")
    new = npu_lint("check", "a.py", cwd=tmp_path).stdout
    old = npu_lint("check", "-v", "2.1", "a.py", cwd=tmp_path).stdout
    assert "NPU201" in new and "NPU202" in old and "only from torch-npu 2.2.0" in old


def test_bad_input_is_one_line_without_traceback(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.npu-lint]\nflavour = 1\n')
    (tmp_path / "a.py").write_text("m.cuda()\n")
    cases = [
        (["check", "missing.py"], "missing.py: no such file or directory"),
        (["check", "-v", "7.0", "a.py"], "unknown torch-npu version"),
        (["check", "--select", "E501", "a.py"], "unknown rule selector: 'E501'"),
        (["check", "--select", "NPU9", "a.py"], "unknown rule selector: 'NPU9'"),
        (["check", "--ignore", "NPU2055", "a.py"], "did you mean NPU205?"),
        (["check", "--output-format", "xml", "a.py"], "invalid choice: 'xml'"),
        (["check", "a.py"], "unknown key 'flavour'"),
        (["rule", "NPU999"], "unknown rule code"),
        ([], "a command is required"),
    ]
    for args, expected in cases:
        result = npu_lint(*args, cwd=tmp_path)
        assert result.returncode == 2, args
        errors = [line for line in result.stderr.splitlines() if line.startswith("npu-lint: error")]
        assert len(errors) == 1 and expected in errors[0], (args, result.stderr)
        assert "Traceback" not in result.stderr


def test_syntax_errors_are_findings_and_unreadable_files_warnings(tmp_path):
    (tmp_path / "broken.py").write_text("import torch\ndef f(:\n    x.cuda()\n")
    (tmp_path / "latin1.py").write_bytes("import torch\n# caf\xe9\nm.cuda()\n".encode("latin-1"))
    (tmp_path / "cookie.py").write_bytes("# -*- coding: latin-1 -*-\n# caf\xe9\nm.cuda()\n".encode("latin-1"))
    (tmp_path / "nul.py").write_bytes(b"import torch\x00\nm.cuda()\n")
    (tmp_path / "good.py").write_text("m.cuda()\n")
    result = npu_lint("check", ".", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.splitlines()[0].startswith("broken.py:2:7: NPU001 syntax error: invalid syntax (Python 3.")
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == ["broken.py", "cookie.py", "good.py",
                                                                           "nul.py"]
    assert "nul.py:1:1: NPU001" in result.stdout   # as flake8's E999: a NUL byte does not parse
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "Traceback" not in result.stderr
    assert "latin1.py: skipped: not valid UTF-8 (byte 18)" in warnings[0]
    # --ignore NPU001: the old behaviour, a warning that does not fail the run
    (tmp_path / "good.py").unlink()
    old = npu_lint("check", "--ignore", "NPU001", "broken.py", cwd=tmp_path)
    assert old.returncode == 0 and old.stdout == "" and "broken.py: skipped: syntax error" in old.stderr


def test_non_ascii_paths(tmp_path):
    folder = tmp_path / "模型 训练"
    folder.mkdir()
    (folder / "训练.py").write_text("m.cuda()\n", encoding="utf-8")
    result = npu_lint("check", str(folder), cwd=tmp_path)
    assert result.returncode == 1 and "训练.py:1:1: NPU203" in result.stdout


def test_analysed_code_is_never_executed(tmp_path):
    marker = tmp_path / "executed"
    (tmp_path / "evil.py").write_text(f"open({str(marker)!r}, 'w').write('x')\nimport torch\nm.cuda()\n")
    npu_lint("check", "evil.py", cwd=tmp_path)
    assert not marker.exists()


def test_rules_and_rule_pages():
    listing = npu_lint("rules", cwd=REPO)
    assert listing.returncode == 0 and "NPU205  cuda-device-string" in listing.stdout
    page = npu_lint("rule", "npu211", cwd=REPO)
    assert page.returncode == 0 and "### Why it matters on NPU" in page.stdout


def test_api_files_in_pyproject(tmp_path):
    (tmp_path / "apis.csv").write_text("3rd-party API\nmmdet.models.layers.DropBlock\n")
    (tmp_path / "pyproject.toml").write_text('[tool.npu-lint]\napi-files = ["apis.csv"]\n')
    (tmp_path / "m.py").write_text("from mmdet.models.layers import DropBlock\nblock = DropBlock(0.1, 3)\n")
    result = npu_lint("check", "m.py", cwd=tmp_path)
    assert result.stdout.startswith("m.py:2:9: NPU103 mmdet.models.layers.DropBlock is a third-party API")
    (tmp_path / "apis.csv").write_text("name\nfoo\n")
    bad = npu_lint("check", "m.py", cwd=tmp_path)
    assert bad.returncode == 2 and "api-files" in bad.stderr and "3rd-party API" in bad.stderr


def test_ctrl_c_before_the_command_runs_is_one_line_and_130(monkeypatch, capsys):
    """The console script (``npu_lint.entry``) also covers importing and option parsing."""
    import npu_lint.cli
    from npu_lint.entry import main as entry

    def interrupted(argv=None):
        raise KeyboardInterrupt
    monkeypatch.setattr(npu_lint.cli, "main", interrupted)
    assert entry() == 130
    assert capsys.readouterr().err == "npu-lint: interrupted\n"
