"""Defaults: the constant a setting takes unless a caller (or a configuration) changes it. ``drop_last=drop_last`` with ``def
make(ds, drop_last=False)``, or ``drop_last=self.drop_last`` where every ``self.drop_last = ...`` of the class stores
a constant or a constructor parameter that defaults to one (a Lightning ``DataModule(drop_last: bool = False)``).
The rules about loaders (NPU406) ask it; nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.scopes import PARAM, VALUE, Scope, Scopes

NOT_CONSTANT = ...   # what ``default_constant`` answers for a value that is not a constant by default


def default_constant(node: ast.AST, scope: Optional[Scope], scopes: Optional[Scopes],
                     callers: bool = True) -> object:
    """The constant ``node`` holds unless a caller passes something else: a constant itself; a parameter (of the
    function ``scope`` is) with a constant default and no other binding; ``self.<attr>`` whose every binding in the
    class stores such a value (a constant, or a parameter of the method that stores it). ``NOT_CONSTANT`` when any
    binding is computed, or the bindings disagree. ``callers=False``: the constant the code fixes whatever its
    callers pass (a constant, ``self.<attr>`` only ever set to one: ``self.batch_size: int = 1`` in ``__init__``),
    no parameter's default nor a configuration's lookup."""
    if isinstance(node, ast.Constant):
        return node.value
    looked_up = _lookup_default(node) if callers else None
    if looked_up is not None:
        return looked_up.value
    if scope is None or scopes is None:
        return NOT_CONSTANT
    if isinstance(node, ast.Name):
        return _parameter_default(node.id, scope, scopes, (node.lineno, node.col_offset)) if callers else NOT_CONSTANT
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
            and node.value.id == scopes.self_name(scope):
        bindings = scopes.attribute(scope, node.attr)
        values = set()
        for binding in bindings:
            if binding.tag != VALUE or binding.path or not isinstance(binding.value, ast.AST):
                return NOT_CONSTANT
            value = binding.value
            found = value.value if isinstance(value, ast.Constant) else _parameter_default(
                value.id, binding.scope, scopes, binding.pos) if isinstance(value, ast.Name) and callers \
                else NOT_CONSTANT
            if found is NOT_CONSTANT:
                return NOT_CONSTANT
            values.add(found)
        return values.pop() if len(values) == 1 else NOT_CONSTANT
    return NOT_CONSTANT


def fixed_one(node: Optional[ast.AST], scope: Optional[Scope], scopes: Optional[Scopes]) -> bool:
    """``node`` is 1 whatever the callers pass: ``1`` itself, or ``self.batch_size`` only ever set to 1 (a model that
    fixes its own loader's batch size in ``__init__``). A batch size so fixed has no smaller last batch."""
    if node is None:
        return False
    value = default_constant(node, scope, scopes, callers=False)
    return type(value) is int and value == 1


def _parameter_default(name: str, scope: Scope, scopes: Scopes, pos: tuple[int, int]) -> object:
    """The constant default of parameter ``name`` when the function never binds it again before ``pos``."""
    reaching = scopes.may_reach(name, scope, pos)
    if len(reaching) != 1 or reaching[0].tag != PARAM or reaching[0].scope is not scope:
        return NOT_CONSTANT
    default = reaching[0].value
    return default.value if isinstance(default, ast.Constant) else NOT_CONSTANT


def _lookup_default(node: ast.AST) -> Optional[ast.Constant]:
    """The constant default of a settings lookup: ``config.get("drop_last", False)``, ``getattr(args, "drop_last",
    False)``: what the setting is unless the configuration says otherwise (a NeMo/Hydra data config). None for any
    other node, and for a lookup without a constant default (``cfg.get("drop_last")`` is None unless set: no
    constant a loader would read as False)."""
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    func, args = node.func, node.args
    if isinstance(func, ast.Attribute) and func.attr == "get" and len(args) == 2:
        key, default = args
    elif isinstance(func, ast.Name) and func.id == "getattr" and len(args) == 3:
        key, default = args[1], args[2]
    else:
        return None
    if isinstance(key, ast.Constant) and isinstance(key.value, str) and isinstance(default, ast.Constant):
        return default
    return None


def may_be_false(node: ast.AST, scope: Optional[Scope], scopes: Optional[Scopes]) -> bool:
    """``node`` is ``False`` on some path the code itself takes, whatever the caller: a name one arm binds to
    ``False`` (``if len(ds) % bs == 1: drop_last = True`` / ``else: drop_last = False``), or a test of a
    remainder (``drop_last=len(ds) % bs == 1``: true for one remainder only, false for every other)."""
    if _remainder_test(node):
        return True
    if not isinstance(node, ast.Name) or scope is None or scopes is None:
        return False
    for binding in scopes.may_reach(node.id, scope, (node.lineno, node.col_offset)):
        value = binding.value
        if binding.tag == VALUE and not binding.path and isinstance(value, ast.AST) \
                and (_remainder_test(value) or (isinstance(value, ast.Constant) and value.value is False)):
            return True
    return False


def _remainder_test(node: ast.AST) -> bool:
    """``len(ds) % bs == 1`` (either side): equal for one remainder of the division only."""
    return isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq) \
        and any(isinstance(side, ast.BinOp) and isinstance(side.op, ast.Mod)
                for side in (node.left, node.comparators[0]))


def optional_extras(node: ast.AST, scope: Optional[Scope], scopes: Optional[Scopes], variadic: bool = True) -> bool:
    """``node`` holds a caller's optional extra keywords, empty unless a caller passes some: a parameter that
    defaults to ``None`` or ``{}`` (perhaps made ``{}`` by ``if extra is None: extra = {}``), the function's own
    ``**kwargs`` once merged into a dict it builds (``variadic``; spread straight into a call, its callers' keywords
    are judged at the calls), ``extra or {}``. What such a dict passes by default is nothing:
    ``loader_kwargs = {"batch_size": bs, **(loader_kwargs or {})}`` passes no ``drop_last`` unless a caller says so
    (as ``drop_last=drop_last`` with a parameter defaulting to ``False`` is read by its default)."""
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and len(node.values) == 2 \
            and _empty_dict(node.values[1]):
        node = node.values[0]
    if not isinstance(node, ast.Name) or scope is None or scopes is None:
        return False
    reaching = scopes.may_reach(node.id, scope, (node.lineno, node.col_offset))
    if not any(b.tag == PARAM and b.scope is scope for b in reaching):
        return False
    for binding in reaching:
        if binding.scope is not scope or binding.path:
            return False
        if binding.tag == PARAM:
            if binding.node is None:        # ``**kwargs`` (a ``*args`` is never spread as keywords)
                if not variadic:
                    return False
                continue
            if not (isinstance(binding.value, ast.Constant) and binding.value.value is None) \
                    and not _empty_dict(binding.value):
                return False
        elif binding.tag != VALUE or not _empty_dict(binding.value):
            return False
    return True


def _empty_dict(node: object) -> bool:
    """``{}`` or ``dict()``."""
    return (isinstance(node, ast.Dict) and not node.keys) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict"
        and not node.args and not node.keywords)
