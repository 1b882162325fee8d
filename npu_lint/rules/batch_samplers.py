"""Training batches decided outside a ``DataLoader`` call (NPU406, dynamic_batches.py): a ``BatchSampler(
RandomSampler(ds), batch_size=32, drop_last=False)`` handed to a loader as ``batch_sampler=`` (the loader's own
``drop_last`` is never read), and Hugging Face ``TrainingArguments`` without ``dataloader_drop_last=True`` (the
``Trainer`` builds its loaders from them). Nothing here is a rule."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.defaults import default_constant
from npu_lint.analysis.scopes import VALUE
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES

BATCH_SAMPLERS = frozenset({"torch.utils.data.BatchSampler", "torch.utils.data.sampler.BatchSampler"})
# Samplers that draw in a random order: what a training loop samples with (an evaluation walks the data in order).
_RANDOM_SAMPLERS = frozenset("torch.utils.data." + name for name in (
    "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "sampler.RandomSampler",
    "sampler.SubsetRandomSampler", "sampler.WeightedRandomSampler"))


def batch_sampler_call(node: ast.Call, ctx: FileContext) -> bool:
    """A call building torch's ``BatchSampler``: the class itself, or ``super().__init__(sampler, bs, drop_last)``
    in the ``__init__`` of a class deriving from it directly (funasr's ``DistributedSamplerWarp``): its
    positional arguments are BatchSampler's."""
    if ctx.resolver.qualname(node.func) in BATCH_SAMPLERS:
        return True
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "__init__" and isinstance(func.value, ast.Call)
            and isinstance(func.value.func, ast.Name) and func.value.func.id == "super"):
        return False
    init = ctx.enclosing(node, (*FUNCTION_TYPES, ast.ClassDef))
    owner = ctx.enclosing(init, (ast.ClassDef,)) if isinstance(init, ast.FunctionDef) and init.name == "__init__" \
        else None
    return isinstance(owner, ast.ClassDef) and any(ctx.resolver.qualname(base) in BATCH_SAMPLERS
                                                   for base in owner.bases)


def short_batch_sampler(node: ast.Call, ctx: FileContext) -> Optional[str]:
    """The text of the random sampler a ``BatchSampler(sampler, batch_size, drop_last)`` call batches when its
    ``drop_last`` is ``False`` (or ``False`` by default: a parameter or ``self.drop_last`` defaulting to it) and
    its batch size is not 1; ``""`` for another sampler (an evaluation's, NPU415's question); None otherwise."""
    arguments = dict(zip(("sampler", "batch_size", "drop_last"), node.args))
    arguments.update({kw.arg: kw.value for kw in node.keywords if kw.arg is not None})
    if any(kw.arg is None for kw in node.keywords) or "drop_last" not in arguments or "sampler" not in arguments:
        return None
    function = ctx.enclosing(node, FUNCTION_TYPES)
    scopes = ctx.resolver.scopes
    scope = scopes.scope_of(function) if function is not None and scopes is not None else None
    size = arguments.get("batch_size")
    if default_constant(arguments["drop_last"], scope, scopes) is not False \
            or (isinstance(size, ast.Constant) and size.value == 1):
        return None   # (a parameter defaulting to 1, DataLoader's own default, is a setting its callers change)
    return _random_order(arguments["sampler"], ctx) or ""


def ordered_batch_sampler(node: ast.Call, ctx: FileContext) -> bool:
    """``BatchSampler(SequentialSampler(ds), bs, drop_last)`` with ``drop_last`` ``False`` (or by default): an
    evaluation's batch sampler whose last batch is smaller (GOLD marks train and eval loaders alike; loops26)."""
    return short_batch_sampler(node, ctx) == ""


def _random_order(sampler: ast.AST, ctx: FileContext) -> Optional[str]:
    scopes = ctx.resolver.scopes
    values: list[ast.AST] = [sampler]
    if isinstance(values[0], ast.Name) and scopes is not None:   # every binding reaching it: ``sampler =
        name = values[0]                                          # RandomSampler(d)`` in the training arm of an if
        values = [b.value for b in scopes.may_reach(name.id, ctx.resolver.current, (name.lineno, name.col_offset))
                  if b.tag == VALUE and not b.path and isinstance(b.value, ast.AST)]
    while values:
        sampler = values.pop()
        if isinstance(sampler, ast.IfExp):   # ``RandomSampler(ds) if train else SequentialSampler(ds)``
            values += [sampler.body, sampler.orelse]
        elif isinstance(sampler, ast.Call) and ctx.resolver.qualname(sampler.func) in _RANDOM_SAMPLERS:
            return ast.unparse(sampler.func)
    return None


