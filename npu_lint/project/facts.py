"""What one module defines and calls, extracted from its ``ast`` in one walk.

Names are resolved by the analysis core's :class:`~npu_lint.resolver.Resolver`, fed in source order exactly as
the core's walk feeds it (imports, aliases, assignments, scopes, loops). A name the resolver does not know at its
use (a module-level function defined further down, an import at the bottom of the file) is looked up once the
module has been walked: in the enclosing functions' own definitions, the module's definitions and the module's
imports. The facts' types are in :mod:`npu_lint.project.fact_types` (re-exported here), the walk of expressions
(calls, torch references, passed objects) in :mod:`npu_lint.project.fact_calls`, what bound names may hold (local
values, ``self.x`` attributes, declared fields, module aliases) in :mod:`npu_lint.project.fact_bindings`.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.attribute_items import ITEMS
from npu_lint.analysis.batch_helpers import batched_parameter
from npu_lint.analysis.data_records import CONSTRUCTED, MASK, SELF, store_verdict
from npu_lint.analysis.names import rooted
from npu_lint.analysis.nodes import class_bases, walk
from npu_lint.analysis.scopes import Scopes
from npu_lint.analysis.budget_batches import batches_by_budget
from npu_lint.analysis.defaults import class_defaults
from npu_lint.analysis.summaries_padding import own_maximum, padded_items
from npu_lint.analysis.summaries_fills import filled_parameters
from npu_lint.analysis.summaries_reads import compares_unknowns, may_return_read_back, may_return_size_read, \
    returned_size_read, returns_read_back
from npu_lint.analysis.summaries import return_statements
from npu_lint.analysis.summaries_sizes import first_sized, sized_parameters
from npu_lint.project.fact_bindings import BindingFacts
from npu_lint.project.fact_reaches import ReachFacts
from npu_lint.project.fact_calls import _BUILTINS, _PASSED_KINDS, CallFacts, _Scope
from npu_lint.analysis.returned_tuples import call_returns
from npu_lint.project.fact_types import (FACTS_VERSION, LITERAL, ONE_ARGUMENT, PASSED_CALL, UNKNOWN_RETURN, ClassFacts,
                                         FunctionFacts, ModuleFacts, absolute)
from npu_lint.analysis.aspect_resizes import returns_aspect_resize
from npu_lint.analysis.flattened import returns_flattened
from npu_lint.analysis.grad_free import whole_inputs
from npu_lint.analysis.loader_wrappers import forwards_drop_last, forwards_loader, loader_arguments
from npu_lint.analysis.item_counts import counted_attribute
from npu_lint.resolver import Resolver

__all__ = ["FACTS_VERSION", "ONE_ARGUMENT", "PASSED_CALL", "UNKNOWN_RETURN", "ClassFacts", "FunctionFacts",
           "ModuleFacts", "Extractor", "absolute", "extract"]
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_MATCH_CASE = getattr(ast, "match_case", ())   # Python 3.10+


def _returns_comparisons(function: ast.AST) -> bool:
    """Every ``return`` of the function (none nested) gives a comparison (``return args.rank == 0``)."""
    returns = return_statements(function)
    return bool(returns) and all(isinstance(r.value, ast.Compare) for r in returns)


class Extractor(CallFacts, ReachFacts, BindingFacts):
    """Walks one module once; :meth:`facts` gives its :class:`ModuleFacts`."""

    def __init__(self, module: str, relative: str, is_package: bool, light: bool = False) -> None:
        self.module, self.relative, self.is_package = module, relative, is_package
        self.light = light   # no calls, references or call counts (what only the call graph needs)
        self.resolver = Resolver()
        self.resolver.module_name = module   # the file's classes by their absolute names in the summaries
        self.module_scope = _Scope("module", "")
        self.scopes: list[_Scope] = [self.module_scope]
        self.functions: list[FunctionFacts] = []
        self.function_scopes: list[_Scope] = []
        self.classes: dict[str, dict] = {}
        self.class_stack: list[str] = []
        self.imports: dict[str, str] = {}
        self.stars: list[str] = []
        self.exported: Optional[tuple[str, ...]] = None
        self._aliases: dict[str, Optional[tuple[str, str]]] = {}   # ``Model = DetectionModel`` at module level
        self.globals: set[str] = set()
        self.unresolved = 0
        self.unknown_receivers = 0
        self.passed: list[tuple[str, int, str, str, str]] = []
        self.collates: list[tuple[str, str, int]] = []   # what it passes as ``collate_fn=`` (fact_collates.py)
        self.fields: list[tuple[str, str, str]] = []   # (attr, verdict, class): every field store (data_records.py)
        self._closed: list[tuple[_Scope, list[_Scope]]] = []
        self._imports: Optional[dict[str, str]] = None   # the file's imports, read from the model once needed
        self._sized: dict = {}   # the size summaries of the file's functions (helpers summarised once)
        self._sizing: list[tuple[_Scope, ast.AST]] = []   # functions with parameters, for their size summaries
        self._reading: list[tuple[_Scope, ast.AST]] = []   # functions that may return a value read back
        self._size_reading: list[tuple[_Scope, ast.AST]] = []   # functions that may return a size read from data
        self._growing: list[tuple[_Scope, ast.AST]] = []   # functions that concatenate (may return a parameter grown)
        self._comparing: list[tuple[_Scope, ast.AST]] = []   # functions whose returns are all comparisons

    # -- statements ------------------------------------------------------------------------
    def run(self, tree: ast.Module, scopes: Optional[Scopes] = None) -> "ModuleFacts":
        """``scopes``: the module's scopes when the caller bound them (and keeps them for the rule walk)."""
        self.resolver.attach(tree, scopes)   # the semantic model binds the whole module first (late binding)
        bound = len(scopes.by_node) if scopes is not None else 0
        for statement in tree.body:
            self.statement(statement)
        facts = self.facts()
        if scopes is not None:   # the caller's: handed back as bound (the lambda scopes opened here dropped)
            scopes.rewind(bound)
            self.resolver.scopes = None
        self.resolver.close()   # the model's scopes hold cycles, and the index is built with the collector off
        return facts

    def statement(self, node: ast.stmt) -> None:
        node_type = type(node)
        at_module = len(self.scopes) == 1
        if node_type is ast.Import:
            for alias in node.names:
                local = alias.asname or alias.name.split(".", 1)[0]
                if at_module:
                    self.imports[local] = alias.name if alias.asname else local
            return
        if node_type is ast.ImportFrom:
            base = absolute("." * (node.level or 0) + (node.module or ""), self.module, self.is_package)
            for alias in node.names:
                if alias.name == "*":
                    if at_module:
                        self.stars.append(base)
                    continue
                local = alias.asname or alias.name
                if at_module:
                    self.imports[local] = f"{base}.{alias.name}" if base else alias.name
            return
        if node_type in _FUNCTIONS:
            self.function(node)
            return
        if node_type is ast.ClassDef:
            self.class_def(node)
            return
        if node_type is ast.Assign:
            self.expressions(node.value)
            for target in node.targets:
                self.target(target)
            if at_module:
                self._module_assign(node)
            self._local_values(node.targets, node.value)
            self._instance_attribute(node.targets, node.value)
            self._field_stores(node.targets, node.value)
            return
        if node_type is ast.AnnAssign:   # the annotation is not a use
            self._annotated_attribute(node)
            if node.value is not None:
                self.expressions(node.value)
                self._local_values([node.target], node.value)
                self._instance_attribute([node.target], node.value)
            self._field_stores([node.target], node.value)
            self.target(node.target)
            return
        if node_type is ast.Return and node.value is not None and self.function_scopes:
            self.expressions(node.value)
            producers = self._producers(node.value)
            if not producers and not (isinstance(node.value, ast.Constant) and node.value.value is None):
                producers = [(UNKNOWN_RETURN, "", "")]   # ``return cfg.model``: the index cannot tell what it is
            self.function_scopes[-1].returns.extend(producers)
            return
        if node_type in (ast.For, ast.AsyncFor):
            self.expressions(node.iter)
            self.target(node.target)
            for child in node.body + node.orelse:
                self.statement(child)
            return
        # Every other statement: its expressions in field order, nested statements in source order.
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                for item in value:
                    self._child(item)
            elif isinstance(value, ast.AST):
                self._child(value)

    def _child(self, item: object) -> None:
        if isinstance(item, ast.stmt):
            self.statement(item)
        elif isinstance(item, ast.excepthandler):
            if item.name:
                self._bind(item.name)
            for child in item.body:
                self.statement(child)
        elif isinstance(item, ast.withitem):
            self.expressions(item.context_expr)
            if item.optional_vars is not None:
                self.target(item.optional_vars)
        elif isinstance(item, _MATCH_CASE):
            if item.guard is not None:
                self.expressions(item.guard)
            for child in item.body:
                self.statement(child)
        elif isinstance(item, ast.expr):
            if isinstance(getattr(item, "ctx", None), (ast.Store, ast.Del)):
                self.target(item)
            else:
                self.expressions(item)

    def function(self, node: ast.AST) -> None:
        for decorator in node.decorator_list:   # decorators are transparent: evaluated in the enclosing scope
            self.expressions(decorator)
        for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            self.expressions(default)
        parent = self.scopes[-1]
        qualname = f"{parent.name}.{node.name}" if parent.name else node.name
        parent.defs[node.name] = qualname
        self._bind(node.name, defining=True)
        owner = parent.name if parent.kind == "class" else None
        scope = _Scope("function", qualname, owner, node.lineno)
        value = self.resolver.returns(node)   # the semantic model's summary of the function
        scope.value = self._fact(value)
        scope.elements = tuple(self._fact(v) for v in self.resolver.returned_elements(node))
        scope.yields = self._fact(self.resolver.yielded(node))
        scope.reaches = self.reaches(node)
        args = node.args
        for arg in args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]:
            scope.bound.add(arg.arg)
        self.resolver.enter_function(node)
        scope.forwards_loader = forwards_loader(self.resolver, node)
        scope.loader_arguments = loader_arguments(self.resolver, node) \
            if owner is None and scope.value[0] == K.LOADER else ()
        scope.counts = counted_attribute(node)
        scope.grad_free = whole_inputs(self.resolver, node)
        scope.trains = self.resolver.trained_parameters(node)
        scope.aspect = returns_aspect_resize(self.resolver, node)
        scope.flattens = returns_flattened(self.resolver, node)
        scope.call_returns = call_returns(node)
        self.scopes.append(scope)
        self.function_scopes.append(scope)
        for child in node.body:
            self.statement(child)
        if scope.maximum and own_maximum(self.resolver, node, scope.maximum):   # the model's padding summary (NPU405 at the
            # calls of other modules)
            padding = padded_items(self.resolver, node)
            unless = padding.unless if padding is not None else ("", -1)
            if owner is not None and unless[1] > 0 and not any(
                    isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list):
                unless = unless[0], unless[1] - 1   # a method: its position in a call on an instance (no ``self``)
            scope.pads = (padding.leaf(), padding.maximum or padding.line, *unless) if padding is not None \
                else ("", 0, "", -1)
        if parent.kind == "module" and _returns_comparisons(node):   # ``return args.rank == 0``
            self._comparing.append((scope, node))
        if parent.kind == "module" and may_return_read_back(node):   # the model's "returns a value read back"
            self._reading.append((scope, node))
        if parent.kind == "module" and may_return_size_read(node):   # "returns a size read from the data"
            self._size_reading.append((scope, node))
        if parent.kind == "module" and _may_batch(node):   # the model's "yields batches of a parameter"
            scope.batches = batched_parameter(node) or (-1, "")
        if parent.kind == "module" and _concatenates(node):   # the model's "returns its parameter grown"
            self._growing.append((scope, node))
        if (parent.kind == "module" or (parent.kind == "class" and node.name == "forward")) and first_sized(node):
            self._sizing.append((scope, node))   # the model's size summary, once all is known (NPU403 at the calls of
            #                                      other modules: functions, and a module's ``forward`` its calls run)
        self.scopes.pop()
        self.function_scopes.pop()
        self.resolver.leave_scope()
        self._close_function(scope)

    def _fact(self, value: Optional[tuple[str, Optional[str]]]) -> tuple[str, str]:
        """A value of the model as facts hold it: (kind, class) with the class's absolute name (a relative import's
        resolved), ("", "") when unknown."""
        if not value:
            return "", ""
        cls = value[1] or ""
        return value[0], absolute(cls, self.module, self.is_package) if cls.startswith(".") else cls

    def class_def(self, node: ast.ClassDef) -> None:
        for decorator in node.decorator_list:
            self.expressions(decorator)
        bases: list[tuple[str, str, int]] = []
        for base in node.bases:
            self.expressions(base)
        bases = [self._name_parts(base) for base in class_bases(node)]
        parent = self.scopes[-1]
        qualname = f"{parent.name}.{node.name}" if parent.name else node.name
        parent.defs[node.name] = qualname
        self._bind(node.name, defining=True)
        self.classes[qualname] = {"line": node.lineno, "bases": bases, "methods": [], "attrs": {},
                                  "scopes": list(self.scopes), "fields": {}}
        scope = _Scope("class", qualname, line=node.lineno)
        self.resolver.enter_class(node)
        self.scopes.append(scope)
        self.class_stack.append(qualname)
        for child in node.body:
            self.statement(child)
        self.class_stack.pop()
        self.scopes.pop()
        self.resolver.leave_scope()
        self.classes[qualname]["methods"] = [name for name in scope.defs]
        self.classes[qualname]["defaults"] = class_defaults(node)
        self.classes[qualname]["objects"] = self._held_objects(node)
        source = self.resolver.source   # no ``drop_last`` in the file's text: no such name in the class (unless
        # non-ASCII text could normalise to it)
        self.classes[qualname]["drop_last"] = (source is None or "drop_last" in source or not source.isascii()) and any(
            (isinstance(n, ast.keyword) and n.arg == "drop_last") or (isinstance(n, ast.arg) and n.arg == "drop_last")
            or (isinstance(n, ast.Attribute) and n.attr == "drop_last") for n in walk(node)) \
            and not forwards_drop_last(node)   # (branch22) ``drop_last=False`` taken and handed on: the call decides
        self.classes[qualname]["init_args"] = _init_args(node)
        budget = batches_by_budget(node)
        self.classes[qualname]["budget"] = budget.lineno if budget is not None else 0

    def _field_stores(self, targets: list[ast.AST], value: Optional[ast.AST]) -> None:
        """Every store of a field (``data.valid = labels != 0``, ``self.mask = m``, a class body's annotated field):
        its name, what it holds by construction (:func:`~npu_lint.analysis.data_records.store_verdict`) and the class
        storing it where the code says (``self.x`` in a method, a class body), else ""."""
        scope = self.scopes[-1]
        for target in targets:
            if isinstance(target, (ast.Tuple, ast.List)):
                for element in target.elts:   # an unpacked store: unknown
                    if isinstance(element, ast.Attribute):
                        self.fields.append((element.attr, "", ""))
                continue
            if isinstance(target, ast.Name) and scope.kind == "class":   # a dataclass / NamedTuple field
                self.fields.append((target.id, store_verdict(value, target.id) if value is not None else SELF,
                                    f"{self.module}.{scope.name}"))
                continue
            if not isinstance(target, ast.Attribute):
                continue
            cls = ""
            if isinstance(target.value, ast.Name) and target.value.id == "self" and self.class_stack \
                    and self.function_scopes and self.function_scopes[-1].owner == self.class_stack[-1]:
                cls = f"{self.module}.{self.class_stack[-1]}"
            self.fields.append((target.attr, store_verdict(value, target.attr) if cls else   # (a data object's field:
                                self._store_verdict(value, target.attr), cls))           # the model asked too)

    def _store_verdict(self, value: Optional[ast.AST], attr: str) -> str:
        """What a store holds by construction, else by the model's kind where it stands (``Meta(mask=keep)``,
        ``keep = scores > t`` above: a mask)."""
        verdict = store_verdict(value, attr)
        if not verdict and isinstance(value, ast.Name) and self.function_scopes:
            kind = self.resolver.value_of(value)
            verdict = MASK if kind is not None and kind[0] == K.MASK else ""
        return verdict

    def _constructed_fields(self, call: ast.Call) -> None:
        """``Meta(mask=m)``: a construction of a class of this module or (by its absolute name, which the index
        resolves: a call of anything else is dropped there) of another, stores its keywords' fields."""
        func = call.func
        last = func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else ""
        if not last[:1].isupper():   # a cheap pre-filter; the index decides what the callee is
            return
        local = self.resolver.definition(func) if type(func) is ast.Name else None
        if isinstance(local, ast.ClassDef):
            name = self.resolver.qualname(func) or ""
            name = name if "." in name else f"{self.module}.{last}"
        else:
            name = self.resolver.qualname(func) or ""
            if not name or rooted(name, ("torch", "numpy", "typing", "collections", "dataclasses", "builtins")):
                return
            name = absolute(name, self.module, self.is_package)
        for keyword in call.keywords:
            if keyword.arg is not None:
                self.fields.append((keyword.arg, self._store_verdict(keyword.value, keyword.arg), CONSTRUCTED + name))

    def _held_objects(self, node: ast.ClassDef) -> tuple[tuple[str, str, str], ...]:
        """The torch objects (modules, optimizers ...) the class's ``self.x = ...`` bindings agree on."""
        model = self.resolver
        body = model.scopes.scope_of(node) if model.scopes is not None else None
        found = []
        for attr, bindings in (body.attrs.items() if body is not None else ()):
            kept = [b for b in bindings if b.tag != "none"]
            value = K.join([model.binding_value(b) for b in kept]) if kept else None
            if value is not None and value[0] in _PASSED_KINDS:
                found.append((attr,) + self._fact(value))
        return tuple(found)

    # -- late resolution -------------------------------------------------------------------
    def _late(self, root: str, rest: str, scopes: list[_Scope]) -> Optional[str]:
        """Resolve ``root.rest`` once the module is walked: enclosing definitions, module definitions, imports."""
        for scope in reversed(scopes):
            if root in scope.defs and scope.kind != "class":
                found = f"{self.module}.{scope.defs[root]}"
                return f"{found}.{rest}" if rest else found
            if scope.kind == "function" and root in scope.bound and root not in scope.defs:
                return None
        if self._imports is None:
            self._imports = self.resolver.file_imports()   # every import of the file, from the model's bindings
        alias = self._imports.get(root)
        if alias is not None:
            found = absolute(alias, self.module, self.is_package)
            return f"{found}.{rest}" if rest else found
        if root in self.globals:
            return None
        return "?"

    def _close_function(self, scope: _Scope) -> None:
        self._closed.append((scope, list(self.scopes)))   # resolved once the whole module is known

    def _finish_function(self, scope: _Scope, enclosing: list[_Scope]) -> None:
        calls = scope.calls
        for index, root, rest, prefix in scope.pending:
            line = calls[index][1]
            found = self._late(root, rest, enclosing + [scope])
            if found == "?":
                if root not in _BUILTINS:
                    self.unresolved += 1
                found = None
            elif found is None:
                self.unknown_receivers += 1 if rest else 0
            calls[index] = (prefix + found if found else "", line)
        returns = []
        for marker, root, rest in scope.returns:
            if marker == UNKNOWN_RETURN:
                returns.append(marker)
                continue
            found = self._late(root, rest, enclosing + [scope])
            if found and found != "?":
                returns.append(marker + found)
        reaches = []
        for marker, root, rest in scope.reaches:
            found = rest if marker == LITERAL else self._late(root, rest, enclosing + [scope])
            if found and found != "?":
                reaches.append(found)
        self.functions.append(FunctionFacts(scope.name, scope.line, scope.owner,
                                            tuple(call for call in calls if call[0]), tuple(scope.refs),
                                            tuple(dict.fromkeys(returns)), scope.value, scope.elements, scope.yields,
                                            scope.pads, tuple(dict.fromkeys(reaches)), scope.sizes,
                                            scope.reads, scope.size_read, scope.compares, scope.fills,
                                            scope.grows, scope.forwards_loader, scope.counts, scope.grad_free,
                                            scope.batches, scope.trains, scope.loader_arguments,
                                            scope.aspect, scope.flattens, scope.call_returns))

    def _size_facts(self) -> None:
        """The ``sizes`` of the functions that call a shape sink or slice, or call (to a fixed depth) a function of
        the file that does: the model summarises only those (most functions size nothing)."""
        candidates = self._sizing
        flagged = {scope.name.rpartition(".")[2] for scope, _ in candidates if scope.sizing}
        for _ in range(3):   # helpers of helpers (``scatter_add`` → ``_scatter_add`` → ``zeros``)
            grown = [scope for scope, _ in candidates if not scope.sizing and scope.called & flagged]
            for scope in grown:
                scope.sizing = True
                flagged.add(scope.name.rpartition(".")[2])
            if not grown:
                break
        for scope, node in candidates:
            if scope.sizing:
                scope.sizes = sized_parameters(node, self.resolver, self._sized)
                if scope.sizes:
                    scope.fills = filled_parameters(node, self.resolver, [size[0] for size in scope.sizes])

    def facts(self) -> ModuleFacts:
        self._size_facts()
        for scope, node in self._reading:
            scope.reads = returns_read_back(node, self.resolver)
        for scope, node in self._size_reading:
            scope.size_read = returned_size_read(node, self.resolver)
        for scope, node in self._comparing:
            scope.compares = compares_unknowns(node, self.resolver)
        for scope, node in self._growing:
            growth = self.resolver.grown_parameter(node)
            if growth is not None:
                scope.grows = (growth.parameter, growth.name, growth.position)
        for scope, enclosing in self._closed:
            self._finish_function(scope, enclosing)
        classes = []
        for qualname, data in self.classes.items():
            bases = []
            for root, rest, _ in data["bases"]:
                found = self._late(root, rest, data["scopes"]) if root else None
                if found and found != "?":
                    bases.append(found)
            attrs = []
            for attr, constructors in data["attrs"].items():
                resolved = []
                for marker, root, rest, scope in constructors:
                    found = self._late(root, rest, data["scopes"] + [scope]) if root else None
                    if found and found != "?":
                        resolved.append(marker + found)
                    elif attr.endswith(ITEMS):   # ``self.x[k] = len(v)``: the items' values are not all known
                        resolved = []
                        break
                if resolved:
                    attrs.append((attr, tuple(dict.fromkeys(resolved))))
            fields = []
            for attr, (root, rest) in data["fields"].items():
                found = self._late(root, rest, data["scopes"])
                if found and found != "?":
                    fields.append((attr, found))
            classes.append(ClassFacts(qualname, data["line"], tuple(bases), tuple(data["methods"]), tuple(attrs),
                                      tuple(fields), data.get("objects", ()), data.get("drop_last", False),
                                      data.get("init_args"), data.get("budget", 0), data.get("defaults", ())))
        for name, aliased in self._aliases.items():   # ``Model = DetectionModel``: another name of a definition
            if aliased is not None and name not in self.imports and name not in self.module_scope.defs:
                found = self._late(aliased[0], aliased[1], [self.module_scope])
                if found and found != "?":
                    self.imports[name] = found
        imports = tuple((name, absolute(target, self.module, self.is_package)) for name, target in self.imports.items())
        return ModuleFacts(self.module, self.relative, self.is_package, tuple(self.functions), tuple(classes),
                           imports, tuple(self.stars), self.exported, tuple(sorted(self.globals)), self.unresolved,
                           self.unknown_receivers, tuple(dict.fromkeys(self.passed)), tuple(dict.fromkeys(self.collates)),
                           tuple(dict.fromkeys(self.fields)))


