"""Where a module's calls of a function by name are, inside expressions too (``torch.stack([pad(x, m) for x in
items])``, ``out.append(f(x))``): the lines whose text holds ``name(`` (found with ``str.find``, once per name), the
statements that own those lines, and the calls in their expressions with the scope each runs in. What
:meth:`npu_lint.analysis.summaries.Summaries.call_sites` adds to the statement-level calls the scopes hold.
"""
from __future__ import annotations

import ast
import bisect
import itertools
import re
from typing import Optional

from npu_lint.analysis.binder import _CALL_STATEMENTS
from npu_lint.analysis.nodes import children
from npu_lint.analysis.scopes import Scope, Scopes

_BODIES = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})   # statements: walked as statements


_INDEXED_AFTER = 128   # names searched one by one before the whole text is indexed once (one regular-expression
# scan of the text costs about as much as 100 searches of str.find: a file asked fewer names never pays for it)
# an identifier (a whole word: ``\w`` is ``str.isalnum`` or ``_``, as ``lines_of``'s test) then ``(`` after at most
# seven spaces or tabs, as ``lines_of``'s ``source[end:end + 8].lstrip(" \t").startswith("(")``
_WORD = re.compile(r"\w+")   # a name the index can hold (not one with a combining mark, which is no ``\w``)
_CALLED = re.compile(r"(?<!\w)(\w+)[ \t]{0,7}\(")


def _call_index(source: str, line_ends: list[int]) -> dict[tuple[str, bool], list[int]]:
    """Every ``name(`` of ``source``: (name, whether a dot stands just before it) -> the lines, in text order."""
    index: dict[tuple[str, bool], list[int]] = {}
    for match in _CALLED.finditer(source):
        at = match.start()
        key = (match.group(1), at > 0 and source[at - 1] == ".")
        lines = index.get(key)
        if lines is None:
            lines = index[key] = []
        lines.append(bisect.bisect_right(line_ends, at) + 1)
    return index


class CallLines:
    """Where a module's calls by name are, built once per module: the lines on which ``name(`` occurs (from its
    text; every line of a statement without it) and the statement that owns such a line (a simple statement
    all its lines, a compound one its header)."""

    def __init__(self, scopes: "Scopes", source: Optional[str]) -> None:
        self.source = source
        self.line_ends: list[int] = []   # the offset of each line's end, found once the text is searched
        self.statements_ = scopes.statements   # depth first: in the order of their first lines
        self.starts = [statement.lineno for statement, _ in self.statements_]
        self.asked = 0   # names asked so far
        self.index: Optional[dict[tuple[str, bool], list[int]]] = None   # (name, after a dot) -> its call lines

    def lines_of(self, key: str) -> list[int]:
        """The lines on which ``name(`` (``x.name(`` for a key ``.name``) occurs in the text (str.find, in C). From
        the :data:`_INDEXED_AFTER`-th name on, one scan of the text indexes every ``name(`` of it (the same lines:
        an occurrence counts only as a whole identifier, which the index lists), not one scan per name."""
        source = self.source
        if not self.line_ends:
            self.line_ends = list(itertools.accumulate(len(line) + 1 for line in source.split("\n")))
        attribute = key.startswith(".")
        name = key.lstrip(".")
        self.asked += 1
        if self.asked > _INDEXED_AFTER and _WORD.fullmatch(name):
            if self.index is None:
                self.index = _call_index(source, self.line_ends)
            return list(self.index.get((name, attribute), ()))
        found: list[int] = []
        at = source.find(name)
        while at >= 0:
            end = at + len(name)
            before = source[at - 1] if at else " "
            rest = source[end:end + 8].lstrip(" \t")
            if rest.startswith("(") and not (before.isalnum() or before == "_") and (before == ".") == attribute:
                found.append(bisect.bisect_right(self.line_ends, at) + 1)
            at = source.find(name, end)
        return found

    def statements(self, name: str) -> list[tuple[ast.stmt, Scope]]:
        """The statements on whose own lines ``name(`` may be called, each once, in source order."""
        if self.source is None:
            return list(self.statements_)
        found: dict[int, tuple[ast.stmt, Scope]] = {}
        for line in self.lines_of(name):
            last = bisect.bisect_right(self.starts, line) - 1
            if last < 0:
                continue
            first = last
            while first > 0 and self.starts[first - 1] == self.starts[last]:
                first -= 1   # ``a = 1; b = f(x)``: every statement starting on that line
            for entry in self.statements_[first:last + 1]:
                if _own_end(entry[0]) >= line:
                    found.setdefault(id(entry[0]), entry)
        return list(found.values())


def _own_end(statement: ast.stmt) -> int:
    """The last line a statement owns: all of a simple statement, the header of a compound one."""
    last = statement.end_lineno or statement.lineno
    for field in _BODIES:
        block = getattr(statement, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.AST):
            first = block[0]   # a ``match_case`` has no position of its own: its pattern's
            line = getattr(first, "lineno", None) or getattr(getattr(first, "pattern", None), "lineno", None)
            if line:
                last = min(last, line - 1)
    return max(last, statement.lineno)


def nested_calls(scopes: "Scopes", lines: CallLines, name: str) -> list[tuple[ast.Call, Scope]]:
    """The calls ``name(...)`` (``x.name(...)`` for a key ``.name``) inside expressions (not a statement's own
    value, which ``scopes.calls`` holds), with the scope each runs in (a comprehension's or a lambda's own)."""
    found: list[tuple[ast.Call, Scope]] = []
    attribute = name.startswith(".")
    bare = name.lstrip(".")
    for statement, scope in lines.statements(name):
        own = statement.value if type(statement) in _CALL_STATEMENTS else None
        stack: list[tuple[ast.AST, Scope]] = [(child, scope) for field, child in _expression_fields(statement)]
        while stack:
            node, inner = stack.pop()
            if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)):
                inner = scopes.open_expression_scope(node, inner)
            elif type(node) is ast.Call and node is not own:
                func = node.func
                if (type(func) is ast.Attribute and func.attr == bare) if attribute else (
                        type(func) is ast.Name and func.id == bare):
                    found.append((node, inner))
            for child in children(node):
                if not isinstance(child, ast.stmt):
                    stack.append((child, inner))
    return found


def _expression_fields(statement: ast.stmt) -> list[tuple[str, ast.AST]]:
    """The parts of a statement that are no statement lists (a function's decorators and defaults, an ``if``'s
    test, a ``for``'s target and iterable, an assignment's targets and value)."""
    parts: list[tuple[str, ast.AST]] = []
    for field, value in ast.iter_fields(statement):
        if field in _BODIES:
            continue
        if isinstance(value, list):
            parts.extend((field, item) for item in value if isinstance(item, ast.AST) and not isinstance(item, ast.stmt))
        elif isinstance(value, ast.AST):
            parts.append((field, value))
    return parts
