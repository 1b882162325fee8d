"""Lists FLATTENED from per-item lists (session 24, concat24): ``sum(xs, [])``, ``itertools.chain(*xs)`` /
``chain.from_iterable(xs)``, ``[y for x in xs for y in x]``, a list grown by ``out.extend(piece)`` (``out +=
piece``) in a ``for`` loop, and a list a function returns in one of those forms (the file's own, or through the
project index's ``flattens`` fact, another module's: pfrl's ``flatten_sequences_time_first(episodes)``).

The flattened list holds as many values as the pieces together; unless every piece is proven of one length it
changes with the data (per-prompt tokens, per-episode transitions, ``[i] * len(cands)`` per tree). A piece is
proven of one length when it is a display (``[a, b]``, ``(x, y)``) or a repeat of a display by a constant or a
setting (``[0] * 4``, ``[c] * self.k``); a flattening of a display of lists (``sum([a, b], [])``), of ``self``'s
own containers (a model's parameter groups, configured tables) or at module level (setup) is no per-item list.
Nothing here is a rule: NPU409 asks :func:`flattening` of what ``torch.tensor`` / ``cat`` is given
(rules/flat_joins.py); the project index asks :func:`returns_flattened` once per function.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Callable, Optional

from npu_lint.analysis.nodes import walk
from npu_lint.bounded import unparse

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_CHAINS = frozenset({"itertools.chain", "itertools.chain.from_iterable"})
_WRAPPERS = frozenset({"list", "tuple"})
_DEPTH = 3


def _own_walk(function: ast.AST):
    """The nodes of ``function``'s own body (nested functions and classes left out)."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, _FUNCTIONS + (ast.ClassDef,)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _rooted_at_self(node: ast.AST) -> bool:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def _paired(sequence: ast.AST) -> bool:
    """``zip(a, b)`` / ``enumerate(xs)`` / ``d.items()``: tuples of one length each, not per-item lists."""
    func = sequence.func if isinstance(sequence, ast.Call) else None
    return isinstance(func, ast.Name) and func.id in ("zip", "enumerate") \
        or isinstance(func, ast.Attribute) and func.attr == "items"


def _fixed_piece(piece: ast.AST, constants: Callable[[ast.AST], bool]) -> bool:
    """A piece of one length: a display without ``*``, or one repeated by a constant or a setting."""
    if isinstance(piece, (ast.List, ast.Tuple)):
        return not any(isinstance(e, ast.Starred) for e in piece.elts)
    if isinstance(piece, ast.BinOp) and isinstance(piece.op, ast.Mult):
        for display, count in ((piece.left, piece.right), (piece.right, piece.left)):
            if isinstance(display, (ast.List, ast.Tuple)) and _fixed_piece(display, constants):
                return constants(count)
    return False


def _tensor_size(node: ast.AST) -> bool:
    """``x.shape[1]``, ``x.shape[:2]``, ``x.size(1)``, ``x.numel()``: a tensor's size, the model's (a count the
    project's other paths take as fixed too, ``range(x.size(0))``)."""
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("size", "numel")


def _sized_names(function: ast.AST) -> frozenset:
    """The names ``function`` binds to a tensor's size (``b, n = emb.shape[:2]``, ``n = x.size(1)``)."""
    found = set()
    for node in _own_walk(function):
        if isinstance(node, ast.Assign) and _tensor_size(node.value):
            for target in node.targets:
                found.update(n.id for n in walk(target) if isinstance(n, ast.Name))
    return frozenset(found)


