"""Arms of a test inside a loop that a run takes every iteration: the test reads nothing the loop changes (no name
or attribute it assigns, no random draw). NPU408 reads growth in such an arm as growth; which loops carry a value
from one iteration to the next (`carried`), through rearranging rebinds (`rearranged`: beam search's
``prefixes.view(...).gather(...)``), a temporary stored back (`stored_back`) and per-layer elements grown by an outer
loop (`step_loop`). Nothing here is a rule."""
from __future__ import annotations

import ast
from functools import lru_cache
from typing import Optional

from npu_lint.analysis.call_values import moves
from npu_lint.analysis.kinds import LOADER
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import VALUE
from npu_lint.analysis.step_growth import rearranged, step_iterable
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES


def other_arms(loop: ast.AST, statement: ast.AST) -> set[int]:
    """The nodes in the other arm of each ``if`` around ``statement`` inside the loop whose test reads nothing the
    loop assigns (``if incremental: x = cat([x, y]) else: x = y``: a run takes the same arm every iteration)."""
    found: set[int] = set()
    for arm, other in _stable_arms(loop):
        if id(statement) in arm:
            found |= other
    return found


# The stable arms of the last loops asked about: (loop, [(ids in an arm, ids in the other arm), ...]), by id.
_ARMS: dict[int, tuple[ast.AST, list[tuple[set[int], set[int]]]]] = {}


def _stable_arms(loop: ast.AST) -> list[tuple[set[int], set[int]]]:
    """Each arm (with the other one) of the loop's tests that read nothing the loop changes; computed once per
    loop (a loop with many concatenations asks for every one of them)."""
    cached = _ARMS.get(id(loop))
    if cached is not None and cached[0] is loop:
        return cached[1]
    assigned = {n.id for n in walk(loop) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    stored = {ast.unparse(n) for n in walk(loop) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)}
    arms: list[tuple[set[int], set[int]]] = []
    for node in walk(loop):
        if not isinstance(node, ast.If) or {n.id for n in walk(node.test) if isinstance(n, ast.Name)} & assigned \
                or any(_drawing(n) or (isinstance(n, ast.Attribute) and ast.unparse(n) in stored)
                       for n in walk(node.test)):
            continue   # a draw (``random.random() < p``) or a value the loop changes: the arm may change
        body = {id(n) for s in node.body for n in walk(s)}
        orelse = {id(n) for s in node.orelse for n in walk(s)}
        arms += [(body, orelse), (orelse, body)]
    if len(_ARMS) > 64:
        _ARMS.clear()
    _ARMS[id(loop)] = (loop, arms)
    return arms


def _drawing(node: ast.AST) -> bool:
    """A call that may answer differently each time: a random draw, or a function of unknown kind called by a
    bare name (``kwargs.get("x")`` and ``self.cfg.flag()`` read what the loop does not change)."""
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Name):
        return True
    text = ast.unparse(node.func)
    return text.startswith(("random.", "np.random.", "numpy.random.", "torch.rand", "torch.bernoulli",
                            "torch.multinomial"))


def steps(iterated: ast.AST, ctx: Optional[FileContext] = None) -> bool:
    """``range(...)``, ``count()``, ``trange(...)``, ``tqdm(range(...))``: a loop over steps; with ``ctx``, also a
    call of one of the file's functions that returns one (the model's `iterates_steps`)."""
    if step_iterable(iterated):
        return True
    if ctx is None or not isinstance(iterated, ast.Call) or ctx.resolver.scopes is None:
        return False
    if _tensor_pieces(iterated, ctx):
        return True
    function = ctx.enclosing_any(iterated, FUNCTION_TYPES)
    scope = ctx.resolver.scopes.scope_of(function) if function is not None else ctx.resolver.scopes.module
    return ctx.resolver.iterates_steps(iterated, scope)


# pieces as many as the tensor's length gives (not ``chunk(n)`` / ``tensor_split(n)``: n pieces, a setting)
_PIECES = frozenset({"split", "unbind"})


