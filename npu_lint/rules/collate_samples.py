"""The samples a collate function receives: a function passed as ``collate_fn=`` (a keyword of any call,
``DataLoader(ds, collate_fn=f)`` or ``super().__init__(..., collate_fn=f)``, a parameter's default value
``collate_fn=f``, a ``{"collate_fn": f}`` entry) gets one batch's samples as its first parameter (after ``self``).
So do the functions another module of the project passes so (the project index's ``collates`` facts:
``collate_fn=collate_batch`` imported from here, ``collate_fn=dataset.collater``) and a dataset's own
``collate_fn`` / ``collater`` method (the name torch's DataLoader and fairseq give it), or a DataLoader subclass's own
``collate_fn`` method; and the helpers and batching classes a collate function hands its samples to
(collate_handoffs.py). Found once per file, and only in files that mention ``collat`` or that the index names (the
others cost nothing). Shared by NPU409 (sample_items.py)."""
from __future__ import annotations

import ast
import bisect
from typing import Optional

from npu_lint.analysis.nodes import children as _children   # ``ast.iter_child_nodes``, as a list
from npu_lint.analysis import kinds as K
from npu_lint.analysis.bindings import Binding, Scope
from npu_lint.analysis.scopes import Scopes
from npu_lint.analysis.summaries import method_def
from npu_lint.context import FileContext
from npu_lint.rules.collate_handoffs import handed_over

_KEY = "collate_fn"
_DATASET_METHODS = frozenset({"collate_fn", "collater"})
_PARTIAL = frozenset({"functools.partial"})
_KEEP_ORDER = frozenset({"list", "tuple", "sorted"})


def may_collate(ctx: FileContext) -> bool:
    """The file may define a collate function: it mentions ``collat`` or the project index says another module
    passes one of its functions (a cheap test, before any binding is asked about)."""
    if ctx.mentions("collat"):
        return True
    if ctx.project is None:
        return False
    found = ctx.scratch.get("may_collate")
    if found is None:   # asked per list a rule looks at: the index is asked once per file
        functions, methods = ctx.project.collate_parameters(ctx.module)
        found = ctx.scratch["may_collate"] = bool(functions) or bool(methods)
    return found


def collate_samples(binding: Binding, ctx: FileContext, depth: int = 0) -> Optional[str]:
    """Why the parameter ``binding`` holds one batch's samples (its function is passed as a collate function,
    with the line), or a name bound again to some of them (``batch = [b for b in batch if b is not None]``,
    ``sorted(batch, key=...)``), else None."""
    if binding.tag == "value" and depth < 2:
        kept = _kept_samples(binding, ctx)
        return collate_samples(kept, ctx, depth + 1) if kept is not None else None
    if binding.tag != "param":
        return None
    entry = _parameters(ctx).get(id(binding.scope.node))
    if entry is None or entry[0] != binding.name:
        return None
    return entry[1]


def collate_attribute(node: ast.Attribute, ctx: FileContext) -> Optional[str]:
    """Why ``self.graphs`` in a dataclass's ``__post_init__`` holds one batch's samples (a collate function built
    the dataclass with them: collate_handoffs.py), else None."""
    if not isinstance(node.value, ast.Name):
        return None
    binding = ctx.resolver.binding(node.value)
    if binding is None or binding.tag != "param":
        return None
    entry = _parameters(ctx).get(id(binding.scope.node))
    return entry[1] if entry is not None and entry[0] == f"{node.value.id}.{node.attr}" else None


def _parameters(ctx: FileContext) -> dict[int, tuple[str, str]]:
    found = ctx.scratch.get("collate_samples")
    if found is None:
        found = ctx.scratch["collate_samples"] = _collate_parameters(ctx)
    return found


def collate_path(function: ast.AST, ctx: FileContext) -> Optional[str]:
    """Why ``function`` builds a batch from one batch's samples (it is passed as a collate function, or a
    collate function hands it its samples), else None."""
    if not may_collate(ctx):
        return None
    entry = _parameters(ctx).get(id(function))
    return entry[1] if entry is not None else None


def _kept_samples(binding: Binding, ctx: FileContext) -> Optional[Binding]:
    """The binding of the sequence whose items (some of them, in some order) a name is bound to:
    ``[b for b in batch if b is not None]``, ``list(batch)``, ``sorted(batch, key=len)``."""
    value = binding.value
    if binding.path:
        return None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _KEEP_ORDER \
            and len(value.args) == 1:
        value = value.args[0]
    elif isinstance(value, ast.ListComp) and len(value.generators) == 1 \
            and isinstance(value.elt, ast.Name) and isinstance(value.generators[0].target, ast.Name) \
            and value.elt.id == value.generators[0].target.id:
        value = value.generators[0].iter
    else:
        return None
    return ctx.resolver.binding(value, binding.scope) if isinstance(value, ast.Name) else None


