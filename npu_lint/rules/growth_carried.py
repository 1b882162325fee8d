"""NPU408, broad path (session 23, growth23): a state the caller passes in, joined with this call's piece and given
back to the caller (a key/value cache, an incremental decoder state).

The op is the trigger: ``k = cat([prev_k, k], dim)`` whose first piece is read from a parameter of the function
(the parameter itself, an item or field of it, through rearranging methods: ``prev_k = state["prev_key"].view(b,
-1, d)``, ``state.prev_key[i]``, ``past[0]``, or a name bound from such), and the joined value is given back:

- written into the parameter it came from (``state["prev_key"] = k.view(...)``, ``state.prev_key[i] = k``), or
  into the container an accessor hands back for a parameter tested against None (``saved_state =
  self._get_input_buffer(incremental_state)``; ``saved_state["prev_key"] = k.view(...)``): the caller's cache, one
  step longer after every call (fairseq-style ``incremental_state`` dicts, state objects);
- or handed back in a container beside the output: an element of a returned tuple, a tuple / list / dict display
  returned or bound to a name that reaches a return (``new_state = {"prev_key": k.view(...)}``; ``past = (k, v)``
  then ``outputs = outputs + (past,)``; ``return outputs``), the parameter then tested against ``None`` (absent
  at the first call; a ``None`` default alone is not enough: the caller may always pass it);

and it is also read for this call's output (``q @ k.T``): a cache the attention reads, not a prefix only handed
back (a rebinding computed from it, ``v = cat([v, zeros])``, is such a read). Statements in another arm of the ``if`` chain holding the join (``else: k = proj(x)``: the first call's
arm) neither rebind it nor give it back. Silent for a prefix joined and returned as the output
(``x = cat([prefix, x]); return x, mask``), a window given back (``h[:, -16:]``), a join of two parameters, a
piece that is no parameter's (a learned token), a join rebound before it is given back.

Also here: :func:`empty_start_join` (a helper starting its state empty along the joined axis) and
:func:`stored_join` (the caller's container given its item back one piece longer, ``state[k] = cat((v, new))``).

Runs after the proof-based paths (dynamic_growth.py ``_returned_state``, which asks for a state named as one and
reads the returned tuple only), broad_joins.py, growth_state.py and growth_views.py found nothing at the call.
Per function, the index of assignments and returns is built once (``FileContext.per_node``).
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import NONE, PARAM, VALUE
from npu_lint.analysis.step_growth import rearranged
from npu_lint.bounded import unparse
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES
from npu_lint.analysis.size_sinks import size_args
from npu_lint.rules.broad_joins import _joined_dim
from npu_lint.rules.growth_fresh import made_per_call

_CATS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.hstack", "torch.vstack"})
_DISPLAYS = (ast.Tuple, ast.List, ast.Dict)


def _root(node: ast.AST) -> ast.AST:
    """``state`` for ``state["k"].view(b, -1)``, ``state.prev[i]``, ``past[0]`` (no slice: a window is no state)."""
    while True:
        if isinstance(node, ast.Subscript):
            if any(isinstance(n, ast.Slice) for n in ast.walk(node.slice)):
                return node
            node = node.value
        elif isinstance(node, ast.Attribute):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.func.attr.startswith("_"):
            node = node.func.value
        else:
            return node


def _arms(node: ast.AST, ctx: FileContext) -> dict[int, bool]:
    """The ``if`` statements holding ``node``: id -> True in the body, False in the ``else``."""
    out: dict[int, bool] = {}
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, FUNCTION_TYPES):
        if isinstance(parent, ast.If) and child is not parent.test:
            out[id(parent)] = child in parent.body
        child, parent = parent, ctx.parent(parent)
    return out


def _exclusive(a: dict[int, bool], b: dict[int, bool]) -> bool:
    return any(k in b and b[k] != v for k, v in a.items())


def _index(function: ast.AST) -> tuple[list[ast.stmt], set[str]]:
    """The function's assignments and returns (in source order) and the names tested against None."""
    optional: set[str] = set()   # a None default alone is no test: the caller may always pass it
    statements: list[ast.stmt] = []
    for node in walk(function):
        if isinstance(node, (ast.Assign, ast.Return, ast.AugAssign, ast.Expr)):
            statements.append(node)
        elif isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and len(node.ops) == 1 \
                and isinstance(node.ops[0], (ast.Is, ast.IsNot)) and isinstance(node.comparators[0], ast.Constant) \
                and node.comparators[0].value is None:
            optional.add(node.left.id)
    statements.sort(key=lambda s: (s.lineno, s.col_offset))
    return statements, optional


