"""NPU418: batches closed on a budget of tokens or frames, so the number of samples per batch varies (the loop's
test: :mod:`npu_lint.analysis.budget_batches`)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.budget_batches import batches_by_budget, budget_test, padded_count
from npu_lint.analysis.nodes import function_text, of_type, walk
from npu_lint.bounded import unparse
from npu_lint.context import FileContext
from npu_lint.rules import Rule

FAMILY = "dynamic-shape"
_LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})


class BudgetBatches(Rule):
    """Batches filled up to a budget of tokens or frames: the number of samples per batch varies.

    What it does:
        Flags the test that closes a batch when a running count of tokens or frames passes a budget, in a
        batch sampler (a class that iterates batches: the test in its ``__iter__`` or in another of its methods,
        the one building the batches or popping the next) or in a generator that yields its batches: samples
        are appended to a list, and an ``if`` hands the list on (yields it, keeps it among the batches, wraps it)
        and starts a new one when ``frames + n > max_frames``, ``max_tokens * len(batch) >= budget`` or ``size *
        (len(batch) + 1) > budget`` says the budget is reached; or a ``while`` on such a test keeps appending to
        the list it hands on. A plain function or method that returns such batches (a data set's
        ``get_batch_indices(toks_per_batch)``, the batches closed directly or by a closure it calls, ``_flush()``)
        is flagged when its budget weighs the padded size of the batch, a maximum length times the batch's count
        (``max(sz, max_len) * (len(buf) + 1) > toks_per_batch``); text gathered into chunks by a sum of characters
        is not. A test of the batch's own length alone (``len(batch) == batch_size``) is a fixed batch size, not
        flagged. With a project index, also a ``DataLoader`` whose
        ``batch_sampler=`` is an instance of such a sampler defined in another module, at the loader.
    Why it matters on NPU:
        Every batch holds a different number of samples (short sentences many, long ones few), so the batch
        dimension of every activation changes from batch to batch, on top of the padded length: a new shape to
        compile on NPU for almost every batch.
    Example:
        for idx, n in lengths:
            if frames + n > max_frames:
                batches.append(batch)
                batch, frames = [], 0
            batch.append(idx)
            frames += n
    Use instead:
        A fixed number of samples per batch, bucketed by length (a few fixed padded lengths); or keep the budget
        and pad every batch to a few fixed (batch size, length) pairs.
    Fix safety:
        No automatic fix: the batch size and the buckets are training choices.
    """

    code = "NPU418"
    name = "budget-batches"
    family = FAMILY
    node_types = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Call)
    triggers = ("append", "batch_sampler")
    message = "{what}: the number of samples per batch changes with their lengths, so the batch dimension of every activation changes from batch to batch, a recompile per new batch shape on NPU; use a fixed batch size with length buckets"
    must_fire = (
        # a plain method returning batches of sample indices under a padded-token budget, closed by a closure
        # (ESM's FastaBatchedDataset.get_batch_indices)
        "import torch\nclass Fasta(torch.utils.data.Dataset):\n    def get_batch_indices(self, toks_per_batch):\n"
        "        sizes = sorted((len(s), i) for i, s in enumerate(self.seqs))\n"
        "        batches, buf, max_len = [], [], 0\n        def _flush():\n            nonlocal max_len, buf\n"
        "            if buf:\n                batches.append(buf)\n            buf = []\n            max_len = 0\n"
        "        for sz, i in sizes:\n            if max(sz, max_len) * (len(buf) + 1) > toks_per_batch:  # NPU418\n"
        "                _flush()\n            max_len = max(max_len, sz)\n            buf.append(i)\n"
        "        _flush()\n        return batches\n",
        # a batch sampler closing a batch on a frame budget in its constructor
        "import torch\nfrom torch.utils.data import Sampler\nclass FrameSampler(Sampler):\n"
        "    def __init__(self, lengths, max_frames):\n        self.batches, batch, frames = [], [], 0\n"
        "        for idx, n in enumerate(lengths):\n            if frames + n > max_frames:\n"
        "                self.batches.append(batch)\n                batch, frames = [], 0\n"
        "            batch.append(idx)\n            frames += n\n"
        "    def __iter__(self):\n        return iter(self.batches)\n",
        # a token budget counting the longest so far times the batch's length, in __iter__
        "import torch\nclass TokenSampler:\n    def __iter__(self):\n        batch, longest = [], 0\n"
        "        for idx in self.sampler:\n            longest = max(longest, self.lengths[idx])\n"
        "            batch.append(idx)\n            if longest * len(batch) >= self.max_tokens:\n"
        "                yield batch\n                batch, longest = [], 0\n",
        # the next sample added or the batch handed on, the running count kept by the caller (a helper method)
        "import torch\nclass Bucketizer:\n    def __iter__(self):\n        yield from self.chunks\n"
        "    def _pop(self, batch, total, item, n):\n        out = None\n        if total + n > self.max_tokens:\n"
        "            out = list(batch)\n            batch = [item]\n            total = n\n        else:\n"
        "            batch.append(item)\n            total += n\n        return batch, total, out\n",
        # an inner loop filling one batch while the budget allows
        "import torch\nclass NodeBudget:\n    def __iter__(self):\n        idx = list(self.order)\n        while idx:\n"
        "            batch, n_nodes = [], 0\n            while idx and n_nodes + self.sizes[idx[0]] <= self.budget:\n"
        "                i, idx = idx[0], idx[1:]\n                n_nodes += self.sizes[i]\n"
        "                batch.append(i)\n            yield batch\n",
        # a generator of batches of samples
        "import torch\ndef dynamic_batch(samples, max_frames):\n    buf, longest = [], 0\n    for s in samples:\n"
        "        longest = max(longest, s['feat'].size(0))\n        if longest * (len(buf) + 1) > max_frames:\n"
        "            yield buf\n            buf, longest = [], s['feat'].size(0)\n        buf.append(s)\n",
    )
    must_not_fire = (
        # a fixed batch size
        "import torch\nclass Batches:\n    def __iter__(self):\n        batch = []\n        for idx in self.sampler:\n"
        "            batch.append(idx)\n            if len(batch) >= self.batch_size:\n                yield batch\n"
        "                batch = []\n",
        # batch sizes drawn from a schedule while samples remain (what is left, counted down: no budget)
        "import torch\nclass Scheduled:\n    def __iter__(self):\n        yield from self.schedule\n"
        "    def _build(self):\n        remaining, schedule = len(self.sampler), []\n"
        "        while remaining >= self.smallest:\n            size = self.pick(remaining)\n"
        "            schedule.append(size)\n            remaining -= size\n        return tuple(schedule)\n",
        # the batch's own length kept in a name is still a fixed batch size
        "import torch\ndef batches(items, size):\n    batch = []\n    for x in items:\n        batch.append(x)\n"
        "        n = len(batch)\n        if n >= size:\n            yield batch\n            batch = []\n",
        # texts gathered into chunks by characters in a plain function (no batches iterated); a plain function
        # under a padded-token budget is flagged (must_fire below)
        "import torch\ndef chunk(lines, limit):\n    chunks, cur, n = [], [], 0\n    for line in lines:\n"
        "        if n + len(line) > limit:\n            chunks.append(cur)\n            cur, n = [], 0\n"
        "        cur.append(line)\n        n += len(line)\n    return chunks\n",
        # a loader over a sampler of fixed batches
        "import torch\nfrom torch.utils.data import DataLoader, BatchSampler, RandomSampler\n"
        "loader = DataLoader(ds, batch_sampler=BatchSampler(RandomSampler(ds), 32, True))\n",
    )

    def check(self, node: object, ctx: FileContext) -> None:
        if not ctx.uses_torch:
            return
        if isinstance(node, ast.Call):
            self._loader(node, ctx)
            return
        test = self._function_test(node, ctx)   # type: ignore[arg-type]
        if test is not None:
            ctx.report(test, self.message.format(what=f"{unparse(test)} closes a batch on a budget"), "budget")

    @staticmethod
    def _function_test(function: ast.FunctionDef, ctx: FileContext) -> Optional[ast.Compare]:
        owner = ctx.parent(function)
        if isinstance(owner, ast.ClassDef):
            tests = ctx.scratch.setdefault("budget_tests", {})   # once per class, whichever method asks
            if id(owner) not in tests:
                tests[id(owner)] = batches_by_budget(owner, lambda method: _budget_test(method, ctx))
            found = tests[id(owner)]
            if found is not None:
                return found if any(n is found for n in walk(function)) else None
        if not ctx.mentions("yield") or not of_type(function, ast.Yield) and not of_type(function, ast.YieldFrom):
            # (a file without the word has no generator: its functions' walks are not built for this question)
            test = _budget_test(function, ctx) if ctx.mentions("max") else None
            # a plain function or method gathering lists: batches only when the budget weighs the padded size
            # (ESM's ``get_batch_indices``); texts gathered into chunks by characters are not
            return test if test is not None and padded_count(test) else None
        test = _budget_test(function, ctx)
        if test is None:
            return None
        # the generator yields the batch it closes
        return test if any(isinstance(n, ast.Yield) and isinstance(n.value, ast.Name) for n in walk(function)) \
            else None

    def _loader(self, node: ast.Call, ctx: FileContext) -> None:
        project = ctx.project
        sampler = next((kw.value for kw in node.keywords if kw.arg == "batch_sampler"), None)
        if project is None or sampler is None or ctx.resolver.qualname(node.func) not in _LOADERS:
            return
        value = ctx.resolver.value_of(sampler)
        cls = value[1] if value is not None else None
        if not cls or cls not in project.index.classes:
            return
        where = project.budget_batches(cls)
        if where is not None:
            short = cls.rpartition(".")[2]
            ctx.report(node, self.message.format(
                what=f"this loader's batch sampler {short} closes its batches on a budget ({where})"), "budget")


def _budget_test(function: ast.AST, ctx: FileContext) -> Optional[ast.Compare]:
    """``budget_test(function)``, once per function and file (a class's methods are asked again one by one). A
    function whose lines never say ``append`` gathers no list (``budget_test`` needs ``batch.append(x)`` in it or
    in a closure of it, both inside those lines): not walked (an identifier may be written in other characters that
    normalise to it, so only an ASCII text is trusted)."""
    store = ctx.scratch.get("budget_texts")
    if store is None:
        store = ctx.scratch["budget_texts"] = {}
    text = function_text(function, ctx.source, store)
    if text is not None and "append" not in text and text.isascii() and not any(
            type(n) is ast.Attribute and n.attr == "append" for d in getattr(function, "decorator_list", ())
            for n in walk(d)):   # (the decorators stand above the function's first line)
        return None
    return ctx.per_node("budget_test", function, budget_test)
