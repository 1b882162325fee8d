"""What the project index (:mod:`npu_lint.project`) tells the semantic model about the project's other modules.

One :class:`ProjectView` per run, shared by every file: the kind a project function returns (from its facts,
summarised by the model when the index was built), what instances of a project class are (its bases through the
class hierarchy, across modules), where a method comes from, whether a name is Python the project defines, and
the chain from a project wrapper to the data-dependent op whose result it returns, the chain from a call to
a project function that pads its items to the longest among them, and the parameters a project function sizes a
tensor with.
"""
from __future__ import annotations

import ast

import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from npu_lint.analysis import kinds as K
from npu_lint.analysis.data_records import field_verdicts
from npu_lint.analysis.library_classes import library_base, loader_parameters
from npu_lint.analysis.names import canonical
from npu_lint.analysis.project_functions import CHAIN_DEPTH as _CHAIN_DEPTH, FunctionFacts
from npu_lint.analysis.returned_tuples import element_value

if TYPE_CHECKING:
    from npu_lint.project.index import ProjectIndex
    from npu_lint.project.parsed import ParsedFiles

PASSED_CALL = "call"   # npu_lint.project.facts.PASSED_CALL (not imported: the view is loaded without the extractor)
_OBJECT_KINDS = frozenset({K.MODULE, K.OPTIMIZER, K.SCHEDULER, K.SCALER, K.LOADER, K.DATASET, K.SAMPLER, K.TENSOR,
                           K.MASK, K.BATCH})


_PADDING = "padding"   # ProjectView._judged: every function's padding summary is known
# The kinds of a torch object: a module importing a project name that makes one works on torch values.
_TORCH_KINDS = frozenset({*K.TENSORS, K.MODULE, K.OPTIMIZER, K.SCHEDULER, K.SCALER, K.LOADER, K.DATASET, K.SAMPLER,
                          K.AUTOGRAD, K.DISTRIBUTION})

