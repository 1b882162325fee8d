"""The elements of values: what ``a, b = value`` binds at each position (tuples, the tuples tensor methods return,
the file's own functions' and other modules' returned tuples) and what ``for target in source`` binds (through
``enumerate``, ``zip``, ``tqdm`` ...; loaders give batches, modules' ``parameters()`` tensors).

A mixin of :class:`npu_lint.resolver.Resolver`, which supplies ``value_of``, ``qualname``, ``definition``,
``_callee``, ``class_method``, ``_returned_element``, ``_declared_element``, ``project`` and ``module_name``.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.declared import CLASSED as _CLASSED
from npu_lint.analysis.scopes import STAR, Scope

_ITERATION_WRAPPERS = frozenset({"tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.autonotebook.tqdm",
                                 "iter", "sorted", "reversed", "list"})


class Elements:
    """Elements of tuples and of iterables (mixed into the Resolver)."""

    def _tuple_element(self, value: ast.AST, scope: Scope, depth: int) -> Optional[K.Value]:
        """``x.max(-1)[0]``, ``torch.sort(x)[1]``: an element of the tuple of tensors a tensor method returns."""
        if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute) \
                or value.func.attr not in K.TENSOR_TUPLES:
            return None
        name = self.qualname(value.func, scope)
        if name is not None:
            return (K.TENSOR, None) if K.tensor_function(name) else None
        receiver = self.value_of(value.func.value, scope, depth)
        return (K.TENSOR, None) if receiver is not None and receiver[0] in K.TENSORS else None

    def _element(self, value: ast.AST, scope: Scope, path: tuple[int, ...], depth: int) -> Optional[K.Value]:
        """What ``a, b = value`` binds at ``path``."""
        index = path[0]
        if isinstance(value, (ast.Tuple, ast.List)):
            if index == STAR or index >= len(value.elts) or any(isinstance(e, ast.Starred) for e in value.elts):
                return None
            element = value.elts[index]
            return self._element(element, scope, path[1:], depth) if path[1:] else self.value_of(element, scope, depth)
        if isinstance(value, ast.Call):
            func = value.func
            name = self.qualname(func, scope)
            method = name.rpartition(".")[2] if name else (func.attr if isinstance(func, ast.Attribute) else "")
            if name is None and isinstance(func, ast.Attribute):
                receiver = self.value_of(func.value, scope, depth)
                if receiver is not None and receiver[0] in K.TENSORS and method in K.TENSOR_TUPLES:
                    return K.TENSOR, None
            elif name is not None and K.tensor_function(name) and method in K.TENSOR_TUPLES:
                return K.TENSOR, None
            definition = self.definition(func, scope) if isinstance(func, ast.Name) else None
            if definition is None and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                method = self._callee(value, scope)   # ``a, b = self.helper(x)``
                definition = method[0] if method is not None and method[0].name == func.attr else None
            asked = None
            if definition is None and isinstance(func, ast.Attribute) and len(path) == 1 and index != STAR:
                receiver = self.value_of(func.value, scope, depth)   # ``v, p = self.policy.evaluate(x)``
                if receiver is not None and receiver[0] in _CLASSED and receiver[1]:
                    definition, asked = self.class_method(receiver[1], func.attr)
            if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)) and len(path) == 1:
                return self._returned_element(definition, index)
            if asked is not None and self.project is not None:
                return self.project.element_of_method(asked, func.attr, index)
            if self.project is not None and len(path) == 1 and index != STAR:
                if name is not None and not name.startswith("torch"):   # ``a, mask = pkg.ops.split(x)``
                    return self.project.element_of_call(name, self.module_name, index)
                if name is None:   # ``boxes, mask = self.assigner(x)``: a project module's ``forward``
                    called = self.value_of(func, scope, depth)
                    if called is not None and called[0] == K.MODULE and called[1]:
                        return self.project.element_of_method(called[1], "forward", index)
        whole = self.value_of(value, scope, depth)
        if whole is not None and whole[0] in (K.BATCH, K.HOST):
            return whole
        return None

    def iterated(self, source: ast.AST, scope: Scope, path: tuple[int, ...]) -> Optional[tuple[ast.AST, tuple[int, ...]]]:
        """``for target in source``: the iterable the element at ``path`` comes from, through ``enumerate``,
        ``zip``, ``tqdm``, ``sorted`` ... (None: the enumerate counter, or no such element)."""
        while isinstance(source, ast.Call) and source.args:
            name = self.qualname(source.func, scope)
            if name == "enumerate":
                if not path or path[0] != 1:
                    return None
                source, path = source.args[0], path[1:]
            elif name == "zip":
                if not path or path[0] == STAR or path[0] >= len(source.args):
                    return None
                source, path = source.args[path[0]], path[1:]
            elif name in _ITERATION_WRAPPERS:
                source = source.args[0]
            else:
                break
        return source, path

    def _iter_element(self, source: ast.AST, scope: Scope, path: tuple[int, ...], depth: int) -> Optional[K.Value]:
        """What ``for target in source`` binds at ``path``."""
        found = self.iterated(source, scope, path)
        if found is None:
            return None
        source, path = found
        if not path:
            declared = self._declared_element(source, scope, depth)
            if declared is not None:
                return declared
        if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute):
            receiver = self.value_of(source.func.value, scope, depth)
            if receiver is not None and receiver[0] == K.MODULE:
                method = source.func.attr
                if method == "parameters" or (method == "named_parameters" and path[:1] == (1,)):
                    return K.TENSOR, None
                if method in ("modules", "children") or (method in ("named_modules", "named_children")
                                                          and path[:1] == (1,)):
                    return K.MODULE, None
                return None
        value = self.value_of(source, scope, depth)
        if value is None:
            return None
        if value[0] == K.LOADER:
            return K.BATCH, None
        if value[0] in K.TENSORS and not path:
            return (K.MASK if value[0] == K.MASK else K.TENSOR), None
        if value[0] == K.HOST:
            return K.HOST, None
        if value[0] == K.MODULE and value[1] in ("torch.nn.ModuleList", "torch.nn.Sequential") and not path:
            return K.MODULE, None
        return None
