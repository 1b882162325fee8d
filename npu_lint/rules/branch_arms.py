"""What the arms of a branch on a tensor's value run (NPU413, NPU414): tensor operators (a call, arithmetic or
indexing giving a tensor, a write into a tensor, the file's own helper whose body does, the step's backward or
update), the statements an early ``return`` skips, a dropped mask (``mask = None``) and the tested tensor handed to a
call (``detector.detect(segments=segments)``). Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Callable, Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.nodes import child_nodes, walk
from npu_lint.analysis.scopes import Scope
from npu_lint.context import FileContext
from npu_lint.host_arrays import is_host_array
from npu_lint.rules import FUNCTION_TYPES
from npu_lint.rules.read_backs import training_step


def later(node: ast.AST, stop: Optional[ast.AST], ctx: FileContext) -> list[ast.stmt]:
    """The statements that run after ``node`` in its enclosing blocks, up to ``stop`` (a loop or a function)."""
    found: list[ast.stmt] = []
    statement = node
    while True:
        parent = ctx.parent(statement)
        if parent is None:
            return found
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and statement in block:
                found.extend(block[block.index(statement) + 1:])
        if parent is stop:
            return found
        statement = parent


def returns_other(node: ast.If, stop: Optional[ast.AST], ctx: FileContext) -> bool:
    """``if not mask.any(): return None`` ... ``return mask``: the arm returns early, and a later ``return`` of the
    function gives another value, one of them a tensor: the caller gets a tensor or not (or another shape) as the
    data decides, although no tensor operator runs in between (session 21). The same value returned on both paths
    (``return x`` ... ``return x``) is no change."""
    early = node.body[-1] if node.body and isinstance(node.body[-1], ast.Return) else None
    if early is None:
        return False
    first = early.value
    for statement in later(node, stop, ctx):
        for inner in ast.walk(statement):
            if not isinstance(inner, ast.Return) or isinstance(inner.value, ast.Lambda):
                continue
            other = inner.value
            if (first is None) == (other is None) and (first is None or ast.dump(first) == ast.dump(other)):
                continue
            if any(v is not None and ctx.resolver.kind_of(v) in K.TENSORS for v in (first, other)):
                return True
    return False


_HOST_CALLS = frozenset({"warn", "warning", "info", "debug", "error", "exception", "log", "critical"})
# Python's builtins that print or render a value as text for a message (``"%s" % str(req1)``): a read-out, not a
# tensor operator, whatever they are handed
_TEXT_CALLS = frozenset({"print", "str", "repr", "format"})


def _host_call(call: ast.Call, ctx: FileContext) -> bool:
    """``print(...)``, ``str(x)`` / ``repr(x)`` / ``format(x)`` (text for a message), ``logging.info(...)``,
    ``warnings.warn(...)``, ``logger.warning(...)`` on a receiver that is no tensor (``torch.log(x)`` and ``x.log()``
    are tensor operators)."""
    func = call.func
    name = ctx.resolver.qualname(func) or ""
    if name in _TEXT_CALLS or name.startswith(("logging.", "warnings.")) \
            or (not name and isinstance(func, ast.Name) and func.id in _TEXT_CALLS):   # the builtin, unbound
        return True
    return isinstance(func, ast.Attribute) and func.attr in _HOST_CALLS and not name.startswith("torch.") \
        and ctx.resolver.kind_of(func.value) not in K.TENSORS


_READ_OUTS = frozenset({"numpy", "tolist", "item"})


def for_message(statement: ast.AST, ctx: FileContext) -> bool:
    """``missing = labels[~found].detach().cpu().numpy()`` whose names the function reads only in log lines
    (``logger.warning("...%s", missing)``, ``print``, ``warnings.warn``): a value read out to the host for a
    message. What it computes runs once, when the message is written, and reaches no later tensor operator."""
    if not isinstance(statement, ast.Assign) or not all(isinstance(t, ast.Name) for t in statement.targets):
        return False
    value = statement.value
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _READ_OUTS
            and not value.args and not value.keywords):
        return False
    function = ctx.enclosing_any(statement, FUNCTION_TYPES)
    if function is None:
        return False
    names = {t.id for t in statement.targets}
    logged: set[int] = set()   # the names' reads inside the arguments of a log line
    for node in walk(function):
        if isinstance(node, ast.Call) and _host_call(node, ctx):
            logged.update(id(n) for a in (*node.args, *(k.value for k in node.keywords)) for n in walk(a)
                          if isinstance(n, ast.Name) and n.id in names)
    uses = [n for n in walk(function) if isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load)]
    return bool(uses) and all(id(n) in logged for n in uses)


def tensor_work(statement: ast.stmt, ctx: FileContext, scope: Optional[Scope] = None, depth: int = 0) -> bool:
    """The statement runs a tensor operator: a call, arithmetic or indexing giving a tensor, a write into a
    tensor (``logits[k, :t] = -inf``), or a call of one of the file's functions or methods whose body does
    (``self.replace_(x, mask=m)``, to a fixed depth); not inside a nested function, a comprehension or a raise.
    ``scope``: the scope of a callee's body (else the walk's)."""
    if isinstance(statement, (ast.Raise, ast.Assert, *FUNCTION_TYPES, ast.ClassDef)) \
            or (scope is None and for_message(statement, ctx)):
        return False
    resolver = ctx.resolver

    def kind(node: ast.AST) -> Optional[str]:
        return resolver.kind_of(node) if scope is None else resolver.kind_of_at(node, scope)
    if isinstance(statement, (ast.Assign, ast.AugAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        if any(isinstance(t, ast.Subscript) and kind(t.value) in K.TENSORS for t in targets):
            return True
    stack: list[ast.AST] = [statement]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Call):
            if _host_call(current, ctx):
                continue   # a log line or a warning: what its arguments compute is read back, not kept
            if kind(current) in K.TENSORS or (depth < 2 and _callee_works(current, ctx, scope, depth)) \
                    or (scope is None and training_step(current, ctx.enclosing(statement, FUNCTION_TYPES), ctx)):
                return True
        elif isinstance(current, (ast.BinOp, ast.UnaryOp, ast.Subscript)) and kind(current) in K.TENSORS:
            return True   # ``x / 255``, ``~m``, ``x[idx]``
        elif isinstance(current, ast.Subscript) and _mask_selection(current, kind):
            return True   # ``states["mask"][self.flag]``: only a tensor is selected by a torch mask
        for child in child_nodes(current):
            if not isinstance(child, (*FUNCTION_TYPES, ast.ClassDef, ast.ListComp, ast.SetComp, ast.DictComp,
                                      ast.GeneratorExp, ast.Raise)):
                stack.append(child)
    return False


def _mask_selection(node: ast.Subscript, kind) -> bool:
    """``x[m]`` / ``x[:, m]`` with ``m`` a name or ``self.m`` the model knows as a torch boolean mask: a selection (a
    nonzero and a gather) whatever ``x`` is known to be."""
    index = node.slice
    elements = index.elts if isinstance(index, ast.Tuple) else [index]
    return any(isinstance(e, (ast.Name, ast.Attribute)) and kind(e) == K.MASK for e in elements)


def _callee_works(call: ast.Call, ctx: FileContext, scope: Optional[Scope], depth: int) -> bool:
    """The call runs one of the file's functions or methods whose body runs tensor operators (once per callee)."""
    if not isinstance(call.func, (ast.Name, ast.Attribute)):
        return False
    callee = ctx.resolver.own_function(call, scope)
    if callee is None or ctx.resolver.scopes is None:
        return False
    function = callee[0]
    answers = ctx.scratch.setdefault("callee_works", {})
    key = (id(function), depth)   # deeper, the callee's own calls are not followed: another answer
    if key not in answers:
        answers[key] = False   # a recursive call adds nothing
        inner = ctx.resolver.scopes.scope_of(function)
        answers[key] = inner is not None and any(tensor_work(s, ctx, inner, depth + 1) for s in function.body)
    return answers[key]


