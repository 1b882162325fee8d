"""NPU415: a loader that keeps a short last batch outside training (training loaders: NPU406, dynamic_batches.py).

A separate code from NPU406 so that a project can deselect the evaluation / prediction findings alone: the fix
there (pad the last batch to the batch size, or drop it where losing the tail is acceptable) is a different
decision from a training loader's ``drop_last=True``."""
from __future__ import annotations

import ast
import re
from typing import Optional

from npu_lint.analysis.config_loaders import config_loader, config_statement, runner_loader
from npu_lint.analysis.defaults import fixed_one
from npu_lint.analysis.library_classes import loader_names, loader_parameters
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.setup_time import names_device
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES, Rule, short_source
from npu_lint.rules.batch_samplers import batch_sampler_call, ordered_batch_sampler
from npu_lint.rules.dynamic_batches import (_DEFAULT_BATCH_SIZE, _LOADER, _LOADER_PARAMETERS, built_loader_here, _by_default, _default,
                                            _scope, _train_hook,
                                            _constant, _mode_choice, _names_around, _shuffle_flag,
                                            batched_keywords, drops_when_shuffled, whole_batches)
from npu_lint.rules.loader_escapes import _judged_at_calls, escape
from npu_lint.rules.loader_callees import loader_callee
from npu_lint.rules.loader_loops import BUILTINS, assigned, loops_over
from npu_lint.rules.loader_subclasses import super_loader_call
from npu_lint.rules.loader_tails import hands_batch, report_tail
from npu_lint.rules.test_scope import test_code
from npu_lint.rules.training_loops import trains, trains_through_helper
from npu_lint.rules.value_flow import FAMILY

# Lightning-style hooks that return an evaluation / prediction loader.
_EVAL_HOOKS = frozenset({"val_dataloader", "test_dataloader", "predict_dataloader"})
_NO_GRAD = frozenset({"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad",
                      "torch.autograd.grad_mode.no_grad", "torch.autograd.grad_mode.inference_mode"})
# The words of a callee that builds batches: ``make_loader``, ``dls.new``, ``get_dataloader``.
_LOADER_WORDS = frozenset({"loader", "loaders", "dataloader", "dataloaders", "dl", "dls", "batch", "batches",
                           "batcher", "batchify"})
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _words(node: ast.AST) -> set[str]:
    """The lower-cased words of a callee: ``self.get_val_dl`` -> {self, get, val, dl}; ``BatchSampler`` ->
    {batch, sampler}."""
    return {word.lower() for part in re.split(r"[._]", short_source(node, 200)) for word in _WORD.findall(part)}


