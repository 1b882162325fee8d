"""Dynamic-shape detector written by ``npu-lint analyse -m dynamic_shape`` (standard library and torch only).

The instrumented copy calls ``DETECTOR.hook_func(func, name, index, *args, **kwargs)`` in place of
``func(*args, **kwargs)``; the training loop is wrapped as ``for batch in DETECTOR.start(loader):``.
Inside an iteration, and while the next batch is fetched (the dataset and the collate function, in the main
process), calls into torch record the shapes of their tensor inputs and outputs: torch, torchvision and
torch_npu functions, ``Tensor`` methods, custom autograd ``Function.apply``, ``nn.Module`` calls and methods
(the project's subclasses included) and methods of torch classes. Metadata reads (``numel``, ``size``, ``dim``,
``shape``, ...) and the vendor's skipped calls (``to``, ``cpu``, ``detach``, ...) are never recorded. Tensors are
found in arguments and results down to three levels of lists, tuples and dicts (at most ``MAX_ITEMS`` elements
looked at per call). The batch itself is recorded too, as ``<iterable type>.__next__`` on the loop's line.

A call site is reported when its shapes differ between iterations, in ``msft_dynamic_shape_analysis_report.csv``
beside the ``msft_dynamic_analysis`` folder (``MSFT_DYNAMIC_REPORT`` names another file). The report is truncated
to its header when the instrumented program starts (so a run whose loop never starts leaves no stale rows), is
rewritten after every iteration that found a new varying site and at interpreter exit, so a killed run keeps
what it found. Its columns and cells are the vendor's: ``Call Stack`` is a list of ``'<file F, line N in f>'``
strings, a shape range is ``[(min)-(max) | ...]`` per rank and per tensor, ``[()]`` for 0-d tensors.

A call site is one place in the code reached through one call path: the frames from the call up to the loop
that ``DETECTOR.start`` drives, with the hook's own name and per-line index. Its n-th call within an iteration
is compared with its n-th call in other iterations; a site called more often in one iteration than in another
is not reported for that alone (the extra calls have nothing to compare with). What is compared is the shapes
of the arguments and of the result: a method whose receiver changes shape but whose arguments and result do not
(``x.new_zeros(4)``, ``x.sum()``) is not a varying site.

The detector never ends the run: past ``MSFT_DYNAMIC_MAX_SITES`` (default 10000) call sites it records no new
site and prints one warning; the sites already seen keep being compared, so the report stays complete for them.
The result of every call, and any exception it raises, is exactly that of the original call.
"""
from __future__ import annotations

import atexit
import csv
import os
import sys
import tempfile
import threading
import types
from typing import Any, Callable, Iterable, Iterator, Optional

import torch

from .calls import SKIPPED_NAMES, VERDICTS as _VERDICTS, traced as _traced
from .shapes import shapes_of as _shapes
from .sites import ANALYSIS_DIR, Site as _Site, call_stack as _call_stack, main_process as _main_process

REPORT_NAME = "msft_dynamic_shape_analysis_report.csv"
HEADER = ("Function Name", "File Path", "Line Number", "Call Stack", "Input Shape Range", "Output Shape Range")
MAX_SITES = 10000
MAX_CALLS = 1 << 16     # calls of one site compared per iteration (memory stays bounded)
MAX_STACK = 64          # frames walked to build a call path
MAX_SIGNATURES = 64     # distinct shape signatures remembered per call site (ranges stay exact beyond)

_Tensor, _Module = torch.Tensor, torch.nn.Module
_BUILTIN, _METHOD, _FUNCTION = types.BuiltinFunctionType, types.MethodType, types.FunctionType
_UNKNOWN = object()
_NO_GENERATOR = (None, None, -1, None)
_RESUMABLE = 0x20 | 0x80 | 0x100 | 0x200    # CO_GENERATOR, CO_COROUTINE, CO_ITERABLE_COROUTINE, CO_ASYNC_GENERATOR
_getframe, _get_ident = sys._getframe, threading.get_ident
_STEPS = range(MAX_STACK - 1)
_LONGEST = 2 * MAX_STACK - 1    # the longest path prefix: a code, then a code and a place per frame walked


