"""NPU414's question before reporting a branch on a tensor's value (session 25, precision25b): do the arms leave
every value the code after them reads with the same shape?

``if original_mask.any(): self.mask = torch.logical_and(new_mask, ~original_mask) else: self.mask = new_mask``
(tsai), ``if sigma_down == 0: x = x + d * dt else: ... x = x + d_2 * dt_2`` (k-diffusion's Euler vs DPM step)
read a value, but the shapes after the branch do not change with it: each arm binds the same names (or returns)
values derived elementwise from the same value (arithmetic with it, ``where``/``masked_fill``/``logical_and`` of
it, a ``zeros_like`` of it, a cast) or the same constant. Reviewers judge them no dynamic shape (GOLD.md: ops whose
output shape equals the input's). The link is the shape ANCHOR of a value: the values before the branch it is an
elementwise function of; two bindings of a name have the same shape when their anchors meet.

An arm that skips work the other arm does elementwise on the same value (``if x.max() > 1: x = x / 255``, an early
``return wav`` before ``return wav * g``) leaves the shapes as they were too (session 33: reviewers judge such
branches false, bindsnet's ``datum /= datum.max()``, snntorch's spike times rescaled); not another tensor mixed in.

Still fired: an arm that skips work of other shapes (an early ``return tokens`` before a ``cat``), that selects (a
mask or tensor index, a slice with a bound not constant, ``nonzero``...), binds a name the other arm leaves and the
code after reads, returns something of another anchor, runs a nested loop or branch, or decides whether the step's
backward or update runs."""
from __future__ import annotations

import ast
import copy
from typing import Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules.branch_arms import later
from npu_lint.rules.branch_records import records_only
from npu_lint.rules.read_backs import training_step

# elementwise operators: the output has the shape of the (broadcast) inputs; ``where`` counts its two values
_ELEMENTWISE = frozenset({
    "where", "logical_and", "logical_or", "logical_xor", "logical_not", "maximum", "minimum", "fmax", "fmin",
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "pow", "exp", "expm1", "log",
    "log1p", "abs", "neg", "sigmoid", "tanh", "relu", "clamp", "clip", "sqrt", "rsqrt", "nan_to_num", "sign",
    "isnan", "isinf", "isfinite", "bitwise_and", "bitwise_or", "bitwise_not", "bitwise_xor", "masked_fill",
    "lerp", "float", "double", "half", "bfloat16", "bool", "long", "int", "to", "type", "type_as", "detach",
    "clone", "contiguous", "zeros_like", "ones_like", "full_like", "empty_like", "rand_like", "randn_like",
    "square", "reciprocal", "floor", "ceil", "round", "trunc", "eq", "ne", "lt", "le", "gt", "ge"})
# arguments that carry no shape: ``where``'s condition, ``masked_fill``'s mask and value
_SHAPELESS_ARGS = {"where": (0,), "masked_fill": (0, 1), "full_like": (1,), "clamp": (1, 2), "clip": (1, 2),
                   "to": (0, 1), "type": (0,), "nan_to_num": (1, 2, 3)}
_SHAPELESS_KEYWORDS = frozenset({"dtype", "device", "non_blocking", "min", "max", "value", "other", "alpha",
                                 "copy", "memory_format", "nan", "posinf", "neginf", "fill_value"})
# operators whose output size the data decides: an arm running one selects
_SELECTING = frozenset({"nonzero", "masked_select", "unique", "unique_consecutive", "argwhere", "repeat_interleave",
                        "topk", "narrow", "tensor_split", "split", "chunk", "index_select", "take"})


def _call_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _anchors(value: ast.AST, env: dict[str, ast.AST], depth: int = 0) -> Optional[frozenset[str]]:
    """The values before the branch ``value`` is an elementwise function of (their source); an empty set for a
    constant; None when unknown (a call of anything else, an index, a reduction)."""
    if depth > 12:
        return None
    if isinstance(value, ast.Constant):
        return frozenset()
    if isinstance(value, ast.Name):
        if value.id in env:
            return _anchors(env[value.id], {k: v for k, v in env.items() if k != value.id}, depth + 1)
        return frozenset({value.id})
    if isinstance(value, ast.Attribute) and isinstance(value.value, (ast.Name, ast.Attribute)):
        return frozenset({ast.unparse(value)})
    if isinstance(value, ast.UnaryOp):
        return _anchors(value.operand, env, depth + 1)
    parts: list[ast.AST] = []
    if isinstance(value, ast.BinOp):
        parts = [value.left, value.right]
    elif isinstance(value, ast.Call) and _call_name(value) in _ELEMENTWISE \
            and all(k.arg in _SHAPELESS_KEYWORDS for k in value.keywords):
        name = _call_name(value)
        skip = _SHAPELESS_ARGS.get(name, ())
        if name == "where" and len(value.args) != 3:
            return None   # one-argument ``where``: nonzero
        args = list(value.args)
        if isinstance(value.func, ast.Attribute) and not (isinstance(value.func.value, ast.Name)
                                                          and value.func.value.id in ("torch", "F", "np")):
            parts = [value.func.value] + [a for i, a in enumerate(args) if i not in skip and name != "masked_fill"]
            if name in ("to", "type", "type_as", "float", "double", "half", "bool", "long", "int", "detach",
                        "clone", "contiguous", "masked_fill", "clamp", "clip", "nan_to_num"):
                parts = [value.func.value]
        else:
            skip = (1, 2) if name == "masked_fill" else skip
            parts = [a for i, a in enumerate(args) if i not in skip]
    else:
        return None
    found = [_anchors(p, env, depth + 1) for p in parts]
    known = [f for f in found if f is not None]
    if not known:
        return None
    return frozenset().union(*known)