class ShortLastEvalBatch(Rule):
    """An evaluation or prediction loader whose last batch is smaller.

    What it does:
        Flags (1) any call that builds batches with an explicit ``drop_last=False`` (a ``DataLoader``, a
        framework's loader factory or method such as ``dls.new(shuffle=False, drop_last=False)``, a project
        loader class or helper: a callee whose name says loader, ``dl`` or batch) whose batch size is not 1, and
        (2) ``DataLoader`` calls (and calls of the file's helpers and subclasses that build one, of another
        module's subclasses that never name ``drop_last``, and of another library's subclass that hands DataLoader
        its keywords, ``torch_geometric.loader.DataLoader(ds, 32)``: ``rule_tables/library_classes.tsv``) with a batch
        size other than 1 (a constant or a variable), no ``batch_sampler`` and no ``drop_last``, whose batches
        reach a model or device compute (the loop moves the batch to the accelerator, ``x = x.to(device)``, and
        computes with it: statistics of a data set taken on the device): a loop over the loader (``for b in loader``, ``enumerate(loader)``, ``tqdm(loader)``,
        ``zip(pbar, loader)``, a comprehension ``[model(x) for x in loader]``, an iterator over it, ``it = iter(loader)``
        then ``for b in tqdm(it)``; in the same function, in a method of the same class for
        ``self.loader``, in a function of the file the loader is passed to (also a method of an instance of the
        file's class, ``trainer.train(val_dataloader=loader)``, and the function that one hands it on to:
        ``self.evaluate(val_dataloader)``), or in the file's callers of a helper that returns it: ``train_dl, eval_dl =
        get_dataloaders(...)``) that calls an ``nn.Module`` with the batch, or, under ``torch.no_grad()`` /
        ``inference_mode()`` or after ``model.eval()``, calls a project callable with it, or hands it to a function or
        method of the file that does so (``self.get_embeddings(x)`` running ``self.trunk(x)`` under ``no_grad``;
        ``grads(model, x)`` calling ``model`` then ``.backward()``); or a loader returned
        by the Lightning hooks ``val_dataloader`` / ``test_dataloader`` / ``predict_dataloader`` (alone, or in a list,
        tuple, dict or comprehension of them). Training
        loaders (shuffling, named ``train``, iterated by a loop that steps an optimizer, or with arguments chosen by a
        phase flag: ``batch_size=cfg.eval_batch_size if is_eval else cfg.batch_size``) are NPU406's, never
        reported here; samplers (a ``BatchSampler``, a ``DistributedSampler``, which pads by repeating samples)
        are no loaders, and a config ``dict(..., drop_last=False)`` counts only with its batch size; a loader given
        a ``batch_sampler`` that keeps its short last batch (torch's ``BatchSampler`` or a project subclass of it,
        ``drop_last=False`` in every arm) is judged with the sampler's batch size, as NPU406 reads it; the calls
        of a function returning a ``DataLoader`` built with its own ``**kwargs`` (no ``drop_last``) with the call's
        keywords; a helper's loader that its callers in the file cannot judge (built from a dict of keywords the
        calls do not give) is where a caller hands the result: ``val_loader = self.get_eval_loader(bs)`` then
        ``COCOEvaluator(dataloader=val_loader)`` (another module's) is (3); a dataset of a length written in the code that the batch size divides, and one batch holding the whole dataset (``batch_size=len(ds)``, or ``len(labels)`` of a ``TensorDataset`` made of ``labels``, or every node of the graph a neighbor loader batches, ``NeighborLoader(data, k, batch_size=data.x.shape[0])``: a single batch) are left alone. A loader
        nobody iterates with a model in the file and a helper whose callers pass
        ``drop_last`` are left alone; a ``drop_last`` that is ``False`` unless a caller says otherwise
        (``drop_last=self.drop_last`` stored from a constructor parameter ``drop_last: bool = False``, as
        NPU406 reads it) counts as absent, and so does a computed one not known ``True`` (a phase test,
        ``drop_last=split == "train"`` in a data module's factory serving ``val_dataloader`` too; an unrelated
        setting, ``drop_last=args.batch_norm``; not a size guard nor the setting handed through, as NPU406 reads
        it); a loader whose ``shuffle`` and ``drop_last`` are the same flag evaluates in the phases the flag is
        false (judged here, not as a training loader); a loader built only with its function's own ``**kwargs``
        (``return DataLoader(dataset=ds, **kwargs)`` in a factory method the file never calls: its callers'
        batch size, no ``drop_last`` by default) and one given extras the code does not build beside its own
        ``batch_size=`` are judged as NPU406 reads them (``**cfg["loader"]`` too); an iterator made of the loader
        whose batches a loop draws with ``next(it)`` is a use of its batches (only ``next(iter(loader))`` or one
        ``next`` outside a loop draws a single full batch); a call of a loader class kept on the instance
        (``self.iterator_valid = iterator_valid`` from a constructor parameter defaulting to ``DataLoader``, then
        ``iterator(dataset, **kwargs)`` with ``kwargs["batch_size"] = self.batch_size``: skorch's
        ``get_iterator``) builds a ``DataLoader`` by default, judged so (NPU406 too), and so are the calls of another module's loader
        factory built from its own parameters (``build_dataloader(val_dset, bs, shuffle=False)``); keywords from a dict bound in ``if`` arms or merged with a caller's
        optional extras are read as NPU406 reads them. A ``**kwargs`` spread beside the call's own ``batch_size=`` and
        ``drop_last=`` cannot change them (nor add a ``batch_sampler``): those decide.
        (3) a ``DataLoader`` with such a batch size and no ``drop_last`` that the file never iterates but hands
        on: returned by a function the file does not call itself, kept on an attribute no method of the class
        iterates, or passed to a call of another module (``trainer.validate(model, loader)``,
        ``accelerator.prepare(loader)``), or to a method (or function) of the file that hands it on to one, itself
        or one call further (a library's ``predict_dataset`` building the loader, then
        ``self.predict_generator(loader)`` passing it to ``StepIterator(generator, steps)``), and the
        ``super().__init__`` of a class deriving from ``DataLoader`` itself
        that the file never builds (a framework's loader base, or a subclass of the file's own base that hands its
        ``**kwargs`` on to ``DataLoader`` and never names ``drop_last``; the constructor's own ``**kwargs`` beside
        its ``batch_size=`` pass nothing by default): its batches are cut the same wherever it is
        iterated, so the finding names where it goes (a training loader found by its shuffle or name is NPU406's).
        (4) any other such loader that the file keeps for later but never iterates (bound to a name it uses,
        returned, unpacked by the file's own callers: ``train_loader, val_loader = self._loaders(train, val)``),
        reported at its construction, where the batches are cut: silent when it is dropped, only counted
        (``len(loader)``, also by every caller of the helper that returns it), only drawn from once
        (``next(iter(loader))``), handed to a call (judged there), built with a ``drop_last`` every caller in the
        file passes, in a helper whose calls are judged as loaders with its batch size, ``shuffle``, ``sampler``
        or ``drop_last`` taken from its parameters (judged at those calls), and in test modules (a module path part ``tests``, ``test_*`` by the project index).
        A factory's own ``**kwargs`` spread beside the call's ``batch_size=`` (``def create_dataloader(self,
        dataset, batch_size, **kwargs): return DataLoader(dataset, batch_size=batch_size, **kwargs)``) are a
        caller's optional extras, nothing by default (NPU406 too), unless a call of the factory in the file
        passes ``drop_last``, a ``batch_sampler`` or a ``**`` spread through them.
        A framework configuration's loader (OpenMMLab's mmengine: ``val_dataloader = dict(batch_size=32,
        sampler=dict(type='DefaultSampler', shuffle=False), dataset=...)`` at a config module's top level, merged
        with the same name in its ``_base_`` files read beside it, ``analysis/config_loaders.py``) is reported at
        the ``dict(`` unless the merged dict has ``drop_last=True``, a batch size of 1 (none set anywhere: the
        DataLoader's default), an ``InfiniteSampler`` or a ``batch_sampler``; a base in another package
        (``mmcls::...``) leaves it unknown, reported. A shuffling one is NPU406's.
        So is mmengine's static builder ``Runner.build_dataloader(cfg)`` (``DataLoader(**cfg)``) given a config
        the code does not show, unless the function sets ``cfg['batch_size'] = 1`` or ``drop_last = True`` (a dict
        literal is judged by its keys).
        A separate code from NPU406 so that evaluation findings can be deselected alone (``--ignore NPU415``):
        padding the last evaluation batch is a different change from dropping a training tail.
        The loader class through a local name, and another library's subclass named as a ``DataLoader`` that the
        table lacks, are read as NPU406 reads them (``rules/loader_callees.py``).
    Why it matters on NPU:
        Unless the dataset size is a multiple of the batch size, the last batch of every evaluation pass is
        smaller: one more set of shapes for every operator of the model's forward, compiled again on NPU (and
        with graph capture or static-shape execution, a fallback).
    Example:
        loader = DataLoader(test_set, batch_size=64)
        with torch.no_grad():
            for images, labels in loader:
                logits = model(images)
    Use instead:
        Pad the last batch to the batch size (a sampler or collate function that repeats or blanks samples, then
        drop their outputs), or pass ``drop_last=True`` where losing the tail is acceptable.
    Fix safety:
        No automatic fix: dropping the last batch changes the metric; padding it needs the padded outputs dropped.
    """

    code = "NPU415"
    name = "short-last-eval-batch"
    family = FAMILY
    node_types = (ast.Call,)
    triggers = ("DataLoader", "BatchSampler", "drop_last", "_dataloader", "_base_") + loader_names()

    @staticmethod
    def project_triggers(project) -> frozenset[str]:
        """Files that build one of the project's DataLoader subclasses (defined in another module) reach this rule."""
        return project.loader_class_names()
    message = "{what}: its last batch is smaller, one more set of shapes to compile on NPU; pad the last batch to the batch size (or drop_last=True where losing the tail is acceptable)"
    must_fire = (
        # a framework config's loader (analysis/config_loaders.py, session 23): mmengine's Runner builds a
        # DataLoader from the dict, DefaultSampler yields one epoch, no drop_last; a child of a base not shown
        "val_dataloader = dict(batch_size=32, num_workers=4, sampler=dict(type='DefaultSampler', shuffle=False),\n"
        "                      dataset=dict(type='ImageNet', data_root='data/imagenet'))\n",
        "_base_ = ['mmcls::_base_/datasets/cifar10_bs16.py']\nval_dataloader = test_dataloader = dict(batch_size=128)\n",
        # a kwargs dict in code is judged by the code path, not as a config file's loader (integration, session 23)
        "import torch\nclass Batches:\n    def __iter__(self):\n"
        "        kwargs = dict(batch_size=self.batch_size, drop_last=False)\n"
        "        return iter(self.dataset.iter_torch_batches(**kwargs))\n",
        # mmengine's static builder given a config the code does not show (tools, hooks, feature extractors)
        "from mmengine.runner import Runner\ndef extract(cfg, seed):\n"
        "    return Runner.build_dataloader(dataloader=cfg.val_dataloader, seed=seed)\n",
        # the broad path (loader_tails.py): a loader kept for later whose use the file does not show, a
        # module-level loader, a drop_last the configuration decides, a loader built from a spread of unknown content
        "import torch\nfrom torch.utils.data import DataLoader\nclass Runner:\n    def register(self, loader):\n"
        "        self.loaders.append(loader)\n    def setup(self, ds):\n"
        "        self.register(DataLoader(ds, batch_size=8))\n",
        "import torch\nfrom torch.utils.data import DataLoader\nval_loader = DataLoader(ds, batch_size=32)\n",
        "import torch\nfrom torch.utils.data import DataLoader\n"
        "loader = DataLoader(ds, batch_size=32, drop_last=args.drop_last)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef build(ds, cfg):\n"
        "    return DataLoader(ds, **cfg.loader_kwargs)\n",
        # PyG's neighbor loader (a DataLoader subclass, rule_tables/library_classes.tsv) of a user's batch size
        "import torch\nfrom torch_geometric.loader import NeighborLoader\n"
        "def score(model, data, k, bs):\n    model.eval()\n"
        "    loader = NeighborLoader(data, k, batch_size=bs)\n    for b in loader:\n        model(b.x, b.edge_index)\n",
        # a method of the class (a subclass's forward) given the batch after model.eval(), the batch's outputs
        # stored on an attribute of ``self``: ``self`` holds them, its methods are no methods of the batch
        "import torch\nfrom torch.utils.data import DataLoader\nclass Detector:\n"
        "    def decision_function(self, ds):\n        loader = DataLoader(ds, batch_size=self.batch_size)\n"
        "        self.model.eval()\n        for b in loader:\n            loss, score = self.forward_model(b)\n"
        "            self.scores[b.n_id] = score.cpu()\n",
        # a part of the data per batch: the tail is shorter
        "import numpy as np\nimport torch\nfrom torch.utils.data import DataLoader, TensorDataset\n"
        "def evaluate(model, feats, labels):\n"
        "    loader = DataLoader(TensorDataset(torch.from_numpy(feats), torch.from_numpy(labels)),\n"
        "                        batch_size=len(labels) // 4)\n"
        "    with torch.no_grad():\n        for x, y in loader:\n            model(x)\n",
        # statistics of a data set taken on the device, the batch moved there in a branch
        "import torch\nfrom torch.utils.data import DataLoader\ndef stats(ds, batch_size, device, distributed):\n"
        "    loader = DataLoader(ds, batch_size, shuffle=False)\n    means = []\n"
        "    for x, y in loader:\n        if distributed:\n            x, y = x.to(device), y.to(device)\n"
        "        means.append(torch.mean(x, dim=0))\n    return torch.stack(means)\n",
        # another library's DataLoader subclass (its positional batch size), its batches fed to a module
        "import torch\nfrom torch_geometric.loader import DataLoader\ndef evaluate(model: torch.nn.Module, ds):\n"
        "    loader = DataLoader(ds, 32)\n    for data in loader:\n        model(data)\n",
        # built in a library's predict method, handed by its own method to another module's iterator
        "import torch\nfrom torch.utils.data import DataLoader\nfrom lib.iterators import StepIterator\n"
        "class Model:\n    def predict_dataset(self, ds, batch_size=32, dataloader_kwargs=None):\n"
        "        if dataloader_kwargs is None:\n            dataloader_kwargs = {}\n"
        "        dataloader_kwargs = {'batch_size': batch_size, **dataloader_kwargs}\n"
        "        generator = DataLoader(ds, **dataloader_kwargs)\n        return self.predict_generator(generator)\n"
        "    def predict_generator(self, generator):\n        steps = len(generator)\n"
        "        return self._run(StepIterator(generator, steps))\n",
        # keywords bound in if arms: the evaluation arm keeps its short batch
        "import torch\nfrom torch.utils.data import DataLoader\ndef build_dataloader(ds, opt):\n"
        "    if opt['phase'] == 'train':\n"
        "        args = dict(dataset=ds, batch_size=opt['bs'], shuffle=True, drop_last=True)\n"
        "    else:\n        args = dict(dataset=ds, batch_size=opt.get('bs', 1), shuffle=False)\n"
        "    args['pin_memory'] = True\n    return DataLoader(**args)\n",
        # a Lightning hook returning one loader per validation set
        "import torch\nfrom torch.utils.data import DataLoader\nclass Data:\n    def val_dataloader(self):\n"
        "        return [DataLoader(d, batch_size=self.bs) for d in self.val_sets]\n",

        # a loop over a progress bar zipped with the loader; the batch handed to the file's helper that runs the model
        "import torch\nfrom torch.utils.data import DataLoader\nclass T:\n    def predict(self, ds, bs=256):\n"
        "        loader = DataLoader(ds, batch_size=bs, shuffle=False)\n        with torch.no_grad():\n"
        "            for _, x in zip(trange(9), loader):\n                self.model(x)\n",
        "import torch\nclass Infer:\n    def get_embeddings(self, x):\n        self.trunk.eval()\n"
        "        with torch.no_grad():\n            return self.trunk(x)\n    def embed(self, ds, bs):\n"
        "        loader = torch.utils.data.DataLoader(ds, batch_size=bs)\n        out = []\n"
        "        for x, _ in loader:\n            out.append(self.get_embeddings(x))\n        return torch.cat(out)\n",
        "import numpy as np\nimport torch\ndef grads(model, x):\n    out = model(torch.fft.irfft(x))\n"
        "    out.sum().backward()\n    return x.grad.numpy()\ndef per_trial(model, ds, bs):\n"
        "    loader = torch.utils.data.DataLoader(ds, batch_size=bs, drop_last=False, shuffle=False)\n"
        "    return np.concatenate([grads(model, x) for x, *_ in loader])\n",
        # drop_last=self.drop_last beside a spread of other keywords (it cannot pass drop_last again)
        "import torch\nfrom torch.utils.data import DataLoader\nclass DM:\n"
        "    def __init__(self, ds, drop_last=False, **kw):\n        self.drop_last = drop_last\n        self.kw = kw\n"
        "    def val_dataloader(self):\n"
        "        return DataLoader(self.ds, batch_size=64, shuffle=False, drop_last=self.drop_last, **self.kw)\n",

        # a loader that leaves the code at hand, iterated nowhere in the file: returned by a factory, kept on an
        # attribute, handed to another module's call; a framework's DataLoader base class
        "import torch\nfrom torch.utils.data import DataLoader\ndef build_test_loader(ds, bs):\n"
        "    return DataLoader(ds, batch_size=bs, num_workers=4)\n",
        "import torch\nfrom torch.utils.data import DataLoader\nclass Runner:\n    def __init__(self, ds):\n"
        "        self.val_loader = DataLoader(ds, batch_size=64)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef run(trainer, model, ds):\n"
        "    trainer.validate(model, DataLoader(ds, batch_size=64))\n",
        "import torch\nclass AbstractLoader(torch.utils.data.DataLoader):\n"
        "    def __init__(self, dataset, bs):\n        super().__init__(dataset=dataset, batch_size=bs)\n",
        # a Lightning DataModule's evaluation hook whose drop_last is the constructor's default False
        "import torch\nfrom torch.utils.data import DataLoader\nclass DM:\n"
        "    def __init__(self, ds, drop_last: bool = False):\n        self.ds = ds\n        self.drop_last = drop_last\n"
        "    def val_dataloader(self):\n        return DataLoader(self.ds, batch_size=32, drop_last=self.drop_last)\n",
        # handed to a method of an instance of the file's class, which hands it on to the method that evaluates
        "import torch\nfrom torch.utils.data import DataLoader\nclass Trainer:\n"
        "    def train(self, train_dataloader, val_dataloader=None):\n"
        "        if val_dataloader is not None:\n            self.evaluate(val_dataloader)\n"
        "    def evaluate(self, dataloader):\n        self.model.eval()\n        with torch.no_grad():\n"
        "            for data in dataloader:\n                self.model(**data)\n"
        "val_dataloader = DataLoader(val_dataset, batch_size=64, shuffle=False)\n"
        "trainer = Trainer()\ntrainer.train(train_dataloader=None, val_dataloader=val_dataloader)\n",
        # a helper's loader its callers cannot judge (a spread dict) handed by its caller to another module's class
        "import torch\nfrom torch.utils.data import DataLoader\nclass Exp:\n    def get_eval_loader(self, bs):\n"
        "        kw = {'num_workers': 4, 'sampler': self.sampler}\n        kw['batch_size'] = bs\n"
        "        loader = DataLoader(self.valset, **kw)\n        return loader\n"
        "    def get_evaluator(self, bs):\n        from pkg.evaluators import COCOEvaluator\n"
        "        val_loader = self.get_eval_loader(bs)\n        return COCOEvaluator(dataloader=val_loader)\n",
        # a batch sampler of the project that keeps its short last batch, the loader returned
        "import torch\nfrom torch.utils.data import BatchSampler, DataLoader, SequentialSampler\n"
        "class SentenceBatchSampler(BatchSampler):\n    def __init__(self, sampler, batch_size, drop_last, seed):\n"
        "        super().__init__(sampler, batch_size, drop_last)\n"
        "def make_iter(ds, bs):\n    batch_sampler = SentenceBatchSampler(SequentialSampler(ds), bs, False, 0)\n"
        "    return DataLoader(ds, batch_sampler=batch_sampler)\n",
        # (1) an explicit drop_last=False: a torch DataLoader, a framework's method, a loader factory
        "import torch\nfrom torch.utils.data import DataLoader\n"
        "loader = DataLoader(test_set, batch_size=32, shuffle=False, drop_last=False)\n",
        "import torch\ndef predict(learn, dls, items):\n    dl = dls.test_dl(items)\n"
        "    return learn.get_preds(dl=dls.new(dl, shuffle=False, drop_last=False))\n",
        "import torch\ndef build(cfg, ds):\n    return build_dataloader(ds, samples_per_gpu=cfg.bs, drop_last=False)\n",
        # (2) an evaluation loop calling a module with the batch
        "import torch\nfrom torch import nn\nfrom torch.utils.data import DataLoader\n"
        "def evaluate(ds, model: nn.Module):\n    loader = DataLoader(ds, batch_size=8)\n"
        "    for x, y in loader:\n        out = model(x)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef evaluate(ds, model, bs):\n"
        "    loader = DataLoader(ds, batch_size=bs, num_workers=2)\n    with torch.no_grad():\n"
        "        for batch in tqdm(loader):\n            images = batch['image'].cuda()\n            model(images)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef evaluate(ds, net):\n    net.eval()\n"
        "    loader = DataLoader(ds, 64)\n    for i, (x, y) in enumerate(loader):\n        p = net(x)\n",
        "import torch\nfrom torch.utils.data import DataLoader\nclass Runner:\n    def __init__(self, ds):\n"
        "        self.val_loader = DataLoader(ds, batch_size=16)\n    @torch.no_grad()\n    def validate(self):\n"
        "        for x in self.val_loader:\n            self.model(x)\n",
        # (2) a Lightning hook's loader
        "import torch\nfrom torch.utils.data import DataLoader\nclass Data:\n    def test_dataloader(self):\n"
        "        return DataLoader(self.test_set, batch_size=self.batch_size, num_workers=4)\n",
        # (2) a helper of the file that builds the loader, iterated with a model
        "import torch\nfrom torch.utils.data import DataLoader\ndef make_loader(ds, bs, drop_last=False):\n"
        "    return DataLoader(ds, batch_size=bs, drop_last=drop_last)\ndef run(ds, model):\n"
        "    loader = make_loader(ds, 32)\n    with torch.inference_mode():\n        for x in loader:\n"
        "            model(x)\n",
        # (2) the loader passed to a function of the file that evaluates the model on it
        "import torch\nfrom torch.utils.data import DataLoader\ndef test(model, device, loader):\n    model.eval()\n"
        "    with torch.no_grad():\n        for data, target in loader:\n            output = model(data.to(device))\n"
        "def main(args, model, ds):\n    test_loader = DataLoader(ds, batch_size=args.test_batch_size)\n"
        "    test(model, 'npu', test_loader)\n",
        # (2) a loader made in the call to a method that evaluates on it; one wrapped by a preparing call
        "import torch\nfrom torch.utils.data import DataLoader\nclass Runner:\n    def run(self, ds):\n"
        "        self.evaluate(DataLoader(ds, batch_size=self.bs))\n    def evaluate(self, loader):\n"
        "        self.model.eval()\n        for x, y in loader:\n            self.model(x)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef run(accelerator, model, ds):\n"
        "    loader = accelerator.prepare(DataLoader(ds, batch_size=64))\n    with torch.no_grad():\n"
        "        for batch in loader:\n            model(**batch)\n",
        # (2) a helper returns the loaders, its caller evaluates on one
        "import torch\nfrom torch.utils.data import DataLoader\ndef infer(model: torch.nn.Module, data, bs=1024):\n"
        "    loader = DataLoader(data, batch_size=bs, shuffle=False)\n    model.eval()\n"
        "    return [model(x) for x in loader]\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef get_dataloaders(ds, bs):\n"
        "    train_dl = DataLoader(ds['train'], shuffle=True, batch_size=bs)\n"
        "    eval_dl = DataLoader(ds['validation'], shuffle=False, batch_size=32)\n    return train_dl, eval_dl\n"
        "def main(ds, model):\n    train_dl, eval_dl = get_dataloaders(ds, 8)\n    model.eval()\n"
        "    for batch in eval_dl:\n        with torch.no_grad():\n            outputs = model(**batch)\n",
        # returned with the training loader to the file's own caller, which hands it to a method of the file
        "import torch\nfrom torch.utils.data import DataLoader\nclass Trainer:\n"
        "    def fit(self, train, val):\n        train_loader, val_loader = self._loaders(train, val)\n"
        "        self._validate(val_loader)\n"
        "    def _loaders(self, train, val):\n"
        "        train_loader = DataLoader(train, batch_size=self.cfg.batch_size, shuffle=True)\n"
        "        val_loader = DataLoader(val, batch_size=self.cfg.batch_size, shuffle=False)\n"
        "        return train_loader, val_loader\n"
        "    def _validate(self, loader):\n        return self.score(loader)\n",
        # a factory spreading its own **kwargs beside its batch size (a caller's extras: nothing by default)
        "import torch\nfrom torch.utils.data import DataLoader\nclass Condition:\n"
        "    def create_dataloader(self, dataset, batch_size, **kwargs):\n"
        "        return DataLoader(dataset=dataset, batch_size=batch_size, **kwargs)\n",
        # an evaluation loader a method of the file builds and returns (its caller in the file keeps it)
        "import torch\nfrom torch.utils.data import DataLoader\nclass Trainer:\n"
        "    def setup(self):\n        self.eval_loader = self.get_eval_dataloader(self.eval_dataset)\n"
        "    def get_eval_dataloader(self, eval_dataset):\n"
        "        return DataLoader(dataset=eval_dataset, batch_size=self.config.eval_batch_size, shuffle=False)\n",
        # extras the code does not build (options) beside the hook's own batch size: no drop_last by default
        "import torch\nfrom torch.utils.data import DataLoader\nclass DM:\n    def val_dataloader(self):\n"
        "        return DataLoader(self.ds, batch_size=64, shuffle=False, **self.kw)\n",
        # a phase test: drop_last only for the training split (and no batch sampler), so the validation and test
        # loaders the factory returns keep their short batch
        "import torch\nfrom torch.utils.data import DataLoader\nclass DM:\n    def _factory(self, split):\n"
        "        sampler = self.samplers[split]\n        if isinstance(sampler, GeoBatchSampler):\n"
        "            batch_sampler = sampler\n        else:\n            batch_sampler = None\n"
        "        return DataLoader(self.sets[split], batch_size=self.bs, batch_sampler=batch_sampler,\n"
        "                          drop_last=split == 'train' and batch_sampler is None)\n"
        "    def train_dataloader(self):\n        return self._factory('train')\n"
        "    def val_dataloader(self):\n        return self._factory('val')\n",
        # batches drawn one by one with next() in a step loop (an iterator made of the loader)
        "import torch\nfrom torch.utils.data import DataLoader\ndef run(model, ds, bs, steps):\n"
        "    loader = DataLoader(ds, batch_size=bs, **cfg['loader'])\n    it = iter(loader)\n"
        "    for step in range(steps):\n        x = next(it)\n        model(x)\n",
        # a loader class kept on the instance from a constructor default (skorch's iterator_train / iterator_valid)
        "import torch\nfrom torch.utils.data import DataLoader\nclass Net:\n"
        "    def __init__(self, batch_size=128, iterator_valid=DataLoader):\n"
        "        self.batch_size = batch_size\n        self.iterator_valid = iterator_valid\n"
        "    def get_iterator(self, dataset):\n        kwargs = self.get_params_for('iterator_valid')\n"
        "        kwargs['batch_size'] = self.batch_size\n        iterator = self.iterator_valid\n"
        "        return iterator(dataset, **kwargs)\n",
        # a factory method building loaders with its callers' keywords only (called by a base class elsewhere)
        "import torch\nfrom torch.utils.data import DataLoader\nclass Loop:\n"
        "    def _create_data_loader(self, factory, **kwargs):\n"
        "        return DataLoader(dataset=Instances(factory), **kwargs)\n")
    must_not_fire = (
        # config loaders proven full: an endless sampler, drop_last=True, batches of one (a base that sets none:
        # DataLoader's default 1); a dict the script itself hands on (judged where it builds the loader)
        "train_dataloader = dict(batch_size=16, sampler=dict(type='InfiniteSampler', shuffle=True),\n"
        "                        dataset=dict(type='ImageNet'))\n",
        "val_dataloader = dict(batch_size=16, drop_last=True, sampler=dict(type='DefaultSampler'), dataset=dict())\n",
        "val_dataloader = dict(batch_size=1, sampler=dict(type='DefaultSampler', shuffle=False), dataset=dict())\n"
        "test_dataloader = dict(num_workers=4, sampler=dict(type='DefaultSampler'), dataset=dict(type='Set5'))\n",
        "import torch\nloader_cfg = dict(batch_size=32, dataset=ds, sampler=None)\nrun(**loader_cfg)\n",
        # Runner.build_dataloader of a config whose batch size the code sets to 1, or of an endless sampler
        "from mmengine.runner import Runner\ndef bench(cfg):\n    loader_cfg = cfg.test_dataloader\n"
        "    loader_cfg['batch_size'] = 1\n    return Runner.build_dataloader(loader_cfg)\n",
        "from mmengine.runner import Runner\ndef build(ds):\n    return Runner.build_dataloader(dict(batch_size=8, "
        "dataset=ds, sampler=dict(type='InfiniteSampler')))\n",
        # the broad path stays silent where the last batch is proven full: drop_last known True (a default, a size
        # guard), one batch drawn through a named iterator, test code, a batch sampler given through the spread
        "import torch\nfrom torch.utils.data import DataLoader\ndef build(ds, bs, drop_last=True):\n"
        "    return DataLoader(ds, batch_size=bs, drop_last=drop_last)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef build(ds, bs):\n"
        "    return DataLoader(ds, batch_size=bs, drop_last=len(ds) > bs)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef first(ds):\n"
        "    loader = DataLoader(ds, batch_size=16)\n    it = iter(loader)\n    return next(it)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef test_loader_shapes(ds):\n"
        "    loader = DataLoader(ds, batch_size=4)\n    keep = [loader]\n    assert len(keep) == 1\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef build(ds, cfg):\n"
        "    return DataLoader(ds, batch_sampler=cfg.sampler, **cfg.loader_kwargs)\n",
        # the factory's callers in the file pass drop_last through its **kwargs
        "import torch\nfrom torch.utils.data import DataLoader\n"
        "def create_dataloader(dataset, batch_size, **kwargs):\n"
        "    return DataLoader(dataset=dataset, batch_size=batch_size, **kwargs)\n"
        "def run(ds, model):\n    loader = create_dataloader(ds, 32, drop_last=True)\n"
        "    with torch.no_grad():\n        for x in loader:\n            model(x)\n",
        # a class kept on the instance that defaults to no loader; options that set drop_last
        "import torch\nfrom torch.utils.data import DataLoader\nclass Net:\n"
        "    def __init__(self, batch_size=128, iterator_valid=Batches):\n"
        "        self.batch_size = batch_size\n        self.iterator_valid = iterator_valid\n"
        "    def get_iterator(self, dataset):\n        kwargs = {}\n        kwargs['batch_size'] = self.batch_size\n"
        "        return self.iterator_valid(dataset, **kwargs)\n",
        "import torch\nfrom torch.utils.data import DataLoader\nclass Net:\n"
        "    def __init__(self, batch_size=128, iterator_valid=DataLoader):\n"
        "        self.batch_size = batch_size\n        self.iterator_valid = iterator_valid\n"
        "    def get_iterator(self, dataset):\n        kwargs = self.get_params_for('iterator_valid')\n"
        "        kwargs['batch_size'] = self.batch_size\n        kwargs['drop_last'] = True\n"
        "        return self.iterator_valid(dataset, **kwargs)\n",
        # one batch drawn from it (a sample to trace or to check shapes): a full batch; also through a name
        "import torch\nfrom torch.utils.data import DataLoader\ndef sample(ds, model):\n"
        "    loader = DataLoader(ds, batch_size=16)\n    it = iter(loader)\n    x = next(it)\n"
        "    return model(x)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef sample(ds):\n"
        "    loader = DataLoader(ds, batch_size=16)\n    return next(iter(loader))\n",
        # one batch of every node of the graph (its node count, through an attribute the class only sets so)
        "import torch\nfrom torch_geometric.loader import NeighborLoader\nclass Detector:\n"
        "    def score(self, data):\n        self.full = data.x.shape[0]\n        self.model.eval()\n"
        "        loader = NeighborLoader(data, self.k, batch_size=self.full)\n"
        "        for b in loader:\n            self.model(b.x)\n",
        # the batch moved to the host, or moved to the device and only counted
        "import torch\nfrom torch.utils.data import DataLoader\ndef stats(ds):\n"
        "    loader = DataLoader(ds, batch_size=32)\n    total = 0.0\n    for x in loader:\n"
        "        x = x.to('cpu')\n        total += float(x.sum())\n    return total\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef count(ds, device):\n"
        "    loader = DataLoader(ds, batch_size=32)\n    n = 0\n    for x in loader:\n"
        "        x = x.to(device)\n        n += x.size(0)\n    return n\n",

        # Lightning's ``train_dataloader`` hook returns the training loader: NPU406's, not reported twice
        "import torch\nfrom torch.utils.data import DataLoader\nfrom lightning import LightningDataModule\n"
        "class Data(LightningDataModule):\n    def __init__(self, batch_size: int = 16):\n"
        "        super().__init__()\n        self.batch_size = batch_size\n"
        "    def train_dataloader(self) -> DataLoader:\n        return DataLoader(Toy(), batch_size=self.batch_size)\n",
        # handed on through the file's function to another module's call, but dropping its short batch
        "import torch\nfrom torch.utils.data import DataLoader\nfrom lib import Evaluator\n"
        "def make_loader(ds, bs):\n    loader = DataLoader(ds, batch_size=bs, drop_last=True)\n"
        "    return run(loader)\ndef run(loader):\n    return Evaluator(loader)\n",
        # a helper's loader whose caller only counts its batches
        "import torch\nfrom torch.utils.data import DataLoader\nclass Exp:\n    def get_eval_loader(self, bs):\n"
        "        kw = {'num_workers': 4}\n        kw['batch_size'] = bs\n"
        "        loader = DataLoader(self.valset, **kw)\n        return loader\n"
        "    def steps(self, bs):\n        val_loader = self.get_eval_loader(bs)\n        return len(val_loader)\n",
        # a length written in the code that the batch size divides (through a batch sampler too)
        "import torch\nfrom torch.utils.data import DataLoader\ndef run(accelerator):\n"
        "    dataset = list(range(16))\n    loader = DataLoader(dataset, batch_size=4)\n"
        "    return accelerator.prepare_data_loader(loader)\n",
        # the batch handed to the file's helper that only computes statistics, no model
        "import torch\nfrom torch.utils.data import DataLoader\ndef _mean(x):\n    return x.float().mean()\n"
        "def stats(ds):\n    loader = DataLoader(ds, batch_size=64, drop_last=False)\n    total = 0.0\n"
        "    for x in loader:\n        total += float(_mean(x))\n    return total\n",

        # kept in the function, counted, or handed to the file's own function that keeps it; batches of one
        "import torch\nfrom torch.utils.data import DataLoader\ndef steps(ds):\n"
        "    return len(DataLoader(ds, batch_size=8))\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef build(ds):\n"
        "    return DataLoader(ds, batch_size=1)\n",
        "import torch\nfrom torch.utils.data import DataLoader\nclass DM:\n"
        "    def __init__(self, ds, drop_last: bool = True):\n        self.ds = ds\n        self.drop_last = drop_last\n"
        "    def val_dataloader(self):\n        return DataLoader(self.ds, batch_size=32, drop_last=self.drop_last)\n",
        # one batch holding the whole dataset (its length, or the length of a tensor it is made of)
        "import numpy as np\nimport torch\nfrom torch.utils.data import DataLoader, TensorDataset\n"
        "def evaluate(model, feats, labels):\n"
        "    loader = DataLoader(TensorDataset(torch.from_numpy(feats), torch.from_numpy(labels)), batch_size=len(labels))\n"
        "    with torch.no_grad():\n        for x, y in loader:\n            model(x)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef evaluate(model, ds):\n"
        "    loader = DataLoader(ds, batch_size=len(ds))\n    with torch.no_grad():\n        for x in loader:\n"
        "            model(x)\n",
        # batches of one (explicit or DataLoader's default), a batch sampler, drop_last=True
        "import torch\nfrom torch.utils.data import DataLoader\n"
        "loader = DataLoader(ds, batch_size=1, drop_last=False)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef evaluate(ds, model):\n"
        "    loader = DataLoader(ds, num_workers=2)\n    with torch.no_grad():\n        for x in loader:\n"
        "            model(x)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef evaluate(ds, model, sampler):\n"
        "    loader = DataLoader(ds, batch_sampler=sampler, drop_last=False)\n    with torch.no_grad():\n"
        "        for x in loader:\n            model(x)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef evaluate(ds, model):\n"
        "    loader = DataLoader(ds, batch_size=8, drop_last=True)\n    with torch.no_grad():\n"
        "        for x in loader:\n            model(x)\n",
        # a loader nobody iterates with a model in the file; one iterated without a model
        "import torch\nfrom torch.utils.data import DataLoader\ndef stats(ds):\n"
        "    loader = DataLoader(ds, batch_size=32)\n    total = 0\n    for x in loader:\n        total += len(x)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef sizes(ds, model: torch.nn.Module):\n"
        "    loader = DataLoader(ds, batch_size=32)\n    model.eval()\n    return [len(x) for x in loader]\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef mean(ds):\n"
        "    loader = DataLoader(ds, batch_size=256, drop_last=False)\n    total = 0.0\n"
        "    for x, _ in loader:\n        total += float(x.sum())\n    return total\n",
        # a helper's loader whose callers pass drop_last; a computed drop_last
        "import torch\nfrom torch.utils.data import DataLoader\ndef make_loader(ds, bs, drop_last=False):\n"
        "    return DataLoader(ds, batch_size=bs, drop_last=drop_last)\ndef run(ds, model):\n"
        "    loader = make_loader(ds, 32, drop_last=True)\n    with torch.no_grad():\n        for x in loader:\n"
        "            model(x)\n",
        # a training loader (NPU406's), a distributed sampler's drop_last, a test helper that is no loader
        "import torch\nfrom torch.utils.data import DataLoader\n"
        "loader = DataLoader(ds, batch_size=32, shuffle=True, drop_last=False)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef fit(ds, model, opt):\n"
        "    loader = DataLoader(ds, batch_size=8)\n    for x in loader:\n        model(x).sum().backward()\n"
        "        opt.step()\n",
        "import torch\nfrom torch.utils.data.distributed import DistributedSampler\n"
        "sampler = DistributedSampler(ds, shuffle=False, drop_last=False)\n",
        "import torch\ndef test(self):\n    self.check_dataset_shards(ds, seed, batch_size=4, drop_last=False)\n",
        # a config of batches of one (a batch sampler keeping its tail is reported since session 26: loops26)
        "import torch\nval_dataloader = dict(batch_size=1, num_workers=2, drop_last=False)\n",
        # passed to a function of the file that runs no model on it
        "import torch\nfrom torch.utils.data import DataLoader\ndef count(loader):\n    n = 0\n"
        "    for x in loader:\n        n += len(x)\n    return n\ndef run(ds):\n"
        "    return count(DataLoader(ds, batch_size=64))\n")

    # session 22 (branch22): a DataLoader subclass that takes ``drop_last=False`` and hands it on unchanged (flair's)
    # keeps the tail unless the call passes ``drop_last``: the call's keywords decide (the project index says the
    # same of such a class in another module, and knows ``torch.utils.data.dataloader.DataLoader`` as DataLoader)
    _LOCAL = ("import torch\nclass Loader(torch.utils.data.dataloader.DataLoader):\n"
              "    def __init__(self, dataset, batch_size=1, drop_last=False):\n"
              "        super().__init__(dataset, batch_size=batch_size, collate_fn=list, drop_last=drop_last)\n")
    must_fire += (_LOCAL + "def predict(model, ds, bs):\n    loader = Loader(ds, batch_size=bs)\n"
                  "    with torch.no_grad():\n        for x in loader:\n            model(x)\n",)
    must_not_fire += (_LOCAL + "def predict(model, ds, bs):\n    loader = Loader(ds, batch_size=bs, drop_last=True)\n"
                      "    with torch.no_grad():\n        for x in loader:\n            model(x)\n",
                      _LOCAL.replace("drop_last=drop_last", "drop_last=True") + "def predict(model, ds, bs):\n"
                      "    loader = Loader(ds, batch_size=bs)\n    with torch.no_grad():\n        for x in loader:\n"
                      "            model(x)\n")

    # session 22 (branch22): a loop over the loader that hands its batch to a callable of unknown kind (``model.encode
    # (batch)`` of a parameter, no ``no_grad`` in sight) is the loader's use: reported unless the loop is proven host
    # statistics (builtins, a host library's function, a log line, a container's append, the batch's own methods).
    must_fire += ("import torch\nfrom torch.utils.data import DataLoader\ndef embed(model, texts, bs=32):\n"
                  "    loader = DataLoader(texts, batch_size=bs, collate_fn=model.tokenize)\n    out = []\n"
                  "    for batch in loader:\n        out.append(model.encode(batch))\n    return torch.cat(out)\n",)
    must_not_fire += ("import numpy as np\nimport torch\nfrom torch.utils.data import DataLoader\ndef stats(ds):\n"
                      "    loader = DataLoader(ds, batch_size=64)\n    vals = []\n    for x in loader:\n"
                      "        vals.append(np.mean(np.asarray(x)))\n    return vals\n",)

    # session 26 (loops26): torch's BatchSampler of an ordered sampler keeping its short last batch (drop_last a
    # parameter defaulting to False, also rebound to False in an arm; a batch size that is a setting): GOLD marks
    # train and eval batch samplers alike; not with drop_last=True nor batches of a literal 1.
    must_fire += ("import torch\nfrom torch.utils.data import BatchSampler, SequentialSampler\n"
                  "def build(ds, batch_size=1, batch_sampler=None, drop_last: bool = False):\n"
                  "    if batch_sampler is not None:\n        drop_last = False\n"
                  "    return BatchSampler(SequentialSampler(ds), batch_size, drop_last)\n",)
    must_not_fire += ("import torch\nfrom torch.utils.data import BatchSampler, SequentialSampler\n"
                      "def build(ds, batch_size):\n    return BatchSampler(SequentialSampler(ds), batch_size, True)\n",
                      # buckets a bucketing sampler re-cuts into batches in its own __iter__ (coqui-tts)
                      "import torch\nfrom torch.utils.data import BatchSampler\nclass Buckets(BatchSampler):\n"
                      "    def __init__(self, sampler, bs, drop_last):\n        super().__init__(sampler, bs, drop_last)\n"
                      "        self.buckets = BatchSampler(sampler, bs * 100, False)\n    def __iter__(self):\n"
                      "        for idxs in self.buckets:\n            yield from BatchSampler(idxs, self.batch_size, True)\n",
                      "import torch\nfrom torch.utils.data import BatchSampler, SequentialSampler\n"
                      "def build(ds):\n    return BatchSampler(SequentialSampler(ds), 1, False)\n",)
    # ... and the loader built on a batch sampler a class stored in ``__init__`` (``self.batch_sampler``)
    must_fire += ("import torch\nfrom torch.utils.data import BatchSampler, DataLoader, SequentialSampler\n"
                  "class Loader:\n    def __init__(self, ds, batch_size=1, drop_last=False):\n        self.ds = ds\n"
                  "        batch_sampler = BatchSampler(SequentialSampler(ds), batch_size, drop_last)\n"
                  "        self.batch_sampler = batch_sampler\n    def loader(self):\n"
                  "        return DataLoader(self.ds, batch_sampler=self.batch_sampler)\n",)
    must_not_fire += ("import torch\nfrom torch.utils.data import DataLoader\n"
                      "class Loader:\n    def __init__(self, ds, batch_sampler):\n        self.ds = ds\n"
                      "        self.batch_sampler = batch_sampler\n    def loader(self):\n"
                      "        return DataLoader(self.ds, batch_sampler=self.batch_sampler)\n",)
    must_fire += (  # session 32 (rec32d): inner batch samplers whose batches the sampler's __iter__ yields whole
                  "import torch\nfrom torch.utils.data import BatchSampler, Sampler, SequentialSampler\n"
                  "class Subsets(Sampler):\n    def __init__(self, subsets, bs, drop_last=False):\n"
                  "        self.samplers = [BatchSampler(SequentialSampler(s), bs, drop_last) for s in subsets]\n"
                  "    def __iter__(self):\n        for s in self.samplers:\n            yield from s\n",)
    must_fire += (  # ... and a BatchSampler subclass batching as its base does (funasr's DistributedSamplerWarp)
                  "import torch\nfrom torch.utils.data import BatchSampler, DistributedSampler\n"
                  "class Warp(BatchSampler):\n    def __init__(self, ds, bs, shuffle=True, drop_last=False):\n"
                  "        self.sampler = DistributedSampler(ds, shuffle=shuffle)\n"
                  "        super().__init__(self.sampler, bs, drop_last)\n    def __iter__(self):\n"
                  "        self.sampler.set_epoch(0)\n        return super().__iter__()\n",)
    must_fire += (  # session 32 (rec32d): the loop walks an iterator over the loader (realtabformer's sampler)
                  "import torch\nfrom torch.utils.data import DataLoader\ndef gen(model, ds, bs, device):\n"
                  "    loader = DataLoader(ds, batch_size=bs)\n    it = iter(loader)\n    for b in it:\n"
                  "        x = b.to(device)\n        model.generate(x)\n",)
    must_not_fire += ("import torch\nfrom torch.utils.data import DataLoader\ndef gen(model, ds, bs, device):\n"
                      "    loader = DataLoader(ds, batch_size=bs)\n    it = iter(range(3))\n    for b in it:\n"
                      "        x = b.to(device)\n        model.generate(x)\n",)
    must_fire += (  # session 27 (recall27b): another library's DataLoader subclass the table lacks, named as one
                  "import torch\nimport torchtuples as tt\ndef predict(model, ds, bs):\n"
                  "    dl = tt.data.DataLoaderBatch(ds, batch_size=bs, shuffle=False)\n    preds = []\n"
                  "    with torch.no_grad():\n        for x in dl:\n            preds.append(model(x))\n    return preds\n",)
    must_not_fire += ("import torch\nimport torchtuples as tt\ndef predict(model, ds):\n"
                      "    dl = tt.data.DataLoaderBatch(ds, batch_size=1, shuffle=False)\n"
                      "    with torch.no_grad():\n        return [model(x) for x in dl]\n",)
    _ASSERTED = ("import torch\nfrom torch.utils.data import DataLoader\n"
                 "def make_loader(ds, batch_size=1):\n{}"
                 "    loader = DataLoader(ds, batch_size=batch_size, shuffle=False)\n    return loader\n"
                 "def evaluate(model, ds, questions):\n    loader = make_loader(ds)\n    out = []\n"
                 "    for x, q in zip(loader, questions):\n        with torch.no_grad():\n"
                 "            out.append(model(x))\n    return out\n")
    must_fire += (_ASSERTED.format(""),)   # session 33 (rec33d): a batch size other callers may choose ...
    must_not_fire += (_ASSERTED.format("    assert batch_size == 1, 'one sample at a time'\n"),)   # ... one it asserts

    def check(self, node: object, ctx: FileContext) -> None:
        assert isinstance(node, ast.Call)
        if isinstance(node.func, ast.Name) and node.func.id == "dict" and config_statement(node, ctx):
            found = config_loader(node, ctx) if not test_code(node, ctx) else None   # analysis/config_loaders.py
            if found is not None and not found[0]:
                ctx.report(node, self.message.format(what=found[1]), _LOADER)
            return
        if isinstance(node.func, ast.Attribute) and node.func.attr == "build_dataloader":
            what = runner_loader(node, ctx) if not test_code(node, ctx) else None   # mmengine's static builder
            if what is not None:
                ctx.report(node, self.message.format(what=what), "mmengine.runner.Runner.build_dataloader")
                return
        if batch_sampler_call(node, ctx):   # an evaluation's batch sampler keeping its tail
            owner = ctx.enclosing(node, (ast.ClassDef,))
            if owner is not None and any(isinstance(m, ast.FunctionDef) and m.name == "__iter__"
                                         and not _hands_on_batches(m) for m in owner.body):
                return      # a sampler's inner sampler (buckets re-cut into batches by its own ``__iter__``)
            if ordered_batch_sampler(node, ctx) and not test_code(node, ctx):
                ctx.report(node, self.message.format(what="this BatchSampler keeps its short last batch "
                                                          "(drop_last=False)"), "torch.utils.data.BatchSampler")
            return
        base: Optional[ast.AST] = None   # the DataLoader subclass whose ``super().__init__`` this call is
        explicit = next((kw.value for kw in node.keywords if kw.arg == "drop_last"), None)
        parameters = loader_parameters(loader_callee(node, ctx))
        if parameters is not None:   # torch's DataLoader or a library's subclass forwarding its keywords
            keywords = {kw.arg: kw.value for kw in node.keywords}
            keywords.update(zip(parameters, node.args))
            explicit = keywords.get("drop_last", explicit)
        else:
            keywords = built_loader_here(node, ctx)   # (NPU406 asked it of this call just before)
            if keywords is None:
                keywords = super_loader_call(node, ctx, _LOADER_PARAMETERS)
                base = ctx.enclosing(node, (ast.ClassDef,)) if keywords is not None else None
            if keywords is None:
                if _constant(explicit) is False:
                    self._other_builder(node, ctx)
                return
        raw = keywords
        keywords = batched_keywords(node, keywords, ctx)
        if keywords is None:
            if "batch_sampler" not in raw and (None in raw or any(isinstance(a, ast.Starred) for a in node.args)):
                report_tail(node, None, ctx)    # a spread of unknown content builds it: the broad path
            return
        batch_size = keywords.get("batch_size", _DEFAULT_BATCH_SIZE)
        if _constant(batch_size) in (1, None) or whole_batches(keywords, ctx) \
                or fixed_one(batch_size, _scope(node, ctx), ctx.resolver.scopes):
            return
        drop_last = keywords.get("drop_last")
        if drop_last is not None and _constant(drop_last) is not False and _default(drop_last, node, ctx) is not False:
            report_tail(node, keywords, ctx)    # computed: reported unless known True (its message names it)
            return
        if _constant(keywords.get("shuffle")) is True or "train" in _names_around(node, keywords, ctx) \
                or (_shuffle_flag(node, keywords.get("shuffle"), ctx) is not None and not drops_when_shuffled(keywords)) \
                or _mode_choice(keywords) is not None \
                or _train_hook(node, ctx):
            return      # a training loader (in one phase at least, or Lightning's ``train_dataloader``): NPU406
        loops = list(loops_over(node, ctx))
        if any(trains(loop, ctx) or trains_through_helper(loop, ctx) for loop, _ in loops):
            return      # trained on: NPU406
        if _constant(explicit) is False:
            if loops and not any(_feeds_model(loop, function, ctx) for loop, function in loops):
                return      # iterated here for statistics (a dataset's mean), never by a model or the device
            ctx.report(node, self.message.format(what="this loader keeps its short last batch (drop_last=False)"),
                       _LOADER)
            return
        hook = _eval_hook(node, ctx)
        if hook is not None:
            what = f"the loader {hook}() returns has no drop_last" if drop_last is None else \
                f"the loader {hook}() returns keeps its short last batch{_by_default(keywords, node, ctx)}"
            ctx.report(node, self.message.format(what=what), _LOADER)
            return
        if any(_feeds_model(loop, function, ctx) for loop, function in loops):
            feeds = "feeds a model" if any(_feeds_model(loop, function, ctx, moved=False) for loop, function in loops) \
                else "feeds device compute"
            ctx.report(node, self.message.format(what=f"this evaluation DataLoader {feeds} and has no drop_last"
                                                      f"{_by_default(keywords, node, ctx)}"), _LOADER)
            return
        where = f"every loader {base.name} builds" if isinstance(base, ast.ClassDef) else \
            escape(node, ctx) if not loops else None
        if where is None and not loops and _keeps_batches(node, ctx):
            where = "not iterated here"   # iterated elsewhere (a caller, a trainer): its batches are cut the same
        if where is not None and test_code(node, ctx):
            return      # a pytest function's loader: it tests the code, it trains or serves nothing
        if where is not None:   # iterated elsewhere: its batches are cut the same there
            ctx.report(node, self.message.format(what=f"this DataLoader ({where}) has no drop_last=True"
                                                      f"{_by_default(keywords, node, ctx)}, wherever it is iterated"),
                       _LOADER)
        elif not loops:
            report_tail(node, keywords, ctx)    # kept, but no proof of its use: the broad path
        elif any(hands_batch(loop, ctx) for loop, _ in loops):
            report_tail(node, keywords, ctx)    # its batches handed to a callable of unknown kind (branch22)

    def _other_builder(self, node: ast.Call, ctx: FileContext) -> None:
        """``dls.new(..., drop_last=False)``, ``BatchSampler(..., drop_last=False)``, ``dict(batch_size=8, ...,
        drop_last=False)`` (a loader's config): a callee whose words say it builds batches."""
        keywords = {kw.arg: kw.value for kw in node.keywords}
        if "batch_sampler" in keywords:
            return
        size = keywords.get("batch_size")
        if isinstance(node.func, ast.Name) and node.func.id == "dict":
            if size is None or _constant(size) in (1, None):
                return      # a config without its batch size (inherited) or of batches of one
        elif not _words(node.func) & _LOADER_WORDS or "sampler" in _words(node.func) \
                or (size is not None and _constant(size) in (1, None)):
            return      # no loader; a (batch) sampler: the loader built on it is judged
        if _constant(keywords.get("shuffle")) is True or "train" in _names_around(node, keywords, ctx):
            return      # a training loader: padding the tail is NPU406's question
        ctx.report(node, self.message.format(what=f"{short_source(node.func)}(..., drop_last=False) keeps a short "
                                                  "last batch"), "drop_last=False")


