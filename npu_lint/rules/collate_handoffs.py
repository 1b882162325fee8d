"""The helpers and batching classes a collate function hands its samples to: ``return GraphBatch(graphs)`` with
``GraphBatch.__init__(self, graphs)`` looping over the graphs, ``cat_fields(samples)``, ``Batch([s["graph"] for s in
samples])``, a dataclass ``Batch(graphs)`` whose ``__post_init__`` reads ``self.graphs``. Their parameter (or field)
that receives the samples (or one item of each sample) holds one batch's samples as the collate function's own does, so NPU409 reads the lists they build from it the same way (collate_samples.py).
Only the calls inside a collate function (or a helper it hands them to, two levels deep) whose arguments are its
samples are resolved, with the model's :meth:`npu_lint.resolver.Resolver.callee`; the file's own functions only."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.bindings import Scope
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.summaries import method_def
from npu_lint.analysis.scopes import Scopes
from npu_lint.context import FileContext

_DEPTH = 2
_KEEP_ORDER = frozenset({"list", "tuple", "sorted", "reversed"})
_DATACLASS = "dataclasses.dataclass"


def handed_over(found: dict[int, tuple[str, str]], scopes: Scopes, ctx: FileContext) -> None:
    """Add to ``found`` (function id -> samples' parameter, why) the file's functions a collate function of
    ``found`` calls with its samples, each with the parameter that receives them."""
    todo = [(scopes.by_node[key], entry[0]) for key, entry in found.items() if key in scopes.by_node]
    for _ in range(_DEPTH):
        added: list[tuple[Scope, str]] = []
        for scope, param in todo:
            for call in _calls(scope.node):
                for callee, name in _receivers(call, param, scope, ctx):
                    if id(callee) in found or callee is scope.node or scopes.scope_of(callee) is None:
                        continue
                    found[id(callee)] = (name, f"the samples {_name(scope)} hands to {_name(scopes.scope_of(callee))} "
                                               f"(line {call.lineno})")
                    added.append((scopes.scope_of(callee), name))
        todo = added
        if not todo:
            return


def _calls(function: ast.AST) -> list[ast.Call]:
    return [node for node in walk(function) if isinstance(node, ast.Call)]


def _receivers(call: ast.Call, param: str, scope: Scope, ctx: FileContext) -> list[tuple[ast.AST, str]]:
    """The file's function ``call`` runs and the name of its parameter each argument holding the samples goes to."""
    passed: list[tuple[Optional[int], Optional[str]]] = []
    for position, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred):
            break
        if _samples(argument, param, scope, ctx):
            passed.append((position, None))
    passed += [(None, k.arg) for k in call.keywords if k.arg is not None and _samples(k.value, param, scope, ctx)]
    if not passed:
        return []
    target = ctx.resolver.callee(call, scope) or _class_method(call, scope, ctx)
    if target is None:
        return _dataclass_fields(call, passed, scope, ctx)
    if not isinstance(target[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    function, offset = target
    arguments = function.args
    params = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    found = []
    for position, keyword in passed:
        if keyword is not None:
            if keyword in params or keyword in [a.arg for a in arguments.kwonlyargs]:
                found.append((function, keyword))
        elif position is not None and position + offset < len(params):
            found.append((function, params[position + offset]))
    return found


def _samples(argument: ast.AST, param: str, scope: Scope, ctx: FileContext, depth: int = 0) -> bool:
    """``argument`` holds the samples (the parameter ``param`` of the function of ``scope``) or one item of each:
    the parameter itself, ``list(samples)``, ``[s["graph"] for s in samples]``, a name bound to one of these or to
    one field of every sample (``graphs, labels = zip(*samples)``)."""
    if depth > 2:
        return False
    if isinstance(argument, ast.Call) and isinstance(argument.func, ast.Name) and argument.func.id in _KEEP_ORDER \
            and argument.args:
        return _samples(argument.args[0], param, scope, ctx, depth + 1)
    if isinstance(argument, (ast.ListComp, ast.GeneratorExp)) and len(argument.generators) == 1:
        return _samples(argument.generators[0].iter, param, scope, ctx, depth + 1)
    if not isinstance(argument, ast.Name):
        return False
    binding = ctx.resolver.binding(argument, scope)
    if binding is None or binding.scope is not scope:
        return False
    if binding.tag == "param":
        return binding.name == param
    value = binding.value
    if binding.tag != "value":
        return False
    if len(binding.path) == 1 and isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
            and value.func.id in ("list", "tuple") and len(value.args) == 1:
        value = value.args[0]   # ``list(zip(*samples))``
    if len(binding.path) == 1 and isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
            and value.func.id == "zip" and len(value.args) == 1 and isinstance(value.args[0], ast.Starred):
        return _samples(value.args[0].value, param, scope, ctx, depth + 1)    # ``graphs, labels = zip(*samples)``
    return not binding.path and _samples(value, param, scope, ctx, depth + 1)


def _dataclass_fields(call: ast.Call, passed: list[tuple[Optional[int], Optional[str]]], scope: Scope,
                      ctx: FileContext) -> list[tuple[ast.AST, str]]:
    """``Batch(graphs)`` of a dataclass of the file with a ``__post_init__``: the field the samples go to, read
    there as ``self.graphs``; an ``InitVar`` field is no attribute but a parameter of ``__post_init__``
    (``mgs: InitVar[Sequence[MolGraph]]`` then ``def __post_init__(self, mgs)``: chemprop's ``BatchMolGraph``).
    The constructor's parameters are the fields of the class and of its dataclass bases of the file, bases first,
    less those declared ``field(init=False)`` or ``ClassVar``."""
    cls = ctx.resolver.definition(call.func, scope) if isinstance(call.func, ast.Name) else None
    if not _is_dataclass(cls, scope, ctx):
        return []
    post = method_def(cls, "__post_init__", 1)
    if post is None or not post[0].args.args:
        return []
    fields = _init_fields(cls, scope, ctx, 0)
    names = [name for name, _ in fields]
    own = post[0].args.args[0].arg
    post_params = [a.arg for a in post[0].args.args[1:]]
    init_vars = [name for name, is_var in fields if is_var]
    found = []
    for position, keyword in passed:
        name = keyword if keyword in names else names[position] if position is not None and position < len(names) \
            else None
        if name is None:
            continue
        if name in init_vars:
            index = init_vars.index(name)
            if index < len(post_params):
                found.append((post[0], post_params[index]))
        else:
            found.append((post[0], f"{own}.{name}"))
    return found


def _is_dataclass(cls: object, scope: Scope, ctx: FileContext) -> bool:
    return isinstance(cls, ast.ClassDef) and any(
        ctx.resolver.qualname(d.func if isinstance(d, ast.Call) else d, scope) == _DATACLASS
        for d in cls.decorator_list)


def _init_fields(cls: ast.ClassDef, scope: Scope, ctx: FileContext, depth: int) -> list[tuple[str, bool]]:
    """The constructor's fields of a dataclass of the file, in order (its dataclass bases' first), each with
    whether it is an ``InitVar``."""
    fields: list[tuple[str, bool]] = []
    if depth < 3:
        for base in cls.bases:
            parent = ctx.resolver.definition(base, scope) if isinstance(base, ast.Name) else None
            if parent is not cls and _is_dataclass(parent, scope, ctx):
                fields.extend(_init_fields(parent, scope, ctx, depth + 1))
    for stmt in cls.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        if _no_init(stmt.value) or _annotated(stmt.annotation, "ClassVar"):
            continue
        fields = [f for f in fields if f[0] != stmt.target.id] + [(stmt.target.id, _annotated(stmt.annotation,
                                                                                              "InitVar"))]
    return fields


def _no_init(value: Optional[ast.AST]) -> bool:
    """``field(init=False)``: no parameter of the constructor."""
    return isinstance(value, ast.Call) and any(k.arg == "init" and isinstance(k.value, ast.Constant)
                                               and k.value.value is False for k in value.keywords)


def _annotated(annotation: ast.AST, name: str) -> bool:
    """``InitVar[...]`` / ``dataclasses.InitVar[...]`` (``ClassVar``): the annotation's outer name."""
    outer = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    return isinstance(outer, ast.Name) and outer.id == name or isinstance(outer, ast.Attribute) and outer.attr == name


def _class_method(call: ast.Call, scope: Scope, ctx: FileContext) -> Optional[tuple[ast.AST, int]]:
    """``Batch.from_data_list(samples)``: a class or static method of a class of the file, called on the class."""
    func = call.func
    cls = ctx.resolver.definition(func.value, scope) if isinstance(func, ast.Attribute) else None
    found = method_def(cls, func.attr, 0) if isinstance(cls, ast.ClassDef) else None
    if found is None:
        return None
    decorators = {d.id for d in found[0].decorator_list if isinstance(d, ast.Name)}
    return found[0], 1 if "classmethod" in decorators else 0


def _name(scope: Scope) -> str:
    """``collate``, ``Batch.from_data_list``: a function's name, with its class for a method."""
    name = getattr(scope.node, "name", "a function")
    owner = scope.parent
    return f"{owner.node.name}.{name}" if owner is not None and owner.kind == "class" \
        and isinstance(owner.node, ast.ClassDef) else name
