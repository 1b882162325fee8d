"""Jupyter notebooks (``.ipynb``): the code cells as one Python source, and findings mapped back.

The code cells are joined (one line per source line, cells in order); IPython magics (``%time``, ``%%bash``
cells), shell escapes (``!pip install``, ``x = !ls``) and help lines (``obj?``) become ``pass`` at the same
indentation, so a magic inside a block keeps the block valid and nothing of it is analysed (the body of a
``%%time`` / ``%%timeit`` / ``%%capture`` ... cell is Python and is analysed, as ruff does). Positions are mapped
back twice: to the cell and its line (``cell 3:2:5``, as ruff prints them), and to the line of the ``.ipynb`` file
that holds that source line (for flake8, the CSV reports and SARIF, which point into the file itself).
"""
from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from npu_lint.finding import Finding

SUFFIX = ".ipynb"
# Cell magics whose body is Python (as ruff treats them); any other ``%%magic`` cell is not analysed.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "debug", "prun", "python", "python3", "pypy"})
_MAGIC = re.compile(r"^(?P<indent>[ \t]*)(?:[%!]|\?|[\w.]+[ \t]*=[ \t]*[%!]|.*\?\??[ \t]*$)")


class NotebookError(ValueError):
    """A notebook that cannot be read as nbformat 4 JSON; the message is one line."""


@dataclass(frozen=True)
class Notebook:
    """The Python source of a notebook's code cells, with the way back to cells and file lines."""

    source: str
    cells: tuple[int, ...]       # per source line: the 1-based number of its cell (counting every cell)
    cell_lines: tuple[int, ...]  # per source line: its line within the cell
    file_lines: tuple[int, ...]  # per source line: the line of the .ipynb file that holds it (0: not found)
    file_cols: tuple[int, ...]   # per source line: the 0-based column where its text starts in that file line

    def file_line(self, line: int) -> int:
        """The line of the .ipynb file that holds line ``line`` of :attr:`source` (1 when unknown)."""
        return self.file_lines[min(max(line, 1), len(self.file_lines)) - 1] or 1 if self.file_lines else 1

    def locate(self, finding: Finding) -> Finding:
        """The finding with ``line``/``col``/``end_line`` in the .ipynb file and ``cell``/``cell_line`` set."""
        index = min(max(finding.line, 1), len(self.cells)) - 1
        end = min(max(finding.end_line, 1), len(self.cells)) - 1
        line = self.file_lines[index] or 1
        return dataclasses.replace(finding, line=line, col=self.file_cols[index] + finding.col if
                                   self.file_lines[index] else 0, end_line=max(self.file_lines[end], line),
                                   cell=self.cells[index], cell_line=self.cell_lines[index],
                                   cell_col=self.file_cols[index] if self.file_lines[index] else 0)


def is_notebook(path: Path) -> bool:
    return path.suffix == SUFFIX


def parse_notebook(text: str) -> Notebook:
    """Read a notebook's JSON text; raises :class:`NotebookError`."""
    try:
        data = json.loads(text)
    except ValueError as error:
        raise NotebookError(f"not a notebook (invalid JSON: {error})") from None
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        raise NotebookError("not a notebook (no 'cells' list)")
    language = (data.get("metadata") or {}).get("language_info", {}).get("name", "python") \
        if isinstance(data.get("metadata"), dict) else "python"
    if isinstance(language, str) and language.lower() not in ("python", "python3", "ipython"):
        raise NotebookError(f"not a Python notebook (language {language})")
    raw_lines = text.splitlines()
    cursor = (0, 0)
    out: list[str] = []
    cells_of, cell_lines, file_lines, file_cols = [], [], [], []
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        lines = source if isinstance(source, list) else str(source).splitlines(True)
        lines = [line for piece in lines for line in str(piece).splitlines(True)] or []
        first = lines[0].strip() if lines else ""
        cell_magic = first.startswith("%%") and first[2:].split(" ")[0] not in PYTHON_CELL_MAGICS
        for offset, raw in enumerate(lines, 1):
            text_line = raw.rstrip("\r\n")
            found, cursor, col = _find(raw, raw_lines, cursor)
            magic = _MAGIC.match(text_line) if text_line.strip() and not text_line.lstrip().startswith("#") else None
            if cell_magic:
                out.append("")
            elif magic is not None:
                out.append(f"{magic.group('indent')}pass")
            else:
                out.append(text_line)
            cells_of.append(number)
            cell_lines.append(offset)
            file_lines.append(found)
            file_cols.append(col)
        out.append("")   # a blank line between cells: a statement never runs into the next cell
        cells_of.append(number)
        cell_lines.append(len(lines) + 1)
        file_lines.append(0)
        file_cols.append(0)
    return Notebook("\n".join(out) + "\n", tuple(cells_of), tuple(cell_lines), tuple(file_lines), tuple(file_cols))


def _find(raw: str, raw_lines: list[str], cursor: tuple[int, int]) -> tuple[int, tuple[int, int], int]:
    """(1-based line of the .ipynb text holding the JSON string of ``raw``, the cursor after it, the column where
    its text starts); the search goes forward from ``cursor`` (line index, column), so repeated lines map in order."""
    for encoded in (json.dumps(raw, ensure_ascii=False), json.dumps(raw)):
        needle = encoded[1:-1]   # a source given as one string holds every line in one JSON string
        start_line, start_col = cursor
        for index in range(start_line, len(raw_lines)):
            column = raw_lines[index].find(needle, start_col if index == start_line else 0)
            if column >= 0 and (needle or raw_lines[index][column - 1:column] == '"'):
                return index + 1, (index, column + len(needle)), column
    return 0, cursor, 0


def read_notebook(path: Path, text: Optional[str] = None) -> Notebook:
    """The notebook at ``path`` (``text``: its content, already read)."""
    return parse_notebook(text if text is not None else path.read_text(encoding="utf-8-sig"))


def load_source(path: Path) -> tuple[str, Optional[Notebook]]:
    """The Python source to analyse at ``path``: the file's text, or a notebook's code cells (with the
    notebook, to map findings back). Raises :class:`npu_lint.sources.Unreadable`."""
    from npu_lint.sources import Unreadable, read_source
    text = read_source(path)
    if not is_notebook(path):
        return text, None
    try:
        notebook = parse_notebook(text)
    except NotebookError as error:
        raise Unreadable(str(error)) from None
    return notebook.source, notebook
