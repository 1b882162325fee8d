"""The summary "returns a value read back from a tensor" (``return bool((d < self.r).all())``, ``return
(a - b).abs().max().item() < tol``): every return that is not a constant reads a tensor's value to the host with
``.item()`` or ``int`` / ``float`` / ``bool`` of a tensor, and none is a draw on the host (``torch.rand(1).item()``).
The branch rule (NPU414) asks it at ``if helper(x):`` for the file's own functions and methods; the project index
keeps it as a function's ``reads`` fact, for the calls of other modules. Also "some return may give a size read from
the data" (``return int(mask.sum())``, ``return idx[-1] + 1`` of a ``nonzero``): the flavour of the model's flows,
kept as a function's ``size_read`` fact for NPU403 at ``n = count_fg(mask)`` in other modules. Nothing here is a
rule."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.data_shapes import counted_op, host_op
from npu_lint.analysis.flows import DATA_SIZE, ELEMENT, HOST, PICKED, TORCH_DRAWS, ZERO_D
from npu_lint.analysis.configuration import counter_state
from npu_lint.analysis.nodes import children, walk
from npu_lint.analysis.scalars import python_draw
from npu_lint.analysis.scopes import VALUE, Scope
from npu_lint.analysis.size_sinks import last_name
from npu_lint.analysis.summaries import memo, return_statements

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_HOST_DRAWS = frozenset(name for name in TORCH_DRAWS if not name.endswith("_like"))
_HOST_DRAW_NAMES = frozenset(name.rsplit(".", 1)[1] for name in _HOST_DRAWS)
_CASTS = ("int", "float", "bool")


def host_random(node: ast.AST, resolver: "Resolver", scope: Optional[Scope] = None) -> bool:
    """A draw from torch's generator made on the host (``torch.rand(1).item()``: no ``device=``): an augmentation's
    coin flip, no value of the data and no device sync; also Python's own draw (``random.random() > p``, session 24)."""
    if python_draw(node, resolver, scope):
        return True
    for call in walk(node):
        if isinstance(call, ast.Call) and not any(kw.arg == "device" for kw in call.keywords) \
                and last_name(call.func) in _HOST_DRAW_NAMES and resolver.qualname(call.func, scope) in _HOST_DRAWS:
            return True
    return False


def reads_back(value: ast.AST, resolver: "Resolver", scope: Optional[Scope] = None) -> bool:
    """The expression reads a tensor's value itself (``x.item()``, ``int(t.max())``, ``float(t)``,
    ``bool((d < r).all())``), not from a draw on the host; ``scope``: where it stands (else the walk's)."""
    scope = scope or resolver.current
    if host_random(value, resolver, scope):
        return False
    for node in walk(value):
        if isinstance(node, ast.Call) and not node.keywords:
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "item" and not node.args \
                    and _device_data(func.value, resolver, scope):
                return True
            if isinstance(func, ast.Name) and func.id in _CASTS and len(node.args) == 1 \
                    and resolver.binding(func, scope) is None and _device_data(node.args[0], resolver, scope):
                return True
    return False


def _device_data(node: ast.AST, resolver: "Resolver", scope: Scope) -> bool:
    """A tensor, or its copy brought to the host with ``.cpu()`` (``err.detach().cpu().item()``: the copy was the
    read back); not a count the class keeps in a tensor (``int(self.steps.item())``: the step number)."""
    if isinstance(node, ast.Attribute) and counter_state(node, resolver, scope):
        return False
    value = resolver.value_of(node, scope)
    return value is not None and (value[0] in K.TENSORS or (value[0] == K.HOST and value[1] == K.CPU_TENSOR))


def _may_read(value: ast.AST) -> bool:
    """A call of ``item`` or of a cast somewhere in the value (the look before asking the model)."""
    return any(isinstance(n, ast.Call) and (
        (isinstance(n.func, ast.Attribute) and n.func.attr == "item")
        or (isinstance(n.func, ast.Name) and n.func.id in _CASTS)) for n in walk(value))


def may_return_read_back(function: ast.AST) -> bool:
    """Some return of ``function`` calls ``item`` or a cast, or returns a name and the body calls one (``accept =
    factor >= safety; return accept`` with ``factor`` from ``float(error)``): the syntax look before the model's
    summary."""
    returns = [r.value for r in return_statements(function) if r.value is not None]
    return any(_may_read(v) for v in returns) or (
        any(isinstance(v, ast.Name) for v in returns) and _may_read(function))


def returns_read_back(function: ast.AST, resolver: "Resolver") -> bool:
    """Every return of ``function`` that is not a constant gives a value read back from a tensor (at least one)."""
    def compute() -> bool:
        values = [r.value for r in return_statements(function)
                  if r.value is not None and not isinstance(r.value, ast.Constant)]
        if not values or not all(_may_read(v) or isinstance(v, ast.Name) for v in values):
            return False
        scope = resolver.scopes.scope_of(function) if resolver.scopes is not None else None
        return scope is not None and all(_returned_read(v, resolver, scope) for v in values)
    return bool(memo(resolver._summaries, ("reads back", id(function)), compute))


def _returned_read(value: ast.AST, resolver: "Resolver", scope: Scope) -> bool:
    """A returned value read back: ``x.item()`` itself, or a name the function binds only to such values and to flags
    compared from a value read back (``accept = factor >= self.safety`` with ``factor`` computed from
    ``float(error)``), constants aside."""
    if not isinstance(value, ast.Name):
        return reads_back(value, resolver, scope)
    bindings = resolver.scopes.may_reach(value.id, scope, (value.lineno, value.col_offset)) if resolver.scopes else []
    bound = [b.value for b in bindings if not isinstance(b.value, ast.Constant)]
    if not bound or any(b.tag != VALUE or b.path or b.scope is not scope for b in bindings):
        return False
    return all(isinstance(v, ast.AST) and not host_random(v, resolver, scope) and (
        (_may_read(v) and reads_back(v, resolver, scope)) or _compared_read(v, resolver, scope)) for v in bound)


