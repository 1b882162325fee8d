"""Functions a module passes as a collate function: ``DataLoader(ds, collate_fn=collate_batch)`` with
``collate_batch`` imported from the project's ``data/collate.py``, ``collate_fn=partial(pad_collate, pad_id)``,
``collate_fn=Collater(tok)`` (the instance's ``__call__``) or ``collate_fn=dataset.collater`` (a method of a
dataset the module does not type). The index tells the defining module which of its functions receive one
batch's samples, and in which parameter (:meth:`npu_lint.analysis.project.ProjectView.collate_parameters`), so
NPU409 reads their items as it does for a collate function passed in its own file."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.names import rooted
from npu_lint.project.fact_types import absolute
from npu_lint.resolver import Resolver

KEY = "collate_fn"
FUNCTION, INSTANCE, METHOD = "function", "call", "method"   # what the fact names: a function, a class whose
# instances are called, the name of a method of some object
_PARTIAL = "functools.partial"
_OUTSIDE = ("torch", "numpy", "builtins", "functools")


def collate_facts(value: ast.AST, resolver: Resolver, module: str, is_package: bool) -> list[tuple[str, str, int]]:
    """``collate_fact`` of the value passed, and for a local name, of each function it may be bound to
    (``collate_fn = collate_mol_batch`` in one arm, ``collate_fn = collate_batch`` in another, then
    ``DataLoader(ds, collate_fn=collate_fn)``)."""
    found = collate_fact(value, resolver, module, is_package)
    bindings = resolver.scopes.may_reach(value.id, resolver.current, (value.lineno, value.col_offset)) \
        if isinstance(value, ast.Name) and resolver.scopes is not None else []
    facts: list[tuple[str, str, int]] = [found] if found is not None else []
    for binding in bindings if len(bindings) > 1 else ():
        bound = binding.value
        if binding.tag == "value" and not binding.path and isinstance(bound, (ast.Name, ast.Attribute, ast.Call)):
            fact = collate_fact(bound, resolver, module, is_package)
            if fact is not None and fact not in facts:
                facts.append(fact)
    return facts


def collate_fact(value: ast.AST, resolver: Resolver, module: str, is_package: bool) -> Optional[tuple[str, str, int]]:
    """``(kind, name, position of the samples' parameter)`` for a value passed as ``collate_fn=``, None when the
    value is a library's or the index could not use it (a local, a lambda, this file's ``self.collate``)."""
    offset = 0
    if isinstance(value, ast.Call) and value.args and isinstance(value.func, (ast.Name, ast.Attribute)) \
            and resolver.qualname(value.func) == _PARTIAL:
        if any(isinstance(a, ast.Starred) for a in value.args):
            return None
        offset, value = len(value.args) - 1, value.args[0]
    if isinstance(value, ast.Call):
        name = resolver.qualname(value.func) if isinstance(value.func, (ast.Name, ast.Attribute)) else None
        if name and not rooted(name, _OUTSIDE):
            return INSTANCE, absolute(name, module, is_package), offset + 1
        return None
    if not isinstance(value, (ast.Name, ast.Attribute)):
        return None
    name = resolver.qualname(value)
    if name:
        return None if rooted(name, _OUTSIDE) else (FUNCTION, absolute(name, module, is_package), offset)
    if isinstance(value, ast.Attribute) and not (isinstance(value.value, ast.Name) and value.value.id == "self"):
        return METHOD, value.attr, offset + 1   # ``dataset.collater``: the method of a dataset built elsewhere
    return None
