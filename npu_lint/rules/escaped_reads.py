"""NPU403's broad path (session 21, values21b): an integral value read out of a tensor that leaves its function.

The proof-based paths (dynamic_values.py) follow a read to a size they can see. On new code the size is often out
of sight: the read is returned (``return indices, cu_seqlens, lens.max().item()``), stored on ``self`` / ``ctx``
(``ctx.batch_sizes = sizes.tolist()``, split in ``backward``), put in a record (``VarlenMetadata(max_q=n)``),
appended to a returned list of spans, or handed to a callee the model cannot look into (``self.rotary(q, k,
max_seqlen=q_len + offset.max().item())``, ``flash_attn_varlen_func(max_seqlen_q=...)``). The op is the trigger:
an integral read (``int(t)``, ``.item()`` of an extreme, a count or an element, ``.tolist()`` of counts) whose value
escapes that way is reported at the read; it stays silent when the read is proven no size: configuration (the
model's ``source_flow`` already refuses it), a true division (a ratio), a comparison or a test, a log line, a torch
or numpy call (their size arguments are the proof-based paths' own), or setup code.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.flows import HOST, ZERO_D
from npu_lint.analysis import kinds as K
from npu_lint.analysis.kinds import TENSORS
from npu_lint.analysis.nodes import of_type, walk
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES

_EXTREMES = frozenset({"max", "min", "amax", "amin", "count_nonzero"})   # not argmax: a token id, no size
_COUNTS = frozenset({"sum", "bincount", "cumsum", "diff", "count_nonzero"})
# Passing the value on: arithmetic (not ``/``), ``int`` / ``max`` / ``min``, tuples, conditional expressions.
_PASSING_CALLS = frozenset({"int", "max", "min", "round", "abs"})
# Calls that only show or test a value.
_NO_SIZE_CALLS = frozenset({"print", "str", "repr", "format", "len", "isinstance", "float", "bool", "hash", "id",
                            "type", "getattr", "hasattr", "setattr", "range", "enumerate", "zip", "sorted", "sum",
                            "list", "tuple", "set", "dict", "any", "all"})
_LOG_METHODS = frozenset({"info", "debug", "warning", "warn", "error", "log", "write", "add_scalar", "add_scalars",
                          "set_postfix", "update", "format", "get", "pop", "setdefault", "join", "extend"})
_STORE_METHODS = frozenset({"append", "add", "extend", "insert", "put", "send", "all_gather_object", "broadcast_object_list"})
_HOST_LIBRARIES = ("matplotlib.", "tqdm.", "json.", "os.", "re.", "bisect.", "heapq.", "itertools.", "functools.",
                   "operator.", "collections.", "random.", "SimpleITK.")
_LIBRARIES = ("torch.", "numpy.", "math.", "builtins.", "logging.", "warnings.", "wandb.", "pandas.")
_MESSAGE = ("{read} reads a tensor's value back to the host as a size and {escape}: wherever it sizes a tensor "
            "(a cache, a kernel's max length, a split), each new value is a sync and a new shape on NPU; pass a "
            "fixed upper bound (the configured maximum) and mask, or keep the value on the device")


def integral_read(node: ast.Call, ctx: FileContext) -> bool:
    """``int(t)`` of a tensor, ``.item()`` of an extreme / count / element (``lens.max().item()``,
    ``cu_seqlens[-1].item()``), ``.tolist()`` of counts (``tokens_per_expert.sum(1).tolist()``): a value that is
    an integer size by what it is, read from a tensor the model does not prove configuration."""
    func = node.func
    if isinstance(func, ast.Name) and func.id == "int" and len(node.args) == 1 and not node.keywords:
        inner = node.args[0]
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr == "item":
            return False   # ``int(t.item())``: the ``.item()`` is the read, judged on its own
        if isinstance(inner, ast.Compare):
            return False   # ``int(factors[axis] > 1)``: a flag
        if isinstance(inner, ast.Name) and (function := ctx.enclosing(node, FUNCTION_TYPES)) is not None \
                and any(isinstance(v, ast.Compare) for v in _assigned(function, inner.id)):
            return False   # ``b = (n - k * hop) > 0`` ... ``int(b)``: a flag, no size
        return _host(node, ctx)
    if isinstance(func, ast.Name) and func.id in ("max", "min") and len(node.args) == 1 and not node.keywords \
            and ctx.resolver.binding(func) is None and not isinstance(node.args[0], (ast.GeneratorExp, ast.ListComp)):
        arg, function = node.args[0], ctx.enclosing(node, FUNCTION_TYPES)
        if isinstance(arg, ast.Name) and function is not None and any(
                isinstance(v, (ast.GeneratorExp, ast.ListComp, ast.List, ast.Tuple)) for v in _assigned(function, arg.id)):
            return False   # ``max(track_durations)`` of a generator of Python numbers: no tensor
        flow = ctx.resolver.source_flow(node)   # ``max(seqlen_offset)`` of a tensor: its largest element, on the host
        return flow is not None and flow[0] == ZERO_D
    if not isinstance(func, ast.Attribute) or node.args or node.keywords:
        return False
    receiver = func.value
    if func.attr == "item":
        if isinstance(receiver, ast.Subscript):
            return _host(node, ctx)
        if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute) \
                and receiver.func.attr in _EXTREMES | {"sum"}:
            return _host(node, ctx)
        return False
    if func.attr == "tolist":
        return _counted(receiver, node, ctx) and _host(node, ctx)
    return False


def _host(node: ast.Call, ctx: FileContext) -> bool:
    flow = ctx.resolver.source_flow(node)
    return flow is not None and flow[0] == HOST


def _counted(receiver: ast.AST, node: ast.AST, ctx: FileContext) -> bool:
    """The receiver computes counts: a sum along an axis, ``bincount``, ``cumsum``, ``diff``, a difference of
    shifted offsets, directly or through the name's assignment in this function."""
    values = [receiver]
    if isinstance(receiver, ast.Name):
        function = ctx.enclosing(node, FUNCTION_TYPES)
        values = [v for v in _assigned(function, receiver.id) if v.lineno <= node.lineno] if function else []
    for value in values:
        for sub in ast.walk(value):
            if isinstance(sub, ast.Attribute) and sub.attr in _COUNTS:
                return True
            if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Sub) and isinstance(sub.left, ast.Subscript) \
                    and isinstance(sub.right, ast.Subscript):
                return True   # ``cu_seqlens[1:] - cu_seqlens[:-1]``: lengths
    return False


