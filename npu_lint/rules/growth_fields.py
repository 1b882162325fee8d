"""NPU408, broad path (session 24, growth24): a join of a record's field that the loop of steps rebuilds one item
longer at every step.

The op is the trigger: ``torch.cat(state.ids, dim=-1)`` (``stack`` too) in a loop of steps (broad_joins'
``_step_loop``) that also makes the records anew with the field one item longer, ``State(..., ids=state.ids +
[new])`` (a dataclass or named tuple rebuilt per step: nanotron's ``GenerationStates(generation_ids=
state.generation_ids + [new_ids])``), or grows the field in place (``state.ids = state.ids + [new]``, ``state.ids
+= [new]``, ``state.ids.append(new)``): the joined length is one step longer at every iteration, a new shape per
step. The model follows a sequence grown under a name (broad_joins.py, growth_derived.py); here the sequence is
carried from step to step inside a container, and the field that grows is known by the construction that grows it
(the keyword or attribute of the same field), not by its name.

Silent for a join outside such a loop (after the loop: one join per call), a field the loop also sets anew without
reading it (``ids=[x]``), a window of the field (``state.ids[-4:]``: a slice is no field read), host items appended
(``.item()``, numbers). The per-loop index of grown fields is built once (``FileContext.per_node``).
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.bounded import unparse
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES

_JOINS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.stack", "torch.hstack",
                    "torch.vstack"})
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _field_read(node: ast.AST, field: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == field


def _host_item(piece: ast.AST) -> bool:
    """A Python number appended (``x.item()``, ``float(x)``, a constant): a host list, no tensor's length."""
    if isinstance(piece, ast.Constant):
        return True
    return isinstance(piece, ast.Call) and (
        isinstance(piece.func, ast.Attribute) and piece.func.attr in ("item", "tolist")
        or isinstance(piece.func, ast.Name) and piece.func.id in ("float", "int", "len", "str"))


def _longer(value: ast.AST, field: str) -> bool:
    """``<r>.field + [new]`` (or ``[*<r>.field, new]``): the field read whole, one tensor item more."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) and _field_read(value.left, field) \
            and isinstance(value.right, (ast.List, ast.Tuple)) and value.right.elts \
            and not any(_host_item(e) for e in value.right.elts):
        return True
    if isinstance(value, (ast.List, ast.Tuple)) and len(value.elts) >= 2 and isinstance(value.elts[0], ast.Starred) \
            and _field_read(value.elts[0].value, field):
        return not any(_host_item(e) for e in value.elts[1:])
    return False


def _grown_fields(loop: ast.AST) -> dict[str, int]:
    """Fields the loop grows by one item per step -> the line where it does; fields it also sets anew without
    reading them are left out."""
    grown: dict[str, int] = {}
    reset: set[str] = set()
    for node in walk(loop):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg is None:
                    continue
                if _longer(kw.value, kw.arg):
                    grown.setdefault(kw.arg, kw.value.lineno)
                elif not any(_field_read(n, kw.arg) for n in ast.walk(kw.value)):
                    reset.add(kw.arg)   # ``State(ids=[x])`` made in the loop: a fresh list each step
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "append" and isinstance(func.value, ast.Attribute) \
                    and len(node.args) == 1 and not _host_item(node.args[0]):
                grown.setdefault(func.value.attr, node.lineno)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute):
            field = node.targets[0].attr
            if _longer(node.value, field):
                grown.setdefault(field, node.lineno)
            elif not any(_field_read(n, field) for n in ast.walk(node.value)):
                reset.add(field)
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Attribute) \
                and isinstance(node.value, (ast.List, ast.Tuple)) and node.value.elts \
                and not any(_host_item(e) for e in node.value.elts):
            grown.setdefault(node.target.attr, node.lineno)
    return {field: line for field, line in grown.items() if field not in reset}


def field_join(node: ast.Call, name: Optional[str], ctx: FileContext) -> Optional[str]:
    """What grows (for the message), else None: see the module's docstring."""
    if name not in _JOINS or not node.args or not isinstance(node.args[0], ast.Attribute):
        return None
    field = node.args[0].attr
    root = node.args[0].value
    while isinstance(root, (ast.Attribute, ast.Subscript)):
        root = root.value
    if isinstance(root, ast.Name) and root.id == "self":
        return None   # the object's own list: broad_joins' kept state, growth_state.py
    from npu_lint.rules.broad_joins import _step_loop
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, FUNCTION_TYPES):
        if isinstance(parent, _LOOPS) and child in parent.body and _step_loop(parent, ctx):
            line = ctx.per_node("growth_fields", parent, _grown_fields).get(field)
            if line is not None:
                op = name.rsplit(".", 1)[-1]   # type: ignore[union-attr]
                return (f"{op}({unparse(node.args[0])[:40]}) of a field the loop of line {parent.lineno} makes one item longer at "
                        f"every step (line {line}),")
        child, parent = parent, ctx.parent(parent)
    return None
