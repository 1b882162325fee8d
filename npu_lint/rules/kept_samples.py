"""The samples a collate function keeps: a list bound to the samples it receives (collate_samples.py) that a test
filters (``[b for b in batch if b is not None]``, ``list(filter(lambda x: x is not None, batch))``, or ``append``
under an ``if`` in a loop over them). Its LENGTH follows the data: the batch size is the number of samples that
pass the test (a sample that failed to load, an image without a face), not the loader's ``batch_size``. The
lists counted by it are asked about too: one field of each kept sample (``[s["img"] for s in kept]``,
``images, labels = zip(*kept)``). Shared by NPU409 (dynamic_samples.py)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import children as _children   # ``ast.iter_child_nodes``, as a list
from npu_lint.analysis import kinds as K
from npu_lint.analysis.bindings import Binding
from npu_lint.analysis.index_forms import passed_argument
from npu_lint.analysis.nodes import body_of
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES, short_source
from npu_lint.rules.collate_samples import collate_samples, may_collate

_KEEP_ORDER = frozenset({"list", "tuple", "sorted"})
_DEPTH = 3


def kept_samples(items: ast.AST, ctx: FileContext) -> Optional[str]:
    """Why the list ``items`` has one item per sample a collate function keeps by a test (the test), else None:
    the kept samples themselves, one field of each (``[s[0] for s in kept]``), or a field unzipped from them."""
    if isinstance(items, (ast.ListComp, ast.GeneratorExp)) and len(items.generators) == 1:
        generator = items.generators[0]
        if not generator.ifs:
            return _kept_name(generator.iter, ctx, 0)
        test = value_filter(generator)
        if test is not None:   # ``torch.cat([x[None] for x in labels if x != ignore_index])``
            return f"element whose value passes `{short_source(test, 40)}`"
        binding = ctx.resolver.binding(generator.iter) if isinstance(generator.iter, ast.Name) else None
        if binding is not None and binding.tag == "param" and may_collate(ctx) \
                and collate_samples(binding, ctx) is not None:   # ``stack([r["x"] for r in batch if "x" in r])``
            return f"sample the collate function keeps (those that pass `{short_source(generator.ifs[0], 40)}`)"
        return None
    return _kept_name(items, ctx, 0)


_VALUE_TESTS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_INDEXERS = frozenset({"range", "enumerate"})


def value_filter(generator: ast.comprehension) -> Optional[ast.expr]:
    """The test of a comprehension over elements that compares an element's own value (``for x in labels if x !=
    ignore``, ``for x, l in zip(boxes, labels) if l != ignore``), else None: joined into one tensor, the number of
    elements kept follows the values. Not a test of a counter (``range``, ``enumerate``'s index), of a size
    (``len(x) > 0``, ``x.shape[0]``), an identity (``is not None``, ``!= None``), a membership (``k in keys``) or a
    key the code names (``for v, n in zip(ps, names) if n != "bias"``)."""
    iterable = generator.iter
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id in _INDEXERS:
        if iterable.func.id == "range":
            return None
        target = generator.target   # ``for i, x in enumerate(xs)``: only ``x`` is an element
        elements = {target.elts[1].id} if isinstance(target, ast.Tuple) and len(target.elts) == 2 \
            and isinstance(target.elts[1], ast.Name) else set()
    else:
        elements = {n.id for n in ast.walk(generator.target) if isinstance(n, ast.Name)}
    for test in generator.ifs:
        if not isinstance(test, ast.Compare) or not all(isinstance(op, _VALUE_TESTS) for op in test.ops):
            continue
        operands = [test.left, *test.comparators]
        if any(isinstance(o, ast.Constant) and (o.value is None or isinstance(o.value, (str, bytes))) for o in operands):
            continue   # ``!= None`` is an identity test; ``name != "bias"`` picks by a key the code names
        if any(isinstance(o, ast.Name) and o.id in elements for o in operands) and not any(
                isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len"
                or isinstance(n, ast.Attribute) and n.attr in ("shape", "ndim", "dtype", "device")
                for o in operands for n in ast.walk(o)):
            return test
    return None


def _kept_name(node: ast.AST, ctx: FileContext, depth: int) -> Optional[str]:
    if not isinstance(node, ast.Name) or depth > _DEPTH:
        return None
    binding = ctx.resolver.binding(node)
    if binding is not None and binding.tag == "param" and depth == 0:
        return _passed_kept(binding, ctx)
    return _kept_binding(binding, ctx, depth) if binding is not None else None


def _passed_kept(binding: Binding, ctx: FileContext) -> Optional[str]:
    """A parameter whose value the file's own calls build by keeping items that pass a test (``maps.append(m)``
    under ``if label == 0`` in the caller, then ``self._quantiles(maps)``)."""
    function = binding.scope.node
    if binding.node is None or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    for call, scope, offset in ctx.resolver.call_sites(function):
        passed = passed_argument(call, function, binding.node, offset)
        inner = ctx.resolver.binding(passed, scope) if isinstance(passed, ast.Name) else None
        why = _kept_binding(inner, ctx, 1) if inner is not None else None
        if why:
            return f"{why}, in the call at line {call.lineno}"
    return None


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
                return f"sample the collate function keeps (those that pass `{short_source(generator.ifs[0], 40)}`)"
            return None
        if not generator.ifs:   # ``[s for s in kept]``: as many as the kept samples
            return _in_scope(generator.iter, binding, ctx, depth)
        return None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "filter" \
            and len(value.args) == 2 and isinstance(value.args[1], ast.Name) \
            and _received(value.args[1], binding, ctx):
        return f"sample the collate function keeps (those `{short_source(value.args[0], 40)}` keeps)"
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
    if not may_collate(ctx):
        return False
    inner = ctx.resolver.binding(node, binding.scope)
    return inner is not None and inner.tag == "param" and collate_samples(inner, ctx) is not None


def _appended_under_test(binding: Binding, ctx: FileContext) -> Optional[str]:
    """``kept = []``, then ``for x in batch: if <test>: kept.append(...)``: a loop over the received samples that
    adds items only when a test passes (memoised per binding: every join of the list asks)."""
    memo = ctx.scratch.setdefault("appended_under_test", {})
    if binding not in memo:
        memo[binding] = _appended_under_test_of(binding, ctx)
    return memo[binding]


def _appended_under_test_of(binding: Binding, ctx: FileContext) -> Optional[str]:
    name = binding.name
    for loop in _loops(binding.scope.node):
        iterated = loop.iter
        if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) \
                and iterated.func.id == "enumerate" and iterated.args:
            iterated = iterated.args[0]
        received = isinstance(iterated, ast.Name) and _received(iterated, binding, ctx)
        items = set() if received else _data_items(loop, binding, ctx)
        if not received and not items:
            continue
        if items and _host_items(loop, name, binding, ctx):
            continue    # items moved to the host (metrics collected per batch): their join compiles nothing on NPU
        whose = "sample the collate function keeps (those" if received else \
            f"item of the data loop at line {loop.lineno} that a test keeps (those"
        skip = next((s for s in loop.body if isinstance(s, ast.If) and not s.orelse
                     and any(isinstance(b, ast.Continue) for b in s.body)), None)
        if skip is not None and (not items or _reads(skip.test, items)) and any(_appends(s, name) for s in loop.body[loop.body.index(skip) + 1:]):
            return f"{whose} not skipped by `{short_source(skip.test, 40)}`)"
        if _always(loop.body, name):
            continue    # every sample adds an item
        for test in _tests(loop.body):
            if items and not _reads(test.test, items):
                continue    # a test of something else than the loop's data (a setting, the loop's counter)
            if _appends(test, name) and not _always(test.body + test.orelse, name, test.orelse):
                return f"{whose} that pass `{short_source(test.test, 40)}`)"
    return None


def _data_items(loop: ast.For, binding: Binding, ctx: FileContext) -> set[str]:
    """The names a loop over data binds to its items: ``for img, label in zip(batch.image, batch.gt_label)`` over a
    loader's batch, ``for x in preds`` over a tensor (not an ``enumerate`` counter); empty when the loop walks
    something else (modules, settings, a range)."""
    target, iterated = loop.target, loop.iter
    if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.func.id == "enumerate" \
            and iterated.args and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        target, iterated = target.elts[1], iterated.args[0]
    sources = [iterated]
    if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.func.id == "zip":
        sources = list(iterated.args)
    if not sources or not all(_data(source, binding, ctx) for source in sources):
        return set()
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _data(source: ast.AST, binding: Binding, ctx: FileContext) -> bool:
    """A tensor, or a field of a loader's batch (``batch.gt_label``, ``batch["label"]``)."""
    kind = ctx.resolver.kind_of_at(source, binding.scope)
    if kind in K.TENSORS:
        return True
    while isinstance(source, (ast.Attribute, ast.Subscript)):
        source = source.value
        if ctx.resolver.kind_of_at(source, binding.scope) == K.BATCH:
            return True
    return False


_HOST_CALLS = frozenset({"cpu", "numpy", "item", "tolist"})


def _host_items(loop: ast.For, name: str, binding: Binding, ctx: FileContext) -> bool:
    """Some item the loop appends is a host value (``x.cpu()``, ``x.item()``, a numpy array)."""
    for child in ast.walk(loop):
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and child.func.attr == "append" \
                and isinstance(child.func.value, ast.Name) and child.func.value.id == name and len(child.args) == 1:
            arg = child.args[0]
            if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _HOST_CALLS
                   for n in ast.walk(arg)):
                return True
            value = ctx.resolver.value_of(arg, binding.scope)
            if value is not None and value[0] in (K.HOST, K.LIST):
                return True
    return False


def _reads(test: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(test))


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
            stack.extend(_children(node))
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
