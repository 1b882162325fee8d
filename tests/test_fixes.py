"""``npu-lint check --fix`` / ``--diff``: exact drop-ins only, formatting kept, nothing else touched."""
from __future__ import annotations

import ast

import pytest

from conftest import REPO, run, tool
from npu_lint.core import analyse_source
from npu_lint.fixes import apply, fixable
from npu_lint.rules import rules_by_code
from npu_lint.versions import parse_target

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
    """Lines changed in place (an ``import torch_npu`` the .cuda()/'cuda' fixes add is taken out first)."""
    old, new = before.splitlines(), after.splitlines()
    if len(new) == len(old) + 1 and "import torch_npu" in new and "import torch_npu" not in old:
        new.remove("import torch_npu")
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


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize("path", sorted((REPO / "tests" / "fixtures").rglob("*.py")) + [REPO / "examples" / "train_gpu.py"],
                         ids=lambda p: p.name)
def test_fixing_real_code_keeps_it_valid(path, unsafe):
    source = path.read_text(encoding="utf-8")
    findings = analyse_source(source, noqa=False)
    fixed, applied = apply(source, findings, unsafe=unsafe)
    ast.parse(fixed)
    assert changed_lines(source, fixed) <= {n for f in applied for n in range(f.line, f.end_line + 1)}
    expected = [f for f in findings if fixable(f, source, unsafe) and not _in_f_string(source, f)]
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
    assert diff.returncode == 1 and '+device = torch.device("npu:0")' in diff.stdout   # ruff: 1 when it would fix
    assert diff.stderr == "Would fix 4 errors.\n"
    assert target.read_text() == SOURCE
    fix = run([tool("npu-lint"), "check", "--fix", "--show-fixes", "train.py"], cwd=tmp_path)
    assert fix.returncode == 0, fix.stdout + fix.stderr
    assert "Net().npu()" in target.read_text()
    assert fix.stderr.splitlines() == ["Fixed 4 errors:", "- train.py:", "    1 \u00d7 NPU203 (cuda-method)",
                                       "    2 \u00d7 NPU205 (cuda-device-string)", "    1 \u00d7 NPU301 (affinity-api)",
                                       "Found 4 errors (4 fixed, 0 remaining)."]
    clean = run([tool("npu-lint"), "check", "--diff", "train.py"], cwd=tmp_path)
    assert clean.returncode == 0 and clean.stdout == ""


def test_cuda_fixes_add_the_torch_npu_import_or_say_why_not(tmp_path):
    (tmp_path / "a.py").write_text("import os\nimport torch\n\nm = Net().cuda()\n")
    (tmp_path / "b.py").write_text("def to_gpu(m):\n    return m.cuda()\n")   # no torch import to follow
    result = run([tool("npu-lint"), "check", "--fix", "a.py", "b.py"], cwd=tmp_path)
    assert (tmp_path / "a.py").read_text() == "import os\nimport torch\nimport torch_npu\n\nm = Net().npu()\n"
    assert (tmp_path / "b.py").read_text() == "def to_gpu(m):\n    return m.cuda()\n"
    assert result.returncode == 1 and result.stdout.startswith("b.py:2:12: NPU203")
    assert "1 fix not applied: .npu() and the 'npu' device needs 'import torch_npu'" in result.stderr


def test_unsafe_fixes_alone_is_not_silently_ignored(tmp_path):
    (tmp_path / "a.py").write_text(MASKED)
    result = run([tool("npu-lint"), "check", "--unsafe-fixes", "a.py"], cwd=tmp_path)
    assert result.returncode == 1 and (tmp_path / "a.py").read_text() == MASKED
    assert "--unsafe-fixes changes nothing without --fix or --diff" in result.stderr
    broken = tmp_path / "broken.py"
    broken.write_text("import torch\nx = x.to('cuda'\n")
    result = run([tool("npu-lint"), "check", "--fix", "broken.py"], cwd=tmp_path)
    assert broken.read_text() == "import torch\nx = x.to('cuda'\n" and "broken.py:2:9: NPU001" in result.stdout


SILU = """import torch.nn as nn
import torch.nn.functional as F
import torch_npu  # noqa: F401

act = nn.SiLU()  # the block's activation
act_inplace = nn.SiLU(inplace=True)
gelu = nn.GELU()
y = F.gelu(x)
"""
TARGET_2_5 = parse_target("2.5")


