"""Loops whose number of iterations is a value of the data (NPU403, dynamic_values.py): ``for lb in
torch.unique(kernel)``, ``for expert in mask.nonzero()``, ``for b, l in zip(boxes[keep], labels[keep])``, whose body
leaves tensor work behind each iteration (builds tensors to join, writes into a tensor, carries one across
iterations, runs an in-place op): the step runs one more set of operators per element, a new graph per count.
Also ``for i in range(num_gt)`` over the items of an input the function checks for zero (``if num_gt == 0:``), and
a tensor made of the items a comprehension keeps by values read back (``torch.tensor(non_finished)``).
Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.data_shapes import data_shaped
from npu_lint.analysis.index_forms import is_range
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.host_indices import host_selection
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES, short_source
from npu_lint.rules.read_backs import filtered_by_read_back


def loop_over_data(loop: ast.For, ctx: FileContext) -> Optional[tuple[ast.AST, str]]:
    """The data-dependent op whose result the loop walks and what varies with it, else None."""
    op = None
    for iterated in ctx.resolver.loop_sources(loop.iter):
        if isinstance(iterated, (ast.Name, ast.Call, ast.Subscript)):
            op = data_shaped(ctx.resolver, iterated, ctx.resolver.current)
            if op is not None:
                break
    if op is None:   # ``for b in [i for i, fin in enumerate(finished.tolist()) if fin[0]]``
        op = filtered_by_read_back(loop.iter, ctx)
    if op is None:
        return None
    if _builds(loop, ctx):
        return op, "the tensors it builds vary in number"
    if _computes(loop, ctx):
        return op, "the number of operators the step runs varies with it"
    return None


def loop_over_counted_items(loop: ast.For, ctx: FileContext) -> Optional[tuple[ast.AST, ast.AST, str]]:
    """``for i in range(num_gt)`` with ``num_gt = gt_bboxes.size(0)`` in a function that checks that count for zero
    (``if num_gt == 0:``): a loop once per item of an input whose count the code itself expects to vary. Returns
    (the size read, the zero test, the effect) when the body leaves tensor work behind, else None."""
    function = ctx.enclosing(loop, FUNCTION_TYPES)
    sources = ctx.resolver.loop_sources(loop.iter)
    if function is None or len(sources) != 1:
        return None
    source = sources[0]
    if not (is_range(source) and len(source.args) == 1 and not source.keywords):
        return None
    count = source.args[0]
    read = _size_read(count) or _bound_size_read(count, loop, ctx)
    if read is None:
        return None
    measured, name = read
    test = _zero_test(_zero_tests(function, ctx), measured, name)
    if test is None:
        return None
    if _builds(loop, ctx):
        return measured, test, "the tensors it builds vary in number"
    if _computes(loop, ctx):
        return measured, test, "the number of operators the step runs varies with it"
    return None


def _size_read(node: ast.AST) -> Optional[tuple[ast.AST, Optional[str]]]:
    """(the measured name, None) for ``t.size(0)``, ``t.shape[0]``, ``len(t)`` of a name ``t``."""
    measured = None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" \
            and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and node.args[0].value == 0:
        measured = node.func.value
    elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
            and isinstance(node.slice, ast.Constant) and node.slice.value == 0:
        measured = node.value.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
            and len(node.args) == 1:
        measured = node.args[0]
    return (measured, None) if isinstance(measured, ast.Name) else None


def _bound_size_read(count: ast.AST, loop: ast.For, ctx: FileContext) -> Optional[tuple[ast.AST, Optional[str]]]:
    """``num_gt`` bound once, before the loop, to a size read (``num_gt, n = gt.size(0), b.size(0)`` too)."""
    if not isinstance(count, ast.Name) or ctx.resolver.scopes is None:
        return None
    bindings = ctx.resolver.scopes.may_reach(count.id, ctx.resolver.current, (count.lineno, count.col_offset))
    if len(bindings) != 1 or not isinstance(bindings[0].value, ast.AST):
        return None
    binding = bindings[0]
    value = binding.value
    if binding.path:
        if len(binding.path) != 1 or not isinstance(value, ast.Tuple) or not isinstance(binding.path[0], int) \
                or binding.path[0] >= len(value.elts):
            return None
        value = value.elts[binding.path[0]]
    read = _size_read(value)
    return (read[0], count.id) if read is not None else None


def _zero_tests(function: ast.AST, ctx: FileContext) -> list[ast.AST]:
    """The function's comparisons with 0 and its ``not x`` tests, in walk order: one walk per function and file."""
    memo = ctx.scratch.setdefault("zero_tests", {})
    found = memo.get(id(function))
    if found is None:
        # session 27: a test whose arm only raises validates an argument (``if num_classes == 0: raise
        # ValueError(...)`` of a configuration list), it does not expect the count to be zero at run time
        validated = {id(n) for node in walk(function) if isinstance(node, ast.If) and not node.orelse
                     and all(isinstance(s, ast.Raise) for s in node.body) for n in walk(node.test)}
        found = memo[id(function)] = [
            node for node in walk(function)
            if id(node) not in validated and (
                (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq))
                 and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value == 0)
                or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)))]
    return found


