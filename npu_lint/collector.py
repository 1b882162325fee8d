"""The cyclic garbage collector paused while a file is parsed.

``ast.parse`` allocates one object per node and makes no cycle: a collector pass during it frees nothing, and the
passes over a large tree made a file of 1.27 million nodes (100 lines of 980 terms) parse in 3.3 s instead of
0.85 s (CPU). The rule walk keeps the default thresholds in ``npu-lint check``: the lenient one of ``analyse`` and the
flake8 plugin, tried there, made the adversarial battery slower (10.4 -> 15.5 s CPU) and larger (679 -> 934 MB).
"""
from __future__ import annotations

import ast
import gc


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse`` with the collector paused (the same tree; the same exceptions); its state is restored."""
    if not gc.isenabled():
        return ast.parse(source, filename)
    gc.disable()
    try:
        return ast.parse(source, filename)
    finally:
        gc.enable()
