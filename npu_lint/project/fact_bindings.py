"""The binding half of :class:`~npu_lint.project.facts.Extractor`: what the names a module binds may hold.

Assignment targets and the names they bind in each scope, module-level aliases (``Model = DetectionModel``) and
``__all__``, where a value comes from (the call or definition it is produced by, through local names, tuples and
conditional expressions), what a function's local names and a class's ``self.x`` attributes may hold, and the class
an annotated attribute or field declares. A mixin of the extractor, which supplies ``resolver``, ``scopes``,
``function_scopes``, ``class_stack``, ``classes``, ``globals``, ``exported``, ``_aliases`` and ``expressions``.
"""
from __future__ import annotations

import ast

from npu_lint.analysis.attribute_items import ITEMS
from npu_lint.analysis.nodes import walk
from npu_lint.project.fact_calls import _PARTIALS, _Scope
from npu_lint.project.fact_types import ONE_ARGUMENT

_CONDITION_ONLY = frozenset({"torch.where"})
# Producers remembered per local name of a function (``x = f(x)`` again and again): every call on the name records
# one call per producer, so without a cap 1,600 rebinds of ``prefixes`` and 1,600 ``prefixes.gather(...)`` made 2.6
# million call facts (11 s, 760 MB). The longest list on timm, mmdet, ultralytics and peft holds 32.
MAX_PRODUCERS = 64


