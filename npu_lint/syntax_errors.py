"""``NPU001``: a file that does not parse is a finding (flake8's E999, ruff's syntax errors), not a warning."""
from __future__ import annotations

import ast
from typing import Union

from npu_lint import collector
from npu_lint.config import SPECIAL_CODES, SYNTAX_ERROR
from npu_lint.finding import Finding
from npu_lint.sources import GRAMMAR

SYNTAX_ERROR_NAME = SPECIAL_CODES[SYNTAX_ERROR][0]


def parse_or_finding(source: str, filename: str) -> Union[ast.Module, Finding]:
    """The module, or the ``NPU001`` finding that says why it does not parse."""
    try:
        return collector.parse(source, filename)
    except SyntaxError as error:
        line = error.lineno or 1
        col = max((error.offset or 1) - 1, 0)
        return Finding(SYNTAX_ERROR, f"syntax error: {error.msg} ({GRAMMAR} grammar)", line, col, line,
                       family="syntax")
    except (ValueError, RecursionError, MemoryError) as error:
        return Finding(SYNTAX_ERROR, f"cannot parse: {type(error).__name__}: {error}".splitlines()[0], 1, 0, 1,
                       family="syntax")
