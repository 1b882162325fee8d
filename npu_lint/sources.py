"""Finding and reading the Python files to analyse, without ever importing or running them."""
from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Callable, Iterator, Union

MAX_BYTES = 10 * 1024 * 1024
PY_SUFFIXES = (".py", ".pyi", ".ipynb")   # notebooks: npu_lint.notebooks


class Unreadable(Exception):
    """A file that is skipped; the message is one line."""


def discover(path: Path, excluded: Callable[[Path], bool]) -> Iterator[Path]:
    """Python files under ``path`` (or ``path`` itself), sorted, not following directory symlinks."""
    if path.is_file():
        yield path
        return
    for folder, dirs, files in os.walk(path):
        base = Path(folder)
        dirs[:] = sorted(d for d in dirs if not (base / d).is_symlink() and not excluded(base / d))
        for name in sorted(files):
            candidate = base / name
            if name.endswith(PY_SUFFIXES) and not excluded(candidate):
                yield candidate


def read_source(path: Path) -> str:
    """The file's text (UTF-8, BOM allowed); raises :class:`Unreadable`."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise Unreadable(f"larger than {MAX_BYTES // (1024 * 1024)} MB")
        data = path.read_bytes()
    except OSError as error:
        raise Unreadable(f"cannot read: {error.strerror or error}") from None
    from npu_lint.decoding import decode_python   # PEP 263 cookies and BOM, as flake8 reads files
    try:
        return decode_python(data)
    except UnicodeDecodeError as error:
        raise Unreadable(f"not valid {error.encoding.upper()} (byte {error.start})") from None
    except SyntaxError as error:
        raise Unreadable(f"cannot decode: {error.msg}") from None


def parse(source: str, path: Union[Path, str]) -> ast.Module:
    """``ast.parse`` with every failure turned into :class:`Unreadable`."""
    try:
        return ast.parse(source, str(path))
    except SyntaxError as error:
        where = f" at line {error.lineno}" if error.lineno else ""
        raise Unreadable(f"syntax error{where}: {error.msg}") from None
    except (ValueError, RecursionError, MemoryError) as error:
        raise Unreadable(f"cannot parse: {type(error).__name__}") from None
