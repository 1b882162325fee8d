"""Tensors torch computes from host numbers alone (``torch.div(h, 2, rounding_mode="floor")`` of a shape's numbers,
``torch.tensor(n)`` of a count): reading one back gives a value the host already knew, no value of the data. Code
written for TorchScript does its shape arithmetic this way (``int(torch.div(h, 2))``)."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from npu_lint.analysis import kinds as K
from npu_lint.analysis.scopes import Scope

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

# torch's generators: a draw is a new value each time (a random size), never a host number's copy.
_DRAWS = frozenset("torch." + name for name in (
    "rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial", "poisson", "rand_like",
    "randn_like", "randint_like"))


def host_made(resolver: "Resolver", node: ast.AST, scope: Scope) -> bool:
    """``node`` calls a torch function (not a tensor's method, not a draw) with at least one argument, every
    argument of which is no tensor and carries no value read from one (``resolver.flows`` finds nothing, a 0-d tensor of unknown kind included)."""
    if not isinstance(node, ast.Call) or not node.args:
        return False
    name = resolver.qualname(node.func, scope) or ""
    if not name.startswith("torch.") or name.startswith("torch.Tensor.") or name in _DRAWS:
        return False
    arguments = list(node.args) + [keyword.value for keyword in node.keywords]
    return all(resolver.kind_of_at(a, scope) not in K.TENSORS and not isinstance(a, ast.Starred)
               and not resolver.flows(a, scope, sink=True) for a in arguments)