def _constant(node: ast.AST, sized: frozenset = frozenset()) -> bool:
    """A count no item gives: a literal, a setting on ``self`` (``self.k``), a tensor's size, arithmetic of
    those."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int)
    if isinstance(node, ast.BinOp):
        return _constant(node.left, sized) and _constant(node.right, sized)
    if isinstance(node, ast.Name):
        return node.id in sized
    return isinstance(node, ast.Attribute) and _rooted_at_self(node) or _tensor_size(node)


def _fixed_loop(loop: ast.AST) -> bool:
    """``for i in range(x.shape[0] - 1)``: a count of constants, settings and a tensor's sizes (no ``len`` of a
    list): the pieces such a loop adds are per step of a schedule, not per item of the data."""
    source = loop.iter  # type: ignore[attr-defined]
    if not (isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "range"):
        return False
    return all(_constant(a) for a in source.args)


def _pieces_unproven(outer: ast.AST, function: ast.AST, names: dict[str, list[ast.AST]]) -> bool:
    """The per-item lists ``outer`` holds are not proven of one length (and ``outer`` is no display, no container
    of ``self``)."""
    if isinstance(outer, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Constant)) or _rooted_at_self(outer):
        return False
    if isinstance(outer, ast.Name) and len(names.get(outer.id, ())) == 1:
        outer = names[outer.id][0]
        if isinstance(outer, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Constant)) or _rooted_at_self(outer):
            return False
    if isinstance(outer, (ast.ListComp, ast.GeneratorExp)):
        return not _fixed_piece(outer.elt, _constant)
    return True


def _assigned(function: ast.AST, shallow: bool = False) -> dict[str, list[ast.AST]]:
    """``name = value`` in ``function``'s own body, by name (``shallow``: its top-level statements only)."""
    found: dict[str, list[ast.AST]] = {}
    for node in (function.body if shallow else _own_walk(function)):   # type: ignore[attr-defined]
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found.setdefault(node.targets[0].id, []).append(node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            found.setdefault(node.target.id, []).append(node.value)
    return found


def _extensions(function: ast.AST, shallow: bool = False) -> dict[str, list[tuple[int, int, ast.AST]]]:
    """Per name, the pieces of unproven length ``name.extend(piece)`` / ``name += piece`` add inside a ``for`` loop
    of ``function`` (``shallow``: a loop among its top-level statements), with the loop's first and last line;
    one walk per function."""
    found: dict[str, list[tuple[int, int, ast.AST]]] = {}
    outer = [n for n in (function.body if shallow else _own_walk(function))   # type: ignore[attr-defined]
             if isinstance(n, (ast.For, ast.AsyncFor)) and not _fixed_loop(n)]
    sized = _sized_names(function) if outer else frozenset()
    constant = lambda count: _constant(count, sized)   # noqa: E731
    for loop in outer:      # a nested loop's pieces are its own and its outer loops' (the join may sit between)
        for node in walk(loop):
            name, piece = None, None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "extend" \
                    and isinstance(node.func.value, ast.Name) and node.args:
                name, piece = node.func.value.id, node.args[0]
            elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name):
                name, piece = node.target.id, node.value
            if name is not None and not _fixed_piece(piece, constant):
                found.setdefault(name, []).append((loop.lineno, loop.end_lineno or loop.lineno, piece))
    return found


def _extended(extensions: dict[str, list[tuple[int, int, ast.AST]]], name: str, before: int,
              after: int) -> Optional[ast.AST]:
    """A piece of unproven length added to ``name`` in a loop that starts after line ``after`` and ends before
    line ``before``; None when there is none."""
    for start, end, piece in extensions.get(name, ()):
        if start >= after and end < before:
            return piece
    return None


