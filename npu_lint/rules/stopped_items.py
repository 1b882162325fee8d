"""A list that gets one item per step of a loop the data can stop (NPU409, dynamic_samples.py): ``tokens.append(t)``
in ``for step in range(max_new):`` with ``if (t == eos).all(): break``, then ``torch.cat(tokens)``: how many items
there are depends on when a tensor's value ends the loop (a generation stopped at its end token). Nothing here is
a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.index_forms import passed_argument
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import PARAM, Scope
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES
from npu_lint.rules.branch_tests import tensor_test
from npu_lint.rules.sample_lengths import own_nodes

_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def stopped_items(items: ast.AST, node: ast.Call, ctx: FileContext) -> Optional[tuple[ast.AST, ast.AST]]:
    """The loop that appends to the list ``items`` names (``tokens.append(t)``, ``outputs += [out]``,
    ``outs.extend(parts)``; also to the list it was mapped from item by item: ``outs = list(map(f, outs))``,
    ``outs = [o.squeeze(1) for o in outs]``), and the ``if <test on a tensor>: break`` that can end it early, when
    the join ``node`` comes after that loop in the same function; None otherwise. A list the function gets as a
    parameter is looked up at the file's own calls of it (Tacotron's ``self.parse_decoder_outputs(mel_outputs,
    gate_outputs, alignments)`` after its decoding loop, which stacks them)."""
    if not isinstance(items, ast.Name):
        return None
    found = _stopped_before(items, node, ctx.resolver.current, ctx)
    if found is not None:
        return found
    binding = ctx.resolver.binding(items)
    function = binding.scope.node if binding is not None and binding.tag == PARAM else None
    if binding is None or binding.node is None or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    for call, scope, offset in ctx.resolver.call_sites(function):
        passed = passed_argument(call, function, binding.node, offset)
        caller = ctx.enclosing_any(call, FUNCTION_TYPES)
        if not isinstance(passed, ast.Name) or caller is None or caller is function:
            continue
        ctx.resolver.enter_function(caller)   # the caller's tests are asked where they stand
        try:
            found = _stopped_before(passed, call, scope, ctx)
        finally:
            ctx.resolver.leave_scope()
        if found is not None:
            return found
    return None


def _stopped_before(items: ast.Name, node: ast.AST, scope: Scope, ctx: FileContext) -> Optional[tuple[ast.AST, ast.AST]]:
    """The data-stopped loop of the function around ``node`` that adds the items of ``items``, before ``node``."""
    function = ctx.enclosing_any(node, FUNCTION_TYPES)
    if function is None:
        return None
    names = frozenset(_mapped_from(items, scope, ctx))
    memo = ctx.scratch.setdefault("stopping_loops", {})
    key = (function, names)
    found = memo.get(key)
    if found is None:   # per function and lists, not per join: 150 joins of one list walked its loops 150 times
        found = memo[key] = _stopping_loops(function, names, ctx)
    return next(((loop, stop) for loop, stop in found if (loop.end_lineno or loop.lineno) < node.lineno), None)


def _stopping_loops(function: ast.AST, names: frozenset[str], ctx: FileContext) -> list[tuple[ast.AST, ast.AST]]:
    """The data-stopped loops of ``function`` (not of a nested one) that add items to one of the lists ``names``,
    each with its stop, in the order of a walk."""
    found: list[tuple[ast.AST, ast.AST]] = []
    for loop in walk(function):
        if not isinstance(loop, _LOOPS) or ctx.enclosing_any(loop, FUNCTION_TYPES) is not function:
            continue
        appended = _appended(loop, set(names), ctx)
        if not appended:
            continue
        stop = _data_stop(loop, ctx, appended)
        if stop is not None:
            found.append((loop, stop))
    return found


def _mapped_from(items: ast.Name, scope: Scope, ctx: FileContext) -> set[str]:
    """``items`` and the lists it is made of item by item before the join (``outs = list(map(lambda x:
    x.squeeze(1), outs))``, ``[o[0] for o in outs]``, ``list(outs)``): each has as many items as the other."""
    names = {items.id}
    scopes = ctx.resolver.scopes
    name, position = items, (items.lineno, items.col_offset)
    for _ in range(3):
        if scopes is None:
            break
        bindings = scopes.may_reach(name.id, scope, position)
        source = None
        for binding in bindings:
            if binding.tag == "value" and not binding.path and isinstance(binding.value, ast.AST):
                source = _item_map_source(binding.value)
                if source is not None:
                    position = binding.pos
                    break
        if source is None:
            break
        names.add(source.id)
        name = source
    return names


def _item_map_source(value: ast.AST) -> Optional[ast.Name]:
    """The list ``value`` maps item by item: ``list(map(f, xs))``, ``map(f, xs)``, ``list(xs)``, ``tuple(xs)``,
    ``[f(x) for x in xs]`` (one generator, no filter): ``xs``."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("list", "tuple") \
            and len(value.args) == 1 and not value.keywords:
        value = value.args[0]
        if isinstance(value, ast.Name):
            return value
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "map" \
            and len(value.args) == 2 and isinstance(value.args[1], ast.Name):
        return value.args[1]
    if isinstance(value, (ast.ListComp, ast.GeneratorExp)) and len(value.generators) == 1 \
            and not value.generators[0].ifs and isinstance(value.generators[0].iter, ast.Name):
        return value.generators[0].iter
    return None


