"""Issue 11 fuzzing (bounded): deep and long expressions, odd tokens and odd file names never crash the core, the
instrumenter or ``npu-lint check``; every run is a skip with a reason or a result, never a traceback."""
from __future__ import annotations

import ast
import os
import sys
import warnings

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from npu_lint.core import analyse_source  # noqa: E402
from npu_lint.rules import all_rules  # noqa: E402

EVERY_CODE = frozenset(rule.code for rule in all_rules())
ATOMS = ["x", "t", "self.w", "torch.sigmoid(x)", "mask", "0", "1.5", "'cuda'", "x.cuda()", "t.item()", "F.silu(a)",
         "torch.zeros(n)", "é", "None", "[a, b]", "(a, b)", "{a: b}", "x[mask]", "lambda: x"]
BINARY = [" + ", " * ", " - ", " @ ", " / ", " and ", " or ", " < ", " == ", " if c else ", " | "]
WRAPPERS = ["({})", "f({})", "torch.tanh({})", "not {}", "-{}", "{}.view(-1)", "{}[mask]", "{}.a", "lambda: {}",
            "[{} for _ in y]", "await {}", "(yield {})", "DataLoader(dataset={}, batch_size=4)", "int({})"]
TEMPLATES = ["import torch\nimport torch.nn.functional as F\nfrom torch.utils.data import DataLoader\n{body}\n",
             "import torch\ndef f(x, mask, n):\n    return {body}\n", "import torch\nasync def g():\n    y = {body}\n",
             "import torch\nx[{body}] = 0\n", "import torch\nfor i in range({body}):\n    pass\n"]


@st.composite
def expressions(draw) -> str:
    """A long flat chain or a deep nest (up to about a thousand terms or levels) of calls, operators and atoms."""
    if draw(st.booleans()):
        terms = draw(st.integers(1, 1000))
        operator = draw(st.sampled_from(BINARY))
        atom = draw(st.sampled_from(ATOMS))
        return operator.join([atom] * terms)
    text = draw(st.sampled_from(ATOMS))
    for wrapper in draw(st.lists(st.sampled_from(WRAPPERS), max_size=90)):
        text = wrapper.format(text)
    return text


ODD_TOKENS = ["\\\n", ";", "\t", "\f", "\r\n", "\r", "# noqa\n", "\x00", "\ufeff", "\u2028", "'''\n'''", "#\udcff\n",
              "    ", "\n\n\n", "é = 1\n", "𝔵 = 2\n", "print(f'{x!r:>{w}}')\n", "match x:\n    case [a, *b]: pass\n"]


def _parses(source: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.sampled_from(TEMPLATES), expressions())
def test_deep_and_long_expressions_never_crash_the_core(template, body):
    source = template.format(body=body)
    if not _parses(source):
        return
    for finding in analyse_source(source, codes=EVERY_CODE, noqa=True):
        assert 1 <= finding.line <= finding.end_line <= source.count("\n") + 1
        assert len(finding.message) < 2000   # messages quote bounded text, whatever the input


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(st.sampled_from(ODD_TOKENS + ["x = torch.zeros(3).cuda()\n", "m(x)\n", "a = (b).c()\n"]),
                min_size=1, max_size=20))
def test_odd_tokens_never_crash_the_core_or_the_instrumenter(parts):
    from npu_lint.report.instrument import InstrumentError, instrument
    source = "import torch\n" + "".join(parts)
    if not _parses(source):
        return
    analyse_source(source, codes=EVERY_CODE)
    try:
        rewritten = instrument(source).code
    except InstrumentError:
        return   # a skip with a reason: the file is copied unchanged
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compile(rewritten, "<instrumented>", "exec", dont_inherit=True)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions())
def test_instrumenting_deep_expressions_compiles_or_skips(body):
    from npu_lint.report.instrument import InstrumentError, instrument
    source = "import torch\ndef f(x, mask, n, c, y, a, b):\n    return " + body + "\n"
    if not _parses(source) or "await" in body or "yield" in body:
        return
    try:
        rewritten = instrument(source).code
    except InstrumentError as error:
        assert str(error)   # one line saying why
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compile(rewritten, "<instrumented>", "exec", dont_inherit=True)


NAME_PIECES = ["a", "=", "+", "-", "@", "\n", "\r", " ", "\t", '"', ",", "'", "é", "模型", "\udcff", ";", "|", "%", "$"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names")
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(names=st.lists(st.lists(st.sampled_from(NAME_PIECES), min_size=1, max_size=8).map("".join), min_size=1,
                      max_size=4, unique=True))
def test_odd_file_names_in_check(tmp_path_factory, names, capsys):
    from npu_lint.cli import main
    folder = tmp_path_factory.mktemp("names")
    written = []
    for name in names:
        path = os.path.join(os.fsencode(folder), os.fsencode(name.replace("/", "_") + ".py"))
        with open(path, "w") as handle:
            handle.write("import torch\nm.cuda()\n")
        written.append(path)
    status = main(["check", str(folder)])
    out, err = capsys.readouterr()
    assert status == 1, err
    lines = out.splitlines()
    assert len(lines) == len(written) and all(": NPU203 " in line for line in lines)
