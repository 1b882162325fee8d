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
import functools
import multiprocessing
import os
import sys
import tempfile
import threading
import types
from itertools import islice
from typing import Any, Callable, Iterable, Iterator, Optional

import torch

REPORT_NAME = "msft_dynamic_shape_analysis_report.csv"
HEADER = ("Function Name", "File Path", "Line Number", "Call Stack", "Input Shape Range", "Output Shape Range")
# The vendor's never-traced calls, calls that return no tensor, and metadata reads (no operator runs).
SKIPPED_NAMES = frozenset({
    "cpu", "cuda", "long", "float", "int", "detach", "to", "contiguous", "type", "requires_grad_", "clone", "numpy",
    "item", "tolist", "size", "dim", "numel", "nelement", "ndimension", "shape", "ndim", "stride", "storage_offset",
    "element_size", "data_ptr", "is_contiguous", "is_floating_point", "is_complex", "get_device", "__len__",
    "untyped_storage", "is_nonzero", "npu", "half", "double", "bool", "byte", "short", "bfloat16"})
TORCH_PACKAGES = frozenset({"torch", "torchvision", "torch_npu", "torchaudio"})
MAX_SITES = 10000
MAX_CALLS = 1 << 16     # calls of one site compared per iteration (memory stays bounded)
MAX_STACK = 64          # frames walked to build a call path
MAX_DEPTH = 3           # levels of lists, tuples and dicts looked into
MAX_ITEMS = 256         # elements looked at in the arguments (or the result) of one call
MAX_SIGNATURES = 64     # distinct shape signatures remembered per call site (ranges stay exact beyond)

_Tensor, _Module, _TensorBase = torch.Tensor, torch.nn.Module, torch._C.TensorBase
_Function = torch.autograd.Function
_HOOK_FILE = os.path.abspath(__file__)
_CACHED_TYPES = (types.BuiltinFunctionType, types.FunctionType)   # stable objects; bound methods are not cached
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
ANALYSIS_DIR = os.path.dirname(os.path.dirname(_HOOK_FILE))


def _torch_module(module: Any) -> bool:
    return isinstance(module, str) and module.partition(".")[0] in TORCH_PACKAGES \
        and not module.startswith("torch.nn.init")


_FUNCTIONS: dict = {}       # module-level functions (torch.cat, F.relu, ...) -> whether they are recorded


def _traced(func: Any) -> bool:
    """Whether a call of ``func`` is recorded (cheap checks first)."""
    if isinstance(func, _Module):
        return True
    cached = type(func) in _CACHED_TYPES and getattr(func, "__self__", None) is None   # not a bound method
    if cached:
        known = _FUNCTIONS.get(func)
        if known is not None:
            return known
    traced = _decide(func)
    if cached and len(_FUNCTIONS) < 4096:
        _FUNCTIONS[func] = traced
    return traced


def _decide(func: Any) -> bool:
    name = getattr(func, "__name__", None)
    if name in SKIPPED_NAMES:
        return False
    owner = getattr(func, "__self__", None)
    if owner is not None:
        if isinstance(owner, (_Tensor, _Module)):      # Tensor methods; methods of modules, the project's too
            return True
        if isinstance(owner, type) and issubclass(owner, _Function):     # MyFunction.apply (a C builtin)
            return True
    if isinstance(func, type):
        return False
    if isinstance(func, functools.partial):
        return _traced(func.func)
    module = getattr(func, "__module__", None)
    if module is None:
        objclass = getattr(func, "__objclass__", None)   # torch.Tensor.add and other unbound C methods
        if isinstance(objclass, type) and issubclass(objclass, _TensorBase):
            return True
        module = type(owner).__module__ if owner is not None else None   # C methods of torch objects
    return _torch_module(module)


class _Budget:
    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = MAX_ITEMS


def _collect(value: Any, out: list, depth: int, budget: _Budget) -> None:
    if isinstance(value, _Tensor):
        try:
            out.append(tuple(value.shape))
        except Exception:        # nested and other shapeless tensors
            pass
        return
    if depth >= MAX_DEPTH or budget.left <= 0:
        return
    if isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, (list, tuple)):
        return
    for item in islice(value, budget.left):
        budget.left -= 1
        _collect(item, out, depth + 1, budget)
        if budget.left <= 0:
            return


def _shapes(values: Iterable[Any]) -> tuple:
    out: list = []
    budget: Optional[_Budget] = None
    for value in values:
        if isinstance(value, _Tensor):
            try:
                out.append(tuple(value.shape))
            except Exception:
                pass
        elif isinstance(value, (list, tuple, dict)):
            if budget is None:
                budget = _Budget()
            _collect(value, out, 0, budget)
    return tuple(out)


def _receiver_shape(func: Any) -> tuple:
    owner = getattr(func, "__self__", None)
    if isinstance(owner, _Tensor):
        try:
            return (tuple(owner.shape),)
        except Exception:
            return ()
    return ()


def _relative(path: str) -> str:
    if path.startswith("<"):          # <string>, <stdin>, ...
        return path
    relative = os.path.relpath(os.path.abspath(path), ANALYSIS_DIR)
    return path if relative.startswith("..") else "./" + relative.replace(os.sep, "/")


def _neutralise(cell: str) -> str:
    return "'" + cell if cell[:1] in ("=", "+", "-", "@", "\t", "\r") else cell


