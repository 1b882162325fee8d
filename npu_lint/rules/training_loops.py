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
        if n.func.attr == "step" and not _project_step(n, ctx) and not _result_used(n, ctx):
            return True
    return False


def _result_used(call: ast.Call, ctx: FileContext) -> bool:
    """``td = env.step(td)["next"]``, ``td = strategy.step(logits, mask, td)``: a ``step`` given arguments whose
    result the loop keeps is an environment's or a decoder's transition, not an optimizer's, a scheduler's or a
    scaler's (``opt.step()``, ``scaler.step(opt)``: statements of their own; LBFGS's ``opt.step(closure)`` is
    kept only when handed a closure). Round 3, branch21c: rl4co's decoding loops were taken for training loops."""
    if not call.args or any(isinstance(a, ast.Lambda) for a in call.args):
        return False
    if len(call.args) == 1 and isinstance(call.args[0], ast.Name) and "closure" in call.args[0].id:
        return False
    return not isinstance(ctx.parent(call), ast.Expr)


def _project_step(call: ast.Call, ctx: FileContext) -> bool:
    """``self.step(...)`` / ``solver.step(...)`` that the model resolves to the project's own method, or whose
    receiver it knows is no optimizer, scheduler or scaler."""
    if ctx.resolver.own_function(call) is not None:
        return True
    kind = ctx.resolver.kind_of(call.func.value)   # type: ignore[attr-defined]
    return kind is not None and kind not in _STEPPING


def trains_through_helper(loop: ast.AST, ctx: FileContext) -> bool:
    """The loop hands its batch to a function or method of the file whose body is a training step (``for batch
    in loader: self._step(batch)`` with ``loss.backward(); self.opt.step()`` in ``_step``): the step written
    once, called per batch. One call deep; a helper that back-propagates without stepping an optimizer (the
    gradients of an input, a saliency map) is no training step."""
    names = {n.id for n in walk(getattr(loop, "target", loop)) if isinstance(n, ast.Name)}
    for call in walk(loop):
        if not isinstance(call, ast.Call) or not any(
                isinstance(n, ast.Name) and n.id in names
                for argument in [*call.args, *(kw.value for kw in call.keywords)] for n in walk(argument)):
            continue
        own = ctx.resolver.own_function(call)
        if own is not None and isinstance(own[0], (ast.FunctionDef, ast.AsyncFunctionDef)) and _steps(own[0], ctx):
            return True
    return False


def _steps(function: ast.AST, ctx: FileContext) -> bool:
    """The function back-propagates and steps an optimizer, a scheduler or a scaler (``.step()`` not the project's)."""
    backward = stepped = False
    for n in walk(function):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            backward = backward or n.func.attr == "backward"
            stepped = stepped or (n.func.attr == "step" and not _project_step(n, ctx))
    return backward and stepped