def _compared_read(value: ast.AST, resolver: "Resolver", scope: Scope) -> bool:
    """``factor >= safety`` with a side that may carry a value read back from a tensor (the model's flows)."""
    if not isinstance(value, ast.Compare) or any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn))
                                                 for op in value.ops):
        return False
    return any(flow[0] == HOST for side in (value.left, *value.comparators)
               for flow in resolver.flows(side, scope, sink=False))


_READS = frozenset({"item", "tolist", "int", "float", "round", "sum", "max", "min", "count_nonzero", "numel", "size",
                    "len", "nonzero", "unique", "argwhere", "masked_select"})
_SIZE_FLAVOURS = (HOST, ZERO_D, DATA_SIZE, ELEMENT, PICKED)


def may_return_size_read(function: ast.AST) -> bool:
    """A return value, or the value of an assignment to a name it reads, calls a read or a count (``item``,
    ``int``, ``sum``, ``len``, ``nonzero`` ...): the syntax look before the model's summary (cheap: the returns and
    the assignments they name, not the whole body)."""
    values = [r.value for r in return_statements(function) if r.value is not None
              and not isinstance(r.value, ast.Constant)]
    if not values:
        return False
    names = {n.id for v in values for n in walk(v) if isinstance(n, ast.Name)}
    if names:
        stack: list[ast.AST] = list(getattr(function, "body", []))
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None and any(
                    isinstance(t, ast.Name) and t.id in names
                    for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                    for t in walk(target)):
                values.append(node.value)
            elif isinstance(node, ast.stmt):
                stack.extend(children(node))
    return any(isinstance(n, ast.Call) and (n.func.attr if isinstance(n.func, ast.Attribute) else
                                            n.func.id if isinstance(n.func, ast.Name) else "") in _READS
               for v in values for n in walk(v))


def returned_size_read(function: ast.AST, resolver: "Resolver") -> str:
    """The flavour of a value read from the data that some return of ``function`` may give (``host``, ``zero_d``,
    ``data_size`` ...: :mod:`npu_lint.analysis.flows`), "" when none. A read of one of its parameters (``return
    int(mask.sum())``) is ``flavour@name@position``: data only where the call passes a tensor there (not a stride
    of the configuration: ``check_size(sz, stride=max(int(model.stride.max()), 32))``)."""
    arguments = getattr(function, "args", None)
    positional = [a.arg for a in (arguments.posonlyargs + arguments.args)] if arguments is not None else []
    named = set(positional) | {a.arg for a in arguments.kwonlyargs} if arguments is not None else set()
    found = ""
    for flavour, source in resolver.returned_flows(function):
        if flavour not in _SIZE_FLAVOURS or not isinstance(source, ast.AST):
            continue
        if flavour == DATA_SIZE and host_op(resolver, counted_op(resolver, source, resolver.scopes.scope_of(function)
                                                                 if resolver.scopes is not None else None)):
            continue   # ``return len(np.unique(labels))``: a host count, no NPU shape wherever the caller uses it
        read = [n.id for n in walk(source) if isinstance(n, ast.Name) and n.id in named]
        if not read and _callee_parameter_read(source, function, resolver):
            continue   # a callee's read of its own parameter (``make_divisible``'s ``int(divisor.max())`` under
            # ``isinstance(divisor, torch.Tensor)``): data only where a tensor is passed there, which this function's
            # own flows show if it does (``check_img_size(imgsz, s)`` passes ``int(s)``)
        if not read:
            return flavour   # a read of the function's own data (a tensor it builds or loads)
        if not found:
            found = f"{flavour}@{read[0]}@{positional.index(read[0]) if read[0] in positional else -1}"
    return found


def _callee_parameter_read(source: ast.AST, function: ast.AST, resolver: "Resolver") -> bool:
    """``source`` stands outside ``function`` (a flow its summary took from a callee's) and reads a parameter of
    the function of this file it stands in."""
    line = getattr(source, "lineno", 0)
    if getattr(function, "lineno", 0) <= line <= (getattr(function, "end_lineno", 0) or 0):
        return False
    inner = None
    for scope in resolver.scopes.by_node.values() if resolver.scopes is not None else ():
        node = scope.node   # the file's scopes, not its nodes: functions are opened when the scopes are bound
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.lineno <= line <= (node.end_lineno or node.lineno) \
                and (inner is None or node.lineno >= inner.lineno):
            inner = node   # the innermost function around the line
    if inner is None:
        return False
    arguments = inner.args
    params = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    return any(isinstance(n, ast.Name) and n.id in params for n in walk(source))


def compares_unknowns(function: ast.AST, resolver: "Resolver") -> bool:
    """Every return of ``function`` compares values the model knows no tensor in (``return args.rank == 0``,
    ``return cfg.size > 3``): a Python bool by its look, no evidence of a tensor for a branch on its result."""
    scope = resolver.scopes.scope_of(function) if resolver.scopes is not None else None
    values = [r.value for r in return_statements(function)] if scope is not None else []
    return bool(values) and all(isinstance(v, ast.Compare) and not any(
        resolver.kind_of_at(side, scope) in K.TENSORS for side in (v.left, *v.comparators)) for v in values)
