"""Where ``isinstance`` tests hold or are refuted: an ``if`` body (and its ``else`` arm, refuted), the rest of a block
after ``if not isinstance(x, T): return``, the arms of a conditional expression a statement gives a value. Recorded
per scope (``Scope.narrowed``) by the binder; asked by the receivers' narrowing."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.bindings import Position, Scope, _end, _start

_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def isinstance_tests(test: ast.AST, negated: bool = False, holds: bool = True) -> list[tuple[str, ast.AST, ast.AST]]:
    """``(key, tested, classinfo)`` for each ``isinstance(x, classinfo)`` a condition asserts (``holds``; False: the
    tests it refutes) of a name or of ``self.attr`` (key ``x`` / ``self.attr``; ``and`` chains; ``negated``: the
    condition is known false, so ``not isinstance(...)`` asserts it)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return isinstance_tests(test.operand, not negated, holds)
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And if not negated else ast.Or):
        return [found for value in test.values for found in isinstance_tests(value, negated, holds)]
    if negated != holds and isinstance(test, ast.Call) and isinstance(test.func, ast.Name) \
            and test.func.id == "isinstance" and len(test.args) == 2 and not test.keywords:
        tested = test.args[0]
        if isinstance(tested, ast.Name):
            return [(tested.id, tested, test.args[1])]
        if isinstance(tested, ast.Attribute) and isinstance(tested.value, ast.Name):
            return [(f"{tested.value.id}.{tested.attr}", tested, test.args[1])]
    return []


def _narrow(scope: Scope, node: ast.AST, block_end: Position = (0, 0)) -> None:
    """Record where the ``isinstance`` tests of an ``if`` (or of a conditional expression a statement gives
    a value) hold: its body, and after an ``if not isinstance(x, T): return`` the rest of the block."""
    test, body, orelse = node.test, node.body, node.orelse
    if isinstance(node, ast.If):
        ranges = [(_start(body[0]), _end(body[-1]), True, isinstance_tests(test)),
                  (_start(body[0]), _end(body[-1]), False, isinstance_tests(test, holds=False))]
        if orelse:   # ``if isinstance(x, T): ... else: x is no T``
            ranges.append((_start(orelse[0]), _end(orelse[-1]), False, isinstance_tests(test, True, holds=False)))
        if isinstance(body[-1], _EXITS) and not orelse:
            ranges.append((_end(node), block_end, True, isinstance_tests(test, negated=True)))
    else:   # ``y = x.cpu() if isinstance(x, torch.Tensor) else x``
        ranges = [(_start(body), _end(body), True, isinstance_tests(test)),
                  (_start(orelse), _end(orelse), False, isinstance_tests(test, True, holds=False))]
    for start, end, holds, tests in ranges:
        for key, tested, classinfo in tests:
            scope.narrowed.setdefault(key, []).append((start, end, classinfo, _start(tested), holds))


def _narrow_expression(value: Optional[ast.AST], scope: Scope) -> None:
    """``x.item() if isinstance(x, Tensor) else x`` as a statement's value, one of its call's arguments or an
    element of its tuple, list or dict (not deeper: the binder reads statements, not whole expressions)."""
    kind = type(value)
    if kind is ast.Call:
        candidates = [a for a in value.args if type(a) is ast.IfExp]
        candidates += [k.value for k in value.keywords if type(k.value) is ast.IfExp]
    elif kind is ast.IfExp:
        candidates = [value]
    elif kind is ast.Tuple or kind is ast.List:
        candidates = [e for e in value.elts if type(e) is ast.IfExp]
    elif kind is ast.Dict:
        candidates = [v for v in value.values if type(v) is ast.IfExp]
    else:
        return
    for candidate in candidates:
        while type(candidate) is ast.IfExp:   # ``a if isinstance(x, A) else b if isinstance(x, B) else c``
            _narrow(scope, candidate)
            candidate = candidate.orelse
