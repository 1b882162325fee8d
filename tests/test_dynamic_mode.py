"""``npu-lint analyse -m dynamic_shape``, the static half: the instrumented copy, --wrap-loop, errors (no torch)."""
from __future__ import annotations

import ast
import hashlib
import os
import sys
import types
from pathlib import Path

import pytest

from conftest import REPO, run, tool
from npu_lint.report.collect import collect
from npu_lint.report.instrument import IMPORT_LINE, instrument
from npu_lint.versions import default_release, parse_target

pytest.importorskip("pandas")

TRAIN = '''#!/usr/bin/env python
"""Train a small model."""
from __future__ import annotations

import os.path   # stdlib: never wrapped
import torch
import torch.nn as nn
from torch.nn import functional as F

from .layers import Block


class Net(nn.Module):
    scale = torch.ones(1)          # class body: left alone

    def __init__(self, width=int("4")):
        super().__init__()
        self.fc = nn.Linear(width, 2)

    @torch.jit.ignore
    def debug(self, x):
        return x.sum()

    def forward(self, x: torch.Tensor = torch.zeros(1)) -> torch.Tensor:
        # a comment line
        h = F.relu(self.fc(x))  # trailing comment
        return (h
                .view(-1)       # kept where it was
                .mean())


def train(model, loader, steps):
    print(len(loader), os.path.join("a", "b"))
    for step, (x, y) in enumerate(loader):
        out = model(x)
        loss = F.mse_loss(out, y, reduction="mean")
        total = torch.stack(part for part in [loss, loss])
        print(f"{step}: {loss.item()}")
        if step == steps:
            break
    return Block()(total)
'''


def analyse(*args: str, cwd: Path):
    return run([tool("npu-lint"), "analyse", *args], cwd=cwd)


def tree_digest(root: Path) -> dict[str, str]:
    """Every entry under ``root`` (links not followed) with a hash of its bytes or link target."""
    digest = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            key = path.relative_to(root).as_posix()
            if path.is_symlink():
                digest[key] = "link:" + os.readlink(path)
            elif path.is_file():
                digest[key] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                digest[key] = "dir"
    return digest


