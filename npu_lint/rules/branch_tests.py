"""The tests of NPU413's and NPU414's branches: which part of an ``if`` test reads a tensor's value (``fg.sum() == 0``,
``torch.any(m)``, ``x.item() < t``, a flag bound from one), numerical guards (``isnan`` / ``isfinite``) and what a
loop's jump cuts off. Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.configuration import built_state
from npu_lint.analysis.flows import DATA_SIZE
from npu_lint.analysis.nodes import child_nodes, walk
from npu_lint.analysis.scopes import VALUE
from npu_lint.analysis.size_sinks import last_name
from npu_lint.analysis.summaries_reads import compares_unknowns
from npu_lint.context import FileContext
from npu_lint.host_arrays import is_host_array, numpy_parameter
from npu_lint.rules.branch_arms import later
from npu_lint.rules.loop_state import tensor_flag
from npu_lint.rules.read_backs import drawn, host_random, host_test, item, read_back_name, whole_test_bindings

TESTS = frozenset({"torch.any", "torch.all", "torch.isnan", "torch.isinf", "torch.isfinite", "torch.equal"})


def may_read_value(test: ast.AST) -> bool:
    """A call or a value comparison somewhere in the test (a cheap look before asking the model)."""
    if isinstance(test, ast.UnaryOp):
        test = test.operand
    if isinstance(test, (ast.Name, ast.Attribute)):
        return True   # ``if accept:``, ``if self.done:``: a flag the model may trace to a value read back
    for node in walk(test):
        if isinstance(node, (ast.Call, ast.Subscript)) or (isinstance(node, ast.Compare) and not isinstance(
                node.ops[0], (ast.Is, ast.IsNot, ast.In, ast.NotIn))):
            return True
    return False


_GUARDS = frozenset({"isnan", "isinf", "isfinite", "isneginf", "isposinf", "nan_to_num"})


def guard(test: ast.AST) -> bool:
    """A numerical guard (``torch.isnan(loss).any()``, ``not torch.isfinite(x).all()``): a path that is not taken
    in a healthy run."""
    return any(isinstance(node, ast.Call) and last_name(node.func) in _GUARDS for node in walk(test))


def bound_guard(test: ast.AST, ctx: FileContext) -> bool:
    """A numerical guard kept in a name of the function (session 27): ``finite = torch.isfinite(cost)`` then ``if
    finite.all():`` / ``if finite.any():``, ``ok = torch.isfinite(c).all().item()`` then ``if not ok:``. A name of the
    test every binding of which, in the function, is a value holding a guard call (``isnan`` / ``isfinite`` ...)."""
    resolver = ctx.resolver
    scope = resolver.current
    if resolver.scopes is None or scope is None:
        return False
    for node in walk(test):
        if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)):
            continue
        bindings = resolver.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset))
        if bindings and all(b.tag == VALUE and not b.path and b.scope is scope and isinstance(b.value, ast.AST)
                            and _guard_value(b.value) for b in bindings):
            return True
    return False


def _guard_value(value: ast.AST) -> bool:
    """``torch.isfinite(x)``, ``torch.isnan(x).any()``, ``torch.isfinite(c).all().item()``, ``bool(...)`` /
    ``~`` / ``not`` of one: a guard call and nothing else (``torch.isfinite(x) & (x > 0)`` also tests the data)."""
    while True:
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.Not, ast.Invert)):
            value = value.operand
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "bool" \
                and len(value.args) == 1:
            value = value.args[0]
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and not value.args \
                and value.func.attr in ("all", "any", "item"):
            value = value.func.value
        else:
            break
    return isinstance(value, ast.Call) and last_name(value.func) in _GUARDS


def state_test(test: ast.AST, ctx: FileContext) -> bool:
    """Session 27: a test of the object's own constant state only (``(self.alpha > 0).any()`` with ``self.alpha =
    torch.tensor(alpha)`` in ``__init__``, later only moved: ``self.alpha = self.alpha.to(x.device)``): every value
    compared is a constant or a ``self`` attribute set when the object is built (``configuration.built_state``)."""
    resolver = ctx.resolver
    scope = resolver.current
    if scope is None:
        return False
    node = test
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("any", "all") \
            and all(isinstance(a, ast.Constant) for a in (*node.args, *(k.value for k in node.keywords))):
        node = node.func.value
    while isinstance(node, ast.UnaryOp):
        node = node.operand
    sides = [node.left, *node.comparators] if isinstance(node, ast.Compare) else [node]
    return any(isinstance(side, ast.Attribute) for side in sides) and all(
        isinstance(side, ast.Constant) or (isinstance(side, ast.Attribute) and built_state(side, resolver, scope))
        for side in sides)


def numpy_tested(test: ast.AST, ctx: FileContext) -> bool:
    """Session 27: every value the test reads through a method (``masks.max() > 0``, ``(cellprob > t).sum()``) or
    measures (``logits.shape[0] == 0``, ``len(x)``) is a parameter the function uses as a numpy array elsewhere
    (``masks.astype(...)``, ``np.nonzero(cellprob > t)``): a test of host arrays, no tensor value read back."""
    roots = []
    for node in walk(test):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            receiver = node.func.value
        elif isinstance(node, ast.Attribute) and node.attr == "shape":
            receiver = node.value   # ``logits.shape[0] == 0``
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
                and len(node.args) == 1:
            receiver = node.args[0]
        else:
            continue
        while True:
            if isinstance(receiver, ast.Compare) and len(receiver.comparators) == 1:
                receiver = receiver.left
            elif isinstance(receiver, ast.UnaryOp):
                receiver = receiver.operand
            elif isinstance(receiver, ast.Subscript):
                receiver = receiver.value
            elif isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute):
                receiver = receiver.func.value
            else:
                break
        roots.append(receiver)
    return bool(roots) and all(numpy_parameter(root, ctx) for root in roots)


def runs_after(node: ast.If, loop: ast.AST, ctx: FileContext) -> bool:
    """The loop's body runs a call after the ``if`` (what the jump skips)."""
    return any(isinstance(n, ast.Call) for s in later(node, loop, ctx) for n in walk(s))