# What a hook may return its loaders in: a list or tuple of them, a comprehension, a dict by name.
_HOOK_CONTAINERS = (ast.List, ast.Tuple, ast.ListComp, ast.Dict, ast.DictComp)


def _keeps_batches(node: ast.Call, ctx: FileContext) -> bool:
    """The loader is kept for later (bound to a name, returned, stored, handed on), not dropped or consumed for one
    batch only (``next(iter(DataLoader(...)))``)."""
    if any(part in ("test", "tests", "testing", "test_utils") or part.startswith("test_") or part.endswith("_test")
           for part in ctx.module.split(".")):
        return False    # a test module (by the project index): its loaders test the code, they train nothing
    parent = ctx.parent(node)
    if isinstance(parent, (ast.Expr, ast.Call)):
        return False    # dropped, counted (``len(...)``), one batch drawn, or handed to a call: judged there
    name = assigned(node, ctx)
    function = ctx.enclosing(node, FUNCTION_TYPES)
    if name and "." not in name:
        scope = function if function is not None else _module_of(node, ctx)
        loads = [child for child in walk(scope) if isinstance(child, ast.Name) and child.id == name
                 and isinstance(child.ctx, ast.Load)] if scope is not None else []
        if not loads:
            return False    # never used
        for child in walk(scope):
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and child.func.id in ("iter", "next") \
                    and child.args and isinstance(child.args[0], ast.Name) and child.args[0].id == name \
                    and not _drawn_in_loop(child, scope, ctx):
                return False    # one batch drawn (a sample, a shape check): the first batch is a full one
    if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        sites = ctx.resolver.call_sites(function)
        if sites and not any(_result_used(call, getattr(scope, "node", None), ctx) for call, scope, _ in sites):
            return False    # returned to the file's own callers, which only count it (``len(loader)``)
        parameters = {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}
        if sites and _judged_at_calls(function, ctx) and any(
                isinstance(kw.value, ast.Name) and kw.value.id in parameters
                for kw in node.keywords if kw.arg in ("batch_size", "shuffle", "drop_last", "sampler")):
            return False    # its batches depend on what each call passes: judged at those calls
        drop_last = next((kw.value for kw in node.keywords if kw.arg == "drop_last"), None)
        if isinstance(drop_last, ast.Name) and sites and all(_passes(call, function, drop_last.id)
                                                             for call, _, _ in sites):
            return False    # every caller in the file says whether to drop the tail: judged at those calls
    return True


