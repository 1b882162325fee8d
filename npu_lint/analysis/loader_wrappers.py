"""Functions that build a ``DataLoader`` with their callers' keywords: ``def loader(dataset, *args, shuffle=False,
klass=DataLoader, **kwargs): return klass(dataset, *args, shuffle=shuffle, **kwargs)`` (a project index fact for
the calls of other modules, the same question in the file), and functions that build one from their own parameters
(``def build_dataloader(ds, batch_size=64, shuffle=True, drop_last=None): ... return DataLoader(ds, batch_size,
shuffle, drop_last=drop_last)``: :func:`loader_arguments`). Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.library_classes import loader_class, loader_parameters
from npu_lint.analysis.nodes import walk

_DATA_LOADER = "torch.utils.data.DataLoader"


def forwards_loader(resolver, node: ast.AST) -> bool:
    """The function returns a ``DataLoader`` built with its own ``**kwargs`` (the loader class perhaps a parameter
    defaulting to it: ``klass=DataLoader``) and names no ``drop_last``: its callers' keywords build the loader."""
    kwarg = node.args.kwarg.arg if node.args.kwarg is not None else None
    if kwarg is None:
        return False
    if any((isinstance(n, ast.keyword) and n.arg == "drop_last") or (isinstance(n, ast.arg) and n.arg == "drop_last")
           or (isinstance(n, ast.Constant) and n.value == "drop_last")
           or (isinstance(n, ast.Attribute) and n.attr == "drop_last") for n in walk(node)):
        return False
    args = node.args
    positional = args.posonlyargs + args.args
    defaults = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    defaults += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    classes = {a.arg for a, d in defaults if loader_class(resolver.qualname(d))}
    built = {t.id: child.value for child in walk(node) if isinstance(child, ast.Assign)
             and isinstance(child.value, ast.Call) for t in child.targets if isinstance(t, ast.Name)}
    for child in walk(node):
        value = child.value if isinstance(child, ast.Return) else None
        call = built.get(value.id) if isinstance(value, ast.Name) else value   # ``dl = DataLoader(...); return dl``
        if not isinstance(call, ast.Call):
            continue
        builds = (isinstance(call.func, ast.Name) and call.func.id in classes) \
            or loader_class(resolver.qualname(call.func))
        if builds and any(kw.arg is None and isinstance(kw.value, ast.Name) and kw.value.id == kwarg
                          for kw in call.keywords):
            return True
    return False


# The keywords of a DataLoader that decide its batches, as :func:`loader_arguments` records them.
_DECIDING = ("batch_size", "shuffle", "drop_last", "sampler", "batch_sampler")