def unzipped_samples(binding: Binding, ctx: FileContext) -> Optional[str]:
    """``images, targets = zip(*batch)`` (``list(zip(*batch))``) in a collate function: ``targets`` holds one
    field of every sample."""
    value = binding.value
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("list", "tuple") \
            and len(value.args) == 1 and not value.keywords:
        value = value.args[0]
    if binding.tag != "value" or len(binding.path) != 1 or not isinstance(value, ast.Call) \
            or not isinstance(value.func, ast.Name) or value.func.id != "zip" or len(value.args) != 1 \
            or not isinstance(value.args[0], ast.Starred) or not isinstance(value.args[0].value, ast.Name):
        return None
    samples = ctx.resolver.binding(value.args[0].value, binding.scope)
    why = collate_samples(samples, ctx) if samples is not None else None
    return f"field {binding.path[0]} of {why}" if why else None


def _collate_parameters(ctx: FileContext) -> dict[int, tuple[str, str]]:
    """Per function of the file passed as a collate function (or handed a collate function's samples): the name
    of the parameter that receives the samples and why (``... receives as collate_fn (line 12)``)."""
    scopes = ctx.resolver.scopes
    source = ctx.source
    if scopes is None:
        return {}
    found: dict[int, tuple[str, str]] = {}
    if ctx.mentions(_KEY):
        _passed_here(scopes, source, ctx, found)
    functions, methods = ctx.project.collate_parameters(ctx.module) if ctx.project is not None else ({}, {})
    if functions or methods or ctx.mentions("collat"):
        _passed_elsewhere(scopes, functions, methods, ctx, found)
    if found:
        handed_over(found, scopes, ctx)
    return found


def _why(function: ast.AST, where: str) -> str:
    return f"the samples {getattr(function, 'name', 'a function')} receives as collate_fn ({where})"


def _passed_here(scopes: Scopes, source: str, ctx: FileContext, found: dict[int, tuple[str, str]]) -> None:
    """The file's own ``collate_fn=`` values. Only the statements whose own lines mention ``collate_fn`` are read."""
    lines: list[int] = []
    at, line, counted = source.find(_KEY), 1, 0
    while at >= 0:   # the line of each mention, counting newlines once from the previous one
        line += source.count("\n", counted, at)
        counted = at
        if not lines or lines[-1] != line:
            lines.append(line)
        at = source.find(_KEY, at + len(_KEY))
    for statement, scope in scopes.statements:
        first = bisect.bisect_left(lines, statement.lineno)
        if first == len(lines) or lines[first] > _own_end(statement):
            continue
        for value in _passed(statement):
            for function, offset in _functions_of(value, scope, ctx, 0):
                arguments = getattr(function, "args", None)
                params = [*arguments.posonlyargs, *arguments.args] if arguments is not None else []
                if offset < len(params):
                    found.setdefault(id(function), (params[offset].arg, _why(function, f"line {value.lineno}")))


def _passed_elsewhere(scopes: Scopes, functions: dict[str, int], methods: dict[str, int], ctx: FileContext,
                      found: dict[int, tuple[str, str]]) -> None:
    """The file's functions another module passes as a collate function (by their qualname in the module, or as
    a method of an object it does not type), the ``collate_fn`` / ``collater`` methods of its datasets and the
    ``collate_fn`` methods of its DataLoader subclasses (``class Loader(DataLoader): def collate_fn(self, index)``:
    the base passes ``collate_fn=self.collate_fn``)."""
    for scope in list(scopes.by_node.values()):
        node = scope.node
        if scope.kind != "function" or id(node) in found or not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        owner = scope.parent if scope.parent is not None and scope.parent.kind == "class" else None
        position, why = functions.get(_qualname(scope)), "passed in another module"
        if position is None and owner is not None:
            position = methods.get(node.name)
            if position is None and (node.name in _DATASET_METHODS or "collate" in node.name):
                kind = (ctx.resolver.class_value(owner.node) or ("",))[0]
                if kind == K.DATASET or (kind == K.LOADER and node.name == _KEY):
                    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
                    position = 0 if static else 1   # ``@staticmethod def ignore_none_collate(batch)``
                    why = f"a {'dataset' if kind == K.DATASET else 'data loader'}'s collate method"
        params = [*node.args.posonlyargs, *node.args.args]
        if position is not None and position < len(params):
            found[id(node)] = (params[position].arg, _why(node, why))


def _qualname(scope: Scope) -> str:
    """``Collater.__call__``, ``outer.inner``: a function's name inside its module."""
    names = []
    while scope is not None and scope.kind != "module":
        names.append(getattr(scope.node, "name", "<lambda>"))
        scope = scope.parent
    return ".".join(reversed(names))


