"""The one result type every front end prints: flake8, ``npu-lint check`` and the reports."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """One reported problem. ``col`` is 0-based, as flake8 expects; front ends print ``col + 1``."""

    code: str
    message: str
    line: int
    col: int
    end_line: int
    api: str = ""
    family: str = ""

    def text(self) -> str:
        """``CODE message``: the form flake8 and ``npu-lint check`` print."""
        return f"{self.code} {self.message}"
