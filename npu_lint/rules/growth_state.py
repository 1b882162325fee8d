"""NPU408, broad paths (session 21, growth21b): state kept between calls, grown by a ``cat`` of itself.

The op (``cat`` with the state first or anywhere) is the trigger; these run when the proof-based paths and
broad_joins.py found nothing at the call:

- ``state_growth``: a method reads a tensor the object keeps (``full_ids = self.full_ids``, ``text, ids =
  self._transcript``, ``ids = self._turn["input_ids"]``), joins it with new pieces and stores the result on the
  object again (``self.full_ids = ...``, ``self._turn = {"input_ids": joined}``): a multi-turn transcript, an
  episode's frames, a stream's history. Silent when the state is set only in ``__init__`` (a parameter, a constant
  buffer) or made afresh earlier in the same method (``self.output = net(x)`` then joined), when a local name
  read from the state is bound again (``data = self.input`` then ``data = block(data)``), when the join is trimmed (``cat(...)[-n:]``, the target sliced back) or an argument of another call, when
  the piece read is a slice of the state, and outside a class.
- ``handed_back``: ``k = cat([past_k, k])`` where ``past_k`` comes from a parameter tested against ``None`` (``if
  past is not None``; unpacked ``pk, pv = past`` or indexed), the state first, and ``k`` both used and handed back
  bare in a tuple (``return attn(q, k), (k, v)``): the caller's key/value cache or segment memory, one step longer
  per call. Silent for a prefix joined once and returned as the output (one read), a window handed back
  (``h[:, -16:]``), a piece joined beside the input (``cat([x, skip], 1)``), a parameter never tested.
- ``item_state_growth``: ``for t in self.tracks: t.history = cat([t.history, x])`` in a method: each kept item's
  history grows per call (trackers). Silent when trimmed.

The per-class map of attributes set outside ``__init__`` is memoised per file.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.bounded import unparse
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES

_CATS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.hstack", "torch.vstack",
                   "torch.column_stack"})


def _self_attr(node: ast.AST) -> Optional[str]:
    """``self.x`` (through subscripts and calls: ``self.x[0]``, ``self.x.detach()``) -> ``x``; a slice stops."""
    while True:
        if isinstance(node, ast.Subscript):
            if any(isinstance(n, ast.Slice) for n in walk(node.slice)):
                return None
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        elif isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                return node.attr
            node = node.value
        else:
            return None


def _changing_state(cls: ast.ClassDef, ctx: FileContext) -> frozenset[str]:
    """Attributes of ``self`` that a method other than ``__init__`` assigns (state changed between calls)."""
    memo = ctx.scratch.setdefault("growth_state_attrs", {})
    if cls in memo:
        return memo[cls]
    found = set()
    for item in cls.body:
        if isinstance(item, FUNCTION_TYPES) and item.name not in ("__init__", "__post_init__", "__new__"):
            for node in walk(item):
                if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for target in targets:
                        for sub in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                            if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) \
                                    and sub.value.id == "self":
                                found.add(sub.attr)
    memo[cls] = frozenset(found)
    return memo[cls]


def _aliases(function: ast.AST, changing: frozenset[str]) -> dict[str, str]:
    """Local names bound from the object's changing state: ``ids = self.full_ids``, ``text, ids = self._t``,
    ``turn = self._turn`` then ``ids = turn["input_ids"]`` (one level)."""
    out: dict[str, str] = {}
    bound: dict[str, int] = {}
    for node in walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound[node.id] = bound.get(node.id, 0) + 1
    for _ in range(2):
        seen: dict[str, int] = {}
        for node in walk(function):
            if not isinstance(node, ast.Assign):
                continue
            attr = _self_attr(node.value)
            if attr is None:
                root = node.value
                while isinstance(root, (ast.Subscript, ast.Attribute)) or \
                        isinstance(root, ast.Call) and isinstance(root.func, ast.Attribute):
                    if isinstance(root, ast.Subscript) and any(isinstance(n, ast.Slice) for n in walk(root.slice)):
                        break
                    root = root.func.value if isinstance(root, ast.Call) else root.value
                attr = out.get(root.id) if isinstance(root, ast.Name) else None
            if attr is None or attr not in changing:
                continue
            for target in node.targets:
                for sub in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                    if isinstance(sub, ast.Name):
                        out.setdefault(sub.id, attr)
                        seen[sub.id] = seen.get(sub.id, 0) + 1
    # every binding of the name from the state: rebound from something else (``data = block(data)``), it is not
    return {n: a for n, a in out.items() if seen.get(n, 0) >= bound.get(n, 0)}


def _state_of(piece: ast.AST, aliases: dict[str, str], changing: frozenset[str]) -> Optional[str]:
    attr = _self_attr(piece)
    if attr is not None:
        return attr if attr in changing else None
    while isinstance(piece, (ast.Attribute, ast.Subscript, ast.Starred)) or \
            isinstance(piece, ast.Call) and isinstance(piece.func, ast.Attribute):
        if isinstance(piece, ast.Subscript) and any(isinstance(n, ast.Slice) for n in walk(piece.slice)):
            return None
        piece = piece.func.value if isinstance(piece, ast.Call) else piece.value
    return aliases.get(piece.id) if isinstance(piece, ast.Name) else None


def _stored_on_self(stmt: ast.stmt, node: ast.Call, function: ast.AST, ctx: FileContext) -> bool:
    """The join (or the name it is bound to) is stored on ``self`` by this statement or a later one."""
    def on_self(target: ast.AST) -> bool:
        return isinstance(target, (ast.Attribute, ast.Subscript)) and _self_attr(target) is not None

    if not isinstance(stmt, ast.Assign):
        return False
    if any(on_self(t) for t in stmt.targets):
        return True
    names = {t.id for t in stmt.targets if isinstance(t, ast.Name)}
    if not names:
        return False
    for other in walk(function):
        if isinstance(other, ast.Assign) and other.lineno > stmt.lineno and any(on_self(t) for t in other.targets):
            if any(isinstance(n, ast.Name) and n.id in names for n in walk(other.value)):
                return True
        if isinstance(other, ast.Assign) and other.lineno > stmt.lineno and any(
                isinstance(t, ast.Name) and t.id in names for t in other.targets) \
                and isinstance(other.value, ast.Subscript) and any(
                isinstance(n, ast.Slice) for n in walk(other.value.slice)):
            return False   # trimmed back to a window before it is kept
    return False


def _trimmed(function: ast.AST, stmt: ast.Assign, state: str) -> bool:
    """``self.queue = self.queue[-4096:]`` (or the joined name sliced) in the same method: a window of fixed size."""
    kept = {unparse(t) for t in stmt.targets} | {f"self.{state}"}
    for other in walk(function):
        if isinstance(other, ast.Assign) and other is not stmt and isinstance(other.value, ast.Subscript) \
                and any(isinstance(n, ast.Slice) for n in walk(other.value.slice)) \
                and any(unparse(t) in kept for t in other.targets):
            return True
    return False


def _set_before(function: ast.AST, stmt: ast.stmt, state: str) -> bool:
    """``self.output = net(x)`` earlier in the same method: the state is made afresh at every call, then joined."""
    kept = f"self.{state}"
    reads = [n.lineno for n in walk(function) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)
             and isinstance(n.value, ast.Name) and n.value.id == "self" and n.attr == state]
    first = min(reads, default=stmt.lineno)   # reset after the state is read (``self._turn = None``): still grown
    for other in walk(function):
        if isinstance(other, ast.Assign) and other.lineno < first and any(unparse(t) == kept
                                                                                 for t in other.targets) \
                and kept not in unparse(other.value):
            return True
    return False


def state_growth(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """What grows (for the message), else None: see the module's docstring."""
    if name not in _CATS or not node.args or not isinstance(node.args[0], (ast.List, ast.Tuple)):
        return None
    function = ctx.enclosing(node, FUNCTION_TYPES)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.name == "__init__":
        return None
    cls = ctx.parent(function)
    if not isinstance(cls, ast.ClassDef):
        return None
    stmt = ctx.statement_of(node)
    if stmt is None or not isinstance(stmt, ast.Assign):
        return None
    parent = ctx.parent(node)
    while parent is not None and parent is not stmt:
        if isinstance(parent, (ast.Subscript, ast.Call)):
            return None     # ``cat(...)[-n:]``, ``f(cat(...))``: what is kept is another value
        parent = ctx.parent(parent)
    changing = _changing_state(cls, ctx)
    if not changing:
        return None
    aliases = _aliases(function, changing)
    state = next((s for s in (_state_of(p, aliases, changing) for p in node.args[0].elts) if s), None)
    if state is None or not _stored_on_self(stmt, node, function, ctx) or _trimmed(function, stmt, state) \
            or _set_before(function, stmt, state):
        return None
    return f"{unparse(node.args[0])[:60]} (the object's state self.{state} joined with new pieces, stored back)"


