"""Finding and reading the Python files to analyse, without ever importing or running them.

Only regular files are read (a FIFO, a device or a socket named ``x.py`` is skipped without being opened), at
most :data:`MAX_BYTES` + 1 bytes of them; symbolic links are never followed out of the folder being walked;
the text is decoded as Python does (a BOM or a PEP 263 coding cookie, else UTF-8).
"""
from __future__ import annotations

import ast
import codecs
import errno
import io
import os
import re
import stat
import sys
import tokenize
from pathlib import Path
from typing import Callable, Iterator, Optional, Union

MAX_BYTES = 10 * 1024 * 1024
PY_SUFFIXES = (".py", ".pyi", ".ipynb")   # notebooks: npu_lint.notebooks
GRAMMAR = f"Python {sys.version_info[0]}.{sys.version_info[1]}"

Warn = Callable[[str], None]
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=]", re.MULTILINE)


class Unreadable(Exception):
    """A file that is skipped; the message is one line."""


def display(path: Union[Path, str]) -> str:
    """``path`` printable on one line: line breaks and undecodable bytes escaped (``\\n``, ``\\udcff``)."""
    text = str(path)
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() or char == " " else char.encode("unicode_escape",
                                                                              "backslashreplace").decode("ascii")
                   for char in text)


def inside(path: Path, root: Path) -> bool:
    """Whether ``path`` (a link or a file) resolves to ``root`` or below it; False for loops and dangling links."""
    try:
        target = Path(os.path.realpath(path))
        real_root = Path(os.path.realpath(root))
        os.stat(target)
    except (OSError, RuntimeError, ValueError):
        return False
    return target == real_root or real_root in target.parents


def discover(path: Path, excluded: Callable[[Path], bool], warn: Optional[Warn] = None) -> Iterator[Path]:
    """Python files under ``path`` (or ``path`` itself), sorted, never following symbolic links out of ``path``.

    Folder links are not followed (so there are no loops); a file link is followed only when it resolves
    inside ``path``. ``warn`` gets one line per unreadable folder and per file link that is skipped.
    """
    if not path.is_dir():
        yield path
        return
    say = warn or (lambda message: None)

    def unreadable(error: OSError) -> None:
        say(f"{display(error.filename or path)}: skipped: cannot read folder: {error.strerror or error}")

    for folder, dirs, files in os.walk(path, onerror=unreadable):
        base = Path(folder)
        dirs[:] = sorted(d for d in dirs if not (base / d).is_symlink() and not excluded(base / d))
        for name in sorted(files):
            candidate = base / name
            if not name.endswith(PY_SUFFIXES):
                continue
            if candidate.is_symlink() and not inside(candidate, path):
                reason = "a symbolic link loop" if _loops(candidate) else "a symbolic link out of the input"
                say(f"{display(candidate)}: skipped: {reason}")
                continue
            if not excluded(candidate):
                yield candidate


def _loops(path: Path) -> bool:
    try:
        os.stat(path)
    except OSError as error:
        return error.errno == errno.ELOOP
    return False


def read_bytes(path: Path, limit: int = MAX_BYTES) -> bytes:
    """At most ``limit`` bytes of a regular file; raises :class:`Unreadable` for anything else or anything larger."""
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise Unreadable(f"not a regular file ({_kind(mode)})")
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as error:
        raise Unreadable(_os_reason(error)) from None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):   # swapped between the two looks
            raise Unreadable("not a regular file")
        chunks, left = [], limit + 1
        while left > 0:
            chunk = os.read(descriptor, min(left, 1024 * 1024))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as error:
        raise Unreadable(_os_reason(error)) from None
    finally:
        os.close(descriptor)
    data = b"".join(chunks)
    if len(data) > limit:
        raise Unreadable(f"larger than {limit // (1024 * 1024)} MB")
    return data


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "not a file"


def _os_reason(error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return "a symbolic link loop"
    return f"cannot read: {error.strerror or error}"


def encoding_of(data: bytes) -> str:
    """The codec Python source ``data`` is written in: ``utf-8-sig`` (BOM), the PEP 263 cookie's, ``utf-16`` (BOM),
    else ``utf-8``. Encoding text back with it restores the BOM. Raises :class:`Unreadable` for a bad cookie."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) and not data.startswith(codecs.BOM_UTF32_LE):
        return "utf-16"
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:   # an unknown codec in the cookie, a cookie that contradicts the BOM, bad UTF-8
        if not _COOKIE.search(b"\n".join(data.split(b"\n", 2)[:2])):
            return "utf-8"     # no cookie: decoding says which byte is not UTF-8
        raise Unreadable(f"bad coding declaration: {' '.join(str(error).split())}") from None
    return encoding


def decode_source(data: bytes) -> str:
    """Python source text from bytes as the interpreter reads it: a UTF-8 BOM, a PEP 263 coding cookie, else UTF-8
    (and a UTF-16 BOM). Raises :class:`Unreadable` with the encoding that failed."""
    encoding = encoding_of(data)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        name = "UTF-8" if encoding in ("utf-8", "utf-8-sig") else encoding
        raise Unreadable(f"not valid {name} (byte {error.start})") from None
    except LookupError:
        raise Unreadable(f"unknown encoding {encoding}") from None
    return text[1:] if text.startswith("\ufeff") else text


def read_source(path: Path) -> str:
    """The file's text (BOM and coding cookie honoured); raises :class:`Unreadable`."""
    return decode_source(read_bytes(path))


def parse(source: str, path: Union[Path, str]) -> ast.Module:
    """``ast.parse`` with every failure turned into :class:`Unreadable`."""
    from npu_lint import collector
    try:
        return collector.parse(source, str(path))
    except SyntaxError as error:
        where = f" at line {error.lineno}" if error.lineno else ""
        raise Unreadable(f"syntax error{where}: {error.msg} ({GRAMMAR} grammar)") from None
    except (ValueError, RecursionError, MemoryError) as error:
        raise Unreadable(f"cannot parse: {type(error).__name__}") from None
