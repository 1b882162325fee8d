"""``npu-lint check --output-format``: ruff's formats (full, concise, json, sarif, github, gitlab) and
``--statistics``. SARIF 2.1.0 is built here for both ``check`` and the report's ``findings.sarif``."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from npu_lint import __version__
from npu_lint.finding import Finding

FORMATS = ("concise", "full", "json", "sarif", "github", "gitlab")
ERROR_CODES = ("NPU001", "NPU101", "NPU202", "NPU203", "NPU205", "NPU215", "NPU220", "NPU221", "NPU223", "NPU225")
NOTE_CODES = ("NPU102", "NPU106", "NPU107")


@dataclass(frozen=True)
class Diagnostic:
    """A finding as printed: where (as given on the command line) and whether a fix exists."""

    path: str
    finding: Finding
    fix: str = ""          # "safe", "unsafe" or ""
    source_line: str = ""  # the line of the finding (notebooks: the line in its cell)

    @property
    def line(self) -> int:
        return self.finding.cell_line or self.finding.line

    @property
    def where(self) -> str:
        """``path:line:col`` (``path:cell N:line:col`` in a notebook, as ruff prints it)."""
        f = self.finding
        column = f.col + 1 if not f.cell else self._cell_col() + 1
        return f"{self.path}:cell {f.cell}:{f.cell_line}:{column}" if f.cell else f"{self.path}:{f.line}:{column}"

    def _cell_col(self) -> int:
        return self.finding.col - self.finding.cell_col if self.finding.cell else self.finding.col

    @property
    def column(self) -> int:
        return self._cell_col() + 1


def level(code: str) -> str:
    """SARIF level: what breaks is an error, advice a note, the rest a warning."""
    if code in ERROR_CODES:
        return "error"
    return "note" if code in NOTE_CODES else "warning"


def rule_names() -> dict[str, tuple[str, str]]:
    """code -> (name, one-line summary), the syntax-error code included."""
    from npu_lint.config import SPECIAL_CODES
    from npu_lint.rules import all_rules
    names = {rule.code: (rule.name, rule.summary().replace("``", "`")) for rule in all_rules()}
    names.update(SPECIAL_CODES)
    return names


def concise(items: Sequence[Diagnostic]) -> str:
    return "".join(f"{d.where}: {d.finding.code} {d.finding.message}\n" for d in items)


def full(items: Sequence[Diagnostic]) -> str:
    """ruff's ``full``: the concise line, then the source line with a marker under the column."""
    out = []
    for d in items:
        marker = " [*]" if d.fix == "safe" else ""
        out.append(f"{d.where}: {d.finding.code}{marker} {d.finding.message}")
        if d.source_line:
            number = str(d.line)
            pad = " " * len(number)
            text = d.source_line.expandtabs(4).rstrip()
            out += [f"{pad} |", f"{number} | {text}", f"{pad} | {' ' * (d.column - 1)}^ {d.finding.code}", f"{pad} |"]
        out.append("")
    return "\n".join(out) + ("\n" if out else "")


def _json_items(items: Sequence[Diagnostic]) -> list[dict]:
    names = rule_names()
    result = []
    for d in items:
        f = d.finding
        end_row = f.end_line - f.line + d.line
        result.append({
            "cell": f.cell or None, "code": f.code, "filename": str(Path(d.path).resolve()),
            "location": {"row": d.line, "column": d.column},
            "end_location": {"row": end_row, "column": d.column if end_row == d.line else 1},
            "fix": {"applicability": d.fix, "message": None} if d.fix else None,
            "message": f.message, "name": names.get(f.code, ("", ""))[0], "noqa_row": d.line,
            "url": None})
    return result


def as_json(items: Sequence[Diagnostic]) -> str:
    return json.dumps(_json_items(items), indent=2, ensure_ascii=False) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github(items: Sequence[Diagnostic]) -> str:
    """GitHub Actions workflow commands (``::error file=...,line=...::message``): annotations on the PR."""
    kinds = {"error": "error", "warning": "warning", "note": "notice"}
    out = []
    for d in items:
        f = d.finding
        properties = (f"title=npu-lint ({f.code}),file={_escape_property(d.path)},line={f.line},col={f.col + 1},"
                      f"endLine={f.end_line}")
        out.append(f"::{kinds[level(f.code)]} {properties}::{_escape_data(f'{d.where}: {f.code} {f.message}')}\n")
    return "".join(out)