def _assigned(function: ast.AST, name: str) -> list[ast.AST]:
    return [s.value for s in of_type(function, ast.Assign) if s.value is not None   # listed once per function
            and any(isinstance(t, ast.Name) and t.id == name for t in s.targets)]


def _uses(function: ast.AST, ctx: FileContext) -> dict[str, list[ast.Name]]:
    """The loads of each name in ``function`` (one walk per function, memoised per file)."""
    def build(function: ast.AST) -> dict[str, list[ast.Name]]:
        found: dict[str, list[ast.Name]] = {}
        for sub in walk(function):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                found.setdefault(sub.id, []).append(sub)
        return found
    return ctx.per_node("escaped_uses", function, build)


def escape_of(read: ast.Call, ctx: FileContext) -> Optional[str]:
    """How the read's value leaves its function (``None``: it stays, or is used as no size). A bare scalar
    returned or stored (``return t.min().item()``, ``self.lo = x.min().item()``) is a statistic as often as a size:
    only an extreme (``lens.max().item()``, ``int(t)``, ``max(t)``) grouped with others (a returned tuple, a list of spans) or a list
    of counts (``.tolist()``) escapes that way; a callee takes it as a keyword (``max_seqlen=n``).
    A sum or a single element (``correct.sum().item()``, ``loss_and_count[0].item()``) escapes only into a list of
    spans: in a returned tuple or a keyword it is a statistic as often as a size."""
    function = ctx.enclosing(read, FUNCTION_TYPES)
    if function is None:
        return None
    listed = isinstance(read.func, ast.Attribute) and read.func.attr == "tolist"
    seen: set[str] = set()
    inner = read.func.value if isinstance(read.func, ast.Attribute) else None
    extreme = listed or (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
                         and inner.func.attr in _EXTREMES) or isinstance(read.func, ast.Name)
    todo: list[tuple[ast.AST, bool]] = [(read, listed)]
    while todo:
        node, grouped = todo.pop()
        how = _climb(node, grouped, listed, ctx, seen, todo, function)
        if how is not None and not extreme and how.startswith("is passed"):
            continue   # an element or a sum handed to a callee by keyword: a label, a score, a count of statistics
        if how == "is returned" and not extreme:
            continue   # ``return loss_and_count[0].item(), n`` / ``return correct.sum().item(), total``: statistics
        if how is not None:
            return how
    return None


