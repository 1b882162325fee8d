"""Decoding Python source bytes as Python does (PEP 263 coding cookie, UTF-8 BOM, UTF-8 by default).

A stand-in until the shared reader in :mod:`npu_lint.sources` does this itself: flake8 reads files this way,
so ``npu-lint check`` and ``npu-lint analyse`` must too, or the three front ends disagree on the same file.
"""
from __future__ import annotations

import io
import tokenize


def decode_python(data: bytes) -> str:
    """The text of a Python file; raises :class:`UnicodeDecodeError` / :class:`SyntaxError` (bad cookie)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        data.decode("utf-8")   # no usable cookie: say which byte is not UTF-8 (UnicodeDecodeError) ...
        raise                  # ... else the cookie names an unknown encoding
    text = data.decode(encoding)
    return text[1:] if text.startswith("\ufeff") else text
