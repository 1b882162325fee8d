"""NPU405: padding each batch to its own longest item (the helpers that pad: batch_max_helpers.py)."""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.flows import BATCH_MAX
from npu_lint.analysis.scopes import VALUE
from npu_lint.bounded import unparse
from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES, short_source
from npu_lint.rules.broad_padding import padded_list, padding_maximum
from npu_lint.rules.max_sizes import maximum_size
from npu_lint.rules.batch_max_helpers import batch_max_helper, batch_max_method, project_helper
from npu_lint.rules.test_scope import test_code
from npu_lint.rules.read_maxima import read_maximum
from npu_lint.rules.batch_max_places import (handing_call, extreme_side, in_assertion, passed_down, running_maximum,
                                             same_function)
from npu_lint.rules.padding_args import constant, encodes_text, longest_entry, padding_in_kwargs, padding_values
from npu_lint.rules.size_helpers import size_helper_call
from npu_lint.analysis.size_sinks import FACTORIES, SHAPE_METHODS, last_name, size_args
from npu_lint.rules.value_flow import ValueFlow, origin_text


_PAD_SEQUENCE = "torch.nn.utils.rnn.pad_sequence"
_PAD_PACKED = "torch.nn.utils.rnn.pad_packed_sequence"   # pads to the longest of the batch unless total_length=
_COLLATORS = ("DataCollatorWithPadding", "DataCollatorForSeq2Seq", "DataCollatorForTokenClassification",
              # session 21: the language-modeling collators pad the examples to the longest with the tokenizer
              "DataCollatorForLanguageModeling", "DataCollatorForWholeWordMask", "DataCollatorForMultipleChoice",
              # session 21 (padllm21): TRL's collators pad each batch to its longest item too
              # (``DPODataCollatorWithPadding`` and ``RewardDataCollatorWithPadding`` end as the first one)
              "DataCollatorForCompletionOnlyLM", "DataCollatorForPreference", "DataCollatorForChatML",
              "DataCollatorForVisionLanguageModeling")
_COLLATOR_LIBRARIES = ("transformers", "trl")
_F_PAD = "torch.nn.functional.pad"
# keywords of a tokenizer's / processor's ``pad`` (a tensor's or an array's ``pad`` takes none of them)
_PAD_KEYWORDS = frozenset({"return_tensors", "padding", "max_length", "pad_to_multiple_of", "return_attention_mask",
                           "padding_side"})
# Library calls that pad each item to the longest of the batch (of the processes) unless given a size:
# ``nt.to_padded_tensor(0.0)`` / ``torch.nested.to_padded_tensor(nt, 0.0)`` without ``output_size``, and
# Accelerate's ``pad_across_processes`` (each process's tensor padded to the longest across the processes before a
# gather). The first is torch's; the second is called on an ``Accelerator`` (or imported from ``accelerate.utils``).
_TO_PADDED = "torch.nested.to_padded_tensor"
_ACROSS_PROCESSES = "pad_across_processes"
_NP_PAD = "numpy.pad"
_SIZED_METHODS = SHAPE_METHODS | {"new"}     # ``xs[0].new(n, max_len)``: the legacy allocation of padding helpers
_SINK_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in FACTORIES) | _SIZED_METHODS | {"pad"}
# numpy arrays a collate function fills and hands to torch: sized by the batch maximum, they pad the batch too.
_NUMPY_FACTORIES = frozenset({"numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full"})


def _short(name: str) -> str:
    """``torch.zeros`` for a torch factory, ``F.pad``; the last part otherwise."""
    if name.startswith("torch.nn.functional."):
        return "F." + name.rsplit(".", 1)[-1]
    return name if name.count(".") == 1 else name.rsplit(".", 1)[-1]


_MAKING = ("sizes ", "pads with F.pad")   # the sinks that make a tensor of the batch maximum's size


def _making(sink: str) -> bool:
    """A sink that makes a torch tensor of the batch maximum's size (a numpy buffer is often host bookkeeping: its
    places are named in one finding with the lists and slices)."""
    return sink.startswith(_MAKING) and not sink.startswith("sizes np.")


# the places that pad an item's array to the maximum (``np.pad``): where a batch's varying shape is made when no
# torch tensor is sized in the same function (a numpy buffer sized by it is often host bookkeeping: at the maximum)
_PAD_PLACES = ("pads with np.pad",)


def _own_statement(extreme: ast.AST, node: ast.AST, ctx: FileContext) -> bool:
    """The maximum stands in a statement of its own, another than the place it pads (``m = max(lens)`` then ``x +
    [pad] * (m - len(x))``), not inside it (``[x + [0] * (max(lens) - len(x)) for x in xs]``)."""
    mine, theirs = ctx.statement_of(extreme), ctx.statement_of(node)
    return mine is not None and theirs is not None and mine is not theirs and mine.lineno != theirs.lineno


def _listed(sinks: list[str]) -> str:
    """``sizes torch.zeros() at line 14 and pads a list at line 17``."""
    return sinks[0] if len(sinks) == 1 else ", ".join(sinks[:-1]) + " and " + sinks[-1]