class ProjectView(FunctionFacts):
    """The questions the model asks about names defined elsewhere in the project."""

    def __init__(self, index: "ProjectIndex") -> None:
        self.index = index
        self._by_path = {facts.relative: facts for facts in index.modules.values()}
        self._digest: Optional[str] = None
        from npu_lint.report.cuda_ops import operator_names
        self.custom_ops = operator_names(list(index.registered))   # what calls into the project's operators look like
        self._values: dict[str, Optional[K.Value]] = {}
        self._chains: dict[tuple[str, Callable[[str], bool]], Optional[list[str]]] = {}   # (function, is_leaf)
        self._pads: dict[str, Optional[tuple[list[str], str, tuple[str, int]]]] = {}
        # the leaf tests (and padding) every function was judged for: their memos keep only the chains found, a
        # function missing there has none (58,000 functions' None answers were 15 MB of a 5,000-file tree's run)
        self._judged: set[object] = set()
        self._padding_names: Optional[frozenset[str]] = None
        self._size_names: Optional[frozenset[str]] = None
        self._cuda_wrappers: Optional[dict[str, str]] = None
        self._feature_wrappers: Optional[dict[str, tuple[str, str]]] = None
        self._growth_names: Optional[frozenset[str]] = None
        self._batcher_names: Optional[frozenset[str]] = None
        self._children: Optional[dict[str, list[str]]] = None
        self._passed: Optional[dict[str, list[tuple[int, str, str, str]]]] = None
        self._collates: Optional[tuple[dict[str, int], dict[str, int]]] = None
        self._loader_names: Optional[frozenset[str]] = None
        self._used: Optional[dict[str, set[str]]] = None
        self._counts: Optional[dict[str, str]] = None   # method name -> the ``self`` field it counts
        self._fields: Optional[dict] = None   # field name -> what every store agrees it holds

    @property
    def digest(self) -> str:
        """A hash of what modules tell each other (for cached per-file results), computed on first use."""
        if self._digest is None:
            self._digest = _digest(self.index)
        return self._digest

    # -- where a file sits ---------------------------------------------------------------------
    def module_of(self, relative: str) -> str:
        """The module name of a file of the project (``pkg/ops/boxes.py`` -> ``pkg.ops.boxes``), "" if unknown."""
        facts = self._by_path.get(Path(relative).as_posix())
        return facts.name if facts is not None else ""

    def _absolute_name(self, qualname: str, importer: str) -> Optional[str]:
        """A name as the importer writes it, made absolute (relative imports resolved); None for an unknown importer."""
        if not qualname.startswith("."):
            return qualname
        facts = self.index.modules.get(importer)
        if facts is None:
            return None
        from npu_lint.project.facts import absolute
        return absolute(qualname, importer, facts.is_package)

    def absolute(self, qualname: str, importer: str) -> Optional[str]:
        """The project definition a name the importer sees stands for (relative imports resolved), else None."""
        name = self._absolute_name(qualname, importer)
        return self.index.resolve(name) if name is not None else None

    def external(self, qualname: str, importer: str) -> Optional[str]:
        """The torch (or other library) name a project name the importer sees re-exports (``..types.Tensor`` ->
        ``torch.Tensor``), else None."""
        name = self._absolute_name(qualname, importer)
        return self.index.external(name) if name is not None else None

    def holds_package(self, qualname: str, importer: str) -> bool:
        """The name lies in a package of the analysed code (``mypkg._C`` where ``mypkg/`` is the project's)."""
        name = self._absolute_name(qualname, importer)
        return name is not None and self.index.holds_package(name)

    def declares_extension(self, qualname: str, importer: str) -> bool:
        """The name is (or lies in) a compiled module a setup.py of the project declares (``DCNv4.ext`` of
        ``CUDAExtension("DCNv4.ext", ...)``; ``pkg.simple_knn._C.distCUDA2`` of a submodule's ``simple_knn._C``)."""
        declared = getattr(self.index, "extensions", frozenset())
        name = self._absolute_name(qualname, importer) if declared else None
        while name:
            if name in declared or any(name.endswith("." + module) for module in declared):
                return True
            name = name.rpartition(".")[0]
        return False

    def extension_names(self) -> frozenset[str]:
        """The last parts of the compiled modules the project's build scripts declare (``hqq_aten``, ``_C``):
        trigger words of the files that may import or call one."""
        return frozenset(name.rpartition(".")[2] for name in getattr(self.index, "extensions", ()))

    def host_only_function(self, qualname: str, importer: str) -> bool:
        """The name the importer sees is a function of the project whose module imports no torch package."""
        target = self.absolute(qualname, importer)
        return target is not None and self.index.host_only_function(target)

    def kernel_language(self, qualname: str, importer: str) -> Optional[str]:
        """The GPU kernel language (``triton``, ``numba.cuda``) the module of the project function the importer
        names imports at module level, else None."""
        target = self.absolute(qualname, importer)
        return self.index.kernel_language(target) if target is not None else None

    def defines(self, qualname: str, importer: str) -> Optional[str]:
        """``function``, ``class`` or ``module`` when the project's own Python defines the name, else None."""
        target = self.absolute(qualname, importer)
        return self.index.kind(target) if target else None

    # -- values ---------------------------------------------------------------------------------
    def value_of_call(self, qualname: str, importer: str) -> Optional[K.Value]:
        target = self.absolute(qualname, importer)
        if target is None:
            return None
        kind = self.index.kind(target)
        if kind == "class":
            return self._class(target)
        if kind == "function":
            return self._returned(target, 0)
        return None

    def _fact(self, value: tuple[str, str]) -> Optional[K.Value]:
        """A value read from the facts: a class the file could not judge alone (``object`` of a name) is judged
        now, through the whole project's class hierarchy."""
        if not value or not value[0]:
            return None
        kind, cls = value
        if kind == K.OBJECT and cls:
            target = self.index.resolve(cls)
            if target is not None and self.index.kind(target) == "class":
                return self._class(target)
        return kind, cls or None

    def _returned(self, function: str, depth: int) -> Optional[K.Value]:
        """What a project function returns: the model's summary of it, else what the calls it returns agree on
        when each is a class or function the index knows (``def build_model(cfg): return Net(cfg)``, ``Net`` an
        ``nn.Module`` of another module: a module)."""
        key = "returns:" + function
        if key in self._values:
            return self._values[key]
        self._values[key] = None   # recursion guard
        facts = self.index.functions[function][1]
        value = self._fact(facts.value)
        if value is None and not facts.elements and facts.returns and depth < _CHAIN_DEPTH:
            found = [self._produced(returned, depth) for returned in facts.returns]
            value = K.join(found) if all(found) else None
        self._values[key] = value
        return value

    def _produced(self, returned: str, depth: int = 0) -> Optional[K.Value]:
        """The value of calling the absolute name ``returned`` (a returns or attrs marker of the index: ``X`` is a
        call of ``X``): an instance of a torch class or what a torch function gives, a numpy array, an instance of a
        project class, what a project function returns."""
        if returned.startswith(("@", "=")):
            return None
        if returned.startswith(("torch.", "numpy.", "pandas.", "torch_npu.", "apex.")):
            return K.of_call(returned)
        target = self.index.resolve(returned)
        kind = self.index.kind(target) if target is not None else None
        if kind == "class":
            return self._class(target)
        return self._returned(target, depth + 1) if kind == "function" else None

    def argument_value(self, function: str, name: str, position: Optional[int]) -> Optional[K.Value]:
        """What the project's other modules pass to a parameter of a project function or class (``name``, at
        ``position`` counting ``self``): the kinds of torch objects they agree on (``Trainer(model, opt)``)."""
        if self._passed is None:
            self._passed = {}
            for facts in self.index.modules.values():
                for callee, at, keyword, kind, cls in getattr(facts, "passed", ()):
                    target = self.index.resolve(callee)
                    offset = 0
                    if target is not None and self.index.kind(target) == "class":
                        target, offset = self.index.method(target, "__init__"), 1
                    elif target is None and callee.endswith(".forward"):   # ``self.loss(x)``: an inherited forward
                        owner = self.index.resolve(callee[:-len(".forward")])
                        if owner is not None and self.index.kind(owner) == "class":
                            target = self.index.method(owner, "forward")
                    if target is not None:
                        self._passed.setdefault(target, []).append((at + offset if at >= 0 else -1, keyword, kind, cls))
        values = [self._produced(cls, 0) if kind == PASSED_CALL else (kind, cls or None)
                  for at, keyword, kind, cls in self._passed.get(function, ())
                  if keyword == name or (at >= 0 and at == position)]
        known = [value for value in values if value is not None and value[0] in _OBJECT_KINDS]
        return K.join(known) if known else None

    def used_elsewhere(self, qualname: str, module: str) -> bool:
        """Another module imports or calls the project function ``qualname`` (absolute) defined in ``module``
        (a "private" helper that a sibling module imports: ``from .helper import _collate``)."""
        if self._used is None:
            used: dict[str, set[str]] = {}
            for facts in self.index.modules.values():
                names = {target for _, target in facts.imports}
                names.update(target for function in facts.functions for target, _ in function.calls)
                for name in names:
                    found = self.index.resolve(name) if not name.startswith("@") else None
                    if found is not None:
                        used.setdefault(found, set()).add(facts.name)
            self._used = used
        return bool(self._used.get(qualname, set()) - {module})

    def counted_items(self, method: str) -> str:
        """The attribute of ``self`` whose items every project method named ``method`` counts (``num_detected``
        returning ``len(self.instances)``: ``instances``), the index's ``counts`` facts agreeing; "" otherwise.
        Only methods of plain classes count (a record of the data: a frame, a sample); those of torch modules,
        datasets and the like count what their configuration gives (``len(self.layers)``, ``len(self.classes)``)."""
        if self._counts is None:
            found: dict[str, str] = {}
            for qualname, (facts, function) in self.index.functions.items():
                if function.owner is None:
                    continue
                counts = function.counts
                if counts and (self._class(f"{facts.name}.{function.owner}") or ("",))[0] != K.OBJECT:
                    counts = ""
                last = function.name.rpartition(".")[2]
                found[last] = counts if found.get(last, counts) == counts else ""
            self._counts = found
        return self._counts.get(method, "")

    def field_verdict(self, attr: str) -> Optional[str]:
        """What EVERY store of the field ``attr`` in the project holds by construction ("mask"), when they agree and
        at most one class stores it (:mod:`npu_lint.analysis.data_records`); None otherwise. Built once per run."""
        if self._fields is None:
            self._fields = field_verdicts((facts.fields for facts in self.index.modules.values()
                                           if getattr(facts, "fields", ())), self._project_class)
        return self._fields.get(attr)

    def class_field_verdict(self, cls: str, attr: str) -> Optional[str]:
        """What every store the code says is the project class ``cls``'s field ``attr`` holds ("mask": its
        constructions ``Cls(attr=m)`` and ``self.attr = m`` in its methods), else None."""
        if self._fields is None:
            self.field_verdict(attr)
        return self._fields.get((cls, attr)) if self._fields is not None else None

    def _project_class(self, name: str) -> Optional[str]:
        """The project record class a dotted name stands for (a dataclass, a NamedTuple: no ``__init__`` of its own
        or its project bases', so a keyword names a field), None for anything else."""
        target = self.index.resolve(name)
        if target is None or self.index.kind(target) != "class":
            return None
        for owner in self.index.mro(target):
            entry = self.index.classes.get(owner)
            if entry is not None and ("__init__" in entry[1].methods or "__new__" in entry[1].methods):
                return None   # a keyword names a parameter, which the class may store under another name
        return target

    def collate_parameters(self, module: str) -> tuple[dict[str, int], dict[str, int]]:
        """What the project's modules pass as a collate function, for the functions of ``module``: their
        qualnames inside it -> the position of the parameter that receives one batch's samples (``self``
        counted); and, for methods passed through an object no module types (``collate_fn=dataset.collater``),
        method name -> position, for any project class that defines one."""
        if self._collates is None:
            functions: dict[str, int] = {}
            methods: dict[str, int] = {}
            for facts in self.index.modules.values():
                for kind, name, position in getattr(facts, "collates", ()):
                    if kind == "method":
                        methods.setdefault(name, position)
                        continue
                    target = self.index.resolve(name)
                    if target is not None and kind == "call" and self.index.kind(target) == "class":
                        target = self.index.method(target, "__call__")
                    if target is not None and self.index.kind(target) == "function":
                        functions.setdefault(target, position)
            self._collates = functions, methods
        functions, methods = self._collates
        prefix = module + "."
        return {name[len(prefix):]: at for name, at in functions.items() if name.startswith(prefix)}, methods

    def element_of_call(self, qualname: str, importer: str, index: int) -> Optional[K.Value]:
        """What element ``index`` of the tuple a project function returns is (``a, mask = pkg.f(x)``)."""
        target = self.absolute(qualname, importer)
        return self._element(target, index) if target is not None else None

    def element_of_method(self, cls: str, method: str, index: int) -> Optional[K.Value]:
        """The same for a method of a project class, found along its bases (``a, mask = self.assigner(x)``:
        ``forward``)."""
        if cls not in self.index.classes:
            return None
        found = self.index.method(cls, method)
        return self._element(found, index) if found is not None else None

    def _element(self, function: str, index: int, depth: int = 0) -> Optional[K.Value]:
        """Element ``index`` of the tuple ``function`` returns; -1: what iterating its result gives. A function
        whose every return hands on a project function's result (``return spatial_crop_boxes(...)``) returns that
        function's tuple: its element, across modules, agreeing (session 25)."""
        facts = self.index.functions.get(function)
        if index == -1:
            return self._fact(facts[1].yields) if facts is not None else None
        elements = facts[1].elements if facts is not None else ()
        if index < 0:
            return None
        if index < len(elements):
            return self._fact(elements[index])
        if facts is None or elements or depth >= _CHAIN_DEPTH:
            return None
        return self._handed_element(function, facts[1], index, depth)

    def _handed_element(self, function: str, facts: "FunctionFacts", index: int, depth: int) -> Optional[K.Value]:
        """Element ``index`` of the tuple the callees ``function`` returns the result of give (memoised)."""
        if not facts.call_returns or len(facts.returns) != facts.call_returns:
            return None   # a return the index cannot follow (``@?``), or one whose callee it did not resolve
        key = f"element:{index}:{function}"
        if key in self._values:
            return self._values[key]
        self._values[key] = None   # recursion guard
        found = []
        owner = function.rpartition(".")[0] if facts.owner else ""
        for returned in facts.returns:
            if returned.startswith("@self.") and owner in self.index.classes:   # ``return self._split(x)``
                target = self.index.method(owner, returned[len("@self."):])
            else:
                target = self.index.resolve(returned) if not returned.startswith(("@", "=")) else None
            if target is None or target == function or self.index.kind(target) != "function":
                found = []
                break
            found.append(self._element(target, index, depth + 1))
        value = element_value(found)
        self._values[key] = value
        return value

    def imports_torch_values(self, names: list[str], importer: str) -> bool:
        """One of the names a module imports (as it writes them: ``.base.BaseMiner``) is a project class or function
        that makes a torch object (an ``nn.Module`` subclass, a dataset, a function returning a tensor), or torch
        itself re-exported by a project module: the module works on torch values without importing torch itself."""
        for name in names:
            value = self.value_of_call(name, importer)
            if value is not None and value[0] in _TORCH_KINDS:
                return True
            outside = self.external(name, importer)   # ``from pkg.torch_utils import torch`` re-exporting torch
            if outside is not None and outside.split(".", 1)[0] in ("torch", "torch_npu", "torchvision"):
                return True
        return False

    def class_value(self, qualname: str, importer: str) -> Optional[K.Value]:
        target = self.absolute(qualname, importer)
        return self._class(target) if target is not None and self.index.kind(target) == "class" else None

    def _class(self, target: str) -> Optional[K.Value]:
        if target not in self._values:
            value = None
            for base in self.index.mro(target):
                if base not in self.index.classes:   # (``torch.utils.data.dataloader.DataLoader``: its public name)
                    value = K.of_class(canonical(base))
                    if value is not None:
                        break
            # a class no torch kind fits: an instance of it (its own methods and attributes)
            self._values[target] = (value[0] if value is not None else K.OBJECT, target)
        return self._values[target]

    def loader_decides_drop_last(self, qualname: str, importer: str) -> Optional[bool]:
        """For a project class the model knows as a loader (a ``DataLoader`` subclass), whether it or one of its
        project bases names ``drop_last`` (passes it, takes it, stores it): the class decides its last batch
        itself. None for anything else."""
        target = self.absolute(qualname, importer)
        if target is None or self.index.kind(target) != "class":
            return None
        value = self._class(target)
        if value is None or value[0] != K.LOADER:
            return None
        return any(self.index.classes[base][1].drop_last for base in self.index.mro(target)
                   if base in self.index.classes)

    def forwards_loader(self, qualname: str, importer: str) -> bool:
        """A project function that returns a ``DataLoader`` built with its own ``**kwargs`` and names no
        ``drop_last`` (its facts): a call of it builds the loader with the call's keywords."""
        target = self.absolute(qualname, importer)
        return target is not None and self.index.kind(target) == "function" \
            and self.index.functions[target][1].forwards_loader

    def loader_arguments(self, qualname: str, importer: str) -> tuple[tuple[str, str, str, int, str], ...]:
        """How the project function the importer's name stands for builds its one returned ``DataLoader`` from its
        parameters (:func:`npu_lint.analysis.loader_wrappers.loader_arguments`); empty for anything else."""
        target = self.absolute(qualname, importer)
        if target is None or self.index.kind(target) != "function":
            return ()
        return self.index.functions[target][1].loader_arguments

    def grad_free(self, qualname: str, importer: str) -> tuple[tuple[str, int], ...]:
        """The parameters the project function the importer's name stands for, declared without gradients
        (``@torch.no_grad()``), hands whole to its model (:func:`npu_lint.analysis.grad_free.whole_inputs`)."""
        target = self.absolute(qualname, importer)
        if target is None or self.index.kind(target) != "function":
            return ()
        return tuple((name, index) for name, index in self.index.functions[target][1].grad_free)

    def trained_parameters(self, qualname: str, importer: str) -> tuple[tuple[str, int], ...]:
        """The parameters the project function the importer's name stands for iterates in a loop that runs a
        training step per batch, with their positions (its facts' ``trains``)."""
        target = self.absolute(qualname, importer)
        if target is None or self.index.kind(target) != "function":
            return ()
        return tuple(self.index.functions[target][1].trains)

    def method_trained_parameters(self, cls: str, method: str) -> tuple[tuple[str, int], ...]:
        """As :meth:`trained_parameters` for the project class's ``method`` (its own or a project base's)."""
        found = self.index.method(cls, method) if cls in self.index.classes else None
        if found is None or found not in self.index.functions:
            return ()
        return tuple(self.index.functions[found][1].trains)

    def aspect_resizing(self, qualname: str, importer: str) -> bool:
        """The project function the importer's name stands for returns a value it resized keeping its aspect ratio
        (its facts' ``aspect``: ``resize_image(img, 512)``)."""
        target = self.absolute(qualname, importer)
        return target is not None and self.index.kind(target) == "function" and self.index.functions[target][1].aspect

    def flattening(self, qualname: str, importer: str) -> bool:
        """The project function the importer's name stands for returns a list flattened from per-item lists (its
        facts' ``flattens``: ``flatten_sequences_time_first(episodes)``)."""
        target = self.absolute(qualname, importer)
        return target is not None and self.index.kind(target) == "function" \
            and self.index.functions[target][1].flattens

    def method_aspect_resizing(self, cls: str, method: str) -> bool:
        """As :meth:`aspect_resizing` for the project class's ``method`` (``self.transform.apply_image(image)``)."""
        found = self.index.method(cls, method) if cls in self.index.classes else None
        return found is not None and found in self.index.functions and self.index.functions[found][1].aspect

    def method_grad_free(self, cls: str, method: str) -> tuple[tuple[str, int], ...]:
        """As :meth:`grad_free` for the project class's ``method`` (its own or a project base's)."""
        found = self.index.method(cls, method) if cls in self.index.classes else None
        if found is None or found not in self.index.functions:
            return ()
        return tuple((name, index) for name, index in self.index.functions[found][1].grad_free)

    def loader_positionals(self, qualname: str, importer: str, torch_order: tuple[str, ...],
                           torch_classes: frozenset[str] = frozenset()) -> tuple[str, ...]:
        """The keywords the positional arguments of a call of a project ``DataLoader`` (or ``torch_classes``:
        ``BatchSampler``) subclass stand for: the
        positional parameters of the nearest ``__init__`` along its project bases (``def __init__(self, dataset,
        batch_size=1, shuffle=False, ...)``), DataLoader's own order (``torch_order``) when no project class defines
        one; only the dataset when one takes ``*args`` or its bases cannot be read."""
        target = self.absolute(qualname, importer)
        if target is None:
            return torch_order[:1]
        for base in self.index.mro(target):
            entry = self.index.classes.get(base)
            if entry is None:
                torch_class = base in torch_classes or (base.endswith(".DataLoader") and base.startswith("torch."))
                if not torch_class and not torch_classes and library_base(base) is not None:
                    return loader_parameters(base) or torch_order[:1]   # a library's loader (PyG's): its order
                return torch_order if torch_class else torch_order[:1]
            facts = entry[1]
            if "__init__" in facts.methods:
                return facts.init_args if facts.init_args is not None else torch_order[:1]
        return torch_order[:1]

    def budget_batches(self, cls: str) -> Optional[str]:
        """``pkg/data.py line 12`` when the project class ``cls`` (or a project base of it) closes its batches on a
        budget of tokens or frames (its facts' ``budget``): the number of samples per batch varies; else None."""
        for base in self.index.mro(cls) if cls in self.index.classes else ():
            entry = self.index.classes.get(base)
            if entry is not None and entry[1].budget:
                return f"{entry[0].relative} line {entry[1].budget}"
        return None

    def value_of_method(self, cls: str, method: str) -> Optional[K.Value]:
        """What ``method`` of an instance of the project class ``cls`` returns (its facts' summary, else the calls
        it returns), found along its bases; None for a method the project does not define."""
        if cls not in self.index.classes:
            return None
        found = self.index.method(cls, method)
        return self._returned(found, 0) if found is not None and found in self.index.functions else None

    def attribute_value(self, cls: str, attr: str) -> Optional[K.Value]:
        """What ``attr`` of an instance of the project class ``cls`` holds: the class it is annotated with (in the
        class body or as ``self.attr: T``), refined by what every constructor assigned to it agrees on (``SGD``),
        nearest first along the bases; else the torch object the model saw a class's methods assign through its
        parameters (``self.model = model``, ``model: nn.Module``): weaker than a declaration anywhere above."""
        held: Optional[K.Value] = None
        for owner in self.index.mro(cls):
            entry = self.index.classes.get(owner)
            if entry is None:
                break
            facts = entry[1]
            declared_class = dict(facts.fields).get(attr)
            declared = self._produced(declared_class) if declared_class is not None else None
            assigned = dict(facts.attrs).get(attr, ())
            values = [self._produced(origin) for origin in assigned if not origin.startswith(("=", "@"))]
            inferred = K.join(values) if values and len(values) == len(assigned) else None
            if declared_class is not None or assigned:
                return K.refine(declared, inferred) if declared_class is not None else inferred or held
            if held is None:
                held = next(((kind, klass or None) for name, kind, klass in facts.objects if name == attr), None)
        return held

    def defines_class(self, cls: str) -> bool:
        """``cls`` (an absolute name) is a class of the project."""
        return cls in self.index.classes

    def attribute_default(self, cls: str, attr: str) -> object:
        """The constant ``attr`` of an instance of the project class ``cls`` holds by default: what the nearest
        class along its bases gives it (its ``defaults`` facts: ``padding: bool = True``), or the library base's
        (``rule_tables/class_defaults.tsv``); ``NOT_CONSTANT`` when a class on the way sets it to something else
        or a library base the table does not list comes first."""
        from npu_lint.analysis.defaults import NOT_CONSTANT, UNKNOWN_DEFAULT, library_default
        for owner in self.index.mro(cls):
            entry = self.index.classes.get(owner)
            if entry is None:
                found = library_default(owner, attr)
                if found is not NOT_CONSTANT or owner not in ("object", "builtins.object", "abc.ABC", "typing.Generic"):
                    return found
                continue
            text = dict(entry[1].defaults).get(attr)
            if text is not None:
                return NOT_CONSTANT if text == UNKNOWN_DEFAULT else ast.literal_eval(text)
        return NOT_CONSTANT

    def overrides(self, cls: str, method: str) -> list[Optional[K.Value]]:
        """What the project subclasses of ``cls`` that define ``method`` again return (``self.postprocess(x)`` in a
        base class may run a subclass's)."""
        return [self._returned(f"{child}.{method}", 0) if f"{child}.{method}" in self.index.functions else None
                for child in self._subclasses(cls) if method in self.index.classes[child][1].methods]

    def _subclasses(self, cls: str) -> list[str]:
        """The project classes deriving from ``cls`` (directly or not)."""
        if self._children is None:
            self._children = {}
            for name in self.index.classes:
                for base in self.index.mro(name)[1:]:
                    if base in self.index.classes:
                        self._children.setdefault(base, []).append(name)
        return self._children.get(cls, [])

    def subclass_attributes(self, cls: str, attr: str, inherited: bool = False) -> list[Optional[K.Value]]:
        """What each project subclass of ``cls`` that assigns ``attr`` itself holds there (``self.iouv = None`` in a
        base class, a tensor in its subclasses); ``inherited``: every subclass, through its other bases too (what
        the classes a mixin is mixed into hold in an attribute the mixin reads and never sets)."""
        return [self.attribute_value(child, attr) for child in self._subclasses(cls)
                if inherited or attr in dict(self.index.classes[child][1].attrs)
                or attr in dict(self.index.classes[child][1].fields)]

    def defines_method(self, cls: str, method: str) -> bool:
        """The project defines ``method`` on its class ``cls`` or on one of its project bases (``__call__``)."""
        found = self.index.method(cls, method) if cls in self.index.classes else None
        return found is not None and found.rpartition(".")[0] in self.index.classes

    def method_owner(self, cls: str, method: str) -> Optional[tuple[str, ...]]:
        """None when ``cls`` is not a project class; () when the project defines ``method`` on the way up; else
        the torch class the method is inherited from."""
        if cls not in self.index.classes:
            return None
        found = self.index.method(cls, method)
        if found is None:
            return ()
        owner = found.rpartition(".")[0]
        return () if owner in self.index.classes else (owner,)

    # -- data-dependent results -----------------------------------------------------------------------
    def returned_leaf(self, qualname: str, importer: str, is_leaf: Callable[[str], bool]) -> Optional[list[str]]:
        """``[pkg.ops.my_nonzero, torch.nonzero]``: the project function returns what a leaf returns (through
        other project functions), else None."""
        target = self.absolute(qualname, importer)
        if target is None or self.index.kind(target) != "function":
            return None
        return self._chain(target, is_leaf, 0)

    def _chain(self, function: str, is_leaf: Callable[[str], bool], depth: int) -> Optional[list[str]]:
        key = (function, is_leaf)
        if key in self._chains:
            return self._chains[key]
        if is_leaf in self._judged:
            return None   # every function was judged for this leaf test: this one returns none of its results
        self._chains[key] = None   # cycles stop here
        chain = None
        if depth < _CHAIN_DEPTH:
            facts = self.index.functions[function][1]
            for returned in facts.returns + tuple(r for r in facts.reaches if r not in facts.returns):
                if returned.startswith("@"):
                    continue
                if is_leaf(returned):
                    chain = [function, returned]
                    break
                target = self.index.resolve(returned)
                if target is not None and self.index.kind(target) == "function":
                    rest = self._chain(target, is_leaf, depth + 1)
                    if rest:
                        chain = [function] + rest
                        break
        self._chains[key] = chain
        return chain

    def padding_chain(self, qualname: str, importer: str) -> Optional[tuple[list[str], str, tuple[str, int]]]:
        """``([pkg.utils.pad_list, "max of item lengths"], "pkg/utils.py line 12", ("max_len", 2))``: the project
        function pads its items to the longest among them (its facts' padding summary), or returns what such a
        function returns, and the parameter that, given, replaces the maximum (``("", -1)``: none); else None."""
        target = self.absolute(qualname, importer)
        if target is None or self.index.kind(target) != "function":
            return None
        return self._padding(target, 0)

    def method_padding(self, method: str) -> Optional[tuple[list[str], str, tuple[str, int], int]]:
        """``padding_chain`` for a method of a project class found along its bases (``BaseModel.padding2d``), and
        how many leading parameters the call fills itself (0: a method's facts leave ``self`` out already)."""
        if method not in self.index.functions:
            return None
        found = self._padding(method, 0)
        if found is None:
            return None
        return found[0], found[1], found[2], 0   # a method's facts count the parameters a call on an instance passes

    def _padding(self, function: str, depth: int) -> Optional[tuple[list[str], str, tuple[str, int]]]:
        if function in self._pads:
            return self._pads[function]
        if _PADDING in self._judged:
            return None   # every function was judged: this one pads nothing
        self._pads[function] = None   # cycles stop here
        module, facts = self.index.functions[function]
        found = None
        if facts.pads[0]:
            found = [function, facts.pads[0]], f"{module.relative} line {facts.pads[1]}", (facts.pads[2],
                                                                                           facts.pads[3])
        elif depth < _CHAIN_DEPTH:
            for returned in facts.returns:
                target = self.index.resolve(returned) if not returned.startswith("@") else None
                rest = self._padding(target, depth + 1) if target and self.index.kind(target) == "function" else None
                if rest is not None:
                    found = [function] + rest[0], rest[1], ("", -1)
                    break
        self._pads[function] = found
        return found

    def padding_names(self) -> frozenset[str]:
        """The short names of project functions that pad their items (for NPU405's trigger words)."""
        if self._padding_names is None:
            self._padding_names = frozenset(name.rpartition(".")[2] for name in self.index.functions
                                            if self._padding(name, 0))
            self._pads = {name: found for name, found in self._pads.items() if found is not None}
            self._judged.add(_PADDING)
        return self._padding_names

    def loader_class_names(self) -> frozenset[str]:
        """The short names of the project's DataLoader subclasses and of its functions that build a DataLoader with
        their callers' ``**kwargs`` or from their own parameters (for the loader rules' trigger words: a file that builds ``TrainLoader(ds, ...)``
        or calls ``distrib.loader(ds, ...)`` imported from another module names no ``DataLoader``)."""
        if self._loader_names is None:
            self._loader_names = frozenset(
                [name.rpartition(".")[2] for name in self.index.classes if self._class(name)[0] == K.LOADER]
                + [name.rpartition(".")[2] for name, (_, facts) in self.index.functions.items()
                   if facts.forwards_loader or facts.loader_arguments])
        return self._loader_names

    def aspect_names(self) -> frozenset[str]:
        """The short names of project functions and methods that return a value resized keeping its aspect ratio
        (for NPU419's trigger words: ``apply_image``, ``resize_image``)."""
        return frozenset(name.rpartition(".")[2] for name, (_, facts) in self.index.functions.items() if facts.aspect)

    def wrapper_names(self, is_leaf: Callable[[str], bool]) -> frozenset[str]:
        """The short names of project functions that return a leaf's result (for the rules' trigger words)."""
        names = frozenset(name.rpartition(".")[2] for name in self.index.functions if self._chain(name, is_leaf, 0))
        self._chains = {key: chain for key, chain in self._chains.items() if chain is not None or key[1] is not is_leaf}
        self._judged.add(is_leaf)
        return names