# Hugging Face's trainer arguments: ``dataloader_drop_last`` (default False) is the drop_last of the loaders the
# ``Trainer`` builds, ``per_device_train_batch_size`` (default 8) their batch size.
TRAINER_ARGUMENTS = frozenset({"transformers.TrainingArguments", "transformers.training_args.TrainingArguments",
                               "transformers.Seq2SeqTrainingArguments",
                               "transformers.training_args_seq2seq.Seq2SeqTrainingArguments"})


def keeps_short_batches(node: ast.Call, ctx: FileContext) -> bool:
    """``TrainingArguments(output_dir, per_device_train_batch_size=16)``: no ``dataloader_drop_last=True`` (absent,
    or ``False`` by default), no ``**kwargs`` that may set it, batches of more than one, ``do_train`` not off, no
    ``max_steps`` (a run of a set number of steps, often a smoke test, need not reach an epoch's end); the
    arguments given to a trainer whose ``train()`` the same function calls."""
    keywords = {kw.arg: kw.value for kw in node.keywords}
    if None in keywords:
        keywords = _spread_keywords(node, keywords, ctx)
        if keywords is None:
            return False
    if isinstance(keywords.get("do_train"), ast.Constant) and keywords["do_train"].value is False:
        return False
    steps = keywords.get("max_steps")
    if steps is not None and not (isinstance(steps, ast.Constant) and steps.value in (-1, None)):
        return False   # a run of a few steps (a smoke test) may never reach an epoch's tail
    size = keywords.get("per_device_train_batch_size")
    if isinstance(size, ast.Constant) and size.value == 1:
        return False
    if not _trained(node, ctx):
        return False
    drop = keywords.get("dataloader_drop_last")
    if drop is None:
        return True
    function = ctx.enclosing(node, FUNCTION_TYPES)
    scopes = ctx.resolver.scopes
    scope = scopes.scope_of(function) if function is not None and scopes is not None else None
    return default_constant(drop, scope, scopes) is False


# Hugging Face's parser of dataclasses from the command line (or a JSON / YAML file, a dict): its ``parse_*``
# methods return one instance per class it was given, in order.
ARGUMENT_PARSERS = frozenset({"transformers.HfArgumentParser", "transformers.hf_argparser.HfArgumentParser"})
_PARSES = frozenset({"parse_args_into_dataclasses", "parse_json_file", "parse_yaml_file", "parse_dict"})


def parsed_trainer_arguments(node: ast.Call, ctx: FileContext) -> Optional[str]:
    """``trainer = Trainer(model, args=training_args, ...)`` then ``trainer.train()``, with ``training_args``
    unpacked from ``HfArgumentParser((ModelArguments, DataArguments, TrainingArguments)).parse_args_into_dataclasses()``
    (or ``parse_json_file`` ...): the arguments keep ``dataloader_drop_last=False`` unless the command line says
    otherwise, and no statement of the function sets it. The name of the arguments, else None."""
    value = next((kw.value for kw in node.keywords if kw.arg == "args"), node.args[1] if len(node.args) > 1 else None)
    if not isinstance(value, ast.Name) or ctx.resolver.scopes is None:
        return None
    bindings = ctx.resolver.scopes.may_reach(value.id, ctx.resolver.current, (value.lineno, value.col_offset))
    # the bindings' form first: ``_trains`` walks the whole function, asked of every call given a name second
    if not bindings or not all(_parsed_arguments(b, ctx) for b in bindings) or not _trains(node, ctx):
        return None
    function = ctx.enclosing(node, FUNCTION_TYPES) or _module(node, ctx)
    for child in ast.walk(function):   # ``training_args.dataloader_drop_last = True``; ``training_args.max_steps = 5``
        if isinstance(child, (ast.Assign, ast.AugAssign)) and any(
                isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == value.id
                and t.attr in ("dataloader_drop_last", "max_steps")
                for t in (child.targets if isinstance(child, ast.Assign) else [child.target])):
            return None
    return value.id