def _zero_test(tests: list[ast.AST], measured: ast.Name, name: Optional[str]) -> Optional[ast.AST]:
    """A test in the function that the count is zero: ``num_gt == 0``, ``not num_gt``, ``gt.numel() == 0``,
    ``len(gt) == 0``, ``gt.size(0) == 0``, ``gt.shape[0] == 0``."""
    for node in tests:
        if isinstance(node, ast.Compare):
            left = node.left
            if name is not None and isinstance(left, ast.Name) and left.id == name:
                return node
            read = _size_read(left)
            if read is None and isinstance(left, ast.Call) and isinstance(left.func, ast.Attribute) \
                    and left.func.attr == "numel" and not left.args and isinstance(left.func.value, ast.Name):
                read = (left.func.value, None)
            if read is not None and read[0].id == measured.id:
                return node
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and name is not None \
                and isinstance(node.operand, ast.Name) and node.operand.id == name:
            return node
    return None


def _computes(loop: ast.For, ctx: FileContext) -> bool:
    """The loop's body leaves tensor work behind each iteration: it writes into a tensor (``out[ids == lb] = v``,
    ``x[inds] = f(x[inds])`` with a tensor index, ``acc[i] += x.sum()``, ``y.index_add_(0, idx, v)``) or carries a
    tensor from one iteration to the next (``loss = loss + d.mean()``, ``total += x.sum()``). Tensors computed only
    to be read back (a log line, a run-length encoding, counts written into a numpy array) leave nothing on the
    device."""
    resolver = ctx.resolver
    for statement in loop.body:
        for child in walk(statement):
            if isinstance(child, (ast.Assign, ast.AugAssign)):
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                for target in targets:
                    if isinstance(target, ast.Subscript) and not resolver.is_host(target.value) and (
                            resolver.is_tensor(target.value) or _tensor_index(target.slice, ctx)
                            or (isinstance(child, ast.AugAssign) and resolver.is_tensor(child.value))):
                        return True
                    if isinstance(target, ast.Name) and resolver.is_tensor(child.value) and (
                            isinstance(child, ast.AugAssign) or any(isinstance(n, ast.Name) and n.id == target.id
                                                                    for n in walk(child.value))):
                        return True
            elif isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) \
                    and child.func.attr.endswith("_") and not child.func.attr.startswith("_") \
                    and resolver.is_tensor(child.func.value):
                return True
    return False


def _tensor_index(index: ast.AST, ctx: FileContext) -> bool:
    """``x[inds]``, ``x[i, inds]``: an index the model says is a tensor (a mask or index tensor: ``x`` is one too)."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return any(not isinstance(part, (ast.Slice, ast.Constant)) and ctx.resolver.is_tensor(part) for part in parts)


def _concatenates(call: ast.Call, ctx: FileContext) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr in ("cat", "stack", "concat") \
        and (ctx.resolver.qualname(call.func) or "").startswith("torch.")


def _builds(loop: ast.For, ctx: FileContext) -> bool:
    """The loop's body appends tensors to a list (a tensor, or a list that is concatenated or stacked later)
    or concatenates them: one tensor (or one row) per element (a list of host values, such as run-length
    encodings, is no tensor shape)."""
    lists: set[str] = set()
    for child in walk(loop):
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute):
            if child.func.attr == "append" and len(child.args) == 1:
                if ctx.resolver.is_tensor(child.args[0]):
                    return True
                if isinstance(child.func.value, ast.Name):
                    lists.add(child.func.value.id)
            elif _concatenates(child, ctx):
                return True
    scope = ctx.enclosing(loop, FUNCTION_TYPES)
    return bool(lists) and scope is not None and any(
        isinstance(c, ast.Call) and _concatenates(c, ctx) and c.args and isinstance(c.args[0], ast.Name)
        and c.args[0].id in lists for c in walk(scope))


_LIST_TENSORS = frozenset({"torch.tensor", "torch.as_tensor", "torch.LongTensor", "torch.Tensor"})


def tensor_of_kept(call: ast.Call, ctx: FileContext) -> Optional[ast.AST]:
    """``torch.tensor(non_finished)`` (``x.new_tensor(...)`` too) of a list a comprehension keeps by values read back
    (``non_finished = [i for i, f in enumerate(fin.tolist()) if not f[0]]``): the comprehension, else None."""
    if not call.args or not isinstance(call.func, (ast.Name, ast.Attribute)):
        return None
    func = call.func
    if not (ctx.resolver.qualname(func) in _LIST_TENSORS
            or (isinstance(func, ast.Attribute) and func.attr == "new_tensor" and ctx.resolver.is_tensor(func.value))):
        return None
    return filtered_by_read_back(call.args[0], ctx)


_KEPT = ("{call} is as long as the items {kept} keeps by values read back (line {line}): a sync, and a new "
         "shape per count on NPU; keep every item and mask the finished ones")


def report_kept(call: ast.Call, ctx: FileContext) -> bool:
    """Report (NPU403) ``torch.tensor(kept)`` of a list kept by values read back; True when reported."""
    kept = tensor_of_kept(call, ctx)
    if kept is None:
        return False
    if call.args and host_selection(ctx.resolver, call.args[0], ctx.resolver.current) is not None:
        return True   # positions kept by values read back: a nonzero on the host, NPU401's (one finding)
    ctx.report(call, _KEPT.format(call=short_source(call, 30), kept=short_source(kept, 40), line=kept.lineno),
               "tensor()")
    return True