class PadToBatchMax(ValueFlow):
    """Padding each batch to its own longest item.

    What it does:
        Flags ``pad_sequence`` (it pads to the longest sequence of the batch), ``pad_packed_sequence`` without
        ``total_length=`` (it pads an RNN's packed output back to the longest sequence of the batch), tokenizer and collator calls
        with ``padding=True`` or ``padding="longest"`` (a call of ``transformers`` / ``tokenizers``, one given a
        keyword only text encoders take -- ``return_tensors``, ``truncation``, ``max_length`` -- or a callee
        named for it: ``self.tokenizer(...)``, ``processor(...)``; a layer built with a "same padding" flag,
        ``ConvBlock(c, padding=True)``, or a record's ``padding`` field is none; also a tokenizer's keyword
        arguments built entry by entry, ``kwargs["padding"] = "longest"`` in a function that also stores
        ``kwargs["return_tensors"]`` or another key only text encoders take), Hugging Face ``DataCollatorWithPadding`` (and the
        seq2seq, token-classification, language-modeling, whole-word-mask and multiple-choice collators) without ``padding="max_length"``, and tensors sized
        by the batch maximum computed by hand (``max_len = max(len(s) for s in batch)`` followed by
        ``torch.zeros(n, max_len)``, the legacy ``torch.LongTensor(n, max_len)``, or ``F.pad`` up to it), by a helper over the items' shapes
        (``max_size = _max_by_axis([list(img.shape) for img in images])``, then ``torch.zeros(batch_shape)``),
        by the largest of a stack or tensor of the items' sizes (``torch.stack([...]).max(0).values``,
        ``torch.max(torch.stack([img.shape[1] for img in images]).float())``, read back as ``int(m)``), or by
        ``max(lens)`` of lengths the function compares with positions (``arange(m) < lens.unsqueeze(1)``), or
        an order statistic of the items' lengths (``sorted(len(s) for s in batch)[-1]``)
        or returned by one of the file's own functions; and the calls of the file's own helpers that pad that
        way (directly or through another helper), and of the methods of a project class that do
        (``self.padding2d(rows)``: the method defined in this file or on a base class in another module; or of
        an item of a dict the class builds empty and fills item by item, ``self.tokenizers[key].batch_encode(rows)``
        after ``self.tokenizers[key] = Tokenizer(...)`` here or in a base class of another module); a helper
        that pads Python lists to their longest (``tokens + ["<pad>"] * (m - len(tokens))``, a tokenizer's
        ``batch_encode``) counts where its result is made a tensor in the caller (``torch.tensor(x)``). The maximum may also be taken of arithmetic of the items' lengths (``len(s) + 2``), with a floor
        (``max(*counts, 1)``), of the length each item records (``audio_len for _, audio_len in batch``,
        ``s["length"] for s in batch``), of a list of lengths
        (``lengths = [len(s) for s in batch]; max(lengths)``, ``max(map(len, batch))``) or kept as a running
        maximum in a loop over the items (``m = max(m, len(s))``, or by hand: ``if len(s) > m: m = len(s)``; also
        through a name, ``n = ids[-1].size(0)`` of the item the loop has just appended, then ``if n > m: m = n``), or the
    length of the first item once the items are sorted by it, longest first (``batch.sort(key=lambda x:
    len(x[0]), reverse=True)``, then ``max_len = len(batch[0][0])``; measured as the key measures it), or the first of the
    items' lengths sorted longest first (``input_lengths, ids = torch.sort(torch.LongTensor([len(x[0]) for x in batch]),
    descending=True)``, then ``torch.LongTensor(len(batch), input_lengths[0])``: Tacotron's collate; ``[-1]`` sorted
    ascending, ``torch.sort(lengths).values[-1]``), or read from the longest item picked by its size
        (``longest = max(tensors, key=lambda t: t.shape[0])``, then ``longest.new_ones(n, longest.shape[0])``, or
        at once: ``seq_len = maxlen or max(seqs, key=len).shape[-1]``); a maximum that sizes torch tensors in its own function is reported once, at
        the maximum (the line a fixed length replaces), naming every tensor it sizes; it is also reported where it pads token lists in
        Python (``ids + [pad] * (m - len(ids))``), sizes a numpy buffer (``np.zeros((n, m))``), pads an array with ``np.pad`` or is handed to a
        padding helper of another module (``pad_to_length(x, m)``, or any function of another module whose
        parameter sizes a tensor, found through the project index: ``stack_tensors(items, max_lens=[m])``), and the shortest length where it crops each
        item (``x[:min_len]``). A tokenizer's or image processor's ``pad(..., return_tensors=...)`` (padding to
        the longest by default) and ``padding=self.padding`` set to ``"longest"`` in the constructor (or a
        dataclass field defaulting to ``True``, in the class, a base, or the library class it derives from:
        Hugging Face's ``DataCollatorWithPadding`` and its seq2seq, token-classification and multiple-choice
        collators default to ``True``) are reported
        too, and so is ``padding: True`` in a dict literal handed to a call as ``**kwargs`` (at the dict's value,
        the line to change); values in test assertions are not. The largest of a tensor of lengths (``int(lengths.max())``,
        ``ilens.max().item()``, where the name is bound to the items' lengths in the function; for a helper that
        pads, also of a tensor it compares with positions, ``arange(m)[None] < sizes[:, None]``: the
        lengths-to-mask idiom of a helper packing point clouds of different sizes, whose calls, here or in other
        modules through the project index, are reported; inside the helper it stays a value read back, NPU403),
        the longest across the processes (a size reduced with ``dist.all_reduce(n,
        op=ReduceOp.MAX)`` and read back, padding each rank's tensor before a gather) counts as a batch
        maximum too, and so do torch's ``to_padded_tensor`` of a nested tensor without ``output_size`` and
        Accelerate's ``pad_across_processes`` (not the project's own function or class of that name), and so does a tensor cut to it (``ids[:, :max_len]``), and what the positions of a range
        over it give: the last start of the windows over the batch's longest wave (``starts = list(range(0,
        max_len, hop))``, ``padded = starts[-1] + window``) and their count (``len(range(0, max_len, hop))``).
        Broad path: a padding up to a maximum the function takes of values it cannot type --
        ``[0] * (m - inst.word_num)`` or ``F.pad(x, (0, m - n))`` with ``m = max(nums)`` of the items' own
        counts, ``max([max(x) for x in lens])`` of a parameter, the maximum of a list built in a loop -- counts:
        the padding is the trigger, silent when the maximum is proven fixed (a literal of constants, a module
        constant, ``max(a, b)`` of two values, a numpy array's maximum padding Python lists, test code). A
        tokenizer asked for torch tensors (``return_tensors="pt"``) is checked in a module that imports no torch.
    Where it is reported:
        A maximum (or minimum) computed in the function that sizes or pads a tensor with it is
        reported at each such tensor (``ids = torch.zeros(len(batch), n)``, ``F.pad(x, (0, n - len(x)))``: where
        the varying shape is made, the message naming the maximum's line; one finding a line when two maxima size
        it); the other places -- a list padded in Python, a numpy buffer, a slice, a crop -- once: at the one such place, at
        the first numpy array padded to it (``np.pad(spec, ((0, 0), (0, max_t - t)))`` in a collate
        function, where the batch's varying shape is made, when it sizes no numpy batch buffer, ``np.zeros((n, m))``), or, when
        there are several and none is an array, on the line that computes it -- the line a fixed length or a bucket replaces -- the
        message naming them (``the batch maximum max(len(s) for s in batch) pads a list at line 14 and pads a
        list at line 17``). A maximum handed down to one of the file's functions that makes a torch tensor of it
        (``padded = _pad_series(series, max_len)``, the helper's ``torch.full((n, max_len), ...)``) is reported at
        that call, once per caller (where the caller's batch is padded; a call outside a loop or comprehension:
        a helper given one item at a time is reported at the maximum); handed down otherwise
        (``[pad_to(x, m) for x in items]``: ``sizes new_zeros() at line 4 (in pad_to())``,
        one finding per caller's maximum) or kept in ``self.max_len`` for another method, on its line. A maximum that sizes
        nothing (only printed or logged) is not reported.
        When the maximum comes from elsewhere (a helper of the file returns it), the first line it sizes is
        reported; the call of a helper that pads its items to their longest is reported at the call, naming
        the helper and, for a helper of another module of the project (found through the project index), the
        chain to the maximum inside it (a maximum that helper hands to a helper of its own file padding up to a
        parameter counts: ``prepare_data`` computing ``max_len`` for ``_pad_data(x, max_len)``'s ``np.pad``).
        A list of per-level maxima starred into an allocation counts (``sizes.append(max(len(y) for y in x))``
        then ``torch.LongTensor(b, *sizes)`` or ``xs[0].new(n, *sizes)``), so does the shortest item's length
        spread as arguments (``min(*[d.shape[0] for d in data])``) and the maximum of the counts a loop records
        per sample of what it made (``counts.append(torch.tensor(len(frames)))``, ``frames`` made anew in it).
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
    node_types = (ast.Call, ast.Subscript, ast.BinOp)
    triggers = ("pad_sequence", "pad_packed_sequence", "padding", "Padding", "max(", "_max", "min(", ".pad(",
                "max_len", "maxlen", "max_", "longest", "to_padded_tensor", "pad_across_processes", "DataCollatorFor", "sorted(", "sort(")   # the names a running maximum kept by hand goes by
    kinds = (BATCH_MAX,)
    message = "{what}: the padded length changes with every batch, and every new length recompiles on NPU; pad to a fixed length or a few buckets"
    must_fire = ("import torch\nfrom torch.nn.utils.rnn import pad_sequence\nx = pad_sequence(seqs, batch_first=True)\n",
                 # session 21 (padllm21): the longer of the chosen and rejected sequences (a DPO / reward trainer)
                 "import torch\nimport torch.nn.functional as F\ndef concat(chosen_ids, reject_ids):\n"
                 "    m = max(chosen_ids.shape[1], reject_ids.shape[1])\n"
                 "    return torch.cat([F.pad(chosen_ids, (0, m - chosen_ids.shape[1])),\n"
                 "                      F.pad(reject_ids, (0, m - reject_ids.shape[1]))])\n",
                 # a tokenizer's pad() without return_tensors, PaddingStrategy.LONGEST, TRL's collators and pad()
                 "import torch\ndef collate(self, features):\n    return self.tokenizer.pad(features)\n",
                 "from transformers.utils import PaddingStrategy\ndef enc(tokenizer, texts):\n"
                 "    return tokenizer(texts, padding=PaddingStrategy.LONGEST)\n",
                 "from trl import DataCollatorForCompletionOnlyLM\ncollator = DataCollatorForCompletionOnlyLM('### A:', "
                 "tokenizer=tok)\n",
                 "from trl import DPODataCollatorWithPadding\ncollator = DPODataCollatorWithPadding(pad_token_id=0)\n",
                 "from trl.trainer.utils import pad\ndef collate(ids):\n    return pad(ids, padding_value=0)\n",
                 # a class of the file deriving from a library collator
                 "from transformers import DataCollatorForSeq2Seq\nclass Collator(DataCollatorForSeq2Seq):\n"
                 "    pass\ncollator = Collator(tok, pad_to_multiple_of=8)\n",
                 # padding="max_length" up to the batch's own longest item
                 "import torch\ndef enc(tokenizer, texts):\n    m = max(len(t) for t in texts)\n"
                 "    return tokenizer(texts, padding='max_length', max_length=m, return_tensors='pt')\n",
                 # a helper packing items to the max of a tensor of lengths (compared with positions): its call
                 "import torch\ndef pack(x, sizes):\n    m = int(sizes.max().item())\n"
                 "    out = x.new_full((len(sizes) * m, x.size(-1)), 0.0)\n"
                 "    mask = torch.arange(m, device=x.device).unsqueeze(0).repeat(len(sizes), 1)\n"
                 "    mask = mask < sizes.unsqueeze(-1)\n    out[mask.view(-1)] = x\n    return out\n"
                 "def step(model, x, sizes):\n    return model(pack(x, sizes))\n",
                 # library calls padding to the longest: nested tensors, Accelerate across the processes
                 "import torch\ndef step(batch):\n    return [t.to_padded_tensor(padding=0.0) for t in batch]\n",
                 "import torch\ndef step(nt):\n    return torch.nested.to_padded_tensor(nt, 0.0)\n",
                 "import torch\ndef gather(accelerator, out):\n    out = accelerator.pad_across_processes(out, dim=1, pad_index=0)\n"
                 "    return accelerator.gather(out)\n",
                 # the longest across the ranks: a size reduced with MAX, read back, pads the local tensor
                 "import torch\nimport torch.distributed as dist\nimport torch.nn.functional as F\ndef pad(x):\n"
                 "    n = torch.tensor(x.size(1), device=x.device)\n    dist.all_reduce(n, op=dist.ReduceOp.MAX)\n"
                 "    total = n.item()\n    amount = total - x.size(1)\n    return F.pad(x, (0, 0, 0, amount))\n",
                 # the amount to pad kept in a tuple, from the largest of a tensor of lengths (a 0-d tensor)
                 "import torch\nimport torch.nn.functional as F\ndef collate_fn(batch):\n"
                 "    lengths = torch.LongTensor([x.shape[-1] for x in batch])\n    longest = lengths.amax()\n"
                 "    out = []\n    for x in batch:\n        amount = (0, longest - x.size(-1))\n"
                 "        out.append(F.pad(x, amount, value=0))\n    return torch.stack(out)\n",
                 # a method of the class that pads its items to their longest, called on self
                 "import torch\nclass Model(torch.nn.Module):\n    @staticmethod\n    def pad2d(rows):\n"
                 "        m = max([len(r) for r in rows])\n        return [r + [0.0] * (m - len(r)) for r in rows]\n"
                 "    def forward(self, rows):\n        return torch.tensor(self.pad2d(rows))\n",
                 # an RNN's packed output padded back to the batch's longest sequence
                 "import torch.nn.utils.rnn as rnn_utils\ndef run(gru, x, lengths):\n"
                 "    packed = rnn_utils.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)\n"
                 "    out, _ = gru(packed)\n    out, _ = rnn_utils.pad_packed_sequence(out, batch_first=True)\n"
                 "    return out\n",
                 # pad_sequence chosen by a test; the maximum over every image of every sample
                 "import torch\ndef collate(batch, right, left_pad):\n"
                 "    pad_fn = torch.nn.utils.rnn.pad_sequence if right else left_pad\n"
                 "    return pad_fn([torch.tensor(x) for x in batch], batch_first=True)\n",
                 "import torch\nimport torch.nn.functional as F\ndef collate(batch):\n"
                 "    m = max(img.shape[0] for s in batch for img in s['images'])\n"
                 "    return [F.pad(img, (0, 0, 0, m - img.shape[0])) for s in batch for img in s['images']]\n",
                 # the parts of each item: indexed by an inner counter, or a tensor's size over nested tuples
                 "import torch\nimport torch.nn.functional as F\ndef pad_chunks(samples, k):\n"
                 "    m = max([len(s[n]) for s in samples for n in range(k)])\n"
                 "    return [F.pad(s[n], (0, m - len(s[n]))) for s in samples for n in range(k)]\n",
                 "import torch\ndef collate(b):\n    m = max([x.shape[0] for xs in b for x in xs])\n"
                 "    return torch.zeros(len(b), m)\n",
                 # the largest of the items' shapes gathered in a loop, per axis
                 "import numpy as np\nimport torch\ndef collate(batch):\n    shapes = []\n    for elem in batch:\n"
                 "        shapes.append(elem.shape[1:])\n    top = np.array(shapes).max(axis=0)\n"
                 "    return torch.zeros(len(batch), *top)\n",
                 "import torch\nenc = tokenizer(texts, padding=True, return_tensors='pt')\n",
                 "import torch\nfrom transformers import DataCollatorWithPadding\ncollate = DataCollatorWithPadding(tokenizer)\n",
                 "import torch\ndef collate(batch):\n    max_len = max(len(s) for s in batch)\n"
                 "    out = torch.zeros(len(batch), max_len, dtype=torch.long)\n    return out\n",
                 "import torch\ndef nested(tensor_list):\n    max_size = _max_by_axis([list(img.shape) for img in tensor_list])\n"
                 "    batch_shape = [len(tensor_list)] + max_size\n    return torch.zeros(batch_shape)\n",
                 # the maximum computed by the file's own helper
                 "import torch\ndef longest(batch):\n    return max(len(s) for s in batch)\n"
                 "def collate(batch):\n    out = torch.zeros(len(batch), longest(batch), dtype=torch.long)\n    return out\n",
                 # each item padded with F.pad up to the batch's longest
                 "import torch\nimport torch.nn.functional as F\ndef collate(items):\n"
                 "    n = max(x.shape[0] for x in items)\n    return torch.stack([F.pad(x, (0, 0, 0, n - x.shape[0])) for x in items])\n",
                 "import torch\ndef pad_batch(items):\n    longest = max(x.size(0) for x in items)\n"
                 "    out = items[0].new_zeros(len(items), longest)\n    for i, x in enumerate(items):\n"
                 "        out[i, :len(x)] = x\n    return out\ndef collate(batch):\n    return pad_batch(batch)\n",
                 # the helper as a parameter's default
                 "import torch\ndef pad_batch(items):\n    longest = max(x.size(0) for x in items)\n"
                 "    return torch.zeros(len(items), longest)\ndef collate(batch, pad=pad_batch):\n    return pad(batch)\n",
                 # the maximum of a list of lengths, and a running maximum in a loop over the items
                 "import torch\ndef collate(batch):\n    lengths = [len(x['ids']) for x in batch]\n"
                 "    return torch.full((len(batch), max(lengths)), 0)\n",
                 "import torch\ndef collate(batch):\n    n = 0\n    for ids in batch:\n        n = max(n, len(ids))\n"
                 "    return torch.zeros(len(batch), n)\n",
                 # token lists padded in Python to the longest, then made a tensor
                 "import torch\ndef collate(batch):\n    m = max(len(ids) for ids in batch)\n"
                 "    return torch.tensor([ids + [0] * (m - len(ids)) for ids in batch])\n",
                 # every item cropped to the shortest of the batch
                 "import torch\ndef collate(batch):\n    n = min(len(x) for x in batch)\n"
                 "    return torch.stack([x[:n] for x in batch])\n",
                 # token lists padded in Python to the longest string of the chunk (len(max(items, key=len)))
                 "import torch\ndef encode(chunk, pad):\n    longest = len(max(chunk, key=len))\n    rows = []\n"
                 "    for s in chunk:\n        ids = [ord(c) for c in s]\n        ids += [pad] * (longest - len(s))\n"
                 "        rows.append(ids)\n    return torch.tensor(rows)\n",
                 # a numpy buffer of the batch's longest, handed to torch
                 "import torch\nimport numpy as np\ndef collate(batch):\n    m = max(map(len, batch))\n"
                 "    out = np.zeros((len(batch), m), dtype=np.int64)\n    return torch.from_numpy(out)\n",
                 # a tokenizer's pad() pads to the longest by default; padding held in an attribute
                 "import torch\ndef collate(self, features):\n    return self.tokenizer.pad(features, return_tensors='pt')\n",
                 "import torch\nclass Collate:\n    def __init__(self, tok, padding='longest'):\n"
                 "        self.tok, self.padding = tok, padding\n    def __call__(self, texts):\n"
                 "        return self.tok(texts, padding=self.padding, return_tensors='pt')\n",
                 # a collator dataclass whose padding field defaults to True
                 "import torch\nfrom dataclasses import dataclass\n@dataclass\nclass Collator:\n    tokenizer: object\n"
                 "    padding: bool = True\n    def __call__(self, features):\n"
                 "        return self.tokenizer.pad(features, padding=self.padding, return_tensors='pt')\n",
                 # a subclass of Hugging Face's collator reads its padding field (True: the longest) through
                 # the class hierarchy: a base of this file, then the library's default (rule_tables/class_defaults.tsv)
                 "import torch\nfrom dataclasses import dataclass\nfrom transformers import DataCollatorWithPadding\n"
                 "@dataclass\nclass Base(DataCollatorWithPadding):\n    query_max_len: int = 32\n"
                 "class Pairs(Base):\n    def __call__(self, features):\n"
                 "        return self.tokenizer.pad(features, padding=self.padding, max_length=self.query_max_len,\n"
                 "                                  return_tensors='pt')\n",
                 # the largest of the items' lengths held in a tensor, sizing a mask; a tensor cut to the longest
                 "import torch\ndef make_pad_mask(seqs):\n    lengths = torch.tensor([len(s) for s in seqs])\n    max_len = int(lengths.max())\n"
                 "    return torch.arange(max_len)[None, :] < lengths[:, None]\n",
                 "import torch\ndef collate(batch):\n    lens = torch.tensor([len(b) for b in batch])\n"
                 "    m = lens.max().item()\n    return torch.zeros(len(batch), m)\n",
                 "import torch\ndef trim(batch, ids):\n    m = max(len(x) for x in batch)\n    return ids[:, :m]\n",
                 # the file's helper given the batch maximum inside a comprehension (reported at the maximum)
                 "import torch\ndef pad_to(x, n):\n    return torch.cat([x, x.new_zeros(n - x.shape[0])])\n"
                 "def collate(items):\n    m = max(len(x) for x in items)\n"
                 "    return torch.stack([pad_to(x, m) for x in items])\n",
                 # the maximum of lengths gathered with map(), and of a tensor of lengths read back
                 "import torch\ndef collate(xs):\n    lens = list(map(len, xs))\n"
                 "    return torch.zeros(len(xs), max(lens))\n",
                 "import torch\ndef collate(xs):\n    lengths = torch.LongTensor([x.shape[0] for x in xs])\n"
                 "    t = torch.max(lengths).item()\n    return torch.zeros(len(xs), t)\n",
                 # padding=True handed over in a dict of keyword arguments
                 "import torch\ndef encode(processor, texts):\n    kw = {'text': texts, 'padding': True, 'return_tensors': 'pt'}\n"
                 "    return processor(**kw)\n",
                 # the longest item picked by its size, whose sizes size the batch; a size or a constant per item
                 "import torch\ndef collate_vectors(tensors, pad):\n    longest = max(tensors, key=lambda t: t.shape[0])\n"
                 "    out = longest.new_ones(len(tensors), longest.shape[0]) * pad\n    for i, t in enumerate(tensors):\n"
                 "        out[i, :t.shape[0]] = t\n    return out\n",
                 "import numpy as np\nimport torch\ndef pad_sequences(seqs, maxlen=None):\n"
                 "    seq_len = maxlen or max(seqs, key=len).shape[-1]\n    return np.full((len(seqs), seq_len), np.nan)\n",
                 "import torch\ndef stack(arrs):\n    largest = max(arrs, key=torch.numel)\n"
                 "    return torch.zeros((len(arrs), *largest.shape))\n",
                 "import torch\ndef collate(audios):\n    c = max(a.shape[0] if a.dim() == 2 else 1 for a in audios)\n"
                 "    return [a.new_zeros(c, a.shape[-1]) for a in audios]\n",
                 # a helper of another module given the batch maximum
                 "import torch\nfrom .utils import pad_to_length\ndef collate(batch):\n"
                 "    m = max(len(x) for x in batch)\n    return torch.stack([pad_to_length(x, m) for x in batch])\n",
                 # a legacy typed constructor sized by the batch maximum
                 "import torch\ndef get_float_tensor(features_list, batch_size):\n"
                 "    seq_len = max(len(x) for x in features_list)\n"
                 "    return torch.FloatTensor(batch_size, seq_len, 8).zero_()\n",
                 # numpy padding up to the batch maximum in a helper of the file (a collate function's array)
                 "import numpy as np\nimport torch\ndef _pad_data(x, length):\n"
                 "    return np.pad(x, (0, length - x.shape[0]), mode='constant')\n"
                 "def prepare_data(inputs):\n    max_len = max(len(x) for x in inputs)\n"
                 "    return torch.from_numpy(np.stack([_pad_data(x, max_len) for x in inputs]))\n",
                 # arithmetic of each item's length (end tokens, a multiple); the longest with a floor
                 "import torch\ndef collate(batch):\n    lens = [len(s) + 2 for s in batch]\n"
                 "    return torch.zeros(len(batch), max(lens))\n",
                 "import torch\ndef collate(spans):\n    counts = [s.size(0) if s.numel() > 0 else 0 for s in spans]\n"
                 "    return torch.zeros(len(spans), max(*counts, 1))\n",
                 # the length each item records of itself (a field unpacked from the item, a length key)
                 "import torch\ndef collate(batch):\n    audio_lengths = [audio_len for _, audio_len in batch]\n"
                 "    return torch.zeros(len(batch), max(audio_lengths))\n",
                 "import torch\ndef collate(batch):\n    m = max(s['length'] for s in batch)\n"
                 "    return torch.zeros(len(batch), m)\n",
                 # sliding windows over the longest wave: the last window start and the count of windows
                 "import torch\ndef segment(wavs, hop, win):\n    max_len = max([len(w) for w in wavs])\n"
                 "    starts = list(range(0, max_len, hop))\n    padded = starts[-1] + win\n"
                 "    return [torch.cat([w, w.new_zeros(padded - len(w))]) for w in wavs]\n",
                 "import torch\ndef trim(h, wavs, rate):\n    max_len = max(len(w) for w in wavs)\n"
                 "    n = len(range(0, max_len, rate))\n    return h[:, :n]\n",
                 # the running maximum kept by hand in a loop over the items
                 "import torch\ndef collate(samples):\n    max_len = 0\n    for s in samples:\n"
                 "        if len(s) > max_len:\n            max_len = len(s)\n"
                 "    return torch.full((len(samples), max_len), 0)\n",
                 "import torch\ndef collate(feats):\n    longest = 0\n    for f in feats:\n"
                 "        if longest < f.size(0):\n            longest = f.size(0)\n"
                 "    return feats[0].new_zeros(len(feats), longest, 80)\n",
                 # the first item of the batch sorted longest first (in place, or by ``sorted``)
                 "import torch\ndef collate_fn(batch):\n    batch.sort(key=lambda x: len(x['input_ids']), reverse=True)\n"
                 "    max_len = len(batch[0]['input_ids'])\n    out = []\n    for item in batch:\n"
                 "        pad = max_len - len(item['input_ids'])\n"
                 "        out.append(torch.cat([item['input_ids'], torch.zeros(pad, dtype=torch.long)]))\n"
                 "    return torch.stack(out)\n",
                 "import torch\ndef collate_fn(batch, pad_id):\n    batch = sorted(batch, key=lambda x: len(x[0]), reverse=True)\n"
                 "    max_len = len(batch[0][0])\n"
                 "    return torch.tensor([b[0] + [pad_id] * (max_len - len(b[0])) for b in batch])\n",
                 # a list of per-level maxima starred into the allocation (stanza's get_long_tensor)
                 "import torch\ndef get_long_tensor(tokens_list, batch_size):\n    sizes = []\n    x = tokens_list\n"
                 "    while isinstance(x[0], list):\n        sizes.append(max(len(y) for y in x))\n"
                 "        x = [z for y in x for z in y]\n    return torch.LongTensor(batch_size, *sizes).fill_(0)\n",
                 # the count of what each sample's loop made (FunASR's CIF: frames fired per sample), padded to
                 "import torch\ndef fire(alphas, h, thr, n, d):\n    counts, frames = [], []\n    for b in range(n):\n"
                 "        got = []\n        for t in range(alphas.size(1)):\n            if alphas[b][t] > thr:\n"
                 "                got.append(h[b][t])\n        counts.append(torch.tensor(len(got)))\n"
                 "        frames.append(got)\n    m = max(counts)\n"
                 "    return [torch.zeros((m - counts[b], d)) for b in range(n)]\n",
                 "import torch\ndef pad_list(xs, v):\n    dims = []\n    for i in range(xs[0].dim()):\n"
                 "        dims.append(max(x.size(i) for x in xs))\n    return xs[0].new(len(xs), *dims).fill_(v)\n",
                 # the shortest item's length spread as arguments, every item cut to it
                 "import torch\ndef collate(data):\n    n = min(*[d.shape[0] for d in data])\n"
                 "    return torch.stack([d[:n] for d in data])\n")
    must_not_fire = (# session 21 (padllm21): the larger of two sizes of the module's own state; an image's or an
                     # array's pad(); padding="max_length" up to a configured length; PaddingStrategy.MAX_LENGTH
                     "import torch.nn.functional as F\ndef f(self, x):\n"
                     "    m = max(self.weight.shape[0], self.bias.shape[0])\n    return F.pad(x, (0, m - x.size(1)))\n",
                     "import torch\nimport numpy as np\nfrom PIL import ImageOps\ndef f(img, a):\n"
                     "    return ImageOps.pad(img, (224, 224)), np.pad(a, 2)\n",
                     "import torch\ndef enc(tokenizer, texts, cfg):\n    return tokenizer(texts, padding='max_length', "
                     "max_length=cfg.max_len, truncation=True, return_tensors='pt')\n",
                     "from transformers.utils import PaddingStrategy\ndef enc(tokenizer, texts):\n"
                     "    return tokenizer(texts, padding=PaddingStrategy.MAX_LENGTH, max_length=512)\n",
                     # a collator subclass given a fixed length; a class deriving from no collator
                     "from transformers import DataCollatorForSeq2Seq\nclass Collator(DataCollatorForSeq2Seq):\n"
                     "    pass\nclass Other:\n    pass\n"
                     "c = Collator(tok, padding='max_length', max_length=512)\no = Other()\n",
                     # the length of a list made once, outside the loop that records it
                     "import torch\ndef f(self, n, d):\n    counts = []\n    window = self.window\n"
                     "    for b in range(n):\n        counts.append(len(window))\n    m = max(counts)\n"
                     "    return torch.zeros((n, m, d))\n",
                     # a list of configured sizes starred into the allocation
                     "import torch\ndef alloc(batch_size, cfg):\n    sizes = []\n    for k in cfg.keys:\n"
                     "        sizes.append(cfg.lengths[k])\n    return torch.zeros(batch_size, *sizes)\n",
                     "import torch\nenc = tokenizer(texts, padding='max_length', max_length=128)\n",
                     # the max of a tensor not seen to hold lengths (class ids): a value read back (NPU403)
                     "import torch\ndef onehot(labels):\n    n = int(labels.max().item()) + 1\n"
                     "    return torch.zeros(len(labels), n)\n",
                     # a fixed output size; a project's own function of that name
                     "import torch\ndef step(nt, n):\n    return torch.nested.to_padded_tensor(nt, 0.0, (n, 128))\n",
                     "import torch\ndef step(nt, n):\n    return nt.to_padded_tensor(0.0, output_size=(n, 128))\n",
                     "def pad_across_processes(x, dim=0):\n    return x\ndef f(out):\n"
                     "    return pad_across_processes(out, dim=1)\n",
                     # a MAX all-reduce of a flag, not of a size
                     "import torch\nimport torch.distributed as dist\ndef f(loss):\n"
                     "    bad = torch.tensor(float(loss.isnan().any()))\n    dist.all_reduce(bad, op=dist.ReduceOp.MAX)\n"
                     "    return torch.zeros(4)[: int(bad.item())]\n",
                     # a layer built with a "same padding" flag, a record with a padding field: no text padded
                     "import torch\nclass Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                     "        self.block = ConvBlock(64, 128, kernel_size=3, padding=True)\n",
                     "import torch\ndef meta(batch):\n    return SampleInfo(name=batch.name, padding=True)\n",
                     # padded back to the input's own length: the shape the batch came in with
                     "import torch\nfrom torch.nn.utils.rnn import pad_packed_sequence\ndef run(rnn, packed, x):\n"
                     "    out, _ = rnn(packed)\n"
                     "    return pad_packed_sequence(out, batch_first=True, total_length=x.size(1))[0]\n",
                     # a difference of two lengths of each item is an offset (a line's indentation), no length
                     "import torch\ndef dedent(lines):\n    m = min(len(l) - len(l.lstrip()) for l in lines)\n"
                     "    return [l[m:] for l in lines]\n",
                     # an item's field that says nothing of its length (a label, a position)
                     "import torch\ndef collate(batch):\n    c = max(s['label'] for s in batch)\n"
                     "    k = max(s[1] for s in batch)\n    return torch.zeros(c + 1), torch.zeros(k)\n",
                     # the best item by a score, not by its size
                     "import torch\ndef f(boxes):\n    best = max(boxes, key=lambda b: b.score)\n"
                     "    return torch.zeros(best.shape[0], 4)\n",
                     # the cells of a grid (not each item's parts)
                     "import torch\ndef f(grid):\n    m = max(len(c) for row in grid for c in row)\n"
                     "    return torch.zeros(m)\n",
                     "import torch\ndef f(grid):\n    m = max(len(c) for row in grid for c in row[1:])\n"
                     "    return torch.zeros(m)\n",
                     "import numpy as np\nimport torch\ndef f(layers):\n    widths = []\n    for layer in layers:\n"
                     "        widths.append(layer.width)\n    return torch.zeros(np.array(widths).max(axis=0))\n",
                     "import torch\nfrom transformers import DataCollatorWithPadding\n"
                     "collate = DataCollatorWithPadding(tokenizer, padding='max_length', max_length=256)\n",
                     "import torch\nconv = torch.nn.Conv2d(3, 8, 3, padding=1)\n",
                     "import torch\nconv = ConvModule(3, 8, 3, padding=1)\n",
                     "import torch\nn = max(a, b)\nbuf = torch.zeros(n)\n",
                     # a maximum over the items' lengths only as a fill value
                     "import torch\ndef collate(batch):\n    m = max(len(s) for s in batch)\n"
                     "    return torch.full((len(batch), 128), m)\n",
                     "import torch\nimport torch.nn.functional as F\ndef f(x, k):\n    return F.pad(x, (0, k))\n",
                     # a maximum of two values, a per-item length, a padding to a fixed length
                     "import torch\ndef f(items):\n    for x in items:\n        n = max(len(x), 8)\n"
                     "        print(x[:n])\n",
                     "import torch\ndef collate(batch):\n    return torch.tensor([ids + [0] * (128 - len(ids)) for ids in batch])\n",
                     "import torch\ndef collate(self, features):\n"
                     "    return self.tokenizer.pad(features, padding='max_length', max_length=64, return_tensors='pt')\n",
                     # the class (or a base between it and the library's) sets a fixed padding; a library base the
                     # table does not know may set the attribute itself
                     "import torch\nfrom dataclasses import dataclass, field\nfrom transformers import DataCollatorWithPadding\n"
                     "@dataclass\nclass Fixed(DataCollatorWithPadding):\n    padding: str = field(default='max_length')\n"
                     "class Pairs(Fixed):\n    def __call__(self, features):\n"
                     "        return self.tokenizer.pad(features, padding=self.padding, max_length=64, return_tensors='pt')\n",
                     "import torch\nfrom mylib import Collator\nclass Pairs(Collator):\n    def __call__(self, features):\n"
                     "        return self.tokenizer.pad(features, padding=self.padding, max_length=64, return_tensors='pt')\n",
                     "import torch\nclass Collate:\n    def __init__(self, tok, padding='max_length'):\n"
                     "        self.tok, self.padding = tok, padding\n    def __call__(self, texts):\n"
                     "        return self.tok(texts, padding=self.padding, max_length=64, return_tensors='pt')\n",
                     # a batch maximum only logged; the largest of counts (NPU403's), not of lengths
                     "import torch\ndef collate(batch):\n    m = max(len(s) for s in batch)\n"
                     "    print('longest', m)\n    return torch.zeros(len(batch), 128)\n",
                     "import torch\ndef f(counts):\n    return torch.zeros(counts.max().item(), 4)\n",
                     # lengths over nested loops (no batch); a tensor cut to a length the constructor computed
                     "import torch\nimport numpy as np\ndef f(overlaps):\n"
                     "    end_lens = [len(v) for p in overlaps.values() for v in p.values()]\n"
                     "    return np.full((4, max(end_lens)), -1)\n",
                     "import torch\nclass Stop:\n    def __init__(self, stops):\n        self.n = max(len(s) for s in stops)\n"
                     "    def __call__(self, ids):\n        return ids[:, -self.n:]\n",
                     # a dict of keyword arguments padding to a fixed length; one never handed to a call
                     "import torch\ndef encode(tok, texts):\n    kw = {'padding': 'max_length', 'max_length': 64}\n"
                     "    return tok(texts, **kw)\n",
                     "import torch\nDEFAULTS = {'text_kwargs': {'padding': True}}\n",
                     # numpy slicing and a constant bound
                     "import torch\nimport numpy as np\ndef f(batch):\n    n = min(len(x) for x in batch)\n"
                     "    return np.zeros((4, 100))[:, :n]\n",
                     # windows over a fixed length; a loop over the starts of the windows (an index, no size)
                     "import torch\ndef segment(wav, hop, win):\n    starts = list(range(0, 16000, hop))\n"
                     "    return wav.new_zeros(starts[-1] + win)\n",
                     "import torch\ndef segment(wavs, hop):\n    max_len = max(len(w) for w in wavs)\n"
                     "    for s in range(0, max_len, hop):\n        print(s)\n    return wavs\n",
                     # a cap on each item (the test is against a limit the loop never raises); a maximum only logged
                     "import torch\ndef collate(samples, max_len):\n    for s in samples:\n"
                     "        if len(s) > max_len:\n            s = s[:max_len]\n"
                     "    return torch.zeros(len(samples), max_len)\n",
                     "import torch\ndef collate(samples):\n    max_len = 0\n    for s in samples:\n"
                     "        if len(s) > max_len:\n            max_len = len(s)\n    print(max_len)\n"
                     "    return torch.zeros(len(samples), 128)\n",
                     # sorted by the source, the target of the first item is not the longest target; sorted
                     # shortest first, the first item is not the longest
                     "import torch\ndef collate_fn(batch):\n    batch.sort(key=lambda x: len(x[0]), reverse=True)\n"
                     "    max_len = len(batch[0][1])\n    return torch.zeros(len(batch), max_len)\n",
                     "import torch\ndef collate_fn(batch):\n    batch.sort(key=lambda x: len(x[0]))\n"
                     "    max_len = len(batch[0][0])\n    return torch.zeros(len(batch), max_len)\n")

    # session 20 (concat20b): a list padded to a tensor's maximum read back (read_maxima.py); one maximum sizing
    # two tensors of its function is reported once, at the maximum
    must_fire += (  # the running maximum kept by hand through a name: a length of the item just appended
                  "import torch\ndef batch(texts, tok, device):\n    ids, longest = [], 0\n    for t in texts:\n"
                  "        ids.append(tok(t, return_tensors='pt')['input_ids'].squeeze(0))\n        n = ids[-1].size(0)\n"
                  "        if n > longest:\n            longest = n\n"
                  "    return torch.zeros(len(ids), longest, device=device)\n",
                  "import torch\ndef batch(seqs):\n    longest = 0\n    for s in seqs:\n        n = len(s)\n"
                  "        longest = max(longest, n)\n    return torch.zeros(len(seqs), longest)\n")
    must_not_fire += (  # ... not of values that are no lengths of the items (a configured size per level)
                      "import torch\ndef grid(self, levels):\n    widest = 0\n    for i in range(levels):\n"
                      "        n = self.sizes[i]\n        if n > widest:\n            widest = n\n"
                      "    return torch.zeros(levels, widest)\n",)
    must_fire += ("import torch\ndef targets(per, lengths):\n    for t in per:\n"
                  "        t += [0] * (int(lengths.max().item()) - len(t))\n    return torch.tensor(per)\n",
                  "import torch\nimport torch.nn.functional as F\ndef stack(es, ms):\n"
                  "    m = max(e.size(1) for e in es)\n    es = [F.pad(e, (0, m - e.size(1))) for e in es]\n"
                  "    ms = [F.pad(x, (0, m - x.size(1))) for x in ms]\n    return torch.stack(es), torch.stack(ms)\n")
    must_not_fire += (  # numpy's maximum (host data), a maximum of a slice (a fixed count)
        "import numpy as np\nimport torch\ndef f(per, lengths):\n    lengths = np.array(lengths)\n"
        "    for t in per:\n        t += [0] * (int(lengths.max()) - len(t))\n    return per\n",
        "import torch\ndef f(per, k):\n    for t in per:\n        t += [0] * (k - len(t))\n    return per\n")

    # session 22 (values22), broad path: the padding is the trigger -- a list or F.pad up to a maximum the
    # function takes of values the model cannot type (each item's recorded count, a parameter's lists, a list
    # built in a loop); a tokenizer asked for torch tensors in a module that imports no torch
    must_fire += ("import torch\ndef collate(batch, device):\n    nums = [inst.word_num for inst in batch]\n"
                  "    m = max(nums)\n    rows = [[1] * i.word_num + [0] * (m - i.word_num) for i in batch]\n"
                  "    return torch.LongTensor(rows).to(device)\n",
                  "import torch\ndef idxs(token_lens):\n    width = max([max(x) for x in token_lens])\n    out = []\n"
                  "    for lens in token_lens:\n        row = []\n        for n in lens:\n"
                  "            row.extend([-1] * (width - n))\n        out.append(row)\n    return out\n",
                  "import torch\nimport torch.nn.functional as F\ndef collate(batch):\n    lens = []\n"
                  "    for b in batch:\n        lens.append(b['n'])\n    m = max(lens)\n"
                  "    return torch.stack([F.pad(b['x'], (0, m - b['n'])) for b in batch])\n",
                  "def detect(self, texts):\n"
                  "    return self.processor(texts, padding='longest', truncation=True, return_tensors='pt')\n")
    must_not_fire += (  # a fixed maximum (a literal, a module constant), a constant subtracted, the longer of two
        "import torch\ndef f(rows):\n    m = max([16, 32])\n    return torch.tensor([r + [0] * (m - len(r)) for r in rows])\n",
        "import torch\nSIZES = [16, 32]\ndef f(rows):\n    m = max(SIZES)\n"
        "    return torch.tensor([r + [0] * (m - len(r)) for r in rows])\n",
        "import torch\ndef f(rows, sizes):\n    m = max(sizes)\n    return torch.tensor([[0] * (m - 1) for r in rows])\n",
        "import torch\ndef f(r, a, b):\n    m = max(a, b)\n    return torch.tensor(r + [0] * (m - len(r)))\n",
        "def detect(self, texts):\n    return self.processor(texts, padding='longest', return_tensors='np')\n")

    # session 21 (padmax21): the maximum of a stack or tensor of the items' sizes (``.max(0)`` along an axis,
    # ``torch.max(torch.stack([...]).float())``), read back from a name (``int(m)``, ``int(m[0])`` of
    # ``.max(0).values``), and ``max(lens)`` of lengths compared with positions (the lengths-to-mask idiom)
    must_fire += ("import torch\ndef collate(batch):\n    m = sorted(len(b) for b in batch)[-1]\n"
                  "    return torch.zeros(len(batch), m)\n",
                  "import torch\ndef collate(batch):\n    lens = [len(b) for b in batch]\n"
                  "    m = sorted(lens, reverse=True)[0]\n    return torch.zeros(len(batch), m)\n")
    must_not_fire += ("import torch\ndef f(batch):\n    for n in sorted(len(b) for b in batch):\n        print(n)\n"
                      "    return torch.zeros(len(batch), 64)\n",
                      "import torch\ndef f(names):\n    first = sorted(names)[0]\n    return torch.zeros(4, len(first))\n")
    must_fire += (  # session 27 (recall27a): the first of the items' lengths sorted longest first (Tacotron's collate)
        "import torch\nclass TextMelCollate:\n    def __call__(self, batch):\n"
        "        input_lengths, ids_sorted = torch.sort(\n"
        "            torch.LongTensor([len(x[0]) for x in batch]), dim=0, descending=True)\n"
        "        max_input_len = input_lengths[0]\n"
        "        text_padded = torch.LongTensor(len(batch), max_input_len)\n        text_padded.zero_()\n"
        "        return text_padded, input_lengths\n",
        "import torch\ndef collate(batch):\n    lengths = torch.tensor([x.shape[0] for x in batch])\n"
        "    longest = torch.sort(lengths).values[-1]\n    return torch.zeros(len(batch), int(longest))\n",
    )
    must_not_fire += (  # the first of values sorted that are no lengths; the order (indices) of the sort
        "import torch\ndef top(scores, batch):\n    vals, idx = torch.sort(scores, descending=True)\n"
        "    return torch.zeros(len(batch), int(vals[0]))\n",
        "import torch\ndef collate(batch):\n"
        "    lens, order = torch.sort(torch.LongTensor([len(x) for x in batch]), descending=True)\n"
        "    return [batch[int(i)] for i in order[:1]], torch.zeros(len(batch), 64)\n",
    )
    must_fire += ("from transformers import DataCollatorForLanguageModeling\n"
                  "collate = DataCollatorForLanguageModeling(tokenizer, mlm=True, mlm_probability=0.15)\n",)
    must_not_fire += ("from transformers import DataCollatorWithFlattening, default_data_collator\n"
                      "a = DataCollatorWithFlattening()\nb = default_data_collator\n",)
    must_fire += ("import torch\ndef batch(images):\n"
                  "    m = torch.max(torch.stack([torch.tensor(img.shape[1]) for img in images]).to(torch.float32))\n"
                  "    return images[0].new_zeros(len(images), int(m))\n",
                  "import torch\ndef batch(images, fill):\n"
                  "    m = torch.stack([torch.tensor(img.shape[-2:]) for img in images]).max(0).values\n"
                  "    return images[0].new_full((len(images), 3, int(m[0]), int(m[1])), fill)\n",
                  "import numpy as np\nimport torch\ndef batch(images):\n"
                  "    m = np.stack([img.shape[-2:] for img in images], 0).max(0)\n"
                  "    return torch.zeros(len(images), 3, int(m[0]), int(m[1]))\n",
                  "import torch\ndef length_to_mask(lens):\n    lens = torch.tensor(lens, dtype=torch.long)\n"
                  "    max_len = max(lens)\n    base = torch.arange(max_len).expand(len(lens), max_len)\n"
                  "    return base < lens.unsqueeze(1)\n")
    must_fire += (  # session 21 round 3 (llmsizes21c): a tuple padded like a list (``tuple(ids) + (pad,) * n``)
        "import torch\ndef pad_2d(rows, pad, max_length=None):\n    n = max(len(r) for r in rows)\n"
        "    t = max_length if max_length is not None and max_length > n else n\n"
        "    return torch.tensor([tuple(r) + (pad,) * (t - len(r)) for r in rows])\n",)
    must_not_fire += (  # ... not a tuple repeated a configured number of times
        "import torch\ndef f(rows, pad, size: int):\n    return torch.tensor([tuple(r) + (pad,) * (size - len(r)) for r in rows])\n",)
    must_not_fire += (  # a maximum of a tensor of values, not of sizes; a maximum of lengths never compared with
        # positions; the largest of a stack of scores
        "import torch\ndef f(scores):\n    m = torch.stack([s.max() for s in scores]).max(0).values\n"
        "    return torch.zeros(4, 4) * m\n",
        "import torch\ndef f(lens):\n    lens = torch.tensor(lens)\n    m = max(lens)\n"
        "    return torch.zeros(4, 4), m\n",
        "import torch\ndef f(feats):\n    m = torch.max(torch.stack([f.mean() for f in feats]))\n"
        "    return torch.zeros(4, int(m))\n")
    must_fire += (  # session 23 (values23, max_sizes.py): a size computed from ``max()`` over a sequence, whatever
                    # its items: the longest picked by a key function (openspeech), each axis's longest spread into
                    # ``max`` (FastNLP), pad widths a local helper computes from the maximum (ptls)
        "import torch\ndef collate(batch):\n    def seq_length_(p):\n        return len(p[0])\n"
        "    longest = max(batch, key=seq_length_)[0]\n    return torch.zeros(len(batch), longest.size(0), 80)\n",
        "import torch\ndef pad(fields, pad_val=0):\n    shapes = [f.shape for f in fields]\n"
        "    max_shape = [len(fields)] + [max(*s) for s in zip(*shapes)]\n"
        "    return torch.full(max_shape, fill_value=pad_val)\n",
        "import torch\nimport torch.nn.functional as F\ndef pad_sequence(sequence, alignment):\n"
        "    def get_pad(x, m):\n        return (m - len(x), 0) if alignment == 'left' else (0, m - len(x))\n"
        "    max_len = max(x.size()[0] for x in sequence)\n"
        "    return torch.stack([F.pad(x, get_pad(x, max_len)) for x in sequence])\n",
        "import torch\ncollate = lambda b: torch.zeros(len(b), max(b, key=lambda p: len(p[0]))[0].size(0))\n")
    must_not_fire += (  # ... not the longer of two named values, a literal, a module constant, configuration, a
                        # module's constructor, nor test code
        "import torch\nSIZES = [3, 5]\nclass Net(torch.nn.Module):\n    def __init__(self, ks):\n"
        "        super().__init__()\n        self.ks = ks\n        self.buf = torch.zeros(max(ks))\n"
        "    def forward(self, x, h, w):\n        return torch.zeros(max(h, w)), torch.zeros(max(SIZES)), "
        "torch.zeros(max([1, 2])), torch.zeros(max(k for k in self.ks))\n",
        "import torch\ndef test_pad():\n    xs = [([1, 2], 0), ([3], 1)]\n    m = max(xs, key=lambda p: len(p[0]))[0]\n"
        "    return torch.zeros(2, len(m))\n",
        # the longest word of a vocabulary, kept as the state of a model built once (FastNLP's char embedding)
        "import torch\nfrom .base import TokenEmbedding\nclass CharEmbedding(TokenEmbedding):\n"
        "    def __init__(self, vocab, pad):\n        super().__init__()\n"
        "        longest = max(map(lambda x: len(x[0]), vocab))\n"
        "        self.register_buffer('chars', torch.full((len(vocab), longest), fill_value=pad))\n",
        # the largest field of the samples that measures nothing (a label: NPU405 is about lengths)
        "import torch\ndef collate(samples):\n    n = max(s.num_nodes for s in samples)\n"
        "    return torch.zeros(len(samples), n, n)\n")

    must_fire += (  # session 32 (rec32b): two maxima in one shape tuple (ESM's MSA batch), in one pad width tuple
                    # (tiles padded to the batch's largest height and width); a running maximum named ``max_*_len``
        "import torch\ndef msa(raw_batch):\n    max_alignments = max(len(m) for m in raw_batch)\n"
        "    max_seqlen = max(len(m[0][1]) for m in raw_batch)\n"
        "    return torch.empty((len(raw_batch), max_alignments, max_seqlen + 2))\n",
        "import torch\nimport torch.nn.functional as F\ndef tiles(values):\n    max_h = max(v.shape[0] for v in values)\n"
        "    max_w = max(v.shape[1] for v in values)\n"
        "    return torch.stack([F.pad(v, (0, max_w - v.shape[1], 0, max_h - v.shape[0])) for v in values])\n",
        "import torch\ndef decode(result_list):\n    max_x_len = -1\n    for result in result_list:\n"
        "        if result.size(0) > max_x_len:\n            max_x_len = result.size(0)\n"
        "    return torch.zeros((len(result_list), result_list[0].size(1), max_x_len))\n")
    must_fire += (  # session 32 (rec32b): F.pad's widths kept in a name, up to the maximum of a list built in a loop
        "import torch\nimport torch.nn.functional as F\ndef merge(self, dicts, pad_id):\n    merged, lens = [], []\n"
        "    for d in dicts:\n        m = self.merge_sequences(d)\n        merged.append(m['tensor'])\n"
        "        lens.append(m['tensor'].shape[1])\n    top = max(lens)\n    for i in range(len(merged)):\n"
        "        p1d = (0, top - lens[i])\n        merged[i] = F.pad(merged[i], p1d, 'constant', pad_id)\n"
        "    return torch.cat(merged)\n",)
    must_not_fire += (  # ... nor widths kept in a name up to a setting
        "import torch.nn.functional as F\ndef fixed(self, xs):\n    out = []\n    for x in xs:\n"
        "        p = (0, self.width - x.shape[1])\n        out.append(F.pad(x, p))\n    return out\n",)
    must_fire += (  # session 33 (rec33a): a tokenizer's keyword arguments built entry by entry
        "import torch\nclass T5Tokenizer(Base):\n    def __init__(self, *args, **kwargs):\n"
        "        kwargs['padding'] = 'longest'\n        kwargs['return_tensors'] = 'pt'\n"
        "        super().__init__(*args, **kwargs)\n",)
    must_not_fire += (  # ... not a fixed length, nor a dict with no text encoder's key
        "import torch\nclass T5Tokenizer(Base):\n    def __init__(self, *args, **kwargs):\n"
        "        kwargs['padding'] = 'max_length'\n        kwargs['return_tensors'] = 'pt'\n"
        "        super().__init__(*args, **kwargs)\n",
        "import torch\ndef opts(cfg):\n    cfg['padding'] = 'longest'\n    cfg['mode'] = 'reflect'\n    return cfg\n")
    must_not_fire += (  # ... not a running maximum of configured sizes, nor a tuple of settings
        "import torch\ndef grid(self, levels):\n    max_n = 0\n    for i in range(levels):\n"
        "        if self.sizes[i] > max_n:\n            max_n = self.sizes[i]\n    return torch.zeros((levels, max_n))\n",
        "import torch\ndef f(self, x):\n    return torch.zeros((x.shape[0], self.max_h, self.max_w))\n")

    def check_subscript(self, node: ast.Subscript, ctx: FileContext) -> None:
        """``x[:n]`` with ``n`` the batch's shortest length: each item cropped to it."""
        if isinstance(node.ctx, ast.Store):
            value = longest_entry(node, ctx)
            if value is not None:   # ``kwargs["padding"] = "longest"`` beside ``kwargs["return_tensors"] = "pt"``
                ctx.report(value, self.message.format(what="padding='longest' (a tokenizer's keyword arguments built "
                                                           "entry by entry) pads each batch to its longest item"),
                           "padding")
            return
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        bounds = [b for e in elements if isinstance(e, ast.Slice) for b in (e.lower, e.upper) if b is not None]
        if not bounds or not isinstance(node.ctx, ast.Load):
            return
        origin = self._flow(bounds, node, ctx)
        if origin is not None and not ctx.resolver.is_host(node.value):
            shortest = extreme_side(origin) == "shortest"
            if not shortest and not same_function(origin[1], node, ctx):
                return      # a tensor cut to a longest length computed elsewhere (a configuration's, often)
            self._once(node, origin, "crops each item" if shortest else "slices a tensor",
                       "this slice crops the item to the batch's shortest length" if shortest else
                       "this slice cuts a tensor to the batch's longest length", ctx)

    def check_binop(self, node: ast.BinOp, ctx: FileContext) -> None:
        """``ids + [pad] * (max_len - len(ids))``: a token list padded in Python to the batch's longest."""
        if not isinstance(node.op, ast.Mult):
            return
        for padded, count in ((node.left, node.right), (node.right, node.left)):
            if isinstance(padded, (ast.List, ast.Tuple)) and len(padded.elts) == 1:
                origin = self._flow([count], node, ctx)
                if origin is not None:
                    self._once(node, origin, "pads a list", "this list is padded to the batch maximum", ctx)
                    return
                read = read_maximum(count, ctx)
                if read is not None:   # ``t += [stop] * (int(lengths.max().item()) - len(t))``
                    ctx.report(node, self.message.format(
                        what=f"this list is padded to the maximum read back from a tensor ({short_source(read, 40)}"
                             f", line {read.lineno})"), "padding")
                    return
                break
        self._broad_list(node, ctx)

    def _broad_list(self, node: ast.BinOp, ctx: FileContext) -> None:
        """Session 22 (broad path): ``[0] * (m - x.n)`` / ``[-1] * w * (m - len(x))`` with ``m`` a maximum the
        function takes of values the model cannot type (``max(batch_word_num)``, ``max([max(x) for x in
        lens])``): the padding is the trigger (:mod:`npu_lint.rules.broad_padding`)."""
        count = padded_list(node)
        extreme = padding_maximum(count, node, ctx) if count is not None else None
        if extreme is not None:
            self._once(node, (BATCH_MAX, extreme), "pads a list", "this list is padded to the batch maximum", ctx)

    @staticmethod
    def project_triggers(project) -> frozenset[str]:
        """Files that call a project function padding its items must reach this rule too."""
        return project.padding_names()

    def check(self, node: object, ctx: FileContext) -> None:
        if isinstance(node, ast.Call) and ctx.project is not None:
            helper = project_helper(node, ctx)   # a padding helper of another module (the project index)
            if helper:
                ctx.report(node, self.message.format(what=helper), "padding")
                return
        if isinstance(node, ast.Call) and ctx.uses_torch:
            helper = batch_max_method(node, ctx)   # a method of a project class that pads (this file's or another's)
            if helper:
                ctx.report(node, self.message.format(what=helper), "padding")
                return
        if isinstance(node, ast.BinOp):
            if ctx.uses_torch:
                self.check_binop(node, ctx)
            return
        if not ctx.uses_torch and isinstance(node, ast.Call) and _asks_torch(node):
            # session 22: ``self.processor(texts, padding="longest", return_tensors="pt")`` in a module that imports
            # no torch (the model is loaded elsewhere): the call asks for torch tensors itself
            self.check_call(node, ctx)
            return
        super().check(node, ctx)

    def _once(self, node: ast.AST, origin: tuple, verb: str, what: str, ctx: FileContext) -> None:
        """One finding per batch maximum (or minimum). Computed in the function of the place it sizes, crops or
        pads (``node``), or in a function that hands it down (a caller passing it to a padding helper, a method
        keeping it in ``self.x``), it is reported where it is computed -- the line a fixed length replaces -- and
        the message names every line it sizes; computed in the function of the one place it sizes, at that place
        (where the varying shape is made: moved to the maximum when a second place comes); computed by a helper
        that returns it, at ``node``."""
        if in_assertion(node, ctx):
            return      # the expected value of a test: no batch is built
        extreme = origin[1]
        reported = ctx.scratch.setdefault("batch_max_reported", {})
        sink = f"{verb} at line {node.lineno}"
        here = True     # the maximum is computed in the function it sizes in
        if not same_function(extreme, node, ctx):
            here = False
            function = ctx.enclosing(node, FUNCTION_TYPES)
            if function is not None and passed_down(extreme, node, ctx):
                name = getattr(function, "name", "lambda")
                sink = f"{verb} at line {node.lineno} (in {name}())"   # a caller's maximum: reported there
                call = handing_call(extreme, function, ctx) if _making(verb) else None
                if call is not None:
                    # the helper makes a torch tensor of the maximum the caller hands it: the call is where the
                    # caller's batch is padded (one finding a call, whichever of the helper's tensors comes first)
                    entry = reported.get(id(extreme), ...)
                    if entry is not None:   # None: the maximum was already reported at a sink of its own
                        reported[id(extreme)] = (None if entry is ... else entry[0], [] if entry is ... else entry[1])
                    places = ctx.scratch.setdefault("batch_max_places", set())
                    if id(call) not in places:
                        places.add(id(call))
                        ctx.report(call, self.message.format(
                            what=f"{name}() makes a tensor of the batch maximum handed to it "
                                 f"({origin_text(origin)}, line {extreme.lineno}; {verb} at line {node.lineno})"),
                                   "padding")
                    return
            elif id(extreme) not in reported:
                reported[id(extreme)] = None
                ctx.report(node, self.message.format(what=f"{what} ({origin_text(origin)}, line "
                                                          f"{extreme.lineno})"), "padding")
                return
            else:
                return
        entry = reported.get(id(extreme), ...)
        if entry is None:
            return      # already reported at a sink (the maximum came from elsewhere)
        sinks = [] if entry is ... else entry[1]
        if sink in sinks:
            return
        sinks.append(sink)
        name = "minimum" if extreme_side(origin) == "shortest" else "maximum"
        if here and _making(verb):
            # each tensor it sizes or pads in its own function: one finding, at the maximum -- the line a fixed
            # length replaces, which reviewers mark as often as the padding -- naming every place it makes
            # (session 23; reported at the first tensor before)
            reported[id(extreme)] = (None if entry is ... else entry[0], sinks)
            made = ctx.scratch.setdefault("batch_max_made", {})
            echo = ctx.scratch.get("batch_max_echoes", {}).pop(id(extreme), None)
            if echo is not None:    # a list padded first, echoed at the maximum: this finding stands there now
                ctx.findings[:] = [f for f in ctx.findings if f is not echo]
            making = [s for s in sinks if _making(s) and not s.endswith(")")]
            # a running maximum kept in a loop over the items (``if n > m: m = n``, ``m = max(m, len(s))``) has
            # no line of its own to replace: reported at the first tensor it makes, where reviewers mark it
            # (session 32, rec32b: ChatTTS's tokenizer and decoder)
            running = running_maximum(extreme, node, ctx)
            kept = f" (kept in the loop, line {extreme.lineno})" if running else ""
            text = self.message.format(what=f"the batch {name} {origin_text(origin)}{kept} {_listed(making)}")
            first = made.get(id(extreme))
            made[id(extreme)] = ctx.report(node if running else extreme, text, "padding") if first is None \
                else ctx.amend(first, text)
            return
        # the other places (a list padded in Python, a slice, an array, a helper's tensor): one finding for them all
        listed = [s for s in sinks if not _making(s) or s.endswith(")")]
        echoes = ctx.scratch.setdefault("batch_max_echoes", {})
        if here and len(listed) == 1:   # the one such place so far: reported there
            text = self.message.format(what=f"{what} ({origin_text(origin)}, line {extreme.lineno})")
            reported[id(extreme)] = (ctx.report(node, text, "padding"), sinks)
            if _own_statement(extreme, node, ctx) and id(extreme) not in ctx.scratch.get("batch_max_made", {}):
                # and at the maximum, a statement of its own: the line a fixed length replaces, which reviewers mark
                # as often as the padding (session 24: axolotl's and mistral-inference's collators, both marked at
                # the maximum); one site, two lines of it
                echoes[id(extreme)] = ctx.report(extreme, text, "padding")
            return
        text = self.message.format(what=f"the batch {name} {origin_text(origin)} {_listed(listed)}")
        pads = [s for s in listed if s.startswith(_PAD_PLACES) and not s.endswith(")")]
        buffers = any(s in ctx.scratch.get("batch_max_buffers", ()) for s in listed)   # a batch's array
        if entry is ... or entry[0] is None:
            reported[id(extreme)] = (ctx.report(extreme, text, "padding"), sinks)
        elif here and pads and not buffers:
            # the items padded with np.pad, no batch buffer: the first item padded is where the batch's varying
            # shape is made, rather than the maximum (the other places are named in the message)
            reported[id(extreme)] = (ctx.relocate(entry[0], node, text) if pads[0] == sink else
                                     ctx.amend(entry[0], text), sinks)
        elif len(listed) >= 2 and entry[0].line != extreme.lineno:   # a second place: moved to the maximum
            reported[id(extreme)] = (ctx.relocate(entry[0], extreme, text), sinks)
        else:
            reported[id(extreme)] = (ctx.amend(entry[0], text), sinks)
        echo = echoes.get(id(extreme))
        if echo is not None:    # a second place: the finding names them all; its echo at the maximum says the same
            final = reported[id(extreme)][0]
            if final is not None and final.line == echo.line:
                del echoes[id(extreme)]
                ctx.findings[:] = [f for f in ctx.findings if f is not echo]
            else:
                echoes[id(extreme)] = ctx.amend(echo, text)

    def check_call(self, node: ast.Call, ctx: FileContext) -> None:
        helper = batch_max_helper(node, ctx)    # the call site of a helper of this file that pads (static helper)
        if helper:
            ctx.report(node, self.message.format(what=helper), "padding")
            return
        padding = next((kw.value for kw in node.keywords if kw.arg == "padding"), None)
        last = last_name(node.func)
        if last == "pad_packed_sequence":
            if len(node.args) < 4 and not any(kw.arg in ("total_length", None) for kw in node.keywords) \
                    and ctx.resolver.qualname(node.func) == _PAD_PACKED:
                self._report(node, "pad_packed_sequence() without total_length= pads to the longest sequence in the "
                                   "batch", ctx)
            return
        if last in ("to_padded_tensor", _ACROSS_PROCESSES):
            self._library_longest(node, last, ctx)
            return
        if padding is None and any(kw.arg is None for kw in node.keywords):
            self._kwargs_padding(node, ctx)
        if isinstance(node.func, ast.Name) and _PAD_SEQUENCE in _chosen_functions(node.func, ctx):
            self._report(node, f"{last}() is pad_sequence() in one arm: it pads to the longest sequence in the batch",
                         ctx)
            return
        if padding is None and last == "pad" and isinstance(node.func, ast.Attribute) \
                and (any(kw.arg in _PAD_KEYWORDS for kw in node.keywords) or encodes_text(node, ctx)) \
                and not (ctx.resolver.qualname(node.func) or "").startswith(("torch.", "numpy.")) \
                and ctx.resolver.kind_of(node.func.value) is None:
            # session 21 (padllm21): ``tokenizer.pad(features)`` / ``self.processor.pad(batch)`` without
            # ``return_tensors`` pads to the longest as well (a tensor's or an array's ``pad`` is none)
            self._report(node, "pad() of a tokenizer pads each batch to its longest item (padding=True by default)"
                         + ("" if any(kw.arg == "return_tensors" for kw in node.keywords) else
                            "; give padding=\"max_length\" and a fixed max_length"), ctx)
            return
        if padding is None and last == "pad" and (ctx.resolver.qualname(node.func) or "").startswith("trl."):
            self._report(node, "trl's pad() pads the tensors to the longest of the batch; pad to a fixed length "
                               "with F.pad", ctx)
            return
        if constant(padding) == "max_length" and encodes_text(node, ctx):
            limit = next((kw.value for kw in node.keywords if kw.arg == "max_length"), None)
            origin = self._flow([limit], node, ctx) if limit is not None else None
            if origin is not None:    # session 21: ``max_length=`` the batch's own longest item
                self._report(node, f"padding=\"max_length\" with max_length={unparse(limit)} (the batch maximum, "
                                   f"line {origin[1].lineno}) pads each batch to its longest item", ctx)
                return
        if padding is None and "pad" in last.lower() and last not in _SINK_NAMES and last != "pad_sequence" \
                and not last.endswith(_COLLATORS) and ctx.resolver.definition(node.func) is None:
            origin = self._flow(list(node.args) + [kw.value for kw in node.keywords], node, ctx)
            scope = ctx.enclosing(node, FUNCTION_TYPES)
            if origin is not None and scope is not None and ctx.enclosing(origin[1], FUNCTION_TYPES) is scope:
                # a helper of another module given the batch maximum computed right here
                self._once(node, origin, f"is given to {last}()", f"{last}() is given the batch maximum", ctx)
            return
        if isinstance(node.func, (ast.Name, ast.Attribute)) and padding is None and last[:1].isupper() \
                and not test_code(node, ctx) \
                and (base := _collator_base(node.func, ctx) or _project_collator(node.func, ctx)) is not None:
            # session 21 (padllm21): a project class deriving from a library collator (in this file, or in another
            # module through the index's bases: llamafactory's ``SFTDataCollatorWith4DAttentionMask``) keeps its
            # padding to the longest, unless the class defaults ``padding`` to a fixed length
            self._report(node, f"{last} derives from {base} and pads each batch to its longest item; give "
                               "padding=\"max_length\" and a fixed max_length", ctx)
            return
        if padding is None and last not in _SINK_NAMES and last != "pad_sequence" and not last.endswith(_COLLATORS):
            if ctx.project is not None and ctx.resolver.own_function(node) is None:
                self._project_sizer(node, ctx)
            return
        name = ctx.resolver.qualname(node.func) or ""
        if name == _PAD_SEQUENCE:
            self._report(node, "pad_sequence() pads to the longest sequence in the batch", ctx)
        elif name.startswith(_COLLATOR_LIBRARIES) and name.endswith(_COLLATORS):
            if constant(padding) not in ("max_length", False, "do_not_pad"):
                self._report(node, f"{name.rsplit('.', 1)[-1]} pads each batch to its longest item", ctx)
        elif last.endswith(_COLLATORS) and padding is None and _project_class(node.func, name, ctx) \
                and not test_code(node, ctx):
            # session 21 (padllm21): the project's own copy of a library collator (axolotl's
            # ``DataCollatorForSeq2Seq``): the library's default padding, to the longest
            self._report(node, f"{last} (the project's own collator named as the library's) pads each batch to its longest "
                               "item by default; give padding=\"max_length\" and a fixed max_length", ctx)

        elif name in _NUMPY_FACTORIES:
            origin = self._flow(node.args[:1] + [kw.value for kw in node.keywords if kw.arg == "shape"], node, ctx)
            if origin is not None:
                shape = node.args[0] if node.args else None
                if isinstance(shape, (ast.Tuple, ast.List)) and len(shape.elts) > 1:    # ``np.zeros([B, L_max, 3])``
                    ctx.scratch.setdefault("batch_max_buffers", set()).add(f"sizes {name.replace('numpy.', 'np.')}() "
                                                                           f"at line {node.lineno}")
                self._once(node, origin, f"sizes {name.replace('numpy.', 'np.')}()",
                           "this array is sized by the batch maximum", ctx)
        elif padding is not None and not name.startswith("torch.") and encodes_text(node, ctx) and any(
                v is True or v == "longest" for v in padding_values(padding, node, ctx)):
            self._report(node, f"padding={unparse(padding)} pads each batch to its longest item", ctx)
        elif name == _NP_PAD:   # ``np.pad(x, (0, m - len(x)))`` in a collate function: the batch handed to torch
            for origin in self._flows(node.args[1:2] + [kw.value for kw in node.keywords if kw.arg == "pad_width"],
                                      node, ctx):
                self._once(node, origin, "pads with np.pad()", "this array is padded to the batch maximum", ctx)
        elif name in FACTORIES or name == _F_PAD or (isinstance(node.func, ast.Attribute)
                                                     and node.func.attr in _SIZED_METHODS and not name):
            verb = "pads with F.pad()" if name == _F_PAD else f"sizes {_short(name) or last}()"
            origins = self._flows(size_args(node, name or None), node, ctx)
            for origin in origins:   # each caller's maximum
                self._once(node, origin, verb, "this tensor is sized by the batch maximum", ctx)
            widths = _pad_widths(node, ctx) if not origins and name == _F_PAD else None
            if widths is not None:
                # session 22 (broad path): ``F.pad(x, (0, m - n))`` up to a maximum of values the model cannot type
                # (session 32, rec32b: also the widths kept in a name first, ``p1d = (0, m - lens[i])``)
                for count in widths.elts:
                    extreme = padding_maximum(count, node, ctx)
                    if extreme is not None:
                        self._once(node, (BATCH_MAX, extreme), verb, "this tensor is padded to the batch maximum", ctx)
                        origins = [extreme]
                        break
            if not origins:   # session 23 (broad path): a size computed from ``max()`` over a sequence (max_sizes.py)
                self._max_sized(node, name, verb, ctx)

    def _max_sized(self, node: ast.Call, name: str, verb: str, ctx: FileContext) -> None:
        """``torch.zeros(b, longest.size(0))`` of ``longest = max(batch, key=f)[0]``, ``torch.full(max_shape)`` of
        ``max_shape = [n] + [max(*s) for s in zip(*shapes)]``, ``F.pad(x, get_pad(x, m))`` of ``m = max(...)``:
        unless a flow already answers for the size (NPU403's read, the proof-based maximum)."""
        args = node.args[1:2] + [kw.value for kw in node.keywords if kw.arg == "pad"] if name == _F_PAD \
            else size_args(node, name or None)
        if not args or any(ctx.resolver.flows(a) for a in args):
            return
        extreme = maximum_size(args, node, ctx)
        if extreme is not None:
            self._once(node, (BATCH_MAX, extreme), verb, "this tensor is sized by the batch maximum", ctx)

    def _project_sizer(self, node: ast.Call, ctx: FileContext) -> None:
        """``stack_tensors(items, max_lens=[m])`` with ``m`` the batch maximum, where that function of another
        module sizes a tensor with the parameter (the index's ``sizes`` facts, as for NPU403): reported at the
        maximum, naming the chain."""
        if not node.args and not node.keywords:
            return   # nothing passed: no parameter carries the maximum
        found = size_helper_call(node, ctx, self.kinds, ctx.resolver.own_function(node))
        if found is not None:
            chain, origin = found
            self._once(node, origin, f"sizes {chain}", f"{chain} is given the batch maximum", ctx)

    def _kwargs_padding(self, node: ast.Call, ctx: FileContext) -> None:
        """``tokenizer(texts, **kwargs)`` with ``kwargs = {"padding": True, ...}``: reported at the dict's value."""
        if (ctx.resolver.qualname(node.func) or "").startswith(("torch.", "numpy.")) or not encodes_text(node, ctx):
            return
        item = padding_in_kwargs(node, ctx)
        seen = ctx.scratch.setdefault("padding_kwargs", set())
        if item is not None and id(item) not in seen:
            seen.add(id(item))
            ctx.report(item, self.message.format(what=f"padding={unparse(item)} (given to {last_name(node.func)}() at "
                                                      f"line {node.lineno}) pads each batch to its longest item"),
                       "padding")

    def _library_longest(self, node: ast.Call, last: str, ctx: FileContext) -> None:
        """``nt.to_padded_tensor(0.0)`` without ``output_size`` (torch's nested tensors padded to their longest
        item), ``accelerator.pad_across_processes(x, dim=1)`` (padded to the longest across the processes). Not the
        project's own function of that name (one its index knows), nor a wrapper of it named alike (Accelerate's own
        method)."""
        if ctx.resolver.definition(node.func) is not None:
            return
        name = ctx.resolver.qualname(node.func) or ""
        if name and ctx.project is not None and ctx.project.defines(name, ctx.module) is not None:
            return      # the project's own function (Accelerate's code and tests)
        if isinstance(node.func, ast.Attribute) and ctx.project is not None:
            owner = ctx.resolver.class_of(node.func.value)
            if owner and ctx.project.defines_method(owner, last):
                return  # a method of the project's own class (``Accelerator`` in Accelerate's tests)
        function = ctx.enclosing(node, FUNCTION_TYPES)
        if function is not None and getattr(function, "name", "") == last:
            return      # the library's own method handing on to its function
        if last == "to_padded_tensor":
            method = isinstance(node.func, ast.Attribute) and name != _TO_PADDED
            if method and name:
                return      # a module's function of that name other than torch's
            if len(node.args) >= (2 if method else 3) or any(kw.arg in ("output_size", None) for kw in node.keywords):
                return      # padded to a given size
            self._report(node, "to_padded_tensor() without output_size= pads every item of the nested tensor to "
                               "the longest in the batch", ctx)
            return
        if name and not name.startswith("accelerate"):
            return
        self._report(node, "pad_across_processes() pads the tensor to the longest across the processes", ctx)

    def _report(self, node: ast.Call, what: str, ctx: FileContext) -> None:
        ctx.report(node, self.message.format(what=what), ctx.resolver.qualname(node.func) or "padding")

    def _flows(self, args: list[ast.AST], node: ast.AST, ctx: FileContext) -> list[tuple]:
        """The first batch maximum each argument may carry, and every other one a caller hands down to the sink's
        function (a helper's parameter filled by several callers)."""
        found: dict[int, tuple] = {}
        for arg in args:
            first = True
            for flow in (*ctx.resolver.flows(arg), *self._appended_flows(arg, ctx)):
                if flow[0] in self.kinds and (first or passed_down(flow[1], node, ctx)):
                    found.setdefault(id(flow[1]), flow)
                    first = False
            if isinstance(arg, (ast.Tuple, ast.List)) and len(arg.elts) > 1:
                # session 32 (rec32b): a shape or a pad width given as one tuple, ``torch.empty((b, max_n,
                # max_len))``, ``F.pad(v, (0, max_w - w, 0, max_h - h))``: each element's own maximum computed in
                # this function is reported at its own line (the first flow of the tuple named only the first)
                for element in arg.elts:
                    for flow in ctx.resolver.flows(element):
                        if flow[0] in self.kinds and same_function(flow[1], node, ctx):
                            found.setdefault(id(flow[1]), flow)
                            break
        return list(found.values())


    @staticmethod
    def _appended_flows(arg: ast.AST, ctx: FileContext) -> list[tuple]:
        """A list of sizes starred into a sink (``torch.LongTensor(b, *sizes)``) carries what its ``append`` calls
        add: ``sizes.append(max(len(y) for y in x))`` per nesting level."""
        if isinstance(arg, ast.Starred):
            arg = arg.value   # ``xs[0].new(n, *max_len_all_dim)``
        binding = ctx.resolver.binding(arg) if isinstance(arg, ast.Name) else None
        if binding is None or binding.tag != VALUE or binding.path or not isinstance(binding.value, ast.List) \
                or binding.value.elts:
            return []
        return [flow for value in ctx.resolver.added_values(binding) for flow in ctx.resolver.flows(value)]


