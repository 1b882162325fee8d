"""Fields of data objects (session 25, fields25): what a field holds is what the project stores in it.

Two links the model follows wherever they appear:

- ``per_call_record``: an instance of a project class (no module) that the file builds only inside functions other
  than ``__init__`` (``CacheView(k, v, metadata, kv_seqlens)`` in ``get_view``, ``Meta(mask=m)`` per step) is a
  record of one call's data, not state fixed when a model is built: the attributes its ``__init__`` copies from its
  parameters (``self.metadata = metadata``) hold what each construction passes, which may be the batch's data.
  ``configuration.built_state`` asks it before calling such an attribute model state.
- ``store_verdict``: what one store of a field holds by construction (``data.valid = labels != 0`` a mask,
  ``self.m = self.m.to(dev)`` the field itself again), read syntactically from the stored expression; the project
  index keeps every store of every field name (``ModuleFacts.fields``) so that a field read on a receiver of unknown
  class (``self.input.instance_mask``, a batch filled by a dataset in another module) is a mask when EVERY store of
  that field name in the project is one and at most one class stores it (``ProjectView.field_verdict``). The name's
  spelling decides nothing: the stored constructions do; one store of another kind, or two classes, and it is
  unknown.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Callable, Iterable, Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.scopes import NONE, PARAM, Binding, Scope, enclosing_class

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

MASK, SELF = "mask", "self"
CONSTRUCTED = "()"   # the class of a store made by a construction, ``Meta(mask=m)``: "()" + the callee's name
# Calls that make a mask of their operands (functions or methods).
_BOOL_CALLS = frozenset({"isnan", "isinf", "isfinite", "isneginf", "isposinf", "isclose", "isin", "logical_and",
                         "logical_or", "logical_not", "logical_xor", "bool", "eq", "ne", "gt", "ge", "lt", "le"})
# Calls that keep what their receiver (or first argument) holds: moves, views, copies.
_KEEPING = frozenset({"to", "cuda", "npu", "cpu", "detach", "clone", "contiguous", "view", "reshape", "flatten",
                      "squeeze", "unsqueeze", "as_tensor", "from_numpy"})
_FACTORIES = frozenset({"tensor", "as_tensor", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
                        "empty_like", "full_like"})
_DEPTH = 6


def store_verdict(value: Optional[ast.AST], attr: str, depth: int = 0) -> str:
    """``"mask"`` when the stored value is a mask by construction, ``"self"`` when it is the same field again through
    moves and views (``x.valid = x.valid.to(device)``: neutral), ``""`` for anything else (unknown)."""
    if value is None or depth > _DEPTH:
        return ""
    if isinstance(value, ast.Constant) and value.value is None:
        return SELF   # ``self.mask = None`` / ``mask: Optional[Tensor] = None``: no kind, neutral
    if isinstance(value, ast.Compare):
        if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in value.ops) \
                or all(isinstance(o, ast.Constant) for o in (value.left, *value.comparators)):
            return ""
        return MASK
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Invert):
        return "" if isinstance(value.operand, ast.Constant) else MASK
    if isinstance(value, ast.Attribute):
        return SELF if value.attr == attr else ""
    if not isinstance(value, ast.Call):
        return ""
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name in _BOOL_CALLS:
        return MASK
    if name in _FACTORIES and any(k.arg == "dtype" and _is_bool(k.value) for k in value.keywords):
        return MASK   # ``torch.tensor(flags, dtype=torch.bool)``
    if name in _KEEPING:
        if name == "to" and any(_is_bool(a) for a in (*value.args, *(k.value for k in value.keywords))):
            return MASK   # ``m.to(torch.bool)``, ``m.to(dtype=torch.bool)``
        inner = func.value if isinstance(func, ast.Attribute) and name not in ("as_tensor", "from_numpy") \
            else (value.args[0] if value.args else None)
        return store_verdict(inner, attr, depth + 1)
    return ""


def _is_bool(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "bool") or (isinstance(node, ast.Name)
                                                                          and node.id == "bool")


def per_call_record(binding: Binding, resolver: "Resolver") -> bool:
    """``self.x = param`` in the ``__init__`` of a project class that is no module and that the file builds only
    inside functions other than ``__init__`` (at least one construction seen): the attribute holds what each call
    passes (a record of one call's data), not state fixed when a model is built."""
    if binding.tag == PARAM or not isinstance(binding.value, ast.Name):
        return False
    if getattr(binding.scope.node, "name", None) != "__init__":
        return False
    source = resolver.binding(binding.value, binding.scope)
    if source is None or source.tag != PARAM or not built_per_call(binding.scope, resolver):
        return False
    return _passes_data(binding.scope.node, binding.value.id, resolver)


def _passes_data(init: ast.AST, parameter: str, resolver: "Resolver") -> bool:
    """Every construction passes the parameter a tensor or an instance of a project class (a record of the call:
    ``CacheView(k, v, metadata, kv_seqlens)``), not settings or loaders handed to a factory (memoised)."""
    memo = resolver._summaries
    key = ("record parameter", id(init), parameter)
    known = memo.get(key)
    if known is None:
        known = memo[key] = _passed_data(init, parameter, resolver)
    return known


def _passed_data(init: ast.AST, parameter: str, resolver: "Resolver") -> bool:
    from npu_lint.analysis.index_forms import passed_argument
    args = init.args
    arg = next((a for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.arg == parameter), None)
    if arg is None:
        return False
    sites = resolver.call_sites(init)
    for call, scope, offset in sites:
        passed = passed_argument(call, init, arg, offset)
        value = resolver.value_of(passed, scope) if passed is not None else None
        if value is None or not (value[0] in K.TENSORS or (value[0] == K.OBJECT and value[1]
                                                           and not value[1].startswith("builtins."))):
            return False
    return bool(sites)


def built_per_call(scope: Scope, resolver: "Resolver") -> bool:
    """The class of the method ``scope`` is no module and the file constructs it only inside functions other than
    ``__init__`` (memoised per class)."""
    cls = enclosing_class(scope)
    if cls is None:
        return False
    memo = resolver._summaries
    key = ("per call record", id(cls))
    known = memo.get(key)
    if known is None:
        known = memo[key] = _built_per_call(cls, resolver)
    return known


def _built_per_call(cls: ast.ClassDef, resolver: "Resolver") -> bool:
    value = resolver.class_value(cls)
    if value is None or value[0] != K.OBJECT:
        return False
    init = next((c for c in cls.body if isinstance(c, ast.FunctionDef) and c.name == "__init__"), None)
    if init is None:
        return False
    sites = resolver.call_sites(init)
    if not sites:
        return False
    for _, scope, _ in sites:
        function = scope
        while function is not None and function.kind not in ("function",):
            function = function.parent
        if function is None or getattr(function.node, "name", None) == "__init__":
            return False   # built at module level or when another object is built: state
    return True


_SEEN_MASK, _SEEN_SELF, _SEEN_OTHER = 1, 2, 4   # what the stores of a field were, as bits (a run holds 100,000s)
_MANY = ""   # a field stored by two classes or more


def field_verdicts(modules: Iterable[tuple[tuple[str, str, str], ...]],
                   resolve_class: Optional[Callable[[str], Optional[str]]] = None) -> dict:
    """Field name -> "mask" when every store of it in the project is a mask by construction or the field again
    (at least one a mask) and at most one class stores it (by the code: ``self.x`` in its methods, its body, its
    constructions). And (class, field name) -> "mask" when every store the code says is that class's (``self.x`` in
    its methods, ``Cls(x=...)``) is one. Only the masks are kept: any other field's verdict is None."""
    seen: dict[str, int] = {}
    owner: dict[str, str] = {}   # field -> the one class storing it, or _MANY
    per_class: dict[tuple[str, str], int] = {}   # (class, attr): the stores the code says are that class's
    for stores in modules:
        for attr, verdict, cls in stores:
            if cls.startswith(CONSTRUCTED):
                cls = resolve_class(cls[len(CONSTRUCTED):]) if resolve_class is not None else None
                if cls is None:
                    continue   # a call of a function or of another library's class: no field stored
            bit = _SEEN_MASK if verdict == MASK else _SEEN_SELF if verdict == SELF else _SEEN_OTHER
            seen[attr] = seen.get(attr, 0) | bit
            if cls:
                known = owner.get(attr)
                owner[attr] = cls if known is None or known == cls else _MANY
                per_class[(cls, attr)] = per_class.get((cls, attr), 0) | bit
    found: dict = {attr: MASK for attr, bits in seen.items()
                   if bits & _SEEN_MASK and not bits & _SEEN_OTHER and owner.get(attr) != _MANY}
    found.update((key, MASK) for key, bits in per_class.items() if bits & _SEEN_MASK and not bits & _SEEN_OTHER)
    return found


def set_per_call(node: ast.Attribute, resolver: "Resolver", scope: Scope) -> bool:
    """``self.input`` that the class assigns in a method other than ``__init__`` (``set_input(self, data)``:
    ``self.input = data``) and never in ``__init__``: an object the run replaces per call (its fields are that call's
    data), not a model's own state."""
    if resolver.scopes is None:
        return False
    bindings = resolver.scopes.attribute(scope, node.attr)
    names = {getattr(b.scope.node, "name", None) for b in bindings if b.tag != NONE}   # ``self.input = None``
    return bool(names) and "__init__" not in names


def constructed_field(resolver: "Resolver", node: ast.ClassDef, attr: str, depth: int) -> Optional[K.Value]:
    """What the file's constructions of a record class with no ``__init__`` of its own (a dataclass, a NamedTuple:
    ``Meta(positions=p, to_cache_mask=m)``, or positionally in field order) pass for its field ``attr``: the kinds
    every construction agrees on (None when one passes something unknown, leaves it out or there is none).
    Memoised per class and field."""
    memo = resolver._summaries
    key = ("constructed field", id(node), attr)
    if key in memo:
        return memo[key]
    memo[key] = None   # (a construction passing the field of another record of the class: no cycle)
    memo[key] = value = _constructed_field(resolver, node, attr, depth)
    return value


def _constructed_field(resolver: "Resolver", node: ast.ClassDef, attr: str, depth: int) -> Optional[K.Value]:
    if any(isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef)) and c.name in ("__init__", "__new__")
           for c in node.body) or resolver.scopes is None:
        return None
    fields = [c.target.id for c in node.body if isinstance(c, ast.AnnAssign) and isinstance(c.target, ast.Name)]
    if attr not in fields:
        return None
    own_base = any(isinstance(b, ast.Name) and isinstance(resolver.definition(b, resolver.scopes.module), ast.ClassDef)
                   for b in node.bases)   # a base record's fields come first: positions say nothing then
    position = None if own_base else fields.index(attr)
    values: list[Optional[K.Value]] = []
    for call, scope in construction_sites(resolver, node):
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        passed = next((k.value for k in call.keywords if k.arg == attr), None)
        if passed is None and position is not None and position < len(call.args):
            passed = call.args[position]
        if passed is None:
            return None   # left to its default, or unknown
        values.append(resolver.value_of(passed, scope, depth + 1))
    return K.join(values) if values else None


def construction_sites(resolver: "Resolver", node: ast.ClassDef) -> list[tuple[ast.Call, Scope]]:
    """The file's calls of the class by its name (statement-level and inside expressions), whose name the model
    resolves to that class."""
    from npu_lint.analysis.call_lines import CallLines, nested_calls
    memo = resolver._summaries
    key = ("construction sites", id(node))
    found = memo.get(key)
    if found is not None:
        return found
    scopes = resolver.scopes
    if resolver._call_lines is None:
        resolver._call_lines = CallLines(scopes, resolver.source)
    candidates = [(c, s) for c, s in scopes.calls if type(c.func) is ast.Name and c.func.id == node.name]
    candidates += nested_calls(scopes, resolver._call_lines, node.name)
    found = memo[key] = [(c, s) for c, s in candidates if resolver.definition(c.func, s) is node]
    return found