def loader_arguments(resolver, node: ast.AST) -> tuple[tuple[str, str, str, int, str], ...]:
    """How a module-level function's one returned ``DataLoader`` (``return DataLoader(...)``, or a name bound to one
    and returned) takes the keywords that decide its batches: per keyword, ``(keyword, "param", parameter, its
    position among the positional parameters or -1, its default: a constant's repr or "")``, ``(keyword, "const",
    "", -1, repr)`` or ``(keyword, "expr", "", -1, "")`` for a value computed in the function. Empty for any other
    function, for a loader given ``*args`` or ``**kwargs`` (:func:`forwards_loader`'s question), and for several
    loaders. A project index fact: NPU406 / NPU415 judge the calls of other modules with what they pass."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return ()
    built = {t.id: child.value for child in walk(node) if isinstance(child, ast.Assign)
             and isinstance(child.value, ast.Call) for t in child.targets if isinstance(t, ast.Name)}
    calls = []
    for child in walk(node):
        if isinstance(child, ast.Return) and child.value is not None:
            value = child.value
            call = built.get(value.id) if isinstance(value, ast.Name) else value
            if isinstance(call, ast.Call) and loader_parameters(resolver.qualname(call.func)) is not None:
                calls.append(call)
    if len({id(c) for c in calls}) != 1:
        return ()
    call = calls[0]
    own = node.args.kwarg.arg if node.args.kwarg is not None else None
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
            kw.arg is None and not (isinstance(kw.value, ast.Name) and kw.value.id == own) for kw in call.keywords):
        return ()   # (the function's own ``**kwargs`` spread: a call's extras, judged with the call's keywords)
    keywords = dict(zip(loader_parameters(resolver.qualname(call.func)) or (), call.args))
    keywords.update({kw.arg: kw.value for kw in call.keywords if kw.arg is not None})
    args = node.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    defaults = dict(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    parameters = set(positional) | {a.arg for a in args.kwonlyargs}
    found = []
    for key in _DECIDING:
        value = keywords.get(key)
        if value is None:
            continue
        if isinstance(value, ast.Name) and value.id in parameters and _kept_parameter(node, value.id):
            default = defaults.get(value.id)
            found.append((key, "param", value.id, positional.index(value.id) if value.id in positional else -1,
                          repr(default.value) if isinstance(default, ast.Constant) else ""))
        elif isinstance(value, ast.Constant):
            found.append((key, "const", "", -1, repr(value.value)))
        else:
            found.append((key, "expr", "", -1, ""))
    return tuple(found)


def factory_keywords(arguments: tuple, call: ast.Call) -> Optional[dict]:
    """The deciding keywords of the loader a call of another module's factory builds, from the factory's
    :func:`loader_arguments` fact and what ``call`` passes (a parameter the call leaves out takes its default; a
    ``drop_last`` parameter defaulting to anything but ``True`` is left out: the factory keeps the tail unless told,
    as chemprop's ``drop_last=None`` computed from a remainder test). None when the factory computes its own
    ``drop_last`` or the call spreads arguments (the loader is judged inside the factory)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords) \
            or any(kw.arg == "batch_sampler" for kw in call.keywords):
        return None
    passed = {kw.arg: kw.value for kw in call.keywords}
    keywords: dict = {}
    for key, form, parameter, position, default in arguments:
        value: Optional[ast.AST] = None
        if form == "expr":
            if key == "drop_last":
                return None
            value = ast.copy_location(ast.Name(id=key, ctx=ast.Load()), call) if key == "batch_size" else None
        elif form == "const":
            value = ast.copy_location(ast.Constant(value=ast.literal_eval(default)), call)
        elif parameter in passed:
            value = passed[parameter]
        elif 0 <= position < len(call.args):
            value = call.args[position]
        elif default and not (key == "drop_last" and default != "True"):
            value = ast.copy_location(ast.Constant(value=ast.literal_eval(default)), call)
        elif key in ("batch_size", "shuffle"):
            value = ast.copy_location(ast.Name(id=key, ctx=ast.Load()), call) if key == "batch_size" else None
        if value is not None:
            keywords[key] = value
    if call.args:
        keywords.setdefault("dataset", call.args[0])
    keywords.setdefault("batch_size", ast.copy_location(ast.Name(id="batch_size", ctx=ast.Load()), call))
    return keywords


def _kept_parameter(function: ast.AST, name: str) -> bool:
    """Parameter ``name`` reaches the loader as the caller gives it, or is set in the body only to constants or a
    remainder test that leave the tail kept on some path (``if drop_last is None: drop_last = len(ds) % bs == 1``
    / ``True`` / ``else: False``)."""
    values = [child.value for child in walk(function) if isinstance(child, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == name for t in child.targets)]
    if not values:
        return True
    def falsy(v: ast.AST) -> bool:
        return (isinstance(v, ast.Constant) and not v.value) or (
            isinstance(v, ast.Compare) and isinstance(v.ops[0], ast.Eq) and isinstance(v.left, ast.BinOp)
            and isinstance(v.left.op, ast.Mod))
    return all(isinstance(v, ast.Constant) or falsy(v) for v in values) and any(falsy(v) for v in values)


def forwards_drop_last(cls: ast.ClassDef) -> bool:
    """A DataLoader subclass whose only ``drop_last`` is a parameter of its ``__init__`` defaulting to ``False`` and
    handed on unchanged (``def __init__(self, dataset, batch_size=1, drop_last=False): super().__init__(dataset,
    batch_size=batch_size, drop_last=drop_last)``, flair's DataLoader): it keeps the tail unless the call passes
    ``drop_last``, so the call's keywords decide (session 22, branch22)."""
    init = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    if init is None:
        return False
    arguments = init.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults = dict(zip([a.arg for a in positional][len(positional) - len(arguments.defaults):], arguments.defaults))
    defaults.update({a.arg: d for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None})
    default = defaults.get("drop_last")
    if not (isinstance(default, ast.Constant) and default.value is False):
        return False
    for n in ast.walk(cls):
        if isinstance(n, ast.Attribute) and n.attr == "drop_last":
            return False
        if isinstance(n, ast.keyword) and n.arg == "drop_last" and not (
                isinstance(n.value, ast.Name) and n.value.id == "drop_last"):
            return False
        if isinstance(n, ast.Name) and n.id == "drop_last" and isinstance(n.ctx, ast.Store):
            return False
        if isinstance(n, ast.arg) and n.arg == "drop_last" and n not in positional and n not in arguments.kwonlyargs:
            return False
    return True
