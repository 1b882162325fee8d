"""What makes a loop a training loop, asked the same way by every rule that needs it (NPU406's training loaders,
NPU413's data-dependent loops, NPU414's branches): the loop's body runs a backward pass or steps an optimizer,
a scheduler or a gradient scaler."""
from __future__ import annotations

import ast

from npu_lint.analysis import kinds as K
from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext


_STEPPING = (K.OPTIMIZER, K.SCHEDULER, K.SCALER)


def trains(loop: ast.AST, ctx: FileContext) -> bool:
    """The loop is a training loop: it calls ``.backward()``, or ``.step()`` of an optimizer, a scheduler, a
    gradient scaler or a receiver the model does not know; not a ``step`` the project defines (an ODE/SDE
    solver's ``self.step(t0, t1, y)``, an environment's ``env.step(action)`` of a project class)."""
    for n in walk(loop):
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)):
            continue
        if n.func.attr == "backward":
            return True
        if n.func.attr == "step" and not _project_step(n, ctx):
            return True
    return False


def _project_step(call: ast.Call, ctx: FileContext) -> bool:
    """``self.step(...)`` / ``solver.step(...)`` that the model resolves to the project's own method, or whose
    receiver it knows is no optimizer, scheduler or scaler."""
    if ctx.resolver.own_function(call) is not None:
        return True
    kind = ctx.resolver.kind_of(call.func.value)   # type: ignore[attr-defined]
    return kind is not None and kind not in _STEPPING
