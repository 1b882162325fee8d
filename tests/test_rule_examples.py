"""Every rule's own must-fire / must-not-fire examples, and its documentation (Fixit style)."""
from __future__ import annotations

import ast

import pytest

from npu_lint.core import analyse_source
from npu_lint.docs import sections
from npu_lint.rules import DOC_SECTIONS, all_rules

RULES = all_rules()
FIRE = [(rule, i, example) for rule in RULES for i, example in enumerate(rule.must_fire)]
QUIET = [(rule, i, example) for rule in RULES for i, example in enumerate(rule.must_not_fire)]


@pytest.mark.parametrize("rule,index,example", FIRE, ids=[f"{r.code}-fire-{i}" for r, i, _ in FIRE])
def test_must_fire(rule, index, example):
    context = frozenset(getattr(rule, "example_third_party", ()))
    findings = analyse_source(example, codes=frozenset({rule.code}), third_party=context)
    assert [f.code for f in findings].count(rule.code) >= 1, example


@pytest.mark.parametrize("rule,index,example", QUIET, ids=[f"{r.code}-quiet-{i}" for r, i, _ in QUIET])
def test_must_not_fire(rule, index, example):
    context = frozenset(getattr(rule, "example_third_party", ()))
    assert analyse_source(example, codes=frozenset({rule.code}), third_party=context) == [], example


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_rule_is_documented(rule):
    assert rule.code.startswith("NPU") and len(rule.code) == 6
    assert rule.name and rule.name == rule.name.lower() and " " not in rule.name
    assert rule.message and "\n" not in rule.message
    assert rule.family
    assert rule.fix_safety in ("safe", "unsafe", "no fix")
    assert rule.must_fire and rule.must_not_fire, "every rule needs examples both ways"
    assert list(sections(rule)) == list(DOC_SECTIONS), f"{rule.code} docstring sections"
    for example in rule.must_fire + rule.must_not_fire:
        ast.parse(example)


def test_codes_and_names_are_unique():
    assert len({r.code for r in RULES}) == len(RULES)
    assert len({r.name for r in RULES}) == len(RULES)


def test_every_finding_message_is_one_line():
    for rule in RULES:
        for example in rule.must_fire:
            for finding in analyse_source(example, codes=frozenset({rule.code})):
                assert "\n" not in finding.message and finding.message.strip() == finding.message


@pytest.mark.parametrize("code,table", [("NPU301", "affinity.tsv"), ("NPU401", "dynamic_shape.tsv")])
def test_trigger_words_cover_every_table_api(code, table):
    """A rule runs only on files holding one of its trigger words: each API its table names must contain one."""
    from npu_lint.rules import rules_by_code
    from npu_lint.tables import read_tsv
    triggers = rules_by_code()[code].triggers
    apis = [row["api"] for row in read_tsv(table) if row["api"].startswith(("torch", "apex"))]
    assert apis
    assert [api for api in apis if not any(word in api for word in triggers)] == []