def drops_tested(statement: ast.stmt, test: ast.AST) -> bool:
    """``mask = None`` for a name the test reads (``if not mask.any(): mask = None``): what runs later changes."""
    if not (isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant)
            and statement.value.value is None):
        return False
    read = {n.id for n in walk(test) if isinstance(n, ast.Name)}
    return any(isinstance(t, ast.Name) and t.id in read for t in statement.targets)


# Methods that keep, record or show what they are given: a list's, a dict's, a progress bar's, a summary writer's,
# a checkpoint's (``kept.append(scores)``, ``writer.add_scalar("loss", loss)``, ``ckpt.save(state, loss)``).
_KEEPING = frozenset({"append", "extend", "insert", "add", "update", "put", "put_nowait", "setdefault",
                      "set_postfix", "set_description", "save", "record", "write", "plot", "send"})


def _keeps(call: ast.Call) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in _KEEPING or name.startswith(("add_", "log", "save", "record", "plot", "print"))


def hands_tested(statement: ast.stmt, test: ast.AST, ctx: FileContext) -> bool:
    """The arm hands a tensor the test reads to a call other than a log line (``if segs[-1][1] != 0:`` then
    ``self.endpointer.detect(segments=segs)``): whatever that call computes on it runs for some batches only."""
    if isinstance(statement, (ast.Raise, ast.Assert, *FUNCTION_TYPES, ast.ClassDef)) \
            or for_message(statement, ctx):
        return False
    tested = _tested_names(test, ctx)
    if not tested:
        return False
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and (_host_call(node, ctx) or _keeps(node)):
            continue    # a log line and what formats its message (``logger.warning(f"{fmt(part=n)}")``)
        if isinstance(node, ast.Call) and any(isinstance(a, ast.Name) and a.id in tested
                                              for a in (*node.args, *(k.value for k in node.keywords))):
            return True
        stack.extend(child_nodes(node))
    return False


