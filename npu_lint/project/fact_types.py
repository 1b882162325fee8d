"""The facts of one module as the project index holds them: plain strings and tuples (they pickle small and are cached
per file content), with the markers the extractor and the index agree on.

Call targets are absolute dotted names, or one of three markers resolved later through the class hierarchy:
``@self.NAME`` (``self.NAME(...)`` / ``cls.NAME(...)``), ``@super.NAME`` (``super().NAME(...)``) and
``@attr.NAME`` (calling the object held in ``self.NAME``, whose constructors the class facts record).
"""
from __future__ import annotations

from typing import NamedTuple, Optional

FACTS_VERSION = 75   # bump when the extracted facts change shape or meaning (invalidates caches)
UNKNOWN_RETURN = "@?"   # in ``returns``: a return statement whose value comes from no call the index can follow
PASSED_CALL = "call"   # a passed value known as the result of calling a name of the project (resolved by the index)
MASK_SELECTION = "x[mask]"   # the leaf of a wrapper returning a boolean-mask selection (facts and rules agree)
LITERAL = "#"   # in ``reaches``: the name as it stands (``torch.Tensor.nonzero``), not resolved through the module
ONE_ARGUMENT = "(condition)"   # marks a returned ``torch.where(cond)``: its one-argument, data-dependent form


