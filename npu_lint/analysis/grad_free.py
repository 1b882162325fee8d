"""Functions that run without gradients by their own declaration: decorated with ``@torch.no_grad()``,
``@torch.inference_mode()`` (or the bare decorators). Such a function (or a class's ``__call__`` / ``forward``) is an
inference entry point: what it is given reaches a model's forward, on the device the model is on. The project index
records it per function (``FunctionFacts.grad_free``) so a call from another module knows it too. Asked by NPU419
(natural_inputs.py) at a call handed an input of the data's own size."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

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


def grad_free_callee(resolver: "Resolver", call: ast.Call, scope: Optional["Scope"]) -> Optional[str]:
    """The name of what ``call`` runs when it is declared without gradients: the file's function or method
    (``self.predict(x)``), an instance of the file's class whose ``__call__`` is (``runner(img)``), or such a
    function or class of another module (the project index); else None."""
    func = call.func
    definition = resolver.definition(func, scope) if scope is not None else resolver.definition(func)
    if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return definition.name if declares_grad_free(resolver, definition) else None
    value = resolver.value_of(func, scope) if scope is not None else resolver.value_of(func)
    cls = value[1] if value is not None and len(value) > 1 and isinstance(value[1], str) else None
    classes = _file_classes(resolver)
    if cls is not None and cls.rpartition(".")[2] in classes:
        owner = classes[cls.rpartition(".")[2]]
        for item in owner.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "__call__" \
                    and declares_grad_free(resolver, item):
                return f"{owner.name}.__call__"
        return None
    project = resolver.project
    if project is None:
        return None
    if cls is not None:
        target = project.index.resolve(cls) if cls in project.index.classes or "." in cls else None
        if target is not None and project.method_grad_free(target, "__call__"):
            return f"{cls.rpartition('.')[2]}.__call__"
        return None
    name = resolver.qualname(func, scope) if scope is not None else resolver.qualname(func)
    if name and "." in name and project.grad_free(name, resolver.module_name):
        return name.rpartition(".")[2]
    return None


def _file_classes(resolver: "Resolver") -> dict[str, ast.ClassDef]:
    scopes = resolver.scopes
    tree = scopes.module.node if scopes is not None else None
    return {node.name: node for node in getattr(tree, "body", ()) if isinstance(node, ast.ClassDef)}