class Flattening:
    """The questions of one function: ``resolver`` for the names of calls, ``helper(call)`` for what a call of
    another function gives (a description when it returns a flattened list, else "")."""

    def __init__(self, resolver: "Resolver", function: ast.AST, helper: Callable[[ast.Call], str],
                 shallow: bool = False) -> None:
        self.resolver, self.function, self.helper, self.shallow = resolver, function, helper, shallow
        self._names: Optional[dict[str, list[ast.AST]]] = None
        self._extensions: Optional[dict[str, list[tuple[int, int, ast.AST]]]] = None

    @property
    def names(self) -> dict[str, list[ast.AST]]:
        """The function's assignments by name (``shallow``, as the index asks every function: its top-level
        statements, no walk)."""
        if self._names is None:
            self._names = _assigned(self.function, self.shallow)
        return self._names

    def of(self, value: ast.AST, line: int, depth: int = 0, through: bool = True) -> str:
        """Why ``value`` (read at ``line``) is a flattened list of per-item lists of unproven length, else "".
        ``through``: a comprehension over such a list counts too (one value per flattened element)."""
        if depth > _DEPTH:
            return ""
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _WRAPPERS \
                and len(value.args) == 1 and not value.keywords:
            return self.of(value.args[0], line, depth + 1, through)
        if isinstance(value, ast.Call):
            return self._call(value, line, depth)
        if isinstance(value, (ast.ListComp, ast.GeneratorExp)):
            generators = value.generators
            if len(generators) >= 2:
                targets = {n.id for n in walk(generators[0].target) if isinstance(n, ast.Name)}
                inner = generators[1].iter
                root = inner
                while isinstance(root, (ast.Attribute, ast.Subscript)):
                    root = root.value
                if isinstance(root, ast.Name) and root.id in targets \
                        and not isinstance(inner, (ast.List, ast.Tuple)) \
                        and not _rooted_at_self(generators[0].iter) and not _paired(generators[0].iter) \
                        and not isinstance(generators[0].iter, (ast.List, ast.Tuple, ast.Dict, ast.Set)):
                    return f"the elements of every {unparse(inner)[:30]} flattened into one list"
            if through and len(generators) == 1:
                found = self.of(generators[0].iter, line, depth + 1, False)
                return found
            return ""
        if isinstance(value, ast.Name):
            bound = [v for v in self.names.get(value.id, ()) if getattr(v, "lineno", 0) < line]
            empty = [v for v in bound if isinstance(v, ast.List) and not v.elts]
            if len(empty) == 1:
                # ``out = []``, extended in a loop; rebound after that loop only in another arm (``if not out: out
                # = torch.zeros(0)`` ... ``else: out = torch.tensor(out)``)
                if self._extensions is None:
                    self._extensions = _extensions(self.function, self.shallow)
                piece = _extended(self._extensions, value.id, line, empty[0].lineno)
                if piece is not None and all(v is empty[0] or v.lineno > piece.lineno for v in bound):
                    return f"every {unparse(piece)[:30]} the loop extends {value.id} with"
                return ""
            if len(bound) == 1:
                first = bound[0]
                return self.of(first, getattr(first, "lineno", line), depth + 1, through)
        return ""

    def _call(self, call: ast.Call, line: int, depth: int) -> str:
        func = call.func
        if isinstance(func, ast.Name) and func.id == "sum" and len(call.args) >= 1:
            start = call.args[1] if len(call.args) > 1 else next(
                (k.value for k in call.keywords if k.arg == "start"), None)
            if isinstance(start, ast.List) and not start.elts \
                    and _pieces_unproven(call.args[0], self.function, self.names):
                return f"the lists of {unparse(call.args[0])[:30]} added into one (sum(..., []))"
            return ""
        name = self.resolver.qualname(func) or ""
        if name in _CHAINS:
            if name.endswith("from_iterable") and len(call.args) == 1:
                outer = call.args[0]
            elif len(call.args) == 1 and isinstance(call.args[0], ast.Starred):
                outer = call.args[0].value
            else:
                return ""
            if _pieces_unproven(outer, self.function, self.names):
                return f"the lists of {unparse(outer)[:30]} chained into one"
            return ""
        return self.helper(call)


def _candidate(value: Optional[ast.AST]) -> bool:
    """A returned value that may be a flattened list by its form: a name, a nested comprehension, ``sum`` /
    ``list`` / ``tuple`` / ``chain`` of something."""
    if isinstance(value, ast.Name):
        return True
    if isinstance(value, (ast.ListComp, ast.GeneratorExp)):
        return len(value.generators) >= 2
    if isinstance(value, ast.Call):
        func = value.func
        return isinstance(func, ast.Name) and func.id in ("sum", "list", "tuple", "chain") \
            or isinstance(func, ast.Attribute) and func.attr in ("chain", "from_iterable")
    return False


def returns_flattened(resolver: "Resolver", function: ast.AST) -> bool:
    """Every value ``function`` returns is a flattened list of per-item lists (:meth:`Flattening.of`, not through a
    comprehension, nor through other functions; a list extended in a loop: both at the function's top level): the
    project index's ``flattens`` fact, asked of every function (no walk of its body)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.name == "__init__":
        return False
    from npu_lint.analysis.summaries import return_statements
    returns = [r.value for r in return_statements(function)]
    if not returns or not all(_candidate(r) for r in returns):
        return False    # the look first: most returns are no list at all
    asker = Flattening(resolver, function, lambda call: "", shallow=True)
    return all(asker.of(r, r.lineno, 0, False) for r in returns)
