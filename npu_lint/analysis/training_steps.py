"""Loops that run once per training step: the body back-propagates and steps an optimizer (``loss.backward()``,
``accelerator.backward(loss)``, ``scaler.scale(loss).backward()`` with ``opt.step()`` / ``scaler.step(opt)``),
itself or in the file's function or method it calls (``self._train_step(batch)``, one call deep). Such a loop
iterates batches, whatever its iterable is: a ``DataLoader`` the model knows, a parameter no call of the file
passes (``def train_model(self, X, ...)``: ``for step, data in enumerate(X)``), a generator of the project. Every
rule that asks "does this loop run per batch?" gets the same answer (`runs_per_step`), and a parameter such a loop
of its own function iterates is a batch iterable, a loader (`iterated_by_training`: its elements are batches).

A mixin of :class:`npu_lint.resolver.Resolver`; each answer computed once per loop / function."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis.nodes import children, of_type, walk
from npu_lint.analysis.scopes import Binding, Scope
from npu_lint.analysis.summaries import memo

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Wrappers that hand their first argument's items through: ``enumerate(loader)``, ``tqdm(loader)``, ``iter(dl)``.
_PASSING = frozenset({"enumerate", "iter", "tqdm", "zip", "islice"})


class TrainingSteps:
    """Loops whose every iteration is a training step (mixed into the Resolver)."""

    def runs_per_step(self: "Resolver", loop: ast.AST, scope: Optional[Scope] = None) -> bool:
        """A ``for`` loop whose body back-propagates and steps an optimizer (not a ``step`` the project defines:
        an environment's ``env.step(action)``, a solver's ``self.step(t0, t1, y)``), itself or in one of the file's
        functions it calls: each iteration is one training step, so its iterable yields batches."""
        if not isinstance(loop, ast.For):
            return False
        return bool(memo(self._summaries, ("per_step", id(loop)),
                         lambda: self._runs_per_step(loop, scope or self.current)))

    def _runs_per_step(self: "Resolver", loop: ast.For, scope: Scope) -> bool:
        backward, stepped = _trains(loop.body, self, scope)
        if backward and stepped:
            return True
        for call in _flat(loop.body):
            if not isinstance(call, ast.Call):
                continue
            own = self.own_function(call, scope)
            if own is None or not isinstance(own[0], _DEFS) or own[0] is scope.node:
                continue
            inner = self.scopes.scope_of(own[0]) if self.scopes is not None else None
            found = _trains(own[0].body, self, inner or scope)
            backward, stepped = backward or found[0], stepped or found[1]
            if backward and stepped:
                return True
        return False

    def iterated_by_training(self: "Resolver", binding: Binding) -> bool:
        """``binding`` (a parameter) is what a loop of its own function iterates (directly, or through
        ``enumerate``, ``tqdm``, ``zip``, a progress bar) when that loop `runs_per_step`: a batch iterable."""
        function = binding.scope.node
        if not isinstance(function, _DEFS) or self.scopes is None:
            return False
        loops = memo(self._summaries, ("trained_iterables", id(function)), lambda: self._trained_iterables(function))
        return bool(loops) and binding.name in loops   # type: ignore[operator]

    def trained_parameters(self: "Resolver", function: ast.AST) -> tuple[tuple[str, int], ...]:
        """The parameters of ``function`` a loop of its own iterates while running a training step per iteration,
        each with its position among the positional parameters (``self`` included; -1: keyword-only)."""
        if not isinstance(function, _DEFS) or self.scopes is None or not any(
                isinstance(n, ast.For) for n in walk(function)):
            return ()
        names = memo(self._summaries, ("trained_iterables", id(function)), lambda: self._trained_iterables(function))
        if not names:
            return ()
        positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        return tuple((name, positional.index(name) if name in positional else -1)
                     for name in [*positional, *(a.arg for a in function.args.kwonlyargs)]
                     if name in names)   # type: ignore[operator]

    def _trained_iterables(self: "Resolver", function: ast.AST) -> frozenset[str]:
        scope = self.scopes.scope_of(function) if self.scopes is not None else None
        if scope is None:
            return frozenset()
        names: set[str] = set()
        wrapped: Optional[dict[str, set[str]]] = None
        for loop in of_type(function, ast.For):
            iterated = _iterated(loop.iter)
            if not iterated or not self.runs_per_step(loop, scope):
                continue
            if wrapped is None:
                wrapped = _wrappers(function)
            for name in iterated:   # ``dl = tqdm(enumerate(loader)) if verbose else enumerate(loader)``
                names |= wrapped.get(name, {name})
        return frozenset(names)


def _wrappers(function: ast.AST) -> dict[str, set[str]]:
    """The local names every assignment of the function binds to a wrapper of other names (``it =
    iter(loader)``; ``dl = tqdm(enumerate(loader)) if verbose else enumerate(loader)``), with those names."""
    found: dict[str, set[str]] = {}
    broken: set[str] = set()
    for node in walk(function):
        if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.With, ast.NamedExpr)):
            broken |= {n.id for n in walk(getattr(node, "target", node)) if isinstance(n, ast.Name)
                       and isinstance(n.ctx, ast.Store)} if not isinstance(node, ast.With) else set()
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if not isinstance(target, ast.Name):
                broken |= {n.id for n in walk(target) if isinstance(n, ast.Name)}
                continue
            arms = [node.value.body, node.value.orelse] if isinstance(node.value, ast.IfExp) else [node.value]
            inner = [_iterated(arm) if isinstance(arm, ast.Call) else set() for arm in arms]
            if all(inner):
                found.setdefault(target.id, set()).update(*inner)
            else:
                broken.add(target.id)
    return {name: inner for name, inner in found.items() if name not in broken}


def _iterated(node: ast.AST) -> set[str]:
    """The plain names a loop's iterable walks: ``X``, ``enumerate(X, 0)``, ``tqdm(enumerate(X), total=n)``,
    each argument of ``zip``; not the argument of any other call (``range(n)``: ``n`` is a count)."""
    if isinstance(node, ast.Name):
        return {node.id}
    if not isinstance(node, ast.Call) or not node.args:
        return set()
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if name not in _PASSING and "progress" not in name.lower():
        return set()
    arguments = node.args if name == "zip" else node.args[:1]
    return {n for a in arguments if not isinstance(a, ast.Starred) for n in _iterated(a)}


def _flat(statements: list):
    """The nodes of ``statements`` outside nested loops and definitions: what one pass through them runs once
    (a loop over epochs whose inner loop steps per batch is no step itself)."""
    todo = list(statements)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.ClassDef, ast.Lambda) + _DEFS):
            continue
        yield node
        todo.extend(children(node))


def _trains(statements: list, resolver: "Resolver", scope: Scope) -> tuple[bool, bool]:
    """Whether ``statements`` call ``.backward()`` and a ``.step()`` that is not the project's own method (outside
    nested loops)."""
    backward = stepped = False
    for n in _flat(statements):
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)):
            continue
        if n.func.attr == "backward":
            backward = True
        elif n.func.attr == "step" and not stepped and resolver.own_function(n, scope) is None:
            stepped = True
    return backward, stepped
