"""A project's DataLoader subclass (NPU406, NPU415): the keywords its constructor hands to DataLoader's, read from
its ``super().__init__(...)`` call (a framework's loader class passes ``batch_size=self.step`` and
``shuffle=shuffle`` there), with the subclass's own parameters replaced by what the call passes; and that
replacement itself, shared with the loader helpers of dynamic_batches.py (what a call passes to a definition's
parameters, the definition's DataLoader keywords in terms of it)."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional, Sequence

from npu_lint.analysis.library_classes import loader_class, loader_parameters
from npu_lint.analysis.nodes import class_bases, walk

if TYPE_CHECKING:
    from npu_lint.context import FileContext

_LOADER = "torch.utils.data.DataLoader"


def super_init_keywords(cls: ast.ClassDef, call: ast.Call, parameters: Sequence[str]) -> Optional[dict]:
    """DataLoader's keywords as a subclass's ``__init__`` hands them to ``super().__init__(...)``, its own
    parameters replaced by what ``call`` passes (``shuffle=shuffle`` with ``Loader(cfg, ds, shuffle=True)``);
    None when it has no such call or spreads ``**kwargs`` into it (the call's keywords are DataLoader's then).
    ``parameters``: DataLoader's positional parameters, in order."""
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is None:
        return None
    calls = [n for n in walk(init) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr == "__init__" and isinstance(n.func.value, ast.Call)
             and isinstance(n.func.value.func, ast.Name) and n.func.value.func.id == "super"]
    if len(calls) != 1 or any(isinstance(a, ast.Starred) for a in calls[0].args):
        return None
    inner: dict = {kw.arg: kw.value for kw in calls[0].keywords}
    if None in inner:
        return None
    inner.update(zip(parameters, calls[0].args))
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    return substituted(inner, passed_arguments(init, call, 1))   # ``self`` is not passed


def parameters_of(function: ast.AST) -> list[str]:
    """Every parameter name of a definition, positional first."""
    args = function.args   # type: ignore[attr-defined]
    return [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]


def passed_arguments(function: ast.AST, call: ast.Call, offset: int = 0) -> dict[str, Optional[ast.AST]]:
    """Each parameter of ``function`` with what ``call`` passes to it (None: left at its default); ``offset``
    leading parameters the call fills implicitly (a method's ``self``)."""
    args = function.args   # type: ignore[attr-defined]
    positional = [a.arg for a in args.posonlyargs + args.args][offset:]
    passed: dict[str, Optional[ast.AST]] = {name: None for name in parameters_of(function)}
    defaults = dict(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    passed.update(defaults)
    for name, value in zip(positional, call.args):
        if isinstance(value, ast.Starred):
            break
        passed[name] = value
    for keyword in call.keywords:
        if keyword.arg in passed:
            passed[keyword.arg] = keyword.value
    return passed


def substituted(inner: dict, passed: dict[str, Optional[ast.AST]]) -> dict:
    """The keywords a definition hands to DataLoader (``inner``) with its own parameters replaced by what the call
    passes (``passed``); a parameter the call leaves at no value is left out."""
    keywords: dict = {}
    for key, value in inner.items():
        if isinstance(value, ast.Name) and value.id in passed:
            if passed[value.id] is not None:
                keywords[key] = passed[value.id]
        else:
            keywords[key] = value
    return keywords


def super_loader_call(node: ast.Call, ctx: "FileContext", parameters: Sequence[str]) -> Optional[dict]:
    """The DataLoader keywords of ``super().__init__(...)`` in the ``__init__`` of a class deriving from
    ``DataLoader`` itself (a framework's loader base, ``class AbstractDataLoader(DataLoader)``), judged there when
    the file never builds the class (the loaders are made in other modules; the file's own instantiations are
    judged with what they pass). None for any other call, and for one that spreads ``*args`` / ``**kwargs``."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "__init__" and isinstance(func.value, ast.Call)
            and isinstance(func.value.func, ast.Name) and func.value.func.id == "super") \
            or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    init = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))
    cls = ctx.enclosing(init, (ast.ClassDef,)) if isinstance(init, ast.FunctionDef) and init.name == "__init__" \
        else None
    if not isinstance(cls, ast.ClassDef) or ctx.enclosing(cls, (ast.ClassDef, ast.FunctionDef)) is not None:
        return None
    spread = [k for k in node.keywords if k.arg is None]
    if spread and not (init.args.kwarg is not None and "batch_size" in {k.arg for k in node.keywords}
                       and all(isinstance(k.value, ast.Name) and k.value.id == init.args.kwarg.arg for k in spread)):
        return None     # (the constructor's own ``**kwargs`` beside its batch size: a caller's optional extras)
    bases = [ctx.resolver.qualname(base) for base in class_bases(cls)]
    loader = next((base for base in bases if loader_class(base)), None)
    if loader is None:
        if node.args or not _forwarding_base(cls, ctx):
            return None
        loader = _LOADER
    if loader != _LOADER:   # another library's loader (PyG's, dgl's): its constructor's positional order
        parameters = loader_parameters(loader) or parameters[:1]
    if _built_here(cls, ctx):
        return None     # built in this file: judged at those calls
    keywords: dict = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
    keywords.update(zip(parameters, node.args))
    return keywords


def _forwarding_base(cls: ast.ClassDef, ctx: "FileContext", depth: int = 0) -> bool:
    """A base of ``cls`` is the file's own class deriving (itself or through its bases) from torch's
    ``DataLoader``, whose ``__init__`` hands its ``**kwargs`` on to ``super().__init__`` and never names
    ``drop_last``: ``class BaseInteractionsDataLoader(DataLoader)`` with ``super().__init__(dataset=ds, **kwargs)``;
    a subclass's ``super().__init__(batch_size=...)`` is then DataLoader's call."""
    if depth > 3:
        return False
    for base in class_bases(cls):
        definition = ctx.resolver.definition(base)
        if not isinstance(definition, ast.ClassDef):
            continue
        if any(isinstance(n, ast.keyword) and n.arg == "drop_last" or isinstance(n, ast.Name) and n.id == "drop_last"
               or isinstance(n, ast.Attribute) and n.attr == "drop_last" for n in walk(definition)):
            return False
        init = next((n for n in definition.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
        if init is not None and not (init.args.kwarg is not None and any(
                isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "__init__"
                and any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == init.args.kwarg.arg
                        for k in n.keywords) for n in walk(init))):
            return False
        if any(ctx.resolver.qualname(b) == _LOADER for b in class_bases(definition)) \
                or _forwarding_base(definition, ctx, depth + 1):
            return True
    return False


def _built_here(cls: ast.ClassDef, ctx: "FileContext") -> bool:
    """The file calls the class somewhere (walked once per class and file: NPU406 and NPU415 both ask)."""
    memo = ctx.scratch.setdefault("loader_classes_built", {})
    if id(cls) not in memo:
        scopes = ctx.resolver.scopes
        module = scopes.module.node if scopes is not None else None
        memo[id(cls)] = module is not None and any(
            isinstance(call, ast.Call) and ctx.resolver.definition(call.func) is cls for call in walk(module))
    return memo[id(cls)]