def _parameter_of(piece: ast.AST, scope, ctx: FileContext, optional: frozenset[str] = frozenset(),
                  through: Optional[set[str]] = None) -> Optional[str]:
    """The parameter ``piece`` is read from (itself or a name bound from it; ``if s is None: s = {}`` keeps it).
    With ``optional`` (the parameters tested against None), also the container an accessor call hands back for
    such a parameter (``saved_state = self._get_input_buffer(incremental_state)``, fairseq's incremental state:
    the caller's state, absent at the first call). ``through`` collects the names read on the way (the local
    container the joined value may be written back into)."""
    root = _root(piece)
    if not isinstance(root, ast.Name) or ctx.resolver.scopes is None:
        return None
    for _ in range(4):
        bindings = ctx.resolver.scopes.may_reach(root.id, scope, (root.lineno, root.col_offset))
        if not bindings or any(b.scope is not scope for b in bindings):
            return None
        if any(b.tag == PARAM for b in bindings):
            fresh = all(b.tag in (PARAM, NONE) or b.tag == VALUE and isinstance(b.value, (*_DISPLAYS, ast.Constant))
                        and not getattr(b.value, "elts", getattr(b.value, "keys", [1])) for b in bindings)
            return root.id if fresh and root.id not in ("self", "cls") else None
        values = [b.value for b in bindings if b.tag == VALUE]
        if through is not None:
            through.add(root.id)
        if optional and values and len(values) == len(bindings) - sum(b.tag == NONE for b in bindings) \
                and len({id(v) for v in values}) == 1 and isinstance(values[0], ast.Call) \
                and not any(b.path for b in bindings):
            handed = _accessed(values[0], optional, scope, ctx)
            if handed is not None:
                return handed
        if len(values) != len(bindings) or len({id(v) for v in values}) != 1 or not isinstance(values[0], ast.AST):
            return None
        nxt = _root(values[0])
        if not isinstance(nxt, ast.Name) or nxt is values[0]:
            return None
        root = nxt
    return None


def _accessed(call: ast.Call, optional: frozenset[str], scope, ctx: FileContext) -> Optional[str]:
    """The optional parameter an accessor call is handed whole (``self._get_input_buffer(incremental_state)``,
    ``get_state(self, incremental_state, "attn")``): what it returns is kept in the caller's state."""
    for argument in [*call.args, *(kw.value for kw in call.keywords)]:
        if isinstance(argument, ast.Name) and argument.id in optional and argument.id not in ("self", "cls"):
            bindings = ctx.resolver.scopes.may_reach(argument.id, scope, (argument.lineno, argument.col_offset))
            if bindings and all(b.scope is scope and b.tag in (PARAM, NONE) for b in bindings) \
                    and any(b.tag == PARAM for b in bindings):
                return argument.id
    return None


def _holds(value: ast.AST, joined: str) -> bool:
    """``value`` gives ``joined`` back whole: the name, rearranged (``k.view(b, h, -1, d)``), or an element of a
    tuple / list / dict display."""
    if isinstance(value, ast.Name):
        return value.id == joined
    if isinstance(value, (ast.Tuple, ast.List)):
        return any(_holds(e, joined) for e in value.elts)
    if isinstance(value, ast.Dict):
        return any(v is not None and _holds(v, joined) for v in value.values)
    return rearranged(value, joined)


def named_join(node: ast.Call, name: Optional[str], ctx: FileContext,
               joins: frozenset[str] = _CATS, target: type = ast.Name) -> Optional[ast.Assign]:
    """``x = cat([a, b, ...])`` (``name`` one of ``joins``): the statement binding one name (``target``
    ``ast.Subscript``: one item, ``d[k] = cat(...)``) to a join of two or more listed pieces, else None (what
    growth_carried, growth_derived and :func:`stored_join` start from)."""
    if name not in joins or not node.args or not isinstance(node.args[0], (ast.List, ast.Tuple)) \
            or len(node.args[0].elts) < 2:
        return None
    stmt = ctx.parent(node)
    if not isinstance(stmt, ast.Assign) or stmt.value is not node or len(stmt.targets) != 1 \
            or not isinstance(stmt.targets[0], target):
        return None
    return stmt