def _drawn_in_loop(call: ast.Call, scope: ast.AST, ctx: FileContext) -> bool:
    """``it = iter(loader)`` whose batches a loop of the same scope draws one by one (``x = next(it)`` in a ``for``
    or ``while`` body: a step-based training or evaluation loop), not one batch drawn for a sample."""
    if call.func.id != "iter":  # type: ignore[attr-defined]
        return False
    # (the scope's nodes may lie past the rule's walk: the assignment is found from its statements)
    parent = next((n for n in walk(scope) if isinstance(n, ast.Assign) and n.value is call), None)
    if parent is None or len(parent.targets) != 1 or not isinstance(parent.targets[0], ast.Name):
        return False
    iterator = parent.targets[0].id
    for loop in walk(scope):
        if isinstance(loop, (ast.For, ast.While)) and any(
                isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "next" and n.args
                and isinstance(n.args[0], ast.Name) and n.args[0].id == iterator for n in walk(loop)):
            return True
    return False


def _module_of(node: ast.AST, ctx: FileContext) -> Optional[ast.AST]:
    scopes = ctx.resolver.scopes
    return scopes.module.node if scopes is not None else None


def _passes(call: ast.AST, function: ast.AST, parameter: str) -> bool:
    """``call`` passes ``function``'s ``parameter`` (by keyword, or by position counting a method's ``self``)."""
    if not isinstance(call, ast.Call):
        return False
    if any(kw.arg == parameter for kw in call.keywords):
        return True
    positional = [a.arg for a in function.args.posonlyargs + function.args.args]  # type: ignore[attr-defined]
    if positional and positional[0] in ("self", "cls") and isinstance(call.func, ast.Attribute):
        positional = positional[1:]
    return parameter in positional[:len(call.args)]