def _parsed_arguments(binding, ctx: FileContext) -> bool:
    """A binding of element ``k`` of ``parser.parse_args_into_dataclasses()`` (a parse method of an
    ``HfArgumentParser`` built in the same scope from a tuple or list of classes) whose class ``k`` is
    Hugging Face's ``TrainingArguments``."""
    call = binding.value
    if binding.tag != VALUE or len(binding.path) != 1 or not isinstance(call, ast.Call) \
            or not isinstance(call.func, ast.Attribute) or call.func.attr not in _PARSES \
            or not isinstance(call.func.value, ast.Name):
        return False
    parser = ctx.resolver.binding(call.func.value)
    built = parser.value if parser is not None and parser.tag == VALUE and not parser.path else None
    if not isinstance(built, ast.Call) or ctx.resolver.qualname(built.func) not in ARGUMENT_PARSERS \
            or not built.args or not isinstance(built.args[0], (ast.Tuple, ast.List)):
        return False
    classes = built.args[0].elts
    position = binding.path[0]
    return isinstance(position, int) and position < len(classes) \
        and _trainer_arguments_class(ctx.resolver.qualname(classes[position]), ctx)


def _trainer_arguments_class(qualname: Optional[str], ctx: FileContext) -> bool:
    """Hugging Face's ``TrainingArguments``, or (by the project index) a project subclass of it none of whose
    project classes gives ``dataloader_drop_last`` a default of its own (``class TrainingArguments(
    transformers.TrainingArguments)`` adding a recipe field)."""
    if qualname is None:
        return False
    if qualname in TRAINER_ARGUMENTS:
        return True
    project = ctx.project
    target = project.absolute(qualname, ctx.module) if project is not None else None
    if target is None or not project.defines_class(target):
        return False
    order = project.index.mro(target)
    ours = [c for c in order if c in project.index.classes]
    return any(project.index.resolve(c) in TRAINER_ARGUMENTS or c in TRAINER_ARGUMENTS for c in order
               if c not in project.index.classes) \
        and not any("dataloader_drop_last" in dict(project.index.classes[c][1].defaults) for c in ours)


def _trains(trainer: ast.Call, ctx: FileContext) -> bool:
    """``Trainer(...).train()``, or the trainer bound to a name whose ``train()`` the same function calls."""
    parent = ctx.parent(trainer)
    if isinstance(parent, ast.Attribute) and parent.attr == "train":
        return True
    names = {t.id for t in parent.targets if isinstance(t, ast.Name)} if isinstance(parent, ast.Assign) else set()
    scope = ctx.enclosing(trainer, FUNCTION_TYPES) or _module(trainer, ctx)
    return bool(names) and any(isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                               and call.func.attr == "train" and isinstance(call.func.value, ast.Name)
                               and call.func.value.id in names for call in ast.walk(scope))


def _spread_keywords(node: ast.Call, keywords: dict, ctx: FileContext) -> Optional[dict]:
    """The call's keywords with its ``**`` spreads read as a loader call's are (a dict built in the same scope, a
    caller's optional extras passing nothing by default: ``loader_kwargs.py``); None when one cannot be read or
    some reading may set ``dataloader_drop_last``."""
    from npu_lint.rules.loader_kwargs import _spread_dicts   # (that module builds on this one)
    own = {key: value for key, value in keywords.items() if key is not None}
    spreads = _spread_dicts(node, ctx, own)
    if spreads is None:
        return None
    candidates = [{**spread, **own} for spread in spreads]
    return next((c for c in candidates if "dataloader_drop_last" not in c), candidates[0])


def _trained(node: ast.Call, ctx: FileContext) -> bool:
    """The arguments reach a trainer whose ``train()`` runs in the same function (or module): ``Trainer(model,
    args=args, ...).train()``, or ``trainer = Trainer(..., args=TrainingArguments(...))`` then ``trainer.train()``."""
    parent = ctx.parent(node)
    names = {t.id for t in parent.targets if isinstance(t, ast.Name)} if isinstance(parent, ast.Assign) else set()
    scope = ctx.enclosing(node, FUNCTION_TYPES) or _module(node, ctx)
    trainers: list[ast.Call] = []
    for call in ast.walk(scope):
        if isinstance(call, ast.Call) and call is not node and any(
                value is node or (isinstance(value, ast.Name) and value.id in names)
                for value in [*(kw.value for kw in call.keywords if kw.arg == "args"), *call.args[1:2]]):
            trainers.append(call)
    held = set()
    for statement in ast.walk(scope):
        if isinstance(statement, ast.Assign) and statement.value in trainers:
            held |= {t.id for t in statement.targets if isinstance(t, ast.Name)}
    return any(isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "train"
               and (call.func.value in trainers or (isinstance(call.func.value, ast.Name)
                                                    and call.func.value.id in held))
               for call in ast.walk(scope))


