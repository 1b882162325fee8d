"""Dynamic-shape detector written by ``npu-lint analyse -m dynamic_shape`` (standard library and torch only).

The instrumented copy calls ``DETECTOR.hook_func(func, name, index, *args, **kwargs)`` in place of
``func(*args, **kwargs)`` (``DETECTOR.hook_args(func, name, index, *args)``, the cheaper entry, for a call without
keyword or starred arguments); the training loop is wrapped as ``for batch in DETECTOR.start(loader):``.
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

from .calls import SKIPPED_NAMES, STABLE as _STABLE, VERDICTS as _VERDICTS, object_traced as _object_traced, \
    traced as _traced
from .paths import MAX_SITES, CallPaths
from .shapes import ATOMS as _ATOMS, shapes_of as _shapes
from .sites import ANALYSIS_DIR, Site as _Site, call_stack as _call_stack, main_process as _main_process

REPORT_NAME = "msft_dynamic_shape_analysis_report.csv"
HEADER = ("Function Name", "File Path", "Line Number", "Call Stack", "Input Shape Range", "Output Shape Range")
MAX_CALLS = 1 << 16     # calls of one site compared per iteration (memory stays bounded)
MAX_SIGNATURES = 64     # distinct shape signatures remembered per call site (ranges stay exact beyond)

_Tensor, _Module = torch.Tensor, torch.nn.Module
_BUILTIN, _METHOD, _FUNCTION = types.BuiltinFunctionType, types.MethodType, types.FunctionType
_getframe = sys._getframe
_SHAPED = (list, tuple, dict, _Tensor)    # results ``_shapes`` may find a tensor in: others give ()


class Detector(CallPaths):
    """Records torch calls inside the iterations of ``start`` and reports the call sites whose shapes vary."""

    def __init__(self) -> None:
        self.report_path = os.environ.get("MSFT_DYNAMIC_REPORT") or os.path.join(ANALYSIS_DIR, REPORT_NAME)
        self.max_sites = int(os.environ.get("MSFT_DYNAMIC_MAX_SITES") or MAX_SITES)
        self._active = False            # inside an iteration, in the thread and process that started it
        self._stopped = False           # after an internal error, or in a forked child
        self._opened = False
        self._pid = os.getpid()
        self._iteration = 0
        CallPaths.__init__(self)
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
    def hook_args(self, func: Callable[..., Any], name: str, index: int, /, *args: Any) -> Any:
        """``func(*args)``, recording tensor shapes when inside an iteration and ``func`` is torch's: the
        instrumenter's form for a call without keyword or starred arguments, the hot path of a training step.

        No keyword dictionary is built; the common cases (a Tensor method, one or two tensor arguments, arguments
        that are numbers, a result that is one tensor) are inlined, a call from the same frame as the last one
        reuses its table, and the thread is checked only when a frame's table is looked up (``_table_of``)."""
        if not self._active:
            return func(*args)
        kind = type(func)
        if kind is _BUILTIN or kind is _METHOD:
            owner = func.__self__
            if owner is None:                         # torch.cat: cached
                if not (_VERDICTS.get(func) or _traced(func)):
                    return func(*args)
                receiver: tuple = ()
            elif isinstance(owner, _Tensor):          # a Tensor method: recorded unless skipped
                if func.__name__ in SKIPPED_NAMES:
                    return func(*args)
                try:
                    receiver = (owner.shape,) if type(owner) is _Tensor else (tuple(owner.shape),)
                except Exception:             # a nested tensor has no shape
                    receiver = ()
            elif _traced(func):
                receiver = ()
            else:
                return func(*args)
        elif kind is _FUNCTION:
            if not (_VERDICTS.get(func) or _traced(func)):          # F.relu: cached
                return func(*args)
            receiver = ()
        elif isinstance(func, _Module) or (_traced(func) if isinstance(func, _STABLE) else _object_traced(func, kind)):
            receiver = ()         # an object of the project (a transform): ``traced``'s last step, one frame less
        else:
            return func(*args)
        try:
            try:
                if not args:
                    inputs: tuple = ()
                elif type(args[0]) is _Tensor:
                    if len(args) == 1:
                        inputs = (args[0].shape,)
                    elif len(args) == 2 and type(args[1]) is _Tensor:
                        inputs = (args[0].shape, args[1].shape)
                    else:
                        inputs = _shapes(args)
                elif _ATOMS.issuperset(map(type, args)):      # sizes, dims, scalars: no tensor in them
                    inputs = ()
                else:
                    inputs = _shapes(args)
            except Exception:                 # a nested tensor has no shape: ``_shapes`` skips it
                inputs = _shapes(args)
        except Exception:
            return func(*args)
        result = func(*args)
        try:
            if self._active:
                if type(result) is _Tensor:
                    try:
                        outputs: tuple = (result.shape,)
                    except Exception:
                        outputs = ()
                else:
                    outputs = _shapes((result,)) if isinstance(result, _SHAPED) else ()   # None, a generator
                frame = _getframe(1)
                table = self._table if frame is self._frame else self._table_of(frame)
                try:
                    site = table[frame.f_lasti]
                except KeyError:                # a place of this frame not seen before
                    site = self._new_path(table, frame, name, index)
                if site is None:
                    return result
                full = (receiver, inputs, outputs)
                if site.varying:                # only its ranges are left to update (``_compare``, inlined)
                    if full not in site.seen and full != site.last:     # seen: one hash and one comparison
                        site.last = full        # past MAX_SIGNATURES, a repeat of the last call adds nothing
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

    def hook_func(self, func: Callable[..., Any], name: str, index: int, /, *args: Any, **kwargs: Any) -> Any:
        """``func(*args, **kwargs)``, recording as ``hook_args`` does: the instrumenter's form for a call with
        keyword or starred arguments (the shapes of the keyword arguments' values follow those of ``args``)."""
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
        elif isinstance(func, _Module) or (_traced(func) if isinstance(func, _STABLE) else _object_traced(func, kind)):
            receiver = ()         # an object of the project (a transform): ``traced``'s last step, one frame less
        else:
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
                    outputs = _shapes((result,)) if isinstance(result, _SHAPED) else ()   # None, a generator
                frame = _getframe(1)
                table = self._table if frame is self._frame else self._table_of(frame)
                try:
                    site = table[frame.f_lasti]
                except KeyError:                # a place of this frame not seen before
                    site = self._new_path(table, frame, name, index)
                if site is None:
                    return result
                full = (receiver, inputs, outputs)
                if site.varying:                # only its ranges are left to update (``_compare``, inlined)
                    if full not in site.seen and full != site.last:     # seen: one hash and one comparison
                        site.last = full        # past MAX_SIGNATURES, a repeat of the last call adds nothing
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

    def _compare(self, site: _Site, frame: Any, receiver: tuple, inputs: tuple, outputs: tuple) -> None:
        """Compare a call with the same call (the same n-th of its site) in the other iterations."""
        if site.iteration != self._iteration:
            site.iteration, site.calls = self._iteration, 0
        nth = site.calls
        site.calls = nth + 1
        full = (receiver, inputs, outputs)
        if site.varying:
            if full not in site.seen and full != site.last:
                site.last = full
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
