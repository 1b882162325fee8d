"""Defaults: the constant a setting takes unless a caller (or a configuration) changes it. ``drop_last=drop_last`` with ``def
make(ds, drop_last=False)``, or ``drop_last=self.drop_last`` where every ``self.drop_last = ...`` of the class stores
a constant or a constructor parameter that defaults to one (a Lightning ``DataModule(drop_last: bool = False)``).
A ``self.<attr>`` no method of the class assigns takes the default the class hierarchy gives it
(:func:`attribute_default`): a class attribute or dataclass field of the class or of a base -- in this file, in
another module of the project (the index's ``defaults`` facts) or in a library (``rule_tables/class_defaults.tsv``:
``padding`` of a class deriving from Hugging Face's ``DataCollatorWithPadding`` is ``True``).
The rules about loaders (NPU406) and padding (NPU405) ask it; nothing here is a rule."""
from __future__ import annotations

import ast
from functools import lru_cache
from typing import TYPE_CHECKING, Optional, Union

from npu_lint.analysis.nodes import class_bases
from npu_lint.analysis.scopes import ANNOTATION, NONE, PARAM, VALUE, Scope, Scopes, enclosing_class

if TYPE_CHECKING:
    from npu_lint.resolver import Resolver

NOT_CONSTANT = ...   # what ``default_constant`` answers for a value that is not a constant by default
UNKNOWN_DEFAULT = "?"   # how the project index's ``defaults`` facts hold an attribute set to no constant
_DEPTH = 24
# Bases that give their instances no attributes: the walk up the hierarchy passes them.
_EMPTY_BASES = frozenset({"object", "builtins.object", "abc.ABC", "typing.Generic", "typing.Protocol"})
_TABLE = "class_defaults.tsv"


def default_constant(node: ast.AST, scope: Optional[Scope], scopes: Optional[Scopes],
                     resolver: Optional["Resolver"] = None, callers: bool = True) -> object:
    """The constant ``node`` holds unless a caller passes something else: a constant itself; a parameter (of the
    function ``scope`` is) with a constant default and no other binding; ``self.<attr>`` whose every binding in the
    class stores such a value (a constant, or a parameter of the method that stores it) or, with ``resolver``, that
    no method of the class assigns and the class hierarchy gives a constant (:func:`attribute_default`).
    ``NOT_CONSTANT`` when any binding is computed, or the bindings disagree. ``callers=False``: the constant the
    code fixes whatever its callers pass (a constant, ``self.<attr>`` only ever set to one: ``self.batch_size: int =
    1`` in ``__init__``), no parameter's default nor a configuration's lookup."""
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
        if not bindings and resolver is not None:
            return attribute_default(node.attr, scope, resolver)   # a class attribute, a base's, a library's
        return _stored_constant(bindings, scopes, callers)
    return NOT_CONSTANT


def fixed_one(node: Optional[ast.AST], scope: Optional[Scope], scopes: Optional[Scopes]) -> bool:
    """``node`` is 1 whatever the callers pass: ``1`` itself, or ``self.batch_size`` only ever set to 1 (a model that
    fixes its own loader's batch size in ``__init__``). A batch size so fixed has no smaller last batch."""
    if node is None:
        return False
    value = default_constant(node, scope, scopes, callers=False)
    return (type(value) is int and value == 1) or _asserted_one(node, scope)


def _asserted_one(node: ast.AST, scope: Optional[Scope]) -> bool:
    """``assert batch_size == 1`` (or ``1 == batch_size``) among the statements of the function, above ``node``: a
    helper that accepts no other batch size (an evaluation loader built for one sample at a time)."""
    function = scope.node if scope is not None else None
    line = getattr(node, "lineno", None)   # (a name another module's facts hand over has no position)
    if not isinstance(node, ast.Name) or line is None \
            or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    for statement in function.body:
        if statement.lineno >= line:
            return False
        test = statement.test if isinstance(statement, ast.Assert) else None
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
            sides = (test.left, test.comparators[0])
            if any(isinstance(a, ast.Name) and a.id == node.id for a in sides) and any(
                    isinstance(b, ast.Constant) and type(b.value) is int and b.value == 1 for b in sides):
                return True
    return False


def _stored_constant(bindings: list, scopes: Scopes, callers: bool = True) -> object:
    """The one constant every ``self.x = ...`` binding stores (a constant, or, unless ``callers`` is False, a
    parameter of the method storing it that defaults to one); ``NOT_CONSTANT`` otherwise."""
    values = set()
    for binding in bindings:
        if binding.tag != VALUE or binding.path or not isinstance(binding.value, ast.AST):
            return NOT_CONSTANT
        value = binding.value
        found = value.value if isinstance(value, ast.Constant) else _parameter_default(
            value.id, binding.scope, scopes, binding.pos) if isinstance(value, ast.Name) and callers else NOT_CONSTANT
        if found is NOT_CONSTANT:
            return NOT_CONSTANT
        try:
            values.add(found)
        except TypeError:    # an unhashable constant cannot occur; kept safe
            return NOT_CONSTANT
    return values.pop() if len(values) == 1 else NOT_CONSTANT


