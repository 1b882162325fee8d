"""torch-npu releases that have rule tables, and parsing of user-given versions."""
from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from npu_lint.tables import read_lines

_VERSION = re.compile(r"^\s*v?(\d+)\.(\d+)(?:\.(\d+))?(?:\.?post(\d+))?\s*$")


class UnknownVersion(ValueError):
    """A version string that names no known torch-npu release."""


class Target(NamedTuple):
    """The release whose tables apply, plus the post number the user named (0 if none)."""

    release: str
    post: int = 0

    @property
    def key(self) -> tuple[int, int, int, int]:
        return release_key(self.release) + (self.post,)


def release_key(release: str) -> tuple[int, int, int]:
    major, minor, patch = (int(part) for part in release.split("."))
    return major, minor, patch


@lru_cache(maxsize=None)
def known_releases() -> tuple[str, ...]:
    """Every release with a table set, oldest first."""
    return tuple(sorted(read_lines("versions.txt"), key=release_key))


def default_release() -> str:
    """The newest table, used when no version is configured."""
    return known_releases()[-1]


def since_key(since: str) -> tuple[int, int, int, int]:
    """Order a ``since`` cell such as ``2.1.0`` or ``2.2.0.post2``."""
    match = _VERSION.match(since)
    if not match:
        return (0, 0, 0, 0)
    major, minor, patch, post = match.groups()
    return int(major), int(minor), int(patch or 0), int(post or 0)


def parse_target(text: str) -> Target:
    """Accept ``2.1``, ``2.1.0`` or ``2.6.0.post3``; raise :class:`UnknownVersion` otherwise."""
    known = known_releases()
    match = _VERSION.match(str(text))
    if match:
        major, minor, patch, post = match.groups()
        prefix = f"{int(major)}.{int(minor)}."
        candidates = [r for r in known if r.startswith(prefix)]
        if patch is not None:
            candidates = [r for r in candidates if r == f"{prefix}{int(patch)}"]
        if candidates:
            return Target(candidates[-1], int(post or 0))
    raise UnknownVersion(f"unknown torch-npu version {text!r}; known versions: {', '.join(known)}")