def calls_in(loop: ast.AST, node: ast.If) -> bool:
    """The loop's body makes a call outside the ``if``: what the later iterations a ``break`` cuts off would run."""
    stack: list[ast.AST] = [s for s in loop.body if s is not node]
    while stack:
        current = stack.pop()
        if current is node:
            continue
        if isinstance(current, ast.Call):
            return True
        stack.extend(child_nodes(current))
    return False


def read_item(node: ast.AST, ctx: FileContext) -> bool:
    """``t.item()``: a value read back from a tensor, the receiver a tensor the model knows or one of no kind it can
    tell that is no evident host array, computed in the function by a call (``next_token = self.gen_next_token(t)``
    then ``next_token[0].item()``: what a decoding helper returns; a numpy scalar's ``item`` needs a numpy value,
    which the model or the code's numpy calls show; a parameter's ``item`` stays unknown)."""
    if item(node, ctx):
        return True
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "item"
            and not node.args and not node.keywords):
        return False
    receiver = node.func.value
    if ctx.resolver.value_of(receiver) is not None or is_host_array(receiver, ctx, node):
        return False
    root = receiver
    while isinstance(root, (ast.Subscript, ast.Attribute, ast.Call)):
        root = root.func if isinstance(root, ast.Call) else root.value
    scopes = ctx.resolver.scopes
    if not isinstance(root, ast.Name) or scopes is None:
        return False
    bindings = scopes.lookup_reaching(root.id, ctx.resolver.current, (root.lineno, root.col_offset))
    return bool(bindings) and all(   # computed in the function by a call (not a parameter: what callers pass)
        b.tag == VALUE and b.scope is ctx.resolver.current and isinstance(b.value, ast.AST)
        and any(isinstance(n, ast.Call) for n in walk(b.value)) for b in bindings)


