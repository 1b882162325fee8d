"""Host values read back from tensors, as the branch and loop rules (NPU413, NPU414) see them in a test:
``x.item()``, ``float(t)``, ``bool((d < r).all())``, a name bound to one (``error = float(err) / rtol``), a flag
compared from one (``accept = error <= 1``), ``math.isfinite(loss.item())``, ``all(flags)`` of a list of them,
the file's own function or method that returns one (``if self._can_use_prev_list(x):``), and an element of a
tensor picked with a host index (``if update_required[idx]:``). A draw from torch's generator made on the host
(``torch.rand(1).item()``) is no value of the data. Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.flows import TORCH_DRAWS, HOST
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import Scope
from npu_lint.analysis.summaries_reads import host_random as model_host_random
from npu_lint.analysis.summaries_reads import reads_back as model_reads_back
from npu_lint.analysis.summaries_reads import returns_read_back as model_returns_read_back
from npu_lint.context import FileContext

# Host tests of a number (``math.isfinite(loss.item())``) and of a list of flags (``all(flags)``).
_NUMBER_TESTS = frozenset({"math.isfinite", "math.isnan", "math.isinf"})
_DEPTH = 3
# Names a project helper is never read as (library code: the index holds the project's own functions only).
_EXTERNAL = ("torch.", "numpy.", "math.", "builtins.")


def host_random(node: ast.AST, ctx: FileContext) -> bool:
    """A draw from torch's generator made on the host (``torch.rand(1).item()``): no value of the data."""
    return model_host_random(node, ctx.resolver)


def drawn(node: ast.AST, ctx: FileContext) -> bool:
    """A draw made on the host, in the test or through a name the function binds only to such draws (``perm =
    torch.randperm(n)`` then ``while torch.equal(perm, identity):``): a retry of the generator, no value of the
    data."""
    if host_random(node, ctx):
        return True
    resolver = ctx.resolver
    if resolver.scopes is None:
        return False
    for name in walk(node):
        if isinstance(name, ast.Name):
            bindings = resolver.scopes.may_reach(name.id, resolver.current, (name.lineno, name.col_offset))
            if bindings and all(b.tag == "value" and not b.path and isinstance(b.value, ast.AST)
                                and _draw_call(b.value, ctx) for b in bindings):
                return True
    return False


def _draw_call(value: ast.AST, ctx: FileContext) -> bool:
    """``torch.randperm(n, **kwargs)``: a draw of torch's generator (any device: a permutation or a coin flip)."""
    return isinstance(value, ast.Call) and ctx.resolver.qualname(value.func) in TORCH_DRAWS


def item(node: ast.AST, ctx: FileContext) -> bool:
    """``t.item()`` on a value the model knows is a tensor (a numpy scalar has ``item`` too)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "item" \
        and not node.args and ctx.resolver.kind_of(node.func.value) in K.TENSORS


def reads_back(value: ast.AST, ctx: FileContext, scope: Optional[Scope] = None) -> bool:
    """The expression reads a tensor's value itself (``x.item()``, ``float(t)``, ``bool((d < r).all())``)."""
    return model_reads_back(value, ctx.resolver, scope)


def read_back_name(side: ast.AST, ctx: FileContext, depth: int = 0, scope: Optional[Scope] = None) -> bool:
    """A name the model says may hold a value read back from a tensor (``energy = wav.pow(2).mean().item()``
    before ``if energy < floor:``), or a flag compared from one (``accept = error <= 1``; ``self.done =
    len(non_finished) == 0`` in any method of the class): the branch follows the data as much as ``if t.item() <
    floor:``. Only bindings of the function itself (a parameter, a loop variable, an unpacked element: what
    callers pass is no evidence here)."""
    resolver = ctx.resolver
    scopes = resolver.scopes
    scope = scope or resolver.current
    if scopes is None or depth > _DEPTH:
        return False
    if isinstance(side, ast.Attribute) and isinstance(side.value, ast.Name) \
            and side.value.id == scopes.self_name(scope) and depth == 0:
        bindings = [b for b in scopes.attribute(scope, side.attr) if not isinstance(b.value, ast.Constant)]
        return bool(bindings) and all(   # ``self.done = False`` in ``__init__``: the flag's start
            b.tag == "value" and not b.path and isinstance(b.value, ast.AST)
            and _compared(b.value, ctx, depth + 1, b.scope) for b in bindings)
    if not isinstance(side, ast.Name):
        return False
    bindings = scopes.may_reach(side.id, scope, (side.lineno, side.col_offset))
    if not bindings or any(b.tag != "value" or b.path or b.scope is not scope for b in bindings):
        return False
    return all(reads_back(b.value, ctx, scope) or _compared(b.value, ctx, depth + 1, scope)
               or (isinstance(b.value, ast.Call) and returns_read_back(b.value, ctx)) for b in bindings)


