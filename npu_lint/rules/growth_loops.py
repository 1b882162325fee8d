"""NPU408's broad paths of session 22 (growth22): a join whose number of items grows between steps or calls.

Beside the proof-based paths (dynamic_growth.py) and the broad paths of broad_joins.py / growth_state.py /
growth_views.py, run when they found nothing at the call; the op (``cat`` / ``stack`` / ``torch.tensor`` of a list)
is the trigger and the path stays silent where the model shows the count fixed:

- ``ended_join``: a list appended at every step of a ``while`` loop whose test reads what the loop itself sets
  (``while not done: obs, r, done, _ = env.step(a); traj.append(obs)``), joined after the loop: an episode, a
  stream, a decoding run -- as many items as the data lets the loop run. A ``while`` with a ``break`` is NPU409's
  (broad_joins ``broad_join``); silent for a test that only counts (``while t < n`` with ``t += 1``, ``while
  len(out) < n``), a host item (``.item()``, ``.cpu()``), a list made afresh in the loop.
- ``kept_count_join``: the number of items follows a size the object advances once per call of another method
  (``def add(self, c): self.db["ctx"].append(c); self.n += 1`` ... ``k = min(k, self.n)`` ... ``torch.stack([
  self.db["ctx"][i] for i in range(k)])``): replay or bandit storage read while it grows. Silent for a size some
  method sets anew (a counter reset per epoch), and for a kept list joined whole (an epoch's outputs gathered for a
  metric or a kNN: their count is the data set's, left alone as in NPU409).
Memoised per class and per function; no walk of the whole file per call.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk as _walk_nodes   # ``ast.walk``: the same nodes, in its order
from npu_lint.analysis.nodes import children as _children   # ``ast.iter_child_nodes``, as a list
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES
from npu_lint.rules.broad_joins import _host_piece, _name_assignments, _step_loop, _text
from npu_lint.rules.stopped_items import stopped_items

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COUNTS = frozenset({"len", "int", "float", "isinstance", "range", "min", "max", "abs"})


def _op(name: Optional[str]) -> str:
    return (name or "torch.cat").rsplit(".", 1)[-1]


def _loop_of(node: ast.AST, ctx: FileContext) -> Optional[ast.AST]:
    """The nearest loop around ``node`` in its function, walked or not yet (another method further down)."""
    parent = ctx.parent_anywhere(node)
    while parent is not None and not isinstance(parent, FUNCTION_TYPES + (ast.ClassDef,)):
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.While)):
            return parent
        parent = ctx.parent_anywhere(parent)
    return None


def _list_text(node: ast.AST) -> str:
    """``xs``, ``traj["obs"]``, ``self.buf``: a list the code names the same way at every step; else ''."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Constant):
        return _text(node)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return _text(node)
    return ""