def _tensor_pieces(iterated: ast.Call, ctx: FileContext) -> bool:
    """``wav.split(seg, dim=-1)``, ``torch.split(x, 16000)``, ``x.unbind(1)`` (also through ``enumerate``): the pieces
    of a tensor, as many as its length gives -- a loop over them runs as a loop over steps of the data."""
    while isinstance(iterated.func, ast.Name) and iterated.func.id == "enumerate" and iterated.args \
            and isinstance(iterated.args[0], ast.Call):
        iterated = iterated.args[0]
    func = iterated.func
    if isinstance(func, ast.Attribute) and func.attr in _PIECES:
        name = ctx.resolver.qualname(func)
        if name is not None and name.startswith("torch.") and iterated.args:
            return ctx.resolver.is_tensor(iterated.args[0])
        if name is not None:
            return False
        if ctx.resolver.is_tensor(func.value):
            return True
        kind = ctx.resolver.kind_of(func.value)
        # ``unbind`` is a tensor method only, ``split(.., dim=..)`` too (not str's)
        return kind is None and (func.attr != "split" or any(k.arg == "dim" for k in iterated.keywords))
    return False


# Calls that hand on the items of what they wrap, one per iteration: ``enumerate(loader)``, ``tqdm(loader)``,
# ``zip(pbar, loader)``, ``islice(loader, n)``; a progress bar of any name (``progress_bar(loader)``).
_PASSING = frozenset({"enumerate", "zip", "iter", "islice", "tqdm", "track"})


def over_batches(loop: ast.For, ctx: FileContext) -> bool:
    """A loop over the batches of a loader, the model's value of its iterable (also through ``enumerate``,
    ``tqdm``, ``zip``, a progress bar), or a loop whose every iteration is a training step (the model's
    `runs_per_step`: backward and an optimizer step in its body, whatever it iterates, not a count): it runs once
    per batch of the data, as often as a loop over steps."""
    if ctx.resolver.runs_per_step(loop) and not steps(loop.iter, ctx):
        return True
    pending = [loop.iter]
    while pending:
        node = pending.pop()
        if ctx.resolver.kind_of(node) == LOADER or moves_its_items(loop, node, ctx):
            return True
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in _PASSING or "progress" in name.lower():
                pending += [a for a in (node.args if name == "zip" else node.args[:1]) if not isinstance(a, ast.Starred)]
    return False


def moves_its_items(loop: ast.For, iterable: ast.AST, ctx: FileContext) -> bool:
    """``for us, items in test_loader:`` (``iterable``: what the loop walks, inside ``enumerate`` or ``tqdm``) whose
    body starts by moving what it took to the device (``us = us.to(self.device)``, ``x = x.cuda()``): batches of a
    loader the model cannot name (a parameter, another module's attribute), not the items of a counted or
    configured sequence (a ``range``, a literal, ``zip`` of per-level lists: the iterable is a name or an
    attribute of unknown kind)."""
    if not isinstance(iterable, (ast.Name, ast.Attribute)) or steps(iterable, ctx) or ctx.resolver.kind_of(iterable):
        return False
    wrapper = loop.iter
    if iterable is not wrapper and not (isinstance(wrapper, ast.Call) and wrapper.args and wrapper.args[0] is iterable
                                        and not (isinstance(wrapper.func, ast.Name) and wrapper.func.id == "zip")):
        return False   # ``zip(feats, targets)``: lists walked side by side, no loader's batches
    taken = {n.id for n in walk(loop.target) if isinstance(n, ast.Name)}
    for statement in loop.body[:4]:
        value = statement.value if isinstance(statement, ast.Assign) else None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                and value.func.attr in ("to", "cuda", "npu") and isinstance(value.func.value, ast.Name) \
                and value.func.value.id in taken and moves(value, ctx.resolver, ctx.resolver.current):
            return True
    return False


def named_steps(loop: ast.For, ctx: FileContext) -> bool:
    """``for i in it:`` where every binding of ``it`` that may reach the loop is a loop over steps (`steps`) or
    a wrapper of ``it`` itself (``it = range(n)``; ``if bar: it = progress_bar(it)``; ``it = progress_bar(range(n))
    if bar else range(n)``): a loop over steps named first (a progress bar switched on by a flag)."""
    name = loop.iter
    if not isinstance(name, ast.Name) or ctx.resolver.scopes is None:
        return False
    bindings = ctx.resolver.scopes.may_reach(name.id, ctx.resolver.current, (name.lineno, name.col_offset))
    values = [b.value if b.tag == VALUE and not b.path else None for b in bindings]

    def stepping(value: object, depth: int = 0) -> Optional[bool]:
        """True: steps (``range(n)``, ``progress_bar(range(n))``); None: a rewrap of the name (``bar(it)``)."""
        if isinstance(value, ast.IfExp) and depth < 2:
            arms = (stepping(value.body, depth + 1), stepping(value.orelse, depth + 1))
            return False if False in arms else True if True in arms else None
        if not isinstance(value, ast.Call):
            return False
        if steps(value):
            return True
        first = value.args[0] if value.args else None
        if isinstance(first, ast.Name) and first.id == name.id:
            return None
        return isinstance(first, ast.Call) and steps(first)
    found = [stepping(v) for v in values]
    return bool(found) and False not in found and True in found


