"""``npu-lint check --fix`` / ``--diff``: exact drop-ins only, formatting kept, nothing else touched."""
from __future__ import annotations

import ast

import pytest

from conftest import REPO, run, tool
from npu_lint.core import analyse_source
from npu_lint.fixes import apply, fixable

pytest.importorskip("libcst")

SOURCE = '''import torch
import torch_npu  # noqa: F401

device = torch.device("cuda:0")  # pick the first card
model = Net().cuda()
opt = torch.optim.AdamW(model.parameters(),
                        lr=1e-3)  # keep this comment
x = x.to('cuda', non_blocking=True)
'''


def changed_lines(before: str, after: str) -> set[int]:
    old, new = before.splitlines(), after.splitlines()
    assert len(old) == len(new)
    return {number for number, (a, b) in enumerate(zip(old, new), 1) if a != b}


def test_fixes_change_exactly_the_reported_lines_and_keep_comments():
    findings = analyse_source(SOURCE)
    fixed, applied = apply(SOURCE, findings)
    ast.parse(fixed)
    assert changed_lines(SOURCE, fixed) == {f.line for f in applied} == {4, 5, 6, 8}
    assert "# pick the first card" in fixed and "# keep this comment" in fixed
    assert 'torch.device("npu:0")' in fixed and "Net().npu()" in fixed and "torch_npu.optim.NpuFusedAdamW(" in fixed
    again, applied_again = apply(fixed, analyse_source(fixed))
    assert again == fixed and applied_again == []


def test_optimizers_are_left_alone_without_a_torch_npu_import():
    source = "import torch\nopt = torch.optim.SGD(params, lr=0.1)\n"
    assert apply(source, analyse_source(source)) == (source, [])


@pytest.mark.parametrize("path", sorted((REPO / "tests" / "fixtures").rglob("*.py")) + [REPO / "examples" / "train_gpu.py"],
                         ids=lambda p: p.name)
def test_fixing_real_code_keeps_it_valid(path):
    source = path.read_text(encoding="utf-8")
    findings = analyse_source(source, noqa=False)
    fixed, applied = apply(source, findings)
    ast.parse(fixed)
    assert changed_lines(source, fixed) <= {n for f in applied for n in range(f.line, f.end_line + 1)}
    expected = [f for f in findings if fixable(f, source) and not _in_f_string(source, f)]
    assert sorted(applied, key=_key) == sorted(expected, key=_key)


def _key(finding):
    return finding.line, finding.col, finding.code


def _in_f_string(source: str, finding) -> bool:
    """f-strings (``f"cuda:{rank}"``) are reported but not rewritten."""
    return source.splitlines()[finding.line - 1][finding.col:][:1] in ("f", "F")


def test_fix_and_diff_on_the_command_line(tmp_path):
    target = tmp_path / "train.py"
    target.write_text(SOURCE)
    diff = run([tool("npu-lint"), "check", "--diff", "train.py"], cwd=tmp_path)
    assert diff.returncode == 0 and '+device = torch.device("npu:0")' in diff.stdout
    assert target.read_text() == SOURCE
    fix = run([tool("npu-lint"), "check", "--fix", "train.py"], cwd=tmp_path)
    assert fix.returncode == 0, fix.stdout + fix.stderr
    assert "Net().npu()" in target.read_text()
    broken = tmp_path / "broken.py"
    broken.write_text("import torch\nx = x.to('cuda'\n")
    result = run([tool("npu-lint"), "check", "--fix", "broken.py"], cwd=tmp_path)
    assert broken.read_text() == "import torch\nx = x.to('cuda'\n" and "skipped" in result.stderr