def _optional_parameters(function: ast.AST) -> set[str]:
    """Parameters tested against ``None`` (``if past is not None:``): state the first call leaves out and later calls
    pass (an untested parameter is always passed: left to the proof-based paths)."""
    args = function.args
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    out = set()
    for node in walk(function):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id in names \
                and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)) \
                and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None:
            out.add(node.left.id)
    return out


def _from_parameter(piece: ast.AST, function: ast.AST, optional: set[str]) -> Optional[str]:
    """The optional parameter a piece is read from: ``past`` itself, ``past[0]``, ``past['k']``, or a name unpacked
    from it (``pk, pv = past``)."""
    while isinstance(piece, (ast.Subscript, ast.Attribute)) or \
            isinstance(piece, ast.Call) and isinstance(piece.func, ast.Attribute):
        if isinstance(piece, ast.Subscript) and any(isinstance(n, ast.Slice) for n in walk(piece.slice)):
            return None
        piece = piece.func.value if isinstance(piece, ast.Call) else piece.value
    if not isinstance(piece, ast.Name):
        return None
    if piece.id in optional:
        return piece.id
    for node in walk(function):
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Name, ast.Subscript)):
            source = node.value.value if isinstance(node.value, ast.Subscript) else node.value
            if isinstance(source, ast.Name) and source.id in optional and any(
                    isinstance(n, ast.Name) and n.id == piece.id for t in node.targets for n in walk(t)):
                return source.id
    return None


