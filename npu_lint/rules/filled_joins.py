"""NPU409's widest path (session 22, concat22): a join of a container the function FILLS elsewhere.

``inverted_joins.py`` asks what the joined list is where it is joined; on real code the list is often filled at a
distance, in a form it does not follow:

- a list of lists per key: ``parts[key].append(x)`` (``setdefault(k, []).append``) in a loop over the samples,
  joined later as ``torch.cat(parts[key])``, ``items = parts[key]; torch.cat(items)`` or
  ``{k: torch.cat(v) for k, v in parts.items()}`` (a collate's per-key lists, per-task predictions);
- a comprehension over a local list filled in a loop (``cat(tuple(m[0]["boxes"] for m in matches))``, ``matches``
  appended once per image);
- a local list filled in a loop whose items come out of a data-dependent selection (``x[mask]``, rows indexed by
  what ``nonzero`` / one-argument ``where`` / ``unique`` return): their lengths vary even when the loop's count is
  fixed (per-chunk edges of a radius graph).

The join fires when an ``append`` to the container sits in a ``for`` over a sequence nothing fixes (the inverted
path's ``_sequence_given``: a parameter, a field, a loader ...) or appends a data-dependent selection, and the item
appended is not proven of one size (``_fixed_items``: one row, a factory sized by values the loop does not bind, a
helper's result of the item, a conversion ...; a name assigned more than once in the loop is fixed only if every
assignment is). The joined dim counts as 0 when it is a name bound only to 0 or to a dim another object's method
gives per key (``cat_dim = 0 if cat_dim is None else cat_dim``), or ``-1`` over items proven one-dimensional
(``torch.full((n,), i)``, ``new_full((len(p),), i)``: per-sample batch index columns).
Silent for ``self``'s containers, setup code (``__init__``, module level), tests, a ``while`` loop (the growth
path's), and containers appended only outside loops. Asked per call; the per-function additions are memoised.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk as _walk_nodes   # ``ast.walk``: the same nodes, in its order
from npu_lint.analysis.bindings import AUGMENT, LOOP, VALUE
from npu_lint.context import FileContext
from npu_lint.analysis import kinds as K
from npu_lint.rules import short_source
from npu_lint.rules.broad_joins import JOIN_CATS, _encloses, _function_of, _joined_dim, _own
from npu_lint.rules.inverted_joins import _batch_loop, _fixed_items, _item_attribute, _sequence_given, _targets
from npu_lint.rules.mask_reads import is_bool_index

_ADDS = frozenset({"append", "extend", "insert", "appendleft"})
_SELECTIONS = frozenset({"nonzero", "where", "argwhere", "unique", "unique_consecutive", "masked_select"})
_FLAT = frozenset({"full", "new_full", "arange", "zeros", "ones", "empty", "new_zeros", "new_ones", "new_empty",
                   "randperm"})
_LOOPS = (ast.For, ast.AsyncFor)
_STOP = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _key(target: ast.AST) -> Optional[str]:
    """The container an ``append`` fills: ``out`` for ``out.append``, ``d[*]`` for ``d[k].append`` and
    ``d.setdefault(k, []).append``; None for ``self``'s and other objects' containers."""
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
        return f"{target.value.id}[*]"
    if isinstance(target, ast.Call) and isinstance(target.func, ast.Attribute) \
            and target.func.attr in ("setdefault", "get") and isinstance(target.func.value, ast.Name):
        return f"{target.func.value.id}[*]"
    return None


def _enclosing_loops(node: ast.AST, ctx: FileContext) -> list[ast.AST]:
    """The ``for`` loops of the same function around ``node``, innermost first (a ``while`` stops: growth's)."""
    loops, parent = [], ctx.parent(node)
    while parent is not None and not isinstance(parent, _STOP):
        if isinstance(parent, ast.While):
            return []
        if isinstance(parent, _LOOPS):
            loops.append(parent)
        parent = ctx.parent(parent)
    return loops


def _fills(function: ast.AST, ctx: FileContext) -> dict[str, list[tuple[ast.AST, ast.AST]]]:
    """Per container key, the ``append`` calls in ``for`` loops with the item appended (memoised per function)."""
    memo = ctx.scratch.setdefault("filled_joins", {})
    found = memo.get(id(function))
    if found is not None:
        return found
    found = {}
    for node in _walk_nodes(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" \
                and len(node.args) == 1:
            key = _key(node.func.value)
            if key is not None:
                found.setdefault(key, []).append((node, node.args[0]))
    memo[id(function)] = found
    return found


def loops_assigned(loops: list[ast.AST], ctx: FileContext) -> dict[str, list[ast.AST]]:
    """The names assigned in ``loops`` (outermost first) with the values each is given, the first loop naming one
    winning; each loop indexed once per file."""
    assigned: dict[str, list[ast.AST]] = {}
    for loop in loops:
        for key, values in ctx.per_node("filled_assigned", loop, _assigned_in).items():
            assigned.setdefault(key, values)
    return assigned


def _assigned_in(loop: ast.AST) -> dict[str, list[ast.AST]]:
    """Every value the loop's body assigns to each plain name (all of them, not the last one)."""
    found: dict[str, list[ast.AST]] = {}
    for stmt in _walk_nodes(loop):
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).append(stmt.value)
                elif isinstance(target, (ast.Tuple, ast.List)):
                    for elt in target.elts:
                        if isinstance(elt, ast.Name):
                            found.setdefault(elt.id, []).append(stmt.value)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            found.setdefault(stmt.target.id, []).append(stmt)
        elif isinstance(stmt, ast.If) and stmt.orelse:
            found.setdefault("__if__", []).append(stmt)
    return found


def _selected(value: ast.AST, ctx: FileContext, assigned: dict[str, list[ast.AST]], depth: int = 0) -> bool:
    """A data-dependent selection: ``x[mask]``, or rows indexed by what ``nonzero`` / one-argument ``where`` /
    ``unique`` return (``d[i, j]`` after ``i, j = torch.where(m)``)."""
    if depth > 2:
        return False
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and value.func.attr in ("to", "float", "long", "detach", "clone", "contiguous", "cpu"):
        return _selected(value.func.value, ctx, assigned, depth + 1)
    if isinstance(value, ast.Name) and value.id in assigned:
        return any(_selected(v, ctx, assigned, depth + 1) for v in assigned[value.id] if isinstance(v, ast.expr))
    if isinstance(value, ast.Call):
        func = value.func
        callee = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if callee not in _SELECTIONS or callee == "where" and len(value.args) != 1:
            return False
        return (ctx.resolver.qualname(func) or "torch.").startswith("torch.")
    if not isinstance(value, ast.Subscript):
        return False
    index = value.slice
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    for part in parts:
        if isinstance(part, (ast.Slice, ast.Constant)):
            continue
        if is_bool_index(part, ctx):
            return True
        if isinstance(part, ast.Name) and any(_selected(v, ctx, {}, depth + 1)
                                              for v in assigned.get(part.id, ()) if isinstance(v, ast.expr)):
            return True
    return False


def _item_fixed(added: ast.AST, ctx: FileContext, bound: set[str], assigned: dict[str, list[ast.AST]]) -> bool:
    """The appended item is proven of one size along dim 0; a name assigned more than once only if every
    assignment that may reach the ``append`` is (``item = data[key]`` kept on one branch is not)."""
    if isinstance(added, ast.Tuple):
        return False        # a record of per-sample parts (``(preds, targets)``): read back by the comprehension
    if isinstance(added, ast.Name) and len(assigned.get(added.id, ())) > 1 and ctx.resolver.scopes is not None:
        others = {k: v[-1] for k, v in assigned.items() if k != added.id and isinstance(v[-1], ast.expr)}
        reaching = ctx.resolver.scopes.may_reach(added.id, ctx.resolver.current, (added.lineno, added.col_offset))
        reaching = [b for b in reaching if b.tag != AUGMENT] or reaching     # ``val -= v0`` keeps its shape
        arms = [st for st in _both_arms(added.id, assigned) if st.end_lineno < added.lineno]
        reaching = [b for b in reaching if not any(b.pos[0] < st.lineno for st in arms)]
        return bool(reaching) and all(b.tag == VALUE and not b.path and isinstance(b.value, ast.expr)
                                      and (_fixed_items(b.value, ctx, frozenset(bound), others)
                                           or _computed_by_object(b.value, ctx, bound, assigned)) for b in reaching)
        # a name unpacked from a helper's several results (``boxes, keep = clip(boxes, remove_empty=True)``) is
        # no proof: such helpers return a selection and what selects it
    binds = {k: v[-1] for k, v in assigned.items() if isinstance(v[-1], ast.expr)}
    value = binds.get(added.id, added) if isinstance(added, ast.Name) else added
    return _fixed_items(added, ctx, frozenset(bound), binds) or _item_attribute(value, frozenset(bound)) \
        or _computed_by_object(added, ctx, bound, assigned)


_KEEP_SHAPE = frozenset({"normalize", "relu", "gelu", "silu", "dropout", "layer_norm", "softmax", "log_softmax",
                         "sigmoid", "tanh"})
_METHODS = frozenset({"to", "float", "long", "half", "detach", "clone", "contiguous", "cpu", "cuda", "flatten",
                      "squeeze", "view", "reshape", "numpy"})


def _computed_by_object(value: ast.AST, ctx: FileContext, bound: set[str], assigned: dict[str, list[ast.AST]],
                        depth: int = 0) -> bool:
    """What a model or another callable object from outside the loop computes from the element
    (``model.vision_proj(feat)``, ``self.encode_image(x)``, ``pl_module(x).flatten(1)``, through
    ``F.normalize``): one row per input row, as
    the inverted path takes a helper's result of the item; a loader's short tail is the last batch's question."""
    if depth > 4:
        return False
    if isinstance(value, ast.Name):
        return any(_computed_by_object(v, ctx, bound, assigned, depth + 1) for v in assigned.get(value.id, ())
                   if isinstance(v, ast.expr) and not any(isinstance(n, ast.Name) and n.id == value.id
                                                          for n in _walk_nodes(v)))
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    qualname = ctx.resolver.qualname(func) or ""
    if qualname.startswith("torch.nn.functional.") and qualname.rsplit(".", 1)[-1] in _KEEP_SHAPE and value.args:
        return _computed_by_object(value.args[0], ctx, bound, assigned, depth + 1)
    if isinstance(func, ast.Attribute) and func.attr in _METHODS:
        return _computed_by_object(func.value, ctx, bound, assigned, depth + 1)
    root = func
    while isinstance(root, ast.Attribute):
        root = root.value
    return bool(value.args) and not qualname and isinstance(root, ast.Name) and root.id not in bound \
        or ctx.resolver.kind_of(func) == K.MODULE


def _both_arms(name: str, assigned: dict[str, list[ast.AST]]) -> list[ast.If]:
    """The ``if`` statements whose both arms assign ``name`` (an earlier assignment cannot reach past them)."""
    return [v for v in assigned.get("__if__", ()) if isinstance(v, ast.If) and all(any(
        isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in st.targets)
        for st in arm) for arm in (v.body, v.orelse))]


