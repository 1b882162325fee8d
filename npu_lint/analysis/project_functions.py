"""The project index's facts of a project function, as the model asks them (:class:`FunctionFacts`, a part of
:class:`npu_lint.analysis.project.ProjectView`): the parameters it sizes a tensor with (``sizes``) and those it
fills from the data when left out (``fills``), whether it returns a value read back from a tensor (``reads``), a
size read from the data (``size_read``) or only comparisons of values of unknown kind (``compares``). Methods are
left out (their owner's class decides). Nothing here is a rule."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from npu_lint.tables import keyed

if TYPE_CHECKING:
    from npu_lint.project.index import ProjectIndex

CHAIN_DEPTH = 6   # how far a chain of returned calls is followed
# a CUDA wrapper (:meth:`FunctionFacts.cuda_wrappers`): at most this many calls, all within this many lines of the def
_WRAPPER_CALLS, _WRAPPER_LINES = 6, 10
_CUDA_METHODS = frozenset({"torch.Tensor.cuda", "torch.nn.Module.cuda"})
# not an action: the availability / count queries, and the seeding a seed_everything() helper does beside the host's
# (torch.cuda.manual_seed is lazy: a no-op without CUDA; its own line is reported where it is written)
_CUDA_QUERIES = frozenset({"torch.cuda.is_available", "torch.cuda.device_count", "torch.cuda.is_bf16_supported",
                           "torch.cuda.is_initialized", "torch.cuda", "torch.cuda.manual_seed",
                           "torch.cuda.manual_seed_all", "torch.cuda.seed", "torch.cuda.seed_all"})


class FunctionFacts:
    """The function facts of a :class:`ProjectView` (``index``, ``absolute`` and ``_size_names`` are the view's)."""

    index: "ProjectIndex"
    _size_names: Optional[frozenset[str]]
    _cuda_wrappers: Optional[dict[str, str]]
    _feature_wrappers: Optional[dict[str, tuple[str, str]]]
    _growth_names: Optional[frozenset[str]]
    _batcher_names: Optional[frozenset[str]]

    def absolute(self, qualname: str, importer: str) -> Optional[str]:   # the view's
        raise NotImplementedError

    def module_function(self, qualname: str, importer: str) -> Optional[tuple[str, Any]]:
        """The absolute name and the facts of the project function ``qualname`` names from ``importer``, when it is
        a module-level function (not a method: its owner's class decides); None otherwise or unknown."""
        target = self.absolute(qualname, importer)
        if target is None or self.index.kind(target) != "function":
            return None
        facts = self.index.functions[target][1]
        return (target, facts) if facts.owner is None else None

    def cuda_wrappers(self) -> dict[str, str]:
        """The project's module-level functions that are small wrappers of a CUDA action, each with the CUDA API it
        wraps (``def gc_cuda(): gc.collect(); torch.cuda.empty_cache()``, ``def to_cuda(batch): ... value.cuda()``):
        a body of few calls, all within a few lines, that uses ``torch.cuda`` (beyond the availability and count
        queries) or ``.cuda()``, and names no NPU API. Calling one is a CUDA use of the caller's line."""
        if self._cuda_wrappers is None:
            found: dict[str, str] = {}
            for name, (_, facts) in self.index.functions.items():
                if facts.owner is not None or len(facts.calls) > _WRAPPER_CALLS:
                    continue
                lines = [line for _, line in facts.calls + facts.refs]
                if not lines or max(lines) - facts.line > _WRAPPER_LINES:
                    continue
                apis = [ref for ref, _ in facts.refs]
                if any("npu" in api for api in apis) or any("npu" in call for call, _ in facts.calls):
                    continue   # it has its NPU arm
                action = next((api for api in apis if api in _CUDA_METHODS
                               or (api.startswith("torch.cuda.") and api not in _CUDA_QUERIES)), None)
                if action is not None:
                    found[name] = action
            self._cuda_wrappers = found
        return self._cuda_wrappers

    def cuda_wrapper_names(self) -> frozenset[str]:
        """The short names of :meth:`cuda_wrappers` and :meth:`cuda_feature_wrappers` (trigger words, a cheap test
        before resolving a call)."""
        return frozenset(name.rpartition(".")[2] for name in (*self.cuda_wrappers(), *self.cuda_feature_wrappers()))

    def cuda_wrapper(self, qualname: str, importer: str) -> Optional[tuple[str, str]]:
        """The absolute name of the project CUDA wrapper ``qualname`` names from ``importer`` and the CUDA API it
        wraps (:meth:`cuda_wrappers`), else None."""
        target = self.absolute(qualname, importer)
        action = self.cuda_wrappers().get(target) if target is not None else None
        return (target, action) if action is not None else None

    def cuda_feature_wrappers(self) -> dict[str, tuple[str, str]]:
        """The project's functions and classes built around a CUDA-only torch feature (``rule_tables/cuda_features.tsv``:
        CUDA graph capture), each with the feature's API it references and the feature: a module-level function whose
        body, or a class (not an ``nn.Module``: a model's capture lines are reported where they are written) one of
        whose methods, names one of the feature's APIs and no NPU API. Unlike :meth:`cuda_wrappers` the body may be of
        any length: ``make_inference_graphed_callable(fn, args)`` (petals), ``CudaGraphWrapper(self.update)``
        (d3rlpy), ``CUDAGraphRunner(model)`` (colossalai) exist only to capture and replay a CUDA graph, so calling
        one (making one) is a use of the feature on the caller's line."""
        if self._feature_wrappers is None:
            apis = keyed("cuda_features.tsv", "api")
            found: dict[str, tuple[str, str]] = {}
            armed: set[str] = set()   # owners with an NPU arm somewhere
            for name, (module, facts) in self.index.functions.items():
                owner = f"{module.name}.{facts.owner}" if facts.owner is not None else name
                if facts.owner is not None and owner not in self.index.classes:
                    continue   # a method of a nested class or a function inside a method: not the caller's name
                refs = [ref for ref, _ in facts.refs]
                if any("npu" in ref for ref in refs) or any("npu" in call for call, _ in facts.calls):
                    armed.add(owner)
                api = next((ref for ref in refs if ref in apis), None)
                if api is not None and owner not in found:
                    found[owner] = (api, apis[api]["feature"])
            self._feature_wrappers = {name: row for name, row in found.items() if name not in armed
                                      and not any(base.startswith("torch.nn") for base in self.index.mro(name)[1:])}
        return self._feature_wrappers

    def cuda_feature_wrapper(self, qualname: str, importer: str) -> Optional[tuple[str, str, str]]:
        """The absolute name of the project wrapper of a CUDA-only feature ``qualname`` names from ``importer``, the
        feature's API it references and the feature (:meth:`cuda_feature_wrappers`), else None."""
        target = self.absolute(qualname, importer)
        row = self.cuda_feature_wrappers().get(target) if target is not None else None
        return (target, *row) if row is not None else None

    def size_helper_names(self) -> frozenset[str]:
        """The short names of the project functions with ``sizes`` (a cheap test before resolving a call)."""
        if self._size_names is None:
            self._size_names = frozenset(name.rpartition(".")[2] for name, (_, facts) in self.index.functions.items()
                                         if facts.sizes and facts.owner is None)
        return self._size_names

    def size_parameters(self, qualname: str, importer: str) -> tuple[tuple[str, int, str], ...]:
        """``(("dim_size", 2, "_scatter_add(dim_size) → zeros()"),)``: the parameters the project function (of
        another module, not a method) sizes a tensor with, each with its position among the positional parameters
        (-1: keyword-only) and the way there (its facts' ``sizes``); () when none or unknown."""
        found = self.module_function(qualname, importer)
        return found[1].sizes if found is not None else ()

    def forward_sizes(self, cls: str) -> tuple[tuple[str, int, str], ...]:
        """The parameters the ``forward`` of the project module class ``cls`` (found along its bases) sizes a tensor
        with, as :meth:`size_parameters` gives them, each position counted after ``self`` (what a call of the module
        passes: ``block(x, idx, total=n)`` runs ``Block.forward(self, x, idx, total)``); () when none or unknown."""
        if cls not in self.index.classes:
            return ()
        target = self.index.method(cls, "forward")
        entry = self.index.functions.get(target) if target is not None else None
        if entry is None or entry[1].owner is None:
            return ()
        return tuple((name, position - 1 if position > 0 else -1, chain) for name, position, chain in entry[1].sizes)

    def filled_sizes(self, qualname: str, importer: str) -> tuple[str, ...]:
        """The size parameters the project function (of another module, not a method) fills from the data when
        a call leaves them out (its facts' ``fills``: ``if dim_size is None: dim_size = int(index.max()) + 1``)."""
        found = self.module_function(qualname, importer)
        return found[1].fills if found is not None else ()

    def returns_read_back(self, qualname: str, importer: str) -> bool:
        """The project function (of another module, not a method) returns a value read back from a tensor on every
        return that is not a constant (its facts' ``reads``)."""
        found = self.module_function(qualname, importer)
        return found is not None and found[1].reads

    def compares_unknowns(self, qualname: str, importer: str, depth: int = 0) -> bool:
        """The project function (of another module, not a method) returns only comparisons of values of unknown
        kind (``return args.rank == 0``), itself or through the functions whose results it returns (``return
        is_local(args) if local else is_global(args)``)."""
        target = self.absolute(qualname, importer) if depth == 0 else self.index.resolve(qualname)
        if target is None or self.index.kind(target) != "function" or depth > CHAIN_DEPTH:
            return False
        facts = self.index.functions[target][1]
        if facts.owner is not None:
            return False
        if getattr(facts, "compares", False):
            return True
        return bool(facts.returns) and all(not r.startswith("@") and self.compares_unknowns(r, importer, depth + 1)
                                           for r in facts.returns)

    def returned_size_read(self, qualname: str, importer: str) -> str:
        """The flavour of a size read from the data that the project function (of another module, not a method) may
        return (its facts' ``size_read``: ``return int(mask.sum())``), "" when none."""
        found = self.module_function(qualname, importer)
        return found[1].size_read if found is not None else ""

    def growth_helper_names(self) -> frozenset[str]:
        """The short names of the project functions with ``grows`` (a cheap test before resolving a call)."""
        if self._growth_names is None:
            self._growth_names = frozenset(name.rpartition(".")[2] for name, (_, facts) in self.index.functions.items()
                                           if facts.grows[0] >= 0 and facts.owner is None)
        return self._growth_names

    def batcher_names(self) -> frozenset[str]:
        """The short names of the project functions with ``batches`` (a cheap test before resolving a call)."""
        if self._batcher_names is None:
            self._batcher_names = frozenset(name.rpartition(".")[2] for name, (_, facts) in self.index.functions.items()
                                            if facts.batches[0] >= 0 and facts.owner is None)
        return self._batcher_names

    def batched_parameter(self, qualname: str, importer: str) -> Optional[tuple[int, str]]:
        """The batch size parameter (its index among the positional parameters, its name) of the project function
        (of another module, not a method) that yields batches of a parameter, its facts' ``batches``; None when
        none or unknown."""
        found = self.module_function(qualname, importer)
        return found[1].batches if found is not None and found[1].batches[0] >= 0 else None

    def grown_parameter(self, qualname: str, importer: str) -> Optional[tuple[int, str, int, str, int]]:
        """The parameter the project function (of another module, not a method) returns grown by a
        concatenation: (its index among the positional parameters, its name, its element of a returned tuple or
        -1, the function's absolute name, its line), its facts' ``grows``; None when none or unknown."""
        found = self.module_function(qualname, importer)
        if found is None or found[1].grows[0] < 0:
            return None
        target, facts = found
        return (*facts.grows, target, facts.line)