def _selects(statement: ast.AST, ctx: FileContext) -> bool:
    """A tensor or mask index, a slice whose bound is not a constant, or an operator of :data:`_SELECTING`."""
    for node in walk(statement):
        if isinstance(node, ast.Call) and _call_name(node) in _SELECTING:
            return True
        if isinstance(node, ast.Subscript):
            index = node.slice
            for part in (index.elts if isinstance(index, ast.Tuple) else [index]):
                if isinstance(part, ast.Slice):
                    if any(b is not None and not isinstance(b, ast.Constant)
                           and not (isinstance(b, ast.UnaryOp) and isinstance(b.operand, ast.Constant))
                           for b in (part.lower, part.upper, part.step)):
                        return True
                elif isinstance(part, (ast.Compare, ast.BoolOp, ast.List, ast.ListComp)) \
                        or ctx.resolver.kind_of(part) in K.TENSORS:
                    return True
    return False


def _bindings(arm: list[ast.stmt], ctx: FileContext) -> Optional[tuple[dict[str, ast.AST], list[ast.Return]]]:
    """The names (and attribute paths) each statement of ``arm`` binds, the last binding winning, and its
    returns; None when the arm does anything else (a nested block, a write into a tensor, a selection)."""
    env: dict[str, ast.AST] = {}
    returns: list[ast.Return] = []
    for statement in arm:
        if _selects(statement, ctx):
            return None
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                env[target.id] = _substituted(statement.value, env)
            elif isinstance(target, ast.Attribute) and isinstance(target.value, (ast.Name, ast.Attribute)):
                env[ast.unparse(target)] = _substituted(statement.value, env)
            elif isinstance(target, ast.Tuple) and all(isinstance(t, ast.Name) for t in target.elts):
                for t in target.elts:
                    env[t.id] = ast.Call(func=ast.Name(id="<unknown>"), args=[], keywords=[])
            else:
                return None
        elif isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
            env[statement.target.id] = _substituted(
                ast.BinOp(left=ast.Name(id=statement.target.id), op=statement.op, right=statement.value), env)
        elif isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Subscript) \
                and ctx.resolver.kind_of(statement.target.value) not in K.TENSORS \
                and isinstance(statement.value, ast.Constant):
            continue   # ``info['n_accept'] += 1``: a host counter
        elif isinstance(statement, ast.Return):
            returns.append(statement)
        elif isinstance(statement, ast.Pass) or records_only(ast.If(test=ast.Constant(True), body=[statement],
                                                                    orelse=[]), ctx):
            continue
        else:
            return None
    return env, returns


class _Substitute(ast.NodeTransformer):
    def __init__(self, env: dict[str, ast.AST]) -> None:
        self.env = env

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return self.env.get(node.id, node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, (ast.Name, ast.Attribute)):
            key = ast.unparse(node)
            if key in self.env:
                return self.env[key]
        return self.generic_visit(node)


def _substituted(value: ast.AST, env: dict[str, ast.AST]) -> ast.AST:
    """``value`` with the arm's earlier bindings put in (so that anchors reach the values before the branch)."""
    if not env:
        return value
    return _Substitute(env).visit(copy.deepcopy(value))


def _same(first: Optional[ast.AST], second: Optional[ast.AST]) -> bool:
    if first is None or second is None:
        return first is None and second is None
    if isinstance(first, ast.Tuple) and isinstance(second, ast.Tuple):
        return len(first.elts) == len(second.elts) and all(_same(a, b) for a, b in zip(first.elts, second.elts))
    one, other = _anchors(first, {}), _anchors(second, {})
    if one is None or other is None:
        return False
    if not one and not other:
        return ast.dump(first) == ast.dump(second)   # the same constant (``k = 0`` vs ``k = 5`` sizes differ)
    return bool(one & other)


def _read_after(name: str, node: ast.If, function: ast.AST) -> bool:
    """``name`` (a name or an attribute path) is read outside the branch in its function."""
    inside = {id(n) for n in walk(node)}
    for nested in walk(function):   # ``sigma_fn = lambda t: t.neg().exp()``: a parameter of its own
        if nested is not function and isinstance(nested, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)) \
                and name in {a.arg for a in (*nested.args.posonlyargs, *nested.args.args, *nested.args.kwonlyargs)}:
            inside.update(id(n) for n in walk(nested))
    for other in walk(function):
        if id(other) in inside or not isinstance(getattr(other, "ctx", None), ast.Load):
            continue
        if isinstance(other, ast.Name) and other.id == name:
            return True
        if isinstance(other, ast.Attribute) and "." in name and ast.unparse(other) == name:
            return True
    return False


