"""Call paths of the dynamic-shape detector: which call site a call is (part of the detector copied by ``npu-lint
analyse -m dynamic_shape``; standard library only).

A call site is one place in the code reached through one call path: the frames from the call up to the loop that
``Detector.start`` drives, with the hook's own name and per-line index. A frame's path is looked up once and kept
in a table (its sites by last instruction) for the next calls from the same frame.
"""
from __future__ import annotations

import sys
import threading
from typing import Any, Optional

from .sites import Site as _Site

MAX_STACK = 64          # frames walked to build a call path
MAX_SITES = 10000

_NO_GENERATOR = (None, None, -1, None)
_RESUMABLE = 0x20 | 0x80 | 0x100 | 0x200    # CO_GENERATOR, CO_COROUTINE, CO_ITERABLE_COROUTINE, CO_ASYNC_GENERATOR
_get_ident = threading.get_ident
_STEPS = range(MAX_STACK - 1)
_LONGEST = 2 * MAX_STACK - 1    # the longest path prefix: a code, then a code and a place per frame walked


class _NoSites(dict):
    """The table of a frame of another thread than the loop's: nothing is recorded there."""

    def __missing__(self, key: Any) -> None:
        return None


_OTHER_THREAD = _NoSites()


class CallPaths:
    """The call sites seen so far, and the tables kept for the frames of the last calls."""

    max_sites = MAX_SITES

    def __init__(self) -> None:
        self._thread = threading.get_ident()       # the loop's thread: calls of other threads are not recorded
        self._full = False              # past the budget of call sites: no new site is recorded
        self._root: Any = None          # the frame the call paths stop at
        self._sites: dict[tuple, _Site] = {}               # (name, index, code, line, code, line, ...) -> site
        # (id(code), id(code), last instruction, ...) of the frames of a call -> {last instruction: site}
        self._tables: dict[tuple, dict[int, Optional[_Site]]] = {}
        self._frame: Any = None         # the frame of the last call, and its table
        self._table: Optional[dict] = None
        self._root_table: Optional[dict] = None     # the loop's frame's table
        self._before: Any = None        # the frame of the call before, and its table
        self._before_table: Optional[dict] = None
        self._generator: tuple = _NO_GENERATOR       # a generator's frame, its caller and its place there, its table
        self._anchor: Any = None        # the caller of the last frame walked to the loop, and its path
        self._anchor_prefix: tuple = ()
        self._unrecorded = 0            # paths past the budget remembered as not recorded

    def _set_root(self, root: Any) -> None:
        """Call paths stop at ``root``; the tables kept for frames are forgotten (None: no frame is kept)."""
        self._root, self._root_table, self._frame, self._table = root, None, None, None
        self._before, self._before_table, self._generator = None, None, _NO_GENERATOR
        self._anchor, self._anchor_prefix = None, ()

    def _new_path(self, table: dict, frame: Any, name: str, index: int) -> Optional[_Site]:
        """The site of a call from a place of ``frame`` not seen before, remembered in its table."""
        site = self._site(frame, name, index)
        if site is not None or self._unrecorded < 4 * self.max_sites:
            table[frame.f_lasti] = site
            self._unrecorded += site is None
        return site

    def _table_of(self, frame: Any) -> dict:
        """The sites called from ``frame``, by its last instruction. The frames above it, up to the loop, are the
        ids of their code objects and their last instructions: cheap to take and to hash. The table is kept for
        the next call from the same frame, whose callers cannot have changed unless it is a generator's; the
        loop's own table is kept apart (the loop body's calls alternate with calls from the functions it calls), and
        so is the table of the frame before the last one (a function calls again after a call from a function it
        called). A generator's table is kept while it is resumed from the same place of the same caller (which is
        no generator's, so its own path cannot have changed): a generator expression's calls on every item.
        A walk stops at a frame whose path is known: the last two frames' (their tables keep their prefix under
        ``None``) or the anchor's (the caller of the last frame walked to the loop). None of them is a generator's
        and each is running, so the frames above it are those it was seen with; the prefix is the one a walk to the
        loop would give, cut at ``MAX_STACK`` frames alike. A new sample's ``__getitem__`` stops at its caller, a
        transform's ``resize`` at the ``__getitem__`` that called it."""
        before = self._before
        if frame is before:                 # the frames kept are the loop's thread's: no other thread's frame is
            self._frame, self._table, self._before, self._before_table = frame, self._before_table, self._frame, \
                self._table                 # one of them, so the thread is checked only past these three
            return self._table
        generator = self._generator
        if frame is generator[0] and frame.f_back is generator[1] and generator[1].f_lasti == generator[2]:
            return generator[3]
        root = self._root
        if frame is root and self._root_table is not None:
            return self._root_table
        if _get_ident() != self._thread:
            return _OTHER_THREAD
        parts = [id(frame.f_code)]
        prefix: Optional[tuple] = None
        walk = frame
        if walk is not root:
            held, anchor = self._frame, self._anchor
            for _ in _STEPS:            # the frames ``_site`` walks, up to one whose path is known
                walk = walk.f_back
                if walk is None:
                    break
                parts += (id(walk.f_code), walk.f_lasti)
                if walk is root:
                    break
                if walk is held:
                    prefix = (tuple(parts) + self._table[None][1:])[:_LONGEST]
                    break
                if walk is before:
                    prefix = (tuple(parts) + self._before_table[None][1:])[:_LONGEST]
                    break
                if walk is anchor:
                    prefix = (tuple(parts) + self._anchor_prefix[1:])[:_LONGEST]
                    break
            else:
                walk = None             # cut at MAX_STACK frames: no anchor
        if prefix is None:
            prefix = tuple(parts)
            caller = frame.f_back
            if walk is not None and caller is not None and caller is not root and len(parts) > 3 \
                    and not caller.f_code.co_flags & _RESUMABLE:
                # the path of the caller, kept while it runs: walks from its other callees stop there
                self._anchor, self._anchor_prefix = caller, prefix[1:2] + prefix[3:]
        table = self._tables.get(prefix)
        if table is None:
            table = {None: prefix}
            if len(self._tables) < 4 * self.max_sites:
                self._tables[prefix] = table
        if frame is root:           # its path is its code alone: the same even when a generator's
            self._root_table = table
        elif frame.f_code.co_flags & _RESUMABLE:
            caller = frame.f_back
            if caller is not None and not caller.f_code.co_flags & _RESUMABLE:
                self._generator = (frame, caller, caller.f_lasti, table)
        else:
            self._before, self._before_table, self._frame, self._table = self._frame, self._table, frame, table
        return table

    def _site(self, frame: Any, name: str, index: int) -> Optional[_Site]:
        """The site of a call: its name and index, the code objects and line numbers of the frames up to the loop
        (two paths through different calls on the same lines are one site). None past the budget."""
        key, root, walk = [name, index], self._root, frame
        while walk is not None and len(key) < 2 * MAX_STACK + 2:
            key.append(walk.f_code)
            key.append(walk.f_lineno)
            if walk is root:
                break
            walk = walk.f_back
        key_tuple = tuple(key)
        site = self._sites.get(key_tuple)
        if site is None:
            if len(self._sites) >= self.max_sites:
                self._limit()
                return None
            site = self._sites[key_tuple] = _Site(name, frame.f_code.co_filename, frame.f_lineno, key_tuple)
        return site

    def _limit(self) -> None:
        if not self._full:
            self._full = True
            print(f"msft_dynamic_analysis: warning: more than {self.max_sites} call sites recorded; new call sites "
                  f"are not recorded, the ones already seen still are (set MSFT_DYNAMIC_MAX_SITES to record more).",
                  file=sys.stderr, flush=True)
