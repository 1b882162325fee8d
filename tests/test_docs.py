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


def test_every_package_is_shipped():
    """A non-editable install (what CI and users get) ships only the packages pyproject.toml lists."""
    import re
    from pathlib import Path
    repo = Path(__file__).resolve().parents[1]
    text = (repo / "pyproject.toml").read_text(encoding="utf-8")
    listed = set(re.findall(r'"(npu_lint[\w.]*)"', text.split("packages =", 1)[1].split("]", 1)[0]))
    found = {".".join(p.parent.relative_to(repo).parts) for p in (repo / "npu_lint").rglob("__init__.py")}
    assert found <= listed, f"not in [tool.setuptools] packages: {sorted(found - listed)}"
