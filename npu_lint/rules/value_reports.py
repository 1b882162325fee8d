"""Where and how NPU403 (dynamic_values.py) reports a size taken from a tensor's value: at the size (naming the chain
of a data-dependent result, ``unique() → .size(0) → new_zeros()``, or what a loop count varies), once at each read on
another line than the size it reaches (naming every size it reaches: the read is the sync and the line a fixed
bound replaces), and at loops over the elements or items of data. The messages are the rule's. Nothing here is a
rule.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis.data_shapes import data_shaped, host_op
from npu_lint.analysis.flows import DATA_SIZE, ELEMENT, HOST, PICKED, ZERO_D, Flow
from npu_lint.analysis.setup_time import host_only_loop
from npu_lint.analysis.size_sinks import _FIRST_IS_INPUT, FACTORIES, LOOP_COUNT as _LOOP_COUNT
from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules import short_source
from npu_lint.rules.data_loops import loop_over_counted_items, loop_over_data
from npu_lint.rules.value_flow import origin_text

if TYPE_CHECKING:
    from npu_lint.rules.dynamic_values import TensorValueInShape


def report_loop(rule: "TensorValueInShape", node: ast.For, ctx: FileContext) -> None:
    """``for c in labels.unique():`` whose body leaves tensor work behind."""
    found = loop_over_data(node, ctx)
    if found is not None:
        op, effect = found
        ctx.report(node, rule.loop_message.format(op=short_source(op), line=op.lineno, effect=effect), "for")
        return
    counted = loop_over_counted_items(node, ctx)
    if counted is not None:
        measured, test, effect = counted
        ctx.report(node, rule.count_message.format(items=short_source(measured), line=test.lineno,
                                                   effect=effect), "for")


def report_read(rule: "TensorValueInShape", node: ast.AST, sink: str, origin: Flow, ctx: FileContext) -> None:
    """Also report the read itself, once, when it is on another line than the size it reaches (``n =
    int(t.max())`` above ``torch.zeros(n)``; ``batch_size = coors[-1, 0] + 1`` above ``range(batch_size)``, session
    24): the read is the sync and the line a fixed bound replaces; the message names every size it reaches. Not the
    count of a data-dependent result (``n = idx.shape[0]``): a shape read, its op is the site."""
    flavour, read = origin
    if flavour == DATA_SIZE or (flavour in (ELEMENT, PICKED) and not isinstance(read, ast.Subscript)) \
            or isinstance(read, ast.stmt) or getattr(read, "lineno", None) in (None, node.lineno) \
            or ctx.statement_of(read) is None or ctx.statement_of(read) is ctx.statement_of(node):
        return
    if read not in ctx.parents and not _read_below(read, node, ctx):
        return   # a read further down the file, in a caller passing it to this helper: its call is reported
    reported = ctx.scratch.setdefault("value_reads", {})
    finding, uses = reported.get(id(read), (None, []))
    use = f"{sink} (line {node.lineno})"
    if use in uses:
        return
    uses.append(use)
    more = f" and {len(uses) - 2} more" if len(uses) > 2 else ""
    listed = ", ".join(uses[:2]) + more
    reads = "reads a tensor's value back to the host" if flavour == HOST else \
        "is a 0-d tensor of the data" if flavour == ZERO_D else "is an element of a tensor"
    text = rule.read_message.format(origin=short_source(read), reads=reads, uses=listed)
    reported[id(read)] = (ctx.report(read, text, "value") if finding is None else ctx.amend(finding, text), uses)


def report_flow(rule: "TensorValueInShape", node: ast.AST, sink: str, origin: Flow, ctx: FileContext,
                args: Optional[list[ast.AST]] = None) -> None:
    """The finding at the size (naming the first flow), and one at each read on another line that reaches it
    (``batch_size * max_num_nodes``: both reads)."""
    flows = [f for a in args for f in ctx.resolver.flows(a) if f[0] in rule.kinds or f[0] == origin[0]] \
        if args else [origin]   # ``coors[-1, 0]`` (picked) where a loop count asked for it
    for flow in dict((id(f[1]), f) for f in flows).values():
        report_read(rule, node, sink, flow, ctx)
    if origin[0] == DATA_SIZE and _whole_shape(node, origin[1]):
        return   # ``x.new_ones(y.shape)``: shaped like ``y``, whose size the data-dependent op made (reported
        #          there), as ``ones_like(y)`` is: no new size
    if _reshaped_again(node, origin, ctx):
        return   # ``t.view(n, k)`` of a tensor made with ``k`` already (``torch.full((n * k,), ...)``, a call given
        #          ``k``): its element count was set where it was made, reported there; the view adds no size
    if sink == _LOOP_COUNT and origin[1].lineno != node.lineno and host_only_loop(ctx.parent(node), ctx.resolver):
        return   # a loop building a Python list (``cells.append([i, j, k])``): the read, reported on its own line,
        #          is the sync; the count changes no operator the device runs
    read = origin[1]
    chain = None
    if origin[0] == DATA_SIZE:
        measured = read.args[0] if isinstance(read, ast.Call) and isinstance(read.func, ast.Name) else \
            read.func.value if isinstance(read, ast.Call) else \
            read.value.value if isinstance(read, ast.Subscript) else read.value
        op = data_shaped(ctx.resolver, measured, ctx.resolver.current)
        chain = (f"{short_source(op)} → " if op is not None and op is not measured else "") + short_source(read)
        if host_op(ctx.resolver, op) and not _device_sink(node, sink, ctx):
            return   # ``len(np.unique(labels))`` sizing numpy work or a host loop: no NPU shape
    # The count of a data-dependent result sizes something here: the op that made the count (``x[mask]``,
    # ``torch.unique(x)``) is the shape's one creation site. Where that op has a finding of its own in this file
    # (NPU401 / NPU402), the size only follows it, a consumer (``offsets[mask]`` ... ``.expand(len(offsets), 3)``):
    # one data-dependent shape, one finding (``ctx.report_repeat`` drops this one once the file is walked).
    # Not a factory of torch making a new tensor of that size (``torch.randperm(len(sel))``, ``torch.arange(n0, n0 +
    # len(kept))``) nor a slice bound of another tensor (``knn[i, :len(sel)]``): shape sites of their own.
    site = op if chain is not None and op is not None and _in_file(op, ctx) \
        and (sink == _LOOP_COUNT or not _new_tensor(node, ctx)) else None
    if sink == _LOOP_COUNT:   # a loop: what varies is the number of operators the step runs
        what = f"the count of a data-dependent result, {chain}" if chain else f"a tensor's value, {origin_text(origin)}"
        text = (f"the loop count range() comes from {what} (line {read.lineno}): a sync, and the number "
                "of operators the step runs varies with it, a new graph per count on NPU; loop over a fixed "
                "bound (the maximum count) with a mask")
        if site is not None:
            ctx.report_repeat(node, text, sink, site, _CREATION_CODES)
        else:
            ctx.report(node, text, sink)
        return
    if chain is not None:
        text = rule.data_message.format(chain=chain, sink=sink, line=read.lineno)
        if host_op(ctx.resolver, op):   # counted on the host: no sync, but still a new device shape per count
            text = text.replace("known only after a sync, ", "counted by numpy on the host, ")
        if site is not None:
            ctx.report_repeat(node, text, sink, site, _CREATION_CODES)
        else:
            ctx.report(node, text, sink)
        return
    ctx.report(node, rule.message.format(sink=sink, origin=origin_text(origin), line=origin[1].lineno), sink)


# Selections of k elements: the reviewer's own data-dependent site when k is a count of data.
_PICKING = frozenset({"topk", "kthvalue", "multinomial"})   # ``torch.multinomial(p, k - len(seen))``: k draws


def _new_tensor(node: ast.AST, ctx: FileContext) -> bool:
    """``node`` (the size's place) makes a new tensor of that size with one of torch's factory functions
    (``torch.randperm(len(sel))``, ``torch.arange(n0, n0 + len(kept))``, ``torch.full((n,), -1)``), picks that many
    (``s.topk(n)``, ``torch.topk(s, n)``, ``torch.multinomial(p, k - len(seen))``: that many draws) or bounds a slice of another tensor (``knn[i, :len(sel)]``); not a tensor's method shaping one that exists or is made beside it
    (``x.expand(len(offsets), 3)``, ``x.new_zeros((n, 4))``, ``x.repeat(1, n, 1)``)."""
    if isinstance(node, ast.Subscript):
        return True
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Attribute) and node.func.attr in _PICKING:
        return True   # ``scores.topk(min(k, len(idx)))``: k picked by the count, a selection of its own
    name = ctx.resolver.qualname(node.func)
    if name in ("torch.topk", "torch.kthvalue", "torch.multinomial"):
        return True
    return name is not None and name in FACTORIES and name.rsplit(".", 1)[1] not in _FIRST_IS_INPUT


def _in_file(node: ast.AST, ctx: FileContext) -> bool:
    """``node`` is a node of this file's tree (not of another module's summary): its line numbers are this file's."""
    ids = ctx.scratch.get("file_node_ids")
    if ids is None:
        scopes = ctx.resolver.scopes
        ids = ctx.scratch["file_node_ids"] = frozenset(map(id, walk(scopes.module.node))) \
            if scopes is not None else frozenset()
    return id(node) in ids


