"""Host concatenations that build a batch, for NPU409 (dynamic_samples.py): ``np.concatenate`` (``np.hstack``,
``np.vstack``) of per-sample items inside a collate function, or inside a helper or batching class a collate function
hands its samples to (collate_samples.py, collate_handoffs.py), whose result becomes the batch: returned (alone or in
a tuple or dict, directly or through a name or a container the function returns), converted to a tensor
(``torch.from_numpy``, ``torch.tensor``), stored on the batch object a batching class's ``__init__`` builds, or
passed to its base's ``__init__``, or to a container or a class of the file that becomes the batch. Numpy arrays stay host values for every other rule; outside a collate path a
numpy concatenation is host code and is left alone."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import children as _children   # ``ast.iter_child_nodes``, as a list
from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules.collate_samples import collate_path
from npu_lint.rules.sample_items import per_sample_items

HOST_CAT = frozenset({"numpy.concatenate", "numpy.concat", "numpy.hstack", "numpy.vstack", "numpy.row_stack"})
_CONVERTERS = frozenset({"torch.from_numpy", "torch.tensor", "torch.as_tensor", "torch.LongTensor",
                         "torch.FloatTensor", "torch.Tensor", "torch.BoolTensor", "torch.IntTensor"})
_BUILTIN_CONTAINERS = frozenset({"dict", "tuple", "list", "builtins.dict", "builtins.tuple", "builtins.list"})
_KEEP = frozenset({"astype", "copy", "squeeze", "float", "long", "int", "to"})
_CONTAINERS = (ast.Tuple, ast.List, ast.Dict, ast.keyword, ast.Starred)
_BUILDERS = frozenset({"__init__", "__post_init__"})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DEPTH = 3


def host_batch_items(call: ast.Call, ctx: FileContext) -> Optional[str]:
    """Why the numpy concatenation ``call`` joins per-sample items of different lengths into a batch a collate
    path returns (the evidence and the collate path), else None."""
    items = call.args[0]
    if not isinstance(items, (ast.ListComp, ast.GeneratorExp, ast.Name)):
        return None     # a fixed number of pieces (the fields of one sample)
    function = ctx.enclosing(call, _FUNCTIONS)
    path = collate_path(function, ctx) if function is not None else None
    if path is None or not _becomes_batch(call, function, ctx, 0):
        return None
    why = per_sample_items(items, call, ctx)
    return why if not why or path in why else f"{why}, in {path}"


def becomes_host_batch(call: ast.Call, ctx: FileContext) -> bool:
    """The numpy join ``call`` in a collate path ends up in the batch it returns (converted, returned, stored)."""
    function = ctx.enclosing(call, _FUNCTIONS)
    return function is not None and collate_path(function, ctx) is not None \
        and _becomes_batch(call, function, ctx, 0)


def _becomes_batch(node: ast.AST, function: ast.AST, ctx: FileContext, depth: int) -> bool:
    """The value ``node`` computes ends up in the batch ``function`` builds."""
    parents = _parents(function, ctx)
    parent = parents.get(id(node))
    while parent is not None:
        if isinstance(parent, ast.Return):
            return True
        if isinstance(parent, ast.Call):
            if node in parent.args or any(k is node for k in parent.keywords):
                name = ctx.resolver.qualname(parent.func)
                if name in _CONVERTERS or _base_init(parent, function):
                    return True
                if not (name in _BUILTIN_CONTAINERS or isinstance(ctx.resolver.definition(parent.func), ast.ClassDef)):
                    return False    # consumed by another call (``np.concatenate(lens).max()``, ``len(...)``)
            if not (isinstance(parent.func, ast.Attribute) and parent.func.attr in _KEEP):
                return False
        elif isinstance(parent, (ast.Assign, ast.AnnAssign)):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            return any(_target_is_batch(t, function, ctx, depth) for t in targets)
        elif not isinstance(parent, _CONTAINERS) and not (isinstance(parent, ast.Attribute)
                                                        and parent.attr in _KEEP):
            return False
        node, parent = parent, parents.get(id(parent))
    return False


def _parents(function: ast.AST, ctx: FileContext) -> dict[int, ast.AST]:
    """Each node's parent inside ``function`` (the walk's own map holds only the nodes it has reached)."""
    store = ctx.scratch.setdefault("host_batch_parents", {})
    found = store.get(id(function))
    if found is None:
        found = store[id(function)] = {id(child): node for node in walk(function)
                                       for child in _children(node)}
    return found


def _target_is_batch(target: ast.AST, function: ast.AST, ctx: FileContext, depth: int) -> bool:
    """An assignment target holds part of the batch: a name whose value reaches it, an item or attribute of a
    container the function returns, an attribute of the object a batching class's ``__init__`` builds."""
    if depth >= _DEPTH:
        return False
    if isinstance(target, ast.Name):
        return any(_becomes_batch(use, function, ctx, depth + 1) for use in _loads(function, target.id))
    if isinstance(target, (ast.Subscript, ast.Attribute)):
        root = target.value
        while isinstance(root, (ast.Subscript, ast.Attribute)):
            root = root.value
        if not isinstance(root, ast.Name):
            return False
        if getattr(function, "name", "") in _BUILDERS and function.args.args and root.id == function.args.args[0].arg:
            return True     # ``self.x = np.concatenate(...)`` in the batch object's ``__init__``
        return any(_becomes_batch(use, function, ctx, depth + 1) for use in _loads(function, root.id))
    return False


def _loads(function: ast.AST, name: str) -> list[ast.Name]:
    return [node for node in walk(function) if isinstance(node, ast.Name) and node.id == name
            and isinstance(node.ctx, ast.Load)]


def _base_init(call: ast.Call, function: ast.AST) -> bool:
    """``super().__init__(node_features=x)`` in a batching class's ``__init__``: the batch object gets it."""
    func = call.func
    return getattr(function, "name", "") in _BUILDERS and isinstance(func, ast.Attribute) \
        and func.attr == "__init__" and isinstance(func.value, ast.Call) \
        and isinstance(func.value.func, ast.Name) and func.value.func.id == "super"
