"""The broad path of NPU413 / NPU414 (session 21, branch21): the burden of proof inverted. A test that reads a value
through an op only tensors (or arrays) answer (``v.lt(m).any()``, ``x.all()``, ``err.item() < t``, ``(d > 0).sum() >
0``) on a receiver the semantic model cannot prove is no tensor (a host array, a Python value, an object of a
project class, configuration) is taken as reading a tensor's value; the arms are compared by the tensor work they
may do (a torch call, a tensor method, a model call, a skip of later work by a nested ``return``), not only by what
the model proves is a tensor. Silent: receivers proven host or fixed, shape reads, numerical guards, arms that only
log, raise or keep values. Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Callable, Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.nodes import child_nodes, walk
from npu_lint.analysis.flows import METADATA_ATTRIBUTES
from npu_lint.context import FileContext
from npu_lint.host_arrays import is_host_array
from npu_lint.rules import FUNCTION_TYPES
from npu_lint.rules.branch_arms import _host_call, _keeps, for_message, later, tensor_work
from npu_lint.rules.branch_tests import state_test
from npu_lint.rules.test_scope import test_code
from npu_lint.rules.read_backs import host_random

# Whole reductions whose value a test reads (``x.any()``, ``err.item()``, ``(m > 0).sum() > 0``).
_WHOLE = frozenset({"any", "all", "item"})
_REDUCED = frozenset({"sum", "max", "min", "mean", "norm", "amax", "amin", "count_nonzero", "prod", "std", "var"})
# Methods of tensors that compute on the device (an arm calling one on a value not proven host does tensor work).
_TENSOR_METHODS = K.TENSOR_ONLY_METHODS | K.TENSOR_ONLY_MASK_METHODS | frozenset({
    "to", "clamp_min", "clamp_max", "clamp_", "clamp_min_", "matmul", "mm", "bmm", "transpose", "reshape", "view",
    "expand", "repeat", "flatten", "squeeze", "clone", "masked_scatter_", "masked_fill_", "scatter", "scatter_",
    "scatter_add_", "gather", "index_add_", "index_put_", "nonzero", "cumsum", "argmax", "argmin", "exp", "log",
    "sqrt", "pow", "abs", "float", "half", "double", "mul_", "add_", "sub_", "div_", "copy_", "fill_", "zero_",
    "masked_select", "unsqueeze", "narrow", "select", "index_fill_", "t", "mT", "diagonal", "diag_embed",
    "sum", "mean", "eq", "ne", "lt", "le", "gt", "ge"})
# Receivers that are proven no tensor: a host array, a Python value or instance of a project class, a module, ...
_NOT_TENSOR = (K.HOST, K.LIST, K.OBJECT, K.MODULE, K.OPTIMIZER, K.SCHEDULER, K.SCALER, K.LOADER, K.DATASET,
               K.SAMPLER, K.DEVICE, K.DTYPE, K.AUTOGRAD, K.CTX, K.INSTANCE)


_HOST_LIBRARIES = frozenset({"numpy", "triton", "math", "scipy", "pandas", "cupy", "jax", "sklearn", "numba"})


_METADATA = METADATA_ATTRIBUTES - {"shape"}   # ``x.shape`` is a tuple of sizes, its own question


def not_tensor(node: ast.AST, ctx: FileContext) -> bool:
    """The model proves ``node`` is no device tensor: a constant, a host array or list, a Python value, an instance
    of a class no tensor kind fits, a tensor the code fixes (configuration)."""
    if isinstance(node, (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.JoinedStr)):
        return True
    if isinstance(node, ast.Attribute) and node.attr in _METADATA:
        return True   # ``padding_mask.ndim``, ``x.dtype``: what a tensor is, never a value read from it
    resolver = ctx.resolver
    kind = resolver.kind_of(node)
    if kind in K.TENSORS:
        return False
    root = node
    while isinstance(root, (ast.Call, ast.Attribute, ast.Subscript)):
        root = root.func if isinstance(root, ast.Call) else root.value
    if (resolver.qualname(root) or "").split(".")[0] in _HOST_LIBRARIES:
        return True   # ``tl.load(p).to(tl.float32)`` in a Triton kernel, ``np.abs(a).max()``: no torch tensor
    return kind in _NOT_TENSOR or resolver.is_host(node) or is_host_array(node, ctx, node) \
        or host_random(node, ctx) or resolver.configured(node)


def _receiver(call: ast.Call) -> ast.AST:
    """``(m > 0).sum()`` -> ``m``; ``v.lt(t).any()`` -> ``v``; ``x.bool().all()`` -> ``x``."""
    node: ast.AST = call.func.value   # type: ignore[attr-defined]
    while True:
        if isinstance(node, ast.Compare) and len(node.comparators) == 1:
            node = node.left
        elif isinstance(node, ast.UnaryOp):
            node = node.operand
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in K.MASK_METHODS | {"abs", "float", "long", "int", "detach", "flatten"}:
            node = node.func.value
        else:
            return node


def _reads(node: ast.AST, methods: frozenset[str], ctx: FileContext) -> bool:
    """``x.any()`` / ``x.item()`` (``methods``), no argument, on a receiver not proven host."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in methods
            and not node.args and not node.keywords):
        return False
    receiver = _receiver(node)
    if isinstance(receiver, ast.Subscript) and isinstance(receiver.value, ast.Attribute) \
            and receiver.value.attr in ("shape", "size"):
        return False
    return not not_tensor(receiver, ctx) and not not_tensor(node.func.value, ctx)  # type: ignore[attr-defined]