def _result_used(call: ast.AST, caller: Optional[ast.AST], ctx: FileContext) -> bool:
    """The result of ``call`` (or a name it is unpacked to) is used beyond its size in ``caller``: iterated,
    handed on, kept, returned. ``len(loader)`` alone is not a use of its batches."""
    if caller is None:
        return True
    # (the caller's nodes may lie past the rule's walk: the parents are found from its own statements)
    parent = next((n for n in walk(caller) if call in _children(n)), None)
    if not isinstance(parent, ast.Assign):
        return not (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "len")
    names = {n.id for t in parent.targets for n in walk(t) if isinstance(n, ast.Name)}
    if any(not isinstance(n, (ast.Name, ast.Tuple, ast.List, ast.Starred)) for t in parent.targets for n in walk(t)
           if not isinstance(n, ast.expr_context)):
        return True     # kept on an attribute or in a container
    sized = {id(n.args[0]) for n in walk(caller) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id == "len" and len(n.args) == 1}
    return any(isinstance(child, ast.Name) and child.id in names and isinstance(child.ctx, ast.Load)
               and id(child) not in sized for child in walk(caller))


def _children(node: ast.AST) -> tuple:
    return tuple(ast.iter_child_nodes(node))


def _eval_hook(node: ast.Call, ctx: FileContext) -> Optional[str]:
    """The hook's name when ``node`` is returned (directly or through a name) by ``val_dataloader`` /
    ``test_dataloader`` / ``predict_dataloader``."""
    function = ctx.enclosing(node, FUNCTION_TYPES)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.name not in _EVAL_HOOKS:
        return None
    parent = ctx.parent(node)
    while isinstance(parent, _HOOK_CONTAINERS):   # ``return [DataLoader(d, ...) for d in self.val_sets]``
        parent = ctx.parent(parent)
    if isinstance(parent, ast.Return):
        return function.name
    name = assigned(node, ctx)
    if name and any(isinstance(c, ast.Return) and c.value is not None and ast.unparse(c.value) == name
                    for c in walk(function)):
        return function.name
    return None


