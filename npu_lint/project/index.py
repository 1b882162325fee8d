"""The project index: every module's facts, names resolved across modules, and the call graph on top.

Build it with :meth:`ProjectIndex.build`; ask it:

* :meth:`ProjectIndex.resolve` -- where a dotted name is defined (through re-exports and star imports);
* :meth:`ProjectIndex.public_names` -- the shorter paths a definition is re-exported under;
* :meth:`ProjectIndex.callees` -- the resolved calls of a function (methods through the class hierarchy,
  ``self`` and ``super()`` calls, objects held in ``self.x`` by their constructors, ``functools.partial``);
* :meth:`ProjectIndex.reaches` -- the shortest call chain from a function to a leaf (any name a predicate
  accepts: a torch API, a custom operator), cached per predicate and safe on cycles;
* :meth:`ProjectIndex.reached` -- for every function, every leaf it reaches (what ``-m third_party`` writes).

Nothing is imported or executed: facts come from :mod:`npu_lint.project.facts`, one parse per file, cached
by content hash (:mod:`npu_lint.project.cache`).
"""
from __future__ import annotations

import gc
from collections import deque
from pathlib import Path
from typing import Callable, Iterable, NamedTuple, Optional, Sequence

from npu_lint.project.cache import FactsCache
from npu_lint.project.facts import ClassFacts, FunctionFacts, ModuleFacts
from npu_lint.project.modules import ModuleFile, NativeFile, NoPackage, discover
from npu_lint.project.parsed import ParsedFiles

LeafPredicate = Callable[[str], bool]
_MAX_DEPTH = 12


class Site(NamedTuple):
    """Where a function reaches a leaf directly."""

    function: str
    api: str
    file: str
    line: int


class Edge(NamedTuple):
    callee: str
    line: int


class Stats(NamedTuple):
    modules: int
    functions: int
    classes: int
    calls_resolved: int
    calls_unresolved: int
    unknown_receivers: int