def extract(tree: ast.Module, module: str, relative: str, is_package: bool,
            scopes: Optional[Scopes] = None, light: bool = False, source: Optional[str] = None) -> ModuleFacts:
    """The facts of one parsed module (``scopes``: its bound scopes, when the caller has them). ``light``: without
    the functions' calls and torch references, which only the call graph (``-m third_party``) follows; every
    other fact is the same (the objects calls pass to other modules included: every expression is walked)."""
    extractor = Extractor(module, relative, is_package, light)
    extractor.resolver.source = source   # the model finds the calls of a function inside expressions by its text
    return extractor.run(tree, scopes)


_CAT_NAMES = frozenset({"cat", "concat", "concatenate", "hstack", "vstack"})


def _may_batch(function: ast.AST) -> bool:
    """The function yields a name or a slice and calls ``range`` or ``islice``: worth asking the model whether it
    yields batches of a parameter (a cheap test; the model decides)."""
    yields = calls = False
    for n in walk(function):
        if isinstance(n, ast.Yield) and isinstance(n.value, (ast.Name, ast.Subscript, ast.ListComp, ast.List,
                                                               ast.Tuple, ast.GeneratorExp)):
            yields = True
        elif isinstance(n, ast.Call) and (n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id
                                          if isinstance(n.func, ast.Name) else "") in ("range", "islice"):
            calls = True
        if yields and calls:
            return True
    return False


def _concatenates(function: ast.AST) -> bool:
    """A call named like a concatenation in the function: worth asking the model whether it returns a parameter
    grown (a cheap test; the model decides)."""
    return any(isinstance(n, ast.Call) and (n.func.attr if isinstance(n.func, ast.Attribute) else
                                            n.func.id if isinstance(n.func, ast.Name) else "") in _CAT_NAMES
               for n in walk(function))


def _init_args(node: ast.ClassDef) -> Optional[tuple[str, ...]]:
    """The positional parameters of the class's own ``__init__`` after ``self``; None without one, or with
    ``*args`` (the positions then say nothing)."""
    init = next((child for child in node.body if isinstance(child, ast.FunctionDef) and child.name == "__init__"),
                None)
    if init is None or init.args.vararg is not None:
        return None
    return tuple(a.arg for a in [*init.args.posonlyargs, *init.args.args][1:])