def _feeds_model(loop: ast.For, function: Optional[ast.AST], ctx: FileContext, moved: bool = True) -> bool:
    """The loop's body calls an ``nn.Module`` with the batch (or a value made from it); or, in a function that
    runs without gradients (``torch.no_grad()`` / ``inference_mode()``, ``model.eval()``), a project callable; or
    (``moved``) it moves the batch to the accelerator and computes with it."""
    names = _derived(loop, {n.id for n in walk(loop.target) if isinstance(n, ast.Name)})
    if moved and _computes_on_device(loop, names):
        return True
    scope = ctx.resolver.scopes.scope_of(function) if ctx.resolver.scopes is not None \
        and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    grad_free: Optional[bool] = None
    for call in walk(loop):
        if not isinstance(call, ast.Call) or not _takes(call, names):
            continue
        func = call.func
        if isinstance(func, ast.Attribute) and any(isinstance(n, ast.Name) and n.id in names for n in walk(func)):
            continue    # ``x.to(device)``: a method of the batch
        if _helper_feeds(call, names, function, ctx, 0):
            return True     # ``embeddings.append(self.get_embeddings(x))``: the file's helper runs the model
        value = ctx.resolver.value_of(func, scope) if scope is not None else ctx.resolver.value_of(func)
        if value is not None and value[0] == "module":
            return True
        if value is not None or ctx.resolver.qualname(func, scope) is not None \
                or (isinstance(func, ast.Name) and func.id in BUILTINS):
            continue
        if grad_free is None:
            grad_free = _grad_free(loop, function, ctx)
        if grad_free:
            return True
    return False


