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
by content hash (:mod:`npu_lint.project.cache`). The call graph and reachability are in
:mod:`npu_lint.project.call_graph`.
"""
from __future__ import annotations

import gc
import os
from collections import deque
from pathlib import Path
from typing import Callable, Iterable, NamedTuple, Optional, Sequence

from npu_lint.project.cache import FactsCache
from npu_lint.project.extensions import EXTENSION
from npu_lint.project.call_graph import CallGraph, Edge, LeafPredicate, Site   # noqa: F401  (re-exported)
from npu_lint.project.facts import ClassFacts, FunctionFacts, ModuleFacts
from npu_lint.project.modules import ModuleFile, NativeFile, NoPackage, discover
from npu_lint.project.parsed import ParsedFiles

_MAX_DEPTH = 12


class Stats(NamedTuple):
    modules: int
    functions: int
    classes: int
    calls_resolved: int
    calls_unresolved: int
    unknown_receivers: int


_TORCH_PACKAGES = frozenset({"torch", "torchvision", "torchaudio", "torch_npu", "torch_geometric", "torch_scatter",
                             "mmcv", "detectron2", "dgl"})


class ProjectIndex(CallGraph):
    """Facts of a set of modules, resolved against each other."""

    def __init__(self, modules: Sequence[ModuleFacts], native_ops: Sequence[tuple[str, str]] = (),
                 own: Optional[frozenset[str]] = None, warnings: Sequence[str] = ()) -> None:
        self.modules: dict[str, ModuleFacts] = {}
        for facts in modules:
            self.modules.setdefault(facts.name, facts)
        self.own = own if own is not None else frozenset(self.modules)   # modules of the analysed code (not -env)
        self.custom_ops: dict[str, str] = {}   # operator -> the C++/CUDA file that exports it
        self.registered: tuple[tuple[str, str], ...] = ()   # (TORCH_LIBRARY namespace or "", operator)
        self.extensions: frozenset[str] = frozenset()   # the compiled modules the project's setup.py files declare
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
        self._misses: list[str] = []   # names tried through star imports that named nothing (forgotten after each
        #                                resolve: 84,000 such tries were 9 MB of memo on a 2,500-file walk)
        self._mro: dict[str, tuple[str, ...]] = {}
        self._edges: Optional[dict[str, tuple[Edge, ...]]] = None
        self._leaf_calls: dict[str, tuple[tuple[str, int], ...]] = {}
        self._built: set[tuple[str, str]] = set()
        self._callers: Optional[dict[str, list[str]]] = None
        self._reach_cache: dict[object, dict[str, tuple[Optional[str], int, Site]]] = {}
        self._aliases: Optional[dict[str, list[str]]] = None
        self._external: dict[str, Optional[str]] = {}
        self._packages = frozenset(name.split(".", 1)[0] for name in self.modules)   # the top-level names indexed
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
        if keep is not None:
            keep.plan(sum(_size(module.path) for module in own_files))
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
        declared = frozenset(op for _, (kind, op) in pairs if kind == EXTENSION)
        pairs = [(relative, pair) for relative, pair in pairs if pair[0] != EXTENSION]
        index = cls(modules, [(relative, op) for relative, (_, op) in pairs], own, warnings)
        index.registered = tuple(dict.fromkeys(pair for _, pair in pairs))
        index.extensions = declared
        return index

    @classmethod
    def load(cls, cache_dir: Path) -> Optional["ProjectIndex"]:
        """The index as a cache folder last held it, without reading any source (None when there is none)."""
        cache = FactsCache(cache_dir)
        modules, pairs = cache.cached()
        if not modules:
            return None
        declared = frozenset(op for kind, op in pairs if kind == EXTENSION)
        pairs = [pair for pair in pairs if pair[0] != EXTENSION]
        index = cls(modules, [("", op) for _, op in pairs])
        index.registered = tuple(dict.fromkeys(pairs))
        index.extensions = declared
        return index

    # -- names ---------------------------------------------------------------------------------
    def kind(self, qualname: str) -> Optional[str]:
        """``function``, ``class``, ``module`` or None (not defined in the indexed code)."""
        if qualname in self.functions:
            return "function"
        if qualname in self.classes:
            return "class"
        return "module" if qualname in self.modules else None

    def host_only_function(self, qualname: str) -> bool:
        """``qualname`` is a function of the indexed code whose module imports no torch package at module level
        (``topaz.algorithms.non_maximum_suppression`` in a module of numpy and scipy imports): host work."""
        found = self.functions.get(self.resolve(qualname) or "")
        if found is None:
            return False
        return not any(target.split(".", 1)[0] in _TORCH_PACKAGES for _, target in found[0].imports)

    def kernel_language(self, qualname: str) -> Optional[str]:
        """``triton`` (or ``numba.cuda``) when ``qualname`` is a function of the indexed code whose module imports
        that GPU kernel language at module level (whisper's ``triton_ops.dtw_kernel``), else None."""
        found = self.functions.get(self.resolve(qualname) or "")
        if found is None:
            return None
        for _, target in found[0].imports:
            if target == "triton" or target.startswith("triton."):
                return "triton"
            if target.startswith("numba.cuda"):
                return "numba.cuda"
        return None

    def holds_package(self, qualname: str) -> bool:
        """The top-level package of ``qualname`` is one of the analysed code's own (not only an -env path's)."""
        own = getattr(self, "_own_packages", None)
        if own is None:
            own = self._own_packages = frozenset(name.split(".", 1)[0] for name in self.own)
        return qualname.split(".", 1)[0] in own

    def resolve(self, qualname: str) -> Optional[str]:
        """The definition a dotted name stands for (``timm.layers.create_classifier`` ->
        ``timm.layers.classifier.create_classifier``), or None when the indexed code does not define it."""
        found = self._resolve_at(qualname, 0)
        if self._misses:
            resolved = self._resolved
            for miss in self._misses:
                if miss != qualname and miss in resolved and resolved[miss] is None:
                    del resolved[miss]
            self._misses.clear()
        return found

    def _resolve_at(self, qualname: str, depth: int) -> Optional[str]:
        """:meth:`resolve` from inside a resolution ``depth`` steps deep: a name that grows at every step (a star
        import of a module that is not indexed, re-read through its package) stops at ``_MAX_DEPTH``."""
        if qualname in self._resolved:
            return self._resolved[qualname]
        if depth > _MAX_DEPTH:
            return None   # not memoised: the name may resolve when asked from nearer the top
        self._resolved[qualname] = None   # a re-export cycle resolves to nothing
        found = self._resolve(qualname, depth)
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

    def external(self, qualname: str) -> Optional[str]:
        """The name outside the indexed code that a project name re-exports (``pkg.types.Tensor`` ->
        ``torch.Tensor`` after ``Tensor = torch.Tensor`` in ``pkg/types.py``; ``pkg.compat.autocast`` ->
        ``torch.cuda.amp.autocast`` after ``from torch.cuda.amp import autocast`` there), through other project
        modules' imports; None for the project's own definitions and for names it does not import."""
        if qualname not in self._external:
            self._external[qualname] = None   # a re-export cycle names nothing
            self._external[qualname] = self._external_of(qualname, 0)
        return self._external[qualname]

    def _external_of(self, qualname: str, depth: int) -> Optional[str]:
        if depth > _MAX_DEPTH:
            return None
        kind = self.kind(qualname)
        if kind == "module":   # ``from pkg.tu import torch`` after ``from .torch import torch as torch`` in pkg/tu
            return self._rebound_import(qualname)
        if kind is not None:
            return None
        parts = qualname.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            head = ".".join(parts[:cut])
            if head not in self.modules:
                continue
            name, rest = parts[cut], parts[cut + 1:]
            if f"{head}.{name}" in self.functions or f"{head}.{name}" in self.classes:
                return None
            target = self._imports.get(head, {}).get(name)
            if target is None:
                # ``from .torch import torch as torch`` in the package: importers of ``pkg.torch`` get that name,
                # not the submodule (``torch.nonzero`` where the submodule binds no ``nonzero``)
                target = self._rebound_import(head)
                if target is None:
                    return None
                rest = parts[cut:]
            full = ".".join([target, *rest])
            if self.resolve(full) is not None:
                return None   # a project definition
            if target.split(".", 1)[0] in self._packages:
                return self.external(full) if depth < _MAX_DEPTH else None
            return full
        return None

    def _rebound_import(self, module: str) -> Optional[str]:
        """What the package of ``module`` binds under the module's own name when that is a name the module
        imports from outside the project: ``from .torch import torch as torch`` in ``pkg/tu/__init__.py`` gives
        importers of ``pkg.tu.torch`` the ``torch`` that ``pkg/tu/torch.py`` imports, not the submodule."""
        package, _, last = module.rpartition(".")
        rebound = self._imports.get(package, {}).get(last) if package else None
        if rebound is None or not rebound.startswith(module + "."):
            return None
        target = self._imports.get(module, {}).get(rebound[len(module) + 1:])
        if target is None or target.split(".", 1)[0] in self._packages:
            return None
        return target

    def _in_module(self, module: str, name: str, rest: list[str], depth: int) -> Optional[str]:
        local = f"{module}.{name}"
        if local in self.functions or local in self.classes:
            target = local
        elif name in self._imports.get(module, {}):
            target = self._resolve_at(self._imports[module][name], depth + 1)
            if target is None:
                return None
        else:
            for star in self.modules[module].stars:
                if star == module or star not in self.modules:
                    continue
                tried = ".".join([star, name, *rest])
                found = self._resolve_at(tried, depth + 1)
                if found is not None:
                    return found
                self._misses.append(tried)
            return None
        if not rest:
            return target
        if target in self.classes and len(rest) == 1:
            return self.method(target, rest[0])
        if target in self.modules:
            return self._resolve_at(".".join([target, *rest]), depth + 1)
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


def _size(path: Path) -> int:
    """A file's size in bytes (about its characters), 0 when it cannot be read: only for sizing the tree budget."""
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