@lru_cache(maxsize=256)   # asked once per concatenation in the loop: answered once per loop (node identity)
def over_layers(loop: ast.For) -> bool:
    """``for i in range(len(self.layers))`` or a counter that picks the module it runs (``self.blocks[i](x)``): a
    loop over the layers of a module, counted (a dense block joining every layer's features), the same shapes at
    every call."""
    if not isinstance(loop.target, ast.Name):
        return False
    counter = loop.target.id
    if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and n.args
           and isinstance(n.args[0], ast.Attribute) and isinstance(n.args[0].value, ast.Name)
           and n.args[0].value.id == "self" for n in walk(loop.iter)):
        return True
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Subscript) and isinstance(n.func.slice, ast.Name)
               and n.func.slice.id == counter and isinstance(n.func.value, ast.Attribute)
               and isinstance(n.func.value.value, ast.Name) and n.func.value.value.id == "self"
               for statement in loop.body for n in walk(statement))   # ``self.layers[i](x)``: a module per step


def carried(loop: ast.AST, statement: ast.stmt, text: str, batches: bool = False,
            ctx: Optional[FileContext] = None) -> bool:
    """``statement`` is the only assignment to ``text`` in the loop (a ``while`` loop or a ``for`` loop over steps
    that does not bind it; ``batches``: a ``for`` loop over a loader's batches, `over_batches`): the value grows
    from one iteration to the next (not ``x = f(x)`` after it, nor a fresh ``x`` each iteration); assignments in
    the other arm of a test the loop does not change are left out."""
    if isinstance(loop, ast.For):
        if not (batches or steps(loop.iter, ctx)) or over_layers(loop):
            return False    # a loop over a list of items (conditions, layers): the same shapes every call
        if text in {ast.unparse(n) for n in walk(loop.target)}:
            return False
    if _made_first(loop, statement, text, ctx):
        return False    # ``h = msg[idx]`` ... ``if c: h = cat((h, extra))``: made afresh earlier in each iteration
    exclusive = other_arms(loop, statement) | _first_arms(loop, text)
    aliases = None
    resets: Optional[set[int]] = None
    index = ctx.per_node("loop_written", loop, _written_targets) if ctx is not None else _written_targets(loop)
    for child, single, written in index:
        if child is statement or id(child) in exclusive or text not in written:
            continue
        if single == text:
            if resets is None:
                resets = _conditional_resets(loop, text)
            if id(child) in resets:
                continue    # ``if n >= 128: step(acc); acc = torch.Tensor([])``: emptied now and then, grown between
            if rearranged(child.value, text):
                continue    # ``x = x.view(b, k, -1)``, ``x = x.gather(1, idx)``: the same steps, rearranged
            if _long_window(child.value, text):
                continue    # ``mask = mask[:, -self.max_seq_len:]``: a context window of the configured length,
                #             which a generation fills step by step (it grows until then)
            if aliases is None:
                aliases = _aliases(loop, text)
            if any(rearranged(child.value, alias) for alias in aliases):
                continue    # ``preds = x.view(-1, k, x.size(-1))`` ... ``x = preds.index_select(0, keep).view(..)``
        targets = child.targets if isinstance(child, ast.Assign) else [child.target]
        # ``x[rows] = v``: written in place, the length kept (a beam's rows reordered into it)
        targets = [t for t in targets if not (isinstance(t, ast.Subscript) and ast.unparse(t.value) == text)]
        if any(ast.unparse(n) == text for target in targets for n in walk(target)):
            if ctx is not None and isinstance(child, ast.Assign) and _handed_back(child, text, ctx):
                continue   # ``ids, done = self._end(ids, scores)`` returning ``ids`` or ``ids[keep]``
            return False
    return True