def _appended(loop: ast.AST, names: set[str], ctx: FileContext) -> list[ast.AST]:
    """The items the loop's own body (not a nested function) adds to one of the lists ``names``:
    ``name.append(x)``, ``name.extend([x, y])``, ``name += [x]`` (not ``extend(rows)`` of a varying number of rows
    per step: transformers' LightGlue adds each early-stopped pair once, every pair by its last layer, a fixed
    total); items that are on the host left out
    (``tokens.append(t.cpu())`` collects host tensors: their stack compiles nothing on NPU)."""
    found: list[ast.AST] = []
    for n in own_nodes(loop):
        added: list[ast.AST] = []
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend") \
                and isinstance(n.func.value, ast.Name) and n.func.value.id in names and len(n.args) == 1:
            arg = n.args[0]
            if n.func.attr == "extend" and not isinstance(arg, (ast.List, ast.Tuple)):
                continue   # a selection's rows per step (LightGlue's early-stopped pairs): each may come once in all
            added = list(arg.elts) if n.func.attr == "extend" else [arg]
        elif isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add) and isinstance(n.target, ast.Name) \
                and n.target.id in names and isinstance(n.value, (ast.List, ast.Tuple)):
            added = list(n.value.elts)
        found.extend(item for item in added if not ctx.resolver.is_host(item))
    return found


_READS = frozenset({"item", "all", "any", "tolist", "sum"})


def _reads_item(test: ast.AST, appended: list[ast.AST]) -> Optional[ast.AST]:
    """A part of ``test`` that reads the value of a name the loop adds to the joined list: ``new_id.item() in
    stop_ids``, ``(tok == eos).all()``, ``bool(done)``. A torch join takes tensors: that name holds one, whatever
    the model could tell of the call that made it."""
    ids = {item.id for item in appended if isinstance(item, ast.Name)}
    if not ids:
        return None
    for part in walk(test):
        if isinstance(part, ast.Call) and isinstance(part.func, ast.Attribute) and part.func.attr in _READS \
                and any(isinstance(n, ast.Name) and n.id in ids for n in walk(part.func.value)):
            return part
        if isinstance(part, ast.Call) and isinstance(part.func, ast.Name) and part.func.id in ("bool", "int", "float") \
                and len(part.args) == 1 and isinstance(part.args[0], ast.Name) and part.args[0].id in ids:
            return part
        if isinstance(part, ast.Compare) and not any(isinstance(op, (ast.Is, ast.IsNot)) for op in part.ops) \
                and any(isinstance(s, ast.Name) and s.id in ids for s in (part.left, *part.comparators)):
            return part
    return None


def _data_stop(loop: ast.AST, ctx: FileContext, appended: list[ast.AST]) -> Optional[ast.AST]:
    """``if <test on a tensor>: break`` that ends ``loop`` itself (not a loop nested in it); a test that reads the
    value of an item the loop adds to the joined list counts too. (A ``while`` loop's own test on a tensor is
    left out: a schedule planned on the host, diffusers' SkyReels ``while not torch.all(pre_row >= n - 1):``
    of CPU tensors, has as many rows as its settings say.)"""
    for node in own_nodes(loop):
        if isinstance(node, ast.If) and node.body and isinstance(node.body[-1], ast.Break) \
                and ctx.enclosing_any(node, (*_LOOPS, *FUNCTION_TYPES)) is loop \
                and (tensor_test(node.test, ctx) is not None or _reads_item(node.test, appended) is not None):
            return node
    return None
