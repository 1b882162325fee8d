"""Write the report files: CSV through pandas (cells neutralised), JSON and SARIF 2.1.0."""
from __future__ import annotations

import json
from pathlib import Path

from npu_lint import __version__
from npu_lint.finding import Finding
from npu_lint.report.safety import neutralise


def write_csv(path: Path, header: list[str], rows: list[list[object]]) -> None:
    import pandas as pd   # the report is the only place that needs pandas
    frame = pd.DataFrame([[neutralise(cell) for cell in row] for row in rows], columns=header)
    frame.to_csv(path, index=False, encoding="utf-8")


def write_json(path: Path, findings: list[tuple[str, Finding]], version: str) -> None:
    items = [{"file": file, "line": f.line, "column": f.col + 1, "end_line": f.end_line, "code": f.code,
              "message": f.message, "api": f.api, "family": f.family,
              **({"cell": f.cell, "cell_line": f.cell_line} if f.cell else {})} for file, f in findings]
    path.write_text(json.dumps({"tool": "npu-lint", "version": __version__, "torch_npu_version": version,
                                "findings": items}, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def write_sarif(path: Path, findings: list[tuple[str, Finding]]) -> None:
    """SARIF 2.1.0 as GitHub code scanning reads it (paths relative to the analysed folder)."""
    from npu_lint.output import sarif_document   # one SARIF writer for check and the report
    path.write_text(json.dumps(sarif_document(findings), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