_RESHAPES = frozenset({"view", "reshape"})
# The findings that report a data-dependent op where it makes its shape (nonzero / unique / boolean-mask selection).
_CREATION_CODES = frozenset({"NPU401", "NPU402"})


def _whole_shape(node: ast.AST, read: ast.AST) -> bool:
    """``node`` is sized by the whole shape of one tensor, ``read`` (``y.shape``, ``y.size()``), its only argument
    (``x.new_ones(y.shape)``, ``torch.zeros(y.size(), device=d)``)."""
    if not isinstance(node, ast.Call) or len(node.args) != 1 or node.args[0] is not read:
        return False
    return (isinstance(read, ast.Attribute) and read.attr == "shape") or (
        isinstance(read, ast.Call) and isinstance(read.func, ast.Attribute) and read.func.attr == "size"
        and not read.args and not read.keywords)


def _reshaped_again(node: ast.AST, origin: Flow, ctx: FileContext) -> bool:
    """``node`` reshapes (``.view()`` / ``.reshape()``) a tensor whose making already took the read ``origin``
    comes from: every binding of the receiver (through names, subscripts and arithmetic, a few levels) is a call one
    of whose arguments is computed from that read (``torch.full((n * k,), v)``, ``knn(a, b, k)``). The tensor holds
    as many elements as the read made it; the reshape redistributes them."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _RESHAPES
            and isinstance(node.func.value, ast.Name)):
        return False
    return _made_with(node.func.value, origin[1], ctx, ctx.resolver.current, 0)


def _made_with(name: ast.Name, read: ast.AST, ctx: FileContext, scope, depth: int) -> bool:
    resolver = ctx.resolver
    if depth > 8 or resolver.scopes is None or scope is None:
        return False
    values = resolver.scopes.plain_values(name, scope)
    return values is not None and all(_value_made_with(value, read, ctx, where, depth) for value, where in values)


def _value_made_with(value: ast.AST, read: ast.AST, ctx: FileContext, scope, depth: int) -> bool:
    if isinstance(value, ast.Subscript):   # ``edges[1]`` of ``edges = knn(.., k)``; ``x[idx]`` with such an ``idx``
        return any(isinstance(part, (ast.Name, ast.Subscript, ast.BinOp))
                   and _value_made_with(part, read, ctx, scope, depth + 1) for part in (value.value, value.slice))
    if isinstance(value, ast.BinOp):
        return any(_value_made_with(side, read, ctx, scope, depth + 1) for side in (value.left, value.right))
    if isinstance(value, ast.Name):
        return _made_with(value, read, ctx, scope, depth + 1)
    if not isinstance(value, ast.Call):
        return False
    arguments = list(value.args) + [k.value for k in value.keywords]
    if isinstance(value.func, ast.Attribute) and isinstance(value.func.value, ast.Name) \
            and ctx.resolver.kind_of_at(value.func.value, scope) in ("tensor", "batch", "mask"):
        arguments.append(value.func.value)   # ``a.long()``, ``a.view(-1)``: made from its receiver
    for argument in arguments:
        if any(flow[1] is read for flow in ctx.resolver.flows(argument, scope)):
            return True
        if isinstance(argument, (ast.Name, ast.Subscript, ast.BinOp)) \
                and _value_made_with(argument, read, ctx, scope, depth + 1):
            return True
    return False


def _device_sink(node: ast.AST, sink: str, ctx: FileContext) -> bool:
    """The size is a device tensor's: a torch factory given a device, a method or a slice of a tensor not known to
    be on the host (not a loop count, not numpy's)."""
    if sink == _LOOP_COUNT:
        return False
    if isinstance(node, ast.Subscript):
        return ctx.resolver.is_tensor(node.value) and not ctx.resolver.is_host(node.value)
    if isinstance(node, ast.Call):
        name = ctx.resolver.qualname(node.func)
        if name is not None:   # a factory told where to put the tensor (without ``device=`` it is the CPU's)
            device = next((k.value for k in node.keywords if k.arg == "device"), None)
            return name.startswith("torch.") and device is not None and not (
                isinstance(device, ast.Constant) and device.value in (None, "cpu"))
        receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
        return receiver is not None and ctx.resolver.is_tensor(receiver) and not ctx.resolver.is_host(receiver)
    return False


def _read_below(read: ast.AST, node: ast.AST, ctx: FileContext) -> bool:
    """The read, further down the file than the size, is in the size's own function or in one it calls (to a few
    levels: ``n, m = self.assign(...)`` whose helper returns ``mask.sum().item()``): the value comes back up to the
    size; not a caller handing it down through a parameter (that call is reported, naming its chain)."""
    sizing = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    reading = ctx.enclosing(read, (ast.FunctionDef, ast.AsyncFunctionDef))
    if reading is None:
        later = ctx.parent_anywhere(read)
        while later is not None and not isinstance(later, (ast.FunctionDef, ast.AsyncFunctionDef)):
            later = ctx.parent_anywhere(later)
        reading = later
    if sizing is None or reading is None or sizing is reading:
        return sizing is reading
    seen, frontier = {id(sizing)}, [sizing]
    for _ in range(3):
        following = []
        for function in frontier:
            for call in (n for n in walk(function) if isinstance(n, ast.Call)):
                callee = ctx.resolver.own_function(call, ctx.resolver.scopes.scope_of(function)
                                                   if ctx.resolver.scopes is not None else None)
                if callee is None or id(callee[0]) in seen:
                    continue
                if callee[0] is reading:
                    return True
                seen.add(id(callee[0]))
                following.append(callee[0])
        frontier = following
    return False