def attribute_default(attr: str, scope: Scope, resolver: "Resolver") -> object:
    """The constant ``self.<attr>`` holds in a method (``scope``, or a scope inside it) of a class none of whose
    methods assigns it: the value the class hierarchy gives it, nearest first (depth first, left to right, as
    Python's method resolution order for single inheritance) -- a class attribute or dataclass field of the class
    itself (``padding: bool = True``, ``padding = field(default=True)``), then of its bases: a class of this file
    (its body, or its methods' ``self.<attr> = ...``), a project class of another module (the index's facts) or a
    library class the table lists (``class Collator(DataCollatorWithPadding)``: ``padding`` is ``True``).
    ``NOT_CONSTANT`` when a class on the way sets it to something else, declares a field without a default, or is
    a library class the table does not list (it may set the attribute in its constructor)."""
    scopes = resolver.scopes
    cls = enclosing_class(scope)
    if scopes is None or cls is None:
        return NOT_CONSTANT
    pending: list[Union[ast.ClassDef, str]] = [cls]
    seen: set[object] = set()
    own = True
    while pending and len(seen) <= _DEPTH:
        item = pending.pop(0)
        key = item if isinstance(item, str) else id(item)
        if key in seen:
            continue
        seen.add(key)
        if isinstance(item, str):
            found = _outside_default(item, attr, resolver)
            if found is not None:
                return found
            continue
        body = scopes.scope_of(item)
        if body is None or body.parent is None:
            return NOT_CONSTANT
        found = _body_default(body, attr)
        if found is None and not own:
            bindings = [b for b in body.attrs.get(attr, ()) if b.tag != NONE]
            found = _stored_constant(bindings, scopes) if bindings else None
        own = False
        if found is not None:
            return found
        bases: list[Union[ast.ClassDef, str]] = []
        for base in class_bases(item):
            local = resolver.definition(base, body.parent) if isinstance(base, ast.Name) else None
            name = resolver.qualname(base, body.parent) if local is None else None
            if isinstance(local, ast.ClassDef):
                bases.append(local)
            elif name is not None:
                bases.append(name)
            else:
                return NOT_CONSTANT     # a base the model cannot name: it may set the attribute
        pending[:0] = bases
    return NOT_CONSTANT


def _body_default(body: Scope, attr: str) -> object:
    """What the class body ``body`` gives ``attr``: the constant of ``attr = c``, ``attr: T = c`` or ``attr: T =
    field(default=c)``; ``NOT_CONSTANT`` for any other value (or a field without a default); None when the body
    does not name it."""
    bindings = [b for b in body.names.get(attr, ()) if b.tag in (VALUE, ANNOTATION) and not b.path]
    if not bindings:
        return None
    values = set()
    for binding in bindings:
        node = binding.node
        value = node.value if isinstance(node, (ast.AnnAssign, ast.Assign)) else None
        found = constant_default(value)
        if found is NOT_CONSTANT:
            return NOT_CONSTANT
        values.add(found)
    return values.pop() if len(values) == 1 else NOT_CONSTANT


def constant_default(value: Optional[ast.AST]) -> object:
    """The constant a class-body value gives: ``c``, or ``field(default=c)`` / ``dataclasses.field(default=c)``;
    ``NOT_CONSTANT`` for anything else (a field without a default among them)."""
    if isinstance(value, ast.Call) and not value.args and (
            (isinstance(value.func, ast.Name) and value.func.id == "field")
            or (isinstance(value.func, ast.Attribute) and value.func.attr == "field")):
        value = next((kw.value for kw in value.keywords if kw.arg == "default"), None)
    if isinstance(value, ast.Constant) and not isinstance(value.value, (bytes, complex)):
        return value.value
    return NOT_CONSTANT


def _outside_default(name: str, attr: str, resolver: "Resolver") -> object:
    """The default a base the model names (not a class of this file) gives ``attr``: a project class's, through the
    index; a library class's, from the table; None for a base that gives none (``object``, ``ABC``)."""
    project = resolver.project
    if project is not None and resolver.module_name:
        target = project.absolute(name, resolver.module_name)
        if target is not None and project.defines_class(target):
            return project.attribute_default(target, attr)
        name = project.external(name, resolver.module_name) or name   # a library class the project re-exports
    found = library_default(name, attr)
    if found is not NOT_CONSTANT:
        return found
    return None if name in _EMPTY_BASES else NOT_CONSTANT


