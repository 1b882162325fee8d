"""Kept for the command the top-level README names: ``python benchmarks/run.py [--runs 3] ...``.

Same as ``python benchmarks/fetch_corpus.py && python benchmarks/flake8_overhead.py [args]``; see README.md.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fetch_corpus  # noqa: E402
import flake8_overhead  # noqa: E402

if __name__ == "__main__":
    fetch_corpus.main()
    sys.exit(flake8_overhead.main())
