"""Generated programs must never crash the core (bugbear-style fuzzing), and positions stay valid."""
from __future__ import annotations

import ast
import sys
import sysconfig
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

from npu_lint.core import analyse_source  # noqa: E402
from npu_lint.rules import all_rules  # noqa: E402

EVERY_CODE = frozenset(rule.code for rule in all_rules())
EXAMPLES = [example for rule in all_rules() for example in rule.must_fire + rule.must_not_fire]
TEMPLATES = [
    "import torch as {n}\n", "from torch import {n}\n", "from torch.cuda import {n}\n", "import {n}.cuda\n",
    "{n} = torch.cuda\n", "{n} = {n}.{n}({s!r})\n", "{n}[{s!r}] = {s!r}\n", "if {n} == {s!r}:\n    {n}.cuda()\n",
    "for {n}, ({n}, {n}) in enumerate({n}_loader):\n    {n}.{n}()\n", "def {n}({n}: torch.Tensor = {s!r}):\n    return {n}\n",
    "class {n}({n}.Module):\n    def forward(self, x):\n        self.{n} = x.cuda()\n        return lambda: self.{n}\n",
    "with torch.autocast({s!r}):\n    pass\n", "x = f'{{{n}}}:{s}'\n", "os.environ.update({{{s!r}: {n}}})\n",
    "try:\n    import {n}\nexcept ImportError:\n    {n} = None\n", "global {n}\n", "{n} = [{n} for {n} in {n} if {n}]\n",
    "@torch.jit.script\n@{n}\ndef {n}(*a, **k):\n    yield from a\n", "async def {n}():\n    async for {n} in {n}:\n        await {n}\n",
    "del {n}\n", "{n}: int = ({n} := {s!r})\n", "from . import {n}\n", "from ..{n} import *\n",
    "assert {s!r} in ({s!r}, {n}), {s!r}\n", "print(*{n}, sep={s!r})\n", "{n} = torch.device({s!r}, {n})\n",
]
NAMES = st.sampled_from(["torch", "cuda", "nn", "amp", "x", "self", "os", "environ", "dist", "F", "apex", "model",
                         "np", "_C", "nms_cuda", "DataParallel", "is_cuda", "Tensor", "env"])
STRINGS = st.sampled_from(["cuda", "cuda:0", "nccl", "NCCL", "npu", "CUDA_VISIBLE_DEVICES", "NCCL_DEBUG",
                           "torch.cuda.FloatTensor", "", "cuda:nccl,cpu:gloo", "é", "{", "\\n"])


@st.composite
def programs(draw) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 12))):
        if draw(st.booleans()):
            parts.append(draw(st.sampled_from(EXAMPLES)))
        else:
            template = draw(st.sampled_from(TEMPLATES))
            names = iter(draw(st.lists(NAMES, min_size=12, max_size=12)))
            parts.append(template.format_map(_Fill(names, draw(STRINGS))))
    source = "import os\nimport torch\n" + "".join(parts)
    if draw(st.booleans()):
        source = "def outer():\n" + "".join("    " + line + "\n" for line in source.splitlines())
    return source


class _Fill(dict):
    def __init__(self, names, string):
        super().__init__()
        self.names, self.string = names, string

    def __missing__(self, key):
        return next(self.names) if key == "n" else self.string


def _check_positions(source: str) -> None:
    findings = analyse_source(source, codes=EVERY_CODE)
    lines = source.splitlines()
    for finding in findings:
        assert 1 <= finding.line <= finding.end_line <= len(lines)
        assert 0 <= finding.col <= len(lines[finding.line - 1])
        assert finding.code in EVERY_CODE and finding.message


@settings(max_examples=300, deadline=None)
@given(programs())
def test_generated_programs_never_crash(source):
    try:
        ast.parse(source)
    except SyntaxError:
        return
    _check_positions(source)


def test_standard_library_never_crashes():
    """Real code of every style: a sample of the interpreter's own standard library."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(stdlib.glob("*.py"))[:400] + sorted(stdlib.glob("unittest/*.py"))
    assert len(files) > 100
    for path in files:
        try:
            source = path.read_text(encoding="utf-8")
            ast.parse(source)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        _check_positions(source)


def test_pathological_nesting():
    chain = "import torch\nx = " + " + ".join(["torch.ones(1)"] * 800) + "\ny = x" + ".float()" * 300 + ".cuda()\n"
    assert [f.code for f in analyse_source(chain, codes=EVERY_CODE)] == ["NPU203"]
    assert sys.getrecursionlimit() >= 1000


def _as_lambdas(example: str) -> str:
    """``example`` plus, for each expression its functions return, assign or evaluate, a module-level lambda of the
    function's parameters returning it (a lambda's body is an expression, not a list of statements)."""
    tree = ast.parse(example)
    lambdas = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params = ", ".join(a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs)
        for node in ast.walk(function):
            if isinstance(node, (ast.Return, ast.Expr, ast.Assign)) and node.value is not None:
                candidate = f"_lambda{len(lambdas)} = lambda {params}: ({ast.unparse(node.value)})\n"
                try:
                    ast.parse(candidate)
                except SyntaxError:     # ``yield`` / ``await``: no lambda holds them
                    continue
                lambdas.append(candidate)
    return example + "".join(lambdas)


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_lambdas_of_every_example_never_crash(rule):
    """A lambda's body is one expression: ``lambda xs: torch.cat(xs)`` once stopped a whole file (a rule walked the
    body as a list of statements)."""
    for example in rule.must_fire + rule.must_not_fire:
        _check_positions(_as_lambdas(example))
