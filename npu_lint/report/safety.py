"""Input checks and safe output for the report: one-line errors, no half-written reports."""
from __future__ import annotations

import os
from pathlib import Path

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")


class ReportError(Exception):
    """Bad input or an unwritable output: one line, exit status 1."""


def neutralise(value: object) -> object:
    """Defuse spreadsheet formulas: a text cell that starts with = + - @ (after any whitespace or line breaks), or
    with a tab, CR or LF, gets a leading quote."""
    if isinstance(value, str) and (value.startswith(_FORMULA_START) or value.lstrip().startswith(_FORMULA_START)):
        return "'" + value
    return value


def check_paths(input_dir: str, output_dir: str) -> tuple[Path, Path]:
    source, output = Path(input_dir), Path(output_dir)
    if not source.exists():
        raise ReportError(f"input {input_dir} does not exist")
    if not source.is_dir():
        raise ReportError(f"input {input_dir} is not a directory")
    if not os.access(source, os.R_OK | os.X_OK):
        raise ReportError(f"input {input_dir} is not readable")
    real_source, real_output = source.resolve(), output.resolve()
    if real_output == real_source or real_source in real_output.parents:
        raise ReportError(f"output {output_dir} is inside the input {input_dir}")
    if not output.exists() and output.parent.is_dir():   # as mkdir would: the parent must exist
        try:
            output.mkdir()
        except OSError as error:
            raise ReportError(f"output {output_dir} cannot be created: {error.strerror or error}") from None
    if not output.is_dir():
        raise ReportError(f"output {output_dir} is not a directory and its parent does not exist" if not
                          output.exists() else f"output {output_dir} is not a directory")
    if not os.access(output, os.W_OK | os.X_OK):
        raise ReportError(f"output {output_dir} is not writable")
    return real_source, real_output
