"""Functions that build a ``DataLoader`` with their callers' keywords: ``def loader(dataset, *args, shuffle=False,
klass=DataLoader, **kwargs): return klass(dataset, *args, shuffle=shuffle, **kwargs)`` (a project index fact for
the calls of other modules, the same question in the file). Nothing here is a rule."""
from __future__ import annotations

import ast

from npu_lint.analysis.library_classes import loader_class
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
