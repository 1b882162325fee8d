"""The ``npu-lint`` console script: Ctrl-C while the command is still importing or parsing its options ends with
the same one line and status 130 as during the run, never a traceback."""
from __future__ import annotations

import sys


def main() -> int:
    try:
        from npu_lint.cli import main as run
        return run()
    except KeyboardInterrupt:
        print("npu-lint: interrupted", file=sys.stderr)
        return 130