# Calls that read a count or a value back from a tensor (``n = keep.sum().item()``, ``k = len(idx)``).
_READ_BACKS = frozenset({"item", "int", "len", "float", "bool", "tolist"})


def _tested_names(test: ast.AST, ctx: FileContext) -> set:
    """The tensors the test reads: its names the model types as tensors, its names that are a mask or positions by
    construction (``idx = done.nonzero()``; broad_masks), and (session 24) the masks or positions a name of the test
    was read back from in the same function (``n = is_dupli.sum().item()`` then ``if n > 0:``: ``is_dupli``).
    Memoised per test."""
    memo = ctx.scratch.setdefault("branch_tested_names", {})
    key = id(test)
    if key in memo:
        return memo[key]
    from npu_lint.rules.broad_masks import constructed_index   # (the broad path's construction, no import cycle)
    resolver = ctx.resolver
    tested = set()
    for name in (n for n in walk(test) if isinstance(n, ast.Name)):
        if resolver.kind_of(name) in K.TENSORS or _constructed_device(name, ctx, constructed_index):
            tested.add(name.id)
            continue
        for value in _read_back_values(name, ctx):
            tested.update(n.id for n in walk(value) if isinstance(n, ast.Name) and n.id != name.id
                          and _constructed_device(n, ctx, constructed_index))
    memo[key] = tested
    return tested


def _constructed_device(name: ast.Name, ctx: FileContext, constructed_index: Callable) -> bool:
    """A mask or positions by construction that the model does not prove a host array (``small = np.where(v <
    0.045)[0]`` is numpy's: nougat-ocr, a false NPU414 on held-out code)."""
    return constructed_index(name, ctx) is not None and not is_host_array(name, ctx, name)


def _read_back_values(name: ast.Name, ctx: FileContext) -> list:
    """The values bound to ``name`` (every binding reaching the test, in its function) when each reads a tensor's
    count or value back (``m.sum().item()``, ``len(idx)``, ``int(m.sum())``); else []."""
    resolver = ctx.resolver
    if resolver.scopes is None:
        return []
    scope = resolver.current
    bindings = resolver.scopes.may_reach(name.id, scope, (name.lineno, name.col_offset))
    values = []
    for binding in bindings or ():
        value = binding.value
        if binding.tag != "value" or binding.path or binding.scope is not scope or not isinstance(value, ast.Call):
            return []
        func = value.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if called not in _READ_BACKS:
            return []
        values.append(value)
    return values