def _written_targets(loop: ast.AST) -> list[tuple[ast.AST, Optional[str], frozenset[str]]]:
    """The assignments of ``loop`` (nested ones too), each with the text of its single target (None: several, or
    no plain ``=``) and the texts of every node of its targets: what :func:`carried` asks of each, for every join of
    the loop (a walk and an unparse per join and node was quadratic in a 1,600-step body)."""
    found = []
    for child in walk(loop):
        if isinstance(child, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = child.targets if isinstance(child, ast.Assign) else [child.target]
            single = ast.unparse(targets[0]) if isinstance(child, ast.Assign) and len(targets) == 1 else None
            found.append((child, single, frozenset(ast.unparse(n) for t in targets for n in walk(t))))
    return found


_BLOCKS = ("body", "orelse", "finalbody")


def _made_first(loop: ast.AST, statement: ast.stmt, text: str, ctx: Optional[FileContext] = None) -> bool:
    """A fresh ``text = value`` (one not reading ``text``) runs before ``statement`` on every path of the same
    iteration that reaches it: an earlier statement of a block holding ``statement``, inside the innermost loop
    around it (an assignment before an inner loop does not stop that loop's growth). The joined value is then made
    anew each iteration, whatever tests sit between (``if not self.atom_messages: rev = m[b2revb]`` / ``if
    self.attached: rev = cat((rev, extra), 1)``). Each loop's blocks are indexed once per file (``ctx.scratch``):
    asked for every join of a 1,600-step loop body, a walk per question took 30 s."""
    positions, assigned = _loop_index(loop, ctx)
    node: ast.AST = statement
    while True:
        entry = positions.get(id(node))
        if entry is None:
            return False
        statements, index, owner = entry
        key = (id(statements), text)
        first = assigned.get(key)
        if type(first) is list:   # the first fresh assignment of the block, found once: each ``_fresh`` walks
            first = assigned[key] = next((i for i in first if _fresh(statements[i], text)), None)
        if first is not None and first < index:
            return True
        if owner is loop or isinstance(owner, (ast.For, ast.AsyncFor, ast.While)):
            return False   # past the innermost loop: its iterations carry the value
        node = owner


def _loop_index(loop: ast.AST, ctx: Optional[FileContext]) -> tuple[dict, dict]:
    """For the statements of ``loop``'s body, nested blocks included (not inside a ``def`` / ``class``): id ->
    (its block, its index there, the statement owning the block or ``loop``), and (id of a block, target text) ->
    the indices of the block's single-target assignments to that text (replaced by the first fresh one when asked)."""
    store = ctx.scratch.setdefault("loop_arms_blocks", {}) if ctx is not None else {}
    found = store.get(id(loop))
    if found is not None and found[0] is loop:
        return found[1], found[2]
    positions: dict[int, tuple[list, int, ast.AST]] = {}
    assigned: dict[tuple[int, str], object] = {}
    stack: list[tuple[object, ast.AST]] = [(getattr(loop, "body", None), loop)]
    while stack:
        statements, owner = stack.pop()
        if not isinstance(statements, list):
            continue
        for index, child in enumerate(statements):
            positions[id(child)] = (statements, index, owner)
            if isinstance(child, ast.Assign) and len(child.targets) == 1:
                assigned.setdefault((id(statements), ast.unparse(child.targets[0])), []).append(index)
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            stack.extend((getattr(child, f, None), child) for f in _BLOCKS)
            stack.extend((h.body, child) for h in getattr(child, "handlers", ()))
    store[id(loop)] = (loop, positions, assigned)
    return positions, assigned


def _long_window(value: ast.AST, text: str) -> bool:
    """``text[:, -n:]`` / ``text[-n:]`` with ``n`` a name or attribute (``self.max_seq_len``), every other part of the
    index whole (``:``): the last ``n`` steps kept, ``n`` a configured context length (a constant cuts it to a short
    window of fixed length: ``ids[:, -10:]`` stops growing at once)."""
    if not isinstance(value, ast.Subscript) or ast.unparse(value.value) != text:
        return False
    parts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
    if not parts or not all(isinstance(p, ast.Slice) for p in parts):
        return False
    *whole, last = parts
    if any(p.lower is not None or p.upper is not None or p.step is not None for p in whole):   # type: ignore
        return False
    lower = last.lower   # type: ignore[attr-defined]
    return last.upper is None and last.step is None and isinstance(lower, ast.UnaryOp) \
        and isinstance(lower.op, ast.USub) and isinstance(lower.operand, (ast.Name, ast.Attribute))  # type: ignore


def _conditional_resets(loop: ast.AST, text: str) -> set[int]:
    """The assignments of a fresh value to ``text`` (one that does not read it: ``acc = torch.Tensor([])``, ``acc =
    preds``) when some path through the loop's body assigns none of them (each sits in an arm of a test whose other
    arm, or a ``continue`` before it, lets the iteration end without one): a buffer emptied when a test says so
    (gradient accumulation flushed once enough samples are in), carried and grown by the iterations in between.
    Empty when every iteration assigns one (``if c: acc = a`` / ``else: acc = b``; ``acc = x`` unconditionally), or
    when a test of a period (``if i % 8:``) or a random draw restarts it, whatever its length: a few short lengths.
    A value cut from itself (``acc = acc[-n:]``) is no reset."""
    body = getattr(loop, "body", None)
    if not isinstance(body, list):
        return set()
    assigned, restarting, answers = _loop_assignments(loop)
    found = answers.get(text)
    if found is None:
        fresh = {id(child) for child in assigned.get(text, ()) if _fresh(child, text)}
        if not fresh or any(any(id(n) in fresh for n in walk(node)) for node in restarting):
            found = set()   # ``if i % 8: h = cat([h, a]) else: h = a``: restarted on a period or by a draw, short
        else:
            found = fresh if _may_skip(body, fresh) else set()
        answers[text] = found
    return found


# A loop's single-target assignments by target text, its ``if`` statements testing a period or a random draw, and
# the answers for each name: made once a loop (rules ask again for each concatenation of the name in it), keyed by
# ``id`` with the loop itself kept so that an ``id`` reused by a later file's node never matches; emptied when large.
_LOOPS: dict[int, tuple[ast.AST, dict[str, list[ast.Assign]], list[ast.If], dict[str, set[int]]]] = {}


def _loop_assignments(loop: ast.AST) -> tuple[dict[str, list[ast.Assign]], list[ast.If], dict[str, set[int]]]:
    """The loop's assignments by target text, its restarting tests, and the answers of
    :func:`_conditional_resets` so far (by name)."""
    kept = _LOOPS.get(id(loop))
    if kept is None or kept[0] is not loop:
        if len(_LOOPS) > 512:
            _LOOPS.clear()
        assigned: dict[str, list[ast.Assign]] = {}
        restarting: list[ast.If] = []
        for child in walk(loop):
            if isinstance(child, ast.Assign) and len(child.targets) == 1:
                assigned.setdefault(ast.unparse(child.targets[0]), []).append(child)
            elif isinstance(child, ast.If) and any(_drawing(n) or (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod))
                                                   for n in walk(child.test)):
                restarting.append(child)
        kept = _LOOPS[id(loop)] = (loop, assigned, restarting, {})
    return kept[1], kept[2], kept[3]