def _bare(node: ast.AST, joined: str) -> bool:
    """The joined value itself handed back (``k`` or ``(k, v)``), not a window of it or an output made from it."""
    if isinstance(node, (ast.Tuple, ast.List)):
        return any(_bare(e, joined) for e in node.elts)
    return isinstance(node, ast.Name) and node.id == joined


def item_state_growth(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """``for t in self.tracks: t.history = cat([t.history, x])`` in a method: each item the object keeps carries a
    history one step longer after every call (a tracker's tracks, an agent's episodes). Silent when trimmed."""
    if name not in _CATS or not node.args or not isinstance(node.args[0], (ast.List, ast.Tuple)):
        return None
    stmt = ctx.statement_of(node)
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 or ctx.parent(node) is not stmt:
        return None
    target = stmt.targets[0]
    if not isinstance(target, ast.Attribute) or not isinstance(target.value, ast.Name):
        return None
    text = unparse(target)
    if not any(unparse(p) == text for p in node.args[0].elts):
        return None
    loop = ctx.enclosing(node, (ast.For, *FUNCTION_TYPES))
    if not isinstance(loop, ast.For) or not isinstance(loop.target, ast.Name) or loop.target.id != target.value.id:
        return None
    source = loop.iter
    while isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and source.func.attr in (
            "values", "items"):
        source = source.func.value
    function = ctx.enclosing(loop, FUNCTION_TYPES)
    if _self_attr(source) is None or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            or function.name == "__init__" or _trimmed(function, stmt, "") :
        return None
    return f"{text} = {name.rsplit('.', 1)[-1]}([{text}, ...]) for every item of {unparse(source)}, kept between calls,"


def handed_back(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """``k = cat([past_k, k], -2)`` where ``past_k`` comes from a parameter tested against None (``if past is not None``) and ``k`` is handed
    back beside the output (``return out, (k, v)``): the caller's cache, one step longer after every call (an
    attention module's key/value cache, a memory carried between segments). Silent when the join is not returned
    in a tuple, is rebound before the return, or is a window."""
    if name not in _CATS or not node.args or not isinstance(node.args[0], (ast.List, ast.Tuple)):
        return None
    function = ctx.enclosing(node, FUNCTION_TYPES)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    stmt = ctx.statement_of(node)
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name) \
            or ctx.parent(node) is not stmt:
        return None
    optional = _optional_parameters(function)
    if not optional:
        return None
    pieces = node.args[0].elts
    # the state first (``cat([past, new])``: the new step appended); a piece joined beside the input (``cat([x,
    # skip], 1)``, a U-Net's skip) is no history
    source = _from_parameter(pieces[0], function, optional) if len(pieces) > 1 else None
    if source is None:
        return None
    joined = stmt.targets[0].id
    for other in walk(function):
        if isinstance(other, (ast.Assign, ast.AugAssign)) and other is not stmt and other.lineno > stmt.lineno and \
                any(isinstance(n, ast.Name) and n.id == joined
                    for t in (other.targets if isinstance(other, ast.Assign) else [other.target]) for n in walk(t)):
            return None     # rebound before it is handed back: the output of the step, not the state
    # used for the output as well as handed back (``return attn(q, k), (k, v)``): two reads after the join
    read = sum(1 for n in walk(function) if isinstance(n, ast.Name) and n.id == joined
               and isinstance(n.ctx, ast.Load) and n.lineno > stmt.lineno) >= 2
    for other in walk(function):
        if isinstance(other, ast.Return) and isinstance(other.value, ast.Tuple) and len(other.value.elts) > 1 \
                and any(_bare(e, joined) for e in other.value.elts) and read:
            return f"{joined} = {name.rsplit('.', 1)[-1]}([{source}..., ...]) handed back for the next call"
    return None
