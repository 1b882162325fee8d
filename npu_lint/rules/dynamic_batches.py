"""NPU406: a training loader whose last batch is smaller (NPU405, padding to the batch maximum: dynamic_padding.py)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.config_loaders import config_loader, config_statement
from npu_lint.analysis.defaults import default_constant, fixed_one, may_be_false, not_surely_true
from npu_lint.analysis.library_classes import loader_class, loader_names, loader_parameters
from npu_lint.analysis.loader_wrappers import factory_keywords, forwards_drop_last, forwards_loader
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.scopes import DEF, VALUE
from npu_lint.bounded import unparse
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES, Rule, short_source
from npu_lint.rules.loader_attributes import attribute_loader_call
from npu_lint.rules.loader_callees import loader_callee
from npu_lint.rules.loader_tails import drawn_once
from npu_lint.rules.loader_kwargs import batched_keywords, none_on_some_path
from npu_lint.rules.batch_samplers import (BATCH_SAMPLERS, TRAINER_ARGUMENTS, batch_sampler_call, keeps_short_batches,
                                           parsed_trainer_arguments, short_batch_sampler)
from npu_lint.rules.test_scope import test_code
from npu_lint.rules.loader_subclasses import (parameters_of, passed_arguments, substituted, super_init_keywords,
                                             super_loader_call)
from npu_lint.rules.training_loops import trains, trains_through_helper
from npu_lint.rules.value_flow import FAMILY

_LOADER = "torch.utils.data.DataLoader"
_LOADER_PARAMETERS = ("dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers", "collate_fn",
                      "pin_memory", "drop_last")


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_TRAIN_HOOK = "train_dataloader"   # Lightning's hook: the loader it returns trains
_DEFAULT_BATCH_SIZE = ast.Constant(value=1)   # DataLoader's default batch_size


def _constant(node: Optional[ast.AST]) -> object:
    return node.value if isinstance(node, ast.Constant) else ...


class LoaderWithoutDropLast(Rule):
    """A training ``DataLoader`` without ``drop_last=True``.

    What it does:
        Flags ``torch.utils.data.DataLoader(...)`` calls (and calls of another library's subclass of it that hands
        DataLoader its keywords, ``torch_geometric.loader.DataLoader(ds, 32, shuffle=True)``,
        ``dgl.dataloading.GraphDataLoader``: ``rule_tables/library_classes.tsv``, its positional arguments read
        by the library's constructor) of a training loader that neither pass ``drop_last=True``
        nor set the batch size to 1 or leave batching to a ``batch_sampler`` (``batch_sampler=None`` is none); also calls of the project's
        subclasses of ``DataLoader`` (unless the subclass passes ``drop_last`` itself; one defined in another module
        is judged with the call's keywords when, by the project index, it and its project bases never name
        ``drop_last``, its positional arguments read by the parameters of its ``__init__``, or DataLoader's when
        no project class defines one: ``data.DataLoader(train_set, self.batch_size, sampler=sampler)``), calls of
        a function (of the file, or of another module by the project index) that returns a ``DataLoader`` built with
        its own ``**kwargs`` and names no ``drop_last`` (``distrib.loader(ds, batch_size=bs, shuffle=True)`` with
        ``return klass(dataset, *args, shuffle=shuffle, **kwargs)``, ``klass=DataLoader``), judged with the call's
        keywords, and of the file's helper
        functions and methods that return a ``DataLoader`` (flagged at the call, with the arguments the call gives the
        helper's parameters, when the loader inside the helper is not flagged already), and calls of a loader factory
        of another module (the model knows it returns a loader) that pass ``drop_last`` themselves, judged with the
        call's keywords (``get_dataloader(ds, shuffle=True, drop_last=drop_last)`` forwarding them to a
        ``DataLoader``), and calls of another module's function returning one ``DataLoader`` built from its own
        parameters (the project index's ``loader_arguments``: ``build_dataloader(train_dset, args.batch_size)``
        with ``def build_dataloader(dataset, batch_size=64, shuffle=True, drop_last=None)``), each parameter
        taking what the call passes or its default, a ``drop_last`` defaulting to anything but ``True`` (or set
        in the body only to a remainder test or constants, one of them false) keeping the tail; a factory
        computing its own ``drop_last`` is judged inside it. A loader is a training
        loader when it shuffles, when its name, dataset or sampler says ``train`` (not a dataset's keyword set to
        ``False``: ``Bananas(is_train=False)``), or when a loop over it
        (``for b in loader``, ``enumerate(loader)``, ``tqdm(loader)``, each loader of ``zip(src_dl, tgt_dl)`` or
        ``zip(pbar, loader)``) calls ``backward()`` or ``step()`` of an
        optimizer or a gradient scaler (itself, or in the file's function or method it hands the batch to:
        ``self._step(batch)``), whatever its ``shuffle``; so does a loader handed to one of the file's functions
        (``fit(model, opt, loader)``) whose loop over it runs a training step per batch (the model's
        ``runs_per_step``: ``.backward()`` and a ``.step()`` that is not the project's own). A loader whose ``shuffle`` is a flag (``shuffle=is_train``, ``args.shuffle``,
        ``mode == "train"``), or whose arguments choose by a phase flag (``batch_size=cfg.eval_batch_size if
        is_eval else cfg.batch_size``: Coqui's ``get_data_loader(config, assets, is_eval, ...)``), trains whenever
        the flag says so: flagged too (with ``drop_last`` absent or ``False``),
        except in a helper whose own calls in the file pass the flag (judged at those calls). Keyword arguments passed as ``**kwargs`` are
        read from a dict built in the same scope (``kwargs = dict(batch_size=32)`` or a ``{...}`` literal, then
        ``kwargs["shuffle"] = True`` or ``kwargs.update(shuffle=True)``) or returned by a function of the file
        (``**loader_kwargs(cfg)`` with ``return dict(batch_size=cfg.bs, num_workers=4)``); a dict bound in several
        ``if`` arms (``if phase == "train": args = dict(..., drop_last=True)`` / ``elif ...: args = dict(...)``, an arm
        that raises or returns left out) is read per arm, the call judged with an arm that keeps the short batch (one
        that shuffles first); a caller's optional extras merged in pass nothing by default (a parameter
        defaulting to ``None`` or ``{}``, ``**(extra or {})``, the function's own ``**kwargs`` merged into the dict
        by ``args.update(**kwargs)`` or ``{..., **kwargs}``, or spread into the call itself beside its
        ``batch_size=`` when no call of the function in the file passes ``drop_last`` through it (``def make(ds, bs,
        **kw): return DataLoader(ds, batch_size=bs, shuffle=True, **kw)``), and ``**self.cfg.dataloader_kwargs`` beside the call's
        own batch size), as ``drop_last=drop_last`` is read by its default; so do the extras of a dict the code does
        not build (a parameter, ``self.loader_args``) spread beside the call's own ``batch_size=``
        (``DataLoader(ds, batch_size=bs, num_workers=w, **dataloader_args)``) unless a call of the function in the
        file passes ``drop_last`` or a ``batch_sampler``; other changes of the dict and other ``**kwargs`` (unless
        the call passes ``batch_size=`` and ``drop_last=`` itself, which the spread cannot pass again) are left
        alone. A ``batch_sampler=batch_sampler`` that an arm sets to ``None`` leaves the loader batching itself on
        that path: judged with its own keywords. A computed ``drop_last`` counts as ``False`` unless it is ``True``
        by default or on every path that reaches the loader: a phase test (``drop_last=split == "train"``), an
        unrelated setting (``drop_last=args.batch_norm``), a name bound to another value (``drop_last =
        model_contains_batch_norm``); left alone are a size guard (``drop_last=len(ds) > bs``: false only when one
        batch holds the whole set), the setting handed through unchanged for the caller or the configuration to
        decide (a parameter ``drop_last`` without a default, ``args.drop_last``, ``cfg["drop_last"]``), and a
        ``shuffle`` flag that is the ``drop_last`` flag itself (``shuffle=split == "train", drop_last=split ==
        "train"``: it drops its tail whenever it trains; its other phases are NPU415's); a helper of the file whose
        loader computes its ``drop_last`` is judged inside it, not at its calls. A call of an abstract method of the
        file (``raise NotImplementedError``) the model knows returns a loader, given ``drop_last`` itself
        (``self._create_training_data_loader(tf, batch_size=bs, shuffle=True, drop_last=drop_last)``), is judged
        with the call's keywords. So is ``False`` one that is ``False`` unless a caller says
        otherwise: ``drop_last=drop_last`` with the parameter's default ``False``, or ``drop_last=self.drop_last``
        where every ``self.drop_last = ...`` of the class stores ``False`` or a constructor parameter defaulting to
        it (a Lightning ``DataModule(..., drop_last: bool = False)``), or that no method sets and the class or
        a base gives ``False`` (a class attribute or dataclass field ``drop_last: bool = False``), or a configuration lookup defaulting to
        ``False`` (``drop_last=config.get("drop_last", False)``, ``getattr(args, "drop_last", False)``). A loader built in Lightning's
        ``train_dataloader`` hook, or in a method of the class only that hook calls with the training set
        (``self._data_loader(self.dataset_train, shuffle=self.shuffle)``), is a training loader. A
        ``BatchSampler`` of a random sampler (``BatchSampler(RandomSampler(ds), 32, drop_last=False)``, the sampler
        perhaps through a name; or a subclass's ``super().__init__(RandomSampler(ds), bs, drop_last)``) with
        ``drop_last`` ``False`` is flagged too: handed to a loader as
        ``batch_sampler=``, it decides the batches. A loader given as ``batch_sampler=`` a project subclass of
        ``BatchSampler`` (or torch's over another sampler, or a project class of any base whose ``__init__`` takes
        ``batch_size`` and ``drop_last`` and that defines ``__iter__``: scGPT's ``SubsetsBatchSampler(Sampler)``,
        shuffling by a keyword naming ``shuffle``) built with ``drop_last`` ``False`` in every arm that binds
        it (``SentenceBatchSampler(sampler, batch_size=bs, drop_last=False)``, positional arguments read by the
        subclass's ``__init__``) batches as that sampler says: judged at the loader with its batch size, a training
        loader when the sampler may draw in a random order (``DistributedSampler(ds) if rank != -1 else
        RandomSampler(ds)``) or shuffles by a flag (``RandomSubsetSampler(ds, shuffle=shuffle)``), else NPU415's. So are Hugging Face ``TrainingArguments`` (and
        ``Seq2SeqTrainingArguments``) without ``dataloader_drop_last=True`` given to a trainer whose ``train()``
        the same function calls: the ``Trainer`` builds its training loader from them (not with
        ``do_train=False``, ``max_steps``, batches of one or ``**kwargs`` that may set it; a ``**`` spread is read
        as a loader's is: a dict built in the scope, a caller's optional extras passing nothing by default); so is
        a trainer given arguments unpacked from ``HfArgumentParser((ModelArguments, TrainingArguments))
        .parse_args_into_dataclasses()`` (``parse_json_file`` / ``parse_yaml_file`` / ``parse_dict``; the class a
        ``TrainingArguments`` or, by the project index, a project subclass giving ``dataloader_drop_last`` no default
        of its own) whose ``train()`` the function calls, reported at the trainer: unless the command line says
        otherwise (the function setting ``dataloader_drop_last`` or ``max_steps`` is left alone). A ``drop_last`` the
        code itself leaves ``False`` on some path counts as ``False``: a name one arm sets to ``False`` (``if
        len(ds) % bs == 1: drop_last = True`` / ``else: drop_last = False``) or a test of the remainder
        (``drop_last=len(ds) % bs == 1``, true for one remainder only). The ``super().__init__(...)`` of a class
        deriving from ``DataLoader`` itself is judged as a ``DataLoader`` call when the file never builds the class
        (a framework's loader base, built in other modules); so is that of a subclass of the file's own
        ``DataLoader`` base whose ``__init__`` hands its ``**kwargs`` on to ``DataLoader`` and never names
        ``drop_last`` (``class InteractionsDataLoader(BaseInteractionsDataLoader)`` calling
        ``super().__init__(interactions=..., batch_size=batch_size, shuffle=shuffle, **kwargs)``: the
        constructor's own ``**kwargs`` beside its ``batch_size=`` pass nothing by default). A ``batch_sampler``
        parameter defaulting to ``None`` handed on (``def __init__(self, dataset, batch_size=1, shuffle=False,
        batch_sampler=None, **kwargs)``: schnetpack's ``AtomsLoader``) leaves the loader batching itself for a
        caller passing none: judged with the call's own keywords.
        A dataset whose length the code writes (``list(range(16))``, a list literal) and a constant batch size
        that divides it give no short batch: left alone (NPU415 too).
        A framework configuration's training loader (OpenMMLab's mmengine ``train_dataloader = dict(batch_size=16,
        sampler=dict(type='DefaultSampler', shuffle=True), dataset=...)``, merged with its ``_base_`` files:
        ``analysis/config_loaders.py``): mmengine's ``Runner.build_dataloader`` hands the dict to ``DataLoader``
        (``drop_last`` False unless set) and ``DefaultSampler`` yields one epoch, so the last batch is short;
        silent with ``drop_last=True``, a batch size of 1 or an ``InfiniteSampler`` (iteration-based training: the
        stream never ends, every batch is full). The unshuffled ones are NPU415's.
        The loader class may reach the call through a local name (``DataLoader = tt.data.DataLoaderBatch`` / ``if
        torch_ds_dl: DataLoader = torch.utils.data.DataLoader``, then ``DataLoader(dataset, batch_size,
        shuffle=shuffle)``: every binding reaching the call a loader class; or a choice of two, ``loader =
        DataLoader if image_weights else InfiniteDataLoader``, the other one the file's own subclass of a loader
        class, or the same choice called at once, ``(DataLoaderX if prefetch else DataLoader)(dataset, ...)``),
        and another library's subclass of
        ``DataLoader`` that ``rule_tables/library_classes.tsv`` lacks is known by its class name saying
        ``DataLoader`` (``torchtuples.data.DataLoaderBatch``, timm's ``MultiEpochsDataLoader``; not torch's, not the
        analysed project's, not a name for settings or an iterator such as ``DataLoaderConfiguration``): read as
        torch's, positional arguments in its order (``rules/loader_callees.py``).
    Why it matters on NPU:
        Unless the dataset size is a multiple of the batch size, the last batch of every epoch is smaller:
        a second set of shapes for every operator of the training step, compiled again on NPU (and with
        graph capture or static-shape execution, a fallback).
    Example:
        loader = DataLoader(train_set, batch_size=32, shuffle=True)
    Use instead:
        loader = DataLoader(train_set, batch_size=32, shuffle=True, drop_last=True)
    Fix safety:
        No automatic fix: dropping the last partial batch changes which samples an epoch sees.
    """

    code = "NPU406"
    name = "loader-without-drop-last"
    family = FAMILY
    node_types = (ast.Call, ast.For)
    triggers = ("DataLoader", "BatchSampler", "TrainingArguments", "drop_last", "_dataloader", "samples_per_gpu",
                "_base_") \
        + loader_names()

    @staticmethod
    def project_triggers(project) -> frozenset[str]:
        """Files that build one of the project's DataLoader subclasses (defined in another module) reach this rule."""
        return project.loader_class_names()
    message = "this training DataLoader has no drop_last=True: its last batch is smaller, a second set of shapes to compile on NPU"
    must_fire = (
        # a framework config's training loader (analysis/config_loaders.py, session 23): it shuffles, mmengine's
        # DefaultSampler yields one epoch and the Runner's DataLoader keeps the tail (no drop_last)
        "train_dataloader = dict(batch_size=16, num_workers=4, sampler=dict(type='DefaultSampler', shuffle=True),\n"
        "                        dataset=dict(type='ImageNet', data_root='data/imagenet'))\n",
        # mmcv 1.x: the data dict's samples_per_gpu is every loader's batch size, drop_last False unless set
        "data = dict(samples_per_gpu=32, workers_per_gpu=2,\n"
        "            train=dict(type='ImageNet'), val=dict(type='ImageNet'))\n",
                 # the factory's own **kw beside its batch size: a caller's optional extras, nothing by default
                 "import torch\nfrom torch.utils.data import DataLoader\ndef make(ds, bs, **kw):\n"
                 "    return DataLoader(ds, batch_size=bs, shuffle=True, **kw)\n",
                 # a subclass of the file's DataLoader base (which hands its **kwargs on): the subclass's
                 # super().__init__ is DataLoader's call
                 "import torch\nclass BaseLoader(torch.utils.data.DataLoader):\n"
                 "    def __init__(self, data=None, **kwargs):\n        super().__init__(dataset=data, **kwargs)\n"
                 "class PairLoader(BaseLoader):\n"
                 "    def __init__(self, data, batch_size=1024, shuffle=True, **kwargs):\n"
                 "        super().__init__(data=data, batch_size=batch_size, shuffle=shuffle, **kwargs)\n",
                 # drop_last read from a dataclass field of a base that defaults to False
                 "import torch\nfrom dataclasses import dataclass\nfrom torch.utils.data import DataLoader\n"
                 "@dataclass\nclass LoaderConfig:\n    batch_size: int = 32\n    drop_last: bool = False\n"
                 "class Data(LoaderConfig):\n    def train_loader(self, train_set):\n"
                 "        return DataLoader(train_set, batch_size=self.batch_size, shuffle=True, drop_last=self.drop_last)\n",
                 # a helper of the file that builds the loader with its callers' keywords (``**kwargs``)
                 "import torch\nfrom torch.utils.data import DataLoader\ndef get_dataloader(dataset, **kwargs):\n"
                 "    dloader = DataLoader(dataset, **kwargs)\n    return dloader\n"
                 "loader = get_dataloader(train_set, batch_size=32, shuffle=True)\n",
                 # a project BatchSampler subclass given drop_last=False (in every arm) over a sampler that shuffles
                 "import torch\nfrom torch.utils.data import BatchSampler, DataLoader, RandomSampler\n"
                 "class BucketBatchSampler(BatchSampler):\n    def __init__(self, sampler, batch_size, drop_last, key):\n"
                 "        super().__init__(sampler, batch_size, drop_last)\n        self.key = key\n"
                 "def setup_loader(ds, bs, rank):\n    sampler = DistSampler(ds) if rank != -1 else RandomSampler(ds)\n"
                 "    batch_sampler = BucketBatchSampler(sampler, bs, False, len)\n"
                 "    return DataLoader(ds, num_workers=2, batch_sampler=batch_sampler)\n",
                 # built in a setup function of the file, returned, and trained by its caller's loop
                 "import torch\nfrom torch.utils.data import DataLoader\ndef setup(ds):\n"
                 "    model = Net()\n    loader = DataLoader(ds, batch_size=16)\n    return model, loader\n"
                 "def train(ds, opt):\n    model, loader = setup(ds)\n    for x, y in loader:\n"
                 "        model(x).sum().backward()\n        opt.step()\n",
                 # the loop hands each batch to the class's training step
                 "import torch\nfrom torch.utils.data import DataLoader\nclass Runner:\n    def fit(self, ds, bs):\n"
                 "        loader = DataLoader(ds, batch_size=bs)\n        for batch in loader:\n            self._step(batch)\n"
                 "    def _step(self, batch):\n        loss = self.model(batch)\n        loss.backward()\n"
                 "        self.opt.step()\n",

                 # keywords spread from a function of the file that returns a dict
                 "import torch\nfrom torch.utils.data import DataLoader\ndef loader_kwargs(cfg):\n"
                 "    return dict(batch_size=cfg.bs, num_workers=4)\n"
                 "loader = DataLoader(ds, shuffle=True, **loader_kwargs(cfg))\n",

                 # a training loop over a progress bar zipped with the loader, or over two loaders zipped
                 "import torch\nfrom torch.utils.data import DataLoader\ndef fit(model, opt, src, tgt, bs):\n"
                 "    src_dl = DataLoader(src, batch_size=bs)\n    tgt_dl = DataLoader(tgt, batch_size=bs)\n"
                 "    for (xs, ys), (xt, _) in zip(src_dl, tgt_dl):\n        model(xs, xt).backward()\n"
                 "        opt.step()\n",
                 # drop_last beside a spread of other keywords the model cannot read
                 "import torch\nfrom torch.utils.data import DataLoader\ndef make(ds, bs, drop_last=False, **kw):\n"
                 "    return DataLoader(ds, batch_size=bs, shuffle=True, drop_last=drop_last, **kw)\n",
                 "import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(ds, batch_size=32, shuffle=True)\n",
                 # a loader class of the project that hands its batch size and shuffle flag to DataLoader's constructor
                 "import torch\nclass Loader(torch.utils.data.DataLoader):\n    def __init__(self, cfg, ds, shuffle=False):\n"
                 "        self.step = cfg['batch_size']\n"
                 "        super().__init__(dataset=ds, batch_size=self.step, shuffle=shuffle)\n"
                 "train_data = Loader(cfg, ds, shuffle=True)\n",
                 "import torch\ntrain_loader = torch.utils.data.DataLoader(ds, batch_size=8, sampler=sampler, drop_last=False)\n",
                 "import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(ds, 64, True, num_workers=4)\n",
                 # another library's DataLoader subclass, its positional arguments by its own constructor
                 "import torch\nfrom torch_geometric.loader import DataLoader\nloader = DataLoader(ds, 64, True)\n",
                 "import torch\nfrom torch_geometric.data import DataLoader\n"
                 "def fit(model, opt, ds, bs):\n    loader = DataLoader(ds, bs)\n    for data in loader:\n"
                 "        model(data).backward()\n        opt.step()\n",
                 "import torch\nfrom torch.utils.data import DataLoader\nkw = dict(batch_size=32, shuffle=True)\n"
                 "loader = DataLoader(ds, **kw)\n",
                 "import torch\nfrom torch.utils.data import DataLoader\ndef main(ds, model, opt):\n"
                 "    loader = DataLoader(ds, batch_size=8, collate_fn=pad)\n    for x, y in enumerate(loader):\n"
                 "        model(x).sum().backward()\n        opt.step()\n",
                 "import torch\nfrom torch.utils.data import DataLoader\nclass Loader(DataLoader):\n    pass\n"
                 "loader = Loader(ds, batch_size=16, shuffle=True)\n",
                 "import torch\nfrom torch.utils.data import DataLoader\n"
                 "def make_loader(ds, bs, shuffle=False, drop_last=False):\n"
                 "    return DataLoader(ds, batch_size=bs, shuffle=shuffle, drop_last=drop_last)\n"
                 "loader = make_loader(ds, 32, shuffle=True)\n",
                 "import torch\nfrom torch.utils.data import DataLoader\ndef build(ds):\n    kw = dict(batch_size=32)\n"
                 "    kw['shuffle'] = True\n    return DataLoader(ds, **kw)\n",
                 # training-ness from a flag: it shuffles (trains) whenever the flag is set
                 "import torch\nfrom torch.utils.data import DataLoader\ndef build(ds, bs, is_train):\n"
                 "    return DataLoader(ds, batch_size=bs, shuffle=is_train, drop_last=False)\n",
                 # a method of the class builds the loader, shuffling by default (``self`` filled implicitly)
                 "import torch\nfrom torch.utils.data import DataLoader\nclass Model:\n"
                 "    def _loader(self, ds, bs, shuffle=True):\n        return DataLoader(ds, batch_size=bs, shuffle=shuffle)\n"
                 "    def fit(self, ds):\n        return self._loader(ds, 16)\n",
                 # ``batch_sampler=None`` is the default: the loader batches itself
                 "import torch\nfrom torch.utils.data import DataLoader\n"
                 "loader = DataLoader(ds, batch_size=32, shuffle=True, sampler=None, batch_sampler=None)\n",
                 # the arguments choose by a phase flag: the loader serves training when the flag says so
                 "import torch\nfrom torch.utils.data import DataLoader\ndef get_data_loader(config, ds, sampler, is_eval):\n"
                 "    return DataLoader(ds, sampler=sampler, collate_fn=ds.collate_fn,\n"
                 "                      batch_size=config.eval_batch_size if is_eval else config.batch_size)\n",
                 # drop_last False on the code's own path: one arm sets it, or a remainder test (avoid a batch of one)
                 "import torch\nfrom torch.utils.data import DataLoader\ndef build(ds, bs, shuffle=True):\n"
                 "    if shuffle and len(ds) % bs == 1:\n        drop_last = True\n    else:\n        drop_last = False\n"
                 "    return DataLoader(ds, bs, shuffle, drop_last=drop_last)\n",
                 "import torch\nfrom torch.utils.data import DataLoader\n"
                 "loader = DataLoader(ds, batch_size=32, shuffle=True, drop_last=len(ds) % 32 == 1)\n",
                 # a framework's DataLoader base class, built in other modules: its own super().__init__
                 "import torch\nclass AbstractLoader(torch.utils.data.DataLoader):\n"
                 "    def __init__(self, config, dataset, shuffle=False):\n        self.step = config['batch_size']\n"
                 "        super().__init__(dataset=dataset, batch_size=self.step, shuffle=shuffle)\n",
                 # drop_last looked up in a data config with the default False (NeMo's setup from config)
                 "import torch\nfrom torch.utils.data import DataLoader\ndef build(ds, config):\n"
                 "    shuffle = config['shuffle']\n    return DataLoader(ds, batch_size=config['batch_size'], "
                 "shuffle=shuffle, drop_last=config.get('drop_last', False))\n",
                 # a caller's optional extras merged into the keywords (a library's fit); the own **kwargs merged
                 "import torch\nfrom torch.utils.data import DataLoader\n"
                 "def fit_dataset(ds, batch_size=32, dataloader_kwargs=None):\n"
                 "    if dataloader_kwargs is None:\n        dataloader_kwargs = {}\n"
                 "    dataloader_kwargs = {'batch_size': batch_size, **dataloader_kwargs}\n"
                 "    return DataLoader(ds, **{'shuffle': True, **dataloader_kwargs})\n",
                 "import torch\nfrom torch.utils.data import DataLoader\ndef build(ds, split, bs, **kwargs):\n"
                 "    args = dict(batch_size=bs, num_workers=4)\n    args.update(**kwargs)\n    if split == 'train':\n"
                 "        args['shuffle'] = True\n        args['drop_last'] = len(ds) % bs == 1\n"
                 "    else:\n        args['shuffle'] = False\n    return DataLoader(ds, **args)\n",
                 # keywords bound in if arms: the training arm keeps its short batch
                 "import torch\nfrom torch.utils.data import DataLoader\ndef build(ds, opt, phase):\n"
                 "    if phase == 'train':\n        args = dict(dataset=ds, batch_size=opt['bs'], shuffle=True)\n"
                 "    elif phase == 'val':\n        args = dict(dataset=ds, batch_size=1, shuffle=False)\n"
                 "    else:\n        raise ValueError(phase)\n    return DataLoader(**args)\n",
                 "import torch\nfrom torch.utils.data import DataLoader\nclass DataModule:\n"
                 "    def train_dataloader(self):\n"
                 "        return DataLoader(self.train_set, self.batch_size, shuffle=True, **self.config.dataloader_kwargs)\n",
                 # a loader handed to the file's function whose loop over it back-propagates and steps (no shuffle)
                 "import torch\nfrom torch.utils.data import DataLoader\ndef fit(model, opt, data):\n"
                 "    for step, x in enumerate(data):\n        model(x).sum().backward()\n        opt.step()\n"
                 "def main(ds, model, opt):\n    fit(model, opt, DataLoader(ds, batch_size=32))\n",
                 # Hugging Face's arguments with a caller's optional extras (nothing by default) spread in
                 "from transformers import Trainer, TrainingArguments\ndef fit(model, ds, bs, argument_kwargs=None):\n"
                 "    if argument_kwargs is None:\n        argument_kwargs = {}\n"
                 "    trainer = Trainer(model=model, train_dataset=ds, args=TrainingArguments(\n"
                 "        per_device_train_batch_size=bs, output_dir='o', **argument_kwargs))\n    trainer.train()\n",
                 # the arguments parsed from the command line (or a JSON file) by HfArgumentParser
                 "import sys\nfrom transformers import HfArgumentParser, Trainer, TrainingArguments\n"
                 "def main(model, ds, ModelArguments):\n"
                 "    parser = HfArgumentParser((ModelArguments, TrainingArguments))\n"
                 "    if sys.argv[1].endswith('.json'):\n"
                 "        model_args, training_args = parser.parse_json_file(sys.argv[1])\n    else:\n"
                 "        model_args, training_args = parser.parse_args_into_dataclasses()\n"
                 "    trainer = Trainer(model, training_args, train_dataset=ds)\n    trainer.train()\n",
                 # extras a caller passes (a dict the code does not build) beside the call's own batch size: options,
                 # no drop_last by default
                 "import torch\nfrom torch.utils.data import DataLoader\ndef fit(ds, loader_kwargs):\n"
                 "    return DataLoader(ds, batch_size=32, shuffle=True, **loader_kwargs)\n",
                 # a computed drop_last that is not known True: an unrelated setting (False unless the flag is set)
                 "import torch\nfrom torch.utils.data import DataLoader\ndef build(ds, args):\n"
                 "    return DataLoader(ds, batch_size=args.batch_size, shuffle=True, drop_last=args.batch_norm)\n",
                 # a DataLoader subclass handing on a batch_sampler parameter that defaults to None
                 "import torch\nfrom torch.utils.data import DataLoader\nclass AtomsLoader(DataLoader):\n"
                 "    def __init__(self, dataset, batch_size=1, shuffle=False, batch_sampler=None, **kwargs):\n"
                 "        super().__init__(dataset=dataset, batch_size=batch_size, shuffle=shuffle,\n"
                 "                         batch_sampler=batch_sampler, **kwargs)\n")
    must_not_fire = (
        # an iteration-based config: InfiniteSampler never ends an epoch, every batch is full
        "train_dataloader = dict(batch_size=16, sampler=dict(type='InfiniteSampler', shuffle=True),\n"
        "                        dataset=dict(type='ImageNet'))\n",
        # mmcv 1.x with the training loader's tail dropped (mmedit's configs), or batches of one
        "data = dict(workers_per_gpu=4, train_dataloader=dict(samples_per_gpu=16, drop_last=True),\n"
        "            val_dataloader=dict(samples_per_gpu=1), train=dict(type='SRFolderDataset'))\n",
        "data = dict(samples_per_gpu=1, workers_per_gpu=4, train=dict(type='SRFolderDataset'))\n",
        # a pytest function's loader (test code: it trains nothing)
        "import torch\nfrom torch.utils.data import DataLoader\ndef test_train_loader(ds):\n"
        "    loader = DataLoader(ds, batch_size=8, shuffle=True)\n    assert len(list(loader)) == 2\n",
        # a batch_sampler parameter the caller must give (no default): the sampler decides the batches
        "import torch\nfrom torch.utils.data import DataLoader\nclass AtomsLoader(DataLoader):\n"
        "    def __init__(self, dataset, batch_sampler, shuffle=False, **kwargs):\n"
        "        super().__init__(dataset=dataset, batch_size=1, shuffle=shuffle,\n"
        "                         batch_sampler=batch_sampler, **kwargs)\n",
        # a computed drop_last set to True on every path that reaches the loader; the setting handed through
        # for the caller to decide (a parameter without a default)
        "import torch\nfrom torch.utils.data import DataLoader\ndef build(ds, bs):\n    drop_last = True\n"
        "    return DataLoader(ds, batch_size=bs, shuffle=True, drop_last=drop_last)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef build(ds, bs, drop_last):\n"
        "    return DataLoader(ds, batch_size=bs, shuffle=True, drop_last=drop_last)\n",
        # the shuffle flag is the drop_last flag: the loader drops its tail whenever it trains (its evaluation
        # phases are NPU415's)
        "import torch\nfrom torch.utils.data import DataLoader\ndef build(ds, bs, split):\n"
        "    return DataLoader(ds, batch_size=bs, shuffle=split == 'train', drop_last=split == 'train')\n",
        # the file's DataLoader base decides drop_last itself
        "import torch\nclass BaseLoader(torch.utils.data.DataLoader):\n"
        "    def __init__(self, data=None, drop_last=True, **kwargs):\n"
        "        super().__init__(dataset=data, drop_last=drop_last, **kwargs)\n"
        "class PairLoader(BaseLoader):\n"
        "    def __init__(self, data, batch_size=1024, shuffle=True, **kwargs):\n"
        "        super().__init__(data=data, batch_size=batch_size, shuffle=shuffle, **kwargs)\n",
        # parsed arguments whose dataloader_drop_last the script sets; a trainer never trained here
        "from transformers import HfArgumentParser, Trainer, TrainingArguments\n"
        "def main(model, ds, ModelArguments):\n"
        "    model_args, training_args = HfArgumentParser((ModelArguments, TrainingArguments)).parse_args_into_dataclasses()\n"
        "    training_args.dataloader_drop_last = True\n"
        "    Trainer(model, args=training_args, train_dataset=ds).train()\n",
        "from transformers import HfArgumentParser, Trainer, TrainingArguments\n"
        "def build(model, ds, ModelArguments):\n"
        "    parser = HfArgumentParser((ModelArguments, TrainingArguments))\n"
        "    model_args, training_args = parser.parse_args_into_dataclasses()\n"
        "    return Trainer(model, args=training_args, train_dataset=ds)\n",
        # a loader handed to a function whose loop only evaluates (NPU415's), or steps nothing but a project's own
        "import torch\nfrom torch.utils.data import DataLoader\ndef score(model, data):\n"
        "    return [model(x) for x in data]\ndef main(ds, model):\n    score(model, DataLoader(ds, batch_size=32))\n",
        "import torch\nfrom torch.utils.data import DataLoader\nclass Sim:\n    def step(self):\n        pass\n"
        "    def run(self, data):\n        for x in data:\n            x.grad_fn.backward()\n            self.step()\n"
        "    def main(self, ds):\n        self.run(DataLoader(ds, batch_size=32))\n",
        # the spread dict sets dataloader_drop_last (or runs a set number of steps)
        "from transformers import Trainer, TrainingArguments\ndef fit(model, ds, bs):\n"
        "    kw = {'dataloader_drop_last': True}\n"
        "    trainer = Trainer(model=model, train_dataset=ds, args=TrainingArguments(\n"
        "        per_device_train_batch_size=bs, output_dir='o', **kw))\n    trainer.train()\n",
        "from transformers import Trainer, TrainingArguments\ndef fit(model, ds, bs, extra):\n"
        "    trainer = Trainer(model=model, train_dataset=ds, args=TrainingArguments(\n"
        "        per_device_train_batch_size=bs, output_dir='o', **extra))\n    trainer.train()\n",
        # ``self.batch_size`` only ever set to 1: batches of one, no smaller last batch
        "import torch\nfrom torch.utils.data import DataLoader\nclass M:\n    def __init__(self):\n"
        "        self.batch_size: int = 1\n    def setup(self, ds):\n"
        "        self.loader = DataLoader(ds, batch_size=self.batch_size, shuffle=True)\n",
                 # keywords bound in if arms that all drop the short batch (or batch one by one)
                 "import torch\nfrom torch.utils.data import DataLoader\ndef build(ds, opt, phase):\n"
                 "    if phase == 'train':\n        args = dict(dataset=ds, batch_size=opt['bs'], shuffle=True, drop_last=True)\n"
                 "    elif phase == 'val':\n        args = dict(dataset=ds, batch_size=1, shuffle=False)\n"
                 "    else:\n        raise ValueError(phase)\n    return DataLoader(**args)\n",
                 # extras spread beside a dict that is the whole configuration (no batch size of the call's own)
                 "import torch\nfrom torch.utils.data import DataLoader\nclass DataModule:\n"
                 "    def train_dataloader(self):\n        return DataLoader(self.train_set, **self.dataloader_kwargs)\n",
                 # the own **kwargs merged, and the file's callers pass drop_last through them
                 "import torch\nfrom torch.utils.data import DataLoader\ndef get_loader(ds, **kwargs):\n"
                 "    opts = {'batch_size': 32, 'shuffle': True}\n    opts.update(kwargs)\n"
                 "    return DataLoader(ds, **opts)\ntrain = get_loader(ds_train, drop_last=True)\n",
                 # the wrapper names drop_last itself; batches of one through it; a length the batch size divides
                 "import torch\nfrom torch.utils.data import DataLoader\ndef get_dataloader(dataset, **kwargs):\n"
                 "    return DataLoader(dataset, drop_last=True, **kwargs)\n"
                 "loader = get_dataloader(train_set, batch_size=32, shuffle=True)\n",
                 "import torch\nfrom torch.utils.data import DataLoader\ndef get_dataloader(dataset, **kwargs):\n"
                 "    return DataLoader(dataset, **kwargs)\nloader = get_dataloader(train_set, batch_size=1, shuffle=True)\n",
                 "import torch\nfrom torch.utils.data import DataLoader\n"
                 "loader = DataLoader(list(range(16)), batch_size=4, shuffle=True)\n",
                 # the project batch sampler drops its short batch; a batch sampler of another kind
                 "import torch\nfrom torch.utils.data import BatchSampler, DataLoader, RandomSampler\n"
                 "class BucketBatchSampler(BatchSampler):\n    def __init__(self, sampler, batch_size, drop_last, key):\n"
                 "        super().__init__(sampler, batch_size, drop_last)\n"
                 "def setup_loader(ds, bs):\n    batch_sampler = BucketBatchSampler(RandomSampler(ds), bs, True, len)\n"
                 "    return DataLoader(ds, batch_sampler=batch_sampler)\n",
                 "import torch\nfrom torch.utils.data import DataLoader, RandomSampler\n"
                 "def setup_loader(ds, bs):\n    batch_sampler = TokenBuckets(RandomSampler(ds), bs, False)\n"
                 "    return DataLoader(ds, batch_sampler=batch_sampler)\n",
                 # a setup function's loader that its caller only evaluates
                 "import torch\nfrom torch.utils.data import DataLoader\ndef setup(ds):\n"
                 "    loader = DataLoader(ds, batch_size=16)\n    return Net(), loader\n"
                 "def score(ds):\n    model, loader = setup(ds)\n    with torch.no_grad():\n"
                 "        return [model(x).argmax(-1) for x, y in loader]\n",
                 # a loader of another function that happens to share the name of a training loop's loader
                 "import torch\nfrom torch.utils.data import DataLoader\ndef stats(ds):\n"
                 "    loader = DataLoader(ds, batch_size=64)\n    return [len(x) for x in loader]\n"
                 "def fit(model, opt, loader):\n    for x in loader:\n        model(x).backward()\n        opt.step()\n",

                 # the function's dict passes drop_last
                 "import torch\nfrom torch.utils.data import DataLoader\ndef loader_kwargs(cfg):\n"
                 "    kw = dict(batch_size=cfg.bs, num_workers=4)\n    kw['drop_last'] = True\n    return kw\n"
                 "loader = DataLoader(ds, shuffle=True, **loader_kwargs(cfg))\n",

                 # a spread of another dict the model cannot read, no drop_last of the call's own: it may set it
                 "import torch\nfrom torch.utils.data import DataLoader\ndef make(ds, bs, cfg):\n"
                 "    return DataLoader(ds, batch_size=bs, shuffle=True, **cfg.loader_kwargs())\n",
# drop_last computed from something else; a base class that passes drop_last itself
                     "import torch\nfrom torch.utils.data import DataLoader\n"
                     "loader = DataLoader(ds, batch_size=32, shuffle=True, drop_last=len(ds) > 32)\n",
                     "import torch\nclass AbstractLoader(torch.utils.data.DataLoader):\n"
                     "    def __init__(self, dataset, bs, shuffle=False):\n"
                     "        super().__init__(dataset, batch_size=bs, shuffle=shuffle, drop_last=True)\n",
                     # the same loader class evaluating (no shuffle, no train name); one that batches nothing
                     "import torch\nclass Loader(torch.utils.data.DataLoader):\n    def __init__(self, cfg, ds, shuffle=False):\n"
                     "        super().__init__(dataset=ds, batch_size=cfg['batch_size'], shuffle=shuffle)\n"
                     "eval_data = Loader(cfg, ds)\n",
                     "import torch\nclass Loader(torch.utils.data.DataLoader):\n    def __init__(self, ds, shuffle=False):\n"
                     "        super().__init__(dataset=ds, shuffle=shuffle)\n"
                     "train_data = Loader(ds, shuffle=True)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\n"
                     "loader = DataLoader(ds, batch_size=32, shuffle=True, drop_last=True)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\nval = DataLoader(ds, batch_size=32)\n",
                     "import torch\nfrom torch_geometric.loader import DataLoader\nloader = DataLoader(ds, 64, True, drop_last=True)\n",
                     "import dgl\nloader = dgl.dataloading.GraphDataLoader(ds, batch_size=1, shuffle=True)\n",
                     # the evaluation split: the dataset's training flag is set to False
                     "import torch\nfrom torch.utils.data import DataLoader\nval_iter = DataLoader(Bananas(is_train=False), 32)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(ds, batch_size=32, sampler=sampler)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\n"
                     "loader = DataLoader(ds, batch_size=32, shuffle=True, drop_last=args.drop_last)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\ndef build(ds, config):\n"
                     "    shuffle = config['shuffle']\n    return DataLoader(ds, batch_size=config['batch_size'], "
                     "shuffle=shuffle, drop_last=config.get('drop_last', True))\n",
                     "import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(ds, shuffle=True, **kwargs)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\nkw = dict(batch_size=32, shuffle=True)\n"
                     "kw['drop_last'] = True\nloader = DataLoader(ds, **kw)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(ds, batch_sampler=bs)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(ds, shuffle=True, num_workers=2)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\ndef evaluate(ds, model):\n"
                     "    loader = DataLoader(ds, batch_size=8)\n    for x in loader:\n        model(x)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\nclass Loader(DataLoader):\n"
                     "    def __init__(self, ds, **kw):\n        super().__init__(ds, drop_last=True, **kw)\n"
                     "loader = Loader(ds, batch_size=16, shuffle=True)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\n"
                     "def make_loader(ds, bs, shuffle=False, drop_last=False):\n"
                     "    return DataLoader(ds, batch_size=bs, shuffle=shuffle, drop_last=drop_last)\n"
                     "loader = make_loader(ds, 32, shuffle=True, drop_last=True)\n",
                     # the helper's own calls pass the flag: judged at those calls; a sampler decides
                     "import torch\nfrom torch.utils.data import DataLoader\ndef build(ds, bs, shuffle):\n"
                     "    return DataLoader(ds, batch_size=bs, shuffle=shuffle)\nval = build(ds, 8, False)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\nclass Model:\n"
                     "    def _loader(self, ds, bs, shuffle=True):\n        return DataLoader(ds, batch_size=bs, shuffle=shuffle)\n"
                     "    def predict(self, ds):\n        return self._loader(ds, 16, False)\n",
                     # the loader inside the helper is flagged already (its shuffle flag): not its calls again
                     "import torch\nfrom torch.utils.data import DataLoader\nclass Model:\n"
                     "    def _setup(self, config, ds):\n        shuffle = config['shuffle']\n"
                     "        return DataLoader(ds, batch_size=config['batch_size'], shuffle=shuffle,\n"
                     "                          drop_last=config.get('drop_last', False))  # noqa: NPU406\n"
                     "    def setup_validation_data(self, config, ds):\n        self._val_dl = self._setup(config, ds)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\ndef get_data_loader(config, ds, is_eval):\n"
                     "    return DataLoader(ds, drop_last=True,\n"
                     "                      batch_size=config.eval_batch_size if is_eval else config.batch_size)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\ndef get_loader(ds, large):\n"
                     "    return DataLoader(ds, batch_size=64 if large else 8)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\n"
                     "val = DataLoader(ds, batch_size=8, shuffle=(sampler is None), sampler=sampler)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\ndef make_loader(ds, bs):\n"
                     "    return DataLoader(ds, batch_size=bs, drop_last=True)\ntrain_loader = make_loader(ds, 32)\n")

    must_fire += (  # session 29: a loader class chosen inline and called at once (BasicTS's runner builder)
        "import torch\nfrom torch.utils.data import DataLoader\nclass DataLoaderX(DataLoader):\n    pass\n"
        "def build(cfg, ds):\n    return (DataLoaderX if cfg.prefetch else DataLoader)(ds, batch_size=8, shuffle=True)\n",
    )
    must_not_fire += (  # ... not with drop_last=True, nor when an arm is no loader class
        "import torch\nfrom torch.utils.data import DataLoader\nclass DataLoaderX(DataLoader):\n    pass\n"
        "def build(cfg, ds):\n    return (DataLoaderX if cfg.prefetch else DataLoader)(ds, 8, shuffle=True, drop_last=True)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef build(cfg, ds, make):\n"
        "    return (make if cfg.custom else DataLoader)(ds, batch_size=8, shuffle=True)\n",
    )
    must_fire += (  # session 25 (lead): the sampler a BatchSampler batches, bound in the training arm of an if
        "import torch\nfrom torch.utils.data import BatchSampler, DataLoader, RandomSampler, SequentialSampler\n"
        "def dataloader(data, batch_size, collate_fn, train=True):\n    if train:\n"
        "        base = RandomSampler(data)\n    else:\n        base = SequentialSampler(data)\n"
        "    sampler = BatchSampler(base, batch_size=batch_size, drop_last=False)\n"
        "    return DataLoader(data, batch_size=None, collate_fn=collate_fn, sampler=sampler)\n",)
    must_not_fire += (  # ... not when no arm draws in a random order
        "import torch\nfrom torch.utils.data import BatchSampler, DataLoader, SequentialSampler\n"
        "def dataloader(data, batch_size, ordered):\n    if ordered:\n        base = SequentialSampler(data)\n"
        "    else:\n        base = SequentialSampler(data[::-1])\n"
        "    return BatchSampler(base, batch_size=batch_size, drop_last=False)\n",)
    must_fire += (  # session 26 (loops26): the loader a random BatchSampler batches is reported too (GOLD marks the
        # ``DataLoader(`` line), also given it as ``sampler=`` with ``batch_size=None`` (no automatic batching)
        "import torch\nfrom torch.utils.data import BatchSampler, DataLoader, RandomSampler\n"
        "def loader(data, batch_size):\n"
        "    return DataLoader(data, batch_size=None, sampler=BatchSampler(RandomSampler(data), batch_size, False))\n",)
    must_not_fire += (  # ... not with drop_last=True, nor a sampler= that batches nothing
        "import torch\nfrom torch.utils.data import BatchSampler, DataLoader, RandomSampler\n"
        "def loader(data, batch_size):\n"
        "    return DataLoader(data, batch_size=None, sampler=BatchSampler(RandomSampler(data), batch_size, True))\n",
        "import torch\nfrom torch.utils.data import DataLoader, RandomSampler\n"
        "def loader(data):\n    return DataLoader(data, batch_size=None, sampler=RandomSampler(data))\n",)
    must_fire += (  # session 27 (recall27b): the loader class through a local name bound in the arms of an ``if``
                  # (a library's subclass by default, torch's on request), and another library's subclass the
                  # table lacks, named as a DataLoader (loader_callees.py)
                  "import torch\nimport torchtuples\ndef make_dataloader(data, batch_size, shuffle, torch_ds_dl=False):\n"
                  "    dataset = torch.utils.data.TensorDataset(*data)\n    DataLoader = torchtuples.data.DataLoaderBatch\n"
                  "    if torch_ds_dl:\n        DataLoader = torch.utils.data.DataLoader\n"
                  "    return DataLoader(dataset, batch_size, shuffle=shuffle)\n",
                  "import torch\nfrom timm.data.loader import MultiEpochsDataLoader\ndef train(model, opt, train_set, bs):\n"
                  "    loader = MultiEpochsDataLoader(train_set, batch_size=bs, shuffle=True, num_workers=4)\n"
                  "    for x, y in loader:\n        opt.zero_grad()\n        model(x).sum().backward()\n        opt.step()\n")
    must_fire += (  # a class chosen by a conditional expression: torch's DataLoader or the file's subclass of it
                  "import torch\nfrom torch.utils.data import DataLoader\nclass InfiniteDataLoader(DataLoader):\n"
                  "    pass\ndef create(ds, bs, weighted, shuffle):\n"
                  "    loader = DataLoader if weighted else InfiniteDataLoader\n"
                  "    return loader(ds, batch_size=bs, shuffle=shuffle)\n",)
    must_not_fire += (  # ... not when the other arm is no loader class
                      "import torch\nfrom torch.utils.data import DataLoader\ndef create(ds, bs, fast, shuffle):\n"
                      "    loader = DataLoader if fast else make_stream\n"
                      "    return loader(ds, batch_size=bs, shuffle=shuffle)\n",)
    must_not_fire += (  # the same with drop_last=True; a local name one arm binds to something else than a loader;
                        # a class that says DataLoader but holds its settings
                      "import torch\nimport torchtuples as tt\ndef fit(ds, bs):\n"
                      "    return tt.data.DataLoaderBatch(ds, batch_size=bs, shuffle=True, drop_last=True)\n",
                      "import torch\nimport torchtuples as tt\ndef make(ds, bs, fast):\n    Loader = tt.data.DataLoaderBatch\n"
                      "    if not fast:\n        Loader = tt.make_loader_builder\n    return Loader(ds, bs, shuffle=True)\n",
                      "import torch\nfrom accelerate import DataLoaderConfiguration\ndef conf(bs):\n"
                      "    return DataLoaderConfiguration(split_batches=True, even_batches=bs)\n")
    must_fire += (  # session 32 (rec32d): a BatchSampler subclass handing its base a random sampler, drop_last
                    # False by default
                  "import torch\nfrom torch.utils.data import BatchSampler, RandomSampler\nclass Warp(BatchSampler):\n"
                  "    def __init__(self, ds, batch_size, drop_last=False):\n"
                  "        super().__init__(RandomSampler(ds), batch_size, drop_last)\n",)
    must_fire += (  # ... and a project batch sampler of any base taking batch_size and drop_last, defining __iter__,
                    # given inline with drop_last False by default and a shuffle flag (scGPT's SubsetsBatchSampler)
                  "import torch\nfrom torch.utils.data import DataLoader, Sampler\nclass Subsets(Sampler):\n"
                  "    def __init__(self, subsets, batch_size, shuffle=True, drop_last=False):\n"
                  "        self.subsets = subsets\n    def __iter__(self):\n        yield from self.subsets\n"
                  "def prepare(ds, subsets, batch_size, shuffle=False, drop_last=False):\n"
                  "    return DataLoader(ds, batch_sampler=Subsets(subsets, batch_size, shuffle=shuffle,"
                  " drop_last=drop_last))\n",)
    must_not_fire += ("import torch\nfrom torch.utils.data import DataLoader, Sampler\nclass Subsets(Sampler):\n"
                      "    def __init__(self, subsets, batch_size, shuffle=True, drop_last=False):\n"
                      "        self.subsets = subsets\n    def __iter__(self):\n        yield from self.subsets\n"
                      "def prepare(ds, subsets, batch_size, shuffle=False):\n"
                      "    return DataLoader(ds, batch_sampler=Subsets(subsets, batch_size, shuffle=shuffle,"
                      " drop_last=True))\n",)
    must_not_fire += ("import torch\nfrom torch.utils.data import BatchSampler, RandomSampler\nclass Warp(BatchSampler):\n"
                      "    def __init__(self, ds, batch_size):\n"
                      "        super().__init__(RandomSampler(ds), batch_size, True)\n",)
    _ONCE = ("import torch\nfrom torch.utils.data import DataLoader\n"
             "def load(ds, n, model, opt):\n    {}\n    for _ in range(100):\n"
             "        x, y = next(it)\n        model(x).sum().backward()\n        opt.step()\n")
    must_fire += (  # session 33 (rec33d): an iterator over a shuffled loader drawn by a loop gives its tail ...
        _ONCE.format("it = iter(DataLoader(ds, batch_size=n, shuffle=True))"),)
    must_not_fire += (  # ... while one batch drawn once (``next(iter(loader))``: n examples loaded) is full
        "import torch\nfrom torch.utils.data import DataLoader\ndef load(ds, n, shuffle=False):\n"
        "    loader = DataLoader(ds, batch_size=n, shuffle=shuffle)\n    x, y = next(iter(loader))\n    return x, y\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef load(ds, n):\n"
        "    return next(iter(DataLoader(ds, batch_size=n, shuffle=True)))\n",)

    def check(self, node: object, ctx: FileContext) -> None:
        if isinstance(node, ast.For):
            self._check_loop(node, ctx)
            return
        assert isinstance(node, ast.Call)
        if isinstance(node.func, ast.Name) and node.func.id == "dict":
            # a training loader is judged where it is built, never at a dict (a kwargs dict is read at the
            # DataLoader call); a config file's top-level loader dict is the one place one is described
            found = config_loader(node, ctx) if config_statement(node, ctx) and not test_code(node, ctx) else None
            if found is not None and found[0]:
                ctx.report(node, f"{found[1]}, it shuffles (a training loader) and its last batch is smaller: a "
                                 "second set of shapes to compile on NPU; the cheapest static alternative: "
                                 "drop_last=True in the dict, or an InfiniteSampler with an iteration-based loop",
                           "torch.utils.data.DataLoader")
            return
        if test_code(node, ctx):
            return      # a test module or pytest function: its loaders test the code, they train nothing
        qualname = ctx.resolver.qualname(node.func)
        if qualname in TRAINER_ARGUMENTS:
            if keeps_short_batches(node, ctx):
                ctx.report(node, "these TrainingArguments leave dataloader_drop_last=False: the Trainer's last "
                           "training batch is smaller, a second set of shapes to compile on NPU", qualname)
            return
        parsed = parsed_trainer_arguments(node, ctx) if qualname not in BATCH_SAMPLERS else None
        if parsed is not None:
            ctx.report(node, f"this trainer trains with {parsed} parsed by HfArgumentParser, "
                             "dataloader_drop_last=False unless the command line sets it: its last training batch "
                             "is smaller, a second set of shapes to compile on NPU", "TrainingArguments")
            return
        if qualname in BATCH_SAMPLERS or batch_sampler_call(node, ctx):
            sampler = short_batch_sampler(node, ctx)
            if sampler:   # ("" for an ordered sampler: NPU415's)
                ctx.report(node, f"this BatchSampler batches a {sampler} (a training order) with drop_last=False: "
                           "its last batch is smaller, a second set of shapes to compile on NPU", qualname)
            return
        parameters = loader_parameters(loader_callee(node, ctx))   # torch's DataLoader or a library's subclass
        # forwarding its keywords (also one the table lacks, named as one, or a local name bound to one)
        if parameters is not None:
            keywords = {kw.arg: kw.value for kw in node.keywords}
            keywords.update(zip(parameters, node.args))
        else:
            keywords = built_loader_here(node, ctx) or super_loader_call(node, ctx, _LOADER_PARAMETERS)
            if keywords is None:
                return
        keywords = batched_keywords(node, keywords, ctx)
        if keywords is None:
            return
        if "drop_last" in keywords and _constant(keywords["drop_last"]) is not False \
                and _default(keywords["drop_last"], node, ctx) is not False:
            return
        batch_size = keywords.get("batch_size", _DEFAULT_BATCH_SIZE)
        if _constant(batch_size) in (1, None) or whole_batches(keywords, ctx) \
                or fixed_one(batch_size, _scope(node, ctx), ctx.resolver.scopes):
            return      # batches of one (DataLoader's default, ``self.batch_size`` only ever set to 1) or no batching:
            # every batch has the same shape
        if drawn_once(node, ctx):
            return      # ``x, y = next(iter(loader))``: the first batch only (robustbench's loading of n examples)
        if _constant(keywords.get("shuffle")) is True or "train" in _names_around(node, keywords, ctx) \
                or _train_hook(node, ctx):
            ctx.report(node, self.message + _by_default(keywords, node, ctx), _LOADER)
            return
        flag = _shuffle_flag(node, keywords.get("shuffle"), ctx)
        if flag is not None and drops_when_shuffled(keywords):
            return      # ``shuffle=split == "train", drop_last=split == "train"``: the other phases are NPU415's
        if flag is not None:   # ``shuffle=is_train``: a training loader whenever the flag is set
            ctx.report(node, f"this DataLoader trains when {flag} is true (it shuffles then) and has no "
                       "drop_last=True: its last batch is smaller, a second set of shapes to compile on NPU"
                       + _by_default(keywords, node, ctx), _LOADER)
            return
        mode = _mode_choice(keywords)
        if mode is not None:   # ``batch_size=cfg.eval_batch_size if is_eval else cfg.batch_size``: both phases
            ctx.report(node, f"this DataLoader serves training when {mode} (its arguments choose by the phase) and "
                       "has no drop_last=True: its last batch is smaller, a second set of shapes to compile on NPU"
                       + _by_default(keywords, node, ctx), _LOADER)
            return
        step = _stepped_by(node, ctx)
        elsewhere = _trained_elsewhere(node, ctx) if step is None else ""
        if step is not None or elsewhere:   # ``fit(model, opt, loader)`` whose loop over it back-propagates and steps
            where = f"the loop at line {step.lineno}" if step is not None else f"{elsewhere}()"
            ctx.report(node, f"this DataLoader feeds the training steps of {where} (backward and an optimizer step "
                       "per batch) and has no drop_last=True: its last batch is smaller, a second set of shapes to "
                       "compile on NPU" + _by_default(keywords, node, ctx), _LOADER)
            return
        parent = ctx.parent(node)
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1:   # training if a training loop iterates it
            name = ast.unparse(parent.targets[0])   # (in the same function; a ``self.`` attribute: in its class)
            pending = ctx.scratch.setdefault("loaders_pending", {})
            pending[(_pending_scope(node, ctx)(name), name)] = node
            function = ctx.enclosing(node, FUNCTION_TYPES)
            for position in _returned_at(function, name):   # ``return model, loader``: trained by a caller's loop
                pending[(id(function), position)] = node

    def _check_loop(self, node: ast.For, ctx: FileContext) -> None:
        pending = ctx.scratch.get("loaders_pending")
        if not pending:
            return
        key = _pending_scope(node, ctx)
        names = iterated_names(node.iter)
        iterated = [(key(name), name) for name in names if (key(name), name) in pending]
        iterated += [found for name in names if (found := _from_setup(node, name, ctx)) in pending]
        if not iterated or not (trains(node, ctx) or trains_through_helper(node, ctx)):
            return
        for found in iterated:
            ctx.report(pending.pop(found), self.message, _LOADER)


def whole_batches(keywords: dict, ctx: FileContext) -> bool:
    """The dataset has a length written in the code (``list(range(16))``, a list literal, through a name) that the
    constant batch size divides, or the batch is the whole dataset (:func:`_one_batch`): no short last batch."""
    if _one_batch(keywords.get("batch_size"), keywords.get("dataset"), ctx):
        return True
    size, dataset = _constant(keywords.get("batch_size")), keywords.get("dataset")
    if not isinstance(size, int) or isinstance(size, bool) or size <= 0 or dataset is None:
        return False
    if isinstance(dataset, ast.Name):
        dataset = ctx.resolver.bound_value(dataset)
    if isinstance(dataset, ast.Call) and isinstance(dataset.func, ast.Name) and dataset.func.id in ("list", "tuple") \
            and len(dataset.args) == 1:
        dataset = dataset.args[0]
    length: object = None
    if isinstance(dataset, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in dataset.elts):
        length = len(dataset.elts)
    elif isinstance(dataset, ast.Call) and isinstance(dataset.func, ast.Name) and dataset.func.id == "range" \
            and 1 <= len(dataset.args) <= 2 and all(isinstance(_constant(a), int) for a in dataset.args):
        bounds = [_constant(a) for a in dataset.args]
        length = bounds[-1] - (bounds[0] if len(bounds) == 2 else 0)
    return isinstance(length, int) and length > 0 and length % size == 0


# Calls that keep the number of items of what they convert: a tensor made from an array, a dtype cast.
_SAME_LENGTH = frozenset({"torch.from_numpy", "torch.tensor", "torch.as_tensor", "torch.Tensor", "torch.FloatTensor",
                          "torch.LongTensor", "numpy.asarray", "numpy.array"})
_SAME_LENGTH_METHODS = frozenset({"float", "long", "int", "double", "half", "bool", "astype", "to", "contiguous"})


def _whole_graph(size: Optional[ast.AST], dataset: Optional[ast.AST], ctx: FileContext) -> bool:
    """``size`` counts the nodes of the graph ``dataset`` names: ``data.x.shape[0]``, ``data.x.size(0)``,
    ``data.num_nodes``, read directly, through a name bound to it, or through ``self.<attr>`` that the class only
    ever sets so (``self.source_batch_size = source_data.x.shape[0]``)."""
    if not isinstance(dataset, ast.Name) or size is None:
        return False
    if isinstance(size, ast.Name):
        size = ctx.resolver.bound_value(size) or size
    elif isinstance(size, ast.Attribute) and isinstance(size.value, ast.Name) and size.value.id == "self" \
            and ctx.resolver.scopes is not None:
        bindings = ctx.resolver.scopes.attribute(ctx.resolver.current, size.attr)
        return bool(bindings) and all(b.tag == VALUE and not b.path and isinstance(b.value, ast.AST)
                                      and _whole_graph(b.value, dataset, ctx) for b in bindings)
    counted = None
    if isinstance(size, ast.Subscript) and isinstance(size.value, ast.Attribute) and size.value.attr == "shape" \
            and isinstance(size.slice, ast.Constant) and size.slice.value == 0:
        counted = size.value.value
    elif isinstance(size, ast.Call) and isinstance(size.func, ast.Attribute) and size.func.attr == "size" \
            and len(size.args) == 1 and isinstance(size.args[0], ast.Constant) and size.args[0].value == 0:
        counted = size.func.value
    elif isinstance(size, ast.Attribute) and size.attr == "num_nodes":
        return isinstance(size.value, ast.Name) and size.value.id == dataset.id
    return isinstance(counted, ast.Attribute) and counted.attr == "x" and isinstance(counted.value, ast.Name) \
        and counted.value.id == dataset.id


def _one_batch(size: Optional[ast.AST], dataset: Optional[ast.AST], ctx: FileContext) -> bool:
    """``batch_size=len(x)`` where ``x`` is the dataset itself or one of the tensors a ``TensorDataset`` (or a
    ``list(zip(...))``) is made of (``TensorDataset(torch.from_numpy(feats), torch.from_numpy(labels))`` with
    ``batch_size=len(labels)``; ``list(zip(inputs, targets))`` with ``batch_size=len(targets)``), or the number of
    nodes of the graph a neighbor loader batches (``NeighborLoader(data, k, batch_size=data.x.shape[0])``, also
    through a name or ``self.<attr>`` set so in the function): one batch holds every item, the loader yields a
    single batch and no short last one."""
    if _whole_graph(size, dataset, ctx):
        return True
    if not (isinstance(size, ast.Call) and isinstance(size.func, ast.Name) and size.func.id == "len"
            and len(size.args) == 1 and not size.keywords and isinstance(size.args[0], ast.Name)) or dataset is None:
        return False
    measured = size.args[0].id
    if isinstance(dataset, ast.Name):
        if dataset.id == measured:
            return True
        bound = ctx.resolver.bound_value(dataset)
        dataset = bound if isinstance(bound, ast.Call) else dataset
    if isinstance(dataset, ast.Call) and isinstance(dataset.func, ast.Name) and dataset.func.id == "list" \
            and len(dataset.args) == 1 and isinstance(dataset.args[0], ast.Call):
        dataset = dataset.args[0]   # ``list(zip(inputs, targets))``: as many items as its shortest
    name = ctx.resolver.qualname(dataset.func) or "" if isinstance(dataset, ast.Call) else ""
    if not ((name.startswith("torch.") and name.endswith(".TensorDataset") or name in ("zip", "builtins.zip"))
            and dataset.args and not dataset.keywords):  # type: ignore[union-attr]
        return False
    for tensor in dataset.args:
        while isinstance(tensor, ast.Call) and len(tensor.args) <= 1 and (
                (ctx.resolver.qualname(tensor.func) or "") in _SAME_LENGTH
                or isinstance(tensor.func, ast.Attribute) and tensor.func.attr in _SAME_LENGTH_METHODS):
            if isinstance(tensor.func, ast.Attribute) and tensor.func.attr in _SAME_LENGTH_METHODS \
                    and not (ctx.resolver.qualname(tensor.func) or "") in _SAME_LENGTH:
                tensor = tensor.func.value
            elif tensor.args:
                tensor = tensor.args[0]
            else:
                break
        if isinstance(tensor, ast.Name) and tensor.id == measured:
            return True
    return False


def _returned_at(function: Optional[ast.AST], name: str) -> set[Optional[int]]:
    """The places of the function's returns that hand ``name`` back: None for ``return loader``, i for the i-th
    element of ``return model, loader``."""
    places: set[Optional[int]] = set()
    if function is None:
        return places
    for child in walk(function):
        value = child.value if isinstance(child, ast.Return) else None
        if isinstance(value, ast.Name) and value.id == name:
            places.add(None)
        elif isinstance(value, ast.Tuple):
            places.update(i for i, e in enumerate(value.elts) if isinstance(e, ast.Name) and e.id == name)
    return places


def _from_setup(loop: ast.For, name: str, ctx: FileContext) -> Optional[tuple[int, Optional[int]]]:
    """``model, loader = get_training_setup(...)`` before the loop, in its function, with the file's own setup
    function: that function and the place of its returns ``name`` comes from."""
    function = ctx.enclosing(loop, FUNCTION_TYPES)
    if function is None:
        return None
    for child in walk(function):
        if not isinstance(child, ast.Assign) or child.lineno >= loop.lineno or len(child.targets) != 1 \
                or not isinstance(child.value, ast.Call) or not isinstance(child.value.func, ast.Name):
            continue
        target = child.targets[0]
        if isinstance(target, ast.Name) and target.id == name:
            position: Optional[int] = None
        elif isinstance(target, ast.Tuple) and any(isinstance(e, ast.Name) and e.id == name for e in target.elts):
            position = next(i for i, e in enumerate(target.elts) if isinstance(e, ast.Name) and e.id == name)
        else:
            continue
        binding = ctx.resolver.binding(child.value.func)
        if binding is not None and binding.tag == DEF:
            return id(binding.value), position
    return None


def _pending_scope(node: ast.AST, ctx: FileContext):
    """Where a loader's name means that loader: the function around ``node`` (or the module), the class for a
    ``self.`` attribute; a ``loader`` of another function is another loader."""
    function = ctx.enclosing(node, FUNCTION_TYPES)
    owner = ctx.enclosing(function, (ast.ClassDef,)) if function is not None else None
    return lambda name: id(owner) if name.startswith("self.") and owner is not None else id(function)


def _scope(node: ast.AST, ctx: FileContext):   # the model's scope of the function around ``node``
    function = ctx.enclosing(node, FUNCTION_TYPES)
    scopes = ctx.resolver.scopes
    return scopes.scope_of(function) if function is not None and scopes is not None else None


def _default(value: ast.AST, node: ast.AST, ctx: FileContext) -> object:
    """What a computed ``drop_last`` is unless a caller changes it (the model's defaults): ``False`` for
    ``drop_last=self.drop_last`` set from a constructor parameter ``drop_last: bool = False``, and for one the
    code itself sets ``False`` on some path (an arm ``drop_last = False``, a remainder test ``len(ds) % bs ==
    1``)."""
    scope = _scope(node, ctx)
    found = default_constant(value, scope, ctx.resolver.scopes, ctx.resolver)
    if found is not False and may_be_false(value, scope, ctx.resolver.scopes):
        return False
    if found is not True and not_surely_true(value, scope, ctx.resolver.scopes, ctx.resolver):
        return False    # computed and not known True (``split == "train"``, ``args.batch_norm``): False somewhere
    return found


def _by_default(keywords: dict, node: ast.AST, ctx: FileContext) -> str:
    if isinstance(node, ast.Call) and any(kw.arg == "batch_sampler" and not none_on_some_path(kw.value, ctx)
                                          for kw in node.keywords):
        return " (its batch_sampler keeps its short last batch: drop_last=False)"
    value = keywords.get("drop_last")
    if value is None or isinstance(value, ast.Constant):
        return ""
    scope = _scope(node, ctx)
    if default_constant(value, scope, ctx.resolver.scopes, ctx.resolver) is False:
        return f" ({short_source(value, 30)} is False by default)"
    if may_be_false(value, scope, ctx.resolver.scopes):
        return f" ({short_source(value, 30)} is False on most paths)"
    return f" ({short_source(value, 30)} is not always True)"


def _train_hook(node: ast.Call, ctx: FileContext) -> bool:
    """The loader is built in Lightning's ``train_dataloader`` hook, or in a helper of the file only that hook
    calls (``return self._data_loader(self.dataset_train, shuffle=self.shuffle)``): a training loader."""
    function = ctx.enclosing(node, _DEFS)
    if not isinstance(function, _DEFS):
        return False
    if function.name == _TRAIN_HOOK:
        return True
    for call, _scope_, _ in ctx.resolver.call_sites(function):
        caller = ctx.enclosing(call, _DEFS)
        if isinstance(caller, _DEFS) and caller.name == _TRAIN_HOOK:
            return True
    return False


def built_loader_here(node: ast.Call, ctx: FileContext) -> Optional[dict]:
    """:func:`_built_loader` of the call the walk is at, computed once for the rules that ask it there in turn
    (NPU406, then NPU415: every call of a file that names a loader). Only the last call is kept: a node is visited
    once, so an answer is never read at another walk position."""
    last = ctx.scratch.get("built-loader-here")
    if last is not None and last[0] is node:
        return last[1]
    found = _built_loader(node, ctx)
    ctx.scratch["built-loader-here"] = (node, found)
    return found


def _built_loader(node: ast.Call, ctx: FileContext) -> Optional[dict]:
    """The keywords of a loader made by a subclass of DataLoader or by a helper of this file that returns one
    (the model's class bases and function summaries); None for other calls, and for helpers whose loaders set
    ``drop_last`` themselves or are reported inside the helper already."""
    definition = ctx.resolver.definition(node.func)
    if definition is None and ctx.project is not None and not any(kw.arg == "drop_last" for kw in node.keywords):
        called = ctx.resolver.qualname(node.func)
        if called is not None and ctx.project.forwards_loader(called, ctx.module):
            # ``distrib.loader(ds, batch_size=bs, shuffle=True)`` of another module returning ``DataLoader(dataset,
            # *args, shuffle=shuffle, **kwargs)`` (no drop_last anywhere): the call's keywords build the loader
            return {**dict(zip(_LOADER_PARAMETERS[:1], node.args)),
                    **{kw.arg: kw.value for kw in node.keywords if kw.arg is not None}} \
                if not any(kw.arg is None for kw in node.keywords) else None
    if definition is None:
        kept = attribute_loader_call(node, ctx)   # ``iterator(dataset, **kwargs)``, ``iterator = self.iterator_train``
        if kept is not None:
            return kept
    if ctx.resolver.kind_of(node) != "loader":
        return None
    offset = 0
    if definition is None:   # ``self._prepare_dataloader(...)``: a method of the class (``self`` filled implicitly)
        own = ctx.resolver.own_function(node)
        if own is not None:
            definition, offset = own
    if isinstance(definition, ast.ClassDef):    # ``class InfiniteLoader(DataLoader)``: DataLoader's keywords
        if any(isinstance(n, ast.keyword) and n.arg == "drop_last" for n in walk(definition)) \
                and not forwards_drop_last(definition):
            return None     # the subclass decides drop_last itself (not one handing on its ``drop_last=False``)
        forwarded = super_init_keywords(definition, node, _LOADER_PARAMETERS)
        if forwarded is not None:   # ``super().__init__(dataset=..., batch_size=self.step, shuffle=shuffle)``
            return forwarded
        return {**dict(zip(_LOADER_PARAMETERS[:1], node.args)), **{kw.arg: kw.value for kw in node.keywords}}
    if definition is None and ctx.project is not None and not any(kw.arg == "drop_last" for kw in node.keywords):
        called = ctx.resolver.qualname(node.func)
        if called is not None and ctx.project.loader_decides_drop_last(called, ctx.module) is False:
            # ``TrainLoader(ds, batch_size=cfg.bs, shuffle=True)``: a DataLoader subclass of another module that
            # names no ``drop_last`` hands the call's keywords to DataLoader's; its positional arguments are its
            # ``__init__``'s (``data.DataLoader(train_set, self.batch_size, sampler=sampler)``)
            order = ctx.project.loader_positionals(called, ctx.module, _LOADER_PARAMETERS)
            positional = {name: arg for name, arg in zip(order, node.args) if name in _LOADER_PARAMETERS}
            if node.args:
                positional.setdefault("dataset", node.args[0])
            return {**positional, **{kw.arg: kw.value for kw in node.keywords}}
    if definition is None and ctx.project is not None and not any(kw.arg == "drop_last" for kw in node.keywords):
        called = ctx.resolver.qualname(node.func)
        arguments = ctx.project.loader_arguments(called, ctx.module) if called is not None else ()
        if arguments:   # ``build_dataloader(val_dset, bs, shuffle=False)`` of another module: what the call passes
            return factory_keywords(arguments, node)
    if (definition is None or _abstract(definition)) and any(kw.arg == "drop_last" for kw in node.keywords):
        # a loader factory of another module given ``drop_last`` itself forwards it (``get_dataloader(ds,
        # shuffle=True, drop_last=drop_last)`` whose ``DataLoader(ds, **kwargs)``): the call's keywords decide
        keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
        keywords.setdefault("batch_size", ast.Name(id="batch_size"))
        return keywords
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    if forwards_loader(ctx.resolver, definition):   # ``return DataLoader(dataset, **kwargs)``: the call's keywords
        if any(kw.arg is None for kw in node.keywords):
            return None
        return {**dict(zip(_LOADER_PARAMETERS[:1], node.args)), **{kw.arg: kw.value for kw in node.keywords}}
    loaders = [child for child in walk(definition) if isinstance(child, ast.Call)
               and loader_class(ctx.resolver.qualname(child.func))]
    if len(loaders) != 1:
        return None
    inner = {kw.arg: kw.value for kw in loaders[0].keywords}
    inner.update(zip(loader_parameters(ctx.resolver.qualname(loaders[0].func)) or (), loaders[0].args))
    if None in inner or "batch_sampler" in inner or _constant(inner.get("shuffle")) is True \
            or _shuffle_flag(loaders[0], inner.get("shuffle"), ctx) is not None or _mode_choice(inner) is not None:
        return None         # a spread, a batch sampler, or a loader flagged inside the helper (shuffling, a flag)
    computed = inner.get("drop_last")
    if computed is not None and not isinstance(computed, (ast.Constant, ast.Name)):
        return None     # ``drop_last=split == "train"``: the helper's loader is judged inside it, once
    keywords = substituted(inner, passed_arguments(definition, node, offset))
    if "batch_size" not in keywords and "batch_size" not in inner:
        keywords["batch_size"] = ast.Constant(value=None)
    elif "batch_size" not in keywords:
        keywords["batch_size"] = ast.Name(id="batch_size")   # passed on from the helper's own default or caller
    return keywords


def _abstract(definition: ast.AST) -> bool:
    """A method without a body of its own (a docstring, ``raise NotImplementedError``, ``pass``, ``...``) that the
    model knows returns a loader (``-> DataLoader[Batch]``): its overrides in other modules build the loader from
    what the call passes (``self._create_training_data_loader(tf, batch_size=bs, drop_last=drop_last)``)."""
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return all(isinstance(statement, (ast.Raise, ast.Pass)) or (isinstance(statement, ast.Expr)
                                                                and isinstance(statement.value, ast.Constant))
               for statement in definition.body)


def _mode_choice(keywords: dict) -> Optional[str]:
    """``batch_size=cfg.eval_batch_size if is_eval else cfg.batch_size``: an argument chosen by a phase flag (a
    name or attribute saying ``eval`` or ``train``), so the same loader serves training in one phase; the phase
    it trains in (``is_eval is false``), else None."""
    for value in keywords.values():
        if not isinstance(value, ast.IfExp):
            continue
        test, negated = value.test, False
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, negated = test.operand, True
        name = test.attr if isinstance(test, ast.Attribute) else test.id if isinstance(test, ast.Name) else ""
        words = name.lower()
        if "eval" in words or "train" in words:
            trains_when_true = ("train" in words) != negated
            return f"{short_source(test, 30)} is {'true' if trains_when_true else 'false'}"
    return None


def _shuffle_flag(node: ast.Call, shuffle: Optional[ast.AST], ctx: FileContext) -> Optional[str]:
    """``shuffle=is_train``, ``shuffle=args.shuffle``, ``shuffle=(mode == "train")``: the flag's text when the
    loader's shuffling (and so its use for training) comes from a flag; None for constants and calls, and for a
    helper's parameter that the file's own calls fill (the calls are judged with what they pass)."""
    if shuffle is None or not isinstance(shuffle, (ast.Name, ast.Attribute, ast.Compare, ast.BoolOp)) \
            or (isinstance(shuffle, ast.Compare) and isinstance(shuffle.ops[0], (ast.Is, ast.IsNot))):
        return None   # ``shuffle=(sampler is None)``: a sampler decides, not a training flag
    function = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is not None and isinstance(shuffle, ast.Name) and shuffle.id in parameters_of(function) \
            and ctx.resolver.call_sites(function):
        return None
    return short_source(shuffle, 30)


def drops_when_shuffled(keywords: dict) -> bool:
    """``drop_last`` is the ``shuffle`` flag itself (``shuffle=split == "train", drop_last=split == "train"``): the
    loader drops its tail whenever it trains; the phases that keep it evaluate."""
    shuffle, drop_last = keywords.get("shuffle"), keywords.get("drop_last")
    if shuffle is None or drop_last is None or isinstance(shuffle, ast.Constant):
        return False
    return unparse(shuffle) == unparse(drop_last)


def _stepped_by(node: ast.Call, ctx: FileContext) -> Optional[ast.For]:
    """A loop over the loader in one of the file's functions it is handed to (``fit(model, opt, loader)``; the
    loops `loops_over` finds outside the loader's own function, which the loops of that function judge) that runs
    per training step (the model's `runs_per_step`: backward and an optimizer step in every iteration)."""
    from npu_lint.rules.loader_loops import loops_over   # (that module builds on this one)
    own = ctx.enclosing(node, FUNCTION_TYPES)
    scopes = ctx.resolver.scopes
    for loop, function in loops_over(node, ctx):
        if function is own or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or scopes is None:
            continue
        scope = scopes.scope_of(function)
        if scope is not None and ctx.resolver.runs_per_step(loop, scope):
            return loop
    return None


def _trained_elsewhere(node: ast.Call, ctx: FileContext) -> str:
    """The function or method of another module of the project the loader is handed to (``fit(model, opt,
    DataLoader(...))``; ``loader = DataLoader(...)`` then ``trainer.fit(loader)`` in the same function) whose loop
    over that parameter runs a training step per batch (its facts' ``trains``); "" for none."""
    project = ctx.project
    if project is None:
        return ""
    from npu_lint.rules.loader_loops import assigned   # (that module builds on this one)
    parent = ctx.parent(node)
    handed: list[tuple[ast.Call, ast.AST]] = []
    if isinstance(parent, ast.Call) and (node in parent.args or any(kw.value is node for kw in parent.keywords)):
        handed.append((parent, node))
    name = assigned(node, ctx)
    if name and "." not in name:
        function = ctx.enclosing(node, FUNCTION_TYPES)
        for call in walk(function) if function is not None else ():
            if isinstance(call, ast.Call) and call.lineno >= node.lineno:
                handed += [(call, a) for a in (*call.args, *(kw.value for kw in call.keywords))
                           if isinstance(a, ast.Name) and a.id == name]
    for call, argument in handed:
        if any(isinstance(a, ast.Starred) for a in call.args) or ctx.resolver.own_function(call) is not None:
            continue
        func = call.func
        trains: tuple[tuple[str, int], ...] = ()
        offset = 0
        value = ctx.resolver.value_of(func.value) if isinstance(func, ast.Attribute) else None
        if value is not None and isinstance(value[1], str) and value[1] in project.index.classes:
            trains, offset = project.method_trained_parameters(value[1], func.attr), 1   # type: ignore[union-attr]
        else:
            qualname = ctx.resolver.qualname(func)
            if qualname and "." in qualname:
                trains = project.trained_parameters(qualname, ctx.module)
        if not trains:
            continue
        keyword = next((kw.arg for kw in call.keywords if kw.value is argument), None)
        position = next((i for i, a in enumerate(call.args) if a is argument), -2)
        if any(n == keyword or (position >= 0 and i == position + offset) for n, i in trains):
            return short_source(func, 40)
    return ""


def iterated_names(node: ast.AST) -> list[str]:
    """Every loader a loop's iterable walks: ``loader`` for ``loader``, ``enumerate(loader)``, ``tqdm(loader,
    ...)``, and each argument of a ``zip`` (``zip(pbar, loader)``, a progress bar zipped with the batches;
    ``zip(source_loader, target_loader)``, two domains at once)."""
    while isinstance(node, ast.Call) and node.args and not (isinstance(node.func, ast.Name) and node.func.id == "zip"):
        node = node.args[0]
    if isinstance(node, ast.Call) and node.args:
        return [name for argument in node.args if not isinstance(argument, ast.Starred)
                for name in iterated_names(argument)]
    return [ast.unparse(node)] if isinstance(node, (ast.Name, ast.Attribute)) else [""]


def _names_around(node: ast.Call, keywords: dict, ctx: FileContext) -> str:
    """The assigned name, the dataset and the sampler, lower-cased: ``train_loader = DataLoader(train_set, ...)``."""
    parts = [unparse(_without_false_flags(keywords[key])) for key in ("dataset", "sampler") if key in keywords]
    parent = ctx.parent(node)
    if isinstance(parent, ast.Assign):
        parts += [unparse(target) for target in parent.targets]
    return " ".join(parts).lower()


def _without_false_flags(node: ast.AST) -> ast.AST:
    """The dataset expression without its keyword arguments set to ``False``: ``Bananas(is_train=False)`` says
    it is not the training set."""
    if not isinstance(node, ast.Call) or not any(_constant(kw.value) is False for kw in node.keywords):
        return node
    return ast.Call(func=node.func, args=node.args, keywords=[kw for kw in node.keywords if _constant(kw.value) is not False])