@lru_cache(maxsize=1)
def _library_defaults() -> dict[str, dict[str, object]]:
    from npu_lint.tables import read_tsv
    found: dict[str, dict[str, object]] = {}
    for row in read_tsv(_TABLE):
        value = ast.literal_eval(row["default"])
        for spelling in [row["class"], *row["spellings"].split()]:
            found.setdefault(spelling, {})[row["attribute"]] = value
    return found


def library_default(cls: str, attr: str) -> object:
    """The default the library class ``cls`` (any spelling the table lists) gives ``attr`` of its instances
    (``rule_tables/class_defaults.tsv``); ``NOT_CONSTANT`` when the table has none."""
    return _library_defaults().get(cls, {}).get(attr, NOT_CONSTANT)


def _parameter_default(name: str, scope: Scope, scopes: Scopes, pos: tuple[int, int]) -> object:
    """The constant default of parameter ``name`` when the function never binds it again before ``pos``."""
    reaching = scopes.may_reach(name, scope, pos)
    if len(reaching) != 1 and reaching and all(   # ``drop_last: bool = False`` then ``drop_last = False`` in an
            (b.tag == PARAM and b.scope is scope) or (b.tag == VALUE and not b.path) for b in reaching):  # arm
        values = {(type(b.value), b.value.value) if isinstance(b.value, ast.Constant) else None for b in reaching}
        if len(values) == 1 and None not in values:   # every binding holds the same constant (loops26)
            return next(b.value.value for b in reaching)
        return NOT_CONSTANT
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


def not_surely_true(node: ast.AST, scope: Optional[Scope], scopes: Optional[Scopes],
                    resolver: Optional["Resolver"] = None, setting: str = "drop_last") -> bool:
    """A computed flag that may be ``False`` on some run although no default says so: a phase test
    (``drop_last=split == "train"``: false for the validation loaders), an unrelated setting
    (``drop_last=args.batch_norm``), a name bound to another value (``drop_last = model_contains_batch_norm``).
    Not: a constant, a value whose default is ``True`` (a parameter, ``self.<attr>``: :func:`default_constant`), a
    name every reaching binding sets to ``True``, a size guard (``drop_last=len(ds) > bs``: false only when one batch
    holds the whole set), nor the setting handed through unchanged for the caller or the configuration to decide (a
    parameter ``drop_last`` without a default, ``args.drop_last``, ``cfg["drop_last"]``, ``cfg.get("drop_last")``)."""
    if isinstance(node, ast.Constant) or default_constant(node, scope, scopes, resolver) is True:
        return False
    if _forwarded_setting(node, setting, scope, scopes):
        return False
    if isinstance(node, ast.Compare) and any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                                             and n.func.id == "len" for n in ast.walk(node)):
        return False    # a size guard: the short batch is then the only one
    if isinstance(node, ast.Name) and scope is not None and scopes is not None:
        reaching = scopes.may_reach(node.id, scope, (node.lineno, node.col_offset))
        if reaching and all(binding.tag == VALUE and not binding.path and isinstance(binding.value, ast.Constant)
                            and binding.value.value is True for binding in reaching):
            return False
    return True


def _forwarded_setting(node: ast.AST, setting: str, scope: Optional[Scope], scopes: Optional[Scopes]) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr == setting
    if isinstance(node, ast.Subscript):
        key = node.slice
        return isinstance(key, ast.Constant) and key.value == setting
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value == setting
    if isinstance(node, ast.Name) and node.id == setting and scope is not None and scopes is not None:
        reaching = scopes.may_reach(node.id, scope, (node.lineno, node.col_offset))
        return len(reaching) == 1 and reaching[0].tag == PARAM and not isinstance(reaching[0].value, ast.AST)
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


def class_defaults(node: ast.ClassDef) -> tuple[tuple[str, str], ...]:
    """The project index's ``defaults`` facts of a class: ``(attr, repr(constant))`` for what its body gives an
    attribute (``padding: bool = True``), ``(attr, "?")`` for an attribute its body sets to anything else or its
    methods assign (``self.padding = padding``): a subclass in another module reads no known default there."""
    found: dict[str, str] = {}
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            targets, value = [statement.target], statement.value
        elif isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                constant = constant_default(value)
                text = UNKNOWN_DEFAULT if constant is NOT_CONSTANT else repr(constant)
                found[target.id] = text if found.get(target.id, text) == text else UNKNOWN_DEFAULT
    for method in node.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params = method.args.posonlyargs + method.args.args
        if not params:
            continue
        self_name = params[0].arg
        for child in ast.walk(method):
            if isinstance(child, ast.Attribute) and isinstance(child.ctx, ast.Store) \
                    and isinstance(child.value, ast.Name) and child.value.id == self_name:
                found[child.attr] = UNKNOWN_DEFAULT
    return tuple(sorted(found.items()))
