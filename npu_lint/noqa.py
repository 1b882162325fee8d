"""``# noqa`` handling shared by ``npu-lint check``, the flake8 plugin and ``npu-lint analyse``.

flake8's and ruff's conventions: ``# noqa`` drops every finding on the statement, ``# noqa: NPU205`` (or a
prefix such as ``NPU2``; codes compared case-insensitively, separated by commas or spaces) only those codes,
on any physical line of the statement; ``# flake8: noqa`` (or ``# ruff: noqa``) without codes anywhere in the
file drops the whole file, as flake8 does.
"""
from __future__ import annotations

import re
from typing import Iterable, Mapping, Sequence

from npu_lint.finding import Finding

_NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_FILE_NOQA = re.compile(r"#\s*(?:flake8|ruff)[:=]\s*noqa(?P<codes>:\s?[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*)?\b",
                        re.IGNORECASE)


def file_is_disabled(source: str) -> bool:
    """``# flake8: noqa`` with no codes: flake8 does not report anything in the file (with codes it is ignored)."""
    if "noqa" not in source and "NOQA" not in source:
        return False
    return any(match.group("codes") is None for match in _FILE_NOQA.finditer(source))


def suppresses(line: str, code: str) -> bool:
    """Whether one physical line carries a ``# noqa`` that covers ``code``."""
    if "#" not in line:
        return False
    for match in _NOQA.finditer(line):
        codes = match.group("codes")
        if not codes:
            return True
        if any(code.startswith(c.upper()) for c in re.split(r"[,\s]+", codes) if c):
            return True
    return False


def without_noqa(findings: Iterable[Finding], spans: Mapping[Finding, tuple[int, int]],
                 lines: Sequence[str]) -> list[Finding]:
    """Drop the findings whose statement (``spans``: its first and last physical line) carries a ``# noqa``
    covering the code, or all of them in a file marked ``# flake8: noqa``."""
    findings = list(findings)
    if findings and file_is_disabled("\n".join(lines)):
        return []
    kept = []
    for finding in findings:
        first, last = spans.get(finding, (finding.line, finding.end_line))
        if not any(suppresses(lines[n - 1], finding.code) for n in range(max(first, 1), min(last, len(lines)) + 1)):
            kept.append(finding)
    return kept
