"""Dynamic-shape detector written by ``npu-lint analyse -m dynamic_shape`` (standard library and torch only).

The instrumented copy calls ``DETECTOR.hook_func(func, name, index, *args, **kwargs)`` in place of
``func(*args, **kwargs)``; the training loop is wrapped as ``for batch in DETECTOR.start(loader):``.
Inside an iteration, calls into torch (torch functions, Tensor methods, ``nn.Module`` calls, methods of torch
classes) record the shapes of their tensor inputs and outputs. A call site is reported when those shapes differ
between iterations, in ``msft_dynamic_shape_analysis_report.csv`` beside the ``msft_dynamic_analysis`` folder
(``MSFT_DYNAMIC_REPORT`` names another file). The report is rewritten after every iteration that found a new
varying site and at interpreter exit, so a killed run keeps what it found.

A call site is one place in the code reached through one call path: the frames from the call up to the loop
that ``DETECTOR.start`` drives, with the hook's own name and per-line index. Its n-th call within an iteration
is compared with its n-th call in other iterations; a site called more often in one iteration than in another
is not reported for that alone (the extra calls have nothing to compare with).

The detector never ends the run: past ``MSFT_DYNAMIC_MAX_SITES`` (default 10000) recorded call sites it stops
recording, writes the report and prints one warning. The result of every call, and any exception it raises,
is exactly that of the original call.
"""
from __future__ import annotations

import atexit
import csv
import os
import sys
import tempfile
import threading
from itertools import islice
from typing import Any, Callable, Iterable, Iterator, Optional

import torch

REPORT_NAME = "msft_dynamic_shape_analysis_report.csv"
HEADER = ("Function Name", "File Path", "Line Number", "Call Stack", "Input Shape Range", "Output Shape Range")
# The vendor's list of calls that are never traced, plus calls that return no tensor.
SKIPPED_NAMES = frozenset({"cpu", "cuda", "long", "float", "int", "detach", "to", "contiguous", "type",
                           "requires_grad_", "clone", "numpy", "item", "tolist", "size", "dim"})
MAX_SITES = 10000
MAX_STACK = 64          # frames walked to build a call path
MAX_ITEMS = 64          # tensors looked at inside one list, tuple or dict
MAX_SIGNATURES = 64     # distinct shape signatures remembered per call site (ranges stay exact beyond)

_Tensor, _Module, _TensorBase = torch.Tensor, torch.nn.Module, torch._C.TensorBase
_HOOK_FILE = os.path.abspath(__file__)
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
ANALYSIS_DIR = os.path.dirname(os.path.dirname(_HOOK_FILE))


def _traced(func: Any) -> bool:
    """Whether a call of ``func`` is recorded: torch callables only (cheap checks first)."""
    if isinstance(func, _Module):
        return True
    name = getattr(func, "__name__", None)
    if name in SKIPPED_NAMES:
        return False
    if isinstance(getattr(func, "__self__", None), _Tensor):
        return True
    if isinstance(func, type):
        return False
    module = getattr(func, "__module__", None)
    if module is None:
        owner = getattr(func, "__objclass__", None)   # torch.Tensor.add and other unbound C methods
        return isinstance(owner, type) and issubclass(owner, _TensorBase)
    return isinstance(module, str) and module.startswith("torch") and not module.startswith("torch.nn.init")


def _collect(value: Any, out: list, depth: int = 0) -> None:
    if isinstance(value, _Tensor):
        try:
            out.append(tuple(value.shape))
        except Exception:        # nested and other shapeless tensors
            pass
    elif depth < 2 and isinstance(value, (list, tuple)):
        for item in islice(value, MAX_ITEMS):
            _collect(item, out, depth + 1)
    elif depth < 2 and isinstance(value, dict):
        for item in islice(value.values(), MAX_ITEMS):
            _collect(item, out, depth + 1)


def _input_shapes(func: Any, args: tuple, kwargs: dict) -> tuple:
    out: list = []
    _collect(getattr(func, "__self__", None), out, 2)     # the receiver of a Tensor method
    for value in args:
        _collect(value, out, 1)
    for value in kwargs.values():
        _collect(value, out, 1)
    return tuple(out)


def _output_shapes(value: Any) -> tuple:
    out: list = []
    _collect(value, out)
    return tuple(out)


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
        if not self.positions:
            return "None"
        return ", ".join("[" + " | ".join(f"{tuple(low)}-{tuple(high)}" for _, (low, high) in sorted(ranks.items()))
                         + "]" for ranks in self.positions)


class _Site:
    """One call site reached through one call path."""

    __slots__ = ("name", "path", "line", "stack", "first", "seen", "varying", "inputs", "outputs")

    def __init__(self, name: str, path: str, line: int, stack: str) -> None:
        self.name, self.path, self.line, self.stack = name, path, line, stack
        self.first: dict[int, tuple] = {}      # n-th call in an iteration -> the first (inputs, outputs) seen
        self.seen: set = set()
        self.varying = False
        self.inputs, self.outputs = _Ranges(), _Ranges()

    def row(self) -> list[str]:
        return [_neutralise(self.name), _relative(self.path), str(self.line), self.stack,
                self.inputs.text(), self.outputs.text()]