def _pad_widths(node: ast.Call, ctx: FileContext) -> Optional[ast.AST]:
    """The pad-width display of ``F.pad(x, widths)``: the tuple or list given, or the one a name of the function
    is bound to once (``p1d = (0, m - n)``), else None."""
    widths = node.args[1] if len(node.args) >= 2 else next((k.value for k in node.keywords if k.arg == "pad"), None)
    if isinstance(widths, ast.Name):
        binding = ctx.resolver.binding(widths)
        widths = binding.value if binding is not None and binding.tag == VALUE and not binding.path else None
    return widths if isinstance(widths, (ast.Tuple, ast.List)) else None


def _asks_torch(node: ast.Call) -> bool:
    """``return_tensors="pt"``: a tokenizer or processor call that makes torch tensors."""
    return any(kw.arg == "return_tensors" and isinstance(kw.value, ast.Constant) and kw.value.value == "pt"
               for kw in node.keywords)


def _collator_base(func: ast.Name, ctx: FileContext) -> Optional[str]:
    """The library collator a class of the file derives from (``class Collator(DataCollatorForSeq2Seq)``), directly
    or through another class of the file; None for anything else."""
    seen: set[int] = set()
    definition = ctx.resolver.definition(func)
    while isinstance(definition, ast.ClassDef) and id(definition) not in seen:
        seen.add(id(definition))
        following = None
        for base in definition.bases:
            name = ctx.resolver.qualname(base) or ""
            if name.startswith(_COLLATOR_LIBRARIES) and name.endswith(_COLLATORS):
                return name.rsplit(".", 1)[-1]
            if isinstance(base, ast.Name):
                following = ctx.resolver.definition(base)
        definition = following
    return None


