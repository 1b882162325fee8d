"""NPU405-NPU406: batches whose shape changes from one step to the next."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.bounded import unparse
from npu_lint.context import FileContext
from npu_lint.rules import Rule
from npu_lint.rules.dynamic_values import (BATCH_MAX, FACTORIES, FAMILY, SHAPE_METHODS, ValueFlow, call_args,
                                          last_name)

_PAD_SEQUENCE = "torch.nn.utils.rnn.pad_sequence"
_COLLATORS = ("DataCollatorWithPadding", "DataCollatorForSeq2Seq", "DataCollatorForTokenClassification")
_LOADER = "torch.utils.data.DataLoader"
_SINK_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in FACTORIES) | SHAPE_METHODS
_LOADER_PARAMETERS = ("dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers", "collate_fn",
                      "pin_memory", "drop_last")


def _constant(node: Optional[ast.AST]) -> object:
    return node.value if isinstance(node, ast.Constant) else ...


class PadToBatchMax(ValueFlow):
    """Padding each batch to its own longest item.

    What it does:
        Flags ``pad_sequence`` (it pads to the longest sequence of the batch), tokenizer and collator calls
        with ``padding=True`` or ``padding="longest"``, Hugging Face ``DataCollatorWithPadding`` (and the
        seq2seq and token-classification collators) without ``padding="max_length"``, and tensors sized
        by the batch maximum computed by hand (``max_len = max(len(s) for s in batch)`` followed by
        ``torch.zeros(n, max_len)``).
    Why it matters on NPU:
        The padded length, and with it every activation shape of the model, changes from batch to batch;
        each new length compiles the NPU operators again.
    Example:
        batch = tokenizer(texts, padding=True, return_tensors="pt")
    Use instead:
        batch = tokenizer(texts, padding="max_length", max_length=512, truncation=True, return_tensors="pt")
        # or bucket by length and pad to a few fixed sizes (pad_to_multiple_of helps but still varies)
    Fix safety:
        No automatic fix: the fixed length is a modelling choice.
    """

    code = "NPU405"
    name = "pad-to-batch-max"
    triggers = ("pad_sequence", "padding", "Padding", "max(")
    kinds = (BATCH_MAX,)
    message = "{what}: the padded length changes with every batch, and every new length recompiles on NPU; pad to a fixed length or a few buckets"
    must_fire = ("import torch\nfrom torch.nn.utils.rnn import pad_sequence\nx = pad_sequence(seqs, batch_first=True)\n",
                 "import torch\nenc = tokenizer(texts, padding=True, return_tensors='pt')\n",
                 "import torch\nfrom transformers import DataCollatorWithPadding\ncollate = DataCollatorWithPadding(tokenizer)\n",
                 "import torch\ndef collate(batch):\n    max_len = max(len(s) for s in batch)\n"
                 "    out = torch.zeros(len(batch), max_len, dtype=torch.long)\n    return out\n")
    must_not_fire = ("import torch\nenc = tokenizer(texts, padding='max_length', max_length=128)\n",
                     "import torch\nfrom transformers import DataCollatorWithPadding\n"
                     "collate = DataCollatorWithPadding(tokenizer, padding='max_length', max_length=256)\n",
                     "import torch\nconv = torch.nn.Conv2d(3, 8, 3, padding=1)\n",
                     "import torch\nconv = ConvModule(3, 8, 3, padding=1)\n",
                     "import torch\nn = max(a, b)\nbuf = torch.zeros(n)\n")

    def check_call(self, node: ast.Call, ctx: FileContext) -> None:
        padding = next((kw.value for kw in node.keywords if kw.arg == "padding"), None)
        last = last_name(node.func)
        if padding is None and last not in _SINK_NAMES and last != "pad_sequence" and not last.endswith(_COLLATORS):
            return
        name = ctx.resolver.qualname(node.func) or ""
        if name == _PAD_SEQUENCE:
            self._report(node, "pad_sequence() pads to the longest sequence in the batch", ctx)
        elif name.startswith("transformers") and name.endswith(_COLLATORS):
            if _constant(padding) not in ("max_length", False, "do_not_pad"):
                self._report(node, f"{name.rsplit('.', 1)[-1]} pads each batch to its longest item", ctx)
        elif padding is not None and (_constant(padding) is True or _constant(padding) == "longest") \
                and not name.startswith("torch."):
            self._report(node, f"padding={unparse(padding)} pads each batch to its longest item", ctx)
        elif name in FACTORIES or (isinstance(node.func, ast.Attribute) and node.func.attr in SHAPE_METHODS
                                    and not name):
            origin = self._flow(call_args(node), node, ctx)
            reported = ctx.scratch.setdefault("batch_max_reported", set())
            if origin is not None and origin not in reported:   # one finding per batch maximum
                reported.add(origin)
                self._report(node, f"this tensor is sized by the batch maximum ({origin[1]}, line {origin[2]})", ctx)

    def _report(self, node: ast.Call, what: str, ctx: FileContext) -> None:
        ctx.report(node, self.message.format(what=what), ctx.resolver.qualname(node.func) or "padding")


class LoaderWithoutDropLast(Rule):
    """A training ``DataLoader`` without ``drop_last=True``.

    What it does:
        Flags ``torch.utils.data.DataLoader(...)`` calls that shuffle, or whose name, dataset or sampler says
        ``train`` (a training loader), and neither pass ``drop_last=True`` nor set the batch size to 1 or
        leave batching to a ``batch_sampler``. Calls with ``**kwargs`` or a computed ``drop_last`` are left alone.
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
    node_types = (ast.Call,)
    triggers = ("DataLoader",)
    message = "this training DataLoader has no drop_last=True: its last batch is smaller, a second set of shapes to compile on NPU"
    must_fire = ("import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(ds, batch_size=32, shuffle=True)\n",
                 "import torch\ntrain_loader = torch.utils.data.DataLoader(ds, batch_size=8, sampler=sampler, drop_last=False)\n",
                 "import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(ds, 64, True, num_workers=4)\n")
    must_not_fire = ("import torch\nfrom torch.utils.data import DataLoader\n"
                     "loader = DataLoader(ds, batch_size=32, shuffle=True, drop_last=True)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\nval = DataLoader(ds, batch_size=32)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(ds, batch_size=32, sampler=sampler)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\n"
                     "loader = DataLoader(ds, batch_size=32, shuffle=True, drop_last=args.drop_last)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(ds, shuffle=True, **kwargs)\n",
                     "import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(ds, batch_sampler=bs)\n")

    def check(self, node: ast.Call, ctx: FileContext) -> None:
        if ctx.resolver.qualname(node.func) != _LOADER:
            return
        keywords = {kw.arg: kw.value for kw in node.keywords}
        keywords.update(zip(_LOADER_PARAMETERS, node.args))
        if None in keywords or "batch_sampler" in keywords or any(isinstance(a, ast.Starred) for a in node.args):
            return
        if "drop_last" in keywords and _constant(keywords["drop_last"]) is not False:
            return
        if _constant(keywords.get("batch_size")) in (1, None):
            return
        if _constant(keywords.get("shuffle")) is True or "train" in _names_around(node, keywords, ctx):
            ctx.report(node, self.message, _LOADER)


def _names_around(node: ast.Call, keywords: dict, ctx: FileContext) -> str:
    """The assigned name, the dataset and the sampler, lower-cased: ``train_loader = DataLoader(train_set, ...)``."""
    parts = [unparse(keywords[key]) for key in ("dataset", "sampler") if key in keywords]
    parent = ctx.parent(node)
    if isinstance(parent, ast.Assign):
        parts += [unparse(target) for target in parent.targets]
    return " ".join(parts).lower()
