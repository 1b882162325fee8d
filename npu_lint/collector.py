"""The cyclic garbage collector paused while a file is parsed, and kept off the file's tree while it is walked.

``ast.parse`` allocates one object per node and makes no cycle: a collector pass during it frees nothing, and the
passes over a large tree made a file of 1.27 million nodes (100 lines of 980 terms) parse in 3.3 s instead of
0.85 s (CPU). Re-enabled, the collector's next pass of the youngest generation would scan the whole new tree at
once (0.29 s on that file): the tree is moved to the oldest generation instead, where only a full pass looks (rare,
and kept off the tree during its walk: :func:`walking`). The rule walk keeps the default thresholds in ``npu-lint check``: the lenient one of ``analyse`` and the
flake8 plugin, tried there, made the adversarial battery slower (10.4 -> 15.5 s CPU) and larger (679 -> 934 MB).
"""
from __future__ import annotations

import ast
import gc
from contextlib import contextmanager
from typing import Iterator

# Set while a front end keeps objects frozen itself (``analyse``: the index, during the whole walk): ``parse`` and
# ``walking`` then leave the generations alone (their ``gc.unfreeze`` would thaw the index too). Not
# ``gc.get_freeze_count()``: it counts the frozen objects one by one (1.4 s of ``analyse`` on ultralytics, asked
# once per file). A host that freezes objects of its own finds them thawed after a walk: only scanned again.
HELD = [0]


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse`` with the collector paused (the same tree; the same exceptions); its state is restored."""
    if not gc.isenabled():
        return ast.parse(source, filename)
    gc.disable()
    try:
        return ast.parse(source, filename)
    finally:
        if not HELD[0]:   # the new tree straight to the oldest generation, unscanned (both O(1))
            gc.freeze()
            gc.unfreeze()
        gc.enable()


@contextmanager
def walking() -> Iterator[None]:
    """The objects alive before a file's walk (its tree, the scopes bound, the host's own: flake8's, ``check``'s index)
    are left out of the collector's passes while the walk runs (``gc.freeze``, undone after it: both O(1)); the
    walk's own objects are collected as before. The passes found nothing to free among the former and scanned all
    of them, again and again: the collector took 1.3 s of the 5.2 s ``check`` spends on a file of 1.27 million
    nodes (adversarial silu_lines.py). Nothing is done when some objects are frozen already (``analyse`` freezes
    its index for the whole walk: :data:`HELD`) or the collector is off. Cyclic garbage made before the walk is collected by the
    first full pass after it."""
    if not gc.isenabled() or HELD[0]:
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
        WALKS[0] += 1
        if WALKS[0] % FULL_PASS_EVERY == 0:
            gc.collect()   # see FULL_PASS_EVERY


# ``gc.unfreeze`` (here and in :func:`parse`) moves objects into the oldest generation without counting them among
# the "long-lived pending" objects whose number triggers a full pass: the cyclic garbage of earlier files would
# then stay until the process ends (flake8 -j1 over 842 files: 79 MB -> 478 MB peak). A full pass every few
# walks frees it; its cost is the live objects of one file and the host's, a few milliseconds per walk.
FULL_PASS_EVERY = 16
WALKS = [0]