def _elements(loops: list) -> set[str]:
    """The names the loops bind to their sequences' elements (not ``range``'s or ``enumerate``'s counters)."""
    names: set[str] = set()
    for loop in loops:
        target, source = loop.target, loop.iter
        if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "enumerate" \
                and isinstance(target, ast.Tuple) and len(target.elts) == 2 and source.args:
            target, source = target.elts[1], source.args[0]
        if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "range":
            continue        # a counter, and what it sizes a schedule of the settings
        names.update(n.id for n in _walk_nodes(target) if isinstance(n, ast.Name))
    return names


def _sized_by_item(added: ast.AST, loops: list, ctx: FileContext) -> Optional[str]:
    """Items whose length each element gives, whatever the count: a factory sized by the element
    (``i * torch.ones(cluster.shape[0])``, ``torch.full((d.natoms,), i)``) or rows of another tensor gathered by
    the element as an index (``feats[cluster]``, ``logits[cluster, :]``)."""
    elements = _elements(loops)
    if not elements:
        return None
    bound = _targets([loop.target for loop in loops])
    for part in _walk_nodes(added):
        if isinstance(part, ast.Call) and isinstance(part.func, (ast.Attribute, ast.Name)) and (
                part.func.attr if isinstance(part.func, ast.Attribute) else part.func.id) in _FLAT:
            callee = part.func.attr if isinstance(part.func, ast.Attribute) else part.func.id
            sizes = part.args[:1] if callee in ("full", "new_full") else part.args
            if any(isinstance(n, ast.Name) and n.id in elements for a in sizes for n in _walk_nodes(a)):
                return f"sized by each element ({short_source(part, 30)})"
        if isinstance(part, ast.Subscript):
            index = part.slice.elts[0] if isinstance(part.slice, ast.Tuple) and part.slice.elts else part.slice
            root = part.value
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            if isinstance(index, ast.Name) and index.id in elements and isinstance(root, ast.Name) \
                    and root.id not in bound and ctx.resolver.is_tensor(part.value):
                return f"gathered by each element as an index ({short_source(part, 30)})"
    return None


