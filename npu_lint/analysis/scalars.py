"""Python numbers by their look: the expressions that give an ``int`` or a ``float`` whatever their operands are
(``len(xs)``, ``x.size(0)``, ``x.shape[0]``, ``x.dim()``, ``int(t)``, ``t.item()``). Shared by the resolver's
comparisons (``n == 0`` is a Python bool, not a mask) and its ``isinstance`` narrowing (``size = x.size(d)`` is
never a tensor)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.declared import PYTHON_SCALARS
from npu_lint.analysis.scopes import VALUE, Binding
from npu_lint.analysis.bindings import AUGMENT, LOOP

_NUMBER_CALLS = frozenset({"int", "float", "round"})
_NUMBER_METHODS = frozenset({"item", "nelement", "ndimension", "element_size"})


# Python's ``random`` module's draws of a number (session 24, precision24): a host float or int, never a tensor
_PYTHON_DRAWS = frozenset("random." + name for name in (
    "random", "uniform", "randint", "randrange", "gauss", "normalvariate", "lognormvariate", "expovariate",
    "betavariate", "gammavariate", "triangular", "vonmisesvariate", "paretovariate", "weibullvariate", "getrandbits"))


def python_draw(node: ast.AST, resolver: "object", scope: "Optional[object]" = None) -> bool:
    """``random.random()``, ``random.uniform(a, b)`` (also ``from random import random``): a number drawn by Python's
    own generator on the host, a Python number whatever it is compared with (no tensor, no value of the data)."""
    return isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)) \
        and resolver.qualname(node.func, scope) in _PYTHON_DRAWS   # type: ignore[attr-defined]


_COUNTING = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift)


def counted_number(node: ast.AST, resolver: "object", scope: "object", depth: int = 0) -> bool:
    """A Python number by its construction (session 24, precision24), whatever the look of its name: a ``range``
    loop's counter or ``enumerate``'s index (``for i in range(n)``, ``for i, x in enumerate(xs)``), a name bound
    only to int constants and counted up (``n_step = 0`` ... ``n_step += 1``), an element of ``divmod(...)`` (no
    tensor has ``__divmod__``), Python's random draw, and integer arithmetic on one of these with numbers or
    settings (``n_step % cfg.k``): compared with numbers it is a Python bool, not a mask (compared with a value of
    unknown kind, ``batch_idx == b``, it may be a tensor's comparison: a mask)."""
    if depth > 3:
        return False
    if python_draw(node, resolver, scope):
        return True
    if isinstance(node, ast.BinOp):   # ``n_step % cfg.N``: a counter with a counter, a number or a setting
        sides = (node.left, node.right)
        return isinstance(node.op, _COUNTING) and any(counted_number(side, resolver, scope, depth + 1)
                                                      for side in sides) \
            and all(counted_number(side, resolver, scope, depth + 1) or python_number(side) or (
                isinstance(side, ast.Attribute) and _not_tensor(side, resolver, scope)) for side in sides)
    scopes = getattr(resolver, "scopes", None)
    if not isinstance(node, ast.Name) or scopes is None:
        return False
    bindings = scopes.may_reach(node.id, scope, (node.lineno, node.col_offset))
    return bool(bindings) and all(_counted_binding(b, resolver, depth) for b in bindings)


def _not_tensor(node: ast.AST, resolver: "object", scope: "object") -> bool:
    value = resolver.value_of(node, scope)   # type: ignore[attr-defined]
    return value is None or value[0] not in K.TENSORS


def _counted_binding(binding: Binding, resolver: "object", depth: int) -> bool:
    value, tag, path = binding.value, binding.tag, binding.path
    if tag == LOOP:
        return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and (
            (value.func.id == "range" and not path) or (value.func.id == "enumerate" and tuple(path) == (0,)))
    if tag in (VALUE, AUGMENT) and not path:
        return isinstance(value, ast.Constant) and type(value.value) is int or (
            tag == AUGMENT and isinstance(value, ast.Constant) and type(value.value) in (int, float))
    if tag == VALUE and path and len(path) == 1 and isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
            and value.func.id == "divmod" and getattr(resolver, "binding")(value.func, binding.scope) is None:
        return True
    return False


def length_call(node: ast.AST) -> bool:
    """``len(xs)``: a Python int, whatever its argument (``float('-inf')`` is compared with tensors too)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"


def size_read(node: ast.AST) -> bool:
    """``x.shape[0]``, ``x.ndim``, ``x.dim()``, ``x.numel()``, ``x.size(0)``: a size read as a Python int."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        return True
    return isinstance(node, ast.Attribute) and node.attr == "ndim" or isinstance(node, ast.Call) and isinstance(
        node.func, ast.Attribute) and node.func.attr in ("dim", "numel", "size") and len(node.args) == (
        node.func.attr == "size")


def scalar(node: ast.AST, value: Optional[K.Value]) -> bool:
    """A Python number or string: a constant, ``len(xs)``, a size read (``x.shape[0]``, ``x.size(1)``), a name
    annotated ``int``/``float``/``str``..."""
    return size_read(node) or (isinstance(node, ast.Constant) and not isinstance(node.value, type(...))) \
        or length_call(node) or (value is not None and value[0] == K.OBJECT and value[1] in PYTHON_SCALARS)


def number_parameter(binding: Binding) -> bool:
    """A parameter annotated ``int`` / ``float`` or defaulting to a number (not a bool): a setting its callers give."""
    annotation = getattr(binding.node, "annotation", None)
    return (isinstance(annotation, ast.Name) and annotation.id in ("int", "float")) or (
        isinstance(binding.value, ast.Constant) and isinstance(binding.value.value, (int, float))
        and not isinstance(binding.value.value, bool))


def python_number(node: ast.AST) -> bool:
    """An expression that gives a Python number: a numeric constant, a size read, ``len`` / ``int`` / ``float`` /
    ``round`` of anything, ``t.item()``."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if size_read(node) or length_call(node):
        return True
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Name) and func.id in _NUMBER_CALLS) or (
        isinstance(func, ast.Attribute) and func.attr in _NUMBER_METHODS)


def moved_to_host(binding: "Binding") -> bool:
    """``x = x.cpu()`` (``x.cpu().float()``, not ``.numpy()``): the name's own tensor moved to the host by its look.
    Under a condition (``if mode == "cpu":``, an OOM fallback) with another binding of the name reaching the use, the
    value is on the device on the path that skips it."""
    value = binding.value
    if binding.tag != VALUE or binding.path or not isinstance(value, ast.Call):
        return False
    moved = False
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        if value.func.attr in ("numpy", "tolist", "item"):
            return False   # ``if isinstance(x, Tensor): x = x.cpu().numpy()``: made host data on every path
        moved = moved or value.func.attr == "cpu"
        value = value.func.value
    return moved and isinstance(value, ast.Name) and value.id == binding.name