def _compared(value: ast.AST, ctx: FileContext, depth: int, scope: Scope) -> bool:
    """``error <= 1``, ``not ok``, ``a and b``: a flag computed from host values read back."""
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
        return _compared(value.operand, ctx, depth, scope) or read_back_name(value.operand, ctx, depth, scope)
    if isinstance(value, ast.BoolOp):
        return any(_compared(v, ctx, depth, scope) or read_back_name(v, ctx, depth, scope) for v in value.values)
    if not isinstance(value, ast.Compare) or any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn))
                                                 for op in value.ops):
        return False
    return any(reads_back(s, ctx, scope) or read_back_name(s, ctx, depth, scope) or _counted(s, ctx, scope)
               for s in (value.left, *value.comparators))


def _counted(node: ast.AST, ctx: FileContext, scope: Scope) -> bool:
    """``len(non_finished)`` of a list kept by values read back (``[i for i, f in enumerate(fin) if not f[0]]``)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
        and len(node.args) == 1 and ctx.resolver.binding(node.func, scope) is None \
        and filtered_by_read_back(node.args[0], ctx, scope) is not None


def filtered_by_read_back(node: ast.AST, ctx: FileContext, scope: Optional[Scope] = None) -> Optional[ast.AST]:
    """The comprehension ``node`` is (or a name bound once to), when its ``if`` keeps elements by a value read back
    from a tensor (``[i for i, fin in enumerate(is_finished.tolist()) if fin[0]]``): how many it keeps is a value
    of the data."""
    resolver = ctx.resolver
    scopes = resolver.scopes
    scope = scope or resolver.current
    if scopes is None:
        return None
    if isinstance(node, ast.Name):
        bindings = scopes.may_reach(node.id, scope, (node.lineno, node.col_offset))
        if len(bindings) != 1 or bindings[0].tag != "value" or bindings[0].path:
            return None
        node, scope = bindings[0].value, bindings[0].scope
    if not isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)) \
            or not any(g.ifs for g in node.generators):
        return None
    inner = scopes.open_expression_scope(node, scope)
    for generator in node.generators:
        for test in generator.ifs:
            while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                test = test.operand   # ``if not fin[0]``: kept by the same value
            if any(flow[0] == HOST for flow in resolver.flows(test, inner)):
                return node
    return None


def host_test(node: ast.AST, ctx: FileContext) -> bool:
    """A host value read back from a tensor tested directly: ``float(t) != float(t)``'s sides,
    ``math.isfinite(loss.item())``, ``all(flags)`` with ``flags.append(p.isfinite().all().item())``, a flag name
    (``if accept:``), an own function's result (``if self._can_use_prev_list(x):``)."""
    if isinstance(node, (ast.Name, ast.Attribute)):
        return read_back_name(node, ctx)
    if not isinstance(node, ast.Call):
        return False
    if reads_back(node, ctx) and isinstance(node.func, ast.Name) or item(node, ctx):
        return True
    resolver = ctx.resolver
    name = resolver.qualname(node.func)
    if name in _NUMBER_TESTS and len(node.args) == 1:
        return reads_back(node.args[0], ctx) or read_back_name(node.args[0], ctx)
    if isinstance(node.func, ast.Name) and node.func.id in ("all", "any") and name is None and len(node.args) == 1:
        return _flags(node.args[0], ctx)
    return returns_read_back(node, ctx)


def _flags(values: ast.AST, ctx: FileContext) -> bool:
    """A list of the function's own that only ever receives values read back (``flags.append(x.item())``)."""
    resolver = ctx.resolver
    if not isinstance(values, ast.Name) or resolver.scopes is None:
        return False
    bindings = resolver.scopes.may_reach(values.id, resolver.current, (values.lineno, values.col_offset))
    if len(bindings) != 1 or not isinstance(bindings[0].value, ast.List) or bindings[0].value.elts:
        return False
    memo = ctx.scratch.setdefault("read_back_flags", {})
    key = id(bindings[0].value)
    if key not in memo:
        appended = _appended(bindings[0].scope.node, ctx).get(values.id, ())
        memo[key] = bool(appended) and all(reads_back(a, ctx) for a in appended)
    return memo[key]


def _appended(function: ast.AST, ctx: FileContext) -> dict[str, list[ast.AST]]:
    """``{name: [x, ...]}`` of the ``name.append(x)`` calls in a scope, one walk per scope and file."""
    def build(function: ast.AST) -> dict[str, list[ast.AST]]:
        found: dict[str, list[ast.AST]] = {}
        for n in walk(function):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append" \
                    and len(n.args) == 1 and isinstance(n.func.value, ast.Name):
                found.setdefault(n.func.value.id, []).append(n.args[0])
        return found
    return ctx.per_node("appended_by_scope", function, build)


