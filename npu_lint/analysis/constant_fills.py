"""Tensors the code fills with constants (session 25, precision25): ``torch.ones(n, n)`` / ``zeros`` / ``full`` of
sizes no tensor's value decides, written afterwards (when bound to a name) only with constants at positions the
configuration gives (``mask = torch.ones(h); mask[list(self.pruned_heads)] = 0``; ``m = torch.ones(w, w);
m[:-e, :-e] = 0``), and the joins of such tensors (``torch.stack((m1, m2))``). Their values are the same at every
call, so a boolean mask or a ``nonzero`` over them has a count the configuration fixes (Hugging Face's pruned
heads, Swin-style window masks, the upper triangle's positions ``torch.ones(n, n).triu().nonzero()``):
:func:`npu_lint.analysis.configuration.from_constants` asks it before judging such a tensor a buffer the data
fills (``counts = torch.zeros(b)`` then ``counts.scatter_add_(...)`` or ``counts[idx] = 1`` at data positions
stays data)."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.in_place import written_in_place
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import PARAM, Binding, Scope

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

FILLED = frozenset("torch." + name for name in ("ones", "zeros", "full"))
JOINED = frozenset("torch." + name for name in ("stack", "cat", "concat"))
_OPTIONS = frozenset({"dtype", "device", "requires_grad", "layout", "pin_memory"})


def _host_value(node: ast.AST, resolver: "Resolver", scope: Scope) -> bool:
    """No tensor and no value read back from one, a random draw or a batch maximum: sizes, settings, constants."""
    parts = [n for n in walk(node) if isinstance(n, (ast.Name, ast.Attribute, ast.Subscript, ast.Call))]
    return all(resolver.kind_of_at(n, scope) not in K.TENSORS and not resolver.flows(n, scope, sink=False)
               for n in parts)   # each part: a slice's bounds too (``g[top:top + h] = True``, ``top`` drawn)


def _constant(value: ast.AST) -> bool:
    if isinstance(value, ast.UnaryOp):
        value = value.operand
    return isinstance(value, ast.Constant) and isinstance(value.value, (bool, int, float))


def _positions(index: ast.AST) -> bool:
    """Positions read from settings: constants, names, attributes, slices and arithmetic of them, ``list(...)`` /
    ``tuple(...)`` / ``range(...)`` of them; no other call (``idx.argmax(-1)`` computes them)."""
    for node in walk(index):
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name)
                                               and node.func.id in ("list", "tuple", "range", "len", "int")):
            return False
    return True


def _passed_in(index: ast.AST, resolver: "Resolver", scope: Scope) -> bool:
    """A position a caller gives (a parameter other than ``self``, outside a constructor, and not a slice's bound,
    ``m[:-e] = 0``): what a caller passes may be the data's positions."""
    if getattr(scope.node, "name", "") == "__init__":
        return False
    bounds = {id(n) for s in walk(index) if isinstance(s, ast.Slice) for n in walk(s)}
    for node in walk(index):
        if isinstance(node, ast.Name) and node.id != scope.self_name and id(node) not in bounds:
            binding = resolver.binding(node, scope)
            if binding is not None and binding.tag == PARAM:
                return True
    return False


def _handed_on(binding: Binding, resolver: "Resolver") -> bool:
    """A call later writes into the tensor or may: any in-place operator on it but a constant fill
    (``keep.logical_or_(matches)``), or a call given it first (``dist.all_reduce(m)``, ``fill(m)``)."""
    for call in resolver.scopes.calls_on(binding.scope, binding.name):
        if call.lineno < binding.pos[0]:
            continue
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == binding.name:
            if func.attr.endswith("_") and not (func.attr in ("fill_", "zero_")
                                                and all(_constant(a) for a in call.args)):
                return True
            continue   # ``m.view(-1)``: a read
        if isinstance(call.args[0], ast.Name):
            return True   # handed to a call as its first argument
    return False


def _accumulated(binding: Binding) -> bool:
    """``rates[:, i] += torch.sum(x, 1)`` (or ``rates += x``) later in the tensor's scope: an in-place update by a
    value that is no constant, the data's values accumulated into the buffer (session 33: bindsnet's firing rates)."""
    node = binding.scope.node
    if node is None:
        return False
    for statement in walk(node):
        if type(statement) is not ast.AugAssign or statement.lineno < binding.pos[0] or _constant(statement.value):
            continue
        target = statement.target
        while isinstance(target, ast.Subscript):
            target = target.value
        if isinstance(target, ast.Name) and target.id == binding.name:
            return True
    return False


def constant_filled(call: ast.Call, binding: Optional[Binding], resolver: "Resolver", scope: Scope) -> bool:
    """``call`` makes a tensor of constants of sizes no tensor value decides, and, when ``binding`` names it, every
    later write into it stores a constant at configured positions (memoised per call)."""
    key = ("constant filled", id(call), id(binding))
    found = resolver._summaries.get(key)
    if found is None:
        found = resolver._summaries[key] = _filled(call, binding, resolver, scope)
    return bool(found)


def _filled(call: ast.Call, binding: Optional[Binding], resolver: "Resolver", scope: Scope) -> bool:
    sizes = list(call.args) + [kw.value for kw in call.keywords if kw.arg not in _OPTIONS]
    if not sizes or not all(_host_value(a, resolver, scope) for a in sizes):
        return False
    if binding is None:
        return True
    if written_in_place(binding, resolver) or resolver.scopes is None or _handed_on(binding, resolver) \
            or _accumulated(binding):
        return False
    for target, value in resolver._stored_items(binding.scope).get(binding.name, ()):
        if binding not in resolver.scopes.lookup_reaching(binding.name, binding.scope,
                                                          (target.lineno, target.col_offset)):
            continue
        if not _constant(value) or not _positions(target.slice) or _passed_in(target.slice, resolver, binding.scope) \
                or not _host_value(target.slice, resolver, binding.scope):
            return False   # ``m[idx] = 1`` at positions a tensor gives, or a value of the data stored
    return True