def carried_join(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """What grows (for the message), else None: see the module's docstring."""
    stmt = named_join(node, name, ctx)
    if stmt is None:
        return None
    found = _function_scope(node, ctx)
    if found is None:
        return None
    function, scope = found
    pieces = node.args[0].elts
    statements, optional = ctx.per_node("growth_carried", function, _index)
    through: set[str] = set()
    source = _parameter_of(pieces[0], scope, ctx, frozenset(optional), through)
    if source is None or any(isinstance(p, ast.Starred) or _parameter_of(p, scope, ctx) is not None
                             for p in pieces[1:]):
        return None   # the state first, every other piece this call's (``cat([x, skip])`` joins two parameters)
    joined = stmt.targets[0].id
    if joined == source:
        return None   # the parameter itself rebound: step_parameter's / handed_back's question
    containers = {source} | (through - {joined})
    here = _arms(stmt, ctx)
    after = [s for s in statements if (s.lineno, s.col_offset) > (stmt.lineno, stmt.col_offset)
             and not _exclusive(here, _arms(s, ctx))]
    holders: set[str] = set()
    given: Optional[str] = None
    used = False
    for other in after:
        if isinstance(other, ast.Assign):
            targets = other.targets
            if any(isinstance(n, ast.Name) and n.id == joined for t in targets for n in ast.walk(t)) \
                    and not rearranged(other.value, joined):
                if given is None:
                    return None   # rebound to another value before it is given back
                used = used or any(isinstance(n, ast.Name) and n.id == joined and isinstance(n.ctx, ast.Load)
                                   for n in ast.walk(other.value))   # ``v = cat([v, zeros])``: computed from it
                break
            stored = [t for t in targets if isinstance(t, (ast.Subscript, ast.Attribute))]
            if stored and any(isinstance(_root(t), ast.Name) and _root(t).id in containers for t in stored) \
                    and _holds(other.value, joined):
                given = given or f"written back into {unparse(stored[0])[:40]}"
                continue
            if all(isinstance(t, ast.Name) for t in targets) and (
                    isinstance(other.value, _DISPLAYS) and _holds(other.value, joined)
                    or any(isinstance(n, ast.Name) and n.id in holders for n in ast.walk(other.value))
                    and not isinstance(other.value, ast.Call)):
                holders.update(t.id for t in targets)   # ``past = (k, v)``; ``outputs = outputs + (past,)``
                continue
        if isinstance(other, ast.Return) and other.value is not None:
            parts = other.value.elts if isinstance(other.value, ast.Tuple) else [other.value]
            for part in parts:
                if isinstance(part, ast.Name) and part.id in holders or \
                        isinstance(other.value, ast.Tuple) and len(parts) > 1 and _holds(part, joined) or \
                        isinstance(part, _DISPLAYS) and _holds(part, joined):
                    if source in optional:
                        given = given or "handed back beside the output"
            if any(not _holds(p, joined) and any(isinstance(n, ast.Name) and n.id == joined for n in ast.walk(p))
                   for p in parts):
                used = True
            continue
        if any(isinstance(n, ast.Name) and n.id == joined and isinstance(n.ctx, ast.Load) for n in ast.walk(other)) \
                and not (isinstance(other, ast.Assign) and rearranged(other.value, joined)):
            used = True   # read for this call's output (``q @ k.T``, ``k.size(1)``)
    if given is None or not used:
        return None
    return (f"{joined} = {name.rsplit('.', 1)[-1]}([{unparse(pieces[0])[:30]}, ...]) (the state the caller passes "
            f"in {source}, {given}: one step longer at every call, a key/value cache)")


_FILLS = frozenset({"torch.empty", "torch.zeros", "torch.ones", "torch.full", "torch.randn", "torch.rand"})
_NEW_FILLS = frozenset({"new_empty", "new_zeros", "new_ones"})


def _function_scope(node: ast.AST, ctx: FileContext) -> Optional[tuple[ast.FunctionDef, object]]:
    """The ``def`` holding ``node`` and its scope in the model, else None (a lambda, module level)."""
    function = ctx.enclosing(node, FUNCTION_TYPES)
    scopes = ctx.resolver.scopes
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or scopes is None:
        return None
    scope = scopes.scope_of(function)
    return (function, scope) if scope is not None else None   # type: ignore[return-value]


def _fill_sizes(value: ast.AST, ctx: FileContext, methods: bool = False) -> Optional[list[ast.AST]]:
    """The sizes of a tensor made filled (``torch.zeros(b, 0, device=d)``, ``torch.full((b, 0), v)``; with
    ``methods``, ``x.new_zeros(b, 0)``), one per axis, as :func:`~npu_lint.analysis.size_sinks.size_args` reads
    them; None for another call or sizes behind a ``*``."""
    if not isinstance(value, ast.Call):
        return None
    name = ctx.resolver.qualname(value.func)
    if name not in _FILLS and not (methods and isinstance(value.func, ast.Attribute) and value.func.attr in _NEW_FILLS):
        return None
    sizes = size_args(value, name if name in _FILLS else None)
    if len(sizes) == 1 and isinstance(sizes[0], (ast.Tuple, ast.List)):
        sizes = list(sizes[0].elts)
    return None if any(isinstance(s, ast.Starred) for s in sizes) else sizes


def _empty_along(value: ast.AST, axis: int, ctx: FileContext) -> bool:
    """``torch.empty(b, 0)`` / ``torch.zeros((b, 0), ...)`` / ``x.new_zeros(b, 0)``: a tensor with no element along
    the join's axis (a literal; ``-1`` the last) and some size listed before it."""
    sizes = _fill_sizes(value, ctx, methods=True)
    if sizes is None or len(sizes) < 2 or not -len(sizes) <= axis < len(sizes):
        return False
    empty = sizes[axis]
    return isinstance(empty, ast.Constant) and empty.value == 0


def empty_start_join(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """``if memory is None: memory = torch.empty(b, 0)`` / ``return torch.cat([memory, tok.unsqueeze(1)], dim=-1)``
    (speechbrain's ``_update_mem``): a helper that starts a state with no element along the axis it joins on and
    returns the state one piece longer. Nothing but accumulation starts from a zero-length tensor, so each call's
    result is one step longer than the state the caller passed in. What grows (for the message), else None."""
    if name not in _CATS or not node.args or not isinstance(node.args[0], (ast.List, ast.Tuple)) \
            or len(node.args[0].elts) != 2 or not isinstance(ctx.parent(node), ast.Return):
        return None
    state, found = node.args[0].elts[0], _function_scope(node, ctx)
    if not isinstance(state, ast.Name) or found is None:
        return None
    scope, scopes = found[1], ctx.resolver.scopes
    bindings = scopes.may_reach(state.id, scope, (state.lineno, state.col_offset))
    if len(bindings) != 2 or {b.tag for b in bindings} != {PARAM, VALUE}:
        return None
    made = next(b for b in bindings if b.tag == VALUE)
    if made.path or not isinstance(made.value, ast.AST) or not _empty_along(made.value, _joined_dim(node), ctx):
        return None
    return (f"{name.rsplit('.', 1)[-1]}([{state.id}, ...]) returned, {state.id} started empty along the joined axis "
            f"when absent (one piece longer than what the caller passes in, at every call)")


def _constant_sized(piece: ast.AST, scope, ctx: FileContext) -> bool:
    """``torch.zeros((64, 1, 7, 7))`` (or a name one binding binds to it): a tensor whose sizes are literals or the
    object's settings (``self.value_dim``)."""
    if isinstance(piece, ast.Name) and ctx.resolver.scopes is not None:
        bindings = ctx.resolver.scopes.may_reach(piece.id, scope, (piece.lineno, piece.col_offset))
        if len(bindings) != 1 or bindings[0].tag != VALUE or bindings[0].path \
                or not isinstance(bindings[0].value, ast.AST):
            return False
        piece = bindings[0].value
    sizes = _fill_sizes(piece, ctx)
    return bool(sizes) and all(isinstance(n, ast.Constant) and isinstance(n.value, int)
                               or isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                               and n.value.id == "self" for n in sizes)   # ``self.value_dim``: the object's setting


def paired_merge(target: ast.AST, elements: list[ast.expr], ctx: FileContext) -> bool:
    """``left["action"] = cat([left["action"], right["action"]])``: each other piece is the item under the same key
    of another container the function is given: two batches merged once per call, not state grown by a step
    (lerobot's ``concatenate_batch_transitions``); a piece the function computes still grows the item."""
    if not isinstance(target, ast.Subscript):
        return False
    key, owner = unparse(target.slice), _rooted(target)
    others = [e for e in elements if unparse(e) != unparse(target)]
    for piece in others:
        root = _rooted(piece)
        if not isinstance(piece, ast.Subscript) or unparse(piece.slice) != key or not isinstance(root, ast.Name) \
                or (isinstance(owner, ast.Name) and root.id == owner.id):
            return False
        binding = ctx.resolver.binding(root)
        if binding is None or binding.tag != PARAM:
            return False
    return bool(others)


def _rooted(target: ast.AST) -> ast.AST:
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        target = target.value
    return target


def stored_join(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """``state[k] = torch.cat((v, v_new))`` in ``for k, v in state.items()``, or ``cache["k"] = torch.cat([cache["k"],
    k])``, ``state`` a parameter of the function: the caller's container gets its item back one piece longer, so
    every call lengthens what the caller keeps (gsplat's densification growing each running statistic by the
    Gaussians it adds). What grows (for the message), else None. Not in a constructor (built once), and not for
    ``self`` (growth_state.py's question)."""
    stmt = named_join(node, name, ctx, target=ast.Subscript)
    found = _function_scope(node, ctx) if stmt is not None else None
    if found is None or found[0].name == "__init__":
        return None
    (function, scope), target = found, stmt.targets[0]
    owner = target.value
    if not isinstance(owner, ast.Name) or owner.id in ("self", "cls"):
        return None
    bindings = ctx.resolver.scopes.may_reach(owner.id, scope, (owner.lineno, owner.col_offset))
    if not bindings or any(b.tag != PARAM for b in bindings):
        return None   # the caller's container, not one the function made
    first = node.args[0].elts[0]
    key = unparse(target.slice)
    same = unparse(first) == unparse(target)
    loop = ctx.enclosing(node, (ast.For,))
    if not same and isinstance(first, ast.Name):   # ``for k, v in state.items(): state[k] = cat((v, new))``
        same = loop is not None and isinstance(loop.target, ast.Tuple) and len(loop.target.elts) == 2 \
            and all(isinstance(e, ast.Name) for e in loop.target.elts) \
            and loop.target.elts[0].id == key and loop.target.elts[1].id == first.id \
            and isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Attribute) \
            and loop.iter.func.attr == "items" and isinstance(loop.iter.func.value, ast.Name) \
            and loop.iter.func.value.id == owner.id
    if not same or any(isinstance(p, ast.Starred) for p in node.args[0].elts):
        return None
    keys = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)} if loop is not None else set()
    if isinstance(target.slice, ast.Name) and target.slice.id in keys and any(
            isinstance(n, ast.Name) and n.id == target.slice.id for p in node.args[0].elts[1:] for n in ast.walk(p)):
        return None   # ``xs[j] = cat([xs[j], ys[j]])``: each item paired once with another list's, no growth
    if made_per_call(function, owner, ctx) or paired_merge(target, node.args[0].elts, ctx):
        return None   # every call the file shows passes a container made for it (growth_fresh.py), or the pieces
        #               are another given container's items under the same key (two batches merged)
    shown, here = unparse(target), _arms(stmt, ctx)
    statements, _optional_ = ctx.per_node("growth_carried", function, _index)
    if any(isinstance(s, ast.Assign) and (s.lineno, s.col_offset) < (stmt.lineno, stmt.col_offset)
           and any(unparse(t) == shown for t in s.targets) and not _exclusive(here, _arms(s, ctx))
           for s in statements):
        return None   # ``d[key] = head`` earlier in the same call: the item is set afresh, then joined once
    if all(_constant_sized(p, scope, ctx) for p in node.args[0].elts[1:]):
        return None   # ``src_dict[k] = cat([src_dict[k], pads], 1)`` with ``pads = torch.zeros((64, 1, 7, 7))``:
        #               a checkpoint's weights widened once by a piece of fixed size
    return (f"{owner.id}[{key[:20]}] = {name.rsplit('.', 1)[-1]}(({unparse(first)[:20]}, ...)) (the caller's "
            f"{owner.id}, given back one piece longer at every call)")
