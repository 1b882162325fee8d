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
    cell: int = 0          # notebooks: the cell (1-based) and the line within it; line/col are in the .ipynb file
    cell_line: int = 0
    cell_col: int = 0      # notebooks: where the cell line's text starts in its line of the .ipynb file

    def text(self) -> str:
        """``CODE message``: the form flake8 and ``npu-lint check`` print."""
        return f"{self.code} {self.message}"
