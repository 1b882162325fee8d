"""Write the generated parts of the docs: the README code table and docs/rules.md.

Usage: ``python tools/update_readme.py`` (tests/test_docs.py fails until they are current).
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from npu_lint.docs import code_table, rules_document  # noqa: E402

START, END = "<!-- codes:start -->\n", "<!-- codes:end -->"


def main() -> int:
    readme = REPO / "README.md"
    text = readme.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    readme.write_text(head + START + code_table() + END + tail, encoding="utf-8")
    docs = REPO / "docs" / "rules.md"
    docs.parent.mkdir(exist_ok=True)
    docs.write_text(rules_document(), encoding="utf-8")
    print(readme, docs, sep="\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
