"""The binder: one pass over a module's statements (function and class bodies included) that records every binding
in its scope, the ``if`` arms and loops bindings sit in and where ``isinstance`` tests narrow names. Run by
:class:`npu_lint.analysis.scopes.Scopes`, which also binds lambda and comprehension scopes with
:func:`_bind_params` / :func:`_bind_target` when the walk reaches them."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis.bindings import (AUTOGRAD_STATIC, ANNOTATION, AUGMENT, CLASS, DEF, DELETE, EXCEPT, IMPORT,
                                        LOOP, NONE, PARAM, STAR, VALUE, WITH, _GUARD, Binding, Position, Scope, _end, _start)
from npu_lint.analysis.names import canonical
from npu_lint.analysis.narrowing import _narrow, _narrow_expression, isinstance_tests

if TYPE_CHECKING:
    from npu_lint.analysis.scopes import Scopes

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_CALL_STATEMENTS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return)


def _arm_guard(statement: ast.stmt, arm: int, guard: tuple) -> tuple:
    """The guard of a nested body: ``if`` arms (body 0, ``else`` 1) are alternatives, and so are a ``try`` body
    (with its ``else``) and its handlers (``finally`` runs on either path)."""
    kind = type(statement)
    if kind is ast.If:
        return guard + ((id(statement), arm),)
    if kind is ast.Try or kind.__name__ == "TryStar":
        return guard + ((id(statement), 1 if arm == 1 else 0),) if arm < 3 else guard
    return guard


def _bind_params(node: ast.AST, scope: Scope) -> None:
    args = node.args
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    pos = _start(node)
    for arg, default in zip(positional, defaults):
        scope.add(Binding(arg.arg, PARAM, default, pos, scope, arg))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        scope.add(Binding(arg.arg, PARAM, default, pos, scope, arg))
    for arg in (args.vararg, args.kwarg):
        if arg is not None:
            scope.add(Binding(arg.arg, PARAM, None, pos, scope, None))


_REGISTERING = frozenset({"register_buffer", "register_parameter"})


def _bind_registered(scope: Scope, call: ast.Call, statement: ast.stmt) -> None:
    """``self.register_buffer("mask", torch.zeros(n, dtype=torch.bool))`` in a method: ``self.mask`` holds that value
    in every method, as ``self.mask = ...`` would (also ``register_parameter``)."""
    func = call.func
    if scope.cls is None or type(func) is not ast.Attribute or func.attr not in _REGISTERING \
            or type(func.value) is not ast.Name or func.value.id != scope.self_name or len(call.args) < 2 \
            or type(call.args[0]) is not ast.Constant or not isinstance(call.args[0].value, str):
        return
    name, value = call.args[0].value, call.args[1]
    if not name.isidentifier():
        return
    none = isinstance(value, ast.Constant) and value.value is None
    scope.cls.attrs.setdefault(name, []).append(Binding(name, NONE if none else VALUE, value, _end(statement), scope,
                                                        statement))


def _bind_target(scope: Scope, target: ast.AST, value: Optional[ast.AST], tag: str, pos: Position,
                 path: tuple[int, ...], statement: Optional[ast.AST] = None) -> None:
    stack = [(target, path)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, ast.Name):
            none = tag == VALUE and isinstance(value, ast.Constant) and value.value is None and not where
            scope.add(Binding(node.id, NONE if none else tag, value, pos, scope, statement, where))
        elif isinstance(node, (ast.Tuple, ast.List)):
            stack.extend((element, where + (index,)) for index, element in enumerate(node.elts))
        elif isinstance(node, ast.Starred):
            stack.append((node.value, where + (STAR,)))
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and scope.cls is not None \
                and (node.value.id == scope.self_name or node.value.id == getattr(scope.cls.node, "name", None)):
            # ``self.x = v`` or ``Cls.x = v`` (a class attribute set from a method: ``TabR.delu = delu`` after a lazy
            # ``import delu``) in a method of the class
            none = isinstance(value, ast.Constant) and value.value is None and not where
            scope.cls.attrs.setdefault(node.attr, []).append(
                Binding(node.attr, NONE if none else tag, value, pos, scope, statement, where))
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and scope.ctx_name is not None \
                and node.value.id == scope.ctx_name and scope.parent is not None:
            scope.parent.ctx_attrs.setdefault(node.attr, []).append(Binding(node.attr, tag, value, pos, scope,
                                                                             statement, where))


class _Binder:
    """One pass over the statements of a module (bodies of functions and classes included)."""

    def __init__(self, scopes: Scopes) -> None:
        self.scopes = scopes
        self.block_end: Position = (0, 0)   # the end of the block the current statement sits in

    def run(self, tree: ast.AST) -> None:
        """Depth first, in source order (a scope's bindings stay sorted by position)."""
        top = getattr(tree, "body", [])
        stack: list[tuple[object, Scope, tuple, Position]] = [
            (iter(top), self.scopes.module, (), _end(top[-1]) if top else (0, 0))]
        try:
            while stack:
                body, scope, guard, self.block_end = stack[-1]
                statement = next(body, None)
                if statement is None:
                    stack.pop()
                    continue
                _GUARD[0] = guard
                nested: list[tuple[list, Scope]] = []
                self.statement(statement, scope, nested)
                for arm, (inner, inner_scope) in reversed(list(enumerate(nested))):
                    inner_guard = () if inner_scope is not scope else _arm_guard(statement, arm, guard)
                    stack.append((iter(inner), inner_scope, inner_guard, _end(inner[-1]) if inner else (0, 0)))
        finally:
            _GUARD[0] = ()

    def statement(self, node: ast.stmt, scope: Scope, stack: list) -> None:
        kind = type(node)
        value = getattr(node, "value", None)
        self.scopes.statements.append((node, scope))
        if type(value) is ast.Call and kind in _CALL_STATEMENTS:
            self.scopes.calls.append((value, scope))
        if value is not None and kind in _CALL_STATEMENTS:
            _narrow_expression(value, scope)
        if kind is ast.Assign:
            for target in node.targets:
                _bind_target(scope, target, node.value, VALUE, _end(node), (), node)
        elif kind is ast.AnnAssign:   # ``x: Optional[T] = None`` declares what ``x`` holds where it is used
            declared = node.value is None or (isinstance(node.value, ast.Constant) and node.value.value is None)
            tag = ANNOTATION if declared else VALUE
            value = node.annotation if declared else node.value
            _bind_target(scope, node.target, value, tag, _end(node), (), node)
        elif kind is ast.Import:
            for alias in node.names:
                if alias.asname:
                    scope.add(Binding(alias.asname, IMPORT, canonical(alias.name), _end(node), scope, node))
                else:
                    root = alias.name.split(".", 1)[0]
                    scope.add(Binding(root, IMPORT, root, _end(node), scope, node))
        elif kind is ast.ImportFrom:
            module = "." * (node.level or 0) + (node.module or "")
            for alias in node.names:
                if alias.name == "*":
                    self.scopes.star_imports.append(module)
                    continue
                full = f"{module}.{alias.name}" if module and not module.endswith(".") else module + alias.name
                scope.add(Binding(alias.asname or alias.name, IMPORT, canonical(full), _end(node), scope, node))
        elif kind is ast.Expr and type(value) is ast.Call:
            _bind_registered(scope, value, node)
        elif kind is ast.AugAssign:
            if isinstance(node.target, ast.Name):
                binding = Binding(node.target.id, AUGMENT, node.value, _end(node), scope, node)
                scope.augments.setdefault(node.target.id, []).append(binding)
        elif kind in (ast.For, ast.AsyncFor):
            scope.loops.append((_start(node), _end(node)))
            _bind_target(scope, node.target, node.iter, LOOP, _end(node.iter), (), node)
            stack.append((node.body, scope))
            stack.append((node.orelse, scope))
        elif kind in _FUNCTIONS:
            scope.add(Binding(node.name, DEF, node, _end(node), scope, node))
            function = Scope("function", node, scope)
            _bind_params(node, function)
            if scope.kind == "class" and (node.args.posonlyargs or node.args.args):
                if not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list):
                    function.cls = scope
                    function.self_name = (node.args.posonlyargs + node.args.args)[0].arg
                elif node.name in AUTOGRAD_STATIC:   # ``forward(ctx, x)``: ``ctx.n = ...`` read in ``backward``
                    function.ctx_name = (node.args.posonlyargs + node.args.args)[0].arg
            self.scopes.by_node[id(node)] = function
            stack.append((node.body, function))
        elif kind is ast.ClassDef:
            scope.add(Binding(node.name, CLASS, node, _end(node), scope, node))
            body = Scope("class", node, scope)
            self.scopes.by_node[id(node)] = body
            stack.append((node.body, body))
        elif kind in (ast.With, ast.AsyncWith):
            for item in node.items:
                if item.optional_vars is not None:
                    _bind_target(scope, item.optional_vars, item.context_expr, WITH, _end(item.context_expr), (), node)
            stack.append((node.body, scope))
        elif kind is ast.Assert:   # the rest of the block knows what the test proves
            for key, tested, classinfo in isinstance_tests(node.test):
                scope.narrowed.setdefault(key, []).append((_end(node), self.block_end, classinfo, _start(tested), True))
        elif kind is ast.Global:
            scope.globals.update(node.names)
        elif kind is ast.Nonlocal:
            scope.nonlocals.update(node.names)
        elif kind is ast.Delete:
            for target in node.targets:
                if isinstance(target, ast.Name):
                    scope.add(Binding(target.id, DELETE, None, _end(node), scope, node))
        elif kind is ast.If or kind is ast.While:
            if kind is ast.While:
                scope.loops.append((_start(node), _end(node)))
            else:
                for arm, body in enumerate((node.body, node.orelse)):
                    if body:
                        scope.arms.append((id(node), arm, _start(body[0]), _end(body[-1])))
                _narrow(scope, node, self.block_end)
            stack.append((node.body, scope))
            stack.append((node.orelse, scope))
        elif kind is ast.Try or kind.__name__ == "TryStar":
            stack.append((node.body, scope))
            stack.append((node.handlers, scope))
            stack.append((node.orelse, scope))
            stack.append((node.finalbody, scope))
        elif kind is ast.ExceptHandler:
            if node.name:
                scope.add(Binding(node.name, EXCEPT, node.type, _start(node), scope, node))
            stack.append((node.body, scope))
        elif kind.__name__ == "Match":
            for case in node.cases:
                stack.append((case.body, scope))