def _why_filled(key: str, node: ast.Call, function: ast.AST, ctx: FileContext) -> Optional[tuple[str, list]]:
    """Why the container ``key`` holds items of different lengths, with the items appended; None if proven static."""
    found, items = None, []
    for call, added in _fills(function, ctx).get(key, ()):
        if call.lineno > node.lineno:
            continue
        loops = [loop for loop in _enclosing_loops(call, ctx) if not _encloses(loop, node)]
        if not loops:
            continue        # the container is joined inside the loop that fills it (or filled outside loops)
        bound: set[str] = {target for loop in loops for target in _targets([loop.target])}
        assigned = loops_assigned(loops, ctx)
        for _ in range(3):
            bound |= {k for k, vs in assigned.items() if any(
                isinstance(n, ast.Name) and n.id in bound for v in vs for n in _walk_nodes(v))}
        items.append(_latest(added, call, loops[-1]))
        if _selected(added, ctx, assigned):
            found = found or f"rows a data-dependent selection keeps, appended in the loop of line {loops[0].lineno}"
            continue
        if _item_fixed(added, ctx, bound, assigned):
            continue        # this addition is of one size; another may not be
        if any(_batch_loop(loop, ctx) for loop in loops if isinstance(loop, (ast.For, ast.AsyncFor))):
            continue        # one result per batch of a loader pass, joined once after it (session 32)
        given = next(filter(None, (_sequence_given(loop.iter, ctx) for loop in loops)), None)
        if given is None:
            sized = _sized_by_item(_latest(added, call, loops[-1]), loops, ctx)
            if sized is not None:
                found = found or f"items {sized} (loop of line {loops[0].lineno})"
            continue
        found = found or f"one item per element of {given} (loop of line {loops[0].lineno})"
    return (found, items) if found else None