def broad_test(test: ast.AST, ctx: FileContext) -> Optional[ast.AST]:
    """The operand of an ``if`` / ``while`` test that reads a value through a whole test or reduction of a value
    the model cannot prove is no tensor (``variance.lt(m).any()``, ``not x.all()``, ``err.item() > t``,
    ``(m > 0).sum() > 0``, ``x.max() > 1``); None without one."""
    operands = [test]
    found: list[ast.AST] = []
    while operands:
        operand = operands.pop()
        inner = operand.operand if isinstance(operand, ast.UnaryOp) and isinstance(operand.op, ast.Not) else operand
        if isinstance(inner, ast.BoolOp):
            operands.extend(inner.values)
        elif isinstance(inner, ast.Call) and _reads(inner, _WHOLE | _REDUCED, ctx) and not state_test(inner, ctx):
            found.append(operand)   # (session 27: ``(self.alpha > 0).any()`` of the module's constant state: quiet;
            #                          session 33: the truth of a reduction, ``if fg_mask.sum():``, is ``!= 0``)
        elif isinstance(inner, ast.Compare) and not any(
                isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in inner.ops):
            sides = (inner.left, *inner.comparators)
            if any(isinstance(s, ast.Constant) and s.value is None for s in sides) or ctx.resolver.configured(inner) \
                    or any(host_random(s, ctx) for s in sides):
                continue   # ``pads.sum() == 0`` of a tensor of shapes; ``torch.rand(1).item() < p``: no data read
            if any(_reads(s, _WHOLE | _REDUCED, ctx) for s in sides):
                found.append(operand)
    return found[0] if found else None


