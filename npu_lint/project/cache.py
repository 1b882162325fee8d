"""Per-file facts cached by content hash: a changed file is parsed again, every other file is not.

One file per cache folder maps a file's absolute path to (size, mtime, content hash, facts), written with
:mod:`marshal` (facts are plain tuples of strings and numbers). A file whose size and modification time are
unchanged is not read again; otherwise its content hash decides. Facts depend only on the file's own text (names
are resolved across modules when the index is queried), so a changed file invalidates its own entry and nothing
else. A missing, foreign or unreadable cache is simply rebuilt.
"""
from __future__ import annotations

import hashlib
import marshal
import os
from pathlib import Path
from typing import Optional

from npu_lint import __version__
from npu_lint.analysis.scopes import Scopes
from npu_lint.project.facts import FACTS_VERSION, ClassFacts, FunctionFacts, ModuleFacts, extract
from npu_lint.project.modules import ModuleFile, NativeFile, is_build_script
from npu_lint.project.parsed import ParsedFiles
from npu_lint.sources import Unreadable, parse, read_bytes, read_source

# keyed by the release too: an upgrade that changes what a fact means without bumping FACTS_VERSION never reads
# the facts an older release wrote
_FILE = f"project-facts-v{FACTS_VERSION}-{__version__}.marshal"
_LIGHT_FILE = f"project-facts-v{FACTS_VERSION}-{__version__}-light.marshal"   # facts without calls and references


def _plain(facts: ModuleFacts) -> tuple:
    return (*facts[:3], tuple(tuple(f) for f in facts.functions), tuple(tuple(c) for c in facts.classes), *facts[5:])


def _facts(plain: tuple) -> ModuleFacts:
    return ModuleFacts(*plain[:3], tuple(FunctionFacts(*f) for f in plain[3]),
                       tuple(ClassFacts(*c) for c in plain[4]), *plain[5:])


class FactsCache:
    """Facts of modules and native sources, keyed by path and checked against the content hash."""

    def __init__(self, folder: Optional[Path], light: bool = False) -> None:
        self.folder = folder
        self.light = light   # facts for the model only, without the call graph (kept in a file of their own)
        self.file = _LIGHT_FILE if light else _FILE
        self.entries: dict[str, tuple] = {}   # path -> (size, mtime_ns, digest, kind, plain facts)
        self.changed = False
        if folder is not None:
            try:
                loaded = marshal.loads((folder / self.file).read_bytes())
                if isinstance(loaded, dict):
                    self.entries = loaded
            except (OSError, EOFError, ValueError, TypeError):
                self.entries = {}

    def _lookup(self, path: Path, kind: str) -> tuple[tuple, Optional[object]]:
        """(stamp, cached value or None): unchanged size and mtime, or else an unchanged content hash."""
        if self.folder is None:
            path.stat()   # unreadable files still give their warning
            return (), None
        stat = path.stat()
        entry = self.entries.get(str(path))
        if entry is not None and entry[3] == kind and entry[0] == stat.st_size and entry[1] == stat.st_mtime_ns:
            return entry[:3], entry[4]
        try:
            data = read_bytes(path)   # regular files only, at most the size cap
        except Unreadable as error:
            raise OSError(str(error)) from None
        digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        stamp = (stat.st_size, stat.st_mtime_ns, digest)
        if entry is not None and entry[3] == kind and entry[2] == digest:
            self.entries[str(path)] = (*stamp, kind, entry[4])
            self.changed = True
            return stamp, entry[4]
        return stamp, None

    def module(self, module: ModuleFile, warnings: list[str],
               keep: Optional[ParsedFiles] = None) -> Optional[ModuleFacts]:
        """The facts of one module (None, with a warning, when it cannot be read or parsed); a file it parses goes
        to ``keep`` (with its scopes) when that has room, for the rule walk."""
        try:
            stamp, plain = self._lookup(module.path, "py")
        except OSError as error:
            warnings.append(f"{module.relative} cannot be read ({error.strerror or error}), skip.")
            return None
        if isinstance(plain, tuple) and plain[0] == module.name and plain[1] == module.relative:
            try:
                return _facts(plain)
            except TypeError:
                pass
        try:
            source = read_source(module.path)
            tree = parse(source, module.path)
        except Unreadable as error:
            warnings.append(f"{module.relative} {error}, skip.")
            return None
        if keep is not None and keep.wants(source):
            scopes = Scopes(tree)
            facts = extract(tree, module.name, module.relative, module.is_package, scopes, self.light, source)
            keep.put(module.path, source, tree, scopes)
        else:
            facts = extract(tree, module.name, module.relative, module.is_package, None, self.light, source)
        if self.folder is not None:   # without a cache folder nothing is kept twice
            self.entries[str(module.path)] = (*stamp, "py", _plain(facts))
            self.changed = True
        return facts

    def native_ops(self, item: NativeFile, warnings: list[str]) -> list[tuple[str, str]]:
        """(namespace, operator) pairs a C++/CUDA source registers ("" for ``PYBIND11_MODULE``)."""
        from npu_lint.project.extensions import declared_extensions
        from npu_lint.report.cuda_ops import registered_ops
        try:
            stamp, ops = self._lookup(item.path, "native-ops")
        except OSError as error:
            warnings.append(f"{item.relative} cannot be read ({error.strerror or error}), skip.")
            return []
        if isinstance(ops, list):
            return [tuple(pair) for pair in ops]
        try:
            text = read_source(item.path)
            ops = declared_extensions(text) if is_build_script(item.path.name) else registered_ops(text)
        except Unreadable as error:
            warnings.append(f"{item.relative} {error}, skip.")
            return []
        self.entries[str(item.path)] = (*stamp, "native-ops", [list(pair) for pair in ops])
        self.changed = True
        return ops

    def cached(self) -> tuple[list[ModuleFacts], list[tuple[str, str]]]:
        """Everything the cache holds, as it was last built (stale or not): for readers that never build."""
        modules, pairs = [], []
        for entry in self.entries.values():
            try:
                if entry[3] == "py":
                    modules.append(_facts(entry[4]))
                elif entry[3] == "native-ops":
                    pairs.extend(tuple(pair) for pair in entry[4])
            except (TypeError, IndexError, ValueError):
                continue
        return modules, pairs

    def save(self) -> None:
        """Write the cache atomically (a temporary file renamed into place); errors leave no cache."""
        if self.folder is None or not self.changed:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            import tempfile   # only when facts are written: a --no-cache run need not load it (nor random)
            handle, temporary = tempfile.mkstemp(prefix=".facts.", dir=self.folder)
            with os.fdopen(handle, "wb") as stream:
                stream.write(marshal.dumps(self.entries))
            os.replace(temporary, self.folder / self.file)
        except OSError:
            pass
