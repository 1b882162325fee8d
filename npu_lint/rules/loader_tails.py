"""The broad path of NPU415 (and, through it, of NPU406): a batching loader is reported unless the analysis proves
its last batch full.

The proof-based paths of NPU406 / NPU415 name why a loader trains or evaluates; on code they have not seen that
proof breaks and they stay silent. This path makes the construction itself the trigger: a ``DataLoader`` (or a
subclass, a library loader, a project factory the model knows) that batches is reported unless ``drop_last`` is
known ``True`` (a constant, a default, a size guard ``len(ds) > bs``), the batch size is 1 or ``None`` (checked by the
caller), a ``batch_sampler`` decides the batches (judged as a sampler), the loader is test code, or its batches are
never drawn beyond the first (``next(iter(loader))``, ``len(loader)``, an unused name). Reported through
``report_repeat`` against NPU406: where NPU406 reports the same construction (a training loader), this finding is
dropped once the file is walked, so one loader has one finding."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.defaults import default_constant
from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES, short_source
from npu_lint.rules.test_scope import test_code

_LOADER = "torch.utils.data.DataLoader"
_TRAINING_CODE = frozenset({"NPU406"})
_MESSAGE = ("{what}, its last batch is smaller: one more set of shapes to compile on NPU; the cheapest static "
            "alternative: drop_last=True for training, or pad the last batch to the batch size for evaluation")


def _first_batch_only(node: ast.Call, ctx: FileContext) -> bool:
    """The loader's batches are never drawn past the first: counted (``len(DataLoader(...))``), one batch drawn
    (``next(iter(...))``), dropped, or bound to a name whose every use is such a use (or that is never read)."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Expr):
        return True
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is not None and (isinstance(parent, ast.Return) or _only_returned(parent, function)):
        from npu_lint.rules.eval_batches import _result_used   # (that module builds on this one)
        sites = ctx.resolver.call_sites(function)
        if sites and not any(_result_used(call, getattr(scope, "node", None), ctx) for call, scope, _ in sites):
            return True     # returned to the file's own callers, which only count it (``len(loader)``)
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in ("len", "iter", "next"):
        return True
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
        return False
    name = parent.targets[0].id
    scope = ctx.enclosing(node, FUNCTION_TYPES)
    if scope is None:
        return False    # a module-level loader: kept for whoever imports it
    uses = [n for n in walk(scope) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    if not uses:
        return True
    counted = {id(c.args[0]) for c in walk(scope) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
               and c.func.id == "len" and len(c.args) == 1}
    drawn = {id(c.args[0].args[0]) for c in walk(scope) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
             and c.func.id == "next" and c.args and isinstance(c.args[0], ast.Call)
             and isinstance(c.args[0].func, ast.Name) and c.args[0].func.id == "iter" and c.args[0].args}
    if all(id(use) in counted or id(use) in drawn for use in uses):
        return True
    from npu_lint.rules.eval_batches import _drawn_in_loop   # (that module builds on this one)
    iterated = [c for c in walk(scope) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                and c.func.id == "iter" and c.args and isinstance(c.args[0], ast.Name) and c.args[0].id == name]
    return bool(iterated) and all(id(use) in counted or any(use is c.args[0] for c in iterated) for use in uses) \
        and not any(_drawn_in_loop(c, scope, ctx) for c in iterated)   # ``it = iter(loader); x = next(it)``


def drawn_once(node: ast.Call, ctx: FileContext) -> bool:
    """NPU406's question: the loader built at ``node`` gives one batch at most (``next(iter(loader))``, counted,
    dropped), as :func:`_first_batch_only` says, but not an iterator made of it in place (``it = iter(DataLoader(
    ...))``, drawn from by a loop)."""
    if isinstance(node.func, ast.Attribute) and node.func.attr == "__init__":
        return False    # ``super().__init__(...)`` of a loader class: the loader is the instance
    parent = ctx.parent(node)
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "iter":
        grand = ctx.parent(parent)
        return isinstance(grand, ast.Call) and isinstance(grand.func, ast.Name) and grand.func.id == "next"
    return _first_batch_only(node, ctx)


def _only_returned(parent: object, function: ast.AST) -> bool:
    """``loader = DataLoader(...)`` whose name the function only returns (``return loader``)."""
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
        return False
    name = parent.targets[0].id
    returned = {id(n.value) for n in walk(function) if isinstance(n, ast.Return) and n.value is not None}
    uses = [n for n in walk(function) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    return bool(uses) and all(id(use) in returned for use in uses)


def _known_true(value: ast.AST, node: ast.AST, ctx: FileContext) -> bool:
    """``drop_last`` is ``True`` (a constant, a default no caller of the file changes: the model's defaults) or a
    size guard ``len(ds) > bs`` (false only when one batch holds the whole set: no short batch either way)."""
    if isinstance(value, ast.Constant):
        return value.value is True
    if isinstance(value, ast.Compare) and len(value.ops) == 1 and isinstance(value.ops[0], (ast.Gt, ast.GtE)) \
            and isinstance(value.left, ast.Call) and isinstance(value.left.func, ast.Name) \
            and value.left.func.id == "len":
        return True
    function = ctx.enclosing(node, FUNCTION_TYPES)
    scopes = ctx.resolver.scopes
    scope = scopes.scope_of(function) if function is not None and scopes is not None else None
    return default_constant(value, scope, scopes, ctx.resolver) is True


def _callers_drop(node: ast.Call, ctx: FileContext) -> bool:
    """Every call of the loader's function in the file passes ``drop_last`` known ``True`` (or a ``batch_sampler``)
    through its parameters or ``**kwargs``: the callers decide, and they drop the tail."""
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return False
    sites = ctx.resolver.call_sites(function)
    return bool(sites) and all(
        isinstance(call, ast.Call) and any(kw.arg == "batch_sampler" or (kw.arg == "drop_last"
                                                                          and _known_true(kw.value, call, ctx))
                                           for kw in call.keywords)
        for call, _, _ in sites)


def _judged_at_its_calls(node: ast.Call, ctx: FileContext) -> bool:
    """A helper of the file whose loader takes its batch size, ``shuffle``, ``sampler`` or ``drop_last`` from its
    parameters, and whose calls in the file are judged as loaders with what they pass: one finding per call, none
    at the helper (``build_loader(ds, 4, False)`` reported where it is called)."""
    from npu_lint.rules.loader_escapes import _judged_at_calls   # (that module builds on the loader rules)
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return False
    parameters = {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}
    return any(isinstance(kw.value, ast.Name) and kw.value.id in parameters for kw in node.keywords
               if kw.arg in ("batch_size", "shuffle", "drop_last", "sampler")) and _judged_at_calls(function, ctx)


def report_tail(node: ast.Call, keywords: Optional[dict], ctx: FileContext) -> None:
    """Report the loader built at ``node`` (its keywords read, or None when a ``**`` spread of unknown content
    builds it) unless the analysis proves its last batch full."""
    if test_code(node, ctx) or _first_batch_only(node, ctx) or _callers_drop(node, ctx) \
            or _judged_at_its_calls(node, ctx):
        return
    if keywords is None:
        if any(kw.arg == "batch_sampler" for kw in node.keywords):
            return      # a batch sampler decides the batches: judged as a sampler
        own = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
        if "drop_last" in own and _known_true(own["drop_last"], node, ctx):
            return
        spread = next((kw.value for kw in node.keywords if kw.arg is None), None)
        source = f"**{short_source(spread, 30)}" if spread is not None else "*args"
        what = (f"this DataLoader takes its batching from {source}, whose content the code does not show: unless "
                "that sets drop_last=True (or a batch_sampler)")
        ctx.report_repeat(node, _MESSAGE.format(what=what), _LOADER, node, _TRAINING_CODE)
        return
    size = short_source(keywords.get("batch_size"), 30) if keywords.get("batch_size") is not None else "1"
    drop_last = keywords.get("drop_last")
    if drop_last is not None and _known_true(drop_last, node, ctx):
        return
    function = ctx.enclosing(node, FUNCTION_TYPES)
    scopes = ctx.resolver.scopes
    scope = scopes.scope_of(function) if function is not None and scopes is not None else None
    if drop_last is not None and default_constant(drop_last, scope, scopes, ctx.resolver) is False:
        what = (f"this DataLoader's drop_last={short_source(drop_last, 30)} is False by default: unless a caller "
                f"sets it, or len(dataset) is a multiple of batch_size={size}")
    elif drop_last is not None and not (isinstance(drop_last, ast.Constant) and drop_last.value is False):
        what = (f"this DataLoader's drop_last={short_source(drop_last, 30)} is not known to be True (its last batch "
                f"depends on that value): when it is false and len(dataset) is no multiple of batch_size={size}")
    else:
        what = (f"this DataLoader (batch_size={size}) has no drop_last=True: unless len(dataset) is a multiple of "
                f"{size}")
    ctx.report_repeat(node, _MESSAGE.format(what=what), _LOADER, node, _TRAINING_CODE)


# Host libraries whose functions take a batch without running the device (statistics, plots, files).
_HOST_ROOTS = frozenset({"numpy", "math", "pandas", "scipy", "sklearn", "matplotlib", "json", "pickle", "os", "csv",
                         "logging", "warnings", "tqdm", "itertools", "collections", "statistics"})


def hands_batch(loop: ast.For, ctx: FileContext) -> bool:
    """The loop over a loader hands its batch (or a value made from it) to a callable the model cannot prove is
    host work: not a method of the batch (``x.sum()``), a builtin (``len``, ``float``), a log line, a container's
    ``append``, nor a host library's function (``np.mean``): ``model.encode(batch)``, ``self.predict_step(b)``,
    ``evaluator(outputs, batch)`` of a value of unknown kind (session 22, branch22: the proof that the callee is a
    model, or runs without gradients, was what the eval path needed). Silent: statistics loops (``total +=
    len(x)``, ``float(x.sum())``)."""
    from npu_lint.rules.branch_arms import _host_call
    from npu_lint.rules.eval_batches import _derived, _takes
    from npu_lint.rules.loader_loops import BUILTINS
    names = _derived(loop, {n.id for n in walk(loop.target) if isinstance(n, ast.Name)})
    for call in walk(loop):
        if not isinstance(call, ast.Call) or not _takes(call, names) or _host_call(call, ctx):
            continue
        func = call.func
        if isinstance(func, ast.Attribute) and (func.attr in ("append", "extend", "insert", "add", "update", "put")
                                                or any(isinstance(n, ast.Name) and n.id in names for n in walk(func))):
            continue    # ``out.append(x)``, ``x.to(device)``: kept, or a method of the batch
        if isinstance(func, ast.Name) and func.id in BUILTINS:
            continue
        name = ctx.resolver.qualname(func) or ""
        if name.split(".")[0] in _HOST_ROOTS:
            continue    # ``np.mean(x)``, ``json.dumps(x)``: host work
        return True
    return False