def _call_stack(frame: Any) -> str:
    """The user's frames, outermost first, as the vendor writes them (no hook or torch frames)."""
    frames = []
    while frame is not None:
        path = frame.f_code.co_filename
        if os.path.abspath(path) != _HOOK_FILE and not os.path.abspath(path).startswith(_TORCH_DIR):
            frames.append(f"<FrameSummary file {_relative(path)}, line {frame.f_lineno} in {frame.f_code.co_name}>")
        frame = frame.f_back
    return "[" + ", ".join(reversed(frames)) + "]"


class Detector:
    """Records torch calls inside the iterations of ``start`` and reports the call sites whose shapes vary."""

    def __init__(self) -> None:
        self.report_path = os.environ.get("MSFT_DYNAMIC_REPORT") or os.path.join(ANALYSIS_DIR, REPORT_NAME)
        self.max_sites = int(os.environ.get("MSFT_DYNAMIC_MAX_SITES") or MAX_SITES)
        self._active = False            # inside an iteration, in the thread and process that started it
        self._stopped = False           # past the limit, after an internal error, or in a forked child
        self._opened = False
        self._thread = threading.get_ident()
        self._pid = os.getpid()
        self._root: Any = None          # the frame running the loop over DETECTOR.start(...)
        self._counts: dict[tuple, int] = {}
        self._sites: dict[tuple, _Site] = {}
        self._keys = 0                  # recorded (site, n-th call) pairs
        self._new_varying = False
        self._write_failed = False
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._forked)

    # -- the loop ---------------------------------------------------------------------------------------
    def start(self, iterable: Iterable[Any]) -> Iterator[Any]:
        """Yield the items of ``iterable``; each item is one iteration. Fetching the next item is not recorded."""
        self._open()
        iterator = iter(iterable)
        try:
            while True:
                self._active = False
                try:
                    item = next(iterator)
                except StopIteration:
                    return
                self._begin_iteration(sys._getframe(1))
                yield item
                self._end_iteration()
        finally:
            if self._active:
                self._end_iteration()
            self._active = False

    def _open(self) -> None:
        if self._opened or self._pid != os.getpid():
            return
        self._opened = True
        self._thread = threading.get_ident()
        atexit.register(self.write_report)
        self.write_report()     # a header-only report until something varies, overwriting an old one

    def _begin_iteration(self, root: Any) -> None:
        self._root, self._counts = root, {}
        self._active = not self._stopped and threading.get_ident() == self._thread

    def _end_iteration(self) -> None:
        self._active, self._root = False, None
        if self._new_varying:
            self._new_varying = False
            self.write_report()

    def _forked(self) -> None:
        self._active, self._stopped, self._opened = False, True, True

    # -- the calls --------------------------------------------------------------------------------------
    def hook_func(self, func: Callable[..., Any], name: str, index: int, /, *args: Any, **kwargs: Any) -> Any:
        """``func(*args, **kwargs)``, recording tensor shapes when inside an iteration and ``func`` is torch's."""
        if not self._active or threading.get_ident() != self._thread or not _traced(func):
            return func(*args, **kwargs)
        try:
            frame = sys._getframe(1)
            inputs = _input_shapes(func, args, kwargs)
        except Exception:
            return func(*args, **kwargs)
        result = func(*args, **kwargs)
        try:
            if self._active:
                self._record(frame, name, index, inputs, _output_shapes(result))
        except Exception as error:      # never let the detector break the run
            self._stop(f"internal error ({type(error).__name__}: {error}); recording stops here")
        finally:
            del frame
        return result

    def _record(self, frame: Any, name: str, index: int, inputs: tuple, outputs: tuple) -> None:
        path, root, walk = [], self._root, frame
        while walk is not None and len(path) < MAX_STACK:
            path.append((walk.f_code, walk.f_lineno))
            if walk is root:
                break
            walk = walk.f_back
        key = (tuple(path), name, index)
        nth = self._counts.get(key, 0)
        self._counts[key] = nth + 1
        site = self._sites.get(key)
        if site is None:
            if self._keys >= self.max_sites:
                return self._limit()
            site = self._sites[key] = _Site(name, frame.f_code.co_filename, frame.f_lineno, _call_stack(frame))
        signature = (inputs, outputs)
        first = site.first.get(nth)
        if first is None:
            if self._keys >= self.max_sites:
                return self._limit()
            self._keys += 1
            site.first[nth] = signature
        elif first != signature and not site.varying:
            site.varying = self._new_varying = True
        if signature not in site.seen:
            if len(site.seen) < MAX_SIGNATURES:
                site.seen.add(signature)
            site.inputs.add(inputs)
            site.outputs.add(outputs)

    def _limit(self) -> None:
        self._stop(f"more than {self.max_sites} call sites recorded; recording stops here and the run goes on "
                   f"(set MSFT_DYNAMIC_MAX_SITES to record more)")

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