def gitlab(items: Sequence[Diagnostic]) -> str:
    """GitLab Code Quality report (a JSON list; ``fingerprint`` stable across runs)."""
    severity = {"error": "major", "warning": "minor", "note": "info"}
    report = []
    seen: dict[str, int] = {}
    for d in items:
        f = d.finding
        base = hashlib.sha256(f"{d.path}\0{f.code}\0{f.message}\0{d.source_line.strip()}".encode()).hexdigest()[:32]
        seen[base] = seen.get(base, 0) + 1
        report.append({"description": f"{f.code} {f.message}", "check_name": f.code,
                       "fingerprint": f"{base}-{seen[base]}" if seen[base] > 1 else base,
                       "severity": severity[level(f.code)],
                       "location": {"path": Path(d.path).as_posix(), "lines": {"begin": f.line, "end": f.end_line}}})
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


def sarif_document(findings: Iterable[tuple[str, Finding]]) -> dict:
    """SARIF 2.1.0 as GitHub code scanning reads it: relative ``uri`` under ``%SRCROOT%``, 1-based positions;
    a notebook finding points at the line of the .ipynb file and names its cell in ``properties``."""
    findings = list(findings)
    names = rule_names()
    used = sorted({f.code for _, f in findings})
    driver_rules = [{"id": code, "name": names[code][0], "shortDescription": {"text": names[code][1]},
                     "help": {"text": f"npu-lint rule {code}"},
                     "defaultConfiguration": {"level": level(code)}} for code in used]
    index = {code: number for number, code in enumerate(used)}
    results = []
    for file, f in findings:
        region = {"startLine": max(f.line, 1), "startColumn": f.col + 1, "endLine": max(f.end_line, f.line, 1)}
        result = {"ruleId": f.code, "ruleIndex": index[f.code], "level": level(f.code), "message": {"text": f.message},
                  "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(file), "uriBaseId": "%SRCROOT%"},
                                                      "region": region}}]}
        if f.cell:
            result["properties"] = {"cell": f.cell, "cellLine": f.cell_line}
        results.append(result)
    return {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "npu-lint", "version": __version__, "semanticVersion": __version__,
                                          "informationUri": "https://pypi.org/project/npu-lint/",
                                          "rules": driver_rules}},
                      "columnKind": "unicodeCodePoints", "results": results}]}


def _uri(path: str) -> str:
    """A relative URI: the path's file-system bytes percent-encoded (undecodable bytes in names included)."""
    import os
    from urllib.parse import quote
    return quote(os.fsencode(Path(path).as_posix()))


def sarif(items: Sequence[Diagnostic]) -> str:
    return json.dumps(sarif_document((d.path, d.finding) for d in items), indent=2, ensure_ascii=False) + "\n"


def render(output_format: str, items: Sequence[Diagnostic]) -> str:
    return {"concise": concise, "full": full, "json": as_json, "sarif": sarif, "github": github,
            "gitlab": gitlab}[output_format](items)


def statistics(items: Sequence[Diagnostic], output_format: str = "concise") -> str:
    """ruff's ``--statistics``: ``count<TAB>code<TAB>[*] name`` per code, most frequent first."""
    names = rule_names()
    counts: dict[str, list[int]] = {}
    for d in items:
        entry = counts.setdefault(d.finding.code, [0, 0])
        entry[0] += 1
        entry[1] += d.fix == "safe"
    rows = sorted(counts.items(), key=lambda item: (-item[1][0], item[0]))
    if output_format == "json":
        return json.dumps([{"code": code, "name": names.get(code, ("", ""))[0], "count": count,
                            "fixable": fixable == count and count > 0} for code, (count, fixable) in rows],
                          indent=2) + "\n"
    if not rows:
        return ""
    count_width = max(len(str(count)) for _, (count, _) in rows)
    code_width = max(len(code) for code, _ in rows)
    any_fixable = any(fixable for _, (_, fixable) in rows)
    lines = []
    for code, (count, fixable) in rows:
        marker = ("[*] " if fixable else "[ ] ") if any_fixable else ""
        lines.append(f"{str(count).rjust(count_width)}\t{code.ljust(code_width)}\t{marker}{names.get(code, ('',))[0]}")
    return "\n".join(lines) + "\n"
