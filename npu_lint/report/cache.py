"""A content-hash cache of per-file results, so a second report over an unchanged tree is near-instant.

Kept in ``<OUTPUT>/.npu-lint-cache/`` (inside the output folder: nothing is written elsewhere). The key
covers the file's bytes, the npu-lint version (which fixes the rules and the tables), the target
release and the project's custom CUDA operators.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Optional

from npu_lint import __version__
from npu_lint.finding import Finding
from npu_lint.report.collect import FileResult
from npu_lint.versions import Target

FOLDER = ".npu-lint-cache"


class ResultCache:
    def __init__(self, output: Path) -> None:
        self.folder = output / FOLDER

    def _key(self, path: Path, target: Target, custom_ops: frozenset[str]) -> Optional[str]:
        try:
            data = path.read_bytes()
        except OSError:
            return None
        digest = hashlib.sha256(data)
        digest.update(f"\\0{__version__}\\0{target.release}.{target.post}\\0{','.join(sorted(custom_ops))}".encode())
        return digest.hexdigest()

    def get(self, path: Path, target: Target, custom_ops: frozenset[str]) -> Optional[FileResult]:
        key = self._key(path, target, custom_ops)
        entry = self.folder / f"{key}.json" if key else None
        if entry is None or not entry.is_file():
            return None
        try:
            data = json.loads(entry.read_text(encoding="utf-8"))
            return ([Finding(**item) for item in data["findings"]], [tuple(row) for row in data["inventory"]],
                    data["skipped"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, path: Path, target: Target, custom_ops: frozenset[str], result: FileResult) -> None:
        key = self._key(path, target, custom_ops)
        if key is None:
            return
        findings, inventory, skipped = result
        self.folder.mkdir(exist_ok=True)
        payload = {"findings": [vars(f) for f in findings], "inventory": inventory, "skipped": skipped}
        temporary = self.folder / f"{key}.tmp"
        temporary.write_text(json.dumps(payload), encoding="utf-8")
        temporary.replace(self.folder / f"{key}.json")
