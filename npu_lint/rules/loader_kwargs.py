"""The keywords a loader call passes (NPU406, NPU415): ``**kwargs`` dicts built in the same scope merged in
(``kw = dict(batch_size=32)``, a ``{...}`` literal, then ``kw["shuffle"] = True`` or ``kw.update(...)``), or None when
they cannot be read or a ``batch_sampler`` decides the batches. Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES
from npu_lint.rules.batch_samplers import sampler_batches


def batched_keywords(node: ast.Call, keywords: dict, ctx: FileContext) -> Optional[dict]:
    """A loader call's keywords with its ``**kwargs`` dicts built in the same scope merged in; None when they
    cannot be read (another spread) or a ``batch_sampler`` or ``*args`` decides the batches. A ``batch_sampler``
    that keeps a short last batch (:func:`npu_lint.rules.batch_samplers.sampler_batches`: ``drop_last=False`` in
    torch's ``BatchSampler`` or a project subclass of it) gives its ``batch_size`` and ``drop_last`` instead."""
    if None in keywords:
        spread = _spread_dicts(node, ctx)
        if spread is None and not ("batch_size" in keywords and "drop_last" in keywords):
            return None
        # (a spread that cannot be read leaves the call's own ``batch_size=`` and ``drop_last=`` deciding: it
        # cannot pass them again, nor a ``batch_sampler``, which DataLoader refuses beside them)
        keywords = {**(spread or {}), **{key: value for key, value in keywords.items() if key is not None}}
    sampler = keywords.get("batch_sampler")
    if sampler is not None and not (isinstance(sampler, ast.Constant) and sampler.value is None):
        found = sampler_batches(sampler, node, ctx)
        if found is None:
            return None     # ``batch_sampler=None`` is DataLoader's default: the loader batches itself
        # a batch sampler that keeps its short last batch: its batch size and drop_last are the loader's
        keywords = {**{key: value for key, value in keywords.items() if key not in ("batch_size", "drop_last")},
                    **found}
    keywords = {key: value for key, value in keywords.items() if key != "batch_sampler"}
    if any(isinstance(a, ast.Starred) for a in node.args):
        return None
    return keywords


def _spread_dicts(node: ast.Call, ctx: FileContext) -> Optional[dict]:
    """The keywords that ``**name`` passes when ``name`` is a dict built in the same scope and never changed."""
    scope = ctx.enclosing(node, FUNCTION_TYPES)
    body = scope.body if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) else _module_body(node, ctx)
    if not isinstance(body, list):
        return None
    merged: dict = {}
    for keyword in node.keywords:
        if keyword.arg is not None:
            continue
        if isinstance(keyword.value, ast.Call):   # ``**loader_kwargs(cfg)``: a function of the file returning a dict
            built = _returned_dict(keyword.value, ctx)
            if built is None:
                return None
            merged.update(built)
            continue
        if not isinstance(keyword.value, ast.Name):
            return None
        built = _dict_built(keyword.value.id, body, node.lineno)
        if built is None:
            return None
        merged.update(built)
    return merged


def _returned_dict(call: ast.Call, ctx: FileContext) -> Optional[dict]:
    """The keys the file's function ``call`` calls returns when each of its returns is a dict it builds (a literal,
    ``dict(...)``, or a name built so in its body): ``def loader_kwargs(cfg): return dict(batch_size=cfg.bs,
    num_workers=4)``. The keys of every return, merged; a value left in terms of its parameters (only the keys
    decide whether ``drop_last`` or ``batch_sampler`` is passed). None when a return is anything else."""
    definition = ctx.resolver.definition(call.func) if isinstance(call.func, ast.Name) else None
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    merged: dict = {}
    returns = [n for n in walk(definition) if isinstance(n, ast.Return)
               and ctx.enclosing(n, FUNCTION_TYPES) is definition]
    for statement in returns:
        value = statement.value
        built = _dict_literal(value) if value is not None else None
        if built is None and isinstance(value, ast.Name):
            built = _dict_built(value.id, definition.body, statement.lineno)
        if built is None:
            return None
        merged.update(built)
    return merged if returns else None


def _module_body(node: ast.AST, ctx: FileContext) -> Optional[list]:
    parent = ctx.parent(node)
    while parent is not None and not isinstance(parent, ast.Module):
        parent = ctx.parent(parent)
    return parent.body if isinstance(parent, ast.Module) else None


def _dict_built(name: str, body: list, before: int) -> Optional[dict]:
    """``name = dict(a=1)`` / ``name = {'a': 1}`` among the statements of ``body`` before line ``before``."""
    built: Optional[dict] = None
    for statement in body:
        if statement.lineno >= before:
            break
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                     for t in statement.targets):
            built = _dict_literal(statement.value)
        elif built is not None and _changes(statement, name):
            update = _constant_update(statement, name)
            if update is None:
                return None
            built.update(update)
    return built


def _dict_literal(value: ast.AST) -> Optional[dict]:
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" and not value.args:
        if any(kw.arg is None for kw in value.keywords):
            return None
        return {kw.arg: kw.value for kw in value.keywords}
    if isinstance(value, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in value.keys):
        return {k.value: v for k, v in zip(value.keys, value.values)}   # type: ignore[union-attr]
    return None


def _constant_update(statement: ast.stmt, name: str) -> Optional[dict]:
    """``name["shuffle"] = True`` or ``name.update(shuffle=True)``: the keys a statement sets, else None."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == name \
                and isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str):
            return {target.slice.value: statement.value}
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
                and call.func.value.id == name and call.func.attr == "update" and not call.args \
                and all(kw.arg is not None for kw in call.keywords):
            return {kw.arg: kw.value for kw in call.keywords}
    return None


def _changes(statement: ast.stmt, name: str) -> bool:
    """``name[...] = ...``, ``name.update(...)``, ``name.setdefault(...)``, or ``name`` bound again."""
    for child in walk(statement):
        if isinstance(child, ast.Subscript) and isinstance(child.value, ast.Name) and child.value.id == name \
                and isinstance(child.ctx, ast.Store):
            return True
        if isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name) and child.value.id == name \
                and child.attr in ("update", "setdefault", "pop"):
            return True
        if isinstance(child, ast.Name) and child.id == name and isinstance(child.ctx, ast.Store):
            return True
    return False
