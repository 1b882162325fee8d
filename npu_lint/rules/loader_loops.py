"""Where the loops over a loader are (NPU415, eval_batches.py): the name a loader is bound to, the ``for`` loops
and comprehensions over it in the same function, in the methods of its class for ``self.loader``, in the file's
functions it is passed to and in the callers of a helper that returns it; indexed once per function. Nothing here
is a rule."""
from __future__ import annotations

import ast
import builtins
from typing import Callable, Iterator, Optional

from npu_lint.analysis.nodes import walk
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES
from npu_lint.rules.dynamic_batches import iterated_names

BUILTINS = frozenset(dir(builtins))   # ``len(loader)``, ``print(x)``: Python's own callables, never a model


def assigned(node: ast.Call, ctx: FileContext) -> str:
    """The name (or ``self.`` attribute) the loader is bound to, also through one wrapping call
    (``loader = accelerator.prepare(DataLoader(...))``); "" for none."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Call) and node in parent.args:
        parent = ctx.parent(parent)
    if isinstance(parent, (ast.Assign, ast.AnnAssign)):
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        if len(targets) == 1 and isinstance(targets[0], (ast.Name, ast.Attribute)):
            return ast.unparse(targets[0])
    return ""


def loops_over(node: ast.Call, ctx: FileContext) -> Iterator[tuple[ast.For, Optional[ast.AST]]]:
    """The ``for`` loops over the loader ``node`` is assigned to, each with its function: in the same function
    (or module), in the methods of the same class for ``self.loader``, and in the functions (or methods) of the
    file the loader is passed to (``evaluate(model, loader)``, ``self.evaluate(DataLoader(...))``)."""
    function = ctx.enclosing(node, FUNCTION_TYPES)
    owner = ctx.enclosing(function, (ast.ClassDef,)) if function is not None else None
    parent = ctx.parent(node)
    if isinstance(parent, ast.Call) and node in parent.args:   # ``evaluate(model, DataLoader(ds, 64))``
        yield from _helper_loops(parent, lambda argument: argument is node, owner, ctx)
    name = assigned(node, ctx)
    if not name:
        return
    functions: list[Optional[ast.AST]] = [function]
    if name.startswith("self.") and owner is not None:
        functions = [f for f in owner.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for scope_node in functions:
        body = scope_node if scope_node is not None else _module(node, ctx)
        if body is None:
            continue
        loops, _, iterators = _body_index(body, ctx)
        for alias in (name, *iterators.get(name, ())):
            for child, loop in loops.get(alias, ()):
                if child.lineno >= (node.lineno if scope_node is function else 0):
                    yield loop, scope_node if scope_node is not None else body
    body = function if function is not None else _module(node, ctx)
    for call in _body_index(body, ctx)[1].get(name, ()) if body is not None else ():
        if call.lineno >= node.lineno and call is not parent:
            yield from _helper_loops(call, lambda argument: isinstance(argument, (ast.Name, ast.Attribute))
                                     and ast.unparse(argument) == name, owner, ctx)
    if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and "." not in name:
        yield from _callers_loops(function, name, ctx)


_Loops = dict[str, list[tuple[ast.AST, ast.For]]]


def _iterator_of(child: ast.AST) -> str:
    """``it = iter(loader)``: the loader's name for the iterator bound to ``it`` (then ``for b in tqdm(it)``,
    realtabformer's sampler); "" for anything else."""
    if isinstance(child, ast.Assign) and len(child.targets) == 1 and isinstance(child.targets[0], ast.Name) \
            and isinstance(child.value, ast.Call) and isinstance(child.value.func, ast.Name) \
            and child.value.func.id == "iter" and len(child.value.args) == 1:
        return ast.unparse(child.value.args[0])
    return ""


def _body_index(body: ast.AST, ctx: FileContext) -> tuple[_Loops, dict[str, list[ast.Call]], dict[str, list[str]]]:
    """The loops of a function (or module) by the name they iterate, its calls by the names (or ``self.``
    attributes) they pass, and the names it binds to ``iter(name)``: walked once per body, not once per loader."""
    memo = ctx.scratch.setdefault("eval_batch_bodies", {})
    found = memo.get(id(body))
    if found is None or found[0] is not body:
        loops: _Loops = {}
        calls: dict[str, list[ast.Call]] = {}
        iterators: dict[str, list[str]] = {}
        for child in walk(body):
            iterated = _iterator_of(child)
            if iterated:
                iterators.setdefault(iterated, []).append(child.targets[0].id)
            loop = _as_loop(child)
            if loop is not None:
                for name in iterated_names(loop.iter):
                    loops.setdefault(name, []).append((child, loop))
            if isinstance(child, ast.Call):
                for argument in (*child.args, *(kw.value for kw in child.keywords)):
                    if isinstance(argument, (ast.Name, ast.Attribute)):
                        calls.setdefault(ast.unparse(argument), []).append(child)
        found = memo[id(body)] = (body, loops, calls, iterators)
    return found[1], found[2], found[3]


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _as_loop(node: ast.AST) -> Optional[ast.For]:
    """A ``for`` loop, or a comprehension over one iterable seen as the loop it stands for
    (``[model(x) for x in loader]``: ``for x in loader: model(x)``)."""
    if isinstance(node, ast.For):
        return node
    if not isinstance(node, _COMPREHENSIONS) or len(node.generators) != 1:
        return None
    element = ast.Tuple(elts=[node.key, node.value], ctx=ast.Load()) if isinstance(node, ast.DictComp) \
        else node.elt
    loop = ast.For(target=node.generators[0].target, iter=node.generators[0].iter, body=[ast.Expr(value=element)],
                   orelse=[], type_comment=None)
    return ast.copy_location(loop, node)