def _project_collator(func: ast.AST, ctx: FileContext) -> Optional[str]:
    """The library collator a project class of another module derives from, through the index's bases, when the
    class does not default ``padding`` to a fixed length; None otherwise."""
    project = ctx.project
    if project is None or ctx.resolver.definition(func) is not None:
        return None
    name = ctx.resolver.qualname(func) or ""
    if name.startswith(_COLLATOR_LIBRARIES):
        return None     # the library's own collator: its own test below
    cls = project.absolute(name, ctx.module) if name else None
    if cls is None or not project.defines_class(cls):
        return None
    base = next((owner for owner in project.index.mro(cls)[1:]
                 if owner.startswith(_COLLATOR_LIBRARIES) and owner.endswith(_COLLATORS)), None)
    if base is None or project.attribute_default(cls, "padding") in ("max_length", False, "do_not_pad"):
        return None
    return base.rsplit(".", 1)[-1]


def _project_class(func: ast.AST, name: str, ctx: FileContext) -> bool:
    """``func`` names a class the project defines (here or in another module), not a library's."""
    if isinstance(ctx.resolver.definition(func), ast.ClassDef):
        return True
    return bool(name) and ctx.project is not None and ctx.project.defines(name, ctx.module) is not None


def _chosen_functions(func: ast.Name, ctx: FileContext) -> tuple[str, ...]:
    """``pad_fn = pad_sequence if right else left_pad``: the qualified names a local function variable may hold."""
    binding = ctx.resolver.binding(func)
    value = binding.value if binding is not None and binding.tag == VALUE and not binding.path else None
    arms = [value.body, value.orelse] if isinstance(value, ast.IfExp) else [value] if isinstance(
        value, ast.Attribute) else []
    return tuple(name for arm in arms for name in [ctx.resolver.qualname(arm, binding.scope)] if name)