def _host_count(side: ast.AST, ctx: FileContext) -> bool:
    """``len(small)`` of a value the model proves a host array (``small = np.where(v < t)[0]``): numpy's count, no
    tensor's (session 24: nougat-ocr on held-out code, a false NPU414)."""
    value = side.args[0] if isinstance(side, ast.Call) and isinstance(side.func, ast.Name) and side.func.id == "len" \
        and len(side.args) == 1 else side
    return is_host_array(value, ctx, value)


def tensor_test(test: ast.AST, ctx: FileContext, bare_names: bool = True) -> Optional[ast.AST]:
    """The part of an ``if`` test that reads a tensor's value (``fg.sum() == 0``, ``torch.any(m)``,
    ``x.item() < t``), or None; ``bare_names`` False: not a name or attribute alone (``if mask:``)."""
    resolver = ctx.resolver
    operands = _operands(test)
    for operand in operands:
        inner = operand.operand if isinstance(operand, ast.UnaryOp) and isinstance(operand.op, ast.Not) else operand
        inner = inner.value if isinstance(inner, ast.NamedExpr) else inner   # ``if (single := x.ndim == 2):``
        if isinstance(inner, ast.Compare):
            sides = (inner.left, *inner.comparators)
            if len(inner.ops) == 1 and isinstance(inner.ops[0], (ast.In, ast.NotIn)) and read_item(inner.left, ctx):
                return operand   # ``if new_id.item() in stop_ids:``: the membership test reads the value
            if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in inner.ops) \
                    or any(isinstance(s, ast.Constant) and s.value is None for s in sides):
                continue   # ``if out == None:``: a tensor compared with None is Python's ``False``, no value read
            if any(host_random(s, ctx) or (isinstance(s, ast.Name) and drawn(s, ctx)) for s in sides):
                continue   # ``torch.rand(1).item() < p``: a draw on the host, no data read; a name bound only to a
                #            draw (LayerDrop's ``p = torch.rand([])`` then ``if p < self.layerdrop: continue``)
            if any(resolver.value_of(s) == (K.HOST, K.CPU_TENSOR) for s in sides) \
                    and not any(resolver.kind_of(s) in K.TENSORS for s in sides):
                continue   # ``rms < target`` of a clip still on the host (moved later): no device value is read
            if (any(resolver.kind_of(s) in K.TENSORS or read_item(s, ctx) for s in sides)
                    or any(host_test(s, ctx) for s in sides if isinstance(s, (ast.Name, ast.Call)))
                    # ``if len(consecutive) > 0:`` of ``torch.where(m)[0]``: the count of a data-dependent result,
                    # read back to choose the path (session 21)
                    or any(isinstance(s, (ast.Call, ast.Subscript, ast.Name, ast.Attribute)) and not _host_count(s, ctx)
                           and resolver.flow_of(s, (DATA_SIZE,)) is not None for s in sides)
                    # ``if (mask > 0).sum() > 0:``, ``if valid.sum() == 0:`` in a module's method
                    or any(_module_input_reduction(side, ctx) for side in sides) and any(
                        isinstance(side, ast.Constant) and type(side.value) in (int, float) for side in sides)) \
                    and not resolver.configured(inner):
                return operand   # (``padded.sum() == 0`` of a tensor of shapes is configuration, the same every
                # batch: asked last, only of a test that would read a value; 353 of 376 such tests were not)
        elif isinstance(inner, ast.Call) and _module_input_reduction(inner, ctx):
            return operand   # ``if mask.any():`` in a module's method, ``mask`` a parameter the model cannot type
        elif isinstance(inner, ast.Call) and (resolver.qualname(inner.func) in TESTS or host_test(inner, ctx)):
            if drawn(inner, ctx):
                continue   # ``torch.equal(perm, identity)`` of ``perm = torch.randperm(n)``: a retried draw
            return operand
        elif isinstance(inner, (ast.Name, ast.Attribute)) and (read_back_name(inner, ctx)
                                                                or whole_test_bindings(inner, ctx)
                                                                or tensor_flag(inner, ctx)):
            return operand   # ``accept = error <= 1`` then ``if accept:``; ``if self.done:``; ``has = m.any()``
        elif (bare_names or not isinstance(inner, (ast.Name, ast.Attribute))) and resolver.kind_of(inner) in K.TENSORS \
                and not _compared_unknowns(inner, ctx) and not state_test(inner, ctx):
            return operand   # (session 27: ``(self.alpha > 0).any()`` of a tensor the module makes of its settings
            # in ``__init__`` is the model's constant state, the same every batch)
    return None


