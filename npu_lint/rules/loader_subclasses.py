"""A project's DataLoader subclass (NPU406, NPU415): the keywords its constructor hands to DataLoader's, read from
its ``super().__init__(...)`` call (a framework's loader class passes ``batch_size=self.step`` and
``shuffle=shuffle`` there), with the subclass's own parameters replaced by what the call passes."""
from __future__ import annotations

import ast
from typing import Optional, Sequence

from npu_lint.analysis.nodes import walk


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
    args = init.args
    positional = [a.arg for a in args.posonlyargs + args.args][1:]   # ``self`` is not passed
    passed: dict[str, Optional[ast.AST]] = {name: None for name in positional + [a.arg for a in args.kwonlyargs]}
    passed.update(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    passed.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    for name, value in zip(positional, call.args):
        if isinstance(value, ast.Starred):
            return None
        passed[name] = value
    for keyword in call.keywords:
        if keyword.arg is None:
            return None
        if keyword.arg in passed:
            passed[keyword.arg] = keyword.value
    keywords: dict = {}
    for key, value in inner.items():
        if isinstance(value, ast.Name) and value.id in passed:
            if passed[value.id] is not None:
                keywords[key] = passed[value.id]
        else:
            keywords[key] = value
    return keywords
