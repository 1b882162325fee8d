"""A content-hash cache of per-file results, so a second report over an unchanged tree is near-instant.

Kept in ``<OUTPUT>/.npu-lint-cache/`` (inside the output folder: nothing is written elsewhere), which must be a
real folder owned by the user (never a symbolic link). The key covers the file's bytes, the code and tables of
the installed npu-lint (hashed once per process, so an upgrade that keeps the version number still invalidates),
the target release and the project's custom CUDA operators and third-party APIs. Each entry records its key, the
digest of the source bytes and a checksum of its payload: a swapped, edited or truncated entry is ignored and
recomputed with one warning. Entries are written to unique temporary files (``O_EXCL | O_NOFOLLOW``) and renamed
into place, so concurrent runs on one output never see half an entry and never write through a planted link.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
from functools import lru_cache
from pathlib import Path
from typing import Optional

from npu_lint import __version__
from npu_lint.finding import Finding
from npu_lint.report.collect import FileResult
from npu_lint.sources import MAX_BYTES, Unreadable, read_bytes
from npu_lint.versions import Target

FOLDER = ".npu-lint-cache"
SCHEMA = 2
_ENTRY_LIMIT = 64 * 1024 * 1024
_FINDING_FIELDS = {"code": str, "message": str, "line": int, "col": int, "end_line": int, "api": str, "family": str}
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A digest of the package's Python code and rule tables: computed once per process."""
    import npu_lint
    from npu_lint.tables import TABLES_DIR
    digest = hashlib.sha256(__version__.encode())
    for root, pattern in ((Path(npu_lint.__file__).parent, "*.py"), (TABLES_DIR, "*")):
        for path in sorted(p for p in root.rglob(pattern) if p.is_file() and "__pycache__" not in p.parts):
            digest.update(b"\0" + path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _payload_digest(payload: dict) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=True).encode()).hexdigest()


class ResultCache:
    def __init__(self, output: Path) -> None:
        self.folder = output / FOLDER
        self.warnings: list[str] = []   # one line per thing found wrong (the run logs them as WARNINGs)
        self._usable: Optional[bool] = None

    def _warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def _ready(self, create: bool) -> bool:
        """The cache folder is a real folder owned by us (made with mode 0700 when ``create``)."""
        if self._usable is not None and (self._usable or not create):
            return self._usable
        try:
            info = os.lstat(self.folder)
        except FileNotFoundError:
            if not create:
                return False
            try:
                os.mkdir(self.folder, 0o700)
                info = os.lstat(self.folder)
            except OSError as error:
                self._warn(f"cache {FOLDER} cannot be created ({error.strerror}); results are not cached")
                self._usable = False
                return False
        except OSError as error:
            self._warn(f"cache {FOLDER} cannot be read ({error.strerror}); results are not cached")
            self._usable = False
            return False
        if not stat.S_ISDIR(info.st_mode) or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
            what = "a symbolic link" if stat.S_ISLNK(info.st_mode) else (
                "not a folder" if not stat.S_ISDIR(info.st_mode) else "owned by another user")
            self._warn(f"cache {FOLDER} is {what}: not used")
            self._usable = False
            return False
        self._usable = True
        return True

    def subfolder(self, name: str) -> Optional[Path]:
        """A folder of its own inside the cache (the project index facts), checked like the cache itself: a
        real folder owned by us, made 0700; None (results simply not cached) otherwise."""
        if not self._ready(create=True):
            return None
        folder = self.folder / name
        try:
            try:
                info = os.lstat(folder)
            except FileNotFoundError:
                os.mkdir(folder, 0o700)
                info = os.lstat(folder)
        except OSError as error:
            self._warn(f"cache {FOLDER}/{name} cannot be made ({error.strerror}); not used")
            return None
        if not stat.S_ISDIR(info.st_mode) or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
            self._warn(f"cache {FOLDER}/{name} is not a folder of ours: not used")
            return None
        return folder

    def key(self, path: Path, target: Target, context: frozenset[str]) -> Optional[tuple[str, str]]:
        """(entry key, digest of the source bytes), or None when the file cannot be read."""
        try:
            data = read_bytes(path, MAX_BYTES)
        except Unreadable:
            return None
        source = hashlib.sha256(data).hexdigest()
        key = hashlib.sha256(f"{SCHEMA}\0{code_fingerprint()}\0{source}\0{target.release}.{target.post}\0"
                             f"{','.join(sorted(context))}".encode()).hexdigest()
        return key, source

    def get(self, path: Path, target: Target, context: frozenset[str]) -> Optional[FileResult]:
        keys = self.key(path, target, context)
        return self.load(*keys, name=path.name) if keys else None

    def load(self, key: str, source: str, name: str = "") -> Optional[FileResult]:
        if not self._ready(create=False):
            return None
        entry = self.folder / f"{key}.json"
        try:
            descriptor = os.open(entry, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
        except FileNotFoundError:
            return None
        except OSError:
            self._warn(f"cache entry {entry.name} is not a regular file: ignored, {name} analysed again")
            return None
        try:
            with os.fdopen(descriptor, "rb") as handle:
                if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                    raise ValueError("not a regular file")
                data = json.loads(handle.read(_ENTRY_LIMIT + 1))
            result = _validated(data, key, source)
        except (OSError, ValueError, KeyError, TypeError) as error:
            self._warn(f"cache entry {entry.name} is invalid ({error}): ignored, {name} analysed again")
            return None
        return result

    def put(self, key: str, source: str, result: FileResult) -> None:
        if not self._ready(create=True):
            return
        findings, inventory, skipped = result
        payload = {"findings": [vars(f) for f in findings], "inventory": [list(row) for row in inventory],
                   "skipped": skipped}
        document = {"schema": SCHEMA, "key": key, "source_sha256": source,
                    "payload_sha256": _payload_digest(payload), "payload": payload}
        temporary = self.folder / f".{key}.{os.getpid()}.{os.urandom(6).hex()}.tmp"
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
        except OSError as error:
            self._warn(f"cache entry for {key[:12]} cannot be written ({error.strerror}); not cached")
            return
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                json.dump(document, handle, ensure_ascii=True)
            os.replace(temporary, self.folder / f"{key}.json")   # rename never follows a link at the target
        except OSError as error:
            self._warn(f"cache entry {key}.json cannot be replaced ({error.strerror}); not cached")
            try:
                os.unlink(temporary)
            except OSError:
                pass


def _validated(data: object, key: str, source: str) -> FileResult:
    """The entry's result, or ValueError/KeyError/TypeError when anything differs from what was written."""
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ValueError("unknown schema")
    if data["key"] != key or data["source_sha256"] != source:
        raise ValueError("written for other source bytes")
    payload = data["payload"]
    if not isinstance(payload, dict) or _payload_digest(payload) != data["payload_sha256"]:
        raise ValueError("checksum mismatch")
    findings = []
    for item in payload["findings"]:
        if not isinstance(item, dict) or set(item) != set(_FINDING_FIELDS) or not all(
                type(item[name]) is kind for name, kind in _FINDING_FIELDS.items()):
            raise ValueError("malformed finding")
        findings.append(Finding(**item))
    inventory = []
    for row in payload["inventory"]:
        if not isinstance(row, list) or len(row) != 4 or [type(cell) for cell in row] != [int, int, str, str]:
            raise ValueError("malformed inventory row")
        inventory.append(tuple(row))
    skipped = payload["skipped"]
    if skipped is not None and not isinstance(skipped, str):
        raise ValueError("malformed skip reason")
    return findings, inventory, skipped