_REDUCTIONS = frozenset({"any", "all", "sum", "max", "min", "count_nonzero"})


def _module_input_reduction(node: ast.AST, ctx: FileContext) -> bool:
    """``mask.any()``, ``(mask > 0).sum()``, ``valid.sum()``: a whole-tensor reduction of a parameter (or a
    comparison of one) in a method of a class the model knows as an ``nn.Module`` (``forward``, a loss's helper),
    the parameter of no kind the model can tell: a module's inputs are tensors (a numpy array there would have come
    through ``.numpy()``, which the model sees)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _REDUCTIONS
            and not node.args and not node.keywords):
        return False
    receiver = node.func.value
    if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute) and receiver.func.attr == "bool" \
            and not receiver.args:
        receiver = receiver.func.value   # ``mask.bool().any()``
    if isinstance(receiver, ast.Compare) and len(receiver.comparators) == 1 \
            and isinstance(receiver.comparators[0], ast.Constant):
        receiver = receiver.left   # ``(mask > 0).sum()``
    if not isinstance(receiver, ast.Name):
        return False
    resolver = ctx.resolver
    binding = resolver.binding(receiver)
    if binding is None or binding.tag != "param" or resolver.kind_of(receiver) is not None:
        return False
    function = binding.scope.node
    owner = binding.scope.parent.node if binding.scope.parent is not None else None
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or not isinstance(owner, ast.ClassDef):
        return False
    value = resolver.class_value(owner)
    return value is not None and value[0] == K.MODULE


def _operands(test: ast.AST) -> list[ast.AST]:
    """The operands of ``and`` / ``or`` tests, nested ones included (``a != 0 and (b is None or n > 0)``), also
    under a ``not`` (``not (0 <= p.min() and p.max() <= 1)``: the same values are read)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.BoolOp):
        test = test.operand
    if isinstance(test, ast.BoolOp):
        return [o for value in test.values for o in _operands(value)]
    return [test]


def _compared_unknowns(name: ast.AST, ctx: FileContext) -> bool:
    """A name bound only to comparisons of values of unknown kind (``is_last = epoch == self.epochs - 1``): a
    mask by its look alone, no evidence of a tensor for a branch."""
    resolver = ctx.resolver
    if isinstance(name, ast.Call) and resolver.scopes is not None:   # ``def big(cfg): return cfg.size > 3``
        callee = resolver.own_function(name)
        if callee is None and ctx.project is not None:   # a function of another module: what its facts say
            called = resolver.qualname(name.func)
            return called is not None and ctx.project.compares_unknowns(called, ctx.module)
        return callee is not None and compares_unknowns(callee[0], resolver)
    if not isinstance(name, ast.Name) or resolver.scopes is None:
        return False
    bindings = resolver.scopes.may_reach(name.id, resolver.current, (name.lineno, name.col_offset))
    return bool(bindings) and all(
        isinstance(b.value, ast.Compare) and not b.path and not any(
            resolver.kind_of_at(side, b.scope) in K.TENSORS for side in (b.value.left, *b.value.comparators))
        for b in bindings)
