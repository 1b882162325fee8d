"""The size parameters a function fills from the data when a call leaves them out (the model's "left out, this
size is read from a tensor" summary, for NPU403 at the calls of a helper: the file's own or, through the project
index's ``fills`` facts, another module's): a parameter the function sizes a tensor with
(:func:`npu_lint.analysis.summaries_sizes.size_parameters`), defaulting to ``None``, and replaced when ``None`` by
a value read back from a tensor: ``if dim_size is None: dim_size = int(index.max()) + 1`` (a vendored
``torch_scatter.scatter``), ``dim_size = index.max().item() + 1 if dim_size is None else dim_size``, ``dim_size
= dim_size or int(index.max()) + 1``. Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Iterable

from npu_lint.analysis import kinds as K
from npu_lint.analysis.flows import ZERO_D
from npu_lint.analysis.kept_reductions import kept_reduction
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.summaries_reads import reads_back

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_KEPT = frozenset({"max", "amax", "sum", "count_nonzero"})   # full reductions a length is taken from


def filled_parameters(function: ast.AST, resolver: "Resolver", sized: Iterable[str]) -> tuple[str, ...]:
    """The parameters of ``sized`` (those ``function`` sizes a tensor with) that default to ``None`` and that the
    function fills with a value read from a tensor when they are left out, in parameter order."""
    if not isinstance(function, _FUNCTIONS):
        return ()
    defaulted = none_defaults(function) & set(sized)
    if not defaulted:
        return ()
    scope = resolver.scopes.scope_of(function) if resolver.scopes is not None else None
    found: set[str] = set()
    for node in walk(function):
        if isinstance(node, ast.If):
            name = _none_test(node.test, resolver, scope)
            if name in defaulted and any(_fills(statement, name, resolver, scope) for statement in node.body):
                found.add(name)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in defaulted:
            name, value = node.targets[0].id, node.value
            if isinstance(value, ast.IfExp) and _none_test(value.test, resolver, scope) == name:
                value = value.body
            elif isinstance(value, ast.IfExp) and _set_test(value.test, resolver, scope) == name:
                value = value.orelse   # ``length if exists(length) else t.amax()``
            elif isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or) and len(value.values) == 2 \
                    and isinstance(value.values[0], ast.Name) and value.values[0].id == name:
                value = value.values[1]
            elif isinstance(value, ast.Call) and len(value.args) == 2 and not value.keywords \
                    and isinstance(value.args[0], ast.Name) and value.args[0].id == name \
                    and _defaulting(value.func, resolver, scope):
                value = value.args[1]   # ``length = default(length, t.amax())``
            else:
                continue
            if _read(value, resolver, scope):
                found.add(name)
    return tuple(a.arg for a in _arguments(function) if a.arg in found)


def _arguments(function: ast.AST) -> list[ast.arg]:
    args = function.args   # type: ignore[attr-defined]
    return args.posonlyargs + args.args + args.kwonlyargs


def none_defaults(function: ast.AST) -> set[str]:
    """The parameters whose default is ``None``."""
    args = function.args   # type: ignore[attr-defined]
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    return {a.arg for a, d in pairs if isinstance(d, ast.Constant) and d.value is None}


def _none_test(test: ast.AST, resolver: "Resolver", scope: object) -> str:
    """``name is None`` (or ``not name``, ``not exists(name)``): the name, else ""."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Name):
        return test.operand.id
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _set_test(test.operand, resolver, scope)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is) \
            and isinstance(test.left, ast.Name) and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value is None:
        return test.left.id
    return ""


def _set_test(test: ast.AST, resolver: "Resolver", scope: object) -> str:
    """``exists(name)``, a call of the file's own function that returns whether its one parameter is set
    (``def exists(v): return v is not None``): the name, else ""."""
    if not (isinstance(test, ast.Call) and len(test.args) == 1 and not test.keywords
            and isinstance(test.args[0], ast.Name) and isinstance(test.func, ast.Name)):
        return ""
    function = _own_function(test.func, resolver, scope)
    if function is None or len(_arguments(function)) != 1:
        return ""
    returned = _returned(function)
    parameter = _arguments(function)[0].arg
    return test.args[0].id if returned is not None and _is_not_none(returned, parameter) else ""


def _defaulting(func: ast.AST, resolver: "Resolver", scope: object) -> bool:
    """The file's own ``default(v, d)``: ``return v if exists(v) else d`` (or ``v if v is not None else d``)."""
    function = _own_function(func, resolver, scope) if isinstance(func, ast.Name) else None
    if function is None or len(_arguments(function)) != 2:
        return False
    value, fallback = (a.arg for a in _arguments(function))
    returned = _returned(function)
    if not isinstance(returned, ast.IfExp) or not (isinstance(returned.body, ast.Name) and returned.body.id == value
                                                   and isinstance(returned.orelse, ast.Name)
                                                   and returned.orelse.id == fallback):
        return False
    test = returned.test
    if _is_not_none(test, value):
        return True
    function_scope = resolver.scopes.scope_of(function) if resolver.scopes is not None else None
    return function_scope is not None and _set_test(test, resolver, function_scope) == value


def _own_function(func: ast.Name, resolver: "Resolver", scope: object) -> "ast.FunctionDef | None":
    binding = resolver.binding(func, scope) if resolver.scopes is not None else None   # type: ignore[arg-type]
    value = getattr(binding, "value", None)
    return value if isinstance(value, ast.FunctionDef) and value.name == func.id else None


def _returned(function: ast.FunctionDef) -> "ast.AST | None":
    """The value of a function whose body (its docstring aside) is one ``return``."""
    body = [s for s in function.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return body[0].value if len(body) == 1 and isinstance(body[0], ast.Return) else None


def _is_not_none(test: ast.AST, name: str) -> bool:
    return isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot) \
        and isinstance(test.left, ast.Name) and test.left.id == name \
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None


def _fills(statement: ast.stmt, name: str, resolver: "Resolver", scope: object) -> bool:
    return isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
        and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == name \
        and _read(statement.value, resolver, scope)


def _read(value: ast.AST, resolver: "Resolver", scope: object) -> bool:
    """A value read back from a tensor (the model's :func:`reads_back`), or ``.item()`` / ``int(x.max())`` of a
    parameter of unknown kind (an index the caller passes: the model cannot type it, the read is still one)."""
    if reads_back(value, resolver, scope):   # type: ignore[arg-type]
        return True
    if kept_reduction(resolver, value, scope):   # type: ignore[arg-type]
        return True   # ``length = t.amax()`` of a parameter the function uses as a tensor: a 0-d tensor as the size
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _KEPT \
            and resolver.kind_of_at(value.func.value, scope) in K.TENSORS:   # type: ignore[arg-type]
        return any(f[0] == ZERO_D for f in resolver.flows(value, scope, sink=False))   # ``t.amax()`` of a tensor
    for node in walk(value):
        if not isinstance(node, ast.Call) or node.keywords:
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "item" and not node.args \
                and _reduction(func.value):
            return True
        if isinstance(func, ast.Name) and func.id == "int" and len(node.args) == 1 and _reduction(node.args[0]):
            return True
    return False


def _reduction(node: ast.AST) -> bool:
    """``index.max()`` / ``batch.amax()`` of a name: the largest value of an index."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr in ("max", "amax") and not node.args and isinstance(node.func.value, ast.Name)
