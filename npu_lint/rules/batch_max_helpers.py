"""Helpers that pad items to the batch maximum, for NPU405 at their call sites: the file's own (their summary is
:func:`npu_lint.analysis.summaries_padding.padded_items`; functions whose text has no ``max`` and no
``pad_sequence`` are skipped without a walk) and, with a project index, those of other modules (their facts say it).
Nothing here is a rule."""
from __future__ import annotations

import ast
import re
from typing import Optional

from npu_lint.analysis.nodes import function_text as lines_of
from npu_lint.analysis.summaries_padding import LISTS_LEAF, given, padded_items
from npu_lint.context import FileContext


def batch_max_helper(call: ast.Call, ctx: FileContext) -> Optional[str]:
    """``nested() pads its items to the batch maximum (the maximum at line 12 sizes zeros() at line 14)`` when
    ``call`` calls one of the file's functions that pads its items to their maximum, else None."""
    how = _helper_how(call, ctx, 0)
    return f"{call.func.id}() pads its items to the batch maximum ({how})" if how else None   # type: ignore


def batch_max_method(call: ast.Call, ctx: FileContext) -> Optional[str]:
    """``padding2d() pads its items to the batch maximum (...)`` when ``call`` calls a method, of an instance of a
    project class (``self.padding2d(batch)``, ``tok.batch_encode(rows)``), that pads its items to their maximum:
    defined in this file (its summary) or in another module (the project index's facts, along the class's
    bases); else None."""
    func = call.func
    if not isinstance(func, ast.Attribute) or not isinstance(func.value, (ast.Name, ast.Attribute, ast.Subscript)):
        return None   # ``self.tokenizers[key].batch_encode(rows)``: an item of a dict of instances
    if not _defines(func.attr, ctx) and (ctx.project is None
                                                   or func.attr not in ctx.project.padding_names()):
        return None     # no method of that name here, none that pads elsewhere in the project
    receiver = ctx.resolver.value_of(func.value)
    if receiver is None or not receiver[1]:
        return None
    local, asked = ctx.resolver.class_method(receiver[1], func.attr)
    if isinstance(local, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef)) is local:
            return None
        text = function_text(local, ctx)
        if "max" not in text and "pad_sequence" not in text:
            return None
        padding = padded_items(ctx.resolver, local)
        if padding is None or given(call, padding.unless, _implicit(local)) or (
                padding.in_python and not made_tensor(call, ctx)):
            return None
        return f"{func.attr}() pads its items to the batch maximum ({padding.describe()})"
    project = ctx.project
    if asked is None or project is None or asked not in project.index.classes:
        return None
    method = project.index.method(asked, func.attr)
    found = project.method_padding(method) if method is not None else None
    if found is None or given(call, found[2], found[3]) or (found[0][-1] == LISTS_LEAF and not made_tensor(call, ctx)):
        return None
    chain, where = found[0], found[1]
    return f"{func.attr}() pads its items to the batch maximum ({' → '.join(chain)}, {where})"


def _defines(name: str, ctx: FileContext) -> bool:
    """``def name(`` occurs in the file's text: the names after every ``def `` found once per file (one scan, not
    one per method name asked); a name not in ASCII is looked for in the text itself."""
    if not name.isascii():
        return ctx.mentions(f"def {name}(")
    names = ctx.scratch.get("defined_names")
    if names is None:
        names = ctx.scratch["defined_names"] = frozenset(_DEFINED.findall(ctx.source))
    return name in names


_DEFINED = re.compile(r"def ([A-Za-z0-9_]+)\(")


def _implicit(method: ast.AST) -> int:
    """The parameters a call on an instance fills itself: ``self`` (none for a static method)."""
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in method.decorator_list)   # type: ignore
    return 0 if static else 1


