"""Per-file isolation: a bug of ours triggered by one file skips that file with one line, never the run.

Every front end (``check``, ``--fix``, flake8, ``analyse`` and its workers, instrumentation) catches what
analysing one file raises and turns it into :func:`internal_error` text; a run that had any ends with
:data:`EXIT_INTERNAL_ERROR`, distinct from "findings" (1), bad input (2) and ``--fail-on`` (3).
``NPU_LINT_DEBUG=1`` prints the traceback as well.
"""
from __future__ import annotations

import os
import sys
import threading
import traceback
from typing import Any, Callable, TypeVar

EXIT_INTERNAL_ERROR = 4
INTERNAL = "internal error"
TOO_DEEP = "nested too deeply for libcst (RecursionError)"
_STACK_BYTES = 256 * 1024 * 1024   # reserved address space: pages are only touched as deep as the recursion goes
_RECURSION_LIMIT = 12000
Result = TypeVar("Result")


def internal_error(error: BaseException) -> str:
    """``internal error (RecursionError: maximum recursion depth exceeded)``: one line, for a skipped file."""
    if os.environ.get("NPU_LINT_DEBUG"):
        traceback.print_exception(type(error), error, error.__traceback__, file=sys.stderr)
    detail = " ".join(str(error).split())[:160]
    return f"{INTERNAL} ({type(error).__name__}{': ' + detail if detail else ''})"


def is_internal(reason: str) -> bool:
    return reason.startswith(INTERNAL)


def with_deep_stack(function: Callable[..., Result], *args: Any, **kwargs: Any) -> Result:
    """``function(*args, **kwargs)`` in a thread with a large stack and recursion limit. libcst (fixes,
    instrumentation) recurses once per nesting level, and real files hold 300-term sums and 300 nested lambdas;
    deeper still is a RecursionError, which the caller turns into a skip."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = function(*args, **kwargs)
        except BaseException as error:  # noqa: BLE001 - handed to the caller
            outcome["error"] = error

    limit, size = sys.getrecursionlimit(), threading.stack_size()
    try:
        threading.stack_size(_STACK_BYTES)
        sys.setrecursionlimit(max(limit, _RECURSION_LIMIT))
        worker = threading.Thread(target=target, name="npu-lint-deep", daemon=True)
        worker.start()
        worker.join()
    finally:
        threading.stack_size(size)
        sys.setrecursionlimit(limit)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
