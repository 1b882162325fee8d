"""The compiled CUDA extension a call's receiver holds when the file's own code hands it on (NPU223): the module
a function of the file returns (``def _get_ext(): global _ext; _ext = _ext or load(...); return _ext``, then
``_get_ext().forward(x)``; ``def build(name): return load(name=name, sources=[name + ".cu"])``), a name bound to such
a call, and ``self.ext`` where every assignment of the attribute in the class is one (``self.ext = build("knn")``).
A name, an import or ``cpp_extension.load(...)`` itself is :func:`npu_lint.cuda_facts.extension_module`'s."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, Optional

from npu_lint.analysis.bindings import IMPORT, VALUE
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
        return _held_by_name(node, ctx)
    return _held(node, ctx, None, 0)


def _held_by_name(node: ast.Name, ctx: "FileContext") -> Optional[str]:
    """The extension a local name holds where it is read: every binding that may reach the read (the arms of an
    ``if`` chain; for a closure's free name, each assignment of the enclosing function) binds it whole to a call that
    returns the extension or an object it makes (``mc = _C.CUMCFloat()`` / ``elif ...: mc = _C.CUMCDouble()``)."""
    scopes = ctx.resolver.scopes
    if scopes is None:
        return None
    current = ctx.resolver.current
    bindings = scopes.lookup_reaching(node.id, current, (node.lineno, node.col_offset))
    if len(bindings) == 1 and bindings[0].scope is not current and bindings[0].scope.kind == "function":
        bindings = bindings[0].scope.names.get(node.id, ())   # a closure reads the name late: any assignment
    found = [_held(b.value, ctx, b.scope, 1) if b.tag == VALUE and not b.path and isinstance(b.value, ast.Call)
             else None for b in bindings]
    return found[0] if found and all(found) else None


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
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
            and node.func.attr[:1].isupper():
        # an object of a class the extension exports (``_C.CUMCFloat()``, ``_C.Rasterizer(settings)``): its methods
        # run the extension's kernels; a lower-case operator's result (a tensor) is no such object
        module = extension_module(node.func.value, ctx, scope=scope)
        return f"{module}.{node.func.attr}" if module is not None else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if ctx.resolver.qualname(node.func, scope) in _LOADERS:
            return node.func.id if builds_cuda(node) else None
        function = ctx.resolver.definition(node.func)
        if isinstance(function, _FUNCTIONS):
            return _returned(function, ctx, depth)
        return None
    if isinstance(node, (ast.Attribute, ast.Call)) and depth <= _DEPTH:
        found = _class_held(node, ctx, scope, depth)
        if found is not None:
            return found
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


def _class_held(node: ast.AST, ctx: "FileContext", scope: Optional[Any], depth: int) -> Optional[str]:
    """The extension a class of the file keeps for every caller (lava-dl's ``Accelerated.leaky_integrator.fwd(...)``):
    ``Cls.attr`` that the class's methods assign only extensions to (``Accelerated.module = load(...)``, ``cls.module
    = ...``; a ``None`` placeholder aside), ``Cls.prop`` of a property-like method (its decorator's name ends in
    ``property``) and ``Cls.method()``, each returning one."""
    attribute = node.func if isinstance(node, ast.Call) else node
    if not isinstance(attribute, ast.Attribute) or not isinstance(attribute.value, ast.Name) \
            or attribute.value.id == "self":
        return None
    owner = ctx.enclosing_any(attribute, (ast.ClassDef,)) if attribute.value.id == "cls" \
        else ctx.resolver.definition(attribute.value, scope)   # ``return cls.module`` in a classmethod
    if not isinstance(owner, ast.ClassDef):
        return None
    method = next((item for item in owner.body if isinstance(item, _FUNCTIONS) and item.name == attribute.attr), None)
    if method is not None:
        if isinstance(node, ast.Call) or any(_decorator_name(d).endswith("property") for d in method.decorator_list):
            return _returned(method, ctx, depth)
        return None
    if isinstance(node, ast.Call):
        return None
    values = ctx.per_node("extension_class_attributes", owner, _class_attribute_values).get(attribute.attr)
    found = [_held(value, ctx, _scope(function, ctx), depth + 1) for function, value in values or ()
             if not (isinstance(value, ast.Constant) and value.value is None)]
    return found[0] if found and all(found) else None


def _decorator_name(decorator: ast.expr) -> str:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else ""


def _class_attribute_values(owner: ast.AST) -> dict[str, list[tuple[ast.AST, ast.expr]]]:
    """``{attr: [(method, value), ...]}``: what the class's methods assign to ``<Class>.<attr>`` or ``cls.<attr>``."""
    return _assigned(owner, {owner.name, "cls"})   # type: ignore[attr-defined]


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
    return _assigned(owner, {"self"})


def _assigned(owner: ast.AST, names: set[str]) -> dict[str, list[tuple[ast.AST, ast.expr]]]:
    """``{attr: [(method, value), ...]}``: the values the class's methods assign whole to ``<name>.<attr>``, for a
    name of ``names``."""
    found: dict[str, list[tuple[ast.AST, ast.expr]]] = {}
    for method in owner.body:   # type: ignore[attr-defined]
        if not isinstance(method, _FUNCTIONS):
            continue
        for node in _own_nodes(method):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                        and target.value.id in names:
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


def imported_operator(node: ast.Name, ctx: "FileContext", scope: Optional[Any] = None) -> Optional[str]:
    """The operator a name is imported as from a compiled extension module (``from pkg._C import knn``,
    ``from natten.libnatten import na1d_forward as na1d_forward_cxx``: :func:`is_extension_import` of the module it
    comes from), as ``module.name``; else None."""
    scopes = ctx.resolver.scopes
    binding = scopes.lookup(node.id, scope or ctx.resolver.current, (node.lineno, node.col_offset)) \
        if scopes is not None else None
    if binding is None or binding.tag != IMPORT or not isinstance(binding.value, str) \
            or not isinstance(binding.node, ast.ImportFrom):
        return None
    qualname = binding.value
    level = len(qualname) - len(qualname.lstrip("."))
    module = qualname.lstrip(".").rpartition(".")[0]
    return qualname.lstrip(".") if module and is_extension_import(module, level, binding.node, ctx) else None


_TABLES = (ast.Dict, ast.List, ast.Tuple)


def table_operator(callee: ast.expr, ctx: "FileContext") -> Optional[str]:
    """The extension operator a callee picks from a table of them: ``OPS[na_dim](x)`` after ``OPS = {1: na1d_cxx,
    2: na2d_cxx}``, ``fwd, bwd = {1: (na1d_fwd_cxx, na1d_bwd_cxx), ...}[na_dim]; fwd(x)``, where every entry (at the
    place the name unpacks) is an operator of a compiled extension: imported from it by name
    (:func:`imported_operator`) or read from the module (``_C.knn``). A table holding anything else (a Python
    function, a torch op) is no extension's: None."""
    scopes = ctx.resolver.scopes
    if scopes is None or not _has_extension(ctx):
        return None
    path: tuple[int, ...] = ()
    scope = ctx.resolver.current
    if isinstance(callee, ast.Name):
        binding = ctx.resolver.binding(callee)
        if binding is None or binding.tag != VALUE or not isinstance(binding.value, ast.Subscript) \
                or any(step < 0 for step in binding.path):
            return None
        callee, path, scope = binding.value, binding.path, binding.scope
    if not isinstance(callee, ast.Subscript):
        return None
    table = callee.value
    if isinstance(table, ast.Name):
        binding = ctx.resolver.binding(table, scope)
        if binding is None or binding.tag != VALUE or binding.path:
            return None
        table, scope = binding.value, binding.scope
    if not isinstance(table, _TABLES):
        return None
    entries = table.values if isinstance(table, ast.Dict) else table.elts
    found = []
    for entry in entries:
        for step in path:
            entry = entry.elts[step] if isinstance(entry, (ast.Tuple, ast.List)) and step < len(entry.elts) else None
        found.append(_operator(entry, ctx, scope) if entry is not None else None)
    return found[0] if found and all(found) else None


def _operator(node: ast.expr, ctx: "FileContext", scope: Optional[Any]) -> Optional[str]:
    if isinstance(node, ast.Name):
        return imported_operator(node, ctx, scope)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        module = extension_module(node.value, ctx, scope=scope)
        return f"{module}.{node.attr}" if module is not None else None
    return None