def _callers_loops(function: ast.AST, name: str, ctx: FileContext) -> Iterator[tuple[ast.For, Optional[ast.AST]]]:
    """``return train_dl, eval_dl`` in a helper; ``train_dl, eval_dl = get_dataloaders(...)`` in its callers of the
    file: the loops of each caller over the name it binds the loader to."""
    position: Optional[int] = None
    for child in walk(function):
        if isinstance(child, ast.Return) and child.value is not None:
            if isinstance(child.value, ast.Name) and child.value.id == name:
                position = -1
            elif isinstance(child.value, ast.Tuple):
                position = next((i for i, e in enumerate(child.value.elts)
                                 if isinstance(e, ast.Name) and e.id == name), position)
    if position is None:
        return
    for call, scope, _ in ctx.resolver.call_sites(function):
        caller = scope.node
        if caller is None or caller is function:
            continue
        bound = ""
        for child in walk(caller):
            if isinstance(child, ast.Assign) and child.value is call and len(child.targets) == 1:
                target = child.targets[0]
                if position == -1 and isinstance(target, ast.Name):
                    bound = target.id
                elif position >= 0 and isinstance(target, ast.Tuple) and position < len(target.elts) \
                        and isinstance(target.elts[position], ast.Name):
                    bound = target.elts[position].id   # type: ignore[attr-defined]
                break
        if not bound:
            continue
        for child in walk(caller):
            if isinstance(child, ast.For) and bound in iterated_names(child.iter):
                yield child, caller
            elif isinstance(child, ast.Call) and child is not call:   # ``evaluation_loop(model, eval_dl)``
                yield from _helper_loops(child, lambda argument: isinstance(argument, ast.Name)
                                         and argument.id == bound, None, ctx)


def _helper_loops(call: ast.Call, passes: Callable[[ast.AST], bool], owner: Optional[ast.AST],
                  ctx: FileContext, depth: int = 0) -> Iterator[tuple[ast.For, Optional[ast.AST]]]:
    """``test(model, device, test_loader)``, ``self.evaluate(loader)``: the loops over the parameter a function
    (or a method of ``owner``, the class at hand) of the file receives the loader in; also a method of an
    instance of the file's class (``trainer.train(val_dataloader=loader)``, the model's callee), and one hand-off
    further (``train`` calling ``self.evaluate(val_dataloader)``)."""
    positions = [i for i, a in enumerate(call.args) if passes(a)]
    keywords = [kw.arg for kw in call.keywords if kw.arg and passes(kw.value)]
    if not positions and not keywords or any(isinstance(a, ast.Starred) for a in call.args):
        return
    func, offset = call.func, 0
    definition: Optional[ast.AST] = None
    if isinstance(func, ast.Name):
        definition = ctx.resolver.definition(func)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" \
            and isinstance(owner, ast.ClassDef):
        definition = next((f for f in owner.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                           and f.name == func.attr), None)
        offset = 1
    if definition is None and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id != "self":
        scope = ctx.resolver.scopes.scope_of(ctx.enclosing(call, FUNCTION_TYPES)) \
            if ctx.resolver.scopes is not None and ctx.enclosing(call, FUNCTION_TYPES) is not None else None
        found = ctx.resolver.own_function(call, scope) if depth == 0 else None
        if found is not None:   # ``trainer = Trainer(model)`` then ``trainer.train(val_dataloader=loader)``
            definition, offset = found
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return
    positional = [a.arg for a in definition.args.posonlyargs + definition.args.args][offset:]
    parameters = {positional[i] for i in positions if i < len(positional)} | set(keywords)
    inner_owner: Optional[ast.AST] = None   # the method's class, found once if needed
    looked = False
    for child in walk(definition):
        if isinstance(child, ast.For) and parameters.intersection(iterated_names(child.iter)):
            yield child, definition
        elif depth == 0 and isinstance(child, ast.Call) and child is not call and any(
                isinstance(a, ast.Name) and a.id in parameters for a in (*child.args, *(k.value for k in child.keywords))):
            if not looked:   # handed on: ``self.evaluate(val_dataloader)``
                inner_owner, looked = _class_of(definition, ctx), True
            yield from _helper_loops(child, lambda argument: isinstance(argument, ast.Name)
                                     and argument.id in parameters, inner_owner, ctx, depth + 1)


def _class_of(function: ast.AST, ctx: FileContext) -> Optional[ast.AST]:
    """The class a method belongs to (its parents may lie past the rule's walk: found from the module's classes)."""
    owner = ctx.enclosing(function, (ast.ClassDef,))
    if owner is not None:
        return owner
    module = ctx.resolver.scopes.module.node if ctx.resolver.scopes is not None else None
    return next((c for c in walk(module) if isinstance(c, ast.ClassDef) and function in c.body), None) \
        if module is not None else None


def _module(node: ast.AST, ctx: FileContext) -> Optional[ast.AST]:
    parent = ctx.parent(node)
    while parent is not None and not isinstance(parent, ast.Module):
        parent = ctx.parent(parent)
    return parent