def _module(node: ast.AST, ctx: FileContext) -> ast.AST:
    while not isinstance(node, ast.Module) and ctx.parent(node) is not None:
        node = ctx.parent(node)
    return node


_SAMPLER_ORDER = ("sampler", "batch_size", "drop_last")   # BatchSampler's own positional parameters


def _batch_sampler_order(call: ast.Call, ctx: FileContext, depth: int = 0) -> Optional[tuple[str, ...]]:
    """The positional parameters of a batch sampler class called by ``call``: BatchSampler's for torch's, the
    ``__init__``'s of a project subclass of it (``class SentenceBatchSampler(BatchSampler)``, in this file or, by
    the project index, in another module; BatchSampler's when none defines one); None for anything else."""
    qualname = ctx.resolver.qualname(call.func)
    if qualname in BATCH_SAMPLERS:
        return _SAMPLER_ORDER
    definition = ctx.resolver.definition(call.func)
    if isinstance(definition, ast.ClassDef):
        init = next((c for c in definition.body if isinstance(c, ast.FunctionDef) and c.name == "__init__"), None)
        if depth == 0 and init is not None and init.args.vararg is None \
                and _own_batches(tuple(a.arg for a in init.args.args[1:]),
                                 {c.name for c in definition.body if isinstance(c, ast.FunctionDef)}):
            return tuple(a.arg for a in init.args.args[1:])
        if depth > 3 or not any(_batch_sampler_base(base, ctx, depth) for base in definition.bases):
            return None
        if init is None:
            base = next(b for b in definition.bases if _batch_sampler_base(b, ctx, depth))
            return _batch_sampler_order(ast.Call(func=base, args=[], keywords=[]), ctx, depth + 1) \
                if not isinstance(base, ast.Call) else None
        return None if init.args.vararg is not None else tuple(a.arg for a in init.args.args[1:])
    project = ctx.project
    if definition is not None or project is None or qualname is None:
        return None
    target = project.absolute(qualname, ctx.module)
    if target is None or project.index.kind(target) != "class":
        return None
    entry = project.index.classes.get(target) if depth == 0 else None
    if entry is not None and entry[1].init_args is not None and _own_batches(entry[1].init_args, entry[1].methods):
        return entry[1].init_args
    if not any(base in BATCH_SAMPLERS for base in project.index.mro(target)):
        return None
    return project.loader_positionals(qualname, ctx.module, _SAMPLER_ORDER, BATCH_SAMPLERS)


def _own_batches(parameters: tuple[str, ...], methods) -> bool:
    """A project class given as a loader's ``batch_sampler`` that batches by its own settings: its ``__init__``
    takes ``batch_size`` and ``drop_last`` and it defines ``__iter__`` (scGPT's ``SubsetsBatchSampler(Sampler)``),
    whatever its bases."""
    return "batch_size" in parameters and "drop_last" in parameters and "__iter__" in methods


def _batch_sampler_base(base: ast.AST, ctx: FileContext, depth: int) -> bool:
    if ctx.resolver.qualname(base) in BATCH_SAMPLERS:
        return True
    return isinstance(ctx.resolver.definition(base), ast.ClassDef) \
        and _batch_sampler_order(ast.Call(func=base, args=[], keywords=[]), ctx, depth + 1) is not None


