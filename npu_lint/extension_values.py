"""The compiled CUDA extension a call's receiver holds when the file's own code hands it on (NPU223): the module
a function of the file returns (``def _get_ext(): global _ext; _ext = _ext or load(...); return _ext``, then
``_get_ext().forward(x)``; ``def build(name): return load(name=name, sources=[name + ".cu"])``), a name bound to such
a call, and ``self.ext`` where every assignment of the attribute in the class is one (``self.ext = build("knn")``).
A name, an import or ``cpp_extension.load(...)`` itself is :func:`npu_lint.cuda_facts.extension_module`'s."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, Optional

from npu_lint.analysis.bindings import IMPORT
from npu_lint.cuda_facts import _LOADERS, builds_cuda, extension_module, is_extension_import

if TYPE_CHECKING:
    from npu_lint.context import FileContext

_DEPTH = 3
_WORDS = ("cpp_extension", "_C", "_ext", "_cuda")   # where a receiver may hold an extension module
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def extension_receiver(node: ast.expr, ctx: "FileContext") -> Optional[str]:
    """The extension ``node`` (a receiver: ``_get_ext()``, ``ext``, ``self.ext``) stands for, as the code names it,
    else None. Plain names are left to :func:`extension_module` (the caller asks it first). Asked only in a file
    that builds or imports an extension by the usual names (a cheap test: most attribute calls are not)."""
    if not any(ctx.mentions(word) for word in _WORDS) or not _has_extension(ctx):
        return None
    if isinstance(node, ast.Name):
        value = ctx.resolver.bound_value(node)
        return _held(value, ctx, None, 1) if isinstance(value, ast.Call) else None
    return _held(node, ctx, None, 0)


def _has_extension(ctx: "FileContext") -> bool:
    """The file builds an extension (``cpp_extension.load``) or imports one (:func:`is_extension_import`): once per
    file, over its import bindings."""
    found = ctx.scratch.get("has_extension")
    if found is None:
        found = ctx.mentions("cpp_extension")
        scopes = ctx.resolver.scopes
        if not found and scopes is not None:
            found = any(binding.tag == IMPORT and isinstance(binding.value, str) and binding.node is not None
                        and is_extension_import(binding.value.lstrip("."),
                                                len(binding.value) - len(binding.value.lstrip(".")), binding.node, ctx)
                        for scope in scopes.by_node.values() for bindings in scope.names.values()
                        for binding in bindings)
        ctx.scratch["has_extension"] = found
    return bool(found)


def _held(node: ast.AST, ctx: "FileContext", scope: Optional[Any], depth: int) -> Optional[str]:
    if depth > _DEPTH:
        return None
    if isinstance(node, ast.Name):
        found = extension_module(node, ctx, scope=scope)
        if found is not None:
            return found
        value = ctx.resolver.bound_value(node, scope)
        return _held(value, ctx, scope, depth + 1) if isinstance(value, ast.Call) else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if ctx.resolver.qualname(node.func, scope) in _LOADERS:
            return node.func.id if builds_cuda(node) else None
        function = ctx.resolver.definition(node.func)
        if isinstance(function, _FUNCTIONS):
            return _returned(function, ctx, depth)
        return None
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        owner = ctx.enclosing_any(node, (ast.ClassDef,))
        if owner is None:
            return None
        values = ctx.per_node("extension_attributes", owner, _attribute_values).get(node.attr)
        if not values:
            return None
        found = [_held(value, ctx, _scope(function, ctx), depth + 1) for function, value in values]
        return found[0] if all(found) else None
    return None


def _returned(function: ast.AST, ctx: "FileContext", depth: int) -> Optional[str]:
    """The extension every ``return`` of the function (not of a nested one) hands back (``return None`` aside),
    else None."""
    values = [node.value for node in _own_nodes(function) if isinstance(node, ast.Return) and node.value is not None
              and not (isinstance(node.value, ast.Constant) and node.value.value is None)]
    if not values:
        return None
    scope = _scope(function, ctx)
    found = [_held(value, ctx, scope, depth + 1) for value in values]
    return found[0] if all(found) else None


def _attribute_values(owner: ast.AST) -> dict[str, list[tuple[ast.AST, ast.expr]]]:
    """``{attr: [(method, value), ...]}``: the values the class's methods assign to ``self.<attr>`` whole."""
    found: dict[str, list[tuple[ast.AST, ast.expr]]] = {}
    for method in owner.body:   # type: ignore[attr-defined]
        if not isinstance(method, _FUNCTIONS):
            continue
        for node in _own_nodes(method):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                        and target.value.id == "self":
                    found.setdefault(target.attr, []).append((method, node.value))
    return found


def _own_nodes(function: ast.AST):
    """The nodes of a function's body, not those of functions, lambdas or classes defined inside it."""
    stack = list(getattr(function, "body", ()))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(child for child in ast.iter_child_nodes(node)
                     if not isinstance(child, (*_FUNCTIONS, ast.Lambda, ast.ClassDef)))


def _scope(function: ast.AST, ctx: "FileContext") -> Optional[Any]:
    scopes = ctx.resolver.scopes
    return scopes.scope_of(function) if scopes is not None else None