class FunctionFacts(NamedTuple):
    name: str                              # qualname inside the module: ``Foo.forward``, ``outer.inner``
    line: int
    owner: Optional[str]                   # the class a method belongs to (qualname inside the module)
    calls: tuple[tuple[str, int], ...]     # (target, line) in source order
    refs: tuple[tuple[str, int], ...]      # torch names referenced (``torch.var_mean``, ``torch.Tensor.nonzero``)
    # callables whose results it returns (``return Pool(...)``, ``return p, n``; ``@?``: a return the index cannot
    # follow, ``return cfg.model``)
    returns: tuple[str, ...]
    value: tuple[str, str] = ("", "")      # what it returns as the semantic model sees it: (kind, class) or empty
    elements: tuple[tuple[str, str], ...] = ()   # what each element of a returned tuple is (``return boxes, mask``)
    yields: tuple[str, str] = ("", "")     # what iterating its result gives (``-> Iterator[T]``, ``yield t``)
    # it pads its items to the longest among them (``pad_list(xs)``): what it pads to (``max of item lengths``,
    # ``pad_sequence``), the line of the maximum (of the ``pad_sequence`` call) and the parameter that, given,
    # replaces the maximum with its position (``max_len``, 2; "", -1: none); ("", 0, "", -1) otherwise
    pads: tuple[str, int, str, int] = ("", 0, "", -1)
    # what its returned values are computed from: calls in returned position (absolute names), tensor methods
    # (``torch.Tensor.nonzero``) and ``x[mask]`` for a boolean-mask selection (:mod:`npu_lint.project.fact_reaches`)
    reaches: tuple[str, ...] = ()
    # the parameters it sizes a tensor with (``def scatter_add(x, idx, dim_size)`` then ``torch.zeros(shape)`` with
    # ``shape[dim] = dim_size``): (parameter, index among the positional parameters or -1, the way there:
    # ``_scatter_add(dim_size) → zeros()``), the model's :func:`npu_lint.analysis.summaries_sizes.sized_parameters`
    sizes: tuple[tuple[str, int, str], ...] = ()
    # every return that is not a constant gives a value read back from a tensor (``return bool((d < r).all())``):
    # the model's :func:`npu_lint.analysis.summaries_reads.returns_read_back`, for NPU414 at ``if helper(x):``
    reads: bool = False
    # some return may give a size read from the data (``return int(mask.sum())``): the flavour of the model's flow
    # (:func:`npu_lint.analysis.summaries_reads.returned_size_read`), for NPU403 at ``n = count_fg(mask)``; "" none
    size_read: str = ""
    # every return is a comparison of values the model knows no tensor in (``return args.rank == 0``): a Python
    # bool by its look, for NPU414 at ``if is_master(args):`` in other modules
    compares: bool = False
    # the size parameters it fills from the data when a call leaves them out (``if dim_size is None: dim_size =
    # int(index.max()) + 1``): :func:`npu_lint.analysis.summaries_fills.filled_parameters`, for NPU403 at the calls
    fills: tuple[str, ...] = ()
    # it returns one of its parameters concatenated with a new piece (``return torch.cat((xs, x))``; ``tokens =
    # torch.cat([tokens, nxt], -1)`` then ``return tokens, done``): (the parameter's index among the positional
    # parameters, its name, its element of a returned tuple or -1), the model's
    # :meth:`npu_lint.analysis.step_growth.StepGrowth.grown_parameter`, for NPU408 at the loops of other modules
    # that feed the result back; (-1, "", -1) otherwise
    grows: tuple[int, str, int] = (-1, "", -1)
    # it returns a ``DataLoader`` (or a call of a parameter defaulting to ``DataLoader``: ``klass=DataLoader``)
    # given its own ``**kwargs`` and names no ``drop_last`` (``def loader(dataset, *args, shuffle=False,
    # **kwargs): return klass(dataset, *args, shuffle=shuffle, **kwargs)``): a call of it in another module
    # builds the loader with the call's keywords (NPU406 / NPU415)
    forwards_loader: bool = False
    # a method whose result has one item (or counts one) per item of ``self.x`` (``return len(self.instances)``,
    # ``return torch.cat([i.ids for i in self.instances])``): ``x``, the model's
    # :func:`npu_lint.analysis.item_counts.counted_attribute`; "" otherwise
    counts: str = ""
    # declared to run without gradients (``@torch.no_grad()``, ``@torch.inference_mode()``): the parameters it hands
    # whole to its model and their positions, :func:`npu_lint.analysis.grad_free.whole_inputs`, for NPU419 at the
    # calls of other modules
    grad_free: tuple[tuple[str, int], ...] = ()
    # a module-level generator that yields batches of a parameter cut in a size another parameter gives, the last
    # one what is left (``for i in range(0, len(items), bs): yield items[i:i + bs]``; ``list(islice(it, bs))``
    # yielded until empty): (the size's index among the positional parameters, its name), the model's
    # :func:`npu_lint.analysis.batch_helpers.batched_parameter`, for NPU407 at the loops of other modules that feed
    # its batches to a model; (-1, "") otherwise
    batches: tuple[int, str] = (-1, "")
    # the parameters a loop of its own iterates while running a training step per iteration (backward and an
    # optimizer step: ``def fit(model, opt, loader): for x in loader: ...``) and their positions among the
    # positional parameters (``self`` included; -1: keyword-only), the model's
    # :meth:`npu_lint.analysis.training_steps.TrainingSteps.trained_parameters`, for NPU406 at the calls of other
    # modules that hand it a loader
    trains: tuple[tuple[str, int], ...] = ()
    # a module-level function returning one ``DataLoader`` built from its own parameters: how it takes the keywords
    # that decide the batches (:func:`npu_lint.analysis.loader_wrappers.loader_arguments`), for NPU406 / NPU415 at
    # the calls of other modules (``build_dataloader(val_dset, bs, shuffle=False)``)
    loader_arguments: tuple[tuple[str, str, str, int, str], ...] = ()
    # it returns a value it resized to a size computed from that value's own height and width (its aspect ratio kept:
    # ``k = 512 / min(h, w)`` then ``cv2.resize(img, (w * k, h * k))``), the model's
    # :func:`npu_lint.analysis.aspect_resizes.returns_aspect_resize`, for NPU419 at the calls of other modules
    aspect: bool = False
    # every value it returns is a list flattened from per-item lists of unproven length (``return sum(xs, [])``,
    # ``ret.extend([x for x in b if x is not None])`` per step then ``return ret``): the model's
    # :func:`npu_lint.analysis.flattened.returns_flattened`, for NPU409 at ``torch.tensor`` of its result (or of a
    # comprehension over it) in other modules
    flattens: bool = False
    # every return hands on the result of a call (``return spatial_crop_boxes(boxes, ...)``): how many distinct
    # callees (:func:`npu_lint.analysis.returned_tuples.call_returns`); the index reads the elements of its tuple in
    # theirs, across modules, when all of them resolve (``returns``); 0 otherwise
    call_returns: int = 0