def nested_return(arm: list[ast.stmt]) -> bool:
    """A ``return`` inside the arm (``if torch.equal(x, z): if c is None: raise ... else: return mvn(...)``)."""
    stack: list[ast.AST] = list(arm)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            return True
        if isinstance(node, (*FUNCTION_TYPES, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(child_nodes(node))
    return False


def arms_of(node: ast.If, ctx: FileContext) -> list[ast.stmt]:
    """The statements whose running the test decides: both arms, and what a ``return`` in the arm skips (up to
    the next ``return`` or ``raise`` of the other path: what follows it runs on neither)."""
    arms = node.body + node.orelse
    if nested_return(node.body):
        for statement in later(node, ctx.enclosing(node, FUNCTION_TYPES), ctx):
            arms.append(statement)
            if isinstance(statement, (ast.Return, ast.Raise)):
                break
    return arms


def quiet_module(node: ast.AST, ctx: FileContext) -> bool:
    """Where the broad path stays quiet: test code, and a data pipeline's module (a path part naming transforms
    or augmentations: per-sample work in the loader's workers, whose batch is what reaches the NPU)."""
    return test_code(node, ctx) or any("transform" in part or "augment" in part for part in ctx.module.split("."))


def broad_work(statement: ast.stmt, ctx: FileContext) -> bool:
    """The statement may run tensor work: ``tensor_work``, or a torch function, a tensor method on a value not
    proven host (``variance.clamp_min(m)``, ``x2.to(dev)`` in a comprehension), a call of a module or of a value
    the test hands on; not a log line, a raise, a value kept in a list or a log."""
    if isinstance(statement, (ast.Raise, ast.Assert, *FUNCTION_TYPES, ast.ClassDef)) or for_message(statement, ctx):
        return False
    if tensor_work(statement, ctx):
        return True
    resolver = ctx.resolver
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, (*FUNCTION_TYPES, ast.ClassDef, ast.Lambda, ast.Raise)):
            continue
        if isinstance(node, ast.Call):
            if _host_call(node, ctx) or (_keeps(node) and not (isinstance(node.func, ast.Attribute)
                                                                and node.func.attr in _COLLECTS)):
                continue   # a log line, a summary writer, a checkpoint; a list's ``append`` computes its argument
            func = node.func
            name = resolver.qualname(func) or ""
            if name.startswith("torch.") and name.rsplit(".", 1)[-1] not in K.NOT_TENSOR \
                    and not name.startswith(("torch.cuda.", "torch.distributed.", "torch.utils.")):
                return True
            if isinstance(func, ast.Attribute) and func.attr in _TENSOR_METHODS and not name \
                    and not not_tensor(func.value, ctx):   # (``np.argmax(a)`` has a name: a library's function)
                return True
            if resolver.kind_of(func) == K.MODULE:
                return True   # ``self.encoder(x)``: a model call
        stack.extend(child_nodes(node))
    return False


def _tested_names(test: ast.AST, ctx: FileContext) -> set[str]:
    """The names whose value the test reads: the arguments of ``torch.equal`` / ``torch.any`` / ``torch.all``, the
    receivers of ``.any()`` / ``.all()`` / ``.item()``, not proven host."""
    names: set[str] = set()
    for n in walk(test):
        if not isinstance(n, ast.Call):
            continue
        if (ctx.resolver.qualname(n.func) or "") in ("torch.equal", "torch.any", "torch.all"):
            names.update(a.id for a in n.args if isinstance(a, ast.Name) and not not_tensor(a, ctx))
        elif isinstance(n.func, ast.Attribute) and n.func.attr in _WHOLE:
            receiver = _receiver(n)
            if isinstance(receiver, ast.Name) and not not_tensor(receiver, ctx):
                names.add(receiver.id)
    return names


def _hands(statement: ast.stmt, names: set[str], ctx: FileContext) -> bool:
    """The arm hands a tested value to a call other than a log line or a container's keeping (``self.scatter((x1,),
    kwargs)`` after ``torch.equal(x1, self.cached)``): what that call computes runs for some data only."""
    if not names or isinstance(statement, (ast.Raise, ast.Assert, *FUNCTION_TYPES, ast.ClassDef)):
        return False
    stack: list[ast.AST] = [statement]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Call) and (_host_call(n, ctx) or _keeps(n)):
            continue   # a log line and what its arguments compute (``logger.info("%d", torch.sum(mask))``)
        if isinstance(n, ast.Call):
            arguments = [*n.args, *(k.value for k in n.keywords)]
            arguments += [e for a in arguments if isinstance(a, (ast.Tuple, ast.List)) for e in a.elts]
            if any(isinstance(a, ast.Name) and a.id in names for a in arguments):
                return True
        stack.extend(child_nodes(n))
    return False


def broad_if(node: ast.If, ctx: FileContext) -> bool:
    """An arm (or what a ``return`` of the arm skips) does tensor work the other path does not; not a latch that
    runs once (the arm sets the tested flag: ``if not self.initialized.item(): ...; self.initialized.fill_(1)``) nor
    a predicate (``if not torch.all(evals >= -tol): return False`` in a function returning only flags)."""
    if _latch(node) or _predicate(node, ctx):
        return False
    arms = arms_of(node, ctx)
    if any(broad_work(s, ctx) for s in arms):
        return True
    names = _tested_names(node.test, ctx)
    return any(_hands(s, names, ctx) for s in node.body + node.orelse)