def _latest(added: ast.AST, call: ast.AST, loop: ast.AST) -> ast.AST:
    """The value a name appended holds at the ``append``: its last assignment above it in the loop."""
    if not isinstance(added, ast.Name):
        return added
    best = None
    for stmt in _walk_nodes(loop):
        if isinstance(stmt, ast.Assign) and stmt.lineno < call.lineno and any(
                isinstance(t, ast.Name) and t.id == added.id for t in stmt.targets):
            if best is None or stmt.lineno > best.lineno:
                best = stmt
    return best.value if best is not None else added


def _container(items: ast.AST, node: ast.Call, ctx: FileContext, depth: int = 0) -> Optional[tuple[str, bool]]:
    """The container key the joined value reads, and whether the join reads each of its items through a
    comprehension: ``d[k]``, a name bound to ``d[k]``, ``v`` of ``for k, v in d.items()``, a local list."""
    if depth > 3:
        return None
    if isinstance(items, ast.Subscript) and isinstance(items.value, ast.Name) \
            and not isinstance(items.slice, (ast.Slice, ast.Constant)):
        return f"{items.value.id}[*]", False
    if isinstance(items, (ast.ListComp, ast.GeneratorExp)) and len(items.generators) == 1:
        source = _container(items.generators[0].iter, node, ctx, depth + 1)
        return (source[0], True) if source is not None else None
    if isinstance(items, ast.Call) and isinstance(items.func, ast.Name) and items.func.id in ("list", "tuple") \
            and len(items.args) == 1:
        return _container(items.args[0], node, ctx, depth + 1)
    if not isinstance(items, ast.Name):
        return None
    binding = ctx.resolver.binding(items)
    if binding is None:
        return None
    value = binding.value if isinstance(binding.value, ast.AST) else None
    if binding.tag == VALUE and len(binding.path) == 1 and isinstance(value, (ast.Tuple, ast.List)) \
            and 0 <= binding.path[0] < len(value.elts) and isinstance(value.elts[binding.path[0]], ast.List):
        value = value.elts[binding.path[0]]       # ``n, feats, labels = 0, [], []``
        return (items.id, False) if not value.elts else None
    if binding.tag == VALUE and not binding.path and value is not None:
        if isinstance(value, ast.List) and not value.elts or isinstance(value, ast.Call) \
                and isinstance(value.func, ast.Name) and value.func.id == "list" and not value.args:
            return items.id, False
        if isinstance(value, ast.Subscript):
            return _container(value, node, ctx, depth + 1)
    if binding.tag == LOOP and binding.path in ((1,), ()) and isinstance(value, ast.Call) \
            and isinstance(value.func, ast.Attribute) and isinstance(value.func.value, ast.Name) \
            and (value.func.attr, binding.path) in (("items", (1,)), ("values", ())):
        return f"{value.func.value.id}[*]", False      # ``for k, v in d.items()``: ``v`` is one of d's lists
    return None