class Unwrap(ast.NodeTransformer):
    """Undo the instrumentation on the AST: what is left must be the original program."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "DETECTOR":
            if func.attr in ("hook_func", "hook_args"):
                assert isinstance(node.args[1], ast.Constant) and isinstance(node.args[2], ast.Constant)
                return ast.Call(node.args[0], node.args[3:], node.keywords)
            if func.attr == "start":
                return node.args[0]
        return node

    def visit_Assign(self, node: ast.Assign) -> ast.AST | None:
        target = node.targets[0]
        if isinstance(target, ast.Name) and target.id == "DETECTOR":    # the detector's import
            return None
        return self.generic_visit(node)


def same_program(original: str, instrumented: str) -> bool:
    strip = lambda text: ast.dump(ast.fix_missing_locations(Unwrap().visit(ast.parse(text))))  # noqa: E731
    return strip(original) == ast.dump(ast.parse(original)) == strip(instrumented)


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "pkg" / "__pycache__").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "pkg" / "train.py").write_text(TRAIN)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "layers.py").write_text("import torch\n\n\nclass Block(torch.nn.Module):\n    pass\n")
    (root / "pkg" / "ops.py").write_text("import torch\n\n\ndef pick(x):\n    return torch.nonzero(x).cuda()\n")
    (root / "pkg" / "__pycache__" / "train.cpython-311.pyc").write_bytes(b"\0")
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "broken.py").write_text("import torch\ntorch.relu(x\n")
    (root / "config.yaml").write_text("lr: 0.1\n")
    (root / "run.sh").write_text("#!/bin/sh\npython pkg/train.py\n")
    (root / "run.sh").chmod(0o755)
    outside = tmp_path / "outside.py"
    outside.write_text("import torch\ntorch.relu(1)\n")
    os.symlink(outside, root / "linked_out.py")
    os.symlink("pkg/layers.py", root / "layers_alias.py")
    (tmp_path / "out").mkdir()
    return root


def test_copy_is_the_same_program_with_calls_wrapped(project: Path):
    before = tree_digest(project)
    result = analyse("-i", str(project), "-o", str(project.parent / "out"), "-m", "dynamic_shape",
                     "--wrap-loop", "pkg/train.py:34", cwd=project.parent)
    assert result.returncode == 0, result.stderr
    assert tree_digest(project) == before, "the input tree was modified"
    report = project.parent / "out" / "proj_analysis"
    original, copy = TRAIN, (report / "pkg" / "train.py").read_text()
    assert same_program(original, copy)
    # Same number of lines; a line without a rewritten call is byte-identical, comments survive in place.
    assert len(copy.splitlines()) == len(original.splitlines())
    changed = [number for number, (old, new) in enumerate(zip(original.splitlines(), copy.splitlines()), 1)
               if old != new]
    assert changed == [3, 26, 27, 28, 29, 34, 35, 36, 37, 41]
    for old, new in zip(original.splitlines(), copy.splitlines()):
        if "#" in old and not old.startswith("#!"):
            assert new.endswith(old[old.index("#"):]), (old, new)
    lines = copy.splitlines()
    assert lines[2] == "from __future__ import annotations; " + IMPORT_LINE
    assert lines[33] == "    for step, (x, y) in DETECTOR.start(enumerate(loader)):"
    assert "DETECTOR" not in "\n".join(lines[12:22]), "class body, __init__ and torch.jit code are left alone"
    assert lines[23] == "    def forward(self, x: torch.Tensor = torch.zeros(1)) -> torch.Tensor:"
    assert lines[25] == ("        h = DETECTOR.hook_args(F.relu, 'torch.nn.functional.relu', 0, "
                         "DETECTOR.hook_args(self.fc, 'self.fc', 1, x))  # trailing comment")
    assert lines[32] == '    print(len(loader), os.path.join("a", "b"))'
    assert lines[36] == ("        total = DETECTOR.hook_args(torch.stack, 'torch.stack', 0, "
                         "(part for part in [loss, loss]))")
    assert lines[37] == '        print(f"{step}: {loss.item()}")'
    assert lines[40] == "    return DETECTOR.hook_args(Block(), 'Block(...)', 0, total)"
    # Untouched files, the skipped folders, links, the detector and the log.
    assert (report / "pkg" / "layers.py").read_bytes() == (project / "pkg" / "layers.py").read_bytes()
    assert (report / "pkg" / "__init__.py").read_bytes() == b""
    assert (report / "broken.py").read_bytes() == (project / "broken.py").read_bytes()
    assert (report / "config.yaml").read_bytes() == b"lr: 0.1\n"
    assert os.access(report / "run.sh", os.X_OK)
    assert not (report / ".git").exists() and not (report / "pkg" / "__pycache__").exists()
    assert not (report / "linked_out.py").exists()
    assert os.readlink(report / "layers_alias.py") == "pkg/layers.py"
    assert (report / "msft_dynamic_analysis" / "hook.py").read_text() == \
        (REPO / "npu_lint" / "runtime" / "hook.py").read_text()
    assert (report / "msft_dynamic_analysis" / "__init__.py").is_file()
    log = (report / "pytorch_analysis.txt").read_text()
    warnings = [line for line in log.splitlines() if "[WARNING]" in line]
    assert len([w for w in warnings if "broken.py" in w]) == 1 and "copied unchanged" in log
    assert any("linked_out.py is a symbolic link out of the input" in w for w in warnings)
    assert "PYTHONPATH" in log and "for batch in DETECTOR.start(loader):" in log
    assert "pkg/train.py:34: the loop now runs over DETECTOR.start" in log
    assert "Analyse run succeeded" in log and "| wrapped call sites" in log
    # The static NPU4xx findings of the same tree (whatever rules exist), and no other family.
    collected = collect(project, parse_target(default_release()), lambda *_: None)
    expected = sorted(f"{path} line: {f.line} ~ {f.end_line}   Operation Type: {f.code}"
                      for path, f in collected.findings if f.code.startswith("NPU4"))
    listed = sorted(line.split("[WARNING] ")[1].split("   Message:")[0]
                    for line in warnings if "Operation Type" in line)
    assert listed == expected
    assert [p.name for p in (project.parent / "out").iterdir() if p.name.startswith(".")] == [".npu-lint-cache"]


def test_what_is_wrapped_and_what_is_not():
    source = '''import logging
import numpy as np
import torch
from torch import jit
from torch.nn.functional import relu
from helpers import tool


def local():
    pass


@torch.compile
def compiled(x):
    return x.sin()


@jit.script
def scripted(x):
    return torch.relu(x)


def f(x, model, layers, log=logging.getLogger(__name__)):
    local(); tool(x); len(x); np.mean(x); isinstance(x, int); super().forward(x)
    x.to("cpu").item(); log.info("x"); "{}".format(x); torch.jit.script(f)
    relu(x); model(x); layers[0](x); x.sum(); torch.cat([x]); (lambda: x)()
'''
    result = instrument(source)
    lines = result.code.splitlines()
    assert lines[0] == IMPORT_LINE + "; import logging"
    assert "DETECTOR" not in "\n".join(lines[1:23])
    assert lines[23] == ("    local(); tool(x); len(x); np.mean(x); isinstance(x, int); super().forward(x)")
    assert lines[24] == '''    x.to("cpu").item(); log.info("x"); "{}".format(x); torch.jit.script(f)'''
    assert lines[25] == (
        "    DETECTOR.hook_args(relu, 'torch.nn.functional.relu', 0, x); DETECTOR.hook_args(model, 'model', 1, x); "
        "DETECTOR.hook_args(layers[0], 'layers[...]', 2, x); DETECTOR.hook_args(x.sum, 'x.sum', 3); "
        "DETECTOR.hook_args(torch.cat, 'torch.cat', 4, [x]); DETECTOR.hook_args((lambda: x), '<expression>', 5)")
    assert result.wrapped == 6


def test_names_are_looked_up_where_they_stand():
    """The semantic model's view of each name at its place: an import inside a function counts in that function
    only, a parameter or local value hides an import or a ``def`` of the same name, a lambda's parameter and a
    comprehension's target hide the module's names, and a line with non-ASCII text before a name still finds it."""
    source = '''import tarfile
import numpy as np


def helper():
    pass


def uses_local_import(x):
    from torch.nn import functional as F
    return F.relu(x)


def no_import_here(x):
    return F.relu(x)


def shadowed(tarfile, helper, np):
    tarfile.getmembers(); helper(); np.mean(1)


def scoped(xs):
    a = [np(x) for np in xs]; b = (lambda tarfile: tarfile.members())(xs)
    s = "é"; tarfile.open(s); np.zeros(3)
'''
    lines = instrument(source).code.splitlines()
    assert lines[10] == "    return DETECTOR.hook_args(F.relu, 'torch.nn.functional.relu', 0, x)"
    assert lines[14] == "    return DETECTOR.hook_args(F.relu, 'F.relu', 0, x)"
    assert lines[18] == ("    DETECTOR.hook_args(tarfile.getmembers, 'tarfile.getmembers', 0); "
                         "DETECTOR.hook_args(helper, 'helper', 1); DETECTOR.hook_args(np.mean, 'np.mean', 2, 1)")
    assert lines[22] == ("    a = [DETECTOR.hook_args(np, 'np', 0, x) for np in xs]; "
                         "b = DETECTOR.hook_args((lambda tarfile: DETECTOR.hook_args(tarfile.members, "
                         "'tarfile.members', 2)), '<expression>', 1, xs)")
    assert lines[23] == '''    s = "é"; tarfile.open(s); np.zeros(3)'''


def test_import_placement_keeps_line_numbers():
    assert instrument("import torch\nx = torch.ones(1)\n").code == \
        IMPORT_LINE + "; import torch\nx = DETECTOR.hook_args(torch.ones, 'torch.ones', 0, 1)\n"
    assert instrument('"""Doc.\n\nMore."""\nimport torch\ny = torch.ones(1)\n').code.splitlines()[2] == \
        'More."""; ' + IMPORT_LINE
    compound = "# licence\n\nif True:\n    import torch\n    y = torch.ones(1)\n"
    assert instrument(compound).code == "# licence\n" + IMPORT_LINE + "\nif True:\n    import torch\n" \
        "    y = DETECTOR.hook_args(torch.ones, 'torch.ones', 0, 1)\n"
    untouched = "import os\n\nprint(os.getcwd())\n"
    assert instrument(untouched).code == untouched and not instrument(untouched).changed


