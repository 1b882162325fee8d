"""Configuration, not data: tensors whose values the code fixes (``torch.tensor(config.depths)``, ``x.new_tensor(
self.num_grids)``, a buffer or an attribute a module sets only in ``__init__``), and arrays numpy made. The data flows
(:mod:`npu_lint.analysis.flows`) and the data roots (:mod:`npu_lint.analysis.data_tensors`) ask them."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from npu_lint.analysis import kinds as K
from npu_lint.analysis.names import rooted
from npu_lint.analysis.scopes import VALUE, Scope

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_DEPTH = 30


def numpy_made(receiver: ast.AST, resolver: "Resolver", scope: Scope, depth: int = 0) -> bool:
    """The receiver chain starts at a numpy or pandas call (``np.argsort(strides).tolist()``), directly or through
    a name bound once to one: host data, not a tensor's (``x.cpu().numpy().tolist()`` is a tensor's)."""
    node = receiver
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        if isinstance(node, ast.Call):
            name = resolver.qualname(node.func, scope) if isinstance(node.func, (ast.Name, ast.Attribute)) else None
            if name is not None:   # ``np.asarray(x.sum().cpu())`` wraps a tensor's data: no numpy-made array
                return rooted(name, ("numpy", "pandas")) and not any(
                    (value := resolver.value_of(a, scope)) is not None and (value[0] in K.TENSORS
                                                                            or value[1] == K.CPU_TENSOR)
                    for a in node.args)
            node = node.func
        node = node.value if isinstance(node, (ast.Attribute, ast.Subscript)) else node
    if isinstance(node, ast.Name) and depth < 3 and resolver.scopes is not None:
        bindings = resolver.scopes.may_reach(node.id, scope, (node.lineno, node.col_offset))
        return len(bindings) == 1 and bindings[0].tag == VALUE and not bindings[0].path \
            and isinstance(bindings[0].value, ast.AST) and numpy_made(bindings[0].value, resolver, bindings[0].scope,
                                                                        depth + 1)
    return False


def from_constants(receiver: ast.AST, resolver: "Resolver", scope: Scope) -> bool:
    """The receiver chain starts (through names bound once) at ``torch.tensor(...)`` / ``torch.as_tensor(...)`` /
    ``x.new_tensor(...)`` of a value that is no tensor and carries no value read from one (configuration), or at
    an attribute of a model that the code never binds (a buffer such as ``model.stride``)."""
    called = False   # ``receiver`` is the callee of the previous step (a method, not an attribute read)
    fed = False      # a call on the chain takes non-constant arguments
    for _ in range(_DEPTH):
        if isinstance(receiver, ast.Name):   # ``grid = x.new_tensor(cfg.grids).cumsum(0)`` earlier
            binding = resolver.binding(receiver, scope)
            if binding is None or binding.tag != VALUE or binding.path:
                return False
            receiver, scope = binding.value, binding.scope
            continue
        if not isinstance(receiver, (ast.Call, ast.Attribute, ast.Subscript)):
            return False
        if isinstance(receiver, ast.Attribute) and not called and not fed \
                and resolver.kind_of_at(receiver.value, scope) == K.MODULE and (
                    resolver.kind_of_at(receiver, scope) is None or not _self(receiver.value, resolver, scope)):
            return True   # ``int(model.stride.max())``: an attribute of a model (a buffer, a parameter, its
                          # configuration) read from outside its class: model state, not the batch's data
        if isinstance(receiver, ast.Attribute) and not called and not fed and built_state(receiver, resolver, scope):
            return True   # ``int(self.stride.max())``: model state set once, when the module is built
        if isinstance(receiver, ast.Call) and (
                resolver.qualname(receiver.func, scope) in ("torch.tensor", "torch.as_tensor")
                or (isinstance(receiver.func, ast.Attribute) and receiver.func.attr == "new_tensor")):
            value = receiver.args[0] if receiver.args else None
            return value is not None and resolver.kind_of_at(value, scope) not in K.TENSORS \
                and not isinstance(value, (ast.ListComp, ast.GeneratorExp)) \
                and not resolver.flows(value, scope, sink=False)   # ``[t.shape[0] for t in batch]``: data
        if isinstance(receiver, ast.Call) and receiver.args and isinstance(receiver.func, ast.Attribute) \
                and (resolver.qualname(receiver.func, scope) or "").startswith("torch."):
            receiver = receiver.args[0]   # ``torch.cumsum(dims, 0)``: computed from its first argument
            continue
        called = isinstance(receiver, ast.Call)
        if called and any(not isinstance(a, ast.Constant) for a in receiver.args):
            fed = True   # ``self.codec.encoded_length(lengths)``: computed from its arguments, not read from the model
        receiver = receiver.func if called else receiver.value
    return False


def _self(node: ast.AST, resolver: "Resolver", scope: Scope) -> bool:
    return isinstance(node, ast.Name) and resolver.scopes is not None and node.id == resolver.scopes.self_name(scope)


def built_state(node: ast.Attribute, resolver: "Resolver", scope: Scope) -> bool:
    """``self.stride`` of an object (a model, a loss) whose class sets it only in ``__init__``: fixed when the
    object is built (a buffer of strides or anchors), the same value for every batch."""
    if not isinstance(node.value, ast.Name) or resolver.scopes is None \
            or node.value.id != resolver.scopes.self_name(scope):
        return False
    bindings = resolver.scopes.attribute(scope, node.attr)
    return bool(bindings) and all(getattr(b.scope.node, "name", None) == "__init__" for b in bindings)