def _dim_zero(node: ast.Call, items_added: list, ctx: FileContext) -> bool:
    """The join is along dim 0: a literal 0, a name bound only to 0 or to another object's per-key dim, or -1
    over items proven one-dimensional."""
    dim = _joined_dim(node)
    if dim == 0:
        return True
    given = next((k.value for k in node.keywords if k.arg in ("dim", "axis")), None)
    given = node.args[1] if len(node.args) > 1 else given
    if dim == -1 or isinstance(given, ast.UnaryOp) and isinstance(given.op, ast.USub) \
            and isinstance(given.operand, ast.Constant) and given.operand.value == 1:
        return bool(items_added) and all(_flat(a) for a in items_added)
    if not isinstance(given, ast.Name):
        return False
    binding = ctx.resolver.binding(given)     # the assignment that reaches the join
    value = binding.value if binding is not None and binding.tag == VALUE and not binding.path else None
    return isinstance(value, ast.AST) and _per_key_dim(value, given.id)


def _per_key_dim(value: ast.AST, name: str) -> bool:
    if isinstance(value, ast.Constant):
        return value.value == 0
    if isinstance(value, ast.IfExp):
        return all(_per_key_dim(v, name) or isinstance(v, ast.Name) and v.id == name
                   for v in (value.body, value.orelse))
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and bool(value.args) \
        and not _own(value.func) and value.func.attr.startswith("__cat_dim")


def _flat(added: ast.AST) -> bool:
    """``torch.full((n,), i)``, ``x.new_full((len(p),), i)``, ``torch.arange(n)``: one dimension."""
    if not (isinstance(added, ast.Call) and isinstance(added.func, (ast.Attribute, ast.Name))):
        return False
    callee = added.func.attr if isinstance(added.func, ast.Attribute) else added.func.id
    if callee not in _FLAT or not added.args:
        return False
    size = added.args[0]
    if callee == "arange" or callee == "randperm":
        return len(added.args) <= 3
    return isinstance(size, (ast.Tuple, ast.List)) and len(size.elts) == 1


def filled_join(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """Why a ``cat`` of a container filled elsewhere in the function varies, else None (module docstring)."""
    if name not in JOIN_CATS or name in ("torch.hstack", "torch.vstack") or not node.args:
        return None
    function = _function_of(node, ctx)
    if function is None or getattr(function, "name", "") == "__init__" or ".test" in f".{ctx.module}":
        return None
    found = _container(node.args[0], node, ctx)
    if found is None:
        return None
    key, through = found
    items = node.args[0]
    if through and isinstance(items, ast.Call):
        items = items.args[0]
    if through and isinstance(items, (ast.ListComp, ast.GeneratorExp)):
        names = _targets([g.target for g in items.generators])
        if _fixed_items(items.elt, ctx, names) or _item_attribute(items.elt, names):
            return None
    why = _why_filled(key, node, function, ctx)
    if why is None or not _dim_zero(node, why[1], ctx):
        return None
    where = f"the list {key.replace('[*]', '[...]')}" if not through else f"each element of {key}"
    return f"{where}, filled with {why[0]}"