def test_evaluation_order_and_results_are_unchanged(monkeypatch):
    source = '''
order = []
def _note(value):
    order.append(value)
    return value
note = _note          # a name bound by assignment can be anything at runtime: wrapped

class Box:
    def pick(self, *args, **kwargs):
        order.append("call")
        return args, kwargs

def _make():
    order.append("callable")
    return Box()
make = _make

result = make().pick(note(1), *[note(2)], key=note(3), **{"other": note(4)})
pairs = list(zip(*((note(i),) for i in range(2))))
'''
    calls = []

    class Detector:
        def hook_func(self, func, name, index, /, *args, **kwargs):
            calls.append(name)
            return func(*args, **kwargs)

        def hook_args(self, func, name, index, /, *args):
            calls.append(name)
            return func(*args)

    monkeypatch.setitem(sys.modules, "msft_dynamic_analysis", types.ModuleType("msft_dynamic_analysis"))
    hook = types.ModuleType("msft_dynamic_analysis.hook")
    hook.DETECTOR = Detector()
    monkeypatch.setitem(sys.modules, "msft_dynamic_analysis.hook", hook)
    plain, wrapped = {}, {}
    exec(compile(source, "plain", "exec"), plain)
    exec(compile(instrument(source).code, "wrapped", "exec"), wrapped)
    assert wrapped["order"] == plain["order"] == ["callable", 1, 2, 3, 4, "call", 0, 1]
    assert wrapped["result"] == plain["result"] and wrapped["pairs"] == plain["pairs"]
    assert calls == ["make", "note", "note", "note", "note", "make(...).pick", "note", "note"]
    assert "Box()" in instrument(source).code, "a class defined in the file is not wrapped"


