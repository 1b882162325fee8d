"""Rule pages (ruff style, fixed sections) and the README code table, built from the rule classes."""
from __future__ import annotations

import ast
import inspect
import re
import textwrap

from npu_lint.rules import DOC_SECTIONS, Rule, all_rules


def sections(rule: type[Rule]) -> dict[str, str]:
    """The rule's docstring split into its fixed sections (``DOC_SECTIONS``), dedented."""
    body = inspect.cleandoc(rule.__doc__ or "").split("\n")[1:]
    found: dict[str, list[str]] = {}
    current = None
    for raw in body:
        if raw.strip().endswith(":") and raw.strip()[:-1] in DOC_SECTIONS:
            current = raw.strip()[:-1]
            found[current] = []
        elif current is not None:
            found[current].append(raw)
    return {name: textwrap.dedent("\n".join(lines)).strip() for name, lines in found.items()}


def _is_code(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


def rule_page(rule: type[Rule]) -> str:
    """The documentation page of one rule, in Markdown."""
    state = "on by default" if rule.default_enabled else "off by default (select it explicitly)"
    lines = [f"## {rule.code} `{rule.name}`", "", rule.summary(), "",
             f"Family: {rule.family or '-'}; {state}; fix: {rule.fix_safety}.", ""]
    for name, text in sections(rule).items():
        lines += [f"### {name}", ""]
        lines += ["```python", text, "```"] if name in ("Example", "Use instead") and _is_code(text) else [text]
        lines.append("")
    extra = getattr(rule, "page_extra", None)   # a family's own additions (NPU3xx: targets per release, examples)
    if extra is not None:
        lines += [extra(), ""]
    return _markdown("\n".join(lines).rstrip() + "\n")


def _markdown(text: str) -> str:
    """The docstrings are reST (````x````); the pages and the README are Markdown (```x```)."""
    return re.sub(r"(?<!`)``([^`\n]+)``(?!`)", r"`\1`", text)


def code_table() -> str:
    """The Markdown table of every code, as shown in the README."""
    rows = ["| code | name | what it flags | default |", "|---|---|---|---|"]
    for rule in all_rules():
        summary = _markdown(rule.summary()).replace("|", "\\|")
        rows.append(f"| {rule.code} | `{rule.name}` | {summary} | {'on' if rule.default_enabled else 'off'} |")
    return "\n".join(rows) + "\n"


def rules_document() -> str:
    """docs/rules.md: every rule page."""
    pages = [rule_page(rule) for rule in all_rules()]
    return "# npu-lint rules\n\nGenerated from the rule classes by `python -m npu_lint.docs`; do not edit.\n\n" + \
        "\n".join(pages)


if __name__ == "__main__":  # pragma: no cover
    import sys
    from pathlib import Path

    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/rules.md")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(rules_document(), encoding="utf-8")
    print(target)
