"""The core's per-name dispatch (``wants_api``, ``callees``/``methods``/``wants_call``, ``constant_types``) only
skips rule calls that could not fire: every rule's examples and the fixture files give the same findings with
the declarations ignored."""
from __future__ import annotations

from pathlib import Path

import pytest

from npu_lint import core
from npu_lint.core import analyse_source
from npu_lint.rules import Rule, all_rules

RULES = all_rules()
EVERY = frozenset(rule.code for rule in RULES)
EXAMPLES = [example for rule in RULES for example in rule.must_fire + rule.must_not_fire]
FIXTURES = sorted((Path(__file__).parent / "fixtures").rglob("*.py"))


def _findings(sources: list[str]) -> list[list]:
    result = []
    for source in sources:
        try:
            result.append(analyse_source(source, codes=EVERY))
        except (SyntaxError, ValueError):
            result.append(None)
    return result


@pytest.fixture
def ungated(monkeypatch):
    """Every Dispatch built while it is active ignores the rules' name declarations."""
    build = core.Dispatch._build

    def without_names(self, instances):
        build(self, instances)
        self._api_filtered, self.gated_calls, self.constants = False, False, None

    core.dispatch_for.cache_clear()
    monkeypatch.setattr(core.Dispatch, "_build", without_names)
    yield
    monkeypatch.undo()
    core.dispatch_for.cache_clear()


def test_some_rules_declare_names():
    assert any(rule.wants_api.__func__ is not Rule.wants_api.__func__ for rule in RULES)
    assert any(rule.callees is not None or rule.methods is not None for rule in RULES)
    assert any(rule.constant_types is not None for rule in RULES)


@pytest.mark.parametrize("sources", [EXAMPLES, [path.read_text(encoding="utf-8", errors="replace")
                                                 for path in FIXTURES]], ids=["rule examples", "fixture files"])
def test_declarations_drop_no_finding(sources, request):
    core.dispatch_for.cache_clear()
    gated = _findings(sources)
    assert sum(len(found or ()) for found in gated) > 50
    request.getfixturevalue("ungated")
    assert _findings(sources) == gated
