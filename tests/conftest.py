"""Shared helpers: the repository paths and the installed command-line tools."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Sequence

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    """The console script installed beside this interpreter (the venv under test)."""
    found = BIN / name
    if found.exists():
        return str(found)
    other = shutil.which(name)
    if other is None:
        pytest.skip(f"{name} is not installed")
    return other


def run(args: Sequence[str], cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, timeout=600, **kwargs)