class ProjectIndex:
    """Facts of a set of modules, resolved against each other."""

    def __init__(self, modules: Sequence[ModuleFacts], native_ops: Sequence[tuple[str, str]] = (),
                 own: Optional[frozenset[str]] = None, warnings: Sequence[str] = ()) -> None:
        self.modules: dict[str, ModuleFacts] = {}
        for facts in modules:
            self.modules.setdefault(facts.name, facts)
        self.own = own if own is not None else frozenset(self.modules)   # modules of the analysed code (not -env)
        self.custom_ops: dict[str, str] = {}   # operator -> the C++/CUDA file that exports it
        self.registered: tuple[tuple[str, str], ...] = ()   # (TORCH_LIBRARY namespace or "", operator)
        for relative, op in native_ops:
            self.custom_ops.setdefault(op, relative)
        self.warnings = list(warnings)
        self.functions: dict[str, tuple[ModuleFacts, FunctionFacts]] = {}
        self.classes: dict[str, tuple[ModuleFacts, ClassFacts]] = {}
        self._imports: dict[str, dict[str, str]] = {}
        for facts in self.modules.values():
            self._imports[facts.name] = dict(facts.imports)
            for function in facts.functions:
                self.functions[f"{facts.name}.{function.name}"] = (facts, function)
            for cls in facts.classes:
                self.classes[f"{facts.name}.{cls.name}"] = (facts, cls)
        self._resolved: dict[str, Optional[str]] = {}
        self._mro: dict[str, tuple[str, ...]] = {}
        self._edges: Optional[dict[str, tuple[Edge, ...]]] = None
        self._leaf_calls: dict[str, tuple[tuple[str, int], ...]] = {}
        self._built: set[tuple[str, str]] = set()
        self._callers: Optional[dict[str, list[str]]] = None
        self._reach_cache: dict[object, dict[str, tuple[Optional[str], int, Site]]] = {}
        self._aliases: Optional[dict[str, list[str]]] = None
        self.calls_resolved = self.calls_unresolved = 0

    # -- building ------------------------------------------------------------------------------
    @classmethod
    def build(cls, roots: Iterable[Path], env_paths: Iterable[Path] = (), cache_dir: Optional[Path] = None,
              progress: Optional[Callable[[int, int, str], None]] = None,
              keep: Optional[ParsedFiles] = None, light: bool = False) -> "ProjectIndex":
        """Index the modules under ``roots`` (the analysed code) and ``env_paths`` (import roots it uses); the
        files of ``roots`` it parses go to ``keep`` (within its budget) for a rule walk that follows. ``light``:
        the facts the semantic model asks about (names, return values, class bases), without the call graph
        (:meth:`callees`, :meth:`reaches` and :meth:`reached` then find no calls).

        Raises :class:`~npu_lint.project.modules.NoPackage` when ``roots`` hold no Python module.
        """
        warnings: list[str] = []
        own_files: list[ModuleFile] = []
        native: list[NativeFile] = []
        for root in roots:
            found, found_native = discover(Path(root), warnings)
            own_files.extend(found)
            native.extend(found_native)
        if not own_files:
            raise NoPackage(f"{', '.join(str(r) for r in roots)} holds no Python module")
        env_files: list[ModuleFile] = []
        for root in env_paths:
            found, found_native = discover(Path(root), warnings)
            env_files.extend(found)
            native.extend(found_native)
        cache = FactsCache(cache_dir, light)
        modules = []
        collecting = gc.isenabled()
        gc.disable()   # parsing allocates many short-lived nodes and no cycles: the collector only costs time
        try:
            for number, module in enumerate(own_files + env_files):
                if progress is not None and number < len(own_files):
                    progress(number, len(own_files), module.relative)
                facts = cache.module(module, warnings, keep if number < len(own_files) else None)
                if facts is not None:
                    modules.append(facts)
        finally:
            if collecting:
                gc.enable()
        pairs = [(item.relative, pair) for item in native for pair in cache.native_ops(item, warnings)]
        cache.save()
        own = frozenset(module.name for module in own_files)
        index = cls(modules, [(relative, op) for relative, (_, op) in pairs], own, warnings)
        index.registered = tuple(dict.fromkeys(pair for _, pair in pairs))
        return index

    @classmethod
    def load(cls, cache_dir: Path) -> Optional["ProjectIndex"]:
        """The index as a cache folder last held it, without reading any source (None when there is none)."""
        cache = FactsCache(cache_dir)
        modules, pairs = cache.cached()
        if not modules:
            return None
        index = cls(modules, [("", op) for _, op in pairs])
        index.registered = tuple(dict.fromkeys(pairs))
        return index

    # -- names ---------------------------------------------------------------------------------
    def kind(self, qualname: str) -> Optional[str]:
        """``function``, ``class``, ``module`` or None (not defined in the indexed code)."""
        if qualname in self.functions:
            return "function"
        if qualname in self.classes:
            return "class"
        return "module" if qualname in self.modules else None

    def resolve(self, qualname: str) -> Optional[str]:
        """The definition a dotted name stands for (``timm.layers.create_classifier`` ->
        ``timm.layers.classifier.create_classifier``), or None when the indexed code does not define it."""
        if qualname in self._resolved:
            return self._resolved[qualname]
        self._resolved[qualname] = None   # a re-export cycle resolves to nothing
        found = self._resolve(qualname, 0)
        self._resolved[qualname] = found
        return found

    def _resolve(self, qualname: str, depth: int) -> Optional[str]:
        if self.kind(qualname) is not None:
            return qualname
        if depth > _MAX_DEPTH:
            return None
        parts = qualname.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            head = ".".join(parts[:cut])
            if head in self.modules:
                return self._in_module(head, parts[cut], parts[cut + 1:], depth)
            if head in self.classes and cut == len(parts) - 1:
                return self.method(head, parts[cut])
        return None

    def _in_module(self, module: str, name: str, rest: list[str], depth: int) -> Optional[str]:
        local = f"{module}.{name}"
        if local in self.functions or local in self.classes:
            target = local
        elif name in self._imports.get(module, {}):
            target = self.resolve(self._imports[module][name]) if depth < _MAX_DEPTH else None
            if target is None:
                return None
        else:
            for star in self.modules[module].stars:
                found = self.resolve(".".join([star, name, *rest])) if star != module else None
                if found is not None:
                    return found
            return None
        if not rest:
            return target
        if target in self.classes and len(rest) == 1:
            return self.method(target, rest[0])
        if target in self.modules:
            return self.resolve(".".join([target, *rest]))
        return None

    def mro(self, cls: str) -> tuple[str, ...]:
        """The class and its bases, depth first, left to right (external bases by name, last)."""
        if cls in self._mro:
            return self._mro[cls]
        self._mro[cls] = (cls,)   # cycles in broken code stop here
        order: list[str] = [cls]
        external: list[str] = []
        entry = self.classes.get(cls)
        for base in entry[1].bases if entry else ():
            resolved = self.resolve(base)
            if resolved is not None and resolved in self.classes:
                for item in self.mro(resolved):
                    if item not in order and item not in external:
                        (order if item in self.classes else external).append(item)
            elif base not in external:
                external.append(base)
        self._mro[cls] = tuple(order + external)
        return self._mro[cls]

    def method(self, cls: str, name: str, after: Optional[str] = None) -> Optional[str]:
        """Where ``cls.name`` is defined in the class hierarchy (the first class after ``after`` when given):
        a project method's qualname, ``base.name`` for an external base, or None."""
        order = self.mro(cls)
        if after is not None and after in order:
            order = order[order.index(after) + 1:]
        for klass in order:
            if klass in self.classes:
                if name in self.classes[klass][1].methods:
                    return f"{klass}.{name}"
            elif klass not in ("object", "builtins.object"):
                return f"{klass}.{name}"
        return None

    def _attribute_types(self, cls: str, attr: str) -> list[str]:
        types: list[str] = []
        for klass in self.mro(cls):
            entry = self.classes.get(klass)
            if entry:
                for name, constructors in entry[1].attrs:
                    if name == attr:
                        types.extend(constructors)
        return types

    # -- the call graph ------------------------------------------------------------------------
    def callees(self, function: str) -> tuple[Edge, ...]:
        """The project functions ``function`` calls (resolved), in source order."""
        return self._graph().get(function, ())

    def _graph(self) -> dict[str, tuple[Edge, ...]]:
        if self._edges is None:
            self._edges = {}
            for qualname, (facts, function) in self.functions.items():
                edges, leaves = self._resolve_calls(facts, function)
                self._edges[qualname] = tuple(edges)
                if leaves:
                    self._leaf_calls[qualname] = tuple(leaves)
        return self._edges

    def _resolve_calls(self, facts: ModuleFacts, function: FunctionFacts) -> tuple[list[Edge], list[tuple[str, int]]]:
        edges: list[Edge] = []
        leaves: list[tuple[str, int]] = []   # external names called (torch classes through ``self.x``, ops)
        built: set[str] = set()   # callees reached only because an object is built here (its ``forward``)
        called: set[str] = set()
        owner = f"{facts.name}.{function.owner}" if function.owner else None
        for target, line in function.calls:
            found: list[str] = []
            built_now: set[str] = set()
            if target.startswith("@self.") or target.startswith("@super."):
                name = target.split(".", 1)[1]
                if owner is None:
                    continue
                method = self.method(owner, name, after=owner if target.startswith("@super.") else None)
                if method is not None and method in self.functions:
                    found.append(method)
                elif target.startswith("@self.") and self._attribute_types(owner, name):
                    for constructor in self._attribute_types(owner, name):
                        found.extend(self._instance_call(constructor))
                elif method is not None and method.startswith("torch."):
                    found.append(method)   # inherited from a torch class: ``torch.nn.Module.share_memory``
            elif target.startswith("@selfattr."):   # ``self.pool.reset()``
                if owner is None:
                    continue
                attr, _, name = target[len("@selfattr."):].partition(".")
                for origin in self._attribute_types(owner, attr):
                    found.extend(self._method_of_value(origin, name))
            elif target.startswith("@on|"):   # ``opt = Adam(...); opt.step()``
                _, name, origin = target.split("|", 2)
                found.extend(self._method_of_value(origin, name))
            elif target.startswith("@result."):   # calling what a call returned
                found.extend(self._instance_call(target[len("@result."):]))
            elif target.startswith(("torch.", "torch_npu.")):
                continue   # the references carry torch names
            else:
                found.extend(self._call_target(target, built_now))
            if not found:
                self.calls_unresolved += 1
                continue
            self.calls_resolved += 1
            for callee in found:
                (built if callee in built_now else called).add(callee)
                if callee in self.functions:
                    edges.append(Edge(callee, line))
                else:
                    leaves.append((callee, line))
        qualname = f"{facts.name}.{function.name}"
        for callee in built - called:
            self._built.add((qualname, callee))
        return edges, leaves

    def built_edge(self, caller: str, callee: str) -> bool:
        """True when ``caller`` reaches ``callee`` only by building the object whose ``forward`` it is."""
        return (caller, callee) in self._built

    def _call_target(self, target: str, built: Optional[set[str]] = None) -> list[str]:
        resolved = self.resolve(target)
        if resolved is None:
            return [target]   # outside the indexed code: kept by name (a compiled extension's operator ...)
        if resolved in self.classes:
            # Building an object runs ``__init__`` (or an external base's constructor); a module is built to be
            # called, so its ``forward`` / ``__call__`` counts as reached too.
            found = []
            init = self.method(resolved, "__init__")
            if init is not None:
                found.append(init if init in self.functions else init.rpartition(".")[0])
            else:
                found.extend(base for base in self.mro(resolved) if base not in self.classes)
            forward = self._instance_call(resolved)
            if built is not None:
                built.update(forward)
            found.extend(forward)
            return found or [resolved]
        return [resolved] if resolved in self.functions else []

    def _method_of_value(self, origin: str, name: str, depth: int = 0) -> list[str]:
        """Method ``name`` of a value: of the class (``=X``: ``X`` itself) or of the object a call of ``X`` returns
        (an instance of class ``X``, or what function ``X`` returns); ``torch.optim.Adam.step`` for torch classes."""
        itself = origin.startswith("=")
        target = origin[1:] if itself else origin
        resolved = self.resolve(target)
        if resolved is None:   # a torch class's method (``torch.optim.Adam.step``); other libraries are not followed
            is_torch_class = target.startswith("torch.") and target.rpartition(".")[2][:1].isupper()
            return [f"{target}.{name}"] if is_torch_class else []
        if resolved in self.classes:
            method = self.method(resolved, name)
            if method is not None and (method in self.functions or method.startswith("torch.")):
                return [method]
            return []
        if itself and resolved in self.modules:
            found = self.resolve(f"{resolved}.{name}")
            return [found] if found in self.functions else []
        if not itself and resolved in self.functions and depth < 3:
            return [found for product in self.functions[resolved][1].returns
                    for found in self._method_of_value(product, name, depth + 1)]
        return []

    def _instance_call(self, constructor: str, depth: int = 0) -> list[str]:
        """What calling an object built by ``constructor`` runs: ``forward``/``__call__`` of a project class,
        the class itself for an external one (``torch.nn.AdaptiveMaxPool2d``), through factory functions.
        ``=X`` (the object is ``X`` itself, a class or function held in a variable) calls ``X``."""
        if constructor.startswith("="):
            target = constructor[1:]
            if target.startswith("torch."):
                return [target]
            return [found for found in self._call_target(target) if found in self.functions] if depth < 4 else []
        resolved = self.resolve(constructor)
        if resolved is None:
            return [constructor] if constructor.startswith("torch.") else []
        if resolved in self.classes:
            for name in ("forward", "__call__"):
                method = self.method(resolved, name)
                if method is not None and method in self.functions:
                    return [method]
            return []
        if resolved in self.functions and depth < 3:
            return [found for product in self.functions[resolved][1].returns
                    for found in self._instance_call(product, depth + 1)]
        return []

    def _callers_map(self) -> dict[str, list[str]]:
        if self._callers is None:
            callers: dict[str, list[str]] = {}
            for caller, edges in self._graph().items():
                for edge in edges:
                    bucket = callers.setdefault(edge.callee, [])
                    if not bucket or bucket[-1] != caller:
                        bucket.append(caller)
            self._callers = callers
        return self._callers

    def direct_sites(self, predicate: LeafPredicate) -> list[Site]:
        """Every place a function uses a leaf directly (a reference, or a call of an external name)."""
        self._graph()
        sites = []
        for qualname, (facts, function) in self.functions.items():
            for api, line in function.refs + self._leaf_calls.get(qualname, ()):
                if predicate(api):
                    sites.append(Site(qualname, api, facts.relative, line))
        return sites

    # -- reachability --------------------------------------------------------------------------
    def reaches(self, qualname: str, predicate: LeafPredicate, key: object = None) -> Optional[list[str]]:
        """The shortest chain ``[qualname, ..., leaf api]`` from a function to a leaf, or None.

        Propagated once per predicate (``key`` names it when the predicate object changes between calls)
        from the leaves backwards over the call graph, so cycles and long chains cost nothing extra.
        """
        table = self._reach_cache.get(key if key is not None else predicate)
        if table is None:
            table = self._propagate(self.direct_sites(predicate))
            self._reach_cache[key if key is not None else predicate] = table
        resolved = self.resolve(qualname) or qualname
        if resolved not in table:
            return None
        return self._chain(resolved, table)

    def _propagate(self, sites: Sequence[Site]) -> dict[str, tuple[Optional[str], int, Site]]:
        """function -> (next function on the shortest path or None at the leaf, distance, the leaf site)."""
        table: dict[str, tuple[Optional[str], int, Site]] = {}
        queue: deque[str] = deque()
        for site in sites:
            if site.function not in table:
                table[site.function] = (None, 0, site)
                queue.append(site.function)
        callers = self._callers_map()
        while queue:
            function = queue.popleft()
            _, distance, site = table[function]
            for caller in callers.get(function, ()):
                if caller not in table:
                    table[caller] = (function, distance + 1, site)
                    queue.append(caller)
        return table

    @staticmethod
    def _chain(function: str, table: dict[str, tuple[Optional[str], int, Site]]) -> list[str]:
        chain = [function]
        step = table[function]
        while step[0] is not None:
            chain.append(step[0])
            step = table[step[0]]
        chain.append(step[2].api)
        return chain

    def reached(self, predicate: LeafPredicate) -> dict[str, dict[str, tuple[list[str], Site]]]:
        """For every function of the analysed code, every leaf api it reaches with the shortest chain and the
        leaf's site: ``{function: {api: ([function, ..., api], site)}}``."""
        by_api: dict[str, list[Site]] = {}
        for site in self.direct_sites(predicate):
            by_api.setdefault(site.api, []).append(site)
        result: dict[str, dict[str, tuple[list[str], Site]]] = {}
        for api, sites in by_api.items():
            table = self._propagate(sites)
            for function in table:
                if self.functions[function][0].name in self.own:
                    result.setdefault(function, {})[api] = (self._chain(function, table), table[function][2])
        return result

    # -- public names --------------------------------------------------------------------------
    def public_names(self, qualname: str) -> list[str]:
        """The names a definition is imported under: its own path first, then the package re-exports
        (``__init__`` imports and star imports, honouring ``__all__``), shortest first."""
        head, tail = self._top_level(qualname)
        aliases = self._alias_map()
        names = {head}
        queue = deque([head])
        while queue and len(names) < 64:
            for alias in aliases.get(queue.popleft(), ()):
                if alias not in names:
                    names.add(alias)
                    queue.append(alias)
        names.discard(head)
        ordered = [head] + sorted(names, key=lambda n: (len(n.split(".")), len(n), n))
        return [name + tail for name in ordered]

    def _top_level(self, qualname: str) -> tuple[str, str]:
        """``(module.Class, '.method')`` for a method; the definition a re-export can name."""
        parts = qualname.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if module in self.modules:
                top = f"{module}.{parts[cut]}"
                rest = parts[cut + 1:]
                return top, ("." + ".".join(rest)) if rest else ""
        return qualname, ""

    def _alias_map(self) -> dict[str, list[str]]:
        """definition -> the package-level names that re-export it."""
        if self._aliases is None:
            aliases: dict[str, list[str]] = {}
            for facts in self.modules.values():
                if not facts.is_package:
                    continue
                exported = set(facts.exported) if facts.exported is not None else None
                for name, target in facts.imports:
                    if name.startswith("_") or (exported is not None and name not in exported):
                        continue
                    resolved = self.resolve(target)
                    if resolved is not None and resolved != f"{facts.name}.{name}":
                        aliases.setdefault(resolved, []).append(f"{facts.name}.{name}")
                for star in facts.stars:
                    source = self.modules.get(star)
                    if source is None:
                        continue
                    for name in _star_names(source):
                        if exported is not None and name not in exported:
                            continue
                        resolved = self.resolve(f"{star}.{name}")
                        if resolved is not None:
                            aliases.setdefault(resolved, []).append(f"{facts.name}.{name}")
            self._aliases = aliases
        return self._aliases

    def stats(self) -> Stats:
        self._graph()
        unknown = sum(facts.unknown_receivers for facts in self.modules.values())
        unresolved = self.calls_unresolved + sum(facts.unresolved for facts in self.modules.values())
        return Stats(len(self.modules), len(self.functions), len(self.classes), self.calls_resolved, unresolved,
                     unknown)


def _star_names(facts: ModuleFacts) -> list[str]:
    if facts.exported is not None:
        return list(facts.exported)
    names = [f.name for f in facts.functions if "." not in f.name]
    names += [c.name for c in facts.classes if "." not in c.name]
    names += [name for name, _ in facts.imports]
    return [name for name in names if not name.startswith("_")]
