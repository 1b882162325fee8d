"""The README code table and docs/rules.md are generated from the rule classes and must be current."""
from __future__ import annotations

from conftest import REPO
from npu_lint.docs import code_table, rules_document


def test_readme_code_table_is_current():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start, end = "<!-- codes:start -->\n", "<!-- codes:end -->"
    assert start in readme and end in readme
    table = readme.split(start, 1)[1].split(end, 1)[0]
    assert table == code_table(), "run: python -m npu_lint.docs && python tools/update_readme.py"


def test_rules_document_is_current():
    assert (REPO / "docs" / "rules.md").read_text(encoding="utf-8") == rules_document()


def test_every_code_is_in_the_changelog():
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    from npu_lint.rules import all_rules
    for rule in all_rules():
        assert rule.code in changelog, rule.code