class Detector:
    """Records torch calls inside the iterations of ``start`` and reports the call sites whose shapes vary."""

    def __init__(self) -> None:
        self.report_path = os.environ.get("MSFT_DYNAMIC_REPORT") or os.path.join(ANALYSIS_DIR, REPORT_NAME)
        self.max_sites = int(os.environ.get("MSFT_DYNAMIC_MAX_SITES") or MAX_SITES)
        self._active = False            # inside an iteration, in the thread and process that started it
        self._stopped = False           # after an internal error, or in a forked child
        self._full = False              # past the budget of call sites: no new site is recorded
        self._opened = False
        self._thread = threading.get_ident()
        self._pid = os.getpid()
        self._root: Any = None          # the frame the call paths stop at
        self._iteration = 0
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
        self._new_varying = False
        self._write_failed = False
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._forked)

    def truncate(self) -> None:
        """Start the run with a header-only report (not in DataLoader workers), written again at exit."""
        if _main_process():
            self.write_report()
            atexit.register(self.write_report)
            self._opened = True

    # -- the loop ---------------------------------------------------------------------------------------
    def start(self, iterable: Iterable[Any]) -> Iterator[Any]:
        """Yield the items of ``iterable``; each item is one iteration, its fetching included."""
        self._open()
        if self._pid == os.getpid():
            self._thread = threading.get_ident()
        iterator = iter(iterable)
        name = f"{type(iterable).__qualname__}.__next__"
        try:
            while True:
                self._begin_iteration(sys._getframe(0))      # fetching: call paths stop at this generator
                try:
                    item = next(iterator)
                except StopIteration:
                    return
                loop = sys._getframe(1)
                self._set_root(loop)
                if self._active:
                    self._record_batch(loop, name, item)
                yield item
                self._end_iteration()
        finally:
            self._end_iteration()       # also after a break: the report has what the last iteration found

    def _open(self) -> None:
        if self._opened or self._pid != os.getpid():
            return
        self._opened = True
        atexit.register(self.write_report)
        self.write_report()     # a header-only report until something varies, overwriting an old one

    def _begin_iteration(self, root: Any) -> None:
        self._set_root(root)
        self._iteration += 1
        self._active = not self._stopped and threading.get_ident() == self._thread

    def _set_root(self, root: Any) -> None:
        """Call paths stop at ``root``; the tables kept for frames are forgotten (None: no frame is kept)."""
        self._root, self._root_table, self._frame, self._table = root, None, None, None
        self._before, self._before_table, self._generator = None, None, _NO_GENERATOR
        self._anchor, self._anchor_prefix = None, ()

    def _end_iteration(self) -> None:
        self._active = False
        self._set_root(None)
        if self._new_varying:
            self._new_varying = False
            self.write_report()

    def _forked(self) -> None:
        self._active, self._stopped, self._opened = False, True, True

    def _record_batch(self, loop: Any, name: str, item: Any) -> None:
        try:
            site = self._site(loop, name, -1)
            if site is not None:
                self._compare(site, loop, (), (), _shapes((item,)))
        except Exception as error:
            self._stop(f"internal error ({type(error).__name__}: {error}); recording stops here")

    # -- the calls --------------------------------------------------------------------------------------
    def hook_func(self, func: Callable[..., Any], name: str, index: int, /, *args: Any, **kwargs: Any) -> Any:
        """``func(*args, **kwargs)``, recording tensor shapes when inside an iteration and ``func`` is torch's.

        The hot path of a training step: the common cases (a Tensor method, a module called with one tensor, a
        result that is one tensor) are inlined, and a call from the same frame as the last one reuses its table."""
        if not self._active:
            return func(*args, **kwargs)
        kind = type(func)
        if kind is _BUILTIN or kind is _METHOD:
            owner = func.__self__
            if isinstance(owner, _Tensor):            # a Tensor method: recorded unless skipped
                if func.__name__ in SKIPPED_NAMES:
                    return func(*args, **kwargs)
                try:
                    receiver: tuple = (owner.shape,) if type(owner) is _Tensor else (tuple(owner.shape),)
                except Exception:             # a nested tensor has no shape
                    receiver = ()
            elif (owner is None and _VERDICTS.get(func)) or _traced(func):     # torch.cat: cached
                receiver = ()
            else:
                return func(*args, **kwargs)
        elif kind is _FUNCTION:
            if not (_VERDICTS.get(func) or _traced(func)):          # F.relu: cached
                return func(*args, **kwargs)
            receiver = ()
        elif isinstance(func, _Module) or _traced(func):
            receiver = ()
        else:
            return func(*args, **kwargs)
        if _get_ident() != self._thread:
            return func(*args, **kwargs)
        try:
            if kwargs:
                inputs = _shapes(args + tuple(kwargs.values()))
            elif len(args) == 1 and type(args[0]) is _Tensor:
                try:
                    inputs = (args[0].shape,)
                except Exception:
                    inputs = ()
            else:
                inputs = _shapes(args) if args else ()
        except Exception:
            return func(*args, **kwargs)
        result = func(*args, **kwargs)
        try:
            if self._active:
                if type(result) is _Tensor:
                    try:
                        outputs: tuple = (result.shape,)
                    except Exception:
                        outputs = ()
                else:
                    outputs = () if result is None else _shapes((result,))
                frame = _getframe(1)
                table = self._table if frame is self._frame else self._table_of(frame)
                site = table.get(frame.f_lasti, _UNKNOWN)
                if site is _UNKNOWN:
                    site = self._new_path(table, frame, name, index)
                    if site is None:
                        return result
                elif site is None:
                    return result
                full = (receiver, inputs, outputs)
                if site.varying:                # only its ranges are left to update (``_compare``, inlined)
                    if full != site.last:       # the same shapes as the last call cost one comparison
                        site.last = full
                        if full not in site.seen:
                            self._add(site, full)
                    return result
                if site.iteration == self._iteration:   # ``_compare``, inlined: the n-th call of this iteration
                    nth = site.calls
                else:
                    site.iteration, nth = self._iteration, 0
                site.calls = nth + 1
                first = site.first.get(nth)
                if full != first:
                    self._differs(site, frame, full, first, nth)
        except Exception as error:      # never let the detector break the run
            self._stop(f"internal error ({type(error).__name__}: {error}); recording stops here")
        return result

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
        root, walk = self._root, frame
        if frame is root and self._root_table is not None:
            return self._root_table
        if frame is self._before:
            self._frame, self._table, self._before, self._before_table = frame, self._before_table, self._frame, \
                self._table
            return self._table
        generator = self._generator
        if frame is generator[0] and frame.f_back is generator[1] and generator[1].f_lasti == generator[2]:
            return generator[3]
        parts = [id(frame.f_code)]
        prefix: Optional[tuple] = None
        held, before, anchor = self._frame, self._before, self._anchor
        if walk is not root:
            for _ in _STEPS:            # the frames ``_site`` walks, up to one whose path is known
                walk = walk.f_back
                if walk is None:
                    break
                parts += (id(walk.f_code), walk.f_lasti)
                if walk is root:
                    break
                if walk is held or walk is before or walk is anchor:
                    known = self._table[None] if walk is held else self._before_table[None] if walk is before \
                        else self._anchor_prefix
                    prefix = (tuple(parts) + known[1:])[:_LONGEST]
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

    def _compare(self, site: _Site, frame: Any, receiver: tuple, inputs: tuple, outputs: tuple) -> None:
        """Compare a call with the same call (the same n-th of its site) in the other iterations."""
        if site.iteration != self._iteration:
            site.iteration, site.calls = self._iteration, 0
        nth = site.calls
        site.calls = nth + 1
        full = (receiver, inputs, outputs)
        if site.varying:
            if full != site.last:       # the same shapes as the last call cost one comparison
                site.last = full
                if full not in site.seen:
                    self._add(site, full)
            return
        first = site.first.get(nth)
        if full != first:               # else in the ranges since that first call
            self._differs(site, frame, full, first, nth)

    def _differs(self, site: _Site, frame: Any, full: tuple, first: Optional[tuple], nth: int) -> None:
        """A call of a site not varying yet whose shapes, ``full``, are not those of the site's first n-th call
        (``first``, None when this is that first call): into the ranges, and the site varies when its inputs or its
        result differ (the receiver's shape counts only through the result)."""
        if full not in site.seen:
            self._add(site, full)
        if first is None:
            if nth < MAX_CALLS:
                site.first[nth] = full
        elif first[1:] != full[1:]:
            site.varying = self._new_varying = True
            site.stack = _call_stack(frame)

    @staticmethod
    def _add(site: _Site, full: tuple) -> None:
        """Add the shapes of a call, (receiver, inputs, outputs), to the ranges of its site."""
        if len(site.seen) < MAX_SIGNATURES:
            site.seen.add(full)
        site.inputs.add(full[0] + full[1])
        site.outputs.add(full[2])

    def _limit(self) -> None:
        if not self._full:
            self._full = True
            print(f"msft_dynamic_analysis: warning: more than {self.max_sites} call sites recorded; new call sites "
                  f"are not recorded, the ones already seen still are (set MSFT_DYNAMIC_MAX_SITES to record more).",
                  file=sys.stderr, flush=True)

    def _stop(self, why: str) -> None:
        if self._stopped:
            return
        self._stopped, self._active = True, False
        self._set_root(None)
        print(f"msft_dynamic_analysis: warning: {why}.", file=sys.stderr, flush=True)
        self.write_report()

    # -- the report -------------------------------------------------------------------------------------
    def rows(self) -> list[list[str]]:
        """One row per varying call site, in the order the sites were first seen."""
        return [site.row() for site in list(self._sites.values()) if site.varying]

    def write_report(self) -> None:
        """Write the report atomically (temporary file, then ``os.replace``); never raise."""
        if self._pid != os.getpid():
            return
        folder = os.path.dirname(os.path.abspath(self.report_path))
        temporary: Optional[str] = None
        try:
            handle, temporary = tempfile.mkstemp(prefix=".msft_report.", suffix=".tmp", dir=folder)
            with os.fdopen(handle, "w", newline="", encoding="utf-8") as stream:
                writer = csv.writer(stream)
                writer.writerow(HEADER)
                writer.writerows(self.rows())
            os.chmod(temporary, 0o640)
            os.replace(temporary, self.report_path)
        except Exception as error:
            if temporary and os.path.exists(temporary):
                os.unlink(temporary)
            if not self._write_failed:
                self._write_failed = True
                print(f"msft_dynamic_analysis: warning: cannot write {self.report_path}: {error}",
                      file=sys.stderr, flush=True)


DETECTOR = Detector()
if __name__.startswith("msft_dynamic_analysis"):    # the copy's detector, not npu_lint's own module
    DETECTOR.truncate()
