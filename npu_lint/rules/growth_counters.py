"""NPU408, broad path (session 25, growth25): a slice bound that follows a counter the loop advances at every step.

``x[:, :t + 1]`` in ``for t in range(n)`` is NPU408's already (the loop's own counter). The same growth when the
position is a name of the function the loop advances itself: ``curr_pos += 1`` (or ``pos = pos + k``) as a
statement of the loop's body, run at every step, while ``masks[:, :curr_pos + 1, :curr_pos + 1]`` or
``input_pos[:, :curr_pos + 1]`` reads a prefix up to it (torchtune's decoding without a cache; a ``while pos <
n:`` loop feeding ``model(ids[:, :pos])``). One shape per step.

The loop is one of steps (a ``range`` / ``count`` / ``tqdm`` of steps, or a ``while``); the counter is advanced by
an addition in the loop body's own statements (not under a test: a step that may not advance is another question)
and bound nowhere else in the loop; the slice is a prefix (no lower bound, a constant one, or one the loop keeps)
on one axis or more (a square mask ``m[:, :p, :p]``), of a tensor (or of a value of unknown kind given a tuple index: only arrays take one) the loop
does not rebind. A window whose both ends move (``x[start:pos]`` with ``start = pos`` each step) keeps its width
and is left alone.
The same holds for a size read of the sequence the loop grows (``cur_len = out.shape[1]`` at the top of a
decoding loop that ends with ``out = cat((out, nxt), -1)``; ``len(ids)``, ``ids.size(-1)``): a length one step
longer at every iteration, whatever the loop counts (:func:`growing_lengths`, :func:`follows_length`).
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext


def _names(node: ast.AST) -> set[str]:
    return {child.id for child in walk(node) if isinstance(child, ast.Name)}


def _advanced_names(loop: ast.AST) -> frozenset[str]:
    """Names the loop's own body statements advance by an addition at every step, bound nowhere else in it."""
    advanced: set[str] = set()
    for statement in loop.body:   # type: ignore[attr-defined]
        if isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add) \
                and isinstance(statement.target, ast.Name):
            advanced.add(statement.target.id)
        elif isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Name) and isinstance(statement.value, ast.BinOp) \
                and isinstance(statement.value.op, ast.Add) and isinstance(statement.value.left, ast.Name) \
                and statement.value.left.id == statement.targets[0].id:
            advanced.add(statement.targets[0].id)
    if not advanced:
        return frozenset()
    counts = _bindings_in(loop, advanced)
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        loop_names = _names(loop.target)
        counts = {k: v + (1 if k in loop_names else 0) for k, v in counts.items()}
    return frozenset(name for name in advanced if counts.get(name, 0) == 1)


def advanced_prefix(node: ast.Subscript, elements: list, loop: ast.AST, ctx: FileContext,
                    stays) -> Optional[str]:
    """The counter a prefix of ``node`` follows (for the message), else None. ``stays(bound, loop, counter)``: the
    rule's test that a lower bound keeps its value from one step to the next."""
    counters = ctx.per_node("growth_counters", loop, _advanced_names)
    if not counters:
        return None
    for counter in counters:
        moving = [s for s in elements if isinstance(s, ast.Slice) and s.step is None and s.upper is not None
                  and counter in _names(s.upper)
                  and (s.lower is None or isinstance(s.lower, ast.Constant) or stays(s.lower, loop, counter))]
        if moving and not any(counter in _names(e) for e in elements if not any(e is m for m in moving)):
            return counter
    return None


