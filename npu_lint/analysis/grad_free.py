"""Inference entry points: functions declared to run without gradients (decorated with ``@torch.no_grad()`` /
``@torch.inference_mode()``, called or bare), and the parameters such a function hands whole to its model: every use
of the parameter (through the calls that only convert or move it, natural_sizes.py's) is a model call with it (an
``nn.Module``, a callable the instance holds, ``self.model(image, mask)``) or a move to the device, and nothing else
(a resize, a letterbox, a helper of unknown effect) touches it. What such a parameter is given reaches the model at
its own shape. The project index records the parameters per function (``FunctionFacts.grad_free``) so a call from
another module knows them too. Asked by NPU419 (natural_inputs.py) at a call handed an input of the data's own
size."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis.nodes import walk
from npu_lint.analysis.summaries import memo

if TYPE_CHECKING:
    from npu_lint.analysis.scopes import Scope
    from npu_lint.resolver import Resolver

NO_GRAD = frozenset({"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad",
                     "torch.autograd.grad_mode.no_grad", "torch.autograd.grad_mode.inference_mode"})
_ENTRY_METHODS = ("__call__", "forward")


def declares_grad_free(resolver: "Resolver", function: ast.AST) -> bool:
    """``function`` is decorated with ``torch.no_grad`` / ``torch.inference_mode`` (called or bare)."""
    for decorator in getattr(function, "decorator_list", ()):
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if resolver.qualname(target) in NO_GRAD:
            return True
    return False


_NEUTRAL = frozenset({"isinstance", "len", "type", "hasattr", "getattr", "id", "print", "repr", "str"})
_MOVES = frozenset({"to", "cuda", "npu"})


def whole_inputs(resolver: "Resolver", function: ast.AST) -> tuple[tuple[str, int], ...]:
    """The parameters ``function`` (declared without gradients) hands whole to its model, with their positions
    among the positional parameters a call fills (``self`` not counted; -1: keyword-only); () when it is not so
    declared or hands none."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or not declares_grad_free(resolver, function) \
            or resolver.scopes is None:
        return ()
    from npu_lint.analysis.natural_sizes import KEEPING_FUNCTIONS, KEEPING_METHODS, natural_source
    scope = resolver.scopes.scope_of(function)
    if scope is None:
        return ()
    args = function.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    if scope.self_name is not None and positional and positional[0] == scope.self_name:
        positional = positional[1:]
    names = positional + [a.arg for a in args.kwonlyargs]
    methods = {item.name for item in scope.cls.node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))} \
        if scope.cls is not None and isinstance(scope.cls.node, ast.ClassDef) else set()
    verdict: dict[str, bool] = {}
    for call in walk(function):
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        name = resolver.qualname(func, scope)
        if name in _NEUTRAL or name in KEEPING_FUNCTIONS \
                or isinstance(func, ast.Attribute) and func.attr in KEEPING_METHODS and func.attr not in _MOVES:
            continue   # its result is followed where it is used
        moved = isinstance(func, ast.Attribute) and func.attr in _MOVES
        values = [func.value] if moved else [*call.args, *(kw.value for kw in call.keywords)]
        model = moved or _model_callee(resolver, func, scope, methods)
        for value in values:
            for parameter in names:
                if natural_source(resolver, value, scope, parameter=(function, parameter)) is not None:
                    verdict[parameter] = verdict.get(parameter, True) and model
    return tuple((p, positional.index(p) if p in positional else -1) for p in names if verdict.get(p))


def _model_callee(resolver: "Resolver", func: ast.AST, scope: "Scope", methods: set[str]) -> bool:
    """An ``nn.Module`` or a callable the instance holds (``self.model``, not one of the class's methods)."""
    value = resolver.value_of(func, scope)
    if value is not None and value[0] == "module":
        return True
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == scope.self_name \
        and func.attr not in methods and value is None


def grad_free_callee(resolver: "Resolver", call: ast.Call,
                     scope: Optional["Scope"]) -> Optional[tuple[str, tuple[tuple[str, int], ...]]]:
    """What ``call`` runs when it is an inference entry: (its name, the parameters it hands whole to its model with
    their positions, as :func:`whole_inputs`) for the file's function or method
    (``self.predict(x)``), an instance of the file's class whose ``__call__`` is one (``runner(img)``), or such a
    function or class of another module (the project index); else None."""
    func = call.func
    definition = resolver.definition(func, scope) if scope is not None else resolver.definition(func)
    if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        inputs = whole_inputs(resolver, definition)
        return (definition.name, inputs) if inputs else None
    value = resolver.value_of(func, scope) if scope is not None else resolver.value_of(func)
    cls = value[1] if value is not None and len(value) > 1 and isinstance(value[1], str) else None
    classes = _file_classes(resolver)
    if cls is not None and cls.rpartition(".")[2] in classes:
        owner = classes[cls.rpartition(".")[2]]
        for item in owner.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "__call__":
                inputs = whole_inputs(resolver, item)
                return (f"{owner.name}.__call__", inputs) if inputs else None
        return None
    project = resolver.project
    if project is None:
        return None
    if cls is not None:
        target = project.index.resolve(cls) if cls in project.index.classes or "." in cls else None
        inputs = project.method_grad_free(target, "__call__") if target is not None else ()
        return (f"{cls.rpartition('.')[2]}.__call__", inputs) if inputs else None
    name = resolver.qualname(func, scope) if scope is not None else resolver.qualname(func)
    inputs = project.grad_free(name, resolver.module_name) if name and "." in name else ()
    return (name.rpartition(".")[2], inputs) if inputs else None


def _file_classes(resolver: "Resolver") -> dict[str, ast.ClassDef]:
    """The module's top-level classes by name, built once per file (asked at every call NPU419 judges)."""
    def build() -> dict[str, ast.ClassDef]:
        scopes = resolver.scopes
        tree = scopes.module.node if scopes is not None else None
        return {node.name: node for node in getattr(tree, "body", ()) if isinstance(node, ast.ClassDef)}
    return memo(resolver._summaries, ("file_classes",), build) or {}
