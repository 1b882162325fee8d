"""Write the report files: every CSV through :func:`write_csv` (quoted and neutralised cells), JSON and SARIF 2.1.0.

Text is written as UTF-8 with undecodable file-name bytes escaped (``\\udcff``), so an odd file name never
stops a report.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from npu_lint import __version__
from npu_lint.finding import Finding
from npu_lint.report.safety import neutralise

SEPARATOR = ","
_QUOTED = frozenset('\r\n"' + SEPARATOR)


def csv_cell(value: object) -> str:
    """One CSV cell: formulas neutralised; quoted (quotes doubled) when it holds CR, LF, a quote or the separator."""
    text = "" if value is None else str(neutralise(value))
    if _QUOTED.intersection(text):
        return '"' + text.replace('"', '""') + '"'
    return text


def csv_text(header: list[str], rows: Iterable[Iterable[object]]) -> str:
    """The CSV document: one line per record, LF line ends (line breaks inside cells are quoted)."""
    return "".join(SEPARATOR.join(csv_cell(cell) for cell in row) + "\n" for row in [header, *rows])


def write_text(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8", errors="backslashreplace", newline="") as handle:
        handle.write(text)


def write_lines(path: Path, lines: Iterable[str]) -> None:
    """A text file of ``lines``, each ended by a newline, written one by one (never joined into one string)."""
    with open(path, "w", encoding="utf-8", errors="backslashreplace", newline="") as handle:
        for line in lines:
            handle.write(line + "\n")


def write_csv(path: Path, header: list[str], rows: Iterable[Iterable[object]]) -> None:
    """The one CSV writer of every report file (the vendor's layouts and ours): written row by row, the same bytes
    as :func:`csv_text` (an inventory of 150,000 references is never held as one string)."""
    with open(path, "w", encoding="utf-8", errors="backslashreplace", newline="") as handle:
        write = handle.write
        for row in _chained(header, rows):
            write(SEPARATOR.join(csv_cell(cell) for cell in row) + "\n")


def _chained(header: list[str], rows: Iterable[Iterable[object]]) -> Iterable[Iterable[object]]:
    yield header
    yield from rows


def write_json(path: Path, findings: list[tuple[str, Finding]], version: str) -> None:
    items = [{"file": file, "line": f.line, "column": f.col + 1, "end_line": f.end_line, "code": f.code,
              "message": f.message, "api": f.api, "family": f.family,
              **({"cell": f.cell, "cell_line": f.cell_line} if f.cell else {})} for file, f in findings]
    write_text(path, json.dumps({"tool": "npu-lint", "version": __version__, "torch_npu_version": version,
                                 "findings": items}, indent=2, ensure_ascii=False) + "\n")


def write_sarif(path: Path, findings: list[tuple[str, Finding]]) -> None:
    """SARIF 2.1.0 as GitHub code scanning reads it (paths relative to the analysed folder)."""
    from npu_lint.output import sarif_document   # one SARIF writer for check and the report
    write_text(path, json.dumps(sarif_document(findings), indent=2, ensure_ascii=False) + "\n")
