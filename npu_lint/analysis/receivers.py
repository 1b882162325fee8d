"""Receivers whose kind a method call needs and the file does not show at the binding: ``isinstance`` narrowing
(of names and ``self.x``: if/elif bodies, asserts, early exits, conditional expressions; refuted tests in else arms),
what subclasses' overrides of a method return, and the classes a name refers to (``MyFn.apply``). ``self.x`` set by
base classes is declared.py's (``member_value``).

A mixin of :class:`npu_lint.resolver.Resolver`, which supplies ``binding``, ``value_of``, ``qualname``,
``annotation_value`` (declared.py), ``class_value``, ``returns`` and the scopes.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.declared import PYTHON_SCALARS
from npu_lint.analysis.bindings import AUTOGRAD_STATIC
from npu_lint.analysis.nodes import class_bases
from npu_lint.analysis.scalars import python_number
from npu_lint.analysis.scopes import VALUE, Binding, Position, Scope
from npu_lint.analysis.summaries import return_statements

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Python classes an ``isinstance`` test names: the value is no torch object (nor a tensor: ``Iterable`` is left out).
_PYTHON_TYPES = {name: (K.OBJECT, None) for name in (
    "dict", "str", "bytes", "int", "float", "bool", "complex", "set", "frozenset", "Mapping", "MutableMapping",
    "OrderedDict", "defaultdict", "Number", "Integral", "Real")}
_PYTHON_TYPES.update({name: (K.LIST, None)
                      for name in ("list", "tuple", "Sequence", "MutableSequence", "List", "Tuple")})
_PYTHON_TYPES.update({name: (K.OBJECT, None) for name in ("Dict", "Set", "FrozenSet", "DefaultDict")})


def _python_number(binding: Binding) -> bool:
    """The binding gives a Python number (``size = x.size(dim)``, ``n = len(xs)``, ``k = 1``)."""
    return binding.tag == VALUE and not binding.path and isinstance(binding.value, ast.AST) \
        and python_number(binding.value)


def _python_list(binding: Binding) -> bool:
    """The binding gives what ``x.tolist()`` gives: a Python list (or number), never a tensor."""
    value = binding.value
    return binding.tag == VALUE and not binding.path and isinstance(value, ast.Call) and not value.args \
        and isinstance(value.func, ast.Attribute) and value.func.attr == "tolist"


class Receivers:
    """Narrowing, overrides and class references (mixed into the Resolver)."""

    def _narrowed(self, node: ast.Name, scope: Scope, value: Optional[K.Value],
                  bindings: list[Binding]) -> Optional[K.Value]:
        """The value of a name where an ``isinstance`` test on it holds (``if isinstance(x, torch.Tensor):``
        ``x.to(d)``, ``elif isinstance(x, dict): x.items()``): the tested class, unless the bindings say more."""
        current: Optional[Scope] = scope
        while current is not None:
            ranges = current.narrowed.get(node.id)
            if ranges:
                break
            if current.kind not in ("comprehension", "lambda"):
                return value
            current = current.parent
        else:
            return value
        pos = (node.lineno, node.col_offset)
        found = [(holds, start, classinfo) for start, end, classinfo, test, holds in ranges
                 if start <= pos <= end and self.scopes.lookup_reaching(node.id, scope, test) == bindings]
        if found and bindings and all(_python_number(b) or _python_list(b) for b in bindings):
            # ``size = x.size(dim)`` / ``size = 1`` / ``size = size.tolist()``: a number or a list on the host,
            # whatever ``if isinstance(size, Tensor):`` tests (that arm never runs)
            return (K.LIST, None) if any(_python_list(b) for b in bindings) else (K.HOST, K.PYTHON_NUMBER)
        if found and value is not None and value[0] == K.OBJECT and value[1] in PYTHON_SCALARS and bindings \
                and all(b.tag == VALUE and not b.path and isinstance(b.value, ast.Call) for b in bindings):
            # ``n = cache.current_len(0)``, a method declared (or seen) to return an ``int``: a Python number
            # whatever ``if isinstance(n, Tensor):`` tests (that arm never runs); not a parameter's annotation,
            # which a caller may not keep
            return value
        return self._narrowed_by(found, current, value)

    def _narrowed_by(self, found: list[tuple[bool, Position, ast.AST]], scope: Scope,
                     value: Optional[K.Value]) -> Optional[K.Value]:
        """The innermost test that holds decides; else a refuted one (``else:`` of ``if isinstance(x, T)``)."""
        if not found:
            return value
        holds, _, classinfo = max(found, key=lambda item: (item[0], item[1]))
        return self._narrowing(self.isinstance_value(classinfo, scope), value, holds)

    def _python_type(self, node: ast.AST, scope: Scope) -> Optional[K.Value]:
        """``dict``, ``typing.List``, ``collections.abc.Mapping`` ...: the value is no torch object."""
        if isinstance(node, ast.Name) and self.binding(node, scope) is None:
            return _PYTHON_TYPES.get(node.id)
        name = self.qualname(node, scope)
        if name is not None and name.rpartition(".")[0] in ("typing", "collections", "collections.abc", "numbers"):
            return _PYTHON_TYPES.get(name.rpartition(".")[2])
        return None

    def _narrowed_attribute(self, node: ast.Attribute, scope: Scope, value: Optional[K.Value],
                            bindings: list[Binding]) -> Optional[K.Value]:
        """``self.x`` where ``isinstance(self.x, T)`` holds (no ``self.x = ...`` of this method in between)."""
        key = f"{node.value.id}.{node.attr}" if isinstance(node.value, ast.Name) else ""
        current: Optional[Scope] = scope
        while current is not None and key not in current.narrowed and current.kind in ("comprehension", "lambda"):
            current = current.parent
        ranges = current.narrowed.get(key) if current is not None else None
        if not ranges:
            return value
        pos = (node.lineno, node.col_offset)
        found = [(holds, start, classinfo) for start, end, classinfo, test, holds in ranges
                 if start <= pos <= end and not any(b.scope is current and test <= b.pos <= pos for b in bindings)]
        return self._narrowed_by(found, current, value)

    @staticmethod
    def _narrowing(tested: Optional[K.Value], value: Optional[K.Value], holds: bool = True) -> Optional[K.Value]:
        """The tested class, unless the bindings say more (``isinstance(x, nn.Module)`` on a ``Linear``); where
        the test is refuted (``if not isinstance(x, torch.Tensor):``), a tensor binding is no tensor there."""
        if not holds:
            refuted = tested is not None and tested[0] in K.TENSORS and value is not None and value[0] in K.TENSORS
            return (K.OBJECT, None) if refuted else value
        if tested is None or value is None:
            return tested or value
        if tested[0] == value[0] and (value[1] or not tested[1]):
            return value
        if tested[0] == K.OBJECT and value[0] not in K.TENSORS + (K.OBJECT,):
            return value   # a class no torch kind fits (a mixin): the binding's torch object says more
        if tested[0] in K.TENSORS and value[0] in K.TENSORS:
            return value
        if tested[0] in K.TENSORS and value[0] == K.LIST:
            return value   # ``size = size.tolist()``: a Python list, which ``isinstance(size, Tensor)`` never holds
        return tested

    def isinstance_value(self, classinfo: ast.AST, scope: Scope) -> Optional[K.Value]:
        """What a value is when ``isinstance(value, classinfo)`` holds (a tuple of classes: what they agree on; a
        class of the project that derives from no torch class: no torch object)."""
        if isinstance(classinfo, ast.Tuple):
            return K.join([self.isinstance_value(e, scope) for e in classinfo.elts]) if classinfo.elts else None
        # a class of the project or another library that no torch kind fits: ``object`` of that class
        return self._python_type(classinfo, scope) or self.annotation_value(classinfo, scope)

    def _overrides(self, method: ast.AST) -> list[Optional[K.Value]]:
        """What the methods that subclasses in the file or the project define again in place of ``method`` return
        (``self.postprocess(x)`` in a base class may run one of those)."""
        inner = self.scopes.scope_of(method) if self.scopes is not None else None
        owner = inner.parent if inner is not None else None
        if owner is None or owner.kind != "class" or not isinstance(owner.node, ast.ClassDef):
            return []
        name = method.name
        found: list[Optional[K.Value]] = []
        for other, again in self.scopes.class_defs(name):   # the classes that define ``name``, indexed once
            if other is not owner.node and self._derives(other, owner.node):
                found.append(self.returns(again))
        if self.project is not None and self.module_name:
            found.extend(self.project.overrides(f"{self.module_name}.{owner.node.name}", name))
        return found

    def _local_class_nodes(self) -> list[ast.ClassDef]:
        return self.scopes.class_nodes() if self.scopes is not None else []   # listed once per module

    def _derives(self, cls: ast.ClassDef, base: ast.ClassDef, depth: int = 0) -> bool:
        """``cls`` derives from ``base``, both classes of this module."""
        for node in class_bases(cls):
            local = self.definition(node, self.scopes.module) if isinstance(node, ast.Name) else None
            if local is base or (isinstance(local, ast.ClassDef) and depth < 8
                                 and self._derives(local, base, depth + 1)):
                return True
        return False

    def autograd_ctx(self, binding: Binding, scope: Scope) -> bool:
        """The first parameter of a static ``forward`` / ``backward`` ... of an autograd Function subclass."""
        function = scope.node
        if not isinstance(function, _DEFS) or function.name not in AUTOGRAD_STATIC or scope.parent is None \
                or scope.parent.kind != "class" or not isinstance(scope.parent.node, ast.ClassDef):
            return False
        positional = function.args.posonlyargs + function.args.args
        return bool(positional) and positional[0] is binding.node and any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list) \
            and (self.class_value(scope.parent.node) or ("",))[0] == K.AUTOGRAD

    def class_reference(self, node: ast.AST, scope: Optional[Scope] = None) -> Optional[K.Value]:
        """What instances of the class a name refers to are, for a class of this file or of the project
        (``MyFn`` in ``MyFn.apply(x)``: an autograd Function); None for anything that is not a project class."""
        if isinstance(node, ast.Name):
            local = self.definition(node, scope)
            if isinstance(local, ast.ClassDef):
                return self.class_value(local)
            if local is not None:
                return None
        name = self.qualname(node, scope)
        if name is None or self.project is None or name.startswith("torch."):
            return None
        return self.project.class_value(name, self.module_name)

    def other_values(self, node: ast.AST, scope: Optional[Scope] = None) -> list[K.Value]:
        """The values no tensor that may reach ``node`` as the code shows them, even where the model knows no one
        kind for it: bindings that disagree (``b = Boxes(x)`` in one arm, ``b = x.clone()`` in the other), ``self.b``
        set to a project object in one method and a tensor in another, a name copied from one of those, a function of
        this file returning either (an instance of a project or other class, a host array, a module ...; a Python
        list and a tensor moved to the CPU are left out). The inventory names no method of such a receiver as a
        tensor's by a guess."""
        found: list[K.Value] = []
        self._other_values(node, scope or self.current, 0, found)
        return found

    def _other_values(self, node: ast.AST, scope: Scope, depth: int, found: list[K.Value]) -> None:
        if depth > _OTHER_DEPTH or self.scopes is None:
            return
        value = self.value_of(node, scope)
        if value is not None:
            if _no_tensor(value):
                found.append(value)
        elif isinstance(node, ast.Name):
            for binding in self.scopes.lookup_reaching(node.id, scope, (node.lineno, node.col_offset)):
                self._bound_others(binding, depth, found)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == self.scopes.self_name(scope):
            for binding in self.scopes.attribute(scope, node.attr):
                self._bound_others(binding, depth, found)
        elif isinstance(node, (ast.IfExp, ast.BoolOp)):
            for arm in ((node.body, node.orelse) if isinstance(node, ast.IfExp) else node.values):
                self._other_values(arm, scope, depth + 1, found)
        elif isinstance(node, ast.Call):
            built = self.qualname(node.func, scope)
            if built is not None and _foreign_class(built):   # ``Accelerator()``: an instance of another library's
                found.append((K.OBJECT, built))                # class (``accelerator.backward(loss)``, ``.gather``)
                return
            method = self.callee(node, scope)   # ``self.make(x)``, ``make(x)``: what its returns may be
            inner = self.scopes.scope_of(method[0]) if method is not None else None
            if inner is not None and isinstance(method[0], _DEFS):
                for returned in return_statements(method[0]):
                    if returned.value is not None:
                        self._other_values(returned.value, inner, depth + 1, found)

    def _bound_others(self, binding: Binding, depth: int, found: list[K.Value]) -> None:
        value = self.binding_value(binding)
        if value is not None:
            if _no_tensor(value):
                found.append(value)
        elif binding.tag == VALUE and not binding.path:
            self._other_values(binding.value, binding.scope, depth + 1, found)


_OTHER_DEPTH = 6
# packages whose classes may be tensors or arrays (``torchvision.tv_tensors.Image``, ``monai.data.MetaTensor``)
_TENSOR_LIBRARIES = ("torchvision.", "monai.", "numpy.", "builtins.")


def _foreign_class(name: str) -> bool:
    """``accelerate.Accelerator``, ``wandb.Table``, ``torch.multiprocessing.Queue``: a class (CamelCase) of a
    library, whose instance is no tensor; a class named ``...Tensor`` (``MetaTensor``, ``DTensor``), ``Parameter``,
    ``Buffer`` or ``Variable`` may be one."""
    last = name.rpartition(".")[2]
    return "." in name and last[:1].isupper() and not last.isupper() and not name.startswith(_TENSOR_LIBRARIES) \
        and not last.endswith(("Tensor", "Parameter", "Buffer", "Variable"))


def _no_tensor(value: K.Value) -> bool:
    """A value the model knows that is no tensor and may have methods a tensor has (a list has none of them)."""
    return value[0] not in K.TENSORS + (K.LIST,) and value != (K.HOST, K.CPU_TENSOR)
