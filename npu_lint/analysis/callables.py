"""Callables chosen at run time: what a call through one returns.

A function can be picked when the program runs: ``self.mask_fn = self._by_thr if cfg.thr else self._by_top``
then ``m = self.mask_fn(x)``; ``fn = {"nan": torch.isnan, "inf": torch.isinf}[mode]``; ``fn = getattr(self,
f"_mask_{mode}")``. The model lists every candidate the code shows (the file's own functions and methods,
torch / numpy functions, lambdas, ``functools.partial`` of one of these) and the call's value is the join of
what the candidates return (:func:`npu_lint.analysis.kinds.join`): a mask when every candidate returns a mask, a
tensor when they return tensors or masks, unknown as soon as one candidate is unknown or the choice is made
among callables the code does not show (a parameter without a default, an attribute of another object). A
parameter with a default callable (``def collate(batch, pad=pad_to_longest)``) has the default and whatever the
file's own calls pass for it as candidates.

A mixin of :class:`npu_lint.resolver.Resolver` (it supplies ``value_of``, ``qualname``, ``returns``, ``scopes``).
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.flows import passed_argument
from npu_lint.analysis.scopes import DEF, IMPORT, PARAM, VALUE, Binding, Scope

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

# ("def", FunctionDef, None) | ("api", qualname, None) | ("lambda", Lambda, scope)
Candidate = tuple[str, object, Optional[Scope]]
_DEPTH = 6
_MAX_CANDIDATES = 12
_PARTIAL = frozenset({"functools.partial", "partial"})


class Callables:
    """Calls through a callable picked at run time (mixed into the Resolver)."""

    def dispatched_value(self: "Resolver", func: ast.AST, scope: Scope) -> Optional[K.Value]:
        """The value a call of ``func`` returns when ``func`` is a callable chosen at run time (a name or
        ``self`` attribute bound to one of several functions, a dict of functions indexed, ``getattr``): the
        join of what every candidate returns; None when a candidate is unknown."""
        if self.scopes is None:
            return None
        candidates = self.callable_candidates(func, scope)
        if not candidates:
            return None
        values = []
        for kind, target, where in candidates:
            if kind == "def":
                value = self.returns(target)
            elif kind == "lambda":
                value = self.value_of(target.body, self.scopes.open_expression_scope(target, where))
            else:
                value = K.of_call(target)
                if value is None and self.project is not None and not target.startswith(("torch.", "numpy.")):
                    value = self.project.value_of_call(target, self.module_name)
            if value is None:
                return None
            values.append(value)
        return K.join(values)

    def callable_candidates(self: "Resolver", func: ast.AST, scope: Scope) -> list[Candidate]:
        """Every callable ``func`` may be where it is called; [] when one of them is not shown."""
        found: list[Candidate] = []
        if not self._collect(func, scope, found, 0, set()) or len(found) > _MAX_CANDIDATES:
            return []
        return found

    def _collect(self: "Resolver", node: ast.AST, scope: Scope, found: list[Candidate], depth: int,
                 seen: set[int]) -> bool:
        if depth > _DEPTH or id(node) in seen or len(found) > _MAX_CANDIDATES:
            return False
        seen.add(id(node))
        kind = type(node)
        if kind is ast.Name:
            bindings = self.scopes.lookup_reaching(node.id, scope, (node.lineno, node.col_offset))
            if not bindings:
                return False
            for binding in bindings:
                if binding.tag == DEF:
                    found.append(("def", binding.value, None))
                elif binding.tag == IMPORT and isinstance(binding.value, str) and not binding.value.startswith("."):
                    found.append(("api", binding.value, None))
                elif binding.tag == VALUE and not binding.path:
                    if not self._collect(binding.value, binding.scope, found, depth + 1, seen):
                        return False
                elif binding.tag == PARAM and not self._collect_parameter(binding, found, depth, seen):
                    return False
                elif binding.tag not in (DEF, IMPORT, VALUE, PARAM):
                    return False
            return True
        if kind is ast.Attribute:
            return self._collect_attribute(node, scope, found, depth, seen)
        if kind is ast.IfExp:
            return self._collect(node.body, scope, found, depth + 1, seen) and \
                self._collect(node.orelse, scope, found, depth + 1, seen)
        if kind is ast.Lambda:
            found.append(("lambda", node, scope))
            return True
        if kind is ast.Subscript:   # ``table[mode]``: any of the table's values
            table = self._dict_literal(node.value, scope)
            return table is not None and all(self._collect(v, s, found, depth + 1, seen) for v, s in table)
        if kind is ast.Call:
            name = node.func.id if isinstance(node.func, ast.Name) else None
            if name == "getattr" and len(node.args) >= 2 and self.binding(node.func, scope) is None:
                return self._collect_getattr(node, scope, found)
            if node.args and self.qualname(node.func, scope) in _PARTIAL:
                return self._collect(node.args[0], scope, found, depth + 1, seen)
        return False

    def _collect_parameter(self: "Resolver", binding: Binding, found: list[Candidate], depth: int,
                           seen: set[int]) -> bool:
        """``def collate(batch, pad=pad_to_longest)``: the default, and what the file's own calls pass instead."""
        default, function = binding.value, binding.scope.node
        if default is None or (isinstance(default, ast.Constant) and default.value is None) or binding.node is None:
            return False
        if not self._collect(default, binding.scope.parent or binding.scope, found, depth + 1, seen):
            return False
        for call, scope, offset in self.call_sites(function):
            passed = passed_argument(call, function, binding.node, offset)
            if passed is not None and not self._collect(passed, scope, found, depth + 1, seen):
                return False
        return True

    def _collect_attribute(self: "Resolver", node: ast.Attribute, scope: Scope, found: list[Candidate],
                           depth: int, seen: set[int]) -> bool:
        receiver = node.value
        if isinstance(receiver, ast.Name) and receiver.id == self.scopes.self_name(scope):
            method = self._own_method(scope, node.attr)
            if method is not None:
                found.append(("def", method, None))
                return True
            bindings = self.scopes.attribute(scope, node.attr)
            return bool(bindings) and all(b.tag == VALUE and not b.path
                                          and self._collect(b.value, b.scope, found, depth + 1, seen)
                                          for b in bindings)
        name = self.qualname(node, scope)
        if name is None or name.startswith("."):
            return False
        found.append(("api", name, None))
        return True

    def _collect_getattr(self: "Resolver", node: ast.Call, scope: Scope, found: list[Candidate]) -> bool:
        """``getattr(self, "name")``, ``getattr(self, f"_mask_{mode}")`` (every method with that prefix),
        ``getattr(torch, "isnan")``."""
        owner, attribute = node.args[0], node.args[1]
        prefix = None
        if isinstance(attribute, ast.Constant) and isinstance(attribute.value, str):
            exact = attribute.value
        elif isinstance(attribute, ast.JoinedStr) and attribute.values \
                and isinstance(attribute.values[0], ast.Constant) and len(str(attribute.values[0].value)) >= 2:
            exact, prefix = None, str(attribute.values[0].value)
        else:
            return False
        if isinstance(owner, ast.Name) and owner.id == self.scopes.self_name(scope):
            if exact is not None:
                method = self._own_method(scope, exact)
                if method is None:
                    return False
                found.append(("def", method, None))
                return True
            methods = self._own_methods(scope, prefix)
            found.extend(("def", m, None) for m in methods)
            return bool(methods)
        module = self.qualname(owner, scope)
        if exact is None or module is None or module.startswith("."):
            return False
        found.append(("api", f"{module}.{exact}", None))
        return True

    def _own_methods(self: "Resolver", scope: Scope, prefix: str) -> list[ast.AST]:
        current: Optional[Scope] = scope
        while current is not None and current.cls is None:
            current = current.parent
        if current is None:
            return []
        return [b.value for name, bindings in current.cls.names.items() if name.startswith(prefix)
                for b in bindings if b.tag == DEF]

    def _own_method(self: "Resolver", scope: Scope, name: str) -> Optional[ast.AST]:
        current: Optional[Scope] = scope
        while current is not None and current.cls is None:
            current = current.parent
        if current is None:
            return None
        return next((b.value for b in current.cls.names.get(name, ()) if b.tag == DEF), None)

    def _dict_literal(self: "Resolver", node: ast.AST, scope: Scope) -> Optional[list[tuple[ast.AST, Scope]]]:
        """The values of the dict literal ``node`` is (or a name / ``self`` attribute bound once to one)."""
        for _ in range(3):
            if isinstance(node, ast.Dict):
                if not node.values or any(key is None for key in node.keys):
                    return None
                return [(value, scope) for value in node.values]
            if isinstance(node, ast.Name):
                bindings = self.scopes.lookup_reaching(node.id, scope, (node.lineno, node.col_offset))
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id == self.scopes.self_name(scope):
                bindings = self.scopes.attribute(scope, node.attr)
            else:
                return None
            if len(bindings) != 1 or bindings[0].tag != VALUE or bindings[0].path:
                return None
            node, scope = bindings[0].value, bindings[0].scope
        return None
