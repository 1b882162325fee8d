"""Loops whose path follows the data through their carried state (NPU413, NPU414): an ``if`` on a tensor's value
whose arms only rebind names the loop carries into its next iteration (an adaptive solver's accept/reject: ``if
error_ratio <= 1: t, y = t + dt, y_new``), and a ``while`` loop left by ``break`` on a tensor's value (a
fixed-point or Newton iteration: ``while True: ... if (delta.abs() < tol).all(): break``). A name bound only to a
comparison with a tensor (``accept = err <= 1``, ``accept = False`` in another arm) is a 0-d flag an ``if`` reads
back. Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import children as _children   # ``ast.iter_child_nodes``, as a list
from npu_lint.analysis import kinds as K
from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES
from npu_lint.rules.branch_arms import tensor_work
from npu_lint.rules.training_loops import trains
from npu_lint.rules.read_backs import drawn

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES = (*FUNCTION_TYPES, ast.ClassDef, ast.Lambda)


def _rebound(statement: ast.stmt) -> Optional[list[str]]:
    """The names a statement of an arm rebinds (``t, y = t + dt, y_new``, ``dt *= 0.5``), or None when it does
    anything else (a call, a write into a container, a return)."""
    if isinstance(statement, ast.Pass) or (isinstance(statement, ast.AugAssign) and isinstance(
            statement.target, (ast.Subscript, ast.Attribute)) and isinstance(statement.value, ast.Constant)):
        return []   # ``info["n_accept"] += 1``: a counter
    if isinstance(statement, ast.Assign):
        targets: list[ast.AST] = list(statement.targets)
    elif isinstance(statement, (ast.AugAssign, ast.AnnAssign)) and statement.value is not None:
        targets = [statement.target]
    else:
        return None
    names: list[str] = []
    for target in targets:
        elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
        if not all(isinstance(e, ast.Name) for e in elements):
            return None
        names += [e.id for e in elements]   # type: ignore[attr-defined]
    return names


def _statements(loop: ast.AST, skip: ast.AST) -> list[ast.stmt]:
    """The simple statements of the loop's body (not compound ones, not those inside ``skip`` or a nested scope)."""
    found: list[ast.stmt] = []
    stack: list[ast.AST] = list(getattr(loop, "body", []))
    while stack:
        node = stack.pop()
        if node is skip or isinstance(node, _SCOPES):
            continue
        if isinstance(node, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)):
            stack.extend(s for field in ("body", "orelse", "finalbody", "handlers") for s in getattr(node, field, []))
        elif isinstance(node, ast.ExceptHandler):
            stack.extend(node.body)
        elif isinstance(node, ast.stmt):
            found.append(node)
    return found


def carried_state(node: ast.If, ctx: FileContext) -> Optional[tuple[list[str], ast.AST]]:
    """(the names, the loop) when every statement of the ``if``'s arms rebinds names, one of which the enclosing
    loop (of a function, not a training loop) reads, before the ``if``, in a statement that runs tensor operators
    (``y = y_new`` then ``k1 = f(t, y)`` at the top of the body): which values the next iteration computes on is
    decided on the host (a value clamped for the rest of the same iteration is not); else None."""
    loop = ctx.enclosing(node, (*_LOOPS, *FUNCTION_TYPES))
    if not isinstance(loop, _LOOPS) or ctx.enclosing(loop, FUNCTION_TYPES) is None or trains(loop, ctx):
        return None
    names: list[str] = []
    for statement in node.body + node.orelse:
        rebound = _rebound(statement)
        if rebound is None:
            return None
        names += [n for n in rebound if n not in names]
    if not names:
        return None
    earlier = [s for s in _statements(loop, node) if s.lineno < node.lineno]   # what the next iteration runs first
    consumed = [n for n in names if any(_reads(s, n) and tensor_work(s, ctx) for s in earlier)]
    return (consumed, loop) if consumed else None


def _reads(statement: ast.stmt, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in walk(statement))


def tensor_flag(side: ast.AST, ctx: FileContext) -> bool:
    """A name the function binds only to constants and to comparisons with a value the model knows is a tensor
    (``accept = err <= 1``, ``accept = False`` in a later test): a 0-d bool tensor an ``if`` on it reads back."""
    resolver = ctx.resolver
    if not isinstance(side, ast.Name) or resolver.scopes is None:
        return False
    scope = resolver.current
    bindings = resolver.scopes.may_reach(side.id, scope, (side.lineno, side.col_offset))
    if not bindings or any(b.tag != "value" or b.path or b.scope is not scope or not isinstance(b.value, ast.AST)
                           for b in bindings):
        return False
    compared = [b.value for b in bindings if not isinstance(b.value, ast.Constant)]
    return bool(compared) and all(
        isinstance(v, ast.Compare) and not any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in v.ops)
        and any(resolver.kind_of_at(s, scope) in K.TENSORS for s in (v.left, *v.comparators))
        and not drawn(v, ctx) for v in compared)   # ``skip = torch.rand([]) < p``: a layer-drop coin flip


def while_break_works(node: ast.If, loop: ast.While, ctx: FileContext) -> bool:
    """A ``break`` on the ``if`` ends a ``while`` loop of a function (not a training loop) whose body runs tensor
    operators or calls outside the ``if`` (``z_next = g(z)``): how many times they run is the test's."""
    if ctx.enclosing(loop, FUNCTION_TYPES) is None or trains(loop, ctx):
        return False
    return any(tensor_work(s, ctx) or any(isinstance(n, ast.Call) for n in walk(s)) for s in _statements(loop, node))


def while_on_tensor(loop: ast.While, ctx: FileContext) -> Optional[ast.AST]:
    """The value a name the ``while`` test compares is rebound to in the loop when the model says it is a tensor
    (``while s > t_end:`` with ``s = t`` and ``t = torch.maximum(t_end, s + h)``): from the second iteration the
    test reads a tensor's value; else None."""
    resolver = ctx.resolver
    tests = loop.test.values if isinstance(loop.test, ast.BoolOp) else [loop.test]
    for test in tests:
        if not isinstance(test, ast.Compare) or any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn))
                                                    for op in test.ops):
            continue
        for side in (test.left, *test.comparators):
            if not isinstance(side, ast.Name):
                continue
            for value in _rebound_values(loop, side.id):
                if resolver.kind_of_at(value, resolver.current) in K.TENSORS \
                        and resolver.kind_of_at(value, resolver.current) != K.MASK:
                    return value
    return None


def _rebound_values(loop: ast.While, name: str) -> list[ast.AST]:
    """The values ``name`` is assigned in the loop's body (``s = t``; not in nested scopes)."""
    found: list[ast.AST] = []
    for statement in _statements(loop, loop):
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.AST):
            for target in statement.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    found.append(statement.value)
    return found


def expression_work(arm: ast.AST, ctx: FileContext) -> bool:
    """An arm of a conditional expression computes a tensor (a call or arithmetic the model says gives one), not
    counting the tests of conditional expressions nested in it (``a if m[0, j] else b if j else c``)."""
    resolver = ctx.resolver
    stack: list[ast.AST] = [arm]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.IfExp):
            stack += [node.body, node.orelse]
            continue
        if isinstance(node, (ast.Call, ast.BinOp)) and resolver.kind_of(node) in K.TENSORS:
            return True
        if isinstance(node, ast.Call) and tensor_work(node, ctx):   # type: ignore[arg-type]
            return True   # the file's own helper that runs tensor operators
        if not isinstance(node, (ast.Lambda, *_SCOPES, ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.SetComp)):
            stack.extend(_children(node))
    return False