def _moved(node: ast.AST) -> bool:
    """``x.to(device)``, ``x.to(self.device, non_blocking=True)``, ``x.cuda()``, ``x.npu()``: the batch brought to
    the accelerator (a device named as one: ``x.to("cpu")``, ``x.to(torch.float16)`` are not)."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    if node.func.attr in ("cuda", "npu"):
        return True
    if node.func.attr != "to":
        return False
    where = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "device"), None)
    if isinstance(where, ast.Constant):
        return isinstance(where.value, str) and where.value.startswith(("cuda", "npu"))
    return where is not None and names_device(where)


def _computes_on_device(loop: ast.For, names: set[str]) -> bool:
    """The loop moves the batch to the accelerator (``x = x.to(device)``, ``a, b = a.to(device), b.to(device)``)
    and computes with what it moved (``torch.mean(x, 0)``, ``x.sum()``, ``x - mean``): device compute on every
    batch, the short last one too, whether or not a model runs (statistics over a data set on the device)."""
    moved: set[str] = set()
    for child in walk(loop):
        if not isinstance(child, ast.Assign):
            continue
        pairs = [(t, child.value) for t in child.targets]
        if isinstance(child.value, ast.Tuple):
            pairs = [(e, v) for t in child.targets if isinstance(t, ast.Tuple) and len(t.elts) == len(child.value.elts)
                     for e, v in zip(t.elts, child.value.elts)] or pairs
        for target, value in pairs:
            if isinstance(target, ast.Name) and _moved(value) and _takes_one(value.func, names):
                moved.add(target.id)
    if not moved:
        return False
    for child in walk(loop):
        if isinstance(child, ast.Call) and not _moved(child) and (
                _takes(child, moved) or (isinstance(child.func, ast.Attribute)
                                         and isinstance(child.func.value, ast.Name) and child.func.value.id in moved
                                         and child.func.attr not in _NOT_COMPUTE)):
            return True
        if isinstance(child, ast.BinOp) and (_takes_one(child.left, moved) or _takes_one(child.right, moved)):
            return True
    return False


# Methods of a moved batch that compute nothing on it.
_NOT_COMPUTE = frozenset({"size", "dim", "numel", "cpu", "detach", "tolist", "numpy", "item", "to", "cuda", "npu"})


def _derived(body: ast.AST, names: set[str]) -> set[str]:
    """``names`` and the names assigned from them in ``body`` (``x = batch[0].to(device)``, ``iffted = irfft(x)``,
    ``for k, v in data.items(): X[k] = v.to(device)``)."""
    names = set(names)
    for child in walk(body):
        if isinstance(child, (ast.Assign, ast.AnnAssign)) and child.value is not None:
            source, targets = child.value, child.targets if isinstance(child, ast.Assign) else [child.target]
        elif isinstance(child, ast.For) and child is not body:
            source, targets = child.iter, [child.target]
        else:
            continue
        if any(isinstance(n, ast.Name) and n.id in names for n in walk(source)):
            names |= {name for t in targets for name in _stored(t)}
    return names


def _stored(target: ast.AST) -> set[str]:
    """The names an assignment target binds or fills: ``x``, ``a, b``, ``X`` of ``X[k]``; not the object whose
    attribute is set (``self`` of ``self.emb[idx] = out``: an attribute of ``self`` holding a batch's values does
    not make every method of ``self`` a method of the batch)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return {name for element in target.elts for name in _stored(element)}
    if isinstance(target, ast.Starred):
        return _stored(target.value)
    while isinstance(target, ast.Subscript):
        target = target.value
    return {target.id} if isinstance(target, ast.Name) else set()