def same_shapes(node: ast.If, function: Optional[ast.AST], ctx: FileContext) -> bool:
    """Both arms of ``node`` (an early ``return`` against what the function returns after it) leave every value
    read after the branch, and every value returned, with the same shape."""
    if function is None or not node.body:
        return False
    body, orelse = node.body, node.orelse
    early = isinstance(body[-1], ast.Return)
    if early:
        if orelse:
            return False
        orelse = later(node, function, ctx)
        if not orelse or not isinstance(orelse[-1], ast.Return):
            return False   # the function goes on past a block: not the whole remainder seen
    if any(training_step(n, function, ctx) for s in (*body, *orelse) for n in walk(s)):
        return False
    first, second = _bindings(body, ctx), _bindings(orelse, ctx)
    if first is None or second is None:
        return False
    (env1, ret1), (env2, ret2) = first, second
    if early:
        if len(ret1) != 1 or len(ret2) != 1 or ret1[0] is not body[-1] or ret1[0].value is None \
                or ret2[0].value is None:
            return False
        one, other = _substituted(ret1[0].value, env1), _substituted(ret2[0].value, env2)
        if _kept(one) or _kept(other):   # an arm handing back a value it did not compute skips the other's work:
            return _skips_elementwise(one, other, ctx) or _skips_elementwise(other, one, ctx)   # the same shape if elementwise
        return _same(one, other)
    if ret1 or ret2:
        return False
    common = set(env1) & set(env2)
    scaled = {name for name in set(env1) ^ set(env2)
              if _self_elementwise(name, env1.get(name, env2.get(name)), ctx)}
    if not common and not scaled:
        return False   # one arm computes, the other skips the work
    for name in set(env1) | set(env2):
        if name in common:
            if not _same(env1[name], env2[name]):
                return False
        elif name not in scaled and _read_after(name, node, function):
            return False   # one arm rebinds a value the code after reads; the other keeps it
    return True


def _self_elementwise(name: str, value: Optional[ast.AST], ctx: FileContext) -> bool:
    """``x = x / 255``, ``datum /= datum.max()``, ``spike_time = (spike_time - spike_time.min()) * k``: the value
    rebound to an elementwise function of itself keeps its shape (session 33: reviewers judge the arm that skips
    such work no dynamic shape)."""
    anchors = _anchors(value, {}) if value is not None else None
    return bool(anchors) and name in anchors and _only_from(value, name, False, ctx)


_MODULES = frozenset({"torch", "F", "np", "numpy", "math"})


def _only_from(value: ast.AST, name: str, called: bool, ctx: FileContext) -> bool:
    """``value`` computes from ``name`` alone: other names only as plain arithmetic operands (a setting, ``num_steps
    - 1``), never handed to a call or called on (``loss + (pred - target).abs().mean()`` adds new work), nor a value
    the model knows as a tensor (``noise * (1 - g) + noise_gray * g`` mixes another tensor in)."""
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, (ast.Name, ast.Attribute)) and ast.unparse(value) == name:
        return True
    if isinstance(value, ast.Name):
        return value.id in _MODULES if called else ctx.resolver.kind_of(value) not in K.TENSORS
    if isinstance(value, ast.Attribute):
        return not called and isinstance(value.value, (ast.Name, ast.Attribute)) \
            and ctx.resolver.kind_of(value) not in K.TENSORS
    if isinstance(value, ast.UnaryOp):
        return _only_from(value.operand, name, called, ctx)
    if isinstance(value, ast.BinOp):
        return _only_from(value.left, name, called, ctx) and _only_from(value.right, name, called, ctx)
    if isinstance(value, ast.Call):
        func = value.func
        receiver = func.value if isinstance(func, ast.Attribute) else None
        if receiver is not None and not _only_from(receiver, name, True, ctx):
            return False
        return all(_only_from(a, name, True, ctx) for a in value.args) \
            and all(_only_from(k.value, name, True, ctx) for k in value.keywords)
    return False


def _skips_elementwise(kept: ast.AST, computed: ast.AST, ctx: FileContext) -> bool:
    """An early ``return out`` against a later ``return torch.where(m, oov, out)``: the value handed back as it is,
    the other an elementwise function of it: one shape either way."""
    return isinstance(kept, (ast.Name, ast.Attribute)) and not _kept(computed) \
        and _self_elementwise(ast.unparse(kept), computed, ctx)


def _kept(value: ast.AST) -> bool:
    """A name or an attribute handed back as it is, or a tuple of them."""
    if isinstance(value, ast.Tuple):
        return any(_kept(e) for e in value.elts)
    return isinstance(value, (ast.Name, ast.Attribute))