def test_calls_without_keywords_take_the_cheaper_entry():
    """``hook_args`` (no keyword dictionary) for positional calls, ``hook_func`` for keyword or starred ones."""
    code = instrument("import torch\ndef f(x, xs, kw):\n    return torch.cat(xs), torch.cat(xs, dim=0), "
                      "torch.cat(*xs), torch.cat(**kw)\n").code
    assert code.splitlines()[2] == (
        "    return DETECTOR.hook_args(torch.cat, 'torch.cat', 0, xs), DETECTOR.hook_func(torch.cat, 'torch.cat', 1, "
        "xs, dim=0), DETECTOR.hook_func(torch.cat, 'torch.cat', 2, *xs), DETECTOR.hook_func(torch.cat, 'torch.cat', "
        "3, **kw)")


def test_wrap_loop_and_bad_input_are_one_line_errors(project: Path, tmp_path: Path):
    out = tmp_path / "out"
    instrumented = tmp_path / "instrumented"
    (instrumented / "msft_dynamic_analysis").mkdir(parents=True)
    (instrumented / "train.py").write_text("x = 1\n")
    base = ["-i", str(project), "-o", str(out), "-m", "dynamic_shape"]
    cases = [
        (base + ["--wrap-loop", "pkg/missing.py:3"], 1, "does not exist in the input"),
        (base + ["--wrap-loop", "pkg/train.py:33"], 1, "no for loop starts at line 33 of pkg/train.py"),
        (base + ["--wrap-loop", "broken.py:1"], 1, "broken.py cannot be instrumented"),
        (base + ["--wrap-loop", "pkg/train.py"], 1, "expected FILE:LINE"),
        (base + ["--wrap-loop", "../outside.py:1"], 1, "is not a Python file in the input"),
        (base + ["--wrap-loop", "config.yaml:1"], 1, "is not a Python file in the input"),
        (["-i", str(project), "-o", str(out), "--wrap-loop", "pkg/train.py:34"], 2, "only applies to -m dynamic_shape"),
        (["-i", str(instrumented), "-o", str(out), "-m", "dynamic_shape"], 1, "looks instrumented already"),
    ]
    for args, status, text in cases:
        result = analyse(*args, cwd=tmp_path)
        assert result.returncode == status, (args, result.stderr)
        errors = [line for line in result.stderr.splitlines() if "error" in line]
        assert len(errors) == 1 and text in errors[0] and "Traceback" not in result.stderr, (args, result.stderr)
    assert list(out.iterdir()) in ([], [out / ".npu-lint-cache"])
    assert not any(p.name.endswith("_analysis") or p.name.startswith(".proj") for p in out.iterdir())


def test_existing_output_is_refused_without_force(project: Path):
    out = project.parent / "out"
    args = ["-i", str(project), "-o", str(out), "-m", "dynamic_shape"]
    assert analyse(*args, cwd=project.parent).returncode == 0
    (out / "proj_analysis" / "msft_dynamic_shape_analysis_report.csv").write_text("old\n")
    again = analyse(*args, cwd=project.parent)
    assert again.returncode == 1 and "already exists (use --force" in again.stderr
    assert analyse(*args, "--force", cwd=project.parent).returncode == 0
    assert not (out / "proj_analysis" / "msft_dynamic_shape_analysis_report.csv").exists()
