"""The keywords a loader call passes (NPU406, NPU415): ``**kwargs`` dicts built in the same scope merged in
(``kw = dict(batch_size=32)``, a ``{...}`` literal, then ``kw["shuffle"] = True`` or ``kw.update(...)``), or None when
they cannot be read or a ``batch_sampler`` decides the batches. Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.defaults import optional_extras
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import NONE, PARAM, VALUE
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES
from npu_lint.rules.batch_samplers import sampler_batches


def batched_keywords(node: ast.Call, keywords: dict, ctx: FileContext) -> Optional[dict]:
    """A loader call's keywords with its ``**kwargs`` dicts built in the same scope merged in; None when they
    cannot be read (another spread) or a ``batch_sampler`` or ``*args`` decides the batches. A ``batch_sampler``
    that keeps a short last batch (:func:`npu_lint.rules.batch_samplers.sampler_batches`: ``drop_last=False`` in
    torch's ``BatchSampler`` or a project subclass of it) gives its ``batch_size`` and ``drop_last`` instead.
    A dict bound in several arms (``if phase == "train": args = dict(..., drop_last=True)`` / ``else: args =
    dict(...)``) is read per arm: the call is judged with an arm that keeps the short last batch (one that shuffles
    first: a training loader, NPU406's, which NPU415 then leaves alone). A caller's
    optional extras merged in (a parameter defaulting to ``None`` or ``{}``, the function's own ``**kwargs``
    merged into a dict it builds, ``self.cfg.dataloader_kwargs`` beside the code's own ``batch_size``) pass
    nothing by default (:func:`npu_lint.analysis.defaults.optional_extras`)."""
    if None in keywords:
        own = {key: value for key, value in keywords.items() if key is not None}
        spreads = _spread_dicts(node, ctx, own)
        if spreads is None and "batch_size" in keywords and (_own_extras(node, ctx) or _unread_extras(node, ctx)):
            spreads = [{}]  # the function's own ``**kwargs`` beside the call's batch size: a caller's extras
        if spreads is None and _forwarded_only(node, keywords, ctx):
            spreads = [{"batch_size": ast.copy_location(ast.Name(id="batch_size", ctx=ast.Load()), node)}]
        if spreads is None and not ("batch_size" in keywords and "drop_last" in keywords):
            return None
        # (a spread that cannot be read leaves the call's own ``batch_size=`` and ``drop_last=`` deciding: it
        # cannot pass them again, nor a ``batch_sampler``, which DataLoader refuses beside them)
        candidates = [{**spread, **own} for spread in (spreads or [{}])]
        keywords = _shortest(candidates, node, ctx)
    sampler = keywords.get("batch_sampler")
    size = keywords.get("batch_size")
    if sampler is None and isinstance(size, ast.Constant) and size.value is None and keywords.get("sampler"):
        # ``DataLoader(ds, batch_size=None, sampler=BatchSampler(...))``: no automatic batching, the sampler yields
        # the batches' index lists (small-text): a batch sampler by another keyword
        sampler = keywords["sampler"] if sampler_batches(keywords["sampler"], node, ctx) is not None else None
    if sampler is not None and not (isinstance(sampler, ast.Constant) and sampler.value is None) \
            and not none_on_some_path(sampler, ctx):
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


def _unread_extras(node: ast.Call, ctx: FileContext) -> bool:
    """Every ``**`` spread of ``node`` is a dict the code does not build here (a parameter, ``self.loader_args``,
    ``cfg["loader"]``)
    beside the call's own ``batch_size=``: extra options (workers, collate, pinning), no ``drop_last`` unless a
    call of the enclosing function in the file names one (or a ``batch_sampler``) -- a default loader keeps its
    short last batch, as a reviewer reads ``DataLoader(ds, batch_size=bs, **dataloader_args)``."""
    if not all(isinstance(k.value, (ast.Name, ast.Attribute, ast.Subscript)) for k in node.keywords if k.arg is None):
        return False
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return True
    return not any(isinstance(call, ast.Call) and any(k.arg in ("drop_last", "batch_sampler") for k in call.keywords)
                   for call, _, _ in ctx.resolver.call_sites(function))


def _forwarded_only(node: ast.Call, keywords: dict, ctx: FileContext) -> bool:
    """``return DataLoader(dataset=dataset, **kwargs)`` with the function's own ``**kwargs`` only (no batch size,
    no ``drop_last`` of its own) in a function the file never calls (a training loop's factory method, called by
    a base class elsewhere): its loaders are batched as its callers say, which name no ``drop_last`` by default.
    The file's own calls of such a helper are judged there instead."""
    if "batch_size" in keywords or "drop_last" in keywords or "batch_sampler" in keywords:
        return False
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.args.kwarg is None:
        return False
    name = function.args.kwarg.arg
    return all(isinstance(k.value, ast.Name) and k.value.id == name for k in node.keywords if k.arg is None) \
        and not ctx.resolver.call_sites(function)


def _own_extras(node: ast.Call, ctx: FileContext) -> bool:
    """Every ``**`` spread of ``node`` is the enclosing function's own ``**kwargs`` (``def create_dataloader(self,
    dataset, batch_size, **kwargs): return DataLoader(dataset, batch_size=batch_size, **kwargs)``), and no call of
    the function in the file passes ``drop_last`` or a ``batch_sampler`` through it: a caller's optional extras,
    nothing by default."""
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.args.kwarg is None:
        return False
    name = function.args.kwarg.arg
    if not all(isinstance(k.value, ast.Name) and k.value.id == name for k in node.keywords if k.arg is None):
        return False
    return not any(isinstance(call, ast.Call) and any(k.arg in ("drop_last", "batch_sampler") or k.arg is None
                                                      for k in call.keywords)
                   for call, _, _ in ctx.resolver.call_sites(function))


def none_on_some_path(value: ast.AST, ctx: FileContext) -> bool:
    """``batch_sampler=batch_sampler`` where an arm binds the name to ``None`` (``if isinstance(sampler,
    BatchGeoSampler): batch_sampler = sampler`` / ``else: batch_sampler = None``): on that path the loader batches
    itself with its own ``batch_size`` and ``drop_last``, judged so. So does a parameter defaulting to ``None``
    (``def __init__(self, dataset, batch_size=1, batch_sampler=None, **kwargs)`` handing it to
    ``super().__init__``: schnetpack's ``AtomsLoader``), which a caller passing none leaves so."""
    scopes = ctx.resolver.scopes
    if not isinstance(value, ast.Name) or scopes is None:
        return False
    scope = ctx.resolver.current
    bindings = scope.names.get(value.id, ()) if scope is not None else ()
    return any(binding.tag in (VALUE, NONE, PARAM) and not binding.path and isinstance(binding.value, ast.Constant)
               and binding.value.value is None and binding.pos < (value.lineno, value.col_offset)
               for binding in bindings)


def _shortest(candidates: list, node: ast.Call, ctx: FileContext) -> dict:
    """The first candidate that keeps a short last batch (no ``drop_last``, or one that is ``False`` by default
    or on some path) and shuffles; else the first that keeps it; else the first."""
    if len(candidates) == 1:
        return candidates[0]
    from npu_lint.rules.dynamic_batches import _default   # (the loader rules build on this module)

    def short(keywords: dict) -> bool:
        drop_last = keywords.get("drop_last")
        return drop_last is None or (isinstance(drop_last, ast.Constant) and drop_last.value is False) \
            or _default(drop_last, node, ctx) is False

    def shuffles(keywords: dict) -> bool:
        shuffle = keywords.get("shuffle")
        return isinstance(shuffle, ast.Constant) and shuffle.value is True

    kept = [keywords for keywords in candidates if short(keywords)]
    return next((k for k in kept if shuffles(k)), kept[0] if kept else candidates[0])


# How many keyword dicts the arms of a function may give one call before it is left unread.
_MAX_CANDIDATES = 8
# The last word of an attribute holding a caller's extra loader keywords: ``self.cfg.dataloader_kwargs``.
_EXTRAS_SUFFIXES = ("kwargs", "_kw", "_kws")


class _Reader:
    """Reads the dicts of keywords a function builds, arm by arm (a list of candidate dicts per name)."""

    def __init__(self, node: ast.Call, ctx: FileContext) -> None:
        self.ctx = ctx
        self.scope_node = ctx.enclosing(node, FUNCTION_TYPES)
        scopes = ctx.resolver.scopes
        self.scopes = scopes
        self.scope = scopes.scope_of(self.scope_node) if scopes is not None \
            and isinstance(self.scope_node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        self.body = self.scope_node.body if isinstance(self.scope_node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            else _module_body(node, ctx)
        self.depth = 0

    def extras(self, value: ast.AST, own: Optional[dict] = None, merged: bool = True) -> bool:
        """``value`` holds a caller's optional extra keywords, which pass nothing by default (the function's own
        ``**kwargs`` only once ``merged`` into a dict it builds)."""
        if optional_extras(value, self.scope, self.scopes, variadic=merged):
            return not self._callers_pass_drop_last()
        if isinstance(value, ast.Attribute) and value.attr.endswith(_EXTRAS_SUFFIXES) and own is not None \
                and "batch_size" in own:
            return True     # ``**self.config.dataloader_kwargs`` beside the code's own batch size: additions
        return False

    def _callers_pass_drop_last(self) -> bool:
        """A call of the function in the file passes ``drop_last`` (or a ``**`` spread that may): its extras
        are not empty there."""
        if not isinstance(self.scope_node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        for call, _, _ in self.ctx.resolver.call_sites(self.scope_node):
            if isinstance(call, ast.Call) and any(kw.arg in ("drop_last", None) or (
                    isinstance(kw.value, (ast.Dict, ast.Call)) and "drop_last" in ast.unparse(kw.value))
                    for kw in call.keywords):
                return True
        return False

    def dicts(self, value: ast.AST, before: int, own: Optional[dict] = None, merged: bool = True) -> Optional[list]:
        """The candidate dicts ``**value`` passes at line ``before``; None when they cannot be read."""
        if self.extras(value, own, merged):
            return [{}]
        if isinstance(value, ast.Dict) or (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                                           and value.func.id == "dict"):
            return self.literal(value, before, None)
        if isinstance(value, ast.Call):   # ``**loader_kwargs(cfg)``: a function of the file returning a dict
            built = _returned_dict(value, self.ctx)
            return None if built is None else [built]
        if isinstance(value, ast.Name) and isinstance(self.body, list) and self.depth < 4:
            self.depth += 1
            try:
                return self.built(value.id, self.body, before)
            finally:
                self.depth -= 1
        return None

    def literal(self, value: ast.AST, before: int, bound: Optional[tuple]) -> Optional[list]:
        """The candidate dicts of a ``{...}`` literal or ``dict(...)`` call (with ``**`` entries read as
        :meth:`dicts`; ``bound``: the name being bound and what it holds before, for ``x = {..., **x}``)."""
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" \
                and not value.args:
            pairs = [(kw.arg, kw.value) for kw in value.keywords]
        elif isinstance(value, ast.Dict):
            if not all(k is None or (isinstance(k, ast.Constant) and isinstance(k.value, str)) for k in value.keys):
                return None
            pairs = [(None if k is None else k.value, v) for k, v in zip(value.keys, value.values)]  # type: ignore
        else:
            return None
        own = {key: v for key, v in pairs if key is not None}
        candidates: list = [{}]
        for key, item in pairs:
            if key is not None:
                candidates = [{**c, key: item} for c in candidates]
                continue
            if bound is not None and isinstance(item, ast.Name) and item.id == bound[0] \
                    and not self.extras(item):
                spread = bound[1]   # ``x = {..., **x}``: what ``x`` held (read back from the statements above)
            else:
                spread = self.dicts(item, before, own)
            candidates = _merged(candidates, spread)
            if candidates is None:
                return None
        return candidates

    def built(self, name: str, body: list, before: int) -> Optional[list]:
        """The candidate dicts ``name`` holds at line ``before`` from the statements of ``body``."""
        states = self._walk(name, body, before, [None])
        if states is None or not states or any(state is None for state in states):
            return None
        unique: list = []
        for state in states:
            if not any(state is other for other in unique):
                unique.append(state)
        return unique

    def _walk(self, name: str, body: list, before: int, states: list) -> Optional[list]:
        """The states (a dict, or None: not built here) after the statements of ``body`` before line ``before``;
        an arm that ends in ``return`` or ``raise`` reaches no later statement. None: cannot be read."""
        for statement in body:
            if statement.lineno >= before:
                break
            if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                         for t in statement.targets):
                current = None if any(s is None for s in states) else states
                built = self.literal(statement.value, before, (name, current))
                if built is None and self.extras(statement.value):
                    built = [{}]
                states = built if built is not None else [None]
            elif isinstance(statement, ast.If) and _changes(statement, name):
                arms = []
                for arm in (statement.body, statement.orelse):
                    found = self._walk(name, arm, before, states)
                    if found is None:
                        return None
                    if not (arm and isinstance(arm[-1], (ast.Return, ast.Raise))):
                        arms.extend(found)
                states = arms
                if len(states) > _MAX_CANDIDATES:
                    return None
            elif _changes(statement, name):
                if all(state is None for state in states):
                    continue
                update = _constant_update(statement, name)
                if update is None and self._extras_update(statement, name):
                    update = {}
                if update is None:
                    return None
                states = [None if state is None else {**state, **update} for state in states]
        return states

    def _extras_update(self, statement: ast.stmt, name: str) -> bool:
        """``name.update(extra)`` / ``name.update(**extra)`` with a caller's optional extras."""
        if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
            return False
        call = statement.value
        if not (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
                and call.func.value.id == name and call.func.attr == "update"):
            return False
        values = list(call.args) + [kw.value for kw in call.keywords if kw.arg is None]
        if len(values) != 1 or any(kw.arg is not None for kw in call.keywords) or len(call.args) > 1:
            return False
        return optional_extras(values[0], self.scope, self.scopes) and not self._callers_pass_drop_last()


def _spread_dicts(node: ast.Call, ctx: FileContext, own: dict) -> Optional[list]:
    """The candidate keywords that the ``**`` spreads of ``node`` pass: a dict built in the same scope (arm by arm)
    and changed only by constant keys, a ``{...}`` literal, a function of the file returning a dict, a caller's
    optional extras (nothing by default). None when one cannot be read."""
    reader = _Reader(node, ctx)
    candidates: list = [{}]
    for keyword in node.keywords:
        if keyword.arg is not None:
            continue
        candidates = _merged(candidates, reader.dicts(keyword.value, node.lineno, own, merged=False))
        if candidates is None:
            return None
    return candidates


def _merged(candidates: list, spread: Optional[list]) -> Optional[list]:
    """Every candidate dict updated by every dict a ``**spread`` may hold (None: unknown, or too many)."""
    if spread is None:
        return None
    merged = [{**c, **s} for c in candidates for s in spread]
    return merged if len(merged) <= _MAX_CANDIDATES else None


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
