"""Per-file facts cached by content hash: a changed file is parsed again, every other file is not.

One pickle per cache folder maps a file's absolute path to (content hash, facts). Facts depend only on the
file's own text (names are resolved across modules when the index is queried), so a changed file
invalidates its own entry and nothing else. A missing or unreadable cache is simply rebuilt.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path
from typing import Optional

from npu_lint.project.facts import FACTS_VERSION, ModuleFacts, extract
from npu_lint.project.modules import ModuleFile, NativeFile
from npu_lint.sources import Unreadable, parse, read_source

_FILE = f"project-facts-v{FACTS_VERSION}.pickle"


class FactsCache:
    """Facts of modules and native sources, keyed by path and checked against the content hash."""

    def __init__(self, folder: Optional[Path]) -> None:
        self.folder = folder
        self.entries: dict[str, tuple[str, object]] = {}
        self.changed = False
        if folder is not None:
            try:
                with (folder / _FILE).open("rb") as handle:
                    loaded = pickle.load(handle)
                if isinstance(loaded, dict):
                    self.entries = loaded
            except (OSError, pickle.PickleError, EOFError, AttributeError, ValueError, TypeError, ImportError):
                self.entries = {}

    def _lookup(self, path: Path) -> tuple[str, Optional[object], bytes]:
        data = path.read_bytes()
        digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        entry = self.entries.get(str(path))
        return digest, (entry[1] if entry is not None and entry[0] == digest else None), data

    def module(self, module: ModuleFile, warnings: list[str]) -> Optional[ModuleFacts]:
        """The facts of one module (None, with a warning, when it cannot be read or parsed)."""
        try:
            digest, facts, _ = self._lookup(module.path)
        except OSError as error:
            warnings.append(f"{module.relative} cannot be read ({error.strerror or error}), skip.")
            return None
        if isinstance(facts, ModuleFacts) and facts.name == module.name and facts.relative == module.relative:
            return facts
        try:
            source = read_source(module.path)
            tree = parse(source, module.path)
        except Unreadable as error:
            warnings.append(f"{module.relative} {error}, skip.")
            return None
        facts = extract(tree, module.name, module.relative, module.is_package)
        self.entries[str(module.path)] = (digest, facts)
        self.changed = True
        return facts

    def native_ops(self, item: NativeFile, warnings: list[str]) -> list[str]:
        from npu_lint.report.cuda_ops import exported_ops
        try:
            digest, ops, _ = self._lookup(item.path)
        except OSError as error:
            warnings.append(f"{item.relative} cannot be read ({error.strerror or error}), skip.")
            return []
        if isinstance(ops, list):
            return ops
        try:
            ops = exported_ops(read_source(item.path))
        except Unreadable as error:
            warnings.append(f"{item.relative} {error}, skip.")
            return []
        self.entries[str(item.path)] = (digest, ops)
        self.changed = True
        return ops

    def save(self) -> None:
        """Write the cache atomically (a temporary file renamed into place); errors leave no cache."""
        if self.folder is None or not self.changed:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=".facts.", dir=self.folder)
            with os.fdopen(handle, "wb") as stream:
                pickle.dump(self.entries, stream, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, self.folder / _FILE)
        except OSError:
            pass
