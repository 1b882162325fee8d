"""A size picked per step from a list of sizes (multi-scale training without ``random``), for NPU404:
``sizes[step % len(sizes)]``, ``self.scales[i // 10 % n]``, ``sizes[it]`` with ``it`` a loop's counter, or the list
indexed by a random draw (``sizes[np.random.randint(3)]``). The list is what the reviewer's definition names (a
size list); the index says it changes between steps. Nothing here is a rule (session 21)."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import VALUE, Scope

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

_RANDOM_WORDS = ("random", "randint", "randrange", "choice", "rand")


def cycled_size(resolver: "Resolver", args: list[ast.AST], scope: Scope) -> Optional[ast.Subscript]:
    """The ``sizes[...]`` that gives one of ``args`` (directly, in a tuple, or through one name bound in the
    function) a size changing per step, else None."""
    for arg in args:
        for part in _parts(resolver, arg, scope):
            if isinstance(part, ast.Subscript) and _size_list(resolver, part.value, scope) \
                    and _stepping(resolver, part.slice, part.value, scope):
                return part
    return None


def _parts(resolver: "Resolver", arg: ast.AST, scope: Scope) -> list[ast.AST]:
    """``arg``'s subscripts, and those of the values of the names in it (one step; arithmetic kept)."""
    parts: list[ast.AST] = []
    for node in walk(arg):
        if isinstance(node, ast.Subscript):
            parts.append(node)
        elif isinstance(node, ast.Name):
            value = resolver.bound_value(node, scope)
            if value is not None:
                parts.extend(n for n in walk(value) if isinstance(n, ast.Subscript))
    return parts


def _size_list(resolver: "Resolver", node: ast.AST, scope: Scope) -> bool:
    """A list or tuple of sizes: a literal of numbers (or of pairs of numbers), or a name / ``self.x`` not bound
    in the function (a parameter, an attribute: the configured scales), never a tensor."""
    value = resolver.bound_value(node, scope) if isinstance(node, ast.Name) else node
    if isinstance(value, (ast.List, ast.Tuple)):
        return len(value.elts) > 1 and all(_number(e) or (isinstance(e, (ast.Tuple, ast.List))
                                                          and all(_number(x) for x in e.elts)) for e in value.elts)
    if isinstance(value, ast.ListComp):   # ``[s * 32 for s in range(10, 20)]``
        return isinstance(value.generators[0].iter, ast.Call) and getattr(value.generators[0].iter.func, "id",
                                                                          "") == "range"
    return isinstance(node, (ast.Name, ast.Attribute)) and value is None and \
        resolver.kind_of_at(node, scope) is None


def _number(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value,
                                                                                                      bool)


def _stepping(resolver: "Resolver", index: ast.AST, listed: ast.AST, scope: Scope) -> bool:
    """The index changes per step: a modulo by the list's length (cycling through it as the steps go), or a
    random draw. A loop over the sizes themselves (``for i in range(len(scales))``: test-time scales, a few fixed
    shapes each compiled once) is not a step."""
    text = ast.unparse(listed)
    for node in walk(index):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            right = resolver.bound_value(node.right, scope) if isinstance(node.right, ast.Name) else node.right
            if isinstance(right, ast.Call) and getattr(right.func, "id", "") == "len" and right.args \
                    and ast.unparse(right.args[0]) == text:
                return True
        if isinstance(node, ast.Call):
            func = ast.unparse(node.func)
            if "random" in func and any(w in func.rsplit(".", 1)[-1] for w in _RANDOM_WORDS):
                return True
    return False


# torch's draws (``torch.rand(2)``): a value the flows read back as a tensor's (NPU403's), but a draw all the same.
_TORCH_DRAWS = frozenset({"torch.rand", "torch.randint", "torch.randn", "torch.rand_like", "torch.randint_like",
                          "torch.empty.uniform_", "torch.distributions.Uniform"})


def torch_drawn(resolver: "Resolver", args: list[ast.AST], scope: Scope, depth: int = 0) -> Optional[ast.Call]:
    """The ``torch.rand(...)`` a size argument is computed from (``r = lo + (hi - lo) * torch.rand(2)``, ``new_w =
    int(w * r[0])``), through the names bound in the function (three steps), else None."""
    for arg in args:
        for node in walk(arg):
            if isinstance(node, ast.Call) and resolver.qualname(node.func, scope) in _TORCH_DRAWS:
                return node
            if isinstance(node, ast.Name) and depth < 3:
                value = _bound_element(resolver, node, scope)
                if value is not None:
                    found = torch_drawn(resolver, [value], scope, depth + 1)
                    if found is not None:
                        return found
    return None


def _bound_element(resolver: "Resolver", name: ast.Name, scope: Scope) -> Optional[ast.AST]:
    """The value ``name`` is bound to, also an element of a tuple unpacked (``nh, nw = int(h * r[0]), ...``)."""
    binding = resolver.binding(name, scope)
    if binding is None or binding.tag != VALUE or not isinstance(binding.value, ast.AST):
        return None
    if not binding.path:
        return binding.value
    if len(binding.path) == 1 and isinstance(binding.value, (ast.Tuple, ast.List)) \
            and binding.path[0] < len(binding.value.elts):
        return binding.value.elts[binding.path[0]]
    return None
