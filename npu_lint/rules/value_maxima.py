"""NPU403's place for the largest value of a tensor read back as a size (``max_num_nodes = int(num_nodes.max())``,
``batch_size = batch.max().item() + 1``, ``max(ex["src_map"].max() for ex in batch)``): it is reported once, on
the line that reads it -- the line a fixed upper bound replaces -- naming every size it fixes in its function, as
NPU405 reports a batch's longest length. Nothing here is a rule."""
from __future__ import annotations

import ast

from npu_lint.analysis.flows import ELEMENT, HOST, ZERO_D, Flow
from npu_lint.analysis.size_sinks import last_name
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES, short_source

_EXTREMES = frozenset({"max", "amax"})
_UNWRAP = frozenset({"int", "item", "float"})


def maximum_read(flow: Flow) -> bool:
    """The flow reads a tensor's largest value: ``int(t.max())``, ``t.max().item()``, ``torch.max(t)``, ``t.amax()``,
    ``max(ex["src_map"].max() for ex in batch)``."""
    if flow[0] not in (HOST, ZERO_D):
        return False
    node = flow[1]
    for _ in range(3):
        if not isinstance(node, ast.Call) or last_name(node.func) not in _UNWRAP or node.keywords:
            break
        node = node.func.value if isinstance(node.func, ast.Attribute) and not node.args else \
            node.args[0] if isinstance(node.func, ast.Name) and len(node.args) == 1 else None
    if not isinstance(node, ast.Call) or node.keywords:
        return False
    func = node.func
    if isinstance(func, ast.Name):   # the builtin maximum of each item's largest value
        return func.id == "max" and len(node.args) == 1 and isinstance(node.args[0], (ast.GeneratorExp, ast.ListComp))
    return isinstance(func, ast.Attribute) and func.attr in _EXTREMES and (
        not node.args or (len(node.args) == 1 and isinstance(func.value, ast.Name)))   # ``torch.max(t)``


def at_read(flows: list[Flow], node: ast.AST, ctx: FileContext) -> tuple[list[Flow], list[Flow]]:
    """The flows reaching a size split in two: the maxima read in the function of ``node`` (reported at the read)
    and the others (reported at ``node``, as before)."""
    function = ctx.enclosing(node, FUNCTION_TYPES)
    read, others = [], []
    for flow in flows:
        if flow[0] != ELEMENT and maximum_read(flow) and function is not None \
                and ctx.enclosing(flow[1], FUNCTION_TYPES) is function:
            read.append(flow)
        else:
            others.append(flow)
    return read, others


def report_at_read(flow: Flow, sink: str, node: ast.AST, template: str, ctx: FileContext) -> None:
    """One finding per maximum, at the line that reads it; each size it fixes is added to its message."""
    reported = ctx.scratch.setdefault("value_max_reported", {})
    read = flow[1]
    entry = reported.get(id(read))
    where = f"{sink} at line {node.lineno}"
    sinks = [] if entry is None else entry[1]
    if where in sinks:
        return
    sinks.append(where)
    listed = sinks[0] if len(sinks) == 1 else ", ".join(sinks[:-1]) + " and " + sinks[-1]
    text = template.format(origin=short_source(read), sinks=listed)
    reported[id(read)] = (ctx.report(read, text, sink) if entry is None else ctx.amend(entry[0], text), sinks)