def _climb(node: ast.AST, grouped: bool, listed: bool, ctx: FileContext, seen: set[str],
           todo: list[tuple[ast.AST, bool]], function: ast.AST) -> Optional[str]:
    child, parent = node, ctx.parent_anywhere(node)
    while parent is not None:
        if isinstance(parent, ast.BinOp):
            if isinstance(parent.op, ast.Div):
                return None   # a ratio: no size
        elif isinstance(parent, (ast.Tuple, ast.List)):
            grouped = grouped or True
        elif isinstance(parent, (ast.UnaryOp, ast.IfExp, ast.Starred)):
            pass
        elif isinstance(parent, ast.Call) and child is not parent.func:
            return _call_escape(parent, child, grouped, ctx, seen, todo, function)
        elif isinstance(parent, ast.keyword):
            pass
        elif isinstance(parent, ast.Return):
            return ("is returned in a list" if grouped == "list" else "is returned") if grouped else None
        elif isinstance(parent, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            for target in targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store):
                        if listed:
                            return f"is stored in {ast.unparse(sub)}"
                    elif isinstance(sub, ast.Subscript) and isinstance(sub.ctx, ast.Store):
                        if isinstance(sub.value, ast.Name):   # a local dict or list: follow it
                            if sub.value.id not in seen:
                                seen.add(sub.value.id)
                                todo.extend((u, True) for u in _uses(function, ctx).get(sub.value.id, ())
                                            if u.lineno > parent.lineno and ctx.parent_anywhere(u) is not sub)
                        elif listed:
                            return f"is stored in {ast.unparse(sub.value)}[...]"
                    elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store) and sub.id not in seen:
                        seen.add(sub.id)
                        todo.extend((u, grouped) for u in _uses(function, ctx).get(sub.id, ())
                                    if u.lineno >= parent.lineno)
            return None
        else:
            return None   # a comparison, a test, a subscript (the proof-based paths' slices), a format string ...
        child, parent = parent, ctx.parent_anywhere(parent)
    return None


def _call_escape(call: ast.Call, child: ast.AST, grouped: bool, ctx: FileContext, seen: set[str],
                 todo: list[tuple[ast.AST, bool]], function: ast.AST) -> Optional[str]:
    func = call.func
    if isinstance(func, ast.Name) and func.id == "round" and len(call.args) > 1:
        return None   # ``round(x, ndigits=8)``: a float, no size
    if isinstance(func, ast.Name) and func.id in _PASSING_CALLS and ctx.resolver.binding(func) is None:
        todo.append((call, grouped))   # ``max(n, self.max_position_embeddings)``: still the read
        return None
    if isinstance(func, ast.Name) and func.id in _NO_SIZE_CALLS:
        return None
    if isinstance(func, ast.Attribute) and func.attr == "append" and isinstance(func.value, ast.Name):
        if not _span(call, function):
            return None   # one value per item (``n_atoms.append(s.item())``): a sampler's or a pairing's list
        name = func.value.id   # ``positions.append((i, start, n))``: the list carries a span of reads
        if name not in seen:
            seen.add(name)
            todo.extend((u, "list") for u in _uses(function, ctx).get(name, ()) if u.lineno > call.lineno)
        return None
    if isinstance(func, ast.Attribute) and func.attr in _LOG_METHODS:
        return None
    own = ctx.resolver.own_function(call)
    if own is not None:
        if isinstance(child, ast.keyword) or id(own[0]) in seen or call.keywords and any(
                isinstance(k.value, ast.Starred) for k in call.keywords):
            return None   # the file's own helper: the proof-based paths see whether it sizes with the parameter
        return _helper_escape(call, child, own, grouped, ctx, seen)
    if not isinstance(child, ast.keyword):
        return _positional_escape(call, child, ctx)
    name = ctx.resolver.qualname(func)
    if name is not None and name.startswith(_LIBRARIES):
        return None   # torch's and numpy's size arguments are the proof-based paths' own; the rest is data
    if isinstance(func, ast.Attribute) and name is None and ctx.resolver.kind_of(func.value) in TENSORS \
            and not (func.attr == "to_padded_tensor" and child.arg == "output_size"):
        return None   # a tensor's method: its sizes are the proof-based paths' own (not a nested tensor's padding)
    return f"is passed to {ast.unparse(func)}({child.arg}=)"


def _positional_escape(call: ast.Call, child: ast.AST, ctx: FileContext) -> Optional[str]:
    """Round 3 (llmsizes21c): a positional argument of a callee defined elsewhere (``all_to_all(x, recv_counts,
    send_counts, group)``, ``ops.binned_gather(x, indices, bins, capacity)``) escapes as a keyword does; a torch,
    numpy or logging call, a tensor's method, an in-place fill (``p.fill_(m)``), a record's or an exception's
    constructor (a capitalised class), or an append to a statistics list stays quiet. ``escape_of`` keeps it only for an
    extreme or a list of counts (a sum or an element handed on is a statistic as often as a size)."""
    func = call.func
    if isinstance(child, ast.Starred) or not isinstance(func, (ast.Name, ast.Attribute)):
        return None
    name = ctx.resolver.qualname(func)
    if name is not None and name.startswith(_LIBRARIES + _HOST_LIBRARIES):
        return None
    if isinstance(func, ast.Attribute) and name is None and ctx.resolver.kind_of(func.value) in TENSORS:
        return None
    last = func.id if isinstance(func, ast.Name) else func.attr
    if last[:1].isupper() or last.endswith("_") or last in _NO_SIZE_CALLS or last in _STORE_METHODS \
            or last == "slice":   # ``slice(int(j), int(j) + m)``: a window of fixed extent (values21b)
        return None   # a record or an exception built (``NonTensorData(n)``), an in-place fill, a statistics list
    text = ast.unparse(func)
    return f"is passed to {text}()"


