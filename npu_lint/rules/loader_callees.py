"""What class a loader call builds when the resolver names none or another library's class it has no row for
(NPU406, NPU415; session 27, recall27b). Two forms real code uses:

- a local name bound to a loader class, perhaps in the arms of an ``if``: ``DataLoader = tt.data.DataLoaderBatch``
  / ``if torch_ds_dl: DataLoader = torch.utils.data.DataLoader``, then ``DataLoader(dataset, batch_size, ...)``;
- another library's subclass of ``DataLoader`` that ``rule_tables/library_classes.tsv`` does not list, named as
  one (``DataLoader`` in its class name: ``torchtuples.data.DataLoaderBatch``, ``timm``'s
  ``MultiEpochsDataLoader``), neither torch's nor a class of the analysed project (whose own ``__init__`` the
  project index reads): read as torch's ``DataLoader``, its positional arguments in DataLoader's order (the order
  such subclasses keep; a call that passes none but the dataset is judged by its keywords alone).

Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.kinds import LOADER
from npu_lint.analysis.library_classes import DATA_LOADER, loader_class
from npu_lint.analysis.scopes import VALUE
from npu_lint.context import FileContext


# Class names that say DataLoader but name its settings, an iterator over one or a wrapper holding one.
_NOT_LOADERS = ("Config", "Configuration", "Args", "Arguments", "Kwargs", "Iter", "Iterator", "Wrapper", "Module",
                "Builder", "Factory")


def _named_loader(qualname: Optional[str], ctx: FileContext) -> bool:
    """``qualname`` is another library's class named as a DataLoader (the table's rows and torch's own classes are
    `loader_class`'s; a class of the analysed project is the project index's)."""
    if not qualname or "." not in qualname or qualname.startswith(("torch.", "torch_npu.")):
        return False
    short = qualname.rpartition(".")[2]
    if "DataLoader" not in short or not short[:1].isupper() or short.endswith(_NOT_LOADERS):
        return False   # ``DataLoaderConfiguration``, ``ValDataLoaderIter``: settings or an iterator, no loader
    if ctx.project is not None and (ctx.project.absolute(qualname, ctx.module) is not None
                                    or ctx.project.holds_package(qualname, ctx.module)):
        return False   # the project's own class: its ``__init__`` decides (loader_subclasses.py, the index)
    return True


def loader_callee(node: ast.Call, ctx: FileContext) -> Optional[str]:
    """The qualified name of the loader class ``node`` builds for the loader rules: the resolver's when it is a
    loader class; torch's ``DataLoader`` for another library's class named as one (`_named_loader`) and for a
    local name every binding of which (reaching the call) is such a class, one of them at least a loader class;
    else the resolver's name (None, or a class that is no loader)."""
    if isinstance(node.func, ast.IfExp):   # ``(DataLoaderX if prefetch else DataLoader)(dataset, ...)``
        found: Optional[list[str]] = []
        found = _chosen(found, (node.func.body, node.func.orelse), ctx.resolver.current, ctx)
        return None if not found else DATA_LOADER if DATA_LOADER in found else found[0]
    qualname = ctx.resolver.qualname(node.func)
    if loader_class(qualname):
        return qualname
    if _named_loader(qualname, ctx):
        return DATA_LOADER
    if qualname is not None or not isinstance(node.func, ast.Name) or ctx.resolver.scopes is None:
        return qualname
    scope = ctx.resolver.current
    bindings = ctx.resolver.scopes.lookup_reaching(node.func.id, scope, (node.func.lineno, node.func.col_offset))
    found = []
    for binding in bindings:
        if binding.tag != VALUE or binding.path:
            return None
        value = binding.value
        arms = (value.body, value.orelse) if isinstance(value, ast.IfExp) else (value,)
        found = _chosen(found, arms, binding.scope, ctx)   # ``loader = DataLoader if weighted else InfiniteDataLoader``
        if found is None:
            return None
    return DATA_LOADER if DATA_LOADER in found else (found[0] if found else None)


def _chosen(found: Optional[list[str]], arms: tuple[ast.expr, ...], scope: object,
            ctx: FileContext) -> Optional[list[str]]:
    """``found`` with the loader classes ``arms`` name (either arm of a choice), or None when an arm is something
    else (the file's own loader class counts as the other arm of a choice)."""
    if found is None:
        return None
    for arm in arms:
        if not isinstance(arm, (ast.Name, ast.Attribute)):
            return None
        bound = ctx.resolver.qualname(arm, scope)
        if loader_class(bound):
            found.append(bound)
        elif _named_loader(bound, ctx):
            found.append(DATA_LOADER)
        elif len(arms) == 1 or not _own_loader(arm, scope, ctx):
            return None
    return found


def _own_loader(arm: ast.expr, scope: object, ctx: FileContext) -> bool:
    """The other arm of a choice names the file's own class whose instances the model knows are loaders (``class
    InfiniteDataLoader(dataloader.DataLoader)``): a loader built with the same arguments."""
    if not isinstance(arm, ast.Name) or not isinstance(ctx.resolver.definition(arm, scope), ast.ClassDef):
        return False
    value = ctx.resolver.class_reference(arm, scope)
    return value is not None and value[0] == LOADER
