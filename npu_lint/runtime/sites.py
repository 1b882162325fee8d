"""Call sites of the dynamic-shape detector and the cells of their report rows (part of the detector copied by
``npu-lint analyse -m dynamic_shape``; standard library and torch only).

A site is one place in the code reached through one call path. Its row has the vendor's cells: ``Call Stack`` is
a list of ``'<file F, line N in f>'`` strings (the user's frames, outermost first), paths are ``./dir/file.py``
relative to the analysis folder.
"""
from __future__ import annotations

import multiprocessing
import os
from typing import Any

import torch

from .shapes import Ranges

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep     # the detector's own files
ANALYSIS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_CACHE_SIZE = 4096
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep


_RELATIVE: dict[str, str] = {}


def relative(path: str) -> str:
    """``./dir/file.py`` relative to the analysis folder (outside it: the path as it is), cached per file."""
    found = _RELATIVE.get(path)
    if found is None:
        found = path
        if not path.startswith("<"):          # <string>, <stdin>, ...
            inside = os.path.relpath(os.path.abspath(path), ANALYSIS_DIR)
            if not inside.startswith(".."):
                found = "./" + inside.replace(os.sep, "/")
        if len(_RELATIVE) < _CACHE_SIZE:
            _RELATIVE[path] = found
    return found


def _neutralise(cell: str) -> str:
    return "'" + cell if cell[:1] in ("=", "+", "-", "@", "\t", "\r") else cell


class Site:
    """One call site reached through one call path."""

    __slots__ = ("name", "path", "line", "key", "stack", "first", "seen", "last", "varying", "inputs", "outputs",
                 "iteration", "calls")

    def __init__(self, name: str, path: str, line: int, key: tuple) -> None:
        self.name, self.path, self.line = name, path, line
        self.key = key                         # keeps the code objects of the path alive (their ids are keys)
        self.stack = "[]"                      # taken when the site is first seen varying
        self.first: dict[int, tuple] = {}      # n-th call in an iteration -> the first (receiver, inputs, outputs)
        self.seen: set = set()                 # (receiver, inputs, outputs) already in the ranges
        self.last: tuple = ()                  # the last call added to the ranges of a varying site
        self.varying = False
        self.iteration, self.calls = -1, 0     # calls of this site in that iteration
        self.inputs, self.outputs = Ranges(), Ranges()

    def row(self) -> list[str]:
        return [_neutralise(self.name), relative(self.path), str(self.line), self.stack,
                self.inputs.text(), self.outputs.text()]


_USER_FILE: dict[str, bool] = {}


def _user_file(path: str) -> bool:
    """Not one of the detector's files and not torch's own (cached per file)."""
    found = _USER_FILE.get(path)
    if found is None:
        absolute = os.path.abspath(path)
        found = not absolute.startswith(_PACKAGE_DIR) and not absolute.startswith(_TORCH_DIR)
        if len(_USER_FILE) < _CACHE_SIZE:
            _USER_FILE[path] = found
    return found


def call_stack(frame: Any) -> str:
    """The user's frames, outermost first, as the vendor writes them: ``['<file F, line N in f>', ...]``."""
    frames = []
    while frame is not None:
        code = frame.f_code
        if _user_file(code.co_filename):
            frames.append(f"<file {relative(code.co_filename)}, line {frame.f_lineno} in {code.co_name}>")
        frame = frame.f_back
    return str(frames[::-1])


def main_process() -> bool:
    try:
        return multiprocessing.parent_process() is None     # not a spawned DataLoader worker
    except Exception:
        return True