def test_silu_module_becomes_the_contrib_module_where_it_is_a_drop_in():
    findings = analyse_source(SILU, target=TARGET_2_5)
    assert sorted((f.line, f.api) for f in findings if f.code == "NPU301") == [
        (5, "torch.nn.SiLU"), (6, "torch.nn.SiLU"), (7, "torch.nn.GELU"), (8, "torch.nn.functional.gelu")]
    fixed, applied = apply(SILU, findings)
    ast.parse(fixed)
    # nn.SiLU(inplace=True) is no drop-in (the contrib module takes no argument); fast_gelu approximates GELU
    assert changed_lines(SILU, fixed) == {f.line for f in applied} == {5}
    assert "act = torch_npu.contrib.module.SiLU()  # the block's activation\n" in fixed
    assert "nn.SiLU(inplace=True)" in fixed and "nn.GELU()" in fixed and "F.gelu(x)" in fixed


def test_silu_is_left_alone_without_a_torch_npu_import_or_for_releases_that_deprecate_the_module():
    source = SILU.replace("import torch_npu  # noqa: F401\n", "")
    assert apply(source, analyse_source(source, target=TARGET_2_5)) == (source, [])
    assert not [f for f in analyse_source(SILU) if f.api == "torch.nn.SiLU"]   # 2.6.0+: nn.SiLU is the advice


MASKED = """import torch

loss = torch.zeros(8)
ignore = loss < 0
loss[ignore] = 0  # ignored positions
weights = torch.ones(8)
weights[~ignore] = 0.5; total = weights.sum()
loss[ignore] = fill_value
"""


def test_masked_assignment_fix_is_unsafe_and_needs_the_flag():
    findings = analyse_source(MASKED)
    assert sorted(f.line for f in findings if f.code == "NPU303") == [5, 7, 8]
    assert rules_by_code()["NPU303"].fix_safety == "unsafe" and rules_by_code()["NPU301"].fix_safety == "safe"
    assert apply(MASKED, findings) == (MASKED, [])
    fixed, applied = apply(MASKED, findings, unsafe=True)
    ast.parse(fixed)
    assert changed_lines(MASKED, fixed) == {f.line for f in applied} == {5, 7}   # a name on the right: not fixed
    assert "loss.masked_fill_(ignore, 0)  # ignored positions\n" in fixed
    assert "weights.masked_fill_(~ignore, 0.5); total = weights.sum()\n" in fixed
    assert "loss[ignore] = fill_value\n" in fixed
    again, applied_again = apply(fixed, analyse_source(fixed), unsafe=True)
    assert again == fixed and applied_again == []


def test_unparseable_source_is_left_alone_even_with_unsafe_fixes():
    findings = analyse_source(MASKED)
    broken = MASKED + "def broken(:\n"
    assert apply(broken, findings, unsafe=True) == (broken, [])


def test_unsafe_fixes_on_the_command_line(tmp_path):
    target = tmp_path / "train.py"
    target.write_text(MASKED)
    safe = run([tool("npu-lint"), "check", "--fix", "train.py"], cwd=tmp_path)
    assert safe.returncode == 1 and target.read_text() == MASKED
    assert "2 hidden fixes can be enabled with the `--unsafe-fixes` option" in safe.stderr
    diff = run([tool("npu-lint"), "check", "--diff", "--unsafe-fixes", "train.py"], cwd=tmp_path)
    assert diff.returncode == 1 and "+loss.masked_fill_(ignore, 0)  # ignored positions" in diff.stdout
    assert target.read_text() == MASKED
    fix = run([tool("npu-lint"), "check", "--fix", "--unsafe-fixes", "train.py"], cwd=tmp_path)
    assert fix.returncode == 1 and fix.stdout.count("NPU303") == 1   # loss[ignore] = fill_value stays
    assert changed_lines(MASKED, target.read_text()) == {5, 7}
    assert "--unsafe-fixes" in run([tool("npu-lint"), "check", "--help"], cwd=tmp_path).stdout


def test_why_the_masked_assignment_fix_is_unsafe():
    """Same result when the mask has the tensor's shape; a row mask indexes rows but masked_fill_ broadcasts it
    over the last dimension, so the rewrite silently fills columns instead."""
    torch = pytest.importorskip("torch")
    x = torch.arange(9.0).reshape(3, 3)
    full, rows = x > 4, torch.tensor([True, False, False])
    indexed, filled = x.clone(), x.clone()
    indexed[full] = 0
    filled.masked_fill_(full, 0)
    assert torch.equal(indexed, filled)
    indexed, filled = x.clone(), x.clone()
    indexed[rows] = 0
    filled.masked_fill_(rows, 0)
    assert indexed[0].eq(0).all() and not torch.equal(indexed, filled)
