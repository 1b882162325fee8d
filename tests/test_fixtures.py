"""Realistic fixture files whose expected findings are written on the offending lines.

Format: ``# expect: NPU205@16 NPU203@4`` at the end of a line (0-based column, as flake8 receives
it). Every finding must be expected and every expectation found, both through the core and
through ``flake8 --select NPU`` in a real subprocess.
"""
from __future__ import annotations

import re
import sys
from collections import Counter

import pytest

from conftest import REPO, run
from npu_lint.core import analyse_source
from npu_lint.rules import all_rules

FIXTURES = sorted((REPO / "tests" / "fixtures").rglob("*.py")) + sorted((REPO / "examples").glob("*.py"))
# The family each folder's expectations cover (examples/ is the CUDA-usage quickstart).
FAMILY_OF_FOLDER = {"cuda": "NPU2", "examples": "NPU2", "affinity": "NPU3", "dynamic": "NPU4"}
EXPECT = re.compile(r"#.*?\bexpect:\s*((?:NPU\d{3}@\d+\s*)+)")
def codes_for(path) -> frozenset:
    prefix = FAMILY_OF_FOLDER[path.parent.name]
    return frozenset(rule.code for rule in all_rules() if rule.code.startswith(prefix))


def expected(path) -> Counter:
    """(line, column, code) -> how many findings (two imported names on one line give two)."""
    found: Counter = Counter()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = EXPECT.search(line)
        if match:
            for item in match.group(1).split():
                code, col = item.split("@")
                found[(number, int(col), code)] += 1
    return found


def test_there_are_fixtures():
    assert len(FIXTURES) >= 5


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_core_findings_match_the_expectations(path):
    source = path.read_text(encoding="utf-8")
    actual = Counter((f.line, f.col, f.code) for f in analyse_source(source, codes=codes_for(path), noqa=False))
    want = expected(path)
    assert sorted((actual - want).elements()) == [], "reported but not expected"
    assert sorted((want - actual).elements()) == [], "expected but not reported"


@pytest.mark.parametrize("prefix", sorted(set(FAMILY_OF_FOLDER.values())))
def test_flake8_agrees_on_every_fixture(prefix):
    paths = [p for p in FIXTURES if FAMILY_OF_FOLDER[p.parent.name] == prefix]
    off = [rule.code for rule in all_rules() if rule.code.startswith(prefix) and not rule.default_enabled]
    result = run([sys.executable, "-m", "flake8", "--isolated", "--select", ",".join([prefix, *off]), "--disable-noqa",
                  *[str(p) for p in paths]], cwd=REPO)
    assert "Traceback" not in result.stderr
    actual: Counter = Counter()
    for line in result.stdout.splitlines():
        path, number, col, rest = line.split(":", 3)
        actual[(path, int(number), int(col) - 1, rest.split()[0])] += 1
    want = Counter({(str(p), n, c, code): count for p in paths for (n, c, code), count in expected(p).items()})
    assert actual == want
