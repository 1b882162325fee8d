"""Shapes of the tensors in a call's arguments and result, and their ranges per call site (part of the detector
copied by ``npu-lint analyse -m dynamic_shape``; standard library and torch only).

Tensors are found in arguments and results down to ``MAX_DEPTH`` levels of lists, tuples and dicts, at most
``MAX_ITEMS`` elements looked at per call. A shape is the ``torch.Size`` (a tuple) of a plain tensor, a tuple
for subclasses (whose ``shape`` may be another sequence); nested tensors have none.
"""
from __future__ import annotations

from itertools import chain, islice
from typing import Any, Iterable

import torch

MAX_DEPTH = 3           # levels of lists, tuples and dicts looked into
MAX_ITEMS = 256         # elements looked at in the arguments (or the result) of one call

_Tensor = torch.Tensor
# Arguments that are never tensors nor hold any: skipped at once (keyword arguments: dtypes, modes, flags, ...).
ATOMS = _ATOMS = frozenset({int, float, bool, str, complex, type(None), torch.dtype, torch.device, torch.layout,
                            torch.memory_format})
_CONTAINERS = (list, tuple, dict)
_ROWS = frozenset({list, tuple})


def _collect(container: Any, out: list, depth: int, left: int) -> int:
    """Append the shapes of the tensors in ``container`` (a list, tuple or dict at ``depth``) and, below
    ``MAX_DEPTH``, in the containers it holds. ``left`` elements may still be looked at (the container's own
    are counted first, then those of the containers in it): what remains is returned."""
    if isinstance(container, dict):
        container = container.values()
    size = len(container)
    if size <= left and depth < MAX_DEPTH - 1 and _ROWS.issuperset(map(type, container)) \
            and _ATOMS.issuperset(map(type, chain.from_iterable(container))):
        # rows of numbers (``torch.tensor(boxes)``): no tensor in them, their elements counted as the loop would
        left -= size + sum(map(len, container))
        return left if left > 0 else 0
    if size > left:
        container, size = islice(container, left), left
    left -= size
    deeper = depth < MAX_DEPTH - 1
    for item in container:
        kind = type(item)
        if kind is _Tensor:
            try:
                out.append(item.shape)
            except Exception:        # nested and other shapeless tensors
                pass
        elif kind is float or kind is int:            # sizes, coordinates
            continue
        elif isinstance(item, _Tensor):
            try:
                out.append(tuple(item.shape))
            except Exception:
                pass
        elif deeper and left and isinstance(item, _CONTAINERS):
            if kind is list and _ATOMS.issuperset(map(type, item)):    # a box's numbers: counted, not walked
                left = left - len(item) if len(item) < left else 0
            else:
                left = _collect(item, out, depth + 1, left)
    return left


def shapes_of(values: Iterable[Any]) -> tuple:
    """The shapes of the tensors among ``values`` and, down to ``MAX_DEPTH`` levels, in the lists, tuples and dicts
    among them (``MAX_ITEMS`` elements looked at in all). A shape is the ``torch.Size`` (a tuple) of a plain tensor,
    a tuple for subclasses (whose ``shape`` may be another sequence); nested tensors have none."""
    out: list = []
    left = MAX_ITEMS
    for value in values:
        kind = type(value)
        if kind is _Tensor:
            try:
                out.append(value.shape)
            except Exception:        # nested tensors
                pass
        elif kind is int or kind is float:       # a set lookup costs more than identity tests
            continue
        elif kind is tuple or kind is list:     # before the other tests: sizes, lists of tensors
            if not left:
                continue
            if value and type(value[0]) is int and _ATOMS.issuperset(map(type, value)):   # sizes: nothing in them
                left = left - len(value) if len(value) < left else 0      # what ``_collect`` would count
            else:
                left = _collect(value, out, 0, left)
        elif kind in _ATOMS:
            continue
        elif isinstance(value, _Tensor):
            try:
                out.append(tuple(value.shape))
            except Exception:
                pass
        elif not left:
            continue
        elif isinstance(value, _CONTAINERS):
            left = _collect(value, out, 0, left)
    return tuple(out)


class Ranges:
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