def _fresh(node: ast.Assign, text: str) -> bool:
    """``text = value`` (a single-target assignment to ``text``) where ``value`` does not read ``text``."""
    return not any(ast.unparse(n) == text for n in walk(node.value)
                   if isinstance(n, (ast.Name, ast.Attribute, ast.Subscript)))


def _may_skip(statements: list, fresh: set[int]) -> bool:
    """Some path through ``statements`` reaches their end (or a ``continue``) without running one of the ``fresh``
    assignments: True; False when every path runs one (or leaves by ``break``, ``return``, ``raise``)."""
    for statement in statements:
        if id(statement) in fresh or isinstance(statement, (ast.Break, ast.Return, ast.Raise)):
            return False
        if isinstance(statement, ast.Continue):
            return True
        if isinstance(statement, ast.If):
            if not (_may_skip(statement.body, fresh) or _may_skip(statement.orelse, fresh)):
                return False
        elif isinstance(statement, (ast.With, ast.AsyncWith, ast.Try)):
            if not _may_skip(statement.body, fresh):
                return False
    return True


def _handed_back(statement: ast.Assign, text: str, ctx: FileContext) -> bool:
    """``a, x, b = helper(..., x, ...)`` where the file's ``helper`` gives back its parameter ``x`` at that place
    unchanged or only rearranged (the model's `kept_parameter`: finished rows dropped, the steps kept)."""
    call = statement.value
    if len(statement.targets) != 1 or not isinstance(call, ast.Call) or ctx.resolver.scopes is None:
        return False
    target = statement.targets[0]
    if ast.unparse(target) == text:
        position = -1
    elif isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in target.elts):
        position = next((i for i, e in enumerate(target.elts) if ast.unparse(e) == text), -2)
        if position < 0:
            return False
    else:
        return False
    function = ctx.enclosing_any(statement, FUNCTION_TYPES)
    scope = ctx.resolver.scopes.scope_of(function) if function is not None else ctx.resolver.scopes.module
    found = ctx.resolver.callee(call, scope) if scope is not None else None
    if found is None:
        return False
    index = ctx.resolver.kept_parameter(found[0], position)
    if index is None:
        return False
    index -= found[1]
    if 0 <= index < len(call.args):
        passed: Optional[ast.AST] = call.args[index]
        if any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
            return False
    else:
        return False
    return passed is not None and ast.unparse(passed) == text


