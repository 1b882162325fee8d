"""What a name refers to where it stands: its binding, the qualified names it may stand for through imports and
namespace aliases (``tc.synchronize`` after ``import torch.cuda as tc`` is ``torch.cuda.synchronize``; a name bound
in alternative ``if`` arms may stand for several), what a bare name is imported as and the file's own ``def`` or
``class`` it names.

A mixin of :class:`npu_lint.resolver.Resolver`, which supplies ``scopes``, ``current`` and the memo
``_qualnames``; kept apart so that the model's names and values stay short.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.names import canonical
from npu_lint.analysis.scopes import CLASS, DEF, IMPORT, NONE, VALUE, Binding, Scope, literal_getattr, literal_module
from npu_lint.namespaces import is_namespace

_ITER_WRAPPERS = frozenset({"enumerate", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "iter", "zip", "list", "sorted",
                            "reversed"})
_BUILTINS = frozenset({"enumerate", "iter", "zip", "list", "sorted", "reversed"})
API_BUILTINS = _BUILTINS | {"torch"}   # names that stand for themselves unbound (``torch`` through a star import)
# Calls that return the module their one literal argument names (``importlib.import_module("torch")``); a project
# function whose every returned value is such a call of its argument (``try_import(modname)``) is one too.
MODULE_IMPORTERS = frozenset({"importlib.import_module", "wrapt.lazy_import", "lazy_loader.load"})
_ROOT_IMPORTERS = frozenset({"__import__", "builtins.__import__"})   # ``__import__("a.b")`` returns ``a``


def _aliased_namespace(target: Optional[str]) -> bool:
    """A qualified name a local name may stand for: a dotted namespace (a module or class), not a value."""
    return bool(target) and "." in target and not target.startswith(".") and is_namespace(target)   # type: ignore[operator,arg-type]


class NameLookup:
    """Bindings and qualified names (mixed into the Resolver)."""

    def binding(self, node: ast.Name, scope: Optional[Scope] = None) -> Optional[Binding]:
        """The binding a name refers to where it stands."""
        if self.scopes is None:
            return None
        return self.scopes.lookup(node.id, scope or self.current, (node.lineno, node.col_offset))

    def bound_value(self, node: ast.Name, scope: Optional[Scope] = None) -> Optional[ast.AST]:
        """The expression a name is bound to where it stands, when one assignment binds it whole (``x = f(y)``;
        not ``a, b = ...``, a parameter, an import or a loop target), else None."""
        binding = self.binding(node, scope)
        if binding is None or binding.tag != VALUE or binding.path or not isinstance(binding.value, ast.AST):
            return None
        return binding.value

    def qualname(self, node: ast.AST, scope: Optional[Scope] = None) -> Optional[str]:
        """``torch.cuda.synchronize`` for ``tc.synchronize`` after ``import torch.cuda as tc``; None for
        values (a local tensor's ``x.view``), the file's own functions and classes, and unknown names."""
        names = self._qualnames.get(node)
        if names is None:
            names = self.qualnames(node, scope)
        return names[0] if names else None

    def qualnames(self, node: ast.AST, scope: Optional[Scope] = None) -> tuple[str, ...]:
        """Every qualified name ``node`` may stand for: one, or several when the name is bound in alternative
        arms of an ``if`` (``mod = torch.cuda`` / ``elif ...: mod = torch.npu``); the last binding first."""
        memo = self._qualnames   # keyed by the node itself (alive while the memo is): no id int made per question
        result = memo.get(node)
        if result is not None:
            return result
        memo[node] = ()   # a guard against ``x = x.y`` cycles
        result = self._qualnames_of(node, scope or self.current)
        if result:   # one tuple per distinct answer, shared by every node that has it (each use of ``torch.cat``)
            result = self._names_shared.setdefault(result, result)
        memo[node] = result
        return result

    def _qualnames_of(self, node: ast.AST, scope: Scope) -> tuple[str, ...]:
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            root = self._getattr_target(node, scope)   # ``getattr(torch, "cuda").synchronize``
            if root is None:
                return ()
            return (canonical(root + "." + ".".join(reversed(parts))) if parts else root,)
        roots = self._name_targets(node, scope)
        if not parts:
            return roots
        if not roots:
            module = self.module_attribute(node, parts[-1], scope)
            if module is None:
                return ()
            roots, parts = (module,), parts[:-1]   # ``TabR.faiss.GpuIndexFlatL2``: ``faiss.GpuIndexFlatL2``
            if not parts:
                return roots
        tail = "." + (parts[0] if len(parts) == 1 else ".".join(reversed(parts)))
        if len(roots) == 1:   # the common case: one name, nothing to deduplicate
            return (canonical(roots[0] + tail),)
        return tuple(dict.fromkeys(canonical(root + tail) for root in roots))

    def _name_targets(self, node: ast.Name, scope: Scope) -> tuple[str, ...]:
        if self.scopes is None:
            return (node.id,) if node.id in _ITER_WRAPPERS or node.id == "torch" else ()
        if node.id not in self.scopes.api_roots() and node.id not in API_BUILTINS:
            if not self.scopes.star_imports or self.scopes.lookup_reaching(node.id, scope, (node.lineno,
                                                                                         node.col_offset)):
                return ()   # no import or alias binds the name anywhere in the file (a local, ``self``, a parameter)
            star = self._star_imported(node.id)
            return (star,) if star else ()
        bindings = self.scopes.lookup_reaching(node.id, scope, (node.lineno, node.col_offset))
        if not bindings:
            if node.id in _BUILTINS or node.id == "torch":   # ``torch`` may arrive through a star import
                return (node.id,)
            star = self._star_imported(node.id) if self.scopes.star_imports else None
            return (star,) if star else ()
        targets = []
        for binding in bindings:
            if binding.tag == IMPORT:
                targets.append(self._reexported(binding.value))
            elif binding.tag == VALUE and not binding.path and isinstance(binding.value, (ast.Name, ast.Attribute)):
                target = self.qualname(binding.value, binding.scope)
                if _aliased_namespace(target):
                    targets.append(target)   # ``cuda = torch.cuda``: a namespace alias
            elif binding.tag == VALUE and not binding.path and type(binding.value) is ast.IfExp \
                    and (chosen := self._chosen_targets(binding.value, binding.scope)):
                targets.extend(chosen)   # ``loader = DataLoader if weighted else InfiniteDataLoader``
            elif binding.tag == VALUE and not binding.path and type(binding.value) is ast.Call \
                    and (target := self._getattr_target(binding.value, binding.scope)) is not None:
                targets.append(target)   # ``cudnn = getattr(torch.backends, "cudnn", None)``: a namespace alias
            elif binding.tag == VALUE and not binding.path and type(binding.value) is ast.Call \
                    and (module := self.imported_module(binding.value, binding.scope)):
                targets.append(module)   # ``torch = try_import("torch")``: the module itself
            elif binding is bindings[0] and not any(b.tag == IMPORT for b in bindings[1:]):
                return ()   # the last binding is a value: the name is no API (but a shim beside an import is skipped)
        if len(targets) == 1:
            return (targets[0],)
        # ``try: from torch.cuda.amp import autocast`` / ``except ImportError: from contextlib import nullcontext as
        # autocast``: the torch API first, the fallback only runs where it is missing
        return tuple(sorted(dict.fromkeys(targets), key=lambda t: not t.startswith("torch.")))

    def _chosen_targets(self, choice: ast.IfExp, scope: Scope) -> list[str]:
        """The namespaces (modules, classes) either arm of ``A if test else B`` names; an arm that is no API (the
        file's own class) adds nothing, so the name stands for the API the other arm names."""
        found = []
        for arm in (choice.body, choice.orelse):
            if isinstance(arm, (ast.Name, ast.Attribute)):
                target = self.qualname(arm, scope)
                if _aliased_namespace(target):
                    found.append(target)
        return found

    def _getattr_target(self, node: ast.AST, scope: Scope) -> Optional[str]:
        """The namespace a ``getattr`` of a literal name reads (``getattr(torch.backends, "cudnn", None)`` is
        ``torch.backends.cudnn``), the builtin's only (a file's own ``getattr`` is not it); else None."""
        found = literal_getattr(node)
        if found is None or (self.scopes is not None and self.binding(node.func, scope) is not None):
            return None
        owner = self.qualname(found[0], scope)
        if owner is None:
            return None
        target = canonical(owner + "." + found[1])
        return target if "." in target and is_namespace(target) else None

    def imported_module(self, call: ast.Call, scope: Scope) -> Optional[str]:
        """The module a call returns by importing the one literal name it is given: ``importlib.import_module
        ("torch")`` (``__import__("torch.nn")``: ``torch``), or a helper of the project whose every returned value
        is such a call (``def try_import(modname): try: return importlib.import_module(modname) ... return None``;
        the file's own, or another module's through the index's ``returns``); else None."""
        name = literal_module(call)
        if name is None:
            return None
        callee = self.qualname(call.func, scope)
        if callee is None and isinstance(call.func, ast.Name) and call.func.id == "__import__" \
                and self.binding(call.func, scope) is None:
            callee = "__import__"   # the builtin
        if callee in MODULE_IMPORTERS:
            return name
        if callee in _ROOT_IMPORTERS:
            return name.partition(".")[0]
        definition = self.definition(call.func, scope) if isinstance(call.func, ast.Name) else None
        if definition is not None:
            return name if self._imports_parameter(definition) else None
        project = getattr(self, "project", None)
        if callee is None or project is None or not self.module_name:
            return None
        found = project.module_function(callee, self.module_name)
        returns = found[1].returns if found is not None else ()
        return name if returns and all(r in MODULE_IMPORTERS for r in returns) else None

    def _imports_parameter(self, function: ast.AST) -> bool:
        """The file's own function returns, wherever it returns a value, ``importlib.import_module(p)`` of its first
        parameter ``p`` (``return None`` aside)."""
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or self.scopes is None:
            return False
        params = function.args.posonlyargs + function.args.args
        inner = self.scopes.by_node.get(id(function))
        if not params or inner is None:
            return False
        found = False
        for node in ast.walk(function):
            if isinstance(node, (ast.Yield, ast.YieldFrom)):
                return False
            if not isinstance(node, ast.Return) or node.value is None or (
                    isinstance(node.value, ast.Constant) and node.value.value is None):
                continue
            value = node.value
            if not (type(value) is ast.Call and len(value.args) == 1 and isinstance(value.args[0], ast.Name)
                    and value.args[0].id == params[0].arg
                    and self.qualname(value.func, inner) in MODULE_IMPORTERS):
                return False
            found = True
        return found

    def _module_stores(self) -> dict[str, list[tuple[ast.Name, ast.Name, Scope]]]:
        """``X.attr = name`` statements of the file, by ``attr``: (X, name, the statement's scope), once per file."""
        key = ("module stores", 0)   # the memo may outlive one file's model: kept with the scopes it was read from
        memo = self._summaries.get(key)
        if memo is not None and memo[0] is self.scopes:   # type: ignore[index]
            return memo[1]   # type: ignore[index]
        found: dict[str, list[tuple[ast.Name, ast.Name, Scope]]] = {}
        for statement, where in self.scopes.statements:
            if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Name):
                for target in statement.targets:
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                        found.setdefault(target.attr, []).append((target.value, statement.value, where))
        self._summaries[key] = (self.scopes, found)
        return found

    def _imported_module(self, name: ast.Name, scope: Scope) -> Optional[str]:
        """The module an ``import m`` / ``import m as n`` statement binds ``name`` to where it stands (a from-import
        may bind a function or a class: not asked)."""
        binding = self.scopes.lookup(name.id, scope, (name.lineno, name.col_offset))
        if binding is None or binding.tag != IMPORT or not isinstance(binding.node, ast.Import):
            return None
        return binding.value

    def _holder_class(self, name: ast.Name, scope: Scope) -> Optional[ast.ClassDef]:
        """The file's class ``name`` is where it stands: the class itself (``TabR``) or ``self`` / ``cls`` in one
        of its methods."""
        binding = self.scopes.lookup(name.id, scope, (name.lineno, name.col_offset))
        if binding is not None and binding.tag == CLASS and isinstance(binding.value, ast.ClassDef):
            return binding.value
        current: Optional[Scope] = scope
        while current is not None and current.cls is None:
            current = current.parent
        if current is not None and current.self_name == name.id and isinstance(current.cls.node, ast.ClassDef):
            return current.cls.node
        return None

    def module_attribute(self, node: ast.Name, attr: str, scope: Scope) -> Optional[str]:
        """The module ``X.attr`` stands for when ``X`` is one of the file's classes (or ``self`` in its methods)
        and every value the file gives ``attr`` of that class is one imported module (a lazy import kept on the
        class: ``faiss = None`` in the body, ``TabR.faiss = faiss`` after ``import faiss`` in a method); None
        otherwise (any other value, a from-import, two modules)."""
        if self.scopes is None:
            return None
        stores = self._module_stores().get(attr)
        if not stores:
            return None
        cls = self._holder_class(node, scope)
        if cls is None:
            return None
        key = ("module attribute", id(cls), attr)
        memo = self._summaries.get(key)
        if memo is not None and memo[0] is cls:   # type: ignore[index]
            return memo[1]   # type: ignore[index]
        self._summaries[key] = (cls, None)   # the class is kept with its answer: its id is not reused meanwhile
        found = set()
        for holder, value, where in stores:
            if self._holder_class(holder, where) is cls:
                module = self._imported_module(value, where)
                if module is None:
                    return None
                found.add(module)
        body = self.scopes.scope_of(cls)
        if body is not None:
            for binding in list(body.names.get(attr, ())) + list(body.attrs.get(attr, ())):
                if binding.tag != NONE and not (binding.tag == VALUE and isinstance(binding.value, ast.Name)
                                                and not binding.path):
                    return None   # the attribute holds some other value too
                if binding.tag == VALUE and binding.scope is body:
                    found.add(self._imported_module(binding.value, body) or "")
        if len(found) != 1 or "" in found:
            return None
        module = found.pop()
        self._summaries[key] = (cls, module)
        return module

    def holder_roots(self) -> frozenset[str]:
        """The names ``X`` of ``X.attr = m`` statements that keep an imported module on a class: roots that may
        stand for an API beside the file's own imports (:meth:`module_attribute` says which)."""
        if self.scopes is None:
            return frozenset()
        return frozenset(holder.id for stores in self._module_stores().values() for holder, value, where in stores
                         if self._imported_module(value, where) is not None)

    def star_roots(self, tree: ast.AST, known: frozenset[str]) -> frozenset[str]:
        """The names the file reads but never binds that a star-imported module of the project binds to a library
        name (:meth:`_star_imported`): roots that may stand for an API, beside the file's own imports."""
        if getattr(self, "project", None) is None:
            return frozenset()
        read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - known
        return frozenset(name for name in read if self._star_imported(name))

    def _star_imported(self, name: str) -> Optional[str]:
        """The library name a name the file never binds stands for when a module of the project it star-imports
        imports it (``from pkg.utils import *`` where ``pkg/utils.py`` does ``import torch.nn as nn``: ``nn`` is
        ``torch.nn``), through the project index; None without the index or when no star-imported module binds
        it to a library name."""
        project = getattr(self, "project", None)
        if project is None or not self.module_name:
            return None
        for module in reversed(self.scopes.star_imports):   # the last star import binds last
            found = project.external(f"{module}.{name}", self.module_name)
            if found:
                return found
        return None

    def _reexported(self, target: str) -> str:
        """A project name that re-exports a library's (``from ..types import Tensor`` with ``Tensor =
        torch.Tensor`` there) stands for the library's name, when the project index knows it."""
        project = getattr(self, "project", None)
        if project is None or not (target.startswith(".") or "." in target):
            return target
        return project.external(target, self.module_name) or target

    def alias_target(self, node: ast.Assign) -> Optional[str]:
        """The namespace ``name = torch.cuda`` makes ``name`` stand for (None for value copies)."""
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name) \
                or not isinstance(node.value, (ast.Name, ast.Attribute)):
            return None
        qualified = self.qualname(node.value)
        if qualified and "." in qualified and not qualified.startswith(".") and is_namespace(qualified):
            return qualified
        return None

    def imported(self, name: str) -> Optional[str]:
        """What a bare name is imported as where the walk stands (``_C`` -> ``._C``), else None."""
        if self.scopes is None:
            return None
        binding = self.scopes.lookup(name, self.current, None)
        return binding.value if binding is not None and binding.tag == IMPORT else None

    def definition(self, node: ast.AST, scope: Optional[Scope] = None) -> Optional[ast.AST]:
        """The file's own ``def`` or ``class`` a name refers to."""
        if isinstance(node, ast.Name):
            binding = self.binding(node, scope)
            if binding is not None and binding.tag in (DEF, CLASS):
                return binding.value
        return None