def cache_folder(root: Path) -> Path:
    """Where ``check`` keeps a project's index facts: the user cache, one folder per project root."""
    import hashlib
    from npu_lint.third_party_cache import cache_root
    key = hashlib.sha256(str(root.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return cache_root() / "projects" / key


def cached_view(path: Path) -> Optional[tuple[ProjectView, Path]]:
    """The index ``check`` last built for a folder holding ``path`` (nearest first) and that folder, read
    without parsing anything: what flake8 uses. None when there is none."""
    from npu_lint.project.index import ProjectIndex
    given = os.path.abspath(path.parent)   # flake8 asks once per file: the answer per folder, found once
    if given in _FOUND:
        return _FOUND[given]
    folder = path.resolve().parent
    found = None
    for root in (folder, *folder.parents):
        cached = _LOADED.get(root)
        if cached is None and root not in _LOADED:
            index = ProjectIndex.load(cache_folder(root)) if cache_folder(root).is_dir() else None
            cached = _LOADED[root] = (ProjectView(index), root) if index is not None else None
        if cached is not None:
            found = cached
            break
    _FOUND[given] = found
    return found


_LOADED: dict[Path, Optional[tuple["ProjectView", Path]]] = {}
_FOUND: dict[str, Optional[tuple["ProjectView", Path]]] = {}   # a file's folder (absolute) -> the answer


def build_view(roots: list[Path], warnings: list[str], cache_dir: Optional[Path] = None,
               keep: Optional["ParsedFiles"] = None, light: bool = False) -> Optional[ProjectView]:
    """Index the project under ``roots`` and wrap it (None, with one warning, when it cannot be indexed);
    ``keep``: where the files it parses are kept for the rule walk; ``light``: without the call graph, which the
    view never asks (see :meth:`ProjectIndex.build`)."""
    from npu_lint.project.index import ProjectIndex
    from npu_lint.project.modules import NoPackage
    try:
        return ProjectView(ProjectIndex.build(roots, cache_dir=cache_dir, keep=keep, light=light))
    except NoPackage:
        return None
    except Exception as error:   # isolation: no index is a weaker analysis, never a failed run
        warnings.append(f"the project index could not be built ({type(error).__name__}: {error}); "
                        "names from other modules stay unresolved")
        return None


def _digest(index: "ProjectIndex") -> str:
    """A hash of what one module can learn about the others (names, return kinds and wrappers, class bases):
    a file's cached result is valid while it is unchanged, whatever else the other files' bodies do."""
    import hashlib
    digest = hashlib.sha256()
    for name in sorted(index.modules):
        facts = index.modules[name]
        digest.update(repr((name, facts.imports, facts.stars, facts.exported,
                            [(f.name, f.value, f.returns, f.elements, f.yields, f.pads, f.sizes) for f in facts.functions],
                            [(c.name, c.bases, c.methods, c.attrs, c.fields, c.objects, c.defaults) for c in facts.classes],
                            facts.passed)).encode())
    digest.update(repr(sorted(index.custom_ops)).encode())
    return digest.hexdigest()[:16]
