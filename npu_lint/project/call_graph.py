"""The call graph of the project index and reachability over it: the resolved calls of every function (methods
through the class hierarchy, ``self`` and ``super()`` calls, objects held in ``self.x`` by their constructors,
``functools.partial``), the sites where a function uses a leaf directly, and the shortest chains from functions to
leaves (propagated backwards once per predicate, safe on cycles).

A mixin of :class:`npu_lint.project.index.ProjectIndex`, which supplies ``functions``, ``classes``, ``own``,
``resolve``, ``mro``, ``method``, ``_attribute_types`` and the caches.
"""
from __future__ import annotations

from collections import deque
from typing import Callable, NamedTuple, Optional, Sequence

from npu_lint.project.fact_types import FunctionFacts, ModuleFacts

LeafPredicate = Callable[[str], bool]


class Site(NamedTuple):
    """Where a function reaches a leaf directly."""

    function: str
    api: str
    file: str
    line: int


class Edge(NamedTuple):
    callee: str
    line: int


class CallGraph:
    """The call graph and reachability (mixed into the ProjectIndex)."""

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