def _helper_feeds(call: ast.Call, names: set[str], function: Optional[ast.AST], ctx: FileContext,
                  depth: int) -> bool:
    """``call`` is one of the file's functions (or a method of the class at hand: ``self.get_embeddings(x)``) that
    receives the batch and runs a model on it: calls an ``nn.Module`` with it, or calls what it was given with it
    while the helper runs without gradients (``torch.no_grad()``, ``model.eval()``) or back-propagates
    (``amplitude_gradients(model, x)``: ``model(x)`` then ``.backward()``); followed two helpers deep."""
    func, offset = call.func, 0
    definition: Optional[ast.AST] = None
    if isinstance(func, ast.Name):
        definition = ctx.resolver.definition(func)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        owner = ctx.enclosing(function, (ast.ClassDef,)) if function is not None else None
        if isinstance(owner, ast.ClassDef):
            definition = next((f for f in owner.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                               and f.name == func.attr), None)
            offset = 1
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)) or depth > 1 or definition is function:
        return False
    positional = [a.arg for a in definition.args.posonlyargs + definition.args.args][offset:]
    parameters = {positional[i] for i, a in enumerate(call.args) if i < len(positional) and _takes_one(a, names)}
    parameters |= {kw.arg for kw in call.keywords if kw.arg and _takes_one(kw.value, names)}
    if not parameters:
        return False
    inner = _derived(definition, parameters)
    scope = ctx.resolver.scopes.scope_of(definition) if ctx.resolver.scopes is not None else None
    runs_model: Optional[bool] = None
    for child in walk(definition):
        if not isinstance(child, ast.Call) or not _takes(child, inner):
            continue
        target = child.func
        if isinstance(target, ast.Attribute) and any(isinstance(n, ast.Name) and n.id in inner for n in walk(target)):
            continue    # a method of the batch
        if _helper_feeds(child, inner, definition, ctx, depth + 1):
            return True
        value = ctx.resolver.value_of(target, scope) if scope is not None else None
        if value is not None and value[0] == "module":
            return True
        if value is not None or ctx.resolver.qualname(target, scope) is not None \
                or (isinstance(target, ast.Name) and target.id in BUILTINS):
            continue
        if runs_model is None:
            runs_model = _grad_free(child, definition, ctx) or any(
                isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "backward"
                for c in walk(definition))
        if runs_model:
            return True
    return False


def _takes_one(argument: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in walk(argument))


def _takes(call: ast.Call, names: set[str]) -> bool:
    return any(_takes_one(argument, names) for argument in [*call.args, *(kw.value for kw in call.keywords)])


def _grad_free(loop: ast.For, function: Optional[ast.AST], ctx: FileContext) -> bool:
    """The loop runs under ``torch.no_grad()`` / ``inference_mode()`` (a ``with`` around it or inside it, or the
    function's decorator), or the function puts a model in evaluation mode (``model.eval()``)."""
    def no_grad(expr: ast.AST) -> bool:
        target = expr.func if isinstance(expr, ast.Call) else expr
        return ctx.resolver.qualname(target) in _NO_GRAD

    if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(no_grad(d) for d in
                                                                             function.decorator_list):
        return True
    first, last = loop.lineno, loop.end_lineno or loop.lineno
    for child in walk(function if function is not None else loop):   # (the walk has not
        if isinstance(child, ast.With) and any(no_grad(item.context_expr) for item in child.items) and (
                child.lineno <= first <= (child.end_lineno or child.lineno) or first <= child.lineno <= last):
            return True   # reached the loop yet: its lines)
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and child.func.attr == "eval" \
                and not child.args and not child.keywords:
            return True
    return False


def _hands_on_batches(method: ast.FunctionDef) -> bool:
    """A sampler's ``__iter__`` that yields the batches of its inner batch samplers whole: every ``yield`` is
    ``yield from sampler`` or ``yield next(it)`` of a name or attribute (scGPT's ``SubsetsBatchSampler`` picking one
    subset's ``BatchSampler`` per step), or it returns ``super().__iter__()`` (a ``BatchSampler`` subclass batching
    as its base does), so their short last batches reach the loader."""
    yields = [n for n in ast.walk(method) if isinstance(n, (ast.Yield, ast.YieldFrom))]
    returns = [n.value for n in ast.walk(method) if isinstance(n, ast.Return) and n.value is not None]
    if not yields and returns and all(   # ``return super().__iter__()``: BatchSampler's own batches
            isinstance(r, ast.Call) and isinstance(r.func, ast.Attribute) and r.func.attr == "__iter__"
            and isinstance(r.func.value, ast.Call) and isinstance(r.func.value.func, ast.Name)
            and r.func.value.func.id == "super" for r in returns):
        return True

    def whole(node: ast.AST) -> bool:
        if isinstance(node, ast.YieldFrom):
            return isinstance(node.value, (ast.Name, ast.Attribute, ast.Subscript))
        value = node.value   # type: ignore[attr-defined]
        return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "next" \
            and len(value.args) == 1 and isinstance(value.args[0], (ast.Name, ast.Attribute, ast.Subscript))
    return bool(yields) and all(whole(n) for n in yields)
