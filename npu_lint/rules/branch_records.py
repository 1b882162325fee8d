"""NPU414's question before reporting a branch on a tensor's value (session 25, precision25): do the arms compute
any tensor at all, or only record values already computed and write in place?

``if ml != 0: self.summaries["MaskLoss"].append(ml.detach())`` (deepfilternet's loss summaries) and ``if
probs.sum() > 1: probs.div_(probs.sum())`` (torchdistill's sampler set-up) read a tensor's value, but no shape
after them depends on it: one arm keeps a value that exists already (appended, logged), the other nothing, and an
in-place operator keeps its tensor's shape, as does a write into part of a tensor (``if torch.any(tmp): xmin[tmp]
= -xmax[tmp]``, GPTQ's quantizer calibration; session 26). The operators the step runs and every shape they make
are the same either way, so there is no second graph: reviewers judge such branches no dynamic shape. An arm that builds a new
tensor (``spans.append(torch.stack([cs, ce], 1))``), assigns, returns, or calls anything else is tensor work, as
before.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis import kinds as K
from npu_lint.context import FileContext
from npu_lint.rules.read_backs import training_step

# a container's methods that keep a value given them
_RECORDING = frozenset({"append", "appendleft", "extend", "add", "insert"})
# reporting calls: a logger's, ``print``
_REPORTING = frozenset({"print", "debug", "info", "warning", "warn", "error", "log"})
# conversions that hand back the value itself (a view, a copy, a number)
_KEEPING = frozenset({"detach", "item", "cpu", "clone", "tolist", "float", "double", "numpy"})
# in-place operators that change their tensor's shape
_RESHAPING = frozenset({"resize_", "resize_as_", "set_", "squeeze_", "unsqueeze_", "t_", "transpose_", "swapdims_",
                        "swapaxes_", "as_strided_"})


def _kept(value: ast.AST) -> bool:
    """A value already computed: a name, an attribute, a constant, or one of :data:`_KEEPING` of such."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _KEEPING \
            and not value.args and not value.keywords:
        value = value.func.value
    return isinstance(value, (ast.Name, ast.Attribute, ast.Constant))


def _in_place(call: ast.Call) -> bool:
    """``probs.div_(probs.sum())``: a tensor's in-place operator (torch's trailing underscore) on a name or an
    attribute, which keeps the tensor's shape."""
    func = call.func
    return isinstance(func, ast.Attribute) and func.attr.endswith("_") and not func.attr.startswith("_") \
        and func.attr not in _RESHAPING and isinstance(func.value, (ast.Name, ast.Attribute))


def _written_in_place(statement: ast.stmt, ctx: Optional[FileContext]) -> bool:
    """``xmin[tmp] = -xmax[tmp]``, ``self.scale[tmp] = s[tmp]``, ``x[m] += 1``: a write into an element, a row or a
    masked part of a tensor already held (a name or an attribute the model knows as a tensor): it keeps its shape,
    whatever torch computes for the written part (a selection by the mask is reported on its own line). Not a
    value a module or a helper of the project computes for some batches only, nor a write into a container
    (``self.indices[idx] = transform(batch[idx])`` stores a value of a new shape), nor without ``ctx``."""
    if ctx is None:
        return False
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target] \
        if isinstance(statement, ast.AugAssign) else []
    if not targets:
        return False
    for target in targets:
        if not isinstance(target, ast.Subscript) or isinstance(target.slice, ast.Slice):
            return False
        root = target.value
        while isinstance(root, ast.Subscript):
            root = root.value
        if not isinstance(root, (ast.Name, ast.Attribute)) \
                or ctx.resolver.kind_of(target.value) not in K.TENSORS:
            return False
    return all(_torch_call(n, ctx) for n in ast.walk(statement) if isinstance(n, ast.Call))


def _torch_call(call: ast.Call, ctx: FileContext) -> bool:
    """A torch function or a tensor's method (``.to(dtype)``, ``.argmax(0)``): not a module, an expert or a helper
    of the project run for some batches only (``y[m] = expert(x[m])``, ``sdf[valid] = evaluate(pts[valid])``)."""
    func = call.func
    if (ctx.resolver.qualname(func) or "").startswith("torch."):
        return True
    return isinstance(func, ast.Attribute) and ctx.resolver.kind_of(func.value) in K.TENSORS


def _records(statement: ast.stmt, ctx: Optional[FileContext] = None) -> bool:
    if isinstance(statement, ast.Pass) or _written_in_place(statement, ctx):
        return True
    if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Call):
        return False
    call = statement.value
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name in _RECORDING and isinstance(func, ast.Attribute):
        return all(_kept(a) for a in call.args)
    if name in _REPORTING:
        return True
    return _in_place(call)


def records_only(node: ast.If, ctx: Optional[FileContext] = None) -> bool:
    """Every statement of both arms of ``node`` records a value already computed, reports, or writes in place (into
    part of a tensor: with ``ctx``, which knows the tensors)."""
    arms = node.body + node.orelse
    return bool(arms) and all(_records(s, ctx) for s in arms)


_STEP_METHODS = frozenset({"step", "zero_grad", "update", "backward", "unscale_"})


def _steps(statement: ast.stmt, function: Optional[ast.AST], ctx: FileContext) -> bool:
    """``loss.backward()``, ``opt.step()``, ``opt.zero_grad()``, ``scaler.update()``, ``sched.step()``: the training
    step's own calls (of a loss, or of an optimizer, scaler or scheduler the model knows), or a record of a value."""
    if _records(statement, ctx):
        return True
    if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Call):
        return False
    call = statement.value
    if training_step(call, function, ctx):
        return True
    func = call.func
    return isinstance(func, ast.Attribute) and func.attr in _STEP_METHODS \
        and ctx.resolver.kind_of(func.value) in (K.OPTIMIZER, K.SCALER, K.SCHEDULER)


def steps_only(node: ast.If, function: Optional[ast.AST], ctx: FileContext) -> bool:
    """Session 33: the arms only run the training step's backward pass and update (``if loss.item() > 0:
    loss.backward(); opt.step()``), log or keep values: which operators run changes, no shape does (reviewers judge
    such branches no dynamic shape); at least one arm runs such a call."""
    arms = node.body + node.orelse
    return bool(arms) and all(_steps(s, function, ctx) for s in arms) \
        and not all(_records(s, ctx) for s in arms)
