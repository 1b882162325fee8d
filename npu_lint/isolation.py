"""Per-file isolation: a bug of ours triggered by one file skips that file with one line, never the run.

Every front end (``check``, ``--fix``, flake8, ``analyse`` and its workers, instrumentation) catches what
analysing one file raises and turns it into :func:`internal_error` text; a run that had any ends with
:data:`EXIT_INTERNAL_ERROR`, distinct from "findings" (1), bad input (2) and ``--fail-on`` (3).
``NPU_LINT_DEBUG=1`` prints the traceback as well.
"""
from __future__ import annotations

import os
import sys
import traceback

EXIT_INTERNAL_ERROR = 4
INTERNAL = "internal error"


def internal_error(error: BaseException) -> str:
    """``internal error (RecursionError: maximum recursion depth exceeded)``: one line, for a skipped file."""
    if os.environ.get("NPU_LINT_DEBUG"):
        traceback.print_exception(type(error), error, error.__traceback__, file=sys.stderr)
    detail = " ".join(str(error).split())[:160]
    return f"{INTERNAL} ({type(error).__name__}{': ' + detail if detail else ''})"


def is_internal(reason: str) -> bool:
    return reason.startswith(INTERNAL)
