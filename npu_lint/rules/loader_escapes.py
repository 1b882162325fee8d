"""Where a loader goes when the file never iterates it (NPU415, eval_batches.py): returned by a factory, kept on
an attribute, handed to a call of another module (``trainer.fit(model, loader)``, ``accelerator.prepare(loader)``).
Its batches are cut wherever it is iterated; the file only shows that it leaves. Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES, short_source
from npu_lint.rules.loader_loops import BUILTINS, assigned


def escape(node: ast.Call, ctx: FileContext) -> Optional[str]:
    """How the loader built by ``node`` leaves the code at hand (``returned by build_loader()``, ``kept in
    self.test_loader``, ``passed to trainer.fit()``); None when it stays (used, or dropped, in the function)."""
    function = ctx.enclosing(node, FUNCTION_TYPES)
    where = f"{function.name}()" if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) else "the module"
    if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and ctx.resolver.call_sites(function):
        where = ""      # a helper the file calls: its loaders are judged at those calls, with what they pass
    parent = ctx.parent(node)
    if isinstance(parent, (ast.Tuple, ast.List, ast.Dict)):
        parent = ctx.parent(parent)
    if isinstance(parent, (ast.Return, ast.Yield)):
        return f"returned by {where}" if where else _through_callers(function, ctx)
    if isinstance(parent, ast.Call) and node in (*parent.args, *(kw.value for kw in parent.keywords)):
        callee = _foreign(parent, ctx)
        if callee is not None and not assigned(node, ctx):
            return f"passed to {callee}"
    name = assigned(node, ctx)
    if not name:
        return None
    if "." in name:
        return f"kept in {name}"
    for child in walk(function) if function is not None else ():
        if getattr(child, "lineno", 0) < node.lineno:
            continue
        if isinstance(child, (ast.Return, ast.Yield)) and child.value is not None and _mentions(child.value, name):
            if where:   # (returned to the file's own callers: judged there, unless it also goes elsewhere)
                return f"returned by {where}"
            if isinstance(child.value, ast.Name):
                through = _through_callers(function, ctx)
                if through is not None:
                    return through
        if isinstance(child, ast.Assign) and _mentions(child.value, name) \
                and any(isinstance(t, ast.Attribute) for t in child.targets):
            return f"kept in {short_source(child.targets[0], 30)}"
        if isinstance(child, ast.Call) and any(isinstance(a, ast.Name) and a.id == name
                                               for a in (*child.args, *(kw.value for kw in child.keywords))):
            callee = _foreign(child, ctx)
            if callee is not None:
                return f"passed to {callee}"
    if not where and _judged_at_calls(function, ctx):
        return None     # its callers' loaders are judged at those calls, with what they pass
    for child in walk(function) if function is not None else ():
        if isinstance(child, ast.Call) and getattr(child, "lineno", 0) >= node.lineno:
            found = _handed_on(child, lambda a: isinstance(a, ast.Name) and a.id == name, function, ctx)
            if found is not None:
                return found
    return None


def _judged_at_calls(function: Optional[ast.AST], ctx: FileContext) -> bool:
    """Some call of ``function`` in the file is judged as a loader built with what it passes."""
    from npu_lint.rules.dynamic_batches import _built_loader   # (the loader rules build on this module)
    return isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
        isinstance(call, ast.Call) and _built_loader(call, ctx) is not None
        for call, _, _ in ctx.resolver.call_sites(function))


def _handed_on(call: ast.Call, passes, function: Optional[ast.AST], ctx: FileContext,
               depth: int = 0) -> Optional[str]:
    """``self.predict_generator(generator)`` (a method of the file's class, or a function of the file) that hands
    the parameter it receives the loader in to a call of another module (``StepIterator(generator, steps)``,
    ``EpochIterator(self, train_generator, valid_generator)``), itself or one own hand-off further: a library's
    ``fit`` / ``evaluate`` / ``predict`` building the loader its own loop machinery iterates."""
    positions = [i for i, a in enumerate(call.args) if passes(a)]
    keywords = [kw.arg for kw in call.keywords if kw.arg and passes(kw.value)]
    if not positions and not keywords or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    definition, offset = ctx.resolver.definition(call.func), 0
    if definition is None:
        scope = ctx.resolver.scopes.scope_of(function) if ctx.resolver.scopes is not None \
            and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        found = ctx.resolver.own_function(call, scope) if scope is not None else ctx.resolver.own_function(call)
        if found is not None:
            definition, offset = found
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)) or definition is function:
        return None
    positional = [a.arg for a in definition.args.posonlyargs + definition.args.args][offset:]
    parameters = {positional[i] for i in positions if i < len(positional)} | set(keywords)
    if not parameters:
        return None
    where = f"{short_source(call.func, 30)}()"
    for child in walk(definition):
        if not isinstance(child, ast.Call) or not any(isinstance(a, ast.Name) and a.id in parameters
                                                      for a in (*child.args, *(kw.value for kw in child.keywords))):
            continue
        callee = _foreign(child, ctx)
        if callee is not None:
            return f"passed to {callee} by {where}"
        if depth == 0:
            found_on = _handed_on(child, lambda a: isinstance(a, ast.Name) and a.id in parameters, definition, ctx,
                                  depth + 1)
            if found_on is not None:
                return found_on
    return None


def _through_callers(function: Optional[ast.AST], ctx: FileContext) -> Optional[str]:
    """A helper's loader its callers in the file cannot judge (built with keywords the calls do not give:
    ``DataLoader(valdataset, **dataloader_kwargs)``) goes where the callers' results go: ``val_loader =
    self.get_eval_loader(...)`` then ``COCOEvaluator(dataloader=val_loader)``."""
    from npu_lint.rules.dynamic_batches import _built_loader   # (the loader rules build on this module)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    for call, scope, _ in ctx.resolver.call_sites(function):
        if not isinstance(call, ast.Call) or _built_loader(call, ctx) is not None:
            return None   # judged at the call, with what it passes
        found = _site_escape(call, getattr(scope, "node", None), ctx)
        if found is not None:
            return f"returned by {function.name}(), {found}"
    return None


def _site_escape(call: ast.Call, caller: Optional[ast.AST], ctx: FileContext) -> Optional[str]:
    """``val_loader = self.get_eval_loader(...)`` in ``caller``, then ``COCOEvaluator(dataloader=val_loader)``:
    the call of another module the result is handed to (the caller's nodes may lie past the rule's walk: found
    from the caller's own statements)."""
    if not isinstance(caller, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    name = next((t.id for child in walk(caller) if isinstance(child, ast.Assign) and child.value is call
                 for t in child.targets if isinstance(t, ast.Name)), None)
    for child in walk(caller):
        if not isinstance(child, ast.Call) or child is call:
            continue
        arguments = (*child.args, *(kw.value for kw in child.keywords))
        if any(a is call or (name is not None and isinstance(a, ast.Name) and a.id == name) for a in arguments):
            callee = _foreign(child, ctx)
            if callee is not None:
                return f"passed to {callee}"
    return None


def _mentions(node: ast.AST, name: str) -> bool:
    """``loader``, ``(train_dl, loader)``, ``{"test": loader}``: the name itself or an element of a literal."""
    if isinstance(node, ast.Name):
        return node.id == name
    if isinstance(node, (ast.Tuple, ast.List)):
        return any(_mentions(e, name) for e in node.elts)
    if isinstance(node, ast.Dict):
        return any(_mentions(v, name) for v in node.values)
    return False


def _foreign(call: ast.Call, ctx: FileContext) -> Optional[str]:
    """The callee's text when the file does not define it (a trainer, an accelerator, another module's helper):
    where the batches go is not in this file. None for the file's own functions (their loops are judged) and
    Python's builtins."""
    func = call.func
    if isinstance(func, ast.Name) and func.id in BUILTINS:
        return None
    if ctx.resolver.definition(func) is not None or ctx.resolver.own_function(call) is not None:
        return None
    return f"{short_source(func, 30)}()"