def while_hands(loop: ast.While, ctx: FileContext) -> bool:
    """A ``while`` on a whole test whose body hands the tested value (or the container it is read from:
    ``while not td["done"].all(): td = env.step(policy(td))["next"]``) to a call other than a log line: the episode
    or decoding loop of an RL environment; what the call computes runs a number of times the data decides
    (round 3, branch21c)."""
    names = _tested_names(loop.test, ctx)
    for n in walk(loop.test):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _WHOLE:
            root = _receiver(n)
            while isinstance(root, ast.Subscript) and isinstance(root.slice, ast.Constant):
                root = root.value
            if isinstance(root, ast.Name) and not not_tensor(root, ctx):
                names.add(root.id)
    return any(_hands(s, names, ctx) for s in loop.body)


_COLLECTS = frozenset({"append", "extend", "insert"})
_WRITES = frozenset({"fill_", "zero_", "copy_", "add_"})


def _latch(node: ast.If) -> bool:
    """The arm writes the attribute the test reads (``self.done.fill_(1)``, ``self.ready = True``): an
    initialisation that runs once, not a path chosen per batch."""
    tested = {ast.unparse(n) for n in walk(node.test) if isinstance(n, ast.Attribute)
              and isinstance(n.value, ast.Name) and n.value.id == "self"}
    if not tested:
        return False
    for statement in node.body:
        for n in walk(statement):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _WRITES \
                    and ast.unparse(n.func.value) in tested:
                return True
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) \
                    and any(ast.unparse(t) in tested for t in n.targets):
                return True
    return False


_FLAGS = frozenset({"all", "any", "bool", "isinstance", "torch.all", "torch.any", "torch.equal", "torch.allclose"})


def _flag(value: Optional[ast.AST], ctx: FileContext) -> bool:
    if isinstance(value, ast.Constant):
        return isinstance(value.value, bool)
    if isinstance(value, (ast.Compare, ast.BoolOp)) or (isinstance(value, ast.UnaryOp)
                                                        and isinstance(value.op, ast.Not)):
        return True
    return isinstance(value, ast.Call) and ((ctx.resolver.qualname(value.func) or "") in _FLAGS or (
        isinstance(value.func, ast.Name) and value.func.id in _FLAGS))


def _predicate(node: ast.If, ctx: FileContext) -> bool:
    """Every ``return`` of the function gives a flag (``return False`` ... ``return all(...)``): a validity check;
    the caller's test of the flag is where the path is chosen."""
    function = ctx.enclosing(node, FUNCTION_TYPES)
    if function is None:
        return False
    return ctx.per_node("broad_branches_predicates", function,
                        lambda scope: every_return(scope, lambda value: _flag(value, ctx)))


def every_return(function: ast.AST, judge: Callable[[Optional[ast.AST]], bool]) -> bool:
    """The function returns, and ``judge`` holds of every returned value (None for a bare ``return``)."""
    returns = [n for n in walk(function) if isinstance(n, ast.Return)]
    return bool(returns) and all(judge(r.value) for r in returns)


def while_rebinds(loop: ast.While, ctx: FileContext) -> Optional[ast.AST]:
    """``while next_t > self.rk_state.t1:`` with ``self.rk_state = self._adaptive_step(self.rk_state)`` in the body:
    a compared value not proven host whose root the body rebinds from a call (an adaptive solver's state), the body
    doing tensor work; the side, else None."""
    tests = loop.test.values if isinstance(loop.test, ast.BoolOp) else [loop.test]
    rebound: set[str] = set()
    for statement in walk(loop):
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call):
            for target in statement.targets:
                for t in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                    if isinstance(t, (ast.Name, ast.Attribute)):
                        rebound.add(ast.unparse(t))
    if not rebound:
        return None
    for test in tests:
        if not isinstance(test, ast.Compare) or any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn))
                                                    for op in test.ops):
            continue
        sides = (test.left, *test.comparators)
        if any(isinstance(s, ast.Call) for s in sides):
            continue   # ``len(queue)``, ``x.size(0)``: counts and shapes
        if any(not_tensor(s, ctx) and not isinstance(s, ast.Constant) for s in sides):
            continue   # ``while i < n:`` of a Python counter
        for side in sides:
            chain = side
            while isinstance(chain, ast.Attribute) and ast.unparse(chain) not in rebound:
                chain = chain.value
            if isinstance(chain, (ast.Name, ast.Attribute)) and ast.unparse(chain) in rebound \
                    and not not_tensor(side, ctx):
                return side
    return None
