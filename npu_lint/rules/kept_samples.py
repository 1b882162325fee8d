"""The samples a collate function keeps: a list bound to the samples it receives (collate_samples.py) that a test
filters (``[b for b in batch if b is not None]``, ``list(filter(lambda x: x is not None, batch))``, or ``append``
under an ``if`` in a loop over them). Its LENGTH follows the data: the batch size is the number of samples that
pass the test (a sample that failed to load, an image without a face), not the loader's ``batch_size``. The
lists counted by it are asked about too: one field of each kept sample (``[s["img"] for s in kept]``,
``images, labels = zip(*kept)``). Shared by NPU409 (dynamic_samples.py)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.bindings import Binding
from npu_lint.analysis.nodes import body_of
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES, short_source
from npu_lint.rules.collate_samples import collate_samples, may_collate

_KEEP_ORDER = frozenset({"list", "tuple", "sorted"})
_DEPTH = 3


def kept_samples(items: ast.AST, ctx: FileContext) -> Optional[str]:
    """Why the list ``items`` has one item per sample a collate function keeps by a test (the test), else None:
    the kept samples themselves, one field of each (``[s[0] for s in kept]``), or a field unzipped from them."""
    if not may_collate(ctx):
        return None
    if isinstance(items, (ast.ListComp, ast.GeneratorExp)) and len(items.generators) == 1 \
            and not items.generators[0].ifs:
        return _kept_name(items.generators[0].iter, ctx, 0)
    return _kept_name(items, ctx, 0)


def _kept_name(node: ast.AST, ctx: FileContext, depth: int) -> Optional[str]:
    if not isinstance(node, ast.Name) or depth > _DEPTH:
        return None
    binding = ctx.resolver.binding(node)
    return _kept_binding(binding, ctx, depth) if binding is not None else None


def _kept_binding(binding: Binding, ctx: FileContext, depth: int) -> Optional[str]:
    if binding.tag != "value" or depth > _DEPTH:
        return None
    value = binding.value
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _KEEP_ORDER \
            and len(value.args) == 1:
        value = value.args[0]
    if binding.path:    # ``images, labels = zip(*kept)``: one field of every kept sample
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "zip" \
                and len(value.args) == 1 and isinstance(value.args[0], ast.Starred):
            return _in_scope(value.args[0].value, binding, ctx, depth)
        return None
    if isinstance(value, ast.ListComp) and len(value.generators) == 1:
        generator = value.generators[0]
        if isinstance(generator.iter, ast.Name) and _received(generator.iter, binding, ctx):
            if generator.ifs:
                return f"those that pass `{short_source(generator.ifs[0], 40)}`"
            return None
        if not generator.ifs:   # ``[s for s in kept]``: as many as the kept samples
            return _in_scope(generator.iter, binding, ctx, depth)
        return None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "filter" \
            and len(value.args) == 2 and isinstance(value.args[1], ast.Name) \
            and _received(value.args[1], binding, ctx):
        return f"those that `{short_source(value.args[0], 40)}` keeps"
    if isinstance(value, ast.List) and not value.elts and isinstance(binding.scope.node, FUNCTION_TYPES):
        return _appended_under_test(binding, ctx)
    return None


def _in_scope(node: ast.AST, binding: Binding, ctx: FileContext, depth: int) -> Optional[str]:
    if not isinstance(node, ast.Name):
        return None
    inner = ctx.resolver.binding(node, binding.scope)
    return _kept_binding(inner, ctx, depth + 1) if inner is not None else None


def _received(node: ast.Name, binding: Binding, ctx: FileContext) -> bool:
    """``node`` (read where ``binding`` is made) holds the samples a collate function receives."""
    inner = ctx.resolver.binding(node, binding.scope)
    return inner is not None and inner.tag == "param" and collate_samples(inner, ctx) is not None


def _appended_under_test(binding: Binding, ctx: FileContext) -> Optional[str]:
    """``kept = []``, then ``for x in batch: if <test>: kept.append(...)``: a loop over the received samples that
    adds items only when a test passes."""
    name = binding.name
    for loop in _loops(binding.scope.node):
        iterated = loop.iter
        if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) \
                and iterated.func.id == "enumerate" and iterated.args:
            iterated = iterated.args[0]
        if not isinstance(iterated, ast.Name) or not _received(iterated, binding, ctx):
            continue
        skip = next((s for s in loop.body if isinstance(s, ast.If) and not s.orelse
                     and any(isinstance(b, ast.Continue) for b in s.body)), None)
        if skip is not None and any(_appends(s, name) for s in loop.body[loop.body.index(skip) + 1:]):
            return f"those not skipped by `{short_source(skip.test, 40)}`"
        if _always(loop.body, name):
            continue    # every sample adds an item
        for test in _tests(loop.body):
            if _appends(test, name) and not _always(test.body + test.orelse, name, test.orelse):
                return f"those that pass `{short_source(test.test, 40)}`"
    return None


def _appends(node: ast.AST, name: str) -> bool:
    return any(isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and child.func.attr == "append"
               and isinstance(child.func.value, ast.Name) and child.func.value.id == name
               for child in ast.walk(node))


def _always(statements: list[ast.stmt], name: str, orelse: Optional[list[ast.stmt]] = None) -> bool:
    """Every path through an ``if`` adds an item (both arms append): the test picks what to add, not whether."""
    if orelse is not None:
        if not orelse:
            return False
        body = statements[:len(statements) - len(orelse)]
        return _always(body, name) and _always(orelse, name)
    for statement in statements:
        if isinstance(statement, ast.Expr) and _appends(statement, name):
            return True
        if isinstance(statement, ast.If) and statement.orelse and _always(statement.body, name) \
                and _always(statement.orelse, name):
            return True
        if isinstance(statement, (ast.Try, ast.With)) and _always(statement.body, name):
            return True
    return False


def _loops(function: ast.AST) -> list[ast.For]:
    found, stack = [], list(body_of(function))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.For):
            found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return found


def _tests(body: list[ast.stmt]) -> list[ast.If]:
    """The ``if`` statements directly in a loop's body (inside ``try`` / ``with`` too), the arms of an elif chain
    included."""
    found: list[ast.If] = []
    for statement in body:
        if isinstance(statement, ast.If):
            found.append(statement)
        elif isinstance(statement, (ast.Try, ast.With)):
            found += _tests(statement.body)
    return found