class _Ranges:
    """Per tensor position, per rank: the smallest and largest size of every dimension."""

    __slots__ = ("positions",)

    def __init__(self) -> None:
        self.positions: list[dict[int, tuple[list[int], list[int]]]] = []

    def add(self, shapes: tuple) -> None:
        while len(self.positions) < len(shapes):
            self.positions.append({})
        for ranks, shape in zip(self.positions, shapes):
            low_high = ranks.get(len(shape))
            if low_high is None:
                ranks[len(shape)] = (list(shape), list(shape))
                continue
            low, high = low_high
            for axis, size in enumerate(shape):
                if size < low[axis]:
                    low[axis] = size
                elif size > high[axis]:
                    high[axis] = size

    def text(self) -> str:
        """The vendor's cell: ``[(5, 4)-(8, 4) | (5,)-(8,)]`` per position, ranks from 1 up, ``[()]`` for 0-d."""
        if not self.positions:
            return "None"
        return ", ".join("[" + " | ".join(f"{tuple(low)}-{tuple(high)}" for rank, (low, high) in sorted(ranks.items())
                                          if rank) + "]" if any(ranks) else "[()]" for ranks in self.positions)


class _Site:
    """One call site reached through one call path."""

    __slots__ = ("name", "path", "line", "stack", "first", "seen", "last", "varying", "inputs", "outputs",
                 "iteration", "calls")

    def __init__(self, name: str, path: str, line: int, stack: str) -> None:
        self.name, self.path, self.line, self.stack = name, path, line, stack
        self.first: dict[int, tuple] = {}      # n-th call in an iteration -> the first (inputs, outputs) seen
        self.seen: set = set()                 # (receiver, inputs, outputs) already in the ranges
        self.last: tuple = ()
        self.varying = False
        self.iteration, self.calls = -1, 0     # calls of this site in that iteration
        self.inputs, self.outputs = _Ranges(), _Ranges()

    def row(self) -> list[str]:
        return [_neutralise(self.name), _relative(self.path), str(self.line), self.stack,
                self.inputs.text(), self.outputs.text()]


def _call_stack(frame: Any) -> str:
    """The user's frames, outermost first, as the vendor writes them: ``['<file F, line N in f>', ...]``."""
    frames = []
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if path != _HOOK_FILE and not path.startswith(_TORCH_DIR):
            frames.append(f"<file {_relative(frame.f_code.co_filename)}, line {frame.f_lineno} in "
                          f"{frame.f_code.co_name}>")
        frame = frame.f_back
    return str(frames[::-1])


def _main_process() -> bool:
    try:
        return multiprocessing.parent_process() is None     # not a spawned DataLoader worker
    except Exception:
        return True


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
        self._sites: dict[tuple, _Site] = {}
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
                self._root = loop
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
        self._root = root
        self._iteration += 1
        self._active = not self._stopped and threading.get_ident() == self._thread

    def _end_iteration(self) -> None:
        self._active, self._root = False, None
        if self._new_varying:
            self._new_varying = False
            self.write_report()

    def _forked(self) -> None:
        self._active, self._stopped, self._opened = False, True, True

    def _record_batch(self, loop: Any, name: str, item: Any) -> None:
        try:
            self._record(loop, name, -1, (), (), _shapes((item,)))
        except Exception as error:
            self._stop(f"internal error ({type(error).__name__}: {error}); recording stops here")

    # -- the calls --------------------------------------------------------------------------------------
    def hook_func(self, func: Callable[..., Any], name: str, index: int, /, *args: Any, **kwargs: Any) -> Any:
        """``func(*args, **kwargs)``, recording tensor shapes when inside an iteration and ``func`` is torch's."""
        if not self._active or threading.get_ident() != self._thread or not _traced(func):
            return func(*args, **kwargs)
        try:
            frame = sys._getframe(1)
            receiver = _receiver_shape(func)
            inputs = _shapes(args + tuple(kwargs.values())) if kwargs else _shapes(args)
        except Exception:
            return func(*args, **kwargs)
        result = func(*args, **kwargs)
        try:
            if self._active:
                self._record(frame, name, index, receiver, inputs, _shapes((result,)))
        except Exception as error:      # never let the detector break the run
            self._stop(f"internal error ({type(error).__name__}: {error}); recording stops here")
        finally:
            del frame
        return result

    def _record(self, frame: Any, name: str, index: int, receiver: tuple, inputs: tuple, outputs: tuple) -> None:
        path, root, walk = [], self._root, frame
        while walk is not None and len(path) < MAX_STACK:
            path.append((walk.f_code, walk.f_lineno))
            if walk is root:
                break
            walk = walk.f_back
        key = (tuple(path), name, index)
        site = self._sites.get(key)
        if site is None:
            if len(self._sites) >= self.max_sites:
                return self._limit()
            site = self._sites[key] = _Site(name, frame.f_code.co_filename, frame.f_lineno, _call_stack(frame))
        if site.iteration != self._iteration:
            site.iteration, site.calls = self._iteration, 0
        nth = site.calls
        site.calls = nth + 1
        full = (receiver, inputs, outputs)
        if full != site.last:           # the common case, the same shapes as the last call, costs one comparison
            site.last = full
            if full not in site.seen:
                if len(site.seen) < MAX_SIGNATURES:
                    site.seen.add(full)
                site.inputs.add(receiver + inputs)
                site.outputs.add(outputs)
        if site.varying:
            return
        signature = full[1:]    # the receiver's shape counts only through the result
        first = site.first.get(nth)
        if first is None:
            if nth < MAX_CALLS:
                site.first[nth] = signature
        elif first != signature:
            site.varying = self._new_varying = True

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
