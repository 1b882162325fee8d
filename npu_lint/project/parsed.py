"""Parsed files handed from the project index build to the rule walk, so a file is parsed and bound once.

``npu-lint analyse`` indexes the project first (every module parsed, its scopes bound, its facts extracted) and
then walks every file with the rules. Each file the index parses is kept here with its source text, its tree and
its :class:`~npu_lint.analysis.scopes.Scopes`, up to a budget of source characters (a parsed tree with its scopes
takes about 35 bytes per source character); the walk takes it back out (freeing it) when the source it reads is
the same text. Files beyond the budget are parsed again by the walk: memory stays bounded on any tree size.
"""
from __future__ import annotations

import ast
import os
from typing import Optional

from npu_lint.analysis.scopes import Scopes

BUDGET = 3_000_000   # source characters kept at once (about 100 MB of trees and scopes)


class ParsedFiles:
    """Source, tree and scopes per resolved path, within :data:`BUDGET` source characters."""

    def __init__(self, budget: int = BUDGET) -> None:
        self.budget = self._base = budget
        self._files: dict[str, tuple[str, ast.Module, Scopes]] = {}
        self._used = 0

    def plan(self, total: int) -> None:
        """Size the budget for a tree of ``total`` source characters: all of it when it fits; beyond, a share that
        shrinks as the tree grows (``budget * budget / total``). Keeping the first files of a large tree saves their
        second parse only (a few percent of the run) while their trees sit in memory for the whole walk: 5,461
        files kept 3 million characters, about 100 MB of the peak, to save about 2 seconds of 7 minutes."""
        base = self._base
        self.budget = base if total <= base else base * base // total

    def wants(self, source: str) -> bool:
        return self._used + len(source) <= self.budget

    def put(self, path: os.PathLike, source: str, tree: ast.Module, scopes: Scopes) -> None:
        key = os.path.realpath(path)
        if key in self._files or not self.wants(source):
            scopes.close()
            return
        self._files[key] = (source, tree, scopes)
        self._used += len(source)

    def take(self, path: os.PathLike, source: str) -> Optional[tuple[ast.Module, Scopes]]:
        """The tree and scopes kept for ``path`` when they were made from ``source`` (removed from the store)."""
        if not self._files:
            return None
        kept = self._files.pop(os.path.realpath(path), None)
        if kept is None:
            return None
        self._used -= len(kept[0])
        if kept[0] != source:   # the file changed between the index build and the walk
            kept[2].close()
            return None
        return kept[1], kept[2]

    def clear(self) -> None:
        for _, _, scopes in self._files.values():
            scopes.close()
        self._files.clear()
        self._used = 0

    def __len__(self) -> int:
        return len(self._files)
