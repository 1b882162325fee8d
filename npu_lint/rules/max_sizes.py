"""The broad path of NPU405 for sizes (session 23, values23): a tensor made, or padded, to a size computed from a
maximum of ``max()`` over the items of a sequence, whatever the items are.

The proof-based path (:mod:`npu_lint.analysis.batch_extremes`) accepts a maximum when it sees the items' lengths
(``max(len(s) for s in batch)``); :mod:`npu_lint.rules.broad_padding` a padding count ``m - measure``. New code
reaches the factory through forms neither follows: the longest item picked by a key function and then measured
(openspeech: ``max(batch, key=seq_length_)[0]`` ... ``torch.zeros(b, sample.size(0), d)``), the longest along each
axis spread into ``max`` (FastNLP: ``[len(b)] + [max(*_) for _ in zip(*shapes)]`` ... ``torch.full(max_shape, pad)``),
pad widths a local helper computes from the maximum (ptls: ``F.pad(x, get_pad(x, max_len))`` of ``max_len =
max(x.size()[0] for x in sequence)``). Here the builtin ``max`` over a sequence (one iterable, a starred list or a
``key=``) is the trigger when the size of a new tensor or of a padding is computed from it, through names of the
function, indexing, ``.size()`` / ``.shape`` / ``len()`` of what it picked, lists, arithmetic, conversions and the
file's own helpers. Silent when the maximum is proven fixed: over a literal, a module constant, configuration
(:func:`npu_lint.analysis.configuration.from_constants`), the longer of a few named values (``max(h, w)``), in code
run at setup, or in test code. Nothing here reports: dynamic_padding.py does."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.configuration import from_constants
from npu_lint.analysis.scopes import VALUE
from npu_lint.analysis.setup_time import runs_at_setup
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES
from npu_lint.rules.test_scope import test_code

_DEPTH = 6
_CONVERTS = frozenset({"int", "float", "round", "abs", "list", "tuple", "ceil", "floor"})


def maximum_size(args: list[ast.AST], node: ast.AST, ctx: FileContext) -> Optional[ast.Call]:
    """The ``max()`` call one of the size (or pad width) arguments ``args`` of ``node`` is computed from in the
    function of ``node``, not proven fixed; None otherwise."""
    function = ctx.enclosing(node, FUNCTION_TYPES)
    scopes = ctx.resolver.scopes
    if function is None or scopes is None or test_code(node, ctx) or runs_at_setup(function, ctx.resolver):
        return None
    scope = scopes.scope_of(function)
    if scope is None or _model_state(node, function, ctx):
        return None
    for arg in args:
        found = _derived(arg, scope, ctx, 0, set())
        if found is not None:
            return found
    return None


def _model_state(node: ast.AST, function: ast.AST, ctx: FileContext) -> bool:
    """``self.register_buffer(name, torch.full((len(vocab), longest), pad))`` / ``nn.Parameter(...)``, or a tensor
    a constructor keeps in ``self.x``: state built once with the model (FastNLP's character embedding)."""
    parent = ctx.parent(node)
    while parent is not None and not isinstance(parent, ast.stmt):
        if isinstance(parent, ast.Call) and (getattr(parent.func, "attr", None) or getattr(parent.func, "id", None)) \
                in ("register_buffer", "Parameter"):
            return True
        parent = ctx.parent(parent)
    return getattr(function, "name", "") == "__init__" and isinstance(parent, ast.Assign) and any(
        isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self" for t in parent.targets)


def _derived(value: ast.AST, scope, ctx: FileContext, depth: int, seen: set) -> Optional[ast.Call]:
    if depth > _DEPTH or value is None or id(value) in seen:
        return None
    seen.add(id(value))
    step = depth + 1
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Name) and func.id == "max" and ctx.resolver.definition(func) is None:
            return value if _sequence_maximum(value, scope, ctx) else None
        last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if last in ("size", "numel") and isinstance(func, ast.Attribute):
            return _derived(func.value, scope, ctx, step, seen)   # ``longest.size(0)`` of the item picked
        if last == "len" and len(value.args) == 1:
            return _derived(value.args[0], scope, ctx, step, seen)
        if last in _CONVERTS or (isinstance(func, ast.Attribute) and last == "item"):
            inner = value.args[0] if value.args else func.value if isinstance(func, ast.Attribute) else None
            return _derived(inner, scope, ctx, step, seen) if inner is not None else None
        if isinstance(func, ast.Name) and isinstance(ctx.resolver.definition(func), FUNCTION_TYPES):
            for arg in value.args:   # ``get_pad(x, max_len)``: the file's own helper computing from the maximum
                found = _derived(arg, scope, ctx, step, seen)
                if found is not None:
                    return found
        return None
    if isinstance(value, ast.Name):
        for binding in ctx.resolver.scopes.may_reach(value.id, scope, (value.lineno, value.col_offset)):
            if binding.tag != VALUE or binding.path or binding.scope is not scope \
                    or not isinstance(binding.value, ast.AST):
                continue
            found = _derived(binding.value, scope, ctx, step, seen)
            if found is not None:
                return found
        return None
    if isinstance(value, ast.Subscript):
        if isinstance(value.value, ast.Attribute) and value.value.attr == "shape":
            return _derived(value.value.value, scope, ctx, step, seen)
        return _derived(value.value, scope, ctx, step, seen)   # ``max(batch, key=f)[0]``, ``max_shape[1]``
    if isinstance(value, ast.Attribute) and value.attr == "shape":
        return _derived(value.value, scope, ctx, step, seen)
    if isinstance(value, ast.BinOp):
        return _derived(value.left, scope, ctx, step, seen) or _derived(value.right, scope, ctx, step, seen)
    if isinstance(value, ast.IfExp):
        return _derived(value.body, scope, ctx, step, seen) or _derived(value.orelse, scope, ctx, step, seen)
    if isinstance(value, (ast.Tuple, ast.List)):
        for element in value.elts:
            found = _derived(element.value if isinstance(element, ast.Starred) else element, scope, ctx, step, seen)
            if found is not None:
                return found
        return None
    if isinstance(value, (ast.ListComp, ast.GeneratorExp)):
        return _derived(value.elt, scope, ctx, step, seen)
    return None


def _sequence_maximum(call: ast.Call, scope, ctx: FileContext) -> bool:
    """``max(len(x) for x in items)``, ``max(*sizes)``, ``max(items, key=f)``: the largest of a sequence of sizes
    (something in it is measured: ``len()``, ``.size()``, ``.shape``, ``.numel()``, directly, through the names it
    is computed from or a helper of the file), not of a literal, a module constant or configuration; ``max(a, b)``
    of a few values is none, and so is the largest label of a batch (``max(s["label"] for s in batch)``)."""
    keywords = {kw.arg: kw.value for kw in call.keywords}
    if any(k not in ("key", "default") for k in keywords):
        return False
    args = call.args
    if len(args) == 2 and isinstance(args[0], ast.Starred) and isinstance(args[1], ast.Constant):
        args = args[:1]   # ``max(*sizes, 1)``: at least a floor
    if len(args) != 1:
        return False
    items = args[0].value if isinstance(args[0], ast.Starred) else args[0]
    if isinstance(items, (ast.List, ast.Tuple, ast.Set)) and all(isinstance(e, ast.Constant) for e in items.elts):
        return False
    if isinstance(items, ast.Name):
        binding = ctx.resolver.binding(items)
        if binding is not None and binding.scope is not None and binding.scope.kind == "module":
            return False   # a module constant
        if any(isinstance(b.value, ast.List) and not b.value.elts for b in ctx.resolver.scopes.may_reach(
                items.id, scope, (items.lineno, items.col_offset))):
            return False   # a list filled by ``append``: the proof-based path judges what is appended
    if isinstance(items, (ast.GeneratorExp, ast.ListComp)) and len(items.generators) != 1:
        return False   # a grid's cells (``for row in grid for c in row``): the proof-based path judges nested loops
    target = items.generators[0].iter if isinstance(items, (ast.GeneratorExp, ast.ListComp)) else items
    if from_constants(target, ctx.resolver, scope):
        return False
    if "key" in keywords:
        return _measures(keywords["key"], scope, ctx, 0)
    if isinstance(items, ast.Name) and not _bound_in(items, scope, ctx):
        comprehension = _comprehension_of(call, items.id, ctx)   # ``[max(*s) for s in zip(*shapes)]``
        return comprehension is not None and _measures(comprehension.iter, scope, ctx, 0)
    return _measures(items, scope, ctx, 0)


_MEASURES = frozenset({"size", "numel", "nelement"})


def _measures(expr: ast.AST, scope, ctx: FileContext, depth: int) -> bool:
    """Something in ``expr`` is a size: ``len(x)``, ``x.size()``, ``x.shape``, ``x.numel()``, ``len`` itself, a name
    of the function bound to one, or a call of the file's own function (or a lambda) that returns one."""
    if depth > 3:
        return False
    for node in ast.walk(expr):
        if isinstance(node, ast.Name) and node.id == "len" and ctx.resolver.definition(node) is None:
            return True
        if isinstance(node, ast.Attribute) and (node.attr == "shape" or node.attr in _MEASURES
                                                and isinstance(ctx.parent(node), ast.Call)):
            return True
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            definition = ctx.resolver.definition(node)
            if isinstance(definition, FUNCTION_TYPES) and any(
                    _measures(r.value, scope, ctx, depth + 1) for r in ast.walk(definition)
                    if isinstance(r, ast.Return) and r.value is not None):
                return True
            for binding in ctx.resolver.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset)):
                if binding.tag == VALUE and not binding.path and binding.scope is scope \
                        and isinstance(binding.value, ast.AST) and binding.value is not expr \
                        and _measures(binding.value, scope, ctx, depth + 1):
                    return True
    return False


def _bound_in(name: ast.Name, scope, ctx: FileContext) -> bool:
    return any(b.scope is scope for b in ctx.resolver.scopes.may_reach(name.id, scope, (name.lineno, name.col_offset)))


def _comprehension_of(node: ast.AST, name: str, ctx: FileContext) -> Optional[ast.comprehension]:
    """The generator of the comprehension around ``node`` whose target binds ``name``."""
    parent = ctx.parent(node)
    while parent is not None and not isinstance(parent, (ast.stmt,)):
        if isinstance(parent, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            for generator in parent.generators:
                if any(isinstance(t, ast.Name) and t.id == name for t in ast.walk(generator.target)):
                    return generator
        parent = ctx.parent(parent)
    return None