def _own_end(statement: ast.stmt) -> int:
    """The last line of a statement's header (a compound statement's body is read as its own statements)."""
    body = getattr(statement, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
        return max(body[0].lineno - 1, statement.lineno)
    return statement.end_lineno or statement.lineno


def _passed(statement: ast.stmt) -> list[ast.AST]:
    """The values a statement passes as a collate function: ``collate_fn=f`` keywords, parameter defaults and
    ``{"collate_fn": f}`` entries (in its own expressions, not in the statements of its body)."""
    values: list[ast.AST] = []
    stack: list[ast.AST] = [child for field, child in ast.iter_fields(statement) if isinstance(child, ast.AST)
                            and not isinstance(child, ast.stmt)]
    stack += [item for field, child in ast.iter_fields(statement) if isinstance(child, list)
              for item in child if isinstance(item, ast.AST) and not isinstance(item, ast.stmt)]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.keyword) and node.arg == _KEY:
            values.append(node.value)
        elif isinstance(node, ast.Dict):
            values += [v for k, v in zip(node.keys, node.values)
                       if isinstance(k, ast.Constant) and k.value == _KEY]
        elif isinstance(node, ast.arguments):
            positional = [*node.posonlyargs, *node.args]
            pairs = list(zip(positional[len(positional) - len(node.defaults):], node.defaults))
            pairs += [(a, d) for a, d in zip(node.kwonlyargs, node.kw_defaults) if d is not None]
            values += [default for arg, default in pairs if arg.arg == _KEY]
        stack.extend(_children(node))
    return values


def _functions_of(value: ast.AST, scope: Scope, ctx: FileContext, depth: int) -> list[tuple[ast.AST, int]]:
    """The file's functions a value passed as a collate function runs, each with the index of the parameter that
    receives the samples: ``f``, ``self.collate``, ``Dataset.collate_fn`` (a static method), ``partial(f, pad)``,
    ``Collator()`` (its ``__call__``), ``lambda b: f(b, tok)``, either arm of ``f if quad else g``, a name bound
    to one of these."""
    resolver = ctx.resolver
    if depth > 3:
        return []
    if isinstance(value, ast.IfExp):   # ``A.collate4 if quad else A.collate_fn``
        return _functions_of(value.body, scope, ctx, depth + 1) + _functions_of(value.orelse, scope, ctx, depth + 1)
    if isinstance(value, ast.Name):
        binding = resolver.binding(value, scope)
        if binding is not None and binding.tag == "value" and not binding.path and isinstance(
                binding.value, (ast.Call, ast.Lambda, ast.Attribute, ast.IfExp)):
            return _functions_of(binding.value, binding.scope, ctx, depth + 1)
        if binding is None or binding.tag not in ("def", "class"):
            return []
        return _found(resolver.callee(ast.Call(func=value, args=[], keywords=[]), scope))
    if isinstance(value, ast.Attribute):
        cls = resolver.definition(value.value, scope) if isinstance(value.value, ast.Name) else None
        if isinstance(cls, ast.ClassDef):   # ``Dataset.collate_fn``: a static method of a class of the file
            method = next((node for node in cls.body if isinstance(node, ast.FunctionDef) and node.name == value.attr),
                          None)
            static = method is not None and any(isinstance(d, ast.Name) and d.id == "staticmethod"
                                                for d in method.decorator_list)
            return [(method, 0)] if static else []
        if isinstance(value.value, ast.Call):   # ``Collator(params).collate``: the method of an instance made here
            made = resolver.definition(value.value.func, scope)
            if isinstance(made, ast.ClassDef):
                found = method_def(made, value.attr, 1)
                static = found is not None and any(isinstance(d, ast.Name) and d.id == "staticmethod"
                                                   for d in found[0].decorator_list)
                return [(found[0], 0 if static else 1)] if found is not None else []
            return []
        return _found(resolver.callee(ast.Call(func=value, args=[], keywords=[]), scope))
    if isinstance(value, ast.Lambda) and isinstance(value.body, ast.Call) and value.args.args:
        first = value.args.args[0].arg
        position = next((i for i, a in enumerate(value.body.args) if isinstance(a, ast.Name) and a.id == first), None)
        if position is None or any(isinstance(a, ast.Starred) for a in value.body.args[:position]):
            return []
        return [(f, offset + position) for f, offset in _functions_of(value.body.func, scope, ctx, depth + 1)]
    if isinstance(value, ast.Call):
        if resolver.qualname(value.func, scope) in _PARTIAL and value.args:
            bound = len(value.args) - 1
            return [(f, offset + bound) for f, offset in _functions_of(value.args[0], scope, ctx, depth + 1)]
        cls = resolver.definition(value.func, scope)
        if isinstance(cls, ast.ClassDef):
            return _found(method_def(cls, "__call__", 1))
    return []


def _found(target: Optional[tuple[ast.AST, int]]) -> list[tuple[ast.AST, int]]:
    return [target] if target is not None else []
