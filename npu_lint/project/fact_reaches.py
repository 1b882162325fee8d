"""What a function's returned value is computed from, for the project index: the calls in returned position
(``return keep``, ``output[i] = pred[keep]`` then ``return output``, ``keep = []`` grown by ``append`` then
returned), a boolean-mask selection on the way, and tensor methods -- so that a call of a helper in another module
that returns the result of a data-dependent op (an NMS helper returning a list of per-image detections) is known at
its calls. The candidates are names; the index judges them against the rule tables when asked (the facts stay
independent of the tables). A mixin of :class:`~npu_lint.project.facts.Extractor`."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from npu_lint.analysis import kinds as K
from npu_lint.analysis.data_shapes import SCALAR_BUILTINS, SHAPE_FREE, selects_by_mask
from npu_lint.analysis.summaries import return_statements
from npu_lint.project.fact_types import LITERAL, MASK_SELECTION, ONE_ARGUMENT
from npu_lint.analysis.nodes import body_of

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_BUDGET = 200     # nodes looked at per function
_MOST = 12        # candidates kept per function
# Calls whose result no longer has the shape of what they are given (a number, a reduction).
_SCALAR_BUILTINS = SCALAR_BUILTINS | {"isinstance"}
_SHAPE_FREE = SHAPE_FREE | {"max", "min", "argmax", "argmin", "norm", "count_nonzero"}   # full reductions too
# Calls whose result has the length of an index they are given (``x.index_select(0, keep)``: one row per index):
# the position of the index among a method's and a function's arguments.
_INDEX_METHODS = {"index_select": 1, "take": 0, "gather": 1, "take_along_dim": 0}
_INDEX_FUNCTIONS = {"torch." + name: position + 1 for name, position in _INDEX_METHODS.items()}
# Calls that join what they are given (their arguments are what they return).
_JOINS = frozenset({"torch.cat", "torch.concat", "torch.stack", "torch.tensor", "torch.as_tensor", "torch.hstack",
                    "torch.vstack", "list", "tuple"})


class ReachFacts:
    """``reaches`` of a function (needs ``resolver``, ``_name_parts`` and ``module_scope`` of the extractor)."""

    resolver: "Resolver"

    def reaches(self, function: ast.AST) -> list[tuple[str, str, str]]:
        """``(marker, root, rest)`` of what the returned values are computed from: '' for a call of ``root.rest``
        (resolved with the module), :data:`LITERAL` with ``rest`` the name itself (``torch.Tensor.nonzero``,
        :data:`MASK_SELECTION`)."""
        scope = self.resolver.scopes.scope_of(function) if self.resolver.scopes is not None else None
        if scope is None:
            return []
        stack: list[ast.AST] = []
        for statement in return_statements(function):
            if statement.value is not None:
                stack.append(statement.value)
        found: list[tuple[str, str, str]] = []
        seen: set[int] = set()
        budget = _BUDGET
        while stack and budget and len(found) < _MOST:
            budget -= 1
            node = stack.pop()
            kind = type(node)
            if kind is ast.Name:
                self._follow(node, scope, function, stack, seen)
                continue
            if kind is ast.Call:
                func = node.func
                if type(func) is ast.Name and func.id in _SCALAR_BUILTINS and self.resolver.binding(func, scope) is None:
                    continue   # ``len(keep)``: a Python number
                name = self.resolver.qualname(func, scope)
                if type(func) is ast.Attribute and name is None:
                    if func.attr in _SHAPE_FREE:
                        continue
                    receiver = self.resolver.value_of(func.value, scope)
                    if receiver is not None and receiver[0] in K.TENSORS:
                        found.append((LITERAL, "", "torch.Tensor." + func.attr))
                    stack.append(func.value)   # ``x[keep].float()``: what the method runs on
                    stack.extend(_index_argument(node, _INDEX_METHODS.get(func.attr)))
                    continue
                root, rest, _ = self._name_parts(func)
                if root:
                    if name == "torch.where" and len(node.args) == 1 and not node.keywords:
                        rest += ONE_ARGUMENT   # ``torch.where(cond)``: its data-dependent form
                    found.append(("", root, rest))
                if name in _JOINS or (name is None and type(func) is ast.Name and func.id in _JOINS):
                    stack.extend(node.args)   # ``torch.cat(parts)``: the parts are what is returned
                elif name in _INDEX_FUNCTIONS:
                    stack.extend(_index_argument(node, _INDEX_FUNCTIONS[name]))
                continue   # another call's arguments are not what it returns (``torch.argmax(x[m])``)
            if kind is ast.Subscript:
                if selects_by_mask(self.resolver, node, scope):
                    found.append((LITERAL, "", MASK_SELECTION))
                if not isinstance(node.slice, (ast.Slice, ast.Tuple, ast.Constant)):
                    stack.append(node.slice)   # ``pred[keep]``: the rows an index picks (its length is theirs)
                    if self.resolver.value_of(node.value, scope) in ((K.LIST, None),):
                        continue   # ``outputs[i]``: one element of a list
                stack.append(node.value)
                continue
            if kind in (ast.Tuple, ast.List, ast.IfExp, ast.BoolOp, ast.Starred, ast.ListComp, ast.GeneratorExp):
                stack.extend(_values_of(node))
        return found

    def _follow(self, name: ast.Name, scope, function: ast.AST, stack: list[ast.AST], seen: set[int]) -> None:
        """A name bound in the function: its values, the items appended to it, and those assigned into it."""
        for binding in self.resolver.scopes.may_reach(name.id, scope, (name.lineno, name.col_offset)):
            if binding.scope is not scope or id(binding) in seen or binding.tag not in ("value", "augment"):
                continue
            seen.add(id(binding))
            value = binding.value
            if isinstance(value, ast.AST):
                if binding.path and isinstance(value, ast.Tuple) and 0 <= binding.path[0] < len(value.elts):
                    value = value.elts[binding.path[0]]
                stack.append(value)
            if isinstance(value, (ast.List, ast.BinOp)):   # ``keep = []``, ``out = [None] * n``: what fills it
                stack.extend(_filled(name.id, function))


def _index_argument(call: ast.Call, position) -> list[ast.AST]:
    """The index a gathering call is given (``x.index_select(0, keep)``: ``keep``), at ``position`` or as ``index=``."""
    if position is None:
        return []
    if position < len(call.args):
        return [call.args[position]]
    return [kw.value for kw in call.keywords if kw.arg == "index"]


def _values_of(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, (ast.Tuple, ast.List)):
        return list(node.elts)
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.Starred):
        return [node.value]
    return [node.elt]   # a comprehension: its element


def _filled(name: str, function: ast.AST) -> list[ast.AST]:
    """``name.append(x)`` / ``name.extend(xs)`` / ``name[i] = x`` / ``name += [x]`` in the function's own body."""
    items: list[ast.AST] = []
    for statement in _own_statements(function):
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            func = statement.value.func
            if isinstance(func, ast.Attribute) and func.attr in ("append", "extend") and isinstance(func.value, ast.Name) \
                    and func.value.id == name and len(statement.value.args) == 1:
                items.append(statement.value.args[0])
        elif isinstance(statement, ast.Assign) and any(
                isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name
                for t in statement.targets):
            items.append(statement.value)
        elif isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name) \
                and statement.target.id == name:
            items.append(statement.value)
    return items


def _own_statements(function: ast.AST):
    """Every statement of a function's own body (not of nested functions or classes)."""
    stack = list(body_of(function))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        yield node
        for field in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(getattr(node, field, ()) or ())
        for case in getattr(node, "cases", ()) or ():   # ``match``: each case's body
            stack.extend(case.body)