def _loop_appends(function: ast.AST, ctx: FileContext) -> dict[str, list[tuple[ast.AST, Optional[ast.AST]]]]:
    """Per list text, the innermost loops of ``function`` that append to it and the item appended, and per loop the
    tests of the ``if`` statements around its own ``break`` statements (key ``id(loop)``); memoised per function.
    Its own walk beside broad_joins' ``_additions`` (every add of a name or attribute, with the nearest loop): this
    one keeps appends to entries (``traj["obs"]``) and the ``break`` tests of each loop, which that index has not,
    and finds loops below the walk's position, which that one does not (see its note)."""
    memo = ctx.scratch.setdefault("growth_loops_appends", {})
    found = memo.get(id(function))
    if found is not None:
        return found
    found = {}

    def visit(node: ast.AST, loop: Optional[ast.AST], tests: tuple) -> None:
        for child in _children(node):
            if isinstance(child, FUNCTION_TYPES + (ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(child, ast.Break) and loop is not None:
                found.setdefault(id(loop), []).extend(tests)
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) \
                    and child.func.attr == "append" and loop is not None and _list_text(child.func.value):
                found.setdefault(_list_text(child.func.value), []).append(
                    (loop, child.args[0] if child.args else None))
            if isinstance(child, (ast.For, ast.AsyncFor, ast.While)):
                visit(child, child, ())
            elif isinstance(child, ast.If):
                visit(child, loop, tests + (child.test,))
            else:
                visit(child, loop, tests)

    visit(function, None, ())
    memo[id(function)] = found
    return found


# ---- a list appended per step of a loop the data ends -------------------------------------------------------------

def ended_join(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """Why the joined list has one item per step of a loop the data ends (a ``while`` whose test reads what the loop
    sets, or a loop of steps a ``break`` under such a test ends), else None."""
    joined = _items_of(node.args[0]) if node.args else None
    if joined is None or not _list_text(joined):
        return None
    items = _list_text(joined)
    function = ctx.enclosing(node, FUNCTION_TYPES)
    if function is None or getattr(function, "name", "") == "__init__":
        return None
    appends = _loop_appends(function, ctx)
    for where, added in appends.get(items, ()):
        if where.lineno > node.lineno or where.lineno <= node.lineno <= (where.end_lineno or where.lineno) \
                or _host_item(added, ctx) or _made_in(where, items, function, ctx):
            continue
        breaks = appends.get(id(where), [])
        if breaks and isinstance(joined, ast.Name) and (
                stopped_items(joined, node, ctx) is not None or isinstance(where, ast.While)):
            continue      # NPU409's (a tensor's value ends the loop; a ``while`` a ``break`` ends)
        if isinstance(where, ast.While) and not breaks:
            reads = _data_test(where, where.test, ctx)
        elif breaks and (isinstance(where, ast.While) or _step_loop(where, ctx)):
            reads = set().union(*(_data_test(where, test, ctx) for test in breaks))
        else:
            continue
        if reads:
            kind = "while loop" if isinstance(where, ast.While) else "loop"
            return (f"{_op(name)}({items}) of a list appended at every step of the {kind} of line {where.lineno}, "
                    f"which the data ends (a test reads {', '.join(sorted(reads)[:2])}, set in the loop),")
    return None


def _items_of(joined: ast.AST) -> Optional[ast.AST]:
    """The list a join takes its items from: the list itself, or the list a comprehension walks one item per item
    (``stack([obs[key] for obs in all_observations], 1)``, a field of every step's observation: as many items as
    the list holds; session 24, growth24). A filtered or nested comprehension decides its own count: None."""
    if isinstance(joined, (ast.ListComp, ast.GeneratorExp)) and len(joined.generators) == 1:
        generator = joined.generators[0]
        if generator.ifs or generator.is_async or not isinstance(generator.target, (ast.Name, ast.Tuple)):
            return None
        targets = {n.id for n in ast.walk(generator.target) if isinstance(n, ast.Name)}
        if not any(isinstance(n, ast.Name) and n.id in targets for n in ast.walk(joined.elt)):
            return None   # ``[zeros for _ in xs]``: the element does not read the item
        return generator.iter
    return joined


def _host_item(added: Optional[ast.AST], ctx: FileContext) -> bool:
    if added is None:
        return False
    if isinstance(added, ast.Constant):
        return True
    if isinstance(added, ast.Call) and (isinstance(added.func, ast.Attribute) and added.func.attr == "item"
                                        or isinstance(added.func, ast.Name) and added.func.id in ("float", "int")):
        return True    # a Python number read back
    return isinstance(added, ast.Call) and _host_piece(added, ctx)


def _made_in(loop: ast.AST, items: str, function: ast.AST, ctx: FileContext) -> bool:
    """``items = []`` inside the loop: a fresh list each step."""
    return any(loop.lineno <= stmt.lineno <= (loop.end_lineno or loop.lineno)
               for stmt in _name_assignments(function, ctx).get(items, ()))


def _data_test(loop: ast.AST, test: ast.AST, ctx: FileContext) -> set[str]:
    """The names ``test`` (a ``while`` test, or the test around a ``break``) reads that the loop sets from a call
    that does not read them (``done`` of ``obs, r, done, _ = env.step(a)``), or the calls the test makes itself
    (``while not env.done()``, ``(tok == eos).all()``); empty for a counter (``t += 1``, ``i = step(i)``), a bound
    (``t >= n``) or a list's own length."""
    memo = ctx.scratch.setdefault("growth_loops_tests", {})
    found = memo.get(id(test))
    if found is not None:
        return found
    found = set()
    read = {n.id for n in _walk_nodes(test) if isinstance(n, ast.Name)}
    for node in _walk_nodes(test):
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _COUNTS):
            found.add(_text(node.func))
    for stmt in _walk_nodes(loop):
        if not isinstance(stmt, (ast.Assign, ast.AnnAssign)) or stmt.value is None:
            continue
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        names = {n.id for t in targets for n in _walk_nodes(t) if isinstance(n, ast.Name)} & read
        names -= {n.id for n in _walk_nodes(stmt.value) if isinstance(n, ast.Name)}   # ``i = step(i)``: a counter
        if names and any(isinstance(n, ast.Call) for n in _walk_nodes(stmt.value)):
            found |= names
    memo[id(test)] = found
    return found


# ---- kept storage read while it grows ------------------------------------------------------------------------------

def kept_count_join(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """Why the number of joined items grows with a size the object advances between calls, else None."""
    if not node.args or not isinstance(node.args[0], (ast.ListComp, ast.GeneratorExp)):
        return None
    function = ctx.enclosing(node, FUNCTION_TYPES)
    cls = ctx.enclosing(function, (ast.ClassDef,)) if function is not None else None
    if cls is None or getattr(function, "name", "") == "__init__":
        return None
    advanced = _advanced_per_call(cls, ctx)
    if not advanced:
        return None
    counted = _count_reads(node.args[0], function, ctx, 0)
    hit = next((t for t in sorted(counted) if t in advanced and advanced[t] != function.name), None)
    if hit is not None:
        return f"{_op(name)}(...) of as many items as {hit}, which grows at every call of {advanced[hit]}(),"
    return None


def _self_text(node: ast.AST) -> str:
    root = node
    while isinstance(root, (ast.Attribute, ast.Subscript)):
        if isinstance(root, ast.Subscript) and isinstance(root.slice, ast.Slice):
            return ""       # a window of the list
        root = root.value
    if isinstance(root, ast.Name) and root.id == "self" and root is not node:
        return _text(node)
    return ""


def _advanced_per_call(cls: ast.ClassDef, ctx: FileContext) -> dict[str, str]:
    """``self.n`` texts a method other than ``__init__`` advances by a constant once per call (``self.n += 1``,
    outside any loop) and no method but ``__init__`` sets anew, mapped to that method's name; memoised per class."""
    memo = ctx.scratch.setdefault("growth_loops_kept", {})
    found = memo.get(id(cls))
    if found is not None:
        return found
    found, reset = {}, set()
    for method in cls.body:
        if not isinstance(method, _DEFS) or method.name == "__init__":
            continue
        for node in _walk_nodes(method):
            if isinstance(node, ast.Assign):
                reset.update(_self_text(t) for t in node.targets)
            elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) \
                    and isinstance(node.value, ast.Constant) and _loop_of(node, ctx) is None:
                text = _self_text(node.target)
                if text:
                    found.setdefault(text, method.name)
    found = memo[id(cls)] = {k: v for k, v in found.items() if k not in reset}
    return found


def _count_reads(node: ast.AST, function: ast.AST, ctx: FileContext, depth: int) -> set[str]:
    """The ``self.x`` texts (and ``len(self.x)`` lists) the number of items ``node`` gives depends on, through the
    function's assignments (a few hands deep): a comprehension's count is its sources'."""
    if depth > 6:
        return set()
    if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
        out: set[str] = set()
        for generator in node.generators:
            out |= _count_reads(generator.iter, function, ctx, depth + 1)
        return out
    out = set()
    for sub in _walk_nodes(node):
        if isinstance(sub, (ast.Attribute, ast.Subscript)) and _self_text(sub):
            out.add(_self_text(sub))
        elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            for stmt in _name_assignments(function, ctx).get(sub.id, ()):
                out |= _count_reads(stmt.value, function, ctx, depth + 1)
    return out