def _helper_escape(call: ast.Call, child: ast.AST, own: tuple[ast.AST, int], grouped: bool, ctx: FileContext,
                   seen: set[str]) -> Optional[str]:
    """Round 3 (llmsizes21c): a positional argument of the file's own helper (``self.permute_and_compute(x, ...,
    expert_capacity, self.top_k)``) is followed one level into the helper's parameter: it escapes when the
    parameter escapes there (handed to a callee defined elsewhere, returned grouped, stored as a list)."""
    helper, implicit = own
    if child not in call.args or not isinstance(helper, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    params = [a.arg for a in helper.args.posonlyargs + helper.args.args][implicit:]
    index = call.args.index(child)
    if index >= len(params):
        return None
    seen.add(id(helper))
    inner: list[tuple[ast.AST, bool]] = [(u, grouped) for u in _uses(helper, ctx).get(params[index], ())]
    local: set = {id(helper), params[index]}
    while inner:
        node, held = inner.pop()
        how = _climb(node, held, False, ctx, local, inner, helper)
        if how is not None and how.startswith("is passed"):
            return f"is passed to {ast.unparse(call.func)}(), where it {how}"
    return None


def _span(call: ast.Call, function: ast.AST) -> bool:
    """``xs.append((i, int(start.item()), int(n.item())))``: a tuple holding two or more reads (a start and a
    length), what a list of spans the caller cuts by is made of."""
    if len(call.args) != 1 or not isinstance(call.args[0], ast.Tuple):
        return False
    reads = [n for n in ast.walk(call.args[0]) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr == "item"]
    names = {n.id for n in ast.walk(call.args[0]) if isinstance(n, ast.Name)}
    bound = [n for n in names if any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
                                     and c.func.attr == "item" for v in _assigned(function, n) for c in ast.walk(v))]
    return len(reads) + len(bound) >= 2


def report_escaped(rule: object, node: ast.Call, ctx: FileContext) -> None:
    """Report ``node`` (an integral read) where its value escapes; the proof-based paths amend the finding when they
    see the size it reaches (``value_reads``: one finding per read)."""
    reported = ctx.scratch.setdefault("value_reads", {})
    if not _read_form(node) or id(node) in reported or _test_code(node, ctx) or not integral_read(node, ctx):
        return
    how = escape_of(node, ctx)
    if how is None:
        return
    # where a helper chain's finding (``outer(int(m.sum())) → pad(n) → .new_zeros()``) stands on the same line, it
    # names this read already: one finding per read (``report_repeat`` drops this one once the file is walked)
    finding = ctx.report_repeat(node, _MESSAGE.format(read=_short(node), escape=how), "value", node,
                                frozenset({"NPU403"}), naming=" → ")
    reported[id(node)] = (finding, [])


def _read_form(node: ast.Call) -> bool:
    """The call has one of the forms :func:`integral_read` looks at (``int(x)``, ``max(x)`` / ``min(x)``,
    ``x.item()``, ``x.tolist()``): asked before the model is (every other call is no integral read)."""
    func = node.func
    if isinstance(func, ast.Name):
        return func.id in ("int", "max", "min") and len(node.args) == 1 and not node.keywords
    return isinstance(func, ast.Attribute) and func.attr in ("item", "tolist") and not node.args and not node.keywords


def _test_code(node: ast.AST, ctx: FileContext) -> bool:
    """A test module (``tests/``, ``test_*.py``), a test function, or a dataset's / sampler's method."""
    parts = ctx.module.split(".") if ctx.module else []
    if any(p == "tests" or p.startswith("test_") for p in parts):
        return True
    function = ctx.enclosing(node, FUNCTION_TYPES)
    if function is None:
        return False
    cls = ctx.enclosing(function, (ast.ClassDef,))
    value = ctx.resolver.class_value(cls) if cls is not None else None
    if value is not None and value[0] in (K.DATASET, K.SAMPLER):
        return True   # a dataset's or a sampler's method: host-side data code, no proof the value reaches the device
    return getattr(function, "name", "").startswith("test")


def _short(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."