def sampler_batches(value: ast.AST, node: ast.Call, ctx: FileContext) -> Optional[dict]:
    """The ``batch_size`` and ``drop_last`` of the batch sampler a loader is given as ``batch_sampler=`` when every
    batch sampler it may be (``batch_sampler = SentenceBatchSampler(sampler, batch_size=bs, drop_last=False)`` in
    each arm) keeps a short last batch: ``drop_last`` ``False`` (or ``False`` by default), batches of more than
    one; torch's ``BatchSampler`` or a project subclass of it. None otherwise. A ``BatchSampler`` of a random
    sampler is reported where it is built (NPU406) and at the loader it batches (GOLD marks the ``DataLoader(``
    line: loops26)."""
    calls: list[ast.Call] = []
    function = ctx.enclosing(node, FUNCTION_TYPES)
    scopes = ctx.resolver.scopes
    scope = scopes.scope_of(function) if function is not None and scopes is not None else None
    if isinstance(value, ast.Call):
        calls = [value]
    elif isinstance(value, ast.Name) and scopes is not None:
        for binding in scopes.may_reach(value.id, ctx.resolver.current, (value.lineno, value.col_offset)):
            if binding.tag != VALUE or binding.path or not isinstance(binding.value, ast.Call):
                return None
            calls.append(binding.value)
    elif isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and scope is not None \
            and value.value.id == scopes.self_name(scope):
        calls = _stored_samplers(value.attr, scope, ctx)   # ``self.batch_sampler`` stored in ``__init__`` (loops26)
        if calls is None:
            return None
    if not calls:
        return None
    found: Optional[dict] = None
    for call in calls:
        order = _batch_sampler_order(call, ctx)
        if order is None or any(kw.arg is None for kw in call.keywords):
            return None
        arguments = dict(zip(order, call.args))
        arguments.update({kw.arg: kw.value for kw in call.keywords if kw.arg is not None})
        built = ctx.enclosing(call, FUNCTION_TYPES)   # (``self.batch_sampler`` is built in another method)
        where = scopes.scope_of(built) if built is not None and scopes is not None else scope
        # (a call given inline, ``batch_sampler=Buckets(subsets, bs, drop_last=drop_last)``: the loader's scope)
        size = arguments.get("batch_size")
        if "drop_last" not in arguments or size is None \
                or default_constant(arguments["drop_last"], where, scopes) is not False \
                or (isinstance(size, ast.Constant) and size.value == 1):
            return None   # (a parameter defaulting to 1, DataLoader's own default, is a setting callers change)
        if found is None:
            found = {"batch_size": arguments["batch_size"], "drop_last": ast.Constant(value=False)}
            order_of = _sampler_order(arguments.get("sampler"), ctx)
            if order_of is None:   # a batch sampler shuffling by its own flag (``inter_subset_shuffle=shuffle``)
                order_of = next((value for key, value in arguments.items() if "shuffle" in key
                                 and not (isinstance(value, ast.Constant) and value.value is not True)), None)
            if order_of is not None:   # the loader shuffles (a training loader) as its sampler does
                found["shuffle"] = order_of
    return found


def _stored_samplers(attr: str, scope, ctx: FileContext) -> Optional[list[ast.Call]]:
    """The calls every ``self.<attr> = ...`` of the class stores: a call, or a name of the storing method bound
    only to calls (``batch_sampler = BatchSampler(...)``; ``self.batch_sampler = batch_sampler``); None when one
    stores anything else (a parameter: the caller's sampler)."""
    scopes = ctx.resolver.scopes
    calls: list[ast.Call] = []
    for binding in scopes.attribute(scope, attr):
        stored = binding.value
        if binding.tag != VALUE or binding.path:
            return None
        if isinstance(stored, ast.Name):
            reaching = scopes.may_reach(stored.id, binding.scope, binding.pos)
            if not reaching or any(b.tag != VALUE or b.path or not isinstance(b.value, ast.Call) for b in reaching):
                return None
            calls += [b.value for b in reaching]
        elif isinstance(stored, ast.Call):
            calls.append(stored)
        else:
            return None
    return calls


def _sampler_order(sampler: Optional[ast.AST], ctx: FileContext) -> Optional[ast.AST]:
    """Whether the sampler a batch sampler batches draws in a random order: ``True`` when it may be one of torch's
    random samplers (``DistributedSampler(ds) if rank != -1 else RandomSampler(ds)``), the flag of a sampler
    given ``shuffle=flag`` (``RandomSubsetSampler(self, shuffle=shuffle)``); None otherwise."""
    values: list[ast.AST] = [sampler] if sampler is not None else []
    if isinstance(sampler, ast.Name) and ctx.resolver.scopes is not None:
        values = [b.value for b in ctx.resolver.scopes.may_reach(sampler.id, ctx.resolver.current,
                                                                  (sampler.lineno, sampler.col_offset))
                  if b.tag == VALUE and not b.path and isinstance(b.value, ast.AST)]
    flag: Optional[ast.AST] = None
    while values:
        value = values.pop()
        if isinstance(value, ast.IfExp):
            values += [value.body, value.orelse]
        elif isinstance(value, ast.Call):
            if ctx.resolver.qualname(value.func) in _RANDOM_SAMPLERS:
                return ast.Constant(value=True)
            shuffle = next((kw.value for kw in value.keywords if kw.arg == "shuffle"), None)
            if shuffle is not None and not isinstance(shuffle, ast.Constant):
                flag = shuffle
            elif isinstance(shuffle, ast.Constant) and shuffle.value is True:
                return shuffle
    return flag