class ClassFacts(NamedTuple):
    name: str
    line: int
    bases: tuple[str, ...]                 # absolute qualnames (unresolvable bases left out)
    methods: tuple[str, ...]
    attrs: tuple[tuple[str, tuple[str, ...]], ...]   # ``self.x = Ctor(...)``: x -> constructors called
    fields: tuple[tuple[str, str], ...] = ()   # ``x: T`` in the body, ``self.x: T`` in a method: x -> T (absolute)
    # ``self.model = model`` (``model: nn.Module``): x -> (kind, class) of the torch object it holds, as the model
    # sees it in the class's own methods (for subclasses in other modules)
    objects: tuple[tuple[str, str, str], ...] = ()
    # the class's body names ``drop_last`` (a keyword it passes, a parameter, ``self.drop_last``): a DataLoader subclass
    # that decides its last batch itself (NPU406 / NPU415 judge a call of it from another module only when it does not)
    drop_last: bool = False
    # the positional parameters of its own ``__init__`` after ``self`` (``dataset, batch_size, shuffle``), or None
    # when the class defines no ``__init__`` (or takes ``*args``): how a call's positional arguments map to its
    # keywords in other modules (a project DataLoader subclass called ``DataLoader(ds, bs, sampler=s)``)
    init_args: Optional[tuple[str, ...]] = None
    # the line of the test that closes its batches on a budget of tokens or frames (``if frames + n > budget:
    # batches.append(batch)``) in a class that iterates batches, :func:`npu_lint.analysis.budget_batches.
    # batches_by_budget`: NPU418 at a loader of another module built on it (``batch_sampler=``); 0 otherwise
    budget: int = 0
    # what the class gives an attribute of its instances by default: ``padding: bool = True`` / ``padding = True`` /
    # ``field(default=True)`` in its body -> ``repr`` of the constant; ``?`` for an attribute its body sets to
    # anything else or its methods assign (``self.padding = padding``): what ``self.padding`` of a subclass in
    # another module holds when the subclass never sets it (:func:`npu_lint.analysis.defaults.attribute_default`)
    defaults: tuple[tuple[str, str], ...] = ()


class ModuleFacts(NamedTuple):
    name: str
    relative: str
    is_package: bool
    functions: tuple[FunctionFacts, ...]
    classes: tuple[ClassFacts, ...]
    imports: tuple[tuple[str, str], ...]   # module-level ``name -> absolute qualname`` (re-exports)
    stars: tuple[str, ...]                 # modules star-imported at module level
    exported: Optional[tuple[str, ...]]    # a literal ``__all__``
    globals: tuple[str, ...]               # other module-level names (assignments)
    unresolved: int                        # calls of names found nowhere (builtins excluded)
    unknown_receivers: int                 # method calls on values whose type is not known
    # (callee, position or -1, keyword or "", kind, class): a module, optimizer, loader ... passed to a function or
    # class of another module (``Trainer(model, opt)``): what the callee's parameters hold
    passed: tuple[tuple[str, int, str, str, str], ...] = ()
    # (kind, name, position of the samples' parameter): what it passes as ``collate_fn=`` (a project function, a
    # class whose instances are called, a method name of an untyped object: :mod:`npu_lint.project.fact_collates`)
    collates: tuple[tuple[str, str, int], ...] = ()
    # (attr, verdict, class): every store of a field, what it holds by construction ("mask", "self": the field
    # again, "": unknown) and the class storing it where the code says (:mod:`npu_lint.analysis.data_records`)
    fields: tuple[tuple[str, str, str], ...] = ()


def absolute(name: str, module: str, is_package: bool) -> str:
    """``.x.y`` (relative to ``module``) as an absolute dotted name."""
    if not name.startswith("."):
        return name
    level = len(name) - len(name.lstrip("."))
    package = module if is_package else module.rpartition(".")[0]
    for _ in range(level - 1):
        package = package.rpartition(".")[0]
    rest = name[level:]
    return f"{package}.{rest}" if package and rest else (package or rest)

