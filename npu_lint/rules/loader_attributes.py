"""A loader class kept on the instance: ``self.iterator_train = iterator_train`` with a constructor parameter
``iterator_train=DataLoader`` (skorch's ``NeuralNet``), then ``iterator = self.iterator_train`` ...
``return iterator(dataset, **kwargs)``. The call builds a ``DataLoader`` unless a user passes another class: NPU406 /
NPU415 judge it with its own keywords (the loader rules build on this module; nothing here is a rule)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.library_classes import loader_class
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import PARAM, VALUE
from npu_lint.context import FileContext

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def attribute_loader_call(node: ast.Call, ctx: FileContext) -> Optional[dict]:
    """The keywords of ``iterator(dataset, **kwargs)`` (or ``self.iterator_train(dataset, ...)``) when every value
    the callee may hold is ``self.<attr>`` and every ``self.<attr> = ...`` of the class stores a constructor
    parameter defaulting to a DataLoader class; a ``**kwargs`` spread of a dict the function does not build counts
    with the keys its ``kwargs["batch_size"] = ...`` assignments give (none setting ``drop_last`` nor a
    ``batch_sampler``). None for anything else."""
    scopes, scope = ctx.resolver.scopes, ctx.resolver.current
    if scopes is None or scope is None:
        return None
    func = node.func
    if isinstance(func, ast.Name):
        reaching = scopes.may_reach(func.id, scope, (func.lineno, func.col_offset))
        if not reaching or any(b.tag != VALUE or b.path or not isinstance(b.value, ast.Attribute) for b in reaching):
            return None
        attributes = [b.value for b in reaching]
    elif isinstance(func, ast.Attribute):
        attributes = [func]
    else:
        return None
    self_name = scopes.self_name(scope)
    for attribute in attributes:
        if not (isinstance(attribute, ast.Attribute) and isinstance(attribute.value, ast.Name)
                and attribute.value.id == self_name and _loader_class_attribute(attribute.attr, scope, ctx)):
            return None
    keywords: dict = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
    if node.args:
        keywords["dataset"] = node.args[0]
    function = ctx.enclosing(node, _DEFS)
    for spread in (kw.value for kw in node.keywords if kw.arg is None):
        if not isinstance(spread, ast.Name) or function is None:
            return None
        keys = {target.slice.value for child in walk(function) if isinstance(child, ast.Assign)
                for target in child.targets if isinstance(target, ast.Subscript)
                and isinstance(target.value, ast.Name) and target.value.id == spread.id
                and isinstance(target.slice, ast.Constant)}
        if "batch_size" not in keys or keys & {"drop_last", "batch_sampler"}:
            return None
        keywords.setdefault("batch_size", ast.copy_location(ast.Name(id="batch_size", ctx=ast.Load()), node))
    return keywords if "batch_size" in keywords else None


def _loader_class_attribute(attr: str, scope, ctx: FileContext) -> bool:
    """Every ``self.<attr> = ...`` of the class stores a parameter of the method whose default is a DataLoader
    class (``def __init__(self, module, iterator_train=DataLoader)``; ``None`` stores are left out)."""
    scopes = ctx.resolver.scopes
    bindings = [b for b in scopes.attribute(scope, attr)
                if not (isinstance(b.value, ast.Constant) and b.value.value is None)]
    if not bindings:
        return False
    for binding in bindings:
        value = binding.value
        if binding.tag != VALUE or binding.path or not isinstance(value, ast.Name):
            return False
        reaching = scopes.may_reach(value.id, binding.scope, binding.pos)
        if len(reaching) != 1 or reaching[0].tag != PARAM or not isinstance(reaching[0].value, ast.AST):
            return False
        if not loader_class(ctx.resolver.qualname(reaching[0].value, binding.scope)):
            return False
    return True