class BindingFacts:
    """Bindings, aliases and the producers of values (mixed into the extractor)."""

    def target(self, node: ast.AST) -> None:
        if isinstance(node, ast.Name):
            self._bind(node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for element in node.elts:
                self.target(element)
        elif isinstance(node, ast.Starred):
            self.target(node.value)
        else:   # ``self.x = ...``, ``a[i] = ...``: the expressions inside still run
            for field in ("value", "slice"):
                value = getattr(node, field, None)
                if isinstance(value, ast.AST):
                    self.expressions(value)

    def _bind(self, name: str, defining: bool = False) -> None:
        scope = self.scopes[-1]
        if scope.kind == "function":
            scope.bound.add(name)
        elif scope.kind == "module" and not defining:
            self.globals.add(name)

    def _shadowed(self, node: ast.AST, scope: _Scope) -> bool:
        """A dotted name whose root is a local variable or parameter of the function (not an import there)."""
        while isinstance(node, ast.Attribute):
            node = node.value
        if not isinstance(node, ast.Name):
            return False
        root = node.id
        return any(root in scope.bound and root not in scope.defs for scope in self.function_scopes)

    def _module_assign(self, node: ast.Assign) -> None:
        alias = node.targets[0] if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
            and isinstance(node.value, (ast.Name, ast.Attribute)) else None
        for target in node.targets:   # a name bound twice at module level is no alias
            for name in walk(target):
                if isinstance(name, ast.Name) and (name is not alias or name.id in self._aliases):
                    self._aliases[name.id] = None
        if alias is not None and alias.id not in self._aliases:
            root, rest, _ = self._name_parts(node.value)
            self._aliases[alias.id] = (root, rest) if root and root != alias.id else None
        for target in node.targets:
            if isinstance(target, ast.Name) and target.id == "__all__" \
                    and isinstance(node.value, (ast.List, ast.Tuple)):
                names = [e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
                self.exported = tuple(names)

    def _producers(self, value: ast.AST) -> list[tuple[str, str, str]]:
        """Where ``value`` comes from, as ``(marker, root, rest)``: marker '' for the result of calling
        ``root.rest`` (``Pool(...)``), '=' for ``root.rest`` itself (``cls = SEModule``, ``partial(SEModule)``);
        through local names, tuples and conditional expressions."""
        if isinstance(value, ast.Call):
            if self.resolver.qualname(value.func) in _PARTIALS and value.args:
                return self._producers(value.args[0])
            root, rest, _ = self._name_parts(value.func)
            if rest and len(value.args) == 1 and not value.keywords and self.resolver.qualname(value.func) in _CONDITION_ONLY:
                rest += ONE_ARGUMENT   # ``torch.where(cond)``: the data-dependent form of an op with a static one
            return [("", root, rest)] if root else []
        if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) \
                and isinstance(value.value, ast.Call):   # ``torch.where(keep)[0]``: the indices of one axis
            return [found for found in self._producers(value.value) if found[2].endswith(ONE_ARGUMENT)]
        if isinstance(value, ast.Name) and self.function_scopes and value.id in self.function_scopes[-1].values:
            return list(self.function_scopes[-1].values[value.id])
        if isinstance(value, (ast.Name, ast.Attribute)):
            root, rest, _ = self._name_parts(value)
            scope = self.function_scopes[-1] if self.function_scopes else None
            if root and root not in ("self", "cls") and not (scope is not None and root in scope.bound):
                return [("=", root, rest)]
            return []
        if isinstance(value, (ast.Tuple, ast.List)):
            return [found for element in value.elts for found in self._producers(element)]
        if isinstance(value, ast.IfExp):
            return self._producers(value.body) + self._producers(value.orelse)
        return []

    def _local_values(self, targets: list[ast.AST], value: ast.AST) -> None:
        """``pool = Pool(...)`` and ``pool, n = make_pool(...)``: what a local name may hold."""
        if not self.function_scopes:
            return
        scope = self.function_scopes[-1]
        producers = self._producers(value)
        for target in targets:
            for name in ([target.id] if isinstance(target, ast.Name) else
                         [e.id for e in getattr(target, "elts", ()) if isinstance(e, ast.Name)]):
                if producers:
                    known = scope.values.setdefault(name, [])
                    if len(known) < MAX_PRODUCERS:
                        known.extend(producers[:MAX_PRODUCERS - len(known)])

    def _instance_attribute(self, targets: list[ast.AST], value: ast.AST) -> None:
        """``self.pool = nn.AdaptiveMaxPool2d(1)`` in a method: calling ``self.pool`` calls that object; the item
        store ``self.x[k] = v`` is kept as ``x[]`` (:mod:`npu_lint.analysis.attribute_items`)."""
        if not self.class_stack or not self.function_scopes:
            return
        scope = self.function_scopes[-1]
        if scope.owner is None or scope.owner != self.class_stack[-1]:
            return
        for target in targets:
            attr = None
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                attr = target.attr
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute) \
                    and isinstance(target.value.value, ast.Name) and target.value.value.id == "self" \
                    and not isinstance(target.slice, ast.Slice):
                attr = target.value.attr + ITEMS   # ``self.tokenizers[k] = Tokenizer(...)``: what its items hold
            if attr is not None:
                # an item store whose value the index cannot tell keeps a "?" (unresolved): no item value then
                producers = self._producers(value) or ([("", "", "")] if attr.endswith(ITEMS) else [])
                for marker, root, rest in producers:
                    self.classes[scope.owner]["attrs"].setdefault(attr, []).append((marker, root, rest, scope))

    def _annotated_attribute(self, node: ast.AnnAssign) -> None:
        """``optimizer: Optimizer`` in a class body (a NamedTuple or dataclass field, a declared attribute) or
        ``self.optimizer: Optimizer`` in one of its methods: the class the attribute holds an instance of."""
        if not self.class_stack:
            return
        target, scope = node.target, self.scopes[-1]
        if scope.kind == "class" and scope.name == self.class_stack[-1] and isinstance(target, ast.Name):
            attr = target.id
        elif scope.kind == "function" and scope.owner == self.class_stack[-1] and isinstance(target, ast.Attribute) \
                and isinstance(target.value, ast.Name) and target.value.id == "self":
            attr = target.attr
        else:
            return
        parts = self._name_parts(_declared_class(node.annotation))
        if parts[0]:
            self.classes[self.class_stack[-1]]["fields"].setdefault(attr, parts[:2])

    def _name_parts(self, node: ast.AST) -> tuple[str, str, int]:
        """A dotted name's root, the rest and the root's line (``nn.Conv2d``: ``("nn", "Conv2d", line)``)."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return "", "", 0
        return node.id, ".".join(reversed(parts)), getattr(node, "lineno", 0)


def _declared_class(annotation: ast.AST) -> ast.AST:
    """The class an annotation names: ``T`` of ``Optional[T]``, ``T | None``, ``"T"`` (else the annotation)."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return annotation
    if isinstance(annotation, ast.Subscript):
        head = annotation.value.attr if isinstance(annotation.value, ast.Attribute) else getattr(annotation.value, "id", "")
        inner = annotation.slice
        arms = [a for a in (inner.elts if isinstance(inner, ast.Tuple) else [inner])
                if not (isinstance(a, ast.Constant) and a.value is None)]
        return arms[0] if head in ("Optional", "Union") and len(arms) == 1 else annotation
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        arms = [a for a in (annotation.left, annotation.right) if not (isinstance(a, ast.Constant) and a.value is None)]
        return arms[0] if len(arms) == 1 else annotation
    return annotation
