"""Evidence, in a loop over the samples of a batch, that their number of rows differs: the loop writes one tag
per row of each sample, the sample's index repeated by a count the sample gives (``tags += [i] * len(parts)``,
``idx += [i for _ in range(counts[uid])]``): a tag list is only needed when the counts differ. What follows is
shared by NPU409 (dynamic_samples.py): the tag list made a tensor is as long as all the rows of the batch, and a
list the same loop extends by the very pieces it counts (``splits.extend(parts)``) holds a number of items that
changes with the data. Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from npu_lint.analysis.nodes import walk
from npu_lint.analysis.setup_time import runs_at_setup
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES
from npu_lint.rules.chunk_steps import derived, model_call
from npu_lint.rules.collate_samples import collate_path
from npu_lint.rules.sample_lengths import enumerated, measured_item


def _loops(function: ast.AST) -> Iterator[ast.For]:
    for node in walk(function):
        if isinstance(node, ast.For):
            yield node


def _tag_loops(function: Optional[ast.AST], ctx: FileContext) -> list[tuple[ast.For, dict[str, ast.AST]]]:
    """The loops of ``function`` that tag rows (:func:`row_tags`), found once per function: a file of many
    conversions in one function asks once, not once per conversion."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    memo = ctx.scratch.setdefault("tag_loops", {})
    found = memo.get(id(function))
    if found is None:
        found = memo[id(function)] = [(loop, tags) for loop in _loops(function) for tags in [row_tags(loop)] if tags]
    return found


def _repeated(value: ast.AST, index: str) -> Optional[ast.AST]:
    """The count of ``[i] * n`` / ``n * [i]`` / ``[i for _ in range(n)]`` (``i`` the loop's index), else None."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        for tag, count in ((value.left, value.right), (value.right, value.left)):
            if isinstance(tag, ast.List) and len(tag.elts) == 1 and isinstance(tag.elts[0], ast.Name) \
                    and tag.elts[0].id == index:
                return count
    if isinstance(value, ast.ListComp) and len(value.generators) == 1 and isinstance(value.elt, ast.Name) \
            and value.elt.id == index and not value.generators[0].ifs:
        iterated = value.generators[0].iter
        if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.func.id == "range" \
                and len(iterated.args) == 1:
            return iterated.args[0]
    return None


def row_tags(loop: ast.For) -> dict[str, ast.AST]:
    """The lists ``loop`` (over ``enumerate(samples)``) extends with one tag per row of its sample: list name ->
    the count, which must come from the sample (a name the loop binds or assigns: ``len(parts)`` after ``parts =
    split(image)``, ``counts[uid]``), not from a setting (``[i] * self.n_views``)."""
    counted = enumerated(loop.target, loop.iter)
    if counted is None:
        return {}
    index, item_names = counted
    bound = set(item_names) | {n.id for n in walk(loop) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound.discard(index)
    found: dict[str, ast.AST] = {}
    for node in walk(loop):
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name):
            name, value = node.target.id, node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "extend" \
                and isinstance(node.func.value, ast.Name) and len(node.args) == 1:
            name, value = node.func.value.id, node.args[0]
        else:
            continue
        count = _repeated(value, index)
        if count is not None and not isinstance(count, ast.Constant) \
                and {n.id for n in walk(count) if isinstance(n, ast.Name)} & bound:
            found[name] = count
    return found


def _per_batch(function: Optional[ast.AST], ctx: FileContext, result: Optional[ast.AST] = None) -> bool:
    """``function`` builds a batch: a collate function (or what one hands its samples to), or a function that
    gives ``result`` (or what it binds from it) to a model; never a constructor's setup (a dataset's labels)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or runs_at_setup(function, ctx.resolver):
        return False
    if collate_path(function, ctx):
        return True
    if result is None:
        return False
    if model_call(function.body, set(), ctx, result) is not None:
        return True     # ``model(torch.stack(splits))``
    statement = ctx.parent(result)
    while statement is not None and not isinstance(statement, ast.stmt):
        statement = ctx.parent(statement)
    if not isinstance(statement, ast.Assign):
        return False
    names = {n.id for t in statement.targets for n in walk(t) if isinstance(n, ast.Name)}
    return bool(names) and model_call(function.body, derived(function.body, names), ctx) is not None


def tagged_list(converter: ast.Call, ctx: FileContext) -> Optional[ast.For]:
    """The loop that writes the tags of ``torch.tensor(tags)`` (``torch.from_numpy(np.array(tags))``) one per row
    of each sample, in a function that runs per batch (not a constructor's setup), else None."""
    arg = converter.args[0] if len(converter.args) == 1 else None
    if isinstance(arg, ast.Call) and len(arg.args) == 1 and isinstance(arg.func, ast.Attribute) \
            and arg.func.attr in ("array", "asarray"):
        arg = arg.args[0]      # ``torch.from_numpy(np.array(tags))``
    function = ctx.enclosing(converter, FUNCTION_TYPES)
    if not isinstance(arg, ast.Name):
        return None
    loop = next((loop for loop, tags in _tag_loops(function, ctx) if arg.id in tags), None)
    return loop if loop is not None and _per_batch(function, ctx, converter) else None


def counted_pieces(items: ast.Name, call: ast.Call, ctx: FileContext) -> Optional[ast.For]:
    """The loop that extends the list ``items`` (or the list a comprehension bound to ``items`` walks, ``splits =
    [prep(s) for s in splits]``) by pieces it also tags one per row (``splits.extend(parts)`` beside ``index +=
    [i] * len(parts)``): the number of items changes with the data. None otherwise."""
    function = ctx.enclosing(call, FUNCTION_TYPES)
    tag_loops = _tag_loops(function, ctx)
    if not tag_loops or not _per_batch(function, ctx, call):
        return None
    names = {items.id}
    binding = ctx.resolver.binding(items)
    value = binding.value if binding is not None and binding.tag == "value" and not binding.path else None
    if isinstance(value, (ast.ListComp, ast.GeneratorExp)) and len(value.generators) == 1 \
            and not value.generators[0].ifs and isinstance(value.generators[0].iter, ast.Name):
        names.add(value.generators[0].iter.id)   # one item per item of the list it walks
    for loop, tags in tag_loops:
        measured = {ast.dump(found) for count in tags.values() for node in walk(count)
                    if (found := measured_item(node)) is not None}
        for node in walk(loop):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "extend" \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in names and len(node.args) == 1 \
                    and ast.dump(node.args[0]) in measured:
                return loop
            if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name) \
                    and node.target.id in names and ast.dump(node.value) in measured:
                return loop
    return None


def accumulated_rows(call: ast.Call, ctx: FileContext) -> Optional[ast.For]:
    """``acc = torch.cat((acc, piece), 0)`` directly in a loop over the samples that tags each sample's rows (one
    tag per row, ``tags += [i] * counts[uid]``): the accumulated tensor holds the rows of every sample of the batch,
    a number that changes with the data. None otherwise."""
    parent = ctx.parent(call)
    items = call.args[0] if call.args else None
    if not isinstance(parent, ast.Assign) or len(parent.targets) != 1 or not isinstance(parent.targets[0], ast.Name) \
            or not isinstance(items, (ast.Tuple, ast.List)) or not items.elts \
            or not any(isinstance(e, ast.Name) and e.id == parent.targets[0].id for e in items.elts):
        return None
    loop = ctx.enclosing(parent, (ast.For, ast.While, *FUNCTION_TYPES))
    if not isinstance(loop, ast.For) or not row_tags(loop) \
            or not _per_batch(ctx.enclosing(loop, FUNCTION_TYPES), ctx, call):
        return None
    return loop