def growth_axes(loop: ast.AST, grown: str) -> frozenset[int]:
    """The axes along which the loop's own ``grown = cat([grown, ...], dim)`` joins (``dim`` a constant, 0 when left
    out; an axis of 1 or -1 stands for both: the token axis of a ``(batch, length)`` sequence)."""
    axes: set[int] = set()
    for node in walk(loop):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name) \
                or node.targets[0].id != grown or not isinstance(node.value, ast.Call) or not node.value.args:
            continue
        call = node.value
        dim = next((k.value for k in call.keywords if k.arg in ("dim", "axis")), call.args[1] if len(call.args) > 1
                   else ast.Constant(0))
        if isinstance(dim, ast.UnaryOp) and isinstance(dim.op, ast.USub) and isinstance(dim.operand, ast.Constant):
            dim = ast.Constant(-dim.operand.value)
        if isinstance(dim, ast.Constant) and type(dim.value) is int:
            axes.add(dim.value)
    if axes & {1, -1}:
        axes |= {1, -1}
    return frozenset(axes)


def _axis(node: ast.AST) -> Optional[int]:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return -node.operand.value if type(node.operand.value) is int else None
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def size_read_of(node: ast.AST, grown: str, axes: frozenset[int] = frozenset({0})) -> bool:
    """``grown.shape[k]``, ``grown.size(k)``, ``len(grown)`` (axis 0) for ``k`` an axis the loop grows it along: a
    size of the sequence itself (``out.shape[0]``, the batch, of a sequence grown along axis 1 is none)."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        return isinstance(node.value.value, ast.Name) and node.value.value.id == grown and _axis(node.slice) in axes
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size":
        return isinstance(node.func.value, ast.Name) and node.func.value.id == grown and len(node.args) == 1 \
            and _axis(node.args[0]) in axes
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
        and len(node.args) == 1 and isinstance(node.args[0], ast.Name) and node.args[0].id == grown and 0 in axes


def growing_lengths(loop: ast.AST, grown: str, axes: frozenset[int]) -> frozenset[str]:
    """Names the loop's own body statements bind, at every step and nowhere else in the loop, to a size read of
    ``grown``, the sequence the loop grows, along an axis it grows (``cur_len = out.shape[1]``, ``n = ids.size(-1) +
    1``): a length one step longer at every iteration. Not a name read back from a tensor or indexing anything else."""
    found: set[str] = set()
    for statement in loop.body:   # type: ignore[attr-defined]
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Name) \
                and any(size_read_of(n, grown, axes) for n in walk(statement.value)) \
                and not any(isinstance(n, (ast.Subscript, ast.Call)) and not size_read_of(n, grown, axes)
                            and not _inside_read(n, statement.value, grown, axes) for n in walk(statement.value)):
            found.add(statement.targets[0].id)
    if not found:
        return frozenset()
    counts = _bindings_in(loop, found)
    return frozenset(name for name in found if counts.get(name, 0) == 1)


def _bindings_in(loop: ast.AST, names: set[str]) -> dict[str, int]:
    """How many times the loop (its own header included) binds each of ``names``."""
    counts: dict[str, int] = {}
    for node in walk(loop):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr, ast.For, ast.AsyncFor, ast.comprehension)):
            targets = [node.target]
        for target in targets:
            for name in walk(target):
                if isinstance(name, ast.Name) and name.id in names:
                    counts[name.id] = counts.get(name.id, 0) + 1
    return counts


def _inside_read(node: ast.AST, value: ast.AST, grown: str, axes: frozenset[int]) -> bool:
    """``node`` lies inside a size read of ``value`` (the ``.shape`` attribute's own parts)."""
    return any(size_read_of(read, grown, axes) and any(n is node for n in walk(read)) for read in walk(value))


def follows_length(node: ast.AST, lengths: frozenset[str], grown: str, axes: frozenset[int]) -> Optional[str]:
    """The growing length ``node`` reads (a name of :func:`growing_lengths` or a size read of ``grown`` along an axis
    it grows, written in it), for the message; None when it reads none."""
    for sub in walk(node):
        if isinstance(sub, ast.Name) and sub.id in lengths:
            return sub.id
        if size_read_of(sub, grown, axes):
            return ast.unparse(sub)
    return None