def _helper_how(call: ast.Call, ctx: FileContext, depth: int) -> Optional[str]:
    if not isinstance(call.func, ast.Name) or not (ctx.mentions("max") or ctx.mentions("pad_sequence")):
        return None   # (no function of a file without either word has them in its text: nothing to resolve)
    function = ctx.resolver.definition(call.func)
    if function is None and depth == 0:   # ``pad(batch)`` where ``pad`` defaults to a helper of the file
        candidates = ctx.resolver.callable_candidates(call.func, ctx.resolver.current)
        defs = [target for kind, target, _ in candidates if kind == "def"]
        function = defs[0] if len(defs) == 1 and len(candidates) == 1 else None
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or ctx.enclosing(
            call, (ast.FunctionDef, ast.AsyncFunctionDef)) is function:
        return None
    text = function_text(function, ctx)
    if "max" not in text and "pad_sequence" not in text:   # no maximum in its text: nothing to pad to
        return None
    padding = padded_items(ctx.resolver, function)
    if padding is None or given(call, padding.unless):
        return None     # ``pad_list(xs, max_len=128)``: the length given replaces the maximum
    if padding.in_python and not made_tensor(call, ctx):
        return None     # lists padded in Python that never become a tensor here
    return padding.describe()


def project_helper(call: ast.Call, ctx: FileContext) -> Optional[str]:
    """``pad_list() pads its items to the batch maximum (pkg.utils.pad_list → max of item lengths, pkg/utils.py
    line 12)`` when ``call`` calls a function of another module of the project that pads its items (or returns
    what such a function returns), as the project index's facts say; else None."""
    project = ctx.project
    if project is None or not isinstance(call.func, (ast.Name, ast.Attribute)):
        return None
    qualname = ctx.resolver.qualname(call.func)
    if qualname is None or qualname.startswith(("torch.", "numpy.", "transformers.")):
        return None
    found = project.padding_chain(qualname, ctx.module)
    if found is None or given(call, found[2]) or (found[0][-1] == LISTS_LEAF and not made_tensor(call, ctx)):
        return None
    chain, where, _ = found
    short = call.func.attr if isinstance(call.func, ast.Attribute) else call.func.id
    return f"{short}() pads its items to the batch maximum ({' → '.join(chain)}, {where})"


def function_text(function: ast.AST, ctx: FileContext) -> str:
    """The source lines of a function (a cheap test before walking it), made once per function (rules ask it at
    every call inside a function: joined again each time, a long function cost ~2 % of a run)."""
    texts = ctx.scratch.get("function_texts")
    if texts is None:
        texts = ctx.scratch["function_texts"] = {}
    text = texts.get(id(function))
    if text is None:
        text = lines_of(function, ctx.source, texts)
        if text is None:   # carriage returns: line breaks of Python's own, the parser's lines
            lines = ctx.scratch.get("source_lines")
            if lines is None:
                lines = ctx.scratch["source_lines"] = ctx.source.splitlines()
            start, end = function.lineno, getattr(function, "end_lineno", None) or function.lineno   # type: ignore
            text = "\n".join(lines[start - 1:end])
        texts[id(function)] = text
    return text


_TENSOR_MAKERS = frozenset({"torch.tensor", "torch.as_tensor", "torch.LongTensor", "torch.FloatTensor", "torch.IntTensor",
                            "torch.BoolTensor", "torch.Tensor"})


def made_tensor(call: ast.Call, ctx: FileContext) -> bool:
    """The lists a padding helper returns become a tensor here: ``torch.tensor(pad(rows))``, or ``x = pad(rows)``
    (``x, mask = ...``) then ``torch.tensor(x, ...)`` in the same function."""
    parent = ctx.parent(call)
    if isinstance(parent, ast.Call) and call in parent.args and ctx.resolver.qualname(parent.func) in _TENSOR_MAKERS:
        return True
    statement = ctx.statement_of(call)
    if not isinstance(statement, ast.Assign) or statement.value is not call:
        return False
    names = {n.id for t in statement.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    scope = ctx.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef))
    if scope is None:   # at module level: the whole module
        scope = statement
        while ctx.parent(scope) is not None:
            scope = ctx.parent(scope)
    return any(isinstance(n, ast.Call) and n.lineno >= statement.lineno and n.args
               and isinstance(n.args[0], ast.Name) and n.args[0].id in names
               and ctx.resolver.qualname(n.func) in _TENSOR_MAKERS for n in ast.walk(scope))