def returns_read_back(call: ast.Call, ctx: FileContext) -> bool:
    """The function or method the call runs returns a value read back from a tensor on every return that is not a
    constant (``return bool((d < self.r).all())``): the file's own (the model's summary), or with a project index a
    function of another module (its ``reads`` fact)."""
    resolver = ctx.resolver
    if not isinstance(call.func, (ast.Name, ast.Attribute)) or resolver.scopes is None:
        return False
    callee = resolver.own_function(call)
    if callee is not None:
        return model_returns_read_back(callee[0], resolver)
    project = ctx.project
    if project is None or call.func.__class__ is ast.Attribute and resolver.kind_of(call.func.value) is not None:
        return False   # a method of an object: its class's, not a function of the project
    name = resolver.qualname(call.func)
    return name is not None and not name.startswith(_EXTERNAL) and project.returns_read_back(name, ctx.module)


_STEPPERS = (K.OPTIMIZER, K.SCALER)


def training_step(node: ast.AST, function: Optional[ast.AST], ctx: FileContext) -> bool:
    """``loss.backward()``, ``optimizer.step()`` (an optimizer or grad scaler by the model, or ``.step()`` in a
    function that runs ``.backward()``): the work a training step's overflow check decides on."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("backward", "step")):
        return False
    resolver = ctx.resolver
    receiver = resolver.kind_of(node.func.value)
    if node.func.attr == "backward":   # ``loss.backward()`` (of a model's output the model may not know)
        return receiver in K.TENSORS or (receiver is None and not resolver.is_host(node.func.value))
    if receiver in _STEPPERS:
        return True
    return receiver is None and not node.args and function is not None and any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "backward"
        and resolver.kind_of(n.func.value) in (*K.TENSORS, None) for n in walk(function))


_WHOLE_TESTS = frozenset({"torch.any", "torch.all", "torch.equal"})


def whole_test_bindings(side: ast.AST, ctx: FileContext) -> list[ast.AST]:
    """The values of a name the function binds only to a test of a whole tensor (``has_nan = nan_mask.any()``,
    ``ok = torch.all(x > 0)``): a 0-dim bool tensor that an ``if`` on the name reads back, as ``if
    nan_mask.any():`` does; else []. ``any(dim=...)`` keeps a tensor of flags (no single value to branch on)."""
    resolver = ctx.resolver
    scope = resolver.current
    if isinstance(side, ast.UnaryOp) and isinstance(side.op, ast.Not):
        side = side.operand
    if not isinstance(side, ast.Name) or resolver.scopes is None:
        return []
    bindings = resolver.scopes.may_reach(side.id, scope, (side.lineno, side.col_offset))
    if not bindings or any(b.tag != "value" or b.path or b.scope is not scope or not isinstance(b.value, ast.AST)
                           for b in bindings):
        return []
    tests = [b.value for b in bindings if _whole_test(b.value, ctx, scope)]
    if not tests or any(not _whole_test(b.value, ctx, scope) and not _host_compare(b.value, ctx, scope)
                        for b in bindings):
        return []
    return tests   # type: ignore[return-value]


def _host_compare(value: ast.AST, ctx: FileContext, scope: Scope) -> bool:
    """Session 33: ``flag = gray_noise > 0`` on the path where ``isinstance(gray_noise, (float, int))`` holds, beside
    ``flag = torch.sum(gray_noise) > 0`` on the other: a comparison of no tensor the model knows (the flag reads the
    tensor's value on the path that binds the whole test)."""
    return isinstance(value, ast.Compare) and not any(
        ctx.resolver.kind_of_at(side, scope) in K.TENSORS for side in (value.left, *value.comparators))


_REDUCTIONS = frozenset({"torch.sum", "torch.max", "torch.min", "torch.mean", "torch.count_nonzero", "torch.amax",
                         "torch.amin"})


def _whole_test(value: ast.AST, ctx: FileContext, scope: Scope) -> bool:
    """``m.any()``, ``m.all()`` of a tensor, ``torch.any(m)``, ``torch.equal(a, b)`` (no ``dim``); ``torch.sum(x) > 0``
    (a whole reduction by torch compared with a number: a 0-dim bool tensor, session 33)."""
    if isinstance(value, ast.Compare) and len(value.ops) == 1:
        sides = (value.left, value.comparators[0])
        return any(isinstance(s, ast.Constant) and type(s.value) in (int, float) for s in sides) and any(
            isinstance(s, ast.Call) and len(s.args) == 1 and not s.keywords
            and ctx.resolver.qualname(s.func) in _REDUCTIONS for s in sides)
    if not isinstance(value, ast.Call) or value.keywords:
        return False
    resolver = ctx.resolver
    if isinstance(value.func, ast.Attribute) and value.func.attr in ("any", "all") and not value.args:
        return resolver.kind_of_at(value.func.value, scope) in K.TENSORS
    name = resolver.qualname(value.func)
    return name in _WHOLE_TESTS and len(value.args) == (2 if name == "torch.equal" else 1)