def _aliases(loop: ast.AST, text: str) -> list[str]:
    """The names the loop binds (only) to ``text`` rearranged (``predictions = alive_seq.view(-1, k, n)``): the same
    steps under another name, which a beam search keeps its unfinished rows of and stores back."""
    return [name for name, values in _bound_in_loop(loop).items() if name != text and all(
        v is not None and rearranged(v.value, text) for v in values)]


@lru_cache(maxsize=256)   # one walk per loop, whatever the number of concatenations asked about
def _bound_in_loop(loop: ast.AST) -> dict[str, list[Optional[ast.Assign]]]:
    """Each name the loop assigns, with the plain ``name = value`` statements binding it (None for any other
    binding: a tuple target, an augmented assignment)."""
    bound: dict[str, list[Optional[ast.Assign]]] = {}
    for child in walk(loop):
        if isinstance(child, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = child.targets if isinstance(child, ast.Assign) else [child.target]
            for target in targets:
                for n in walk(target):
                    if isinstance(n, ast.Name):
                        bound.setdefault(n.id, []).append(child if isinstance(child, ast.Assign)
                                                          and len(child.targets) == 1 and child.targets[0] is n
                                                          else None)
    return bound


def _first_arms(loop: ast.AST, text: str) -> set[int]:
    """The nodes of the arms that run only while ``text`` is still unset (``if out is None: out = y``, ``else``
    of ``if out is not None``): the first iteration's start, not a reset."""
    return _unset_arms(loop).get(text, set())


@lru_cache(maxsize=256)   # one walk per loop, whatever the number of names asked about
def _unset_arms(loop: ast.AST) -> dict[str, set[int]]:
    """For each value a test ``if <value> is None`` / ``is not None`` in the loop names, the nodes of its arm that
    runs while the value is unset."""
    found: dict[str, set[int]] = {}
    for child in walk(loop):
        if not isinstance(child, ast.If) or not isinstance(child.test, ast.Compare) or len(child.test.ops) != 1 \
                or not isinstance(child.test.comparators[0], ast.Constant) \
                or child.test.comparators[0].value is not None:
            continue
        arm = child.body if isinstance(child.test.ops[0], ast.Is) else \
            child.orelse if isinstance(child.test.ops[0], ast.IsNot) else []
        found.setdefault(ast.unparse(child.test.left), set()).update(
            id(n) for statement in arm for n in walk(statement))
    return found


# Tensor methods that rearrange, copy or repeat a tensor and keep every step it holds (beam search rebuilds its
# prefixes with them: ``prefixes.unsqueeze(1).repeat(1, k, 1)``, ``.view(b, k * k, -1)``, ``.gather(1, ids)``).
def stored_back(statement: ast.Assign, elements: list[ast.expr], ctx: FileContext) -> Optional[ast.Assign]:
    """``t = cat([xs[j], y])`` followed in the same block by ``xs[j] = t.view(...).gather(...)``: the later
    assignment, which stores the grown tensor back into one of the concatenated operands; None otherwise."""
    target = statement.targets[0]
    block = next((getattr(ctx.parent(statement), f) for f in ("body", "orelse", "finalbody")
                  if statement in getattr(ctx.parent(statement), f, ())), None)
    if not isinstance(target, ast.Name) or block is None:
        return None
    operands = {ast.unparse(e) for e in elements}
    for later in block[block.index(statement) + 1:]:
        if isinstance(later, ast.Assign) and len(later.targets) == 1 \
                and ast.unparse(later.targets[0]) in operands and rearranged(later.value, target.id):
            return later
    return None


def step_loop(loop: Optional[ast.AST], target: ast.AST, ctx: FileContext) -> Optional[ast.AST]:
    """The loop in which ``target`` grows: for ``xs[layer] = cat([xs[layer], y])`` under ``for layer in ...``
    (each element concatenated once per pass), the loop around that one; else ``loop``."""
    while isinstance(loop, ast.For) and isinstance(target, ast.Subscript) \
            and {n.id for n in walk(loop.target) if isinstance(n, ast.Name)} \
            & {n.id for n in walk(target.slice) if isinstance(n, ast.Name)}:
        loop = ctx.enclosing(loop, (ast.For, ast.While, *FUNCTION_TYPES))
    return loop
