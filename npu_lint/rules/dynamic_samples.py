"""NPU409: per-sample items of different lengths joined into one tensor (the split into them, NPU410: dynamic_splits.py).

The evidence that items differ in length comes from the semantic model and the code around the items, never from
what a variable is called: the items come from a loader's batch, from a parameter annotated as a list of
per-sample dicts or instances, from a per-sample field (``t["boxes"]``, ``inst.bboxes``), from a boolean mask or a
data-dependent operator applied to each item, or from Python data converted item by item (``torch.tensor(ids)``);
or, joined along their first dimension, they are the samples a collate function receives (or any field of them:
a collate function concatenates rather than stacks exactly when the samples' leading sizes differ), or each
item's rows are tagged with the item's index in its sequence (only needed when the row counts differ).
A list counts whether it is a comprehension or built by ``append`` / ``extend`` / ``+=`` in a loop of the same
function. The evidence lives in sample_items.py (collate functions: collate_samples.py; tags: sample_tags.py).
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.context import FileContext
from npu_lint.rules import FUNCTION_TYPES, Rule, short_source
from npu_lint.analysis.nodes import walk
from npu_lint.rules.value_flow import FAMILY
from npu_lint.rules.sample_items import CHUNKED_FIRE, CHUNKED_SILENT, COUNTED_FIRE, COUNTED_SILENT
from npu_lint.rules.sample_items import _strip, per_sample_items, per_value_items
from npu_lint.rules.stopped_items import stopped_items
from npu_lint.rules.repeated_items import repeated_items
from npu_lint.rules.traversed_lists import traversed_list
from npu_lint.rules.sample_lengths import labelled_sequence, measured_lengths
from npu_lint.rules.sample_tags import along_rows
from npu_lint.rules.sample_tag_counts import accumulated_rows, counted_pieces, tagged_list
from npu_lint.rules.host_batches import HOST_CAT, becomes_host_batch, host_batch_items
from npu_lint.rules.kept_samples import kept_samples
from npu_lint.rules.library_joins import joined_samples, library_joiners
from npu_lint.rules.broad_joins import JOIN_STACKS, JOIN_TENSORS, broad_join
from npu_lint.rules.inverted_joins import INVERTED, inverted_join
from npu_lint.rules.filled_joins import filled_join
from npu_lint.rules.flat_joins import flat_join
from npu_lint.rules.sized_joins import kept_join, sized_join, unzipped_join
from npu_lint.rules.token_joins import token_join
from npu_lint.rules.sibling_joins import sibling_join
from npu_lint.rules.helper_selections import helper_selection_join

_PADDING_CODES = frozenset({"NPU405"})   # pad-to-batch-max: it names a padded join first
_CAT = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.hstack", "torch.vstack"})
_STACK = frozenset({"torch.stack", "torch.row_stack", "torch.column_stack", "torch.dstack"})
_HOST_JOINS = HOST_CAT | {"numpy.stack"}
_JOIN_WORDS = frozenset(name.rsplit(".", 1)[-1] for name in _CAT | _STACK)
# a list of per-row tags made a tensor (sample_tag_counts.py)
_TAG_TENSORS = frozenset({"torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.LongTensor", "torch.IntTensor"})
# torch's own collate function: it stacks the samples it is given (one row each)
_DEFAULT_COLLATE = frozenset({"torch.utils.data.default_collate", "torch.utils.data.dataloader.default_collate",
                              "torch.utils.data._utils.collate.default_collate"})
# library functions that concatenate the samples they are given into one batch (rule_tables/library_joiners.tsv)
_JOINERS = frozenset(library_joiners())
_PROVEN = _CAT | _STACK | _HOST_JOINS | _TAG_TENSORS | _DEFAULT_COLLATE | _JOINERS   # the proof-based paths' calls


class PerSampleConcat(Rule):
    """Per-sample tensors of different lengths concatenated into one (targets of a detection batch).

    What it does:
        Flags ``torch.cat`` (``concat``, ``hstack``, ``vstack``) of a list of per-sample items, built by a
        comprehension or by ``append`` / ``+=`` in a loop of the same function, when the model shows the items
        differ in length: they are a per-sample field (``t["boxes"]``, ``inst.labels``, ``input_ids``, their 3D
        spellings ``labels_3d``, ``bboxes_3d``, any field of a per-sample record of instances: ``d.gt_instance_labels.keypoint_weights``), the
        items of a loader's batch or of a parameter annotated as a list of records (``List[Dict[str, Tensor]]``,
        ``InstanceList``, ``SampleList``), the result of a boolean mask or a data-dependent operator applied to
        each item (per-image detections; also through an index bound in the loop, ``keep = nms(b, s, t)`` then
        ``b[keep]`` or ``b[keep, :]``, the index capped to a top-k first, ``keep = keep[:n]``, or any value the model traces to such an op made in the loop that builds the list: an element
        of ``x.nonzero(as_tuple=True)`` unpacked per image, rows gathered by it), or Python data converted item by item (``torch.tensor(ids)``, ``torch.IntTensor([vocab[c]
        for c in t])``); joined
        along dim 0, the samples a collate function receives or any field of them (a function passed as
        ``collate_fn=`` to any call or as a parameter's default, in the file or, through the project index, in
        another module; a dataset's own ``collate_fn`` / ``collater`` method: ``torch.cat([d[key] for d in batch],
        0)``; it
        concatenates rather than stacks exactly when the samples' leading sizes differ; items made with an
        explicit leading 1, ``x[None]`` or ``x.unsqueeze(0)``, are left alone; a DataLoader subclass's own
        ``collate_fn`` method counts, and so do the samples filtered, sorted or unzipped, and the helpers, batching
        classes and dataclasses (``__post_init__``) of the file a collate function hands its samples to:
        ``return GraphBatch(graphs)`` whose ``__init__`` concatenates ``g.x`` of every graph; along any dim, a
        field shifted by the sizes of the samples before it, ``g.edge_index + offset`` with ``offset +=
        g.num_nodes``); in such a collate
        path, also numpy's ``concatenate`` (``vstack``, ``hstack``) whose result becomes the batch (returned,
        converted with ``torch.from_numpy`` / ``torch.tensor``, stored on the batch object; numpy elsewhere is
        host code and left alone), or items whose rows are tagged with
        the item's index in an ``enumerate`` loop (``x.new_ones((x.shape[0], 1)) * i``, ``torch.full((len(x), 1),
        i)``, or ``torch.full((n, 6), i)`` after ``n = len(t["labels"])`` in the loop, joined side by side with
        the item: a tag only needed when the row counts differ); and a
        concatenation of a batch's flattened per-sample fields (``torch.cat((batch["batch_idx"], batch["cls"],
        batch["bboxes"]), 1)``); or a list whose items' lengths the same function makes a tensor of
        (``lengths = torch.IntTensor([len(t) for t in targets])`` next to ``torch.cat(targets)``: nobody keeps
        a tensor of equal lengths; a Python list of per-level counts is no such evidence), or whose row counts the
        loop that builds the list records in a list made a tensor of (``count += len(d["pos"])``;
        ``offset.append(count)``; ``torch.IntTensor(offset)``, or per-row tags ``batch += [i] * len(d["pos"])``). ``torch.stack`` is left alone: it fails on items of different lengths. Both
        ``cat`` and ``stack`` are flagged when the list holds one item per value found in the data (also
        through a name bound to an unfiltered comprehension over such a result, ``for rows in per_class`` of
        ``per_class = [torch.nonzero(t == c) for c in t.unique()]``): its loop walks
        the result of a data-dependent operator (``for c in labels.unique()``, ``torch.nonzero(m)``; also through
        names, rows gathered by its indices and the file's helpers: ``for k in range(len(y))`` of ``y, ey, x, ex =
        pad(boxes[keep])``, one crop per box NMS kept), so the number of items varies (per-label prototypes,
        per-class losses, per-detection crops; a list made anew inside the loop counts only the loops within), or when it gets one item per step of a
        loop that an ``if <test on a tensor>: break`` can end (``tokens.append(t)`` then ``if (t ==
        eos).all(): break``: a generation stopped at its end token; a test of an item the loop adds to the joined
        list, ``if new_id.item() in stop_ids:``, reads a tensor whatever the call that made it (a ``while``
        loop's own test is NPU413's alone: a schedule planned on the host has the rows its settings say); lists
        a function gets as parameters, from the file's own calls of it after such a loop: Tacotron's ``self.parse_decoder_outputs(mel_outputs, ...)``
        that stacks them; items added by
        ``outputs += [out]`` or ``extend([a, b])`` (not ``extend(rows)`` of a selection: each row may come once in
        all), also to a list mapped item by item before the join: ``outputs =
        list(map(lambda o: o.squeeze(1), outputs))``). Each item gathered by its own indices
        (``t[j] for t, (_, j) in zip(targets, indices)``, a matcher's output) counts also when the index is moved
        or cast first (``t[j.to(t.device)]``, ``t[j.long()]``). An item that one arm makes empty, with no rows
        (``x.new_zeros((0, 4))``, ``torch.zeros(0, n)``: the placeholder of a sample without objects), while
        the other arm gives it rows (``gt_boxes[matched]``), joined along dim 0: the row counts differ.
        A loop over a batch's samples that writes one tag per row of each sample, its index repeated by a count
        the sample gives (``idx += [i] * len(parts)``, ``tags += [i for _ in range(counts[uid])]``; not a
        setting, ``[i] * self.n_views``; not in a constructor's setup), shows the row counts differ: the tag
        list made a tensor (``torch.from_numpy(np.array(idx))``) is as long as all the rows of the batch; a
        list the same loop extends by the pieces it counts (``splits.extend(parts)``), then stacked or
        concatenated (also through ``splits = [prep(s) for s in splits]``), holds a number of items that
        changes with the data; a tensor concatenated onto itself along dim 0 in that loop (``acc =
        torch.cat((acc, rows), 0)``) holds every sample's rows; and ``torch.cat(list(xs))`` beside a
        comprehension that tags the rows of each item of ``xs`` with its index joins items of different lengths.
        A collate function (also the method of an instance made where it is passed, ``collate_fn=Collator(p).collate``)
        that keeps only the samples passing a test (``[b for b in batch if b is not None]``, the test inside
        the joined comprehension itself, ``np.stack([r["x"] for r in batch if "x" in r])``,
        ``list(filter(lambda x: x is not None, batch))``, ``append`` under an ``if`` or after an ``if ...:
        continue`` in a loop over them; a dataset's static ``*collate*`` method counts as one) and stacks them
        (``default_collate(kept)``, ``torch.stack`` / ``cat`` of the kept samples, of one field of each, or of a
        field unzipped from them; numpy's ``stack`` / ``concatenate`` where the result becomes the batch) gives a batch whose size is the number of samples kept: it changes with the data.
        So does a list that a loop over data (a tensor, the fields of a loader's batch) fills only when a test on
        the loop's items passes (``for img, label in zip(batch.image, batch.gt_label): if label == 0:
        maps.append(model(img))``), joined in the function or in the file's helper it is passed to (items moved
        to the host first, ``p.cpu()``, are left alone: metrics collected per batch compile nothing).
        An item read through a method or property of the project that gives one piece per item of one of the
        object's fields (``frame.get_track_ids()`` returning ``torch.cat([i.track_id for i in self.instances])``,
        the model's ``counts`` fact) is that field (``frame.instances``: a per-sample field).
        Items are also read by position under a counting loop (``targets[i]["boxes"]`` under ``for i in
        range(len(targets))``, ``ys_pad[i, :l]``), through names the loop binds to a sample or a field of one
        (``ds = data_batch[i]["data_samples"]`` then ``ds.gt_instances.masks``), joined side by side with other
        pieces of the same rows (``torch.cat((idx, labels[:, None], boxes), dim=1)``), cut to a length of their
        own (``f[:n] for f, n in zip(feats, lengths)``), gathered by a per-sample index field
        (``res.pos_assigned_gt_inds``) or by the indices a one-argument ``torch.where(...)[0]`` finds per item;
        joined along another dim, an item counts when a call making it takes a shape from a value read back in
        the loop; so does an item the input's own size (``wav, sr = torchaudio.load(p)``, a whole recording).
        OpenMMLab's ``multi_apply(self._get_targets_single, ...)`` gives per-image lists: one whose
        helper element is a tensor of no rows on one path (``new_zeros((0, n))``) or a per-sample field
        (``sampling_result.pos_gt_bboxes``) is joined per-sample items of different lengths.
        A library's batch of graphs is such a join (``rule_tables/library_joiners.tsv``, built from the libraries'
        sources): PyG's ``Batch.from_data_list(graphs)`` and DGL's ``dgl.batch(graphs)`` concatenate every
        graph's node and edge tensors, so the batch has as many nodes and edges as its graphs together (in a
        collate function, a model's graph augmentation); left alone: a list of one item spelled out
        (``[data]``), a list read from the object's own state alone (``list(self.rules.values())``: the same
        graphs at every call), code that runs at setup (``__init__``) and a script's one-off batch outside a loop.
        Beside these proofs (``broad_joins.py``), the op itself: ``cat`` along dim 0, ``stack``,
        ``nested_tensor`` or ``torch.tensor`` of a list built from per-item values whose count nothing fixes: one
        item per element of an item's own part (``for cls, tokens in rows: torch.tensor([vocab[t] for t in
        tokens])``, a string's words), per step of a ``while`` a ``break`` ends, the items a test on the data
        keeps, rows each step selects by an index it computes (``scores[keep]``), or a list attribute another method
        fills per element of what it gets (a detection metric's ``for p in preds: self.boxes.append(p["boxes"])``
        joined in ``compute``), or a list attribute a method appends to at every call, joined and emptied under a test of a tensor's value (an episode's steps flushed when ``samples["terminateds"].item()`` ends it); left alone where the count is proven fixed (a ``range`` of settings or of a
        tensor's size, a literal, the model's modules, a tensor's rows or chunks), side by side (a dim other than
        0), in setup code. Last (``inverted_joins.py``), the burden of proof turned: ``pad_sequence`` /
        ``nested_tensor`` of any list that is no literal display, and ``cat`` along dim 0 of a list the function is
        given (a parameter, a field, an entry, a call's result, a comprehension or loop over one) unless every
        item is proven of one size (one row, a factory or resize of a given size, a host piece, a fixed cut) or
        the count is proven fixed. And (``filled_joins.py``) a ``cat`` along dim 0 of a container the
        function fills elsewhere: a list per key (``parts[key].append(x)`` joined as ``cat(parts[key])`` or
        ``{k: cat(v) for k, v in parts.items()}``), a comprehension over a local list filled in a loop, when an
        ``append`` sits in a loop over a sequence nothing fixes, appends a data-dependent selection
        (``d[i, j]`` after ``i, j = torch.where(m)``), or appends items each element sizes or gathers
        (``torch.full((len(p),), i)``, ``feats[cluster]``). And (``sized_joins.py``) whatever the count:
        a ``cat`` along dim 0 of items sized by a value the data gives (a cut ``x[s:e]`` at offsets read per
        counter ``o[i]`` or from ``.item()``, a factory or repeat sized by an element ``torch.tensor([i] * n)``,
        a helper given such a size), and a ``cat`` / ``stack`` of the items a test on the data keeps in a loop of
        fixed count (``if sp.numel() == 0: continue``: per-class, per-anchor, per-query results), and a ``cat``
        of one of the results a helper returns per element, unzipped (``a, b = zip(*(f(x) for x in xs))``).
        And (``flat_joins.py``) a tensor made of per-item lists flattened into one
        (``torch.tensor(sum(chunks, []))``, ``chain.from_iterable``, ``[t for doc in docs for t in doc.ids]``, a
        list extended per item, a helper of the project that returns such a list): its length is the items'
        lengths together.
        And (``sibling_joins.py``) a result of one call per element unpacked beside another result the function
        tags row by row with the element's index (``v, c, n = self.voxel_layer(res)`` then ``c = F.pad(c, (1, 0),
        value=i)``, in the loop or in a later ``for i, c in enumerate(coors)``; ``F.pad`` writing the index is a
        tag as ``torch.full((len(c), 1), i)`` is): the sibling results have the same rows, so their joins vary too.
        And (``helper_selections.py``) the element of the tuple a helper of the file returns per step, unpacked in
        the loop and appended, when the helper binds it to a data-dependent selection on some path
        (``pos_inds = torch.nonzero(m).squeeze(-1)``, ``x[mask]``, a sampler's ``res.pos_inds``).
        And an attribute of each item (``graph.edge_list``, ``d.x``), left to the
        record-class proofs before, counts on the inverted path when the same function reads the sizes of the
        items of that sequence in a loop or comprehension over it (``num_cum_node += graph.num_node``,
        ``torch.stack([g.num_node for g in graphs])``, ``len(g.atoms)``, ``g.x.size(0)``; a size only compared,
        ``len(s) == n`` or in an ``assert``, proves nothing): a function that tracks each item's size joins items
        of different sizes (a graph batch's nodes and edges); lists unpacked empty at once (``xs, edges = [],
        []``) count as lists built in the loop. And (token_joins.py) a ``cat`` of a display whose piece is a
        text the function tokenises (``torch.cat((encoded_prompt, encoded_response))`` of
        ``self.tokenizer.encode(...)``, ``tokenizer(text, return_tensors="pt").input_ids`` beside a ``bos`` id):
        as many ids as the text has tokens; silent when the encoding pads to a fixed length
        (``padding="max_length"``) and for modules named for tokens (``self.token_embedding(ids)``).
        A tensor made of such a list, ``torch.tensor([out_tokens])`` (``torch.LongTensor(ids)``) after a loop that
        appends one token per step and a tensor's value can end (``if top_id == eos: break``), is as long as the
        loop ran: reported too.
    Why it matters on NPU:
        The number of objects (or tokens) per image differs, so the concatenated length changes with every
        batch, and with it every operator that reads it (matching costs, ``cdist``, losses): each new length
        compiles again on NPU.
    Example:
        gt_boxes = torch.cat([t["boxes"] for t in targets])
    Use instead:
        Pad each sample's targets to a fixed maximum (``max_objects``) with a validity mask, and build the
        batch as one ``(batch, max_objects, 4)`` tensor in the collate function.
    Fix safety:
        No automatic fix.
    """

    code = "NPU409"
    name = "per-sample-concat"
    family = FAMILY
    node_types = (ast.Call,)
    callees = _PROVEN | JOIN_STACKS | JOIN_TENSORS | INVERTED   # dispatch: these calls only
    triggers = ("cat(", "concat", "stack(", "ensor(", "pad_sequence(", "from_numpy(", "default_collate(", "from_data_list(", "batch(")
    message = "{what} joins per-sample items of different lengths ({why}): its length changes with every batch, a recompile per length on NPU; pad each sample to a fixed maximum with a mask"
    must_fire = ("import torch\ngt = torch.cat([t['boxes'] for t in targets])\n",
                 # each item made with a size read back (or drawn at random) in the loop that builds the list
                 "import torch\ndef batch(keys, gen):\n    values = []\n    for k in keys:\n"
                 "        length = torch.randint(1, 5, (8,), generator=gen)\n"
                 "        values.append(torch.randint(0, 100, (int(length.sum()),)))\n    return torch.cat(values)\n",
                 # any field of a per-sample record of instances (OpenMMLab's InstanceData: one row per instance)
                 "import torch\ndef loss(samples):\n"
                 "    return torch.cat([d.gt_instance_labels.keypoint_weights for d in samples])\n",
                 # an element of a data-dependent op's tuple made per image in the loop (the model's data_shaped)
                 "import torch\ndef pairs(valid: torch.Tensor, peaks: torch.Tensor, n: int):\n    edges = []\n"
                 "    for b in range(n):\n        e, s = (valid[b] & (peaks == b)).nonzero(as_tuple=True)\n"
                 "        edges.append(e)\n    return torch.cat(edges)\n",
                 # a collate method of an instance made where it is passed; the test inside the stacked comprehension
                 "import numpy as np\nimport torch\nclass Collator:\n    def collate(self, batch):\n"
                 "        for r in batch:\n            if len(r['x']) < self.n:\n                del r['x']\n"
                 "        x = np.stack([r['x'] for r in batch if 'x' in r])\n        return torch.from_numpy(x)\n"
                 "def load(ds, n):\n    return torch.utils.data.DataLoader(ds, 4, collate_fn=Collator(n).collate)\n",
                 # one item per step of a generation loop that the end token stops
                 "import torch\ndef generate(model, idx, n, eos):\n    out = []\n    for _ in range(n):\n"
                 "        t = model(idx).argmax(-1)\n        out.append(t)\n        if (t == eos).all():\n"
                 "            break\n    return torch.stack(out, 1)\n",
                 # the stop test reads a value the loop adds to the joined list (a torch join takes tensors, whatever
                 # the model's call returned); items added with ``+= [x]`` to a list mapped item by item before the join
                 "import torch\ndef greedy(model, ids, n, stop_ids):\n    out = [model(ids).argmax()]\n"
                 "    for i in range(n):\n        new_id = model(out[-1]).argmax()\n        out.append(new_id)\n"
                 "        if new_id.item() in stop_ids:\n            break\n    return torch.stack(out)\n",
                 "import torch\ndef decode(step, x, thr):\n    outputs, dones = [], []\n    while True:\n"
                 "        out, done = step(x)\n        outputs += [out]\n        dones += [done]\n"
                 "        if (torch.sigmoid(done) > thr).all():\n            break\n"
                 "    outputs = list(map(lambda o: o.squeeze(1), outputs))\n    return torch.stack(outputs)\n",
                 # lists a helper of the file gets from its caller's decoding loop (Tacotron's parse_decoder_outputs)
                 "import torch\nclass Decoder(torch.nn.Module):\n    def parse(self, mels, gates):\n"
                 "        return torch.stack(mels).transpose(0, 1), torch.stack(gates)\n"
                 "    def inference(self, x, thr):\n        mels, gates = [], []\n        while True:\n"
                 "            mel, gate = self.decode(x)\n            mels += [mel.squeeze(1)]\n            gates += [gate]\n"
                 "            if torch.sigmoid(gate.data) > thr:\n                break\n            x = mel\n"
                 "        return self.parse(mels, gates)\n",
                 # a dataset's own collate method (the name torch's DataLoader and fairseq give it)
                 "import torch\nfrom torch.utils.data import Dataset\nclass Graphs(Dataset):\n"
                 "    def collater(self, samples):\n        return torch.cat([s['atoms'] for s in samples])\n",
                 "import torch\nlabels = torch.cat([v.gt_labels for v in batch_data_samples], dim=0)\n",
                 "import torch\nt = torch.cat((batch['batch_idx'].view(-1, 1), batch['bboxes']), 1)\n",
                 "import torch\nfrom typing import Dict, List\n"
                 "def loss(preds, targets: List[Dict[str, torch.Tensor]]):\n"
                 "    gts = []\n    for t in targets:\n        gts.append(t['area'])\n    return torch.cat(gts)\n",
                 "import torch\ndef post(preds, thr):\n    out = []\n    for p in preds:\n        keep = p[:, 4] > thr\n"
                 "        out.append(p[keep])\n    return torch.cat(out)\n",
                 "import torch\ndef loss(targets, indices):\n"
                 "    return torch.cat([t['masks'][j] for t, (_, j) in zip(targets, indices)])\n",
                 "import torch\ndef loss(targets, indices):\n"
                 "    return torch.cat([t[j] for t, (_, j) in zip(targets, indices)])\n",
                 "import torch\ndef permutation(indices):\n"
                 "    batch_idx = torch.cat([torch.full_like(src, i) for i, (src, _) in enumerate(indices)])\n"
                 "    src_idx = torch.cat([src for (src, _) in indices])\n    return batch_idx, src_idx\n",
                 "import torch\ndef f(batch):\n    idx = batch['batch_idx'].view(-1, 1)\n"
                 "    return torch.cat((idx, batch['cls'].view(-1, 1), batch['bboxes']), 1)\n",
                 "import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(ds, batch_size=4)\n"
                 "for images, targets in loader:\n    gt = torch.cat([t for t in targets])\n",
                 "import torch\ndef encode(texts, tok):\n    ids = torch.cat([torch.tensor(tok.encode(s)) for s in texts])\n",
                 # one item per value found in the data: the number of items varies (cat or stack)
                 "import torch\ndef protos(x, labels):\n    return torch.stack([x[labels == c].mean(0) for c in torch.unique(labels)])\n",
                 "import torch\ndef protos(x, labels):\n    means = []\n    for c in labels.unique().tolist():\n"
                 "        means.append(x[labels == c].mean(0))\n    return torch.stack(means)\n",
                 # the code makes a tensor of the items' lengths: they differ
                 "import torch\ndef collate(samples, max_len):\n    targets = [s.tokens[:max_len] for s in samples]\n"
                 "    lengths = torch.IntTensor([len(t) for t in targets])\n    return torch.cat(targets), lengths\n",
                 "import torch\ndef collate(seqs):\n    lens = [s.size(0) for s in seqs]\n"
                 "    return torch.cat(seqs), torch.tensor(lens)\n",
                 # the samples a collate function receives (any field of them), joined along dim 0
                 "import torch\nfrom torch.utils.data import DataLoader\ndef collate(batch):\n    out = {}\n"
                 "    for key in batch[0]:\n        out[key] = torch.cat([d[key] for d in batch], 0)\n    return out\n"
                 "class Loader(DataLoader):\n    def __init__(self, ds, **kw):\n"
                 "        super().__init__(ds, collate_fn=collate, **kw)\n",
                 "import torch\nfrom torch.utils.data import DataLoader\ndef collate(samples):\n    idx = []\n"
                 "    offset = 0\n    for d in samples:\n        idx.append(d['idx_j'] + offset)\n"
                 "        offset += d['idx_j'].shape[0]\n    return torch.cat(idx, 0)\n"
                 "loader = DataLoader(ds, batch_size=8, collate_fn=collate)\n",
                 "import torch\nfrom torch.utils.data import DataLoader\nclass Data:\n"
                 "    def loader(self):\n        return DataLoader(self, collate_fn=self.collate)\n"
                 "    def collate(self, batch):\n        images, labels = zip(*batch)\n"
                 "        return torch.stack(images), torch.cat(labels, 0)\n",
                 # numpy concatenations that build the batch a collate function returns (converted or returned)
                 "import numpy as np\nimport torch\nfrom torch.utils.data import DataLoader\ndef collate(samples):\n"
                 "    ids = np.concatenate([s['ids'] for s in samples])\n    return torch.from_numpy(ids)\n"
                 "loader = DataLoader(ds, collate_fn=collate)\n",
                 "import numpy as np\nimport torch\nfrom torch.utils.data import DataLoader\ndef collate(batch):\n"
                 "    out = {}\n    out['tokens'] = np.hstack([b['tokens'] for b in batch])\n    return out\n"
                 "loader = DataLoader(ds, collate_fn=collate)\n",
                 # a batching class or helper a collate function hands its samples to
                 "import numpy as np\nimport torch\nfrom torch.utils.data import DataLoader\nclass GraphBatch:\n"
                 "    def __init__(self, graphs):\n        self.x = np.vstack([g.x for g in graphs])\n"
                 "def collate(samples):\n    return GraphBatch(samples)\nloader = DataLoader(ds, collate_fn=collate)\n",
                 "import torch\nfrom torch.utils.data import DataLoader\nclass GraphBatch:\n    def __init__(self, graphs):\n"
                 "        xs, edges, offset = [], [], 0\n        for g in graphs:\n            xs.append(g.x)\n"
                 "            offset += g.num_nodes\n        self.x = torch.cat(xs)\n"
                 "def collate(samples):\n    graphs, labels = zip(*samples)\n    return GraphBatch(graphs), labels\n"
                 "loader = DataLoader(ds, collate_fn=collate)\n",
                 "import torch\nfrom torch.utils.data import DataLoader\ndef cat_fields(items):\n"
                 "    return torch.cat([s['feat'] for s in items])\n"
                 "def collate(samples):\n    return cat_fields([s for s in samples if s is not None])\n"
                 "loader = DataLoader(ds, collate_fn=collate)\n",
                 "import torch\nfrom dataclasses import dataclass\nfrom torch.utils.data import DataLoader\n@dataclass\n"
                 "class Batch:\n    graphs: list\n    def __post_init__(self):\n"
                 "        self.x = torch.cat([g.x for g in self.graphs])\n"
                 "def collate(samples):\n    return Batch([s['graph'] for s in samples])\n"
                 "loader = DataLoader(ds, collate_fn=collate)\n",
                 # a DataLoader subclass's own collate method; samples filtered, then unzipped
                 "import torch\nfrom torch.utils.data import DataLoader\nclass Loader(DataLoader):\n"
                 "    def collate_fn(self, batch):\n        return torch.cat([b['items'] for b in batch])\n",
                 "import torch\nfrom torch.utils.data import Dataset\nclass Boxes(Dataset):\n"
                 "    def collate_fn(self, batch):\n        batch = [b for b in batch if b is not None]\n"
                 "        imgs, targets = list(zip(*batch))\n        return torch.stack(imgs), torch.cat(targets, 0)\n",
                 # a graph batch's edge indices, shifted by the sizes of the samples before each, along any dim
                 "import torch\nfrom torch.utils.data import DataLoader\ndef collate(samples):\n"
                 "    edges, offset = [], 0\n    for g in samples:\n        edges.append(g['edge_index'] + offset)\n"
                 "        offset += g['x'].shape[0]\n    return torch.cat(edges, dim=1)\n"
                 "loader = DataLoader(ds, collate_fn=collate)\n",
                 # the loop records each item's row count (a running offset, per-row tags) in a list made a tensor
                 "import torch\ndef batchify(datas):\n    pts, offset, count = [], [], 0\n    for d in datas:\n"
                 "        count += len(d['pos'])\n        offset.append(count)\n        pts.append(d['pos'])\n"
                 "    return torch.cat(pts), torch.IntTensor(offset)\n",
                 "import torch\ndef batchify(datas):\n    pts, tags = [], []\n    for i, d in enumerate(datas):\n"
                 "        tags += [i] * d['pos'].shape[0]\n        pts.append(d['pos'])\n"
                 "    return torch.cat(pts), torch.LongTensor(tags)\n",
                 # each item's rows tagged with its index in the sequence
                 "import torch\ndef format_targets(labels_batch):\n    out = []\n"
                 "    for i, labels in enumerate(labels_batch):\n"
                 "        batch_column = labels.new_ones((labels.shape[0], 1)) * i\n"
                 "        labels = torch.cat((batch_column, labels), dim=-1)\n        out.append(labels)\n"
                 "    return torch.cat(out, 0)\n",
                 # each image's detections kept by NMS (an index bound in the loop); CTC targets converted from
                 # each transcript's characters
                 "import torch\nfrom torchvision.ops import nms\ndef post(boxes_list, scores_list, thr):\n"
                 "    out = []\n    for boxes, scores in zip(boxes_list, scores_list):\n"
                 "        keep = nms(boxes, scores, thr)\n        out.append(boxes[keep])\n    return torch.cat(out)\n",
                 "import torch\ndef targets(transcripts, vocab):\n"
                 "    ts = [torch.IntTensor([vocab[c] for c in t]) for t in transcripts]\n    return torch.cat(ts)\n",
                 # the tagged rows counted through a name of the loop (torchvision targets made YOLO rows)
                 "import torch\ndef batch_targets(targets):\n    rows = []\n    for i, t in enumerate(targets):\n"
                 "        n = len(t['labels'])\n        merged = torch.full((n, 6), i, dtype=torch.float32)\n"
                 "        merged[:, 2:] = t['boxes']\n        rows.append(merged)\n    return torch.cat(rows, 0)\n",
                 "import torch\ndef tags(boxes):\n    cols = []\n    for i, b in enumerate(boxes):\n"
                 "        cols.append(torch.full((len(b), 1), i))\n    return torch.cat(cols)\n",
                 # per-row tags of the samples' own counts: the tag tensor, the pieces counted, the accumulation
                 "import numpy as np\nimport torch\nfrom torch.utils.data import DataLoader\nclass Users(DataLoader):\n"
                 "  def collate_fn(self, users):\n    idx, acc = [], torch.tensor([])\n"
                 "    for i, uid in enumerate(users):\n        idx += [i for _ in range(self.counts[uid])]\n"
                 "        acc = torch.cat((acc, self.items[uid]), 0)\n    return torch.from_numpy(np.array(idx)), acc\n",
                 "import torch\ndef detect(model, images, split):\n    splits, index = [], []\n"
                 "    for i, image in enumerate(images):\n        parts = split(image)\n        splits.extend(parts)\n"
                 "        index.extend([i] * len(parts))\n    splits = [prep(s) for s in splits]\n"
                 "    return model(torch.stack(splits, dim=0)), index\n",
                 "import torch\ndef f(hist):\n    u = torch.cat([torch.full_like(h, i) for i, h in enumerate(hist)])\n"
                 "    return u, torch.cat(list(hist))\n",
                 # an empty placeholder item in one arm, rows in the other (per-image matched targets)
                 "import torch\ndef targets(outputs, gts, assign):\n    reg = []\n    for i, gt in enumerate(gts):\n"
                 "        if len(gt) == 0:\n            t = outputs.new_zeros((0, 4))\n        else:\n"
                 "            t = gt[assign(outputs[i], gt)]\n        reg.append(t)\n    return torch.cat(reg, 0)\n",
                 "import torch\ndef targets(gts, idx):\n"
                 "    return torch.cat([g[i] if len(i) else g.new_zeros(0, 4) for g, i in zip(gts, idx)])\n",
                 # DETR-style matched targets gathered by each image's indices, moved to the item's device first
                 "import torch\ndef loss_masks(masks, mask_labels, indices):\n"
                 "    targets = [t[j.to(t.device)] for t, (_, j) in zip(mask_labels, indices)]\n"
                 "    return torch.cat(targets)\n",
                 # one crop per box NMS kept: the loop count is the length of a data-dependent result
                 "import torch\nimport torch.nn.functional as F\nfrom torchvision.ops import nms\n"
                 "def crops(img, boxes, scores):\n    keep = nms(boxes, scores, 0.5)\n"
                 "    dets = boxes[keep].int().cpu().numpy()\n    out = []\n    for k in range(len(dets)):\n"
                 "        x1, y1, x2, y2 = dets[k]\n        out.append(F.interpolate(img[None, :, y1:y2, x1:x2], (24, 24)))\n"
                 "    return torch.cat(out)\n")
    must_fire += (
        "import torch\nfrom torch.utils.data import DataLoader\nclass M:\n    def quant(self, maps):\n"
        "        return torch.quantile(torch.cat(maps), 0.9)\n    def run(self, loader: DataLoader):\n"
        "        maps = []\n        for batch in loader:\n"
        "            for img, label in zip(batch.image, batch.gt_label):\n                if label == 0:\n"
        "                    maps.append(self.model(img))\n        return self.quant(maps)\n",
        "import torch\nclass Frame:\n    def get_ids(self):\n        if not self.instances:\n"
        "            return torch.tensor([])\n        return torch.cat([i.track_id for i in self.instances])\n"
        "def loss(frames):\n    return torch.cat([f.get_ids() for f in frames])\n",
        # a collate function that drops the samples failing a test, then stacks the rest
        "import torch\nfrom torch.utils.data import DataLoader\nfrom torch.utils.data.dataloader import default_collate\n"
        "def collate(batch):\n    batch = list(filter(lambda x: x is not None, batch))\n    return default_collate(batch)\n"
        "loader = DataLoader(ds, collate_fn=collate)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef collate(batch):\n"
        "    batch = [b for b in batch if b is not None]\n    imgs, labels = zip(*batch)\n"
        "    return torch.stack(imgs), torch.tensor(labels)\nloader = DataLoader(ds, collate_fn=collate)\n",
        "import torch\nfrom torch.utils.data import Dataset\nclass Pages(Dataset):\n    @staticmethod\n"
        "    def ignore_none_collate(batch):\n        kept = []\n        for i, x in enumerate(batch):\n"
        "            image, name = x\n            if image is not None:\n                kept.append(x)\n"
        "        return torch.utils.data.dataloader.default_collate(kept)\n",
        "import torch\nfrom torch.utils.data import DataLoader\nfrom torch.utils.data import default_collate\n"
        "def collate(batch):\n    out = []\n    for x in batch:\n        if x is None:\n            continue\n"
        "        out.append(x)\n    return default_collate(out)\nloader = DataLoader(ds, collate_fn=collate)\n")
    # the broad path (broad_joins.py): one item per element of a sequence of unknown length, per call of a method, per while step
    must_fire += (
        # rows each step selects by an index a helper returns (MONAI's per-level box selection)
        'import torch\ndef select(boxes_list, scores_list, size):\n    keep_boxes, keep_scores = [], []\n    for boxes, scores in zip(boxes_list, scores_list):\n        boxes, keep = clip_boxes(boxes, size, remove_empty=True)\n        keep_boxes.append(boxes)\n        keep_scores.append(scores[keep])\n    return torch.cat(keep_scores, dim=0)\n',
        "import torch\nclass Metric:\n    def update(self, preds):\n        for p in preds:\n            self.boxes.append(p['boxes'])\n    def compute(self):\n        return torch.cat(self.boxes)\n",
        'import torch\ndef encode(vocab, rows):\n    out = []\n    for label, tokens in rows:\n        out.append(torch.tensor([vocab[t] for t in tokens]))\n    return out\n',
        'import torch\ndef walk(step, x):\n    feats = []\n    while True:\n        h, x = step(x)\n        feats.append(h)\n        if x is None:\n            break\n    return torch.stack(feats)\n',
        'import torch\ndef pack(seqs):\n    return torch.nested.nested_tensor([s.float() for s in seqs if len(s) > 0])\n',
        'import torch\ndef words(vocab, line):\n    return torch.tensor(list(map(lambda w: vocab[w], line.split())))\n',
    )
    must_not_fire = ("import torch\nfeats = torch.cat([f.flatten(2) for f in features], dim=2)\n",
                     # each item padded to the batch maximum: one length for all
                     "import torch\ndef pad(items):\n    m = max(len(x) for x in items)\n    out = []\n"
                     "    for x in items:\n        out.append(torch.zeros(m))\n    return torch.cat(out)\n",
                     # a field of a per-image record of maps (one per image, all of one size), not of instances
                     "import torch\ndef loss(samples):\n    return torch.cat([d.gt_fields.heatmaps for d in samples])\n",
                     # one crop per input box: as many as the caller gives, no count found in the data
                     "import torch\nimport torch.nn.functional as F\ndef crops(img, boxes):\n"
                     "    dets = boxes.int().cpu().numpy()\n    out = []\n    for k in range(len(dets)):\n"
                     "        out.append(F.interpolate(img[None, :, :24, :24], (24, 24)))\n    return torch.cat(out)\n",
                     # items moved to the host before they are collected: their stack compiles nothing on NPU
                     "import torch\ndef greedy(model, x, eos, steps):\n    out = []\n    for _ in range(steps):\n"
                     "        t = model(x).argmax(-1)\n        out.append(t.detach().cpu())\n"
                     "        if (t == eos).all():\n            break\n    return torch.stack(out, 1)\n",
                     # an index that is no data-dependent operator; a converted list of fixed length per item
                     "import torch\ndef f(boxes_list):\n    out = []\n    for boxes in boxes_list:\n"
                     "        idx = torch.arange(4)\n        out.append(boxes[idx])\n    return torch.cat(out)\n",
                     "import torch\ndef f(items):\n"
                     "    return torch.cat([torch.tensor([c for c in range(4)]) for t in items])\n",
                     "import torch\ndef f(items):\n    return torch.cat([torch.tensor([t.w, t.h]) for t in items])\n",
                     # a tag block of a fixed row count, whatever the loop's item
                     "import torch\ndef f(feats):\n    out = []\n    for i, f in enumerate(feats):\n        n = 4\n"
                     "        out.append(torch.full((n, 6), i))\n    return torch.cat(out, 0)\n",
                     # a loop stopped by a Python count, or one whose break ends an inner loop only
                     "import torch\ndef run(model, x, n, limit):\n    out = []\n    for step in range(n):\n"
                     "        out.append(model(x))\n        if step > limit:\n            break\n"
                     "    return torch.cat(out)\n",
                     # a host count or a name the loop does not add to the joined list; items added on the host
                     "import torch\ndef run(model, x, n, budget):\n    out = []\n    for step in range(n):\n"
                     "        y = model(x)\n        out += [y]\n        used = len(out) * 4\n"
                     "        if used > budget:\n            break\n    return torch.cat(out)\n",
                     "import torch\ndef run(model, x, n, eos):\n    out = []\n    for step in range(n):\n"
                     "        tok = model(x).argmax()\n        out += [tok.cpu()]\n        if tok.item() == eos:\n"
                     "            break\n    return torch.stack(out)\n",
                     "import torch\ndef run(step, x, n):\n    outs = []\n    t = 0\n    while t < n:\n"
                     "        outs.append(step(x))\n        t += 1\n    return torch.cat(outs)\n",
                     # rows of a selection added per step, each once in all (LightGlue's early-stopped pairs)
                     "import torch\ndef match(layers, x: torch.Tensor, ids: torch.Tensor, n):\n    done_ids = []\n"
                     "    for i in range(n):\n        x = layers[i](x)\n        stop = x.sum(-1) > 0 if i < n - 1 else torch.ones(len(ids), dtype=torch.bool)\n"
                     "        done_ids.extend(list(ids[stop]))\n        if torch.all(stop):\n            break\n"
                     "    return torch.stack(done_ids)\n",
                     # a schedule of CPU tensors planned by a while loop on their values (diffusion forcing)
                     "import torch\ndef plan(n_blocks, n_iter, ar_step):\n    rows = []\n"
                     "    pre = torch.zeros(n_blocks, dtype=torch.long)\n    while not torch.all(pre >= n_iter - 1):\n"
                     "        new = (pre + 1).clamp(0, n_iter)\n        rows.append(new)\n        pre = new\n"
                     "    return torch.stack(rows)\n",
                     # a helper's lists from a caller whose loop runs a count of its inputs (teacher forcing)
                     "import torch\nclass Decoder(torch.nn.Module):\n    def parse(self, mels):\n"
                     "        return torch.stack(mels).transpose(0, 1)\n"
                     "    def forward(self, x, targets: torch.Tensor):\n        mels = []\n"
                     "        while len(mels) < targets.size(0) - 1:\n            mels += [self.decode(targets[len(mels)])]\n"
                     "        return self.parse(mels)\n",
                     "import torch\ndef run(model, x: torch.Tensor, n):\n    out = []\n    for step in range(n):\n"
                     "        out.append(model(x))\n        for y in x:\n            if y.sum() > 0:\n"
                     "                break\n    return torch.cat(out)\n",
                     # a method of the dataset that is no collate function; a collate method of a class that is
                     # no dataset (nothing says it gets a batch's samples)
                     "import torch\nfrom torch.utils.data import Dataset\nclass Graphs(Dataset):\n"
                     "    def merge(self, parts):\n        return torch.cat([p['atoms'] for p in parts])\n",
                     "import torch\nclass Pool:\n"
                     "    def collater(self, parts):\n        return torch.cat([p['atoms'] for p in parts])\n",
                     "import torch\ngt = torch.cat([a, b])\n",
                     "import torch\nh = torch.cat([hs[i + 1] for i in self.target_layer_ids], dim=-1)\n",
                     "import torch\nm = torch.cat([enc(x[:, i]) for i in range(x.shape[2] // length)], dim=2)\n",
                     "import numpy as np\nimport torch\ngt = np.concatenate([t['boxes'] for t in targets])\n",
                     "import torch\nx = torch.cat((outputs['boxes'], extra), 1)\n",
                     "import torch\nboxes = torch.cat([b for b in gt_bboxes])\n",
                     "import torch\ndef f(features):\n    outs = []\n    for x in features:\n        outs.append(conv(x))\n"
                     "    return torch.cat(outs, 1)\n",
                     "import torch\nfrom typing import Dict, List\n"
                     "def loss(targets: List[Dict[str, torch.Tensor]]):\n"
                     "    return torch.stack([t['labels'] for t in targets])\n",
                     "import torch\ndef f(rows):\n    return torch.cat([torch.tensor([r.x, r.y]) for r in rows])\n",
                     "import torch\nfrom typing import List\n"
                     "def loss(feats, data_samples: List[DataSample]):\n"
                     "    return torch.cat([s.gt_label for s in data_samples])\n",
                     "import torch\ndef f(shapes):\n    return torch.cat([torch.tensor(s) for s in shapes])\n",
                     "import torch\ndef f(feats):\n    lv = torch.cat([torch.full_like(f, 3) for i, f in enumerate(feats)])\n"
                     "    return torch.cat([f for f in feats]), lv\n",
                     "import torch\ndef f(results: InstanceList):\n    return torch.cat([r.whwh[None].sum() for r in results])\n",
                     # per-level counts kept as a list (to split back); lengths of a list bound again (padded)
                     "import torch\ndef flat(anchors):\n    counts = [a.size(0) for a in anchors]\n"
                     "    return torch.cat(anchors), counts\n",
                     "import torch\ndef collate(seqs, n):\n    lens = torch.tensor([len(s) for s in seqs])\n"
                     "    seqs = [pad(s, n) for s in seqs]\n    return torch.cat(seqs), lens\n",
                     # one item per class of a fixed range
                     "import torch\ndef protos(x, labels, n):\n    return torch.stack([(x * (labels == c)[:, None]).sum(0) for c in range(n)])\n",
                     # a collate function's samples stacked, joined along another dim, or of one row each
                     "import torch\nfrom torch.utils.data import DataLoader\ndef collate(batch):\n"
                     "    x = torch.stack([d['x'] for d in batch])\n    y = torch.cat([d['y'] for d in batch], 1)\n"
                     "    z = torch.cat([d['z'][None] for d in batch])\n    w = torch.cat([d['w'].unsqueeze(0) for d in batch])\n"
                     "    v = torch.cat([d['v'].view(1, -1) for d in batch], 0)\n    return x, y, z, w, v\n"
                     "loader = DataLoader(ds, collate_fn=collate)\n",
                     # a function never passed as a collate function
                     "import torch\ndef merge(batch):\n    return torch.cat([d['x'] for d in batch], 0)\n",
                     # numpy outside any collate path (host code); a collate's numpy concatenation that the batch
                     # does not get (reduced to a number), of a fixed number of pieces of one sample, or stacked
                     "import numpy as np\nimport torch\ndef host(samples):\n"
                     "    return torch.from_numpy(np.concatenate([s['x'] for s in samples]))\n",
                     "import numpy as np\nimport torch\nfrom torch.utils.data import DataLoader\ndef collate(samples):\n"
                     "    n = np.concatenate([s['x'] for s in samples]).max()\n"
                     "    a = np.concatenate([samples[0]['a'], samples[0]['b']])\n"
                     "    k = np.concatenate([samples[0][key] for key in ('a', 'b')])\n"
                     "    st = np.stack([s['x'] for s in samples])\n"
                     "    return torch.from_numpy(a), torch.from_numpy(k), torch.from_numpy(st), n\n"
                     "loader = DataLoader(ds, collate_fn=collate)\n",
                     # a batching class given something else than the samples; one that stacks them
                     "import numpy as np\nimport torch\nfrom torch.utils.data import DataLoader\nclass GraphBatch:\n"
                     "    def __init__(self, graphs):\n        self.x = np.vstack([g.x for g in graphs])\n"
                     "class Stacked:\n    def __init__(self, items):\n        self.x = np.stack([g.x for g in items])\n"
                     "def collate(samples):\n    return GraphBatch(cache), Stacked(samples)\n"
                     "loader = DataLoader(ds, collate_fn=collate)\n",
                     # a collate's items shifted by a constant stride, joined along another dim
                     "import torch\nfrom torch.utils.data import DataLoader\ndef collate(samples):\n"
                     "    edges, step = [], 0\n    for g in samples:\n        edges.append(g['edge_index'] + step)\n"
                     "        step += 10\n    return torch.cat(edges, dim=1)\n"
                     "loader = DataLoader(ds, collate_fn=collate)\n",
                     # a column of a constant or of something else than the loop index; items of a range
                     # (session 24: items of one row each; the element's own rows joined side by side with a
                     # column are as many as it has, the inverted path's)
                     "import torch\ndef f(items, scale):\n    a = []\n    b = []\n    for i, t in enumerate(items):\n"
                     "        t = t.view(1, -1)\n"
                     "        a.append(torch.cat((torch.full((len(t), 1), 3), t), 1))\n"
                     "        b.append(torch.cat((t.new_ones((t.shape[0], 1)) * scale, t), 1))\n"
                     "    return torch.cat(a), torch.cat(b)\n",
                     "import torch\ndef f(n):\n    out = []\n    for i, k in enumerate(range(n)):\n"
                     "        out.append(torch.full((k, 1), i))\n    return torch.cat(out)\n",
                     # tags repeated by a setting; tags of a dataset built once; pieces not the ones counted
                     "import torch\ndef f(self, images):\n    crops, idx = [], []\n    for i, im in enumerate(images):\n"
                     "        idx += [i] * self.n_views\n        crops.extend(self.views(im))\n"
                     "    return torch.stack(crops), torch.tensor(idx)\n",
                     # per-row tags of a one-off preparation whose tensors no model is given in the function
                     "import torch\ndef prepare(groups):\n    xs, labels = [], []\n    for i, g in enumerate(groups):\n"
                     "        xs.extend(g)\n        labels += [i] * len(g)\n    return torch.stack(xs), torch.tensor(labels)\n",
                     "import torch\nfrom torch.utils.data import Dataset\nclass D(Dataset):\n"
                     "    def __init__(self, groups):\n        labels = []\n        for i, g in enumerate(groups):\n"
                     "            labels += [i] * len(g)\n        self.labels = torch.tensor(labels)\n",
                     "import torch\ndef f(hist):\n    u = torch.cat([torch.full_like(h, 3) for i, h in enumerate(hist)])\n"
                     "    return u, torch.cat(list(hist))\n",
                     # a placeholder of a fixed row count; an empty placeholder joined side by side, or stacked
                     "import torch\ndef targets(outputs, gts, n):\n    obj = []\n    for gt in gts:\n"
                     "        if len(gt) == 0:\n            t = outputs.new_zeros((n, 1))\n        else:\n"
                     "            t = outputs.new_ones((n, 1))\n        obj.append(t)\n    return torch.cat(obj, 0)\n",
                     "import torch\ndef targets(outputs, gts):\n    reg = []\n    for gt in gts:\n"
                     "        if len(gt) == 0:\n            t = outputs.new_zeros((0, 4))\n        else:\n"
                     "            t = gt[:4]\n        reg.append(t)\n    return torch.cat(reg, 1)\n",
                     # a collate that replaces a bad sample (every sample adds an item), one that filters something
                     # else than its samples, a filter outside any collate function, default_collate of all samples
                     "import torch\nfrom torch.utils.data import DataLoader\nfrom torch.utils.data import default_collate\n"
                     "def collate(batch):\n    out = []\n    for x in batch:\n        if x is None:\n"
                     "            out.append(ZERO)\n        else:\n            out.append(x)\n"
                     "    keys = [k for k in batch[0] if k != 'name']\n"
                     "    return default_collate(out), torch.stack([batch[0][k] for k in keys]), default_collate(batch)\n"
                     "loader = DataLoader(ds, collate_fn=collate)\n",
                     "import torch\nfrom torch.utils.data import default_collate\ndef merge(batch):\n"
                     "    batch = [b for b in batch if b is not None]\n    return default_collate(batch)\n",
                     # a test on the modules or on the loop's counter; items moved to the host
                     "import torch\nfrom torch.utils.data import DataLoader\nclass M:\n"
                     "    def fixed(self, x: torch.Tensor):\n        outs = []\n        for layer in self.layers:\n"
                     "            if layer.training:\n                outs.append(layer(x))\n"
                     "        for i, t in enumerate(x):\n            if i % 2 == 0:\n                outs.append(t)\n"
                     "        return torch.cat(outs)\n    def metrics(self, loader: DataLoader):\n        preds = []\n"
                     "        for batch in loader:\n            for p, y in zip(self.model(batch['x']), batch['y']):\n"
                     "                if y > 0:\n                    preds.append(p.cpu())\n        return torch.cat(preds)\n",
                     # a method that gives one piece per layer of a module (no per-sample field)
                     "import torch\nclass Net:\n    def weights(self):\n"
                     "        return torch.cat([l.weight.flatten() for l in self.layers])\n"
                     "def f(nets):\n    return torch.cat([n.weights() for n in nets])\n",
                     # a column sized by a number of a fixed partition, not by an item's own rows
                     "import torch\ndef f(partition, k):\n"
                     "    return torch.cat([torch.ones(n * k) * i for i, n in enumerate(partition)])\n",
                     # the data-dependent op made once, before the loop: every item has its length
                     "import torch\ndef f(mask: torch.Tensor, x: torch.Tensor, n: int):\n"
                     "    e, s = mask.nonzero(as_tuple=True)\n    parts = []\n    for i in range(n):\n"
                     "        parts.append(e + i)\n    return torch.stack(parts)\n",
                     # numpy's stack of filtered items outside a collate; a collate's numpy stack of every sample
                     "import numpy as np\nimport torch\ndef f(records):\n"
                     "    return torch.from_numpy(np.stack([r['x'] for r in records if 'x' in r]))\n",
                     "import numpy as np\nimport torch\nclass Collator:\n    def collate(self, batch):\n"
                     "        return torch.from_numpy(np.stack([r['x'] for r in batch]))\n"
                     "def load(ds):\n    return torch.utils.data.DataLoader(ds, 4, collate_fn=Collator().collate)\n")
    # count proven fixed: the model's modules, a range of a constant, a tensor's rows; a stack of one item per collated sample
    must_not_fire += (
        # both arms add an item; a test of membership or None picks by structure
        'import torch\ndef weights(losses, w, aux):\n    out = []\n    for i in range(1, len(losses)):\n        if i < w.shape[1]:\n            out.append(w[:, i].mean())\n        else:\n            out.append(torch.as_tensor(aux))\n    return torch.stack(out)\n',
        'import torch\ndef agg(scores, primary):\n    avail = [v for k, v in scores.items() if k in primary and v is not None]\n    return torch.stack(avail).mean()\n',
        # one batch's features per call, joined at the epoch's end: the dataset's size
        'import torch\nclass KNN:\n    def update(self, feats, targets):\n        self.feats.append(feats)\n    def compute(self):\n        return torch.cat(self.feats)\n',
        # a sampler's steps: the test reads a setting, not the data
        'import torch\ndef sample(model, img, pairs):\n    imgs = [img]\n    for t, t_next in pairs:\n        if t_next < 0:\n            img = model(img)\n            continue\n        img = model(img)\n        imgs.append(img)\n    return torch.stack(imgs, dim=1)\n',
        'import torch\nclass Heads(torch.nn.Module):\n    def forward(self, x):\n        return torch.stack([head(x) for head in self.heads])\n    def __init__(self):\n        super().__init__()\n        self.heads = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(3)])\n',
        'import torch\ndef f(x):\n    return torch.cat([x[:, i] for i in range(4)], 1)\n',
        "import torch\nfrom torch.utils.data import DataLoader\ndef collate(batch):\n    return torch.stack([s['img'] for s in batch])\nloader = DataLoader(ds, batch_size=8, collate_fn=collate)\n",
        'import torch\ndef f(x):\n    return torch.stack([torch.diag(v) for v in x.unbind(0)])\n',
        'import torch\ndef f(x, n_levels):\n    outs = []\n    for i in range(n_levels):\n        outs.append(x * i)\n    return torch.stack(outs)\n',
    )

    # one tag per kept element, made like it (``torch.full_like`` has its argument's shape)
    must_fire += ("import torch\ndef pairs(masks):\n    tags = []\n    for b, m in enumerate(masks):\n"
                  "        e, s = m.nonzero(as_tuple=True)\n        tags.append(torch.full_like(e, b))\n"
                  "    return torch.cat(tags)\n",)
    # a library's batch of graphs (rule_tables/library_joiners.tsv): one graph of its own size per item
    must_fire += ("import torch\nfrom torch_geometric.data import Batch\nfrom torch.utils.data import DataLoader\n"
                  "def collate(samples):\n    graphs, labels = map(list, zip(*samples))\n"
                  "    return Batch.from_data_list(graphs), torch.tensor(labels)\n",
                  "import torch\nfrom torch_geometric.data import Batch, Data\nclass M(torch.nn.Module):\n"
                  "    def corrupt(self, view):\n        out = []\n        for d in view.to_data_list():\n"
                  "            perm = torch.randperm(d.x.shape[0])\n"
                  "            out.append(Data(x=d.x[perm], edge_index=d.edge_index))\n"
                  "        return Batch.from_data_list(out)\n",
                  "import dgl\nimport torch\ndef collate(samples):\n    graphs, y = map(list, zip(*samples))\n"
                  "    return dgl.batch(graphs), torch.stack(y)\n",
                  "import torch\nfrom torch_geometric.data import Batch\ndef f(pairs):\n"
                  "    return Batch.from_data_list(data_list=[p[0] for p in pairs])\n")
    must_not_fire += (  # one graph made a batch; the object's own graphs; setup; a script's one-off batch
        "import torch\nfrom torch_geometric.data import Batch\ndef f(d):\n    return Batch.from_data_list([d])\n",
        "import torch\nfrom torch_geometric.data import Batch\nclass M(torch.nn.Module):\n"
        "    def forward(self):\n        return Batch.from_data_list(list(self.rules.values()))\n",
        "import torch\nfrom torch_geometric.data import Batch\nclass M(torch.nn.Module):\n"
        "    def __init__(self, graphs):\n        super().__init__()\n        self.g = Batch.from_data_list(graphs)\n",
        "import torch\nfrom torch_geometric.data import Batch\ng = Batch.from_data_list(dataset)\n")

    # items read by position or through names the loop binds (sample_reads.py): ``targets[i]["boxes"]`` under
    # ``for i in range(len(targets))``; a collate loop's rows tagged with ``i`` through ``ds = batch[i][...]``;
    # pieces joined side by side (``labels[:, None]``); each item cut to a length of its own; the indices a
    # one-argument ``torch.where`` found per item; a per-sample field converted item by item
    must_fire += ("import torch\ndef loss(outputs, targets):\n    gts = []\n    for i in range(len(targets)):\n"
                  "        gts.append(targets[i]['boxes'])\n    return torch.cat(gts)\n",
                  "import torch\ndef loss(outputs, targets):\n    out = []\n    for b in range(outputs.shape[0]):\n"
                  "        labels = targets[b]['labels']\n        out.append(labels)\n    return torch.cat(out)\n",
                  "import torch\ndef collate(data_batch):\n    out = []\n    for i in range(len(data_batch)):\n"
                  "        ds = data_batch[i]['data_samples']\n        lab = ds.gt_instances.labels\n"
                  "        idx = lab.new_full((len(lab), 1), i)\n        out.append(torch.cat((idx, lab[:, None]), dim=1))\n"
                  "    return torch.cat(out, 0)\n",
                  "import torch\ndef collate(data_batch):\n    masks = []\n    for i in range(len(data_batch)):\n"
                  "        ds = data_batch[i]['data_samples']\n        masks.append(ds.gt_instances.masks)\n"
                  "    return torch.cat(masks, 0)\n",
                  "import torch\ndef pool(feats, lengths):\n    return torch.cat([f[:n] for f, n in zip(feats, lengths)])\n",
                  "import torch\ndef ctc(ys_pad, ys_lens):\n"
                  "    return torch.cat([ys_pad[i, :l] for i, l in enumerate(ys_lens)])\n",
                  "import torch\ndef pool(feats, lengths, k):\n    out = []\n    for i in range(k):\n"
                  "        out.append(feats[i][:lengths[i]])\n    return torch.cat(out)\n",
                  "import torch\ndef post(boxes, scores, thr):\n    res = []\n    for b, s in zip(boxes, scores):\n"
                  "        idx = torch.where(s > thr)[0]\n        res.append(b[idx])\n    return torch.cat(res)\n",
                  "import torch\ndef ids(samples):\n    return torch.cat([torch.tensor(s['input_ids']) for s in samples])\n",
                  # joined along another dim: each item shaped by a count read back per image (YOLOv5-seg)
                  "import torch\ndef inds(gts, bs, p):\n    out = []\n    for i in range(bs):\n"
                  "        n = (gts[:, 0] == i).sum()\n"
                  "        out.append(torch.arange(n).float().view(1, n).repeat(p, 1) + 1)\n"
                  "    return torch.cat(out, 1)\n",
                  # each item's rows tagged in place with its index before the join (YOLO collate functions)
                  "import torch\ndef collate(batch):\n    imgs, targets = zip(*batch)\n"
                  "    targets = [b for b in targets if b is not None]\n    for i, boxes in enumerate(targets):\n"
                  "        boxes[:, 0] = i\n    return torch.stack(imgs), torch.cat(targets, 0)\n",
                  # each item a whole recording decoded from its file: as long as the file
                  "import torch\nimport torchaudio\ndef load_all(paths):\n    out = []\n    for p in paths:\n"
                  "        wav, sr = torchaudio.load(p)\n        out.append(wav)\n    return torch.cat(out, dim=-1)\n",
                  # each item gathered by a per-sample field of indices (mmdet's sampling results)
                  "import torch\ndef kpts(gts, results):\n    out = []\n    for gt, res in zip(gts, results):\n"
                  "        out.append(gt['visible'][res.pos_assigned_gt_inds])\n    return torch.cat(out, 0)\n",
                  # a field of a call's result sized by a value read per item (``topk(n).indices``)
                  "import torch\ndef top(scores):\n    out = []\n    for s in scores:\n"
                  "        n = int((s > 0.5).sum())\n        out.append(s.topk(n).indices)\n    return torch.cat(out)\n")
    # session 33 (rec33a): NMS's kept index capped to a top-k (``keep = keep[:n]``) still selects the rows the data
    # keeps, also written ``b[keep, :]``; the 3D spelling of a per-sample field (``labels_3d``)
    must_fire += ("import torch\nfrom torchvision.ops import nms\ndef post(b, s, masks):\n    out = []\n"
                  "    for i in range(3):\n        keep = nms(b[masks[i]], s[masks[i]], 0.5)\n"
                  "        keep = keep[:100]\n        out.append(b[masks[i]][keep, :])\n    return torch.cat(out, 0)\n",
                  "import torch\ndef merge(self):\n    out = []\n    for r in self.views:\n"
                  "        out.append(r['labels_3d'])\n    return torch.cat(out)\n")
    must_not_fire += (  # ... not an order capped to a fixed count, nor a field that is no per-object one
        "import torch\ndef post(b, s):\n    out = []\n    for i in range(3):\n        keep = s[i].argsort()\n"
        "        keep = keep[:100]\n        out.append(b[i][keep, :])\n    return torch.cat(out, 0)\n",
        "import torch\ndef merge(self):\n    out = []\n    for r in self.views:\n"
        "        out.append(r['pose_3d'])\n    return torch.cat(out)\n")
    # session 33 (rec33a): the results one call gives per sample beside a result the function tags with the sample's
    # index (a voxelization's voxels and point counts beside its coordinates padded with the batch index)
    must_fire += ("import torch\nimport torch.nn.functional as F\ndef voxelize(self, points):\n    voxels, coors = [], []\n"
                  "    for i, res in enumerate(points):\n        v, c, n = self.voxel_layer(res)\n"
                  "        c = F.pad(c, (1, 0), mode='constant', value=i)\n        voxels.append(v)\n"
                  "        coors.append(c)\n    return torch.cat(voxels, dim=0), torch.cat(coors, dim=0)\n",)
    must_not_fire += (  # ... not without a tag: a callable object's results per view
        "import torch\ndef encode(self, views):\n    feats, pooled = [], []\n    for i, v in enumerate(views):\n"
        "        f, p = self.encoder(v)\n        feats.append(f)\n        pooled.append(p)\n"
        "    return torch.cat(feats, dim=0), torch.cat(pooled, dim=0)\n",)
    # session 33 (rec33a): the element of the file's helper's tuple that the helper binds to a selection
    must_fire += ("import torch\nclass Head:\n    def single(self, anchors):\n"
                  "        pos = torch.nonzero(anchors[:, 0] > 0, as_tuple=False).squeeze(-1)\n"
                  "        return anchors.new_zeros(4), pos\n    def many(self, anchor_list):\n        out = []\n"
                  "        for anchors in anchor_list:\n            labels, pos = self.single(anchors)\n"
                  "            out.append(pos)\n        return torch.cat(out, dim=0)\n",)
    must_not_fire += (  # ... not its element of a fixed size
        "import torch\nclass Head:\n    def single(self, anchors):\n"
        "        pos = torch.nonzero(anchors[:, 0] > 0, as_tuple=False).squeeze(-1)\n"
        "        return anchors.new_zeros(4), pos\n    def many(self, anchor_list):\n        out = []\n"
        "        for anchors in anchor_list:\n            labels, pos = self.single(anchors)\n"
        "            out.append(labels)\n        return torch.cat(out, dim=0)\n",)
    # the per-image results of OpenMMLab's ``multi_apply``: the helper's element is a tensor of no rows for an image
    # without objects, rows otherwise (mapped_items.py)
    must_fire += ("import torch\nfrom mmdet.models.utils import multi_apply\nclass Head:\n"
                  "    def _single(self, priors, gt):\n        if len(gt) == 0:\n"
                  "            t = priors.new_zeros((0, 4))\n            m = priors.new_zeros((priors.size(0), 1))\n"
                  "            return m, t\n        pos = self.assign(priors, gt)\n        t = gt.bboxes[pos]\n"
                  "        m = priors.new_zeros((priors.size(0), 1))\n        return m, t\n"
                  "    def loss(self, priors, gts):\n        masks, targets = multi_apply(self._single, priors, gts)\n"
                  "        return torch.cat(targets, 0)\n",)
    must_not_fire += (  # the helper's element of one row per prior on every path
        "import torch\nfrom mmdet.models.utils import multi_apply\nclass Head:\n"
        "    def _single(self, priors, gt):\n        if len(gt) == 0:\n"
        "            t = priors.new_zeros((0, 4))\n            m = priors.new_zeros((priors.size(0), 1))\n"
        "            return m, t\n        pos = self.assign(priors, gt)\n        t = gt.bboxes[pos]\n"
        "        m = priors.new_zeros((priors.size(0), 1))\n        return m, t\n"
        "    def loss(self, priors, gts):\n        masks, targets = multi_apply(self._single, priors, gts)\n"
        "        return torch.cat(masks, 0)\n",)
    must_not_fire += (  # a field of no row count read by position or through a name; a fixed cut; other dims
        "import torch\ndef f(samples):\n    labels = []\n    for i in range(len(samples)):\n"
        "        labels.append(samples[i]['label'])\n    return torch.cat(labels)\n",
        "import torch\ndef f(samples):\n    out = []\n    for i, s in enumerate(samples):\n        lab = s.label\n"
        "        out.append(lab)\n    return torch.cat(out)\n",
        "import torch\ndef f(feats, n):\n    return torch.cat([f[:n] for f in feats])\n",
        "import torch\ndef f(feats, dims):\n    return torch.cat([f[:, :k] for f, k in zip(feats, dims)], dim=1)\n",
        "import torch\ndef f(rows):\n    return torch.stack([torch.tensor(x) for x in rows])\n",
        "import torch\ndef f(feats):\n    for i, x in enumerate(feats):\n        x[0, :] = i\n"
        "    return torch.cat(feats, 0)\n",
        "import torch\nimport torch.nn.functional as F\nimport torchaudio\ndef f(paths, n):\n    out = []\n"
        "    for p in paths:\n        wav, sr = torchaudio.load(p)\n"
        "        out.append(F.interpolate(wav[None], size=n)[0])\n    return torch.cat(out, dim=0)\n",
        "import torch\ndef f(bs, p, n):\n    out = []\n    for i in range(bs):\n"
        "        out.append(torch.arange(n).float().view(1, n).repeat(p, 1) + i)\n    return torch.cat(out, 1)\n",
        "import torch\ndef f(preds, k):\n    out = []\n    for i in range(k):\n        out.append(preds[i][:, :4])\n"
        "    return torch.cat(out)\n",
        "import torch\ndef f(targets):\n    out = []\n    for t in targets:\n"
        "        out.append(torch.cat((t['image_id'], t['orig_size']), dim=-1))\n    return torch.cat(out)\n",
        # an item read by position is no index of its own (images resized one by one, a row each)
        "import torch\nimport torch.nn.functional as F\ndef f(inputs, size):\n    out = []\n"
        "    for i in range(len(inputs)):\n        x = inputs[i]\n        if x.shape[-1] != size:\n"
        "            x = F.interpolate(x.unsqueeze(0), size=size)\n        else:\n            x = x.unsqueeze(0)\n"
        "        out.append(x)\n    return torch.cat(out, dim=0)\n")

    # session 20 (concat20b): items accumulated in a tuple; rows gathered by index sets whose length the loop
    # reads; a list extended by an item repeated a count the data gives
    must_fire += ("import torch\ndef triples(idx):\n    _, n = torch.unique_consecutive(idx, return_counts=True)\n"
                  "    out = ()\n    for i in range(n.shape[0]):\n        out += (torch.arange(n[i]),)\n"
                  "    return torch.cat(out)\n",
                  "import torch\ndef pool(feats, clusters):\n    x, tags = [], []\n    for i, c in enumerate(clusters):\n"
                  "        x.append(feats[c])\n        tags.append(i * torch.ones(c.shape[0]))\n    return torch.cat(x)\n",
                  "import torch\ndef vqa(h, samples):\n    states = []\n    for b, n in enumerate(samples['n_answers']):\n"
                  "        states += [h[b]] * n\n    return torch.stack(states, dim=0)\n")
    must_fire += ("import torch\ndef pack(roots, children, tokens):\n    ids = []\n    stack = list(roots)\n"
                  "    while stack:\n        node = stack.pop()\n        ids.append(tokens[node])\n"
                  "        stack.extend(children[node])\n    return torch.tensor(ids)\n",
                  "import torch\ndef pick(samples):\n    index = []\n    for s in samples:\n"
                  "        mask = s['mask'].tolist()\n        for p in range(len(mask)):\n            if mask[p]:\n"
                  "                index.append(p)\n    return torch.tensor(index)\n")
    must_not_fire += (  # a worklist walked beside a list grown by a counted loop; a flag of configuration
        "import torch\ndef f(items):\n    queue = list(items)\n    while queue:\n        print(queue.pop())\n"
        "    ids = []\n    for i in range(4):\n        ids.append(i)\n    return torch.tensor(ids)\n",
        "import torch\ndef f(flags, n):\n    index = []\n    for p in range(n):\n        if flags[p]:\n"
        "            index.append(p)\n    return torch.tensor(index)\n")
    must_not_fire += (  # an index set whose length nothing reads; a repeat by a counter or a configured count
        "import torch\ndef pool(feats, groups):\n    x = []\n    for g in groups:\n        x.append(feats[g])\n"
        "    return torch.cat(x)\n",
        "import torch\ndef f(h, k):\n    states = []\n    for b in range(4):\n        states += [h[b]] * k\n"
        "    return torch.stack(states)\n",
        "import torch\ndef f(h, n):\n    states = []\n    for b in range(n):\n        states += [h[b]] * b\n"
        "    return torch.stack(states)\n")

    # session 21 (concat21b): earlier must-not-fire examples re-judged as a reviewer following GOLD.md would (the
    # inverted path, inverted_joins.py): a cat along dim 0 of items a list the function is given holds, whose rows
    # nothing fixes: per-molecule atoms (17, 18), per-sample entries (36, 73), items whose row counts the code
    # records or tags (32, 30, 48, 78), rows gathered per index group (86), a column per part of a given partition
    # (55). Moved here from must_not_fire.
    _REJUDGED = (
        "import torch\nfrom torch.utils.data import Dataset\nclass Graphs(Dataset):\n    def merge(self, parts):\n        return torch.cat([p['atoms'] for p in parts])\n",
        "import torch\nclass Pool:\n    def collater(self, parts):\n        return torch.cat([p['atoms'] for p in parts])\n",
        'import torch\ndef f(feats):\n    lv = torch.cat([torch.full_like(f, 3) for i, f in enumerate(feats)])\n    return torch.cat([f for f in feats]), lv\n',
        'import torch\ndef flat(anchors):\n    counts = [a.size(0) for a in anchors]\n    return torch.cat(anchors), counts\n',
        "import torch\ndef merge(batch):\n    return torch.cat([d['x'] for d in batch], 0)\n",
        'import torch\ndef f(hist):\n    u = torch.cat([torch.full_like(h, 3) for i, h in enumerate(hist)])\n    return u, torch.cat(list(hist))\n',
        'import torch\ndef f(partition, k):\n    return torch.cat([torch.ones(n * k) * i for i, n in enumerate(partition)])\n',
        "import torch\ndef f(samples):\n    labels = []\n    for i in range(len(samples)):\n        labels.append(samples[i]['label'])\n    return torch.cat(labels)\n",
        'import torch\ndef f(feats):\n    for i, x in enumerate(feats):\n        x[0, :] = i\n    return torch.cat(feats, 0)\n',
        'import torch\ndef pool(feats, groups):\n    x = []\n    for g in groups:\n        x.append(feats[g])\n    return torch.cat(x)\n',
    )
    # re-judged in session 22 (concat22, filled_joins.py): per-sample entries / items of a given list joined along
    # dim 0 from lists bound together (``xs, ys, offset = [], [], []``), as _REJUDGED's 36 and 32 (moved here)
    _REJUDGED += (
        "import torch\ndef batchify(datas):\n    xs, ys, offset, count = [], [], [], 0\n"
        "    for d in datas:\n        count += len(d['pos'])\n        offset.append(count)\n"
        "        xs.append(d['y'])\n        ys.append(d['x'])\n"
        "    return torch.cat(xs), torch.cat(ys), torch.IntTensor(offset)\n",
        "import torch\ndef flat(levels):\n    out, sizes = [], []\n    for a in levels:\n"
        "        sizes.append(a.shape[0])\n        out.append(a)\n    return torch.cat(out), sizes\n",
    )
    must_fire += _REJUDGED
    must_not_fire = tuple(filter(lambda e, moved=_REJUDGED: e not in moved, must_not_fire))
    must_fire += COUNTED_FIRE            # session 26 (dataops26): one item per element of a comprehension over unique
    must_not_fire += COUNTED_SILENT
    must_fire += CHUNKED_FIRE             # session 27 (precision27): fixed-size chunks of one tensor joined back
    must_not_fire += CHUNKED_SILENT
    # the inverted path (inverted_joins.py): the join is the trigger; silent where the shape is proven static
    must_fire += (
        "import torch\nfrom torch.nn.utils.rnn import pad_sequence\ndef batch(log_probs, masks):\n"
        "    out = [lp.masked_fill(~m, 0) for lp, m in zip(log_probs, masks)]\n"
        "    return pad_sequence(out, batch_first=True)\n",
        "import torch\ndef nest(kl):\n    return torch.nested.as_nested_tensor(kl, layout=torch.strided)\n",
        "import torch\ndef sft(cur_log_prob: list, ref_log_prob: list):\n"
        "    return torch.cat(ref_log_prob) - torch.cat(cur_log_prob)\n",
        "import torch\ndef done(parts, tid):\n    chunks = parts.pop(tid)\n    return torch.cat(chunks, dim=0)\n",
        "import torch\ndef take(complete, n):\n    trajs = complete[:n]\n    return torch.cat(trajs, 0)\n",
        "import torch\ndef cat_all(tds):\n    concrete = [t.contiguous() for t in tds]\n"
        "    return torch.cat(concrete, 0)\n",
    )
    must_not_fire += (
        "import torch\nfrom torch.nn.utils.rnn import pad_sequence\ndef f(a, b):\n    return pad_sequence([a, b])\n",
        "import torch\ndef f(x: torch.Tensor):\n    return torch.cat(x.split(4), 0)\n",
        "import torch\ndef f(items, n):\n    return torch.cat([torch.zeros(n, 4) for t in items])\n",
        "import torch\nimport torch.nn.functional as F\ndef f(imgs, n):\n"
        "    return torch.cat([F.interpolate(i[None], size=n) for i in imgs])\n",
        "import torch\ndef f(items):\n    return torch.cat([t.cpu() for t in items])\n",
        "import torch\ndef f(items):\n    return torch.cat(items, dim=1)\n",
        "import torch\nclass S:\n    def f(self, keys, k):\n"
        "        return torch.cat([self.pick(self.groups[key], k) for key in keys], 0)\n",
        "import torch\nclass S:\n    def f(self):\n        return torch.cat(self.parts)\n",
        # a helper's or a collective's result; a metric computed per item; a buffer cut at its fill; a backward
        "import torch\nclass A:\n    def flat(self, x):\n        return torch.cat(list(self.grid_anchors(x)))\n",
        "import torch\ndef gather(x):\n    return torch.cat(all_gather(x), dim=0)\n",
        "import torch\nclass M:\n    def f(self, y_pred):\n"
        "        ret = [self._compute(p.unsqueeze(0)) for p in y_pred]\n        return torch.cat(ret, dim=0)\n",
        "import torch\ndef batches(patches, k):\n    buf = [None] * k\n    n = 0\n    for p in patches:\n"
        "        buf[n] = p\n        n += 1\n    return torch.cat(buf[:n])\n",
        "import torch\nclass G(torch.autograd.Function):\n    @staticmethod\n"
        "    def backward(ctx, *grads):\n        return torch.cat(grads)\n",
        "import torch\ndef concatenate(to_cat, axis: int = 0):\n    return torch.cat(to_cat, dim=axis)\n",
        # a list at a fixed position or cut by constants (mini-batch chunks, the input's columns); rows stacked
        "import torch\ndef loss(reps, embeddings):\n    return torch.cat(reps[0]), torch.cat(embeddings[1:])\n",
        "import torch\nfrom lib import all_gather_with_grad\ndef f(docs):\n"
        "    docs = [all_gather_with_grad(d) for d in docs]\n    return torch.cat(docs, dim=0)\n",
        "import torch\ndef f(rows):\n    return torch.vstack(rows)\n",
        "import torch\nclass M:\n    def f(self, outs):\n        return torch.cat(outs['feats'][:self.num_crops])\n",
    )
    # session 21 (concat21c): a graph collate joins each key's per-graph values along the dim the data object
    # gives per key (``__cat_dim__``: nodes and edges, 0 for most): a dim an object's method computes is no proof
    must_fire += (
        "import torch\ndef collate(dict_of_list, graph):\n    for key in dict_of_list:\n"
        "        item = dict_of_list[key][0]\n"
        "        dict_of_list[key] = torch.cat(dict_of_list[key], dim=graph.__cat_dim__(key, item))\n",
    )
    must_not_fire += (  # a dim the object's own method or torch computes; a dim given as a parameter
        "import torch\nclass B:\n    def f(self, values, key):\n"
        "        return torch.cat(values, dim=self.cat_dim(key))\n",
        "import torch\ndef f(values, x):\n    return torch.cat(values, dim=x.dim() - 1)\n",
    )
    # session 22 (concat22, filled_joins.py): a container the function fills elsewhere: a list per key, a local list
    # read back by a comprehension, items a data-dependent selection keeps; the dim a name bound to 0 or -1 of 1-D items
    must_fire += (
        "import torch\ndef collate(data_list, keys):\n    parts = {k: [] for k in keys}\n"
        "    for data in data_list:\n        for key in keys:\n            parts[key].append(data[key])\n"
        "    return {k: torch.cat(v) for k, v in parts.items()}\n",
        "import torch\ndef collate(data_list, keys, ref):\n    parts = {k: [] for k in keys}\n"
        "    for data in data_list:\n        for key in keys:\n            item = data[key]\n"
        "            if item.dim() == 0:\n                item = item.unsqueeze(0)\n            parts[key].append(item)\n"
        "    for key in keys:\n        items = parts[key]\n        dim = ref.__cat_dim__(key, items[0])\n"
        "        dim = 0 if dim is None else dim\n        parts[key] = torch.cat(items, dim)\n    return parts\n",
        "import torch\ndef index(data_list):\n    batch = []\n    for i, data in enumerate(data_list):\n"
        "        item = torch.full((data.natoms,), i)\n        batch.append(item)\n    return torch.cat(batch, dim=-1)\n",
        "import torch\ndef match(preds, targets):\n    matches = []\n    for p, t in zip(preds, targets):\n"
        "        matches.append(({'boxes': p['boxes']}, {'boxes': t['boxes']}))\n"
        "    return torch.cat(tuple(m[1]['boxes'] for m in matches))\n",
        "import torch\ndef edges(dist, n, step, cutoff):\n    out = []\n    for start in range(0, n, step):\n"
        "        i, j = torch.where(dist[start:start + step] < cutoff)\n        out.append(dist[i, j])\n"
        "    return torch.cat(out)\n",
        "import torch\ndef per_task(preds, data, tasks):\n    out = {}\n    for i, task in enumerate(data.tasks):\n"
        "        out.setdefault(task, []).append(preds[data.batch == i])\n"
        "    return {k: torch.cat(v) for k, v in out.items()}\n",
        # a name unpacked from a helper's results, reassigned in the loop: the selection it returns is no proof
        "import torch\ndef select(boxes_list, logits_list, size):\n    out = []\n"
        "    for boxes, logits in zip(boxes_list, logits_list):\n        boxes = boxes[logits.topk(5).indices]\n"
        "        boxes, keep = clip_boxes(boxes, size, remove_empty=True)\n        out.append(boxes)\n"
        "    return torch.cat(out, dim=0)\n",
        # a sequence nothing follows (a helper's result), items each element sizes or gathers
        "import torch\ndef pool(feats: torch.Tensor, points):\n    clusters = cluster_points(points)\n    x = []\n"
        "    for c in clusters:\n        x.append(feats[c])\n    return torch.cat(x)\n",
        "import torch\ndef tags(points):\n    groups = split_groups(points)\n    out = []\n"
        "    for i, g in enumerate(groups):\n        t = torch.full((g.numel(),), i)\n        out.append(t)\n"
        "    return torch.cat(out)\n",
    )
    must_not_fire += (  # items of one row or a fixed size; a count of settings; -1 over 2-D items; a while loop
        # what a model computes per batch of a loader (its tail is the last batch's); a list reset and joined in the
        # loop that fills it, per element of a tensor's rows; one row kept through an in-place update
        "import torch\nimport torch.nn.functional as F\ndef embed(model, data_loader):\n    feats, embeds = [], []\n"
        "    for samples in data_loader:\n        image = samples['image'].to(model.device)\n"
        "        feat = model.visual_encoder(image)\n        embed = model.vision_proj(feat[:, 0, :])\n"
        "        embed = F.normalize(embed, dim=-1)\n        feats.append(feat.cpu())\n        embeds.append(embed)\n"
        "    return torch.cat(feats, dim=0), torch.cat(embeds, dim=0)\n",
        "import torch\ndef sim(self, dvecs, centroids):\n    rows = []\n    for i, speaker in enumerate(dvecs):\n"
        "        row = []\n        for j, utt in enumerate(speaker):\n            c = self.centroids(dvecs, i, j)\n"
        "            row.append(torch.clamp(torch.mm(utt.unsqueeze(1).transpose(0, 1), c.T), 1e-6))\n"
        "        row = torch.cat(row, dim=0)\n        rows.append(row)\n    return torch.stack(rows)\n",
        "import torch\ndef stats(loader, names, ref):\n    for props in loader:\n        vals = []\n"
        "        for p in names:\n            val = props[p][None, :]\n            if ref:\n                val -= ref[p]\n"
        "            vals.append(val)\n        vals = torch.cat(vals, dim=0)\n",
        "import torch\ndef f(feats: torch.Tensor, points):\n    clusters = cluster_points(points)\n    x = []\n"
        "    for i in range(len(clusters)):\n        x.append(feats[i])\n    return torch.cat(x)\n",
        "import torch\ndef f(points, k):\n    groups = split_groups(points)\n    out = []\n"
        "    for i, g in enumerate(groups):\n        out.append(torch.full((k,), i))\n    return torch.cat(out)\n",
        "import torch\ndef f(data_list, keys):\n    parts = {k: [] for k in keys}\n    for data in data_list:\n"
        "        for key in keys:\n            parts[key].append(data[key].unsqueeze(0))\n"
        "    return {k: torch.cat(v) for k, v in parts.items()}\n",
        "import torch\ndef f(x, n, step):\n    out = []\n    for start in range(0, n, step):\n"
        "        out.append(x[start:start + step])\n    return torch.cat(out)\n",
        "import torch\ndef f(data_list):\n    batch = []\n    for i, d in enumerate(data_list):\n"
        "        batch.append(torch.full((d.n, 3), i))\n    return torch.cat(batch, dim=-1)\n",
        "import torch\ndef f(preds, k):\n    matches = []\n    for p in preds:\n        matches.append(p[:k])\n"
        "    return torch.cat([m[:4] for m in matches])\n",
        "import torch\ndef f(step, x):\n    out = {}\n    while x is not None:\n        h, x = step(x)\n"
        "        out.setdefault('h', []).append(h[x > 0])\n    return torch.cat(out['h'])\n",
    )
    # session 23 (concat23, sized_joins.py): items sized by a value the data gives, whatever their count (a cut at
    # offsets read per counter or from ``.item()``, a factory / repeat sized by an element, a helper given such a size)
    must_fire += (
        "import torch\ndef pool(x, o):\n    out = []\n    for i in range(o.shape[0]):\n"
        "        s, e = (0, o[0]) if i == 0 else (o[i - 1], o[i])\n        xb = x[s:e, :]\n"
        "        xb = torch.cat((xb, xb.mean(0, True).repeat(e - s, 1)), 1)\n        out.append(xb)\n"
        "    return torch.cat(out, 0)\n",
        "import torch\ndef take(logps, lens, bs):\n    res, off = [], 0\n    for i in range(bs):\n"
        "        n = lens[i].item()\n        res.append(logps[off:off + n])\n        off += n\n    return torch.cat(res)\n",
        "import torch\ndef index(offsets):\n    return torch.cat([torch.tensor([i] * n) for i, n in enumerate(offsets)], 0)\n",
        "import torch\ndef ids(grids):\n    out = []\n    for i, g in enumerate(grids):\n        n = g.prod().item()\n"
        "        out.append(torch.arange(n) % g[1])\n    return torch.concat(out, dim=0)\n",
        "import torch\ndef route(samples, lens):\n    out = []\n    for s, n in zip(samples, lens):\n"
        "        t = int(n.item())\n        out.append(trim(s.routed, t))\n    return torch.cat(out, 0)\n",
    )
    must_not_fire += (
        "import torch\ndef f(x, n, k):\n    out = []\n    for i in range(n):\n"
        "        out.append(x[i * k:(i + 1) * k])\n    return torch.cat(out)\n",
        "import torch\ndef f(x, starts, k, n):\n    out = []\n    for i in range(n):\n"
        "        s = starts[i]\n        out.append(x[s:s + k])\n    return torch.cat(out)\n",
        "import torch\nclass M(torch.nn.Module):\n    def f(self, x):\n        out = []\n"
        "        for i in range(len(self.cuts) - 1):\n            out.append(x[self.cuts[i]:self.cuts[i + 1]])\n"
        "        return torch.cat(out)\n",
        "import torch\ndef f(x, offsets):\n    out = []\n    for i in range(len(offsets) - 1):\n"
        "        out.append(x[offsets[i]:offsets[i + 1]].mean(0, keepdim=True))\n    return torch.cat(out)\n",
        "import torch\ndef f(x, sizes):\n    out = []\n    for n in sizes:\n        out.append(x[:n])\n"
        "    return torch.cat(out, dim=1)\n",
        "import torch\ndef f(x):\n    return torch.cat([torch.full((k,), i) for i, k in enumerate((2, 3))])\n",
        "import torch\ndef f(self, batches, hidden):\n    parts = []\n    for batch in batches:\n"
        "        out, hidden = self.forward(batch.t(), hidden)\n        parts.append(out)\n    return torch.cat(parts)\n",
        "import torch\ndef f(a, ranges):\n    chunks = []\n    for start, end in ranges:\n"
        "        ca, m = pad_chunk(a, start, end)\n        chunks.append(score(ca, m))\n    return torch.cat(chunks, dim=0)\n",
        "import torch\ndef f(lmax):\n    ls = torch.arange(0, lmax + 1)\n"
        "    return torch.cat([torch.arange(-l, l + 1) for l in ls])\n",
        "import torch\ndef f(x, n):\n    out = []\n    for i in range(n):\n        if x[i].sum() > 0:\n"
        "            out.append(x[i].cpu())\n    return torch.cat(out)\n",
        "import torch\nclass M(torch.nn.Module):\n    def f(self, x):\n        out = []\n"
        "        for m in self.children():\n            if x.numel() > 0:\n                out.append(m(x))\n"
        "        return torch.stack(out)\n",
    )
    must_fire += (
        "import torch\ndef loss(sim, pos, neg):\n    losses = []\n    for i in range(sim.size(0)):\n"
        "        sp = sim[i][pos[i]]\n        if sp.numel() == 0:\n            continue\n"
        "        losses.append(sp.logsumexp(0))\n    return torch.stack(losses).mean()\n",
        "import torch\ndef images(proc, images):\n    pix, grids = zip(*(proc.preprocess(image=im) for im in images))\n"
        "    return torch.cat(pix, dim=0), torch.cat(grids, dim=0)\n",
        "import torch\ndef graphs(pos_list, cells):\n    results = [build(p, c) for p, c in zip(pos_list, cells)]\n"
        "    src, dst = zip(*results)\n    return torch.cat(src), torch.cat(dst)\n",
    )
    must_not_fire += (
        "import torch\ndef f(proc, x):\n    a, b = zip(*[proc(x, k) for k in (1, 2, 3)])\n    return torch.cat(a)\n",
        "import torch\nclass M(torch.nn.Module):\n    def f(self, x):\n"
        "        a, b = zip(*[blk(x) for blk in self.blocks])\n        return torch.cat(a)\n",
        "import torch\ndef f(proc, xs):\n    a, b = zip(*(proc(x) for x in xs))\n    return torch.cat(a, dim=1)\n",
    )
    must_fire += (  # session 24 (inverted_joins.py): the element's own rows joined side by side with columns
        "import torch\ndef voxels(points):\n    out = []\n    for res in points:\n"
        "        polar = torch.atan2(res[:, 1], res[:, 0])[:, None]\n"
        "        out.append(torch.cat((polar, res[:, :2], res[:, 3:]), dim=-1))\n    return torch.cat(out, dim=0)\n",
        "import torch\ndef left_pad(tensors, m):\n    padded = []\n    for t in tensors:\n"
        "        n, length = t.shape\n        if length < m:\n"
        "            t = torch.cat([torch.full((n, m - length), 0.0), t], dim=-1)\n"
        "        padded.append(t)\n    return torch.cat(padded, dim=0)\n",
    )
    must_not_fire += (  # a record's fields side by side, one row each; columns of one size stacked
        "import torch\ndef ids(targets):\n    out = []\n    for t in targets:\n"
        "        out.append(torch.cat((t['id'], t['size']), -1))\n    return torch.cat(out)\n",
        "import torch\ndef f(xs, y):\n    out = []\n    for x in xs:\n"
        "        out.append(torch.stack((x[:, 0], y), -1))\n    return torch.cat(out)\n",
    )
    must_fire += (  # session 24 (flat_joins.py): per-item lists flattened into one, made a tensor
        "import torch\ndef prompts(model, encoded_prompts, s, k):\n"
        "    chunks = [p[s:s + k] for p in encoded_prompts]\n"
        "    return model(torch.tensor(sum(chunks, []), device='npu'))\n",
        "import torch\ndef batch_index(seqlens):\n"
        "    return torch.tensor(sum([[i] * n for i, n in enumerate(seqlens)], []))\n",
        "import torch\ndef collate(trees):\n    idx = []\n    for i, tree in enumerate(trees):\n"
        "        idx.extend([i] * len(tree.cands))\n    return torch.LongTensor(idx)\n",
        "import itertools, torch\ndef actions(episodes):\n"
        "    flat = list(itertools.chain.from_iterable(episodes))\n"
        "    return torch.tensor([t['action'] for t in flat])\n",
        "import torch\ndef flatten(seqs):\n    ret = []\n    for b in seqs:\n"
        "        ret.extend([x for x in b if x is not None])\n    return ret\n"
        "def rewards(episodes):\n    flat = flatten(episodes)\n"
        "    return torch.as_tensor([t['reward'] for t in flat])\n",
        "import torch\ndef tokens(docs):\n    return torch.tensor([t for doc in docs for t in doc.ids])\n",
    )
    must_not_fire += (
        "import torch\ndef boxes(dets):\n    return torch.tensor(sum([[d.x, d.y] for d in dets], []))\n",
        "import torch\ndef f(a, b):\n    return torch.tensor(sum([a, b], []))\n",
        "import torch\ndef f(rows):\n    out = []\n    for r in rows:\n        out.extend([0] * 4)\n"
        "    return torch.tensor(out)\n",
        "import torch\nclass Opt:\n    def flat(self):\n"
        "        return torch.tensor([v for g in self.groups for v in g['lr']])\n",
        "import torch\ndef f(ks, vs):\n    return torch.tensor([v for pair in zip(ks, vs) for v in pair])\n",
        "import itertools, torch\ndef f(xs):\n    return torch.cat(list(itertools.chain(*xs)), dim=1)\n",
        "import torch\nclass M(torch.nn.Module):\n    def __init__(self, groups):\n"
        "        self.ids = torch.tensor(sum(groups, []))\n",
        # pieces sized by a tensor's size (the model's embedding count); a loop of a schedule's steps
        "import torch\ndef prefix(embed, images):\n    att = []\n    for img in images:\n"
        "        emb = embed(img)\n        b, n = emb.shape[:2]\n        att += [0] * n\n"
        "    return torch.tensor(att, dtype=torch.bool)\n",
        "import torch\ndef path(poses, steps):\n    traj = []\n    for i in range(poses.shape[0] - 1):\n"
        "        traj += interpolate(poses[i], poses[i + 1], steps=steps)\n    return torch.tensor(traj)\n",
    )
    must_not_fire += (  # session 24 (precision24): the chunks of a sized split joined back: the split value's length
        "import torch\ndef feats(o, model, chunksize=1024):\n    out = []\n    for oi in torch.split(o, chunksize):\n"
        "        out.append(model(oi))\n    return torch.cat(out)\n",
        "import torch\nclass C:\n    def compress(self, embs):\n        codes = []\n"
        "        bsize = (1 << 29) // self.centroids.size(0)\n        for batch in embs.split(bsize):\n"
        "            codes.append(self.codes(batch))\n        return torch.cat(codes)\n",
        "import torch\nclass P:\n    def logp(self, batch):\n        out = []\n"
        "        for mb in batch.split(self.max_batchsize, shuffle=False, merge_last=True):\n"
        "            out.append(self.policy(mb).log_prob(mb.act))\n        return torch.cat(out, dim=0)\n",
    )
    must_fire += (  # a string split into words (a separator, or none) is still one item's own length
        "import torch\ndef encode(vocab, line, sep):\n    return torch.tensor([vocab[w] for w in line.split(sep)])\n",
        "import torch\ndef encode(vocab, line):\n    ids = []\n    for w in line.split(' ', maxsplit=8):\n"
        "        ids.append(torch.tensor([vocab[w]]))\n    return torch.cat(ids)\n",
    )
    must_fire += (  # session 27 (recall27a): items' attributes joined where the function reads the items' sizes
        "import torch\nclass Graph:\n    @classmethod\n    def pack(cls, graphs):\n        edge_list = []\n"
        "        num_nodes = []\n        for graph in graphs:\n            edge_list.append(graph.edge_list)\n"
        "            num_nodes.append(graph.num_node)\n        edge_list = torch.cat(edge_list)\n"
        "        return cls(edge_list, num_nodes=num_nodes)\n",
        "import torch\ndef cat_graphs(graphs):\n    num_nodes = torch.stack([g.num_node for g in graphs])\n"
        "    edges = torch.cat([g.edge_list for g in graphs])\n    return edges, num_nodes\n",
        "import torch\ndef collate(data_list):\n    xs, batch = [], []\n    for i, d in enumerate(data_list):\n"
        "        xs.append(d.x)\n        batch.append(torch.full((d.x.size(0),), i))\n"
        "    return torch.cat(xs), torch.cat(batch)\n",
        # a text the function tokenises, joined with other pieces
        "import torch\nclass SFTDataset:\n    def __getitem__(self, idx):\n        ex = self.data[idx]\n"
        "        prompt = self.tokenizer.encode(ex['instruction'])\n"
        "        response = self.tokenizer.encode(ex['output'], eos=True)\n"
        "        return torch.cat((prompt, response)).type(torch.int64)\n",
        "import torch\ndef build(tokenizer, bos, text):\n"
        "    ids = tokenizer(text, return_tensors='pt').input_ids[0]\n    return torch.cat([bos, ids])\n",
    )
    must_not_fire += (  # session 27 (recall27a): an attribute joined with no size of the items read, or sizes only
        # compared; a tokeniser padding to a fixed length; a module named for tokens
        "import torch\ndef gather(records):\n    return torch.cat([r.embedding for r in records])\n",
        "import torch\ndef gather(records, n):\n    assert all(len(r.ids) == n for r in records)\n"
        "    return torch.cat([r.ids for r in records])\n",
        "import torch\ndef build(tokenizer, bos, text):\n"
        "    ids = tokenizer(text, padding='max_length', max_length=128, return_tensors='pt').input_ids[0]\n"
        "    return torch.cat([bos, ids])\n",
        "import torch\nclass Embed(torch.nn.Module):\n    def forward(self, ids, pos):\n"
        "        return torch.cat([self.token_embedding(ids), pos], dim=-1)\n",
    )
    must_fire += (  # session 27 (recall27b): the tokens of a generation loop the data ends, made a tensor after it
                  "import torch\n@torch.inference_mode()\ndef inference(llm, x, max_len, eos):\n    out_tokens = []\n"
                  "    for i in range(max_len):\n        top_id = llm(x)[:, -1].argmax(-1).item()\n        if top_id == eos:\n"
                  "            break\n        out_tokens.append(top_id)\n        x = llm.embed(top_id)\n"
                  "    return torch.tensor([out_tokens], dtype=torch.int64)\n",)
    must_not_fire += (  # the same loop run its whole count: as many tokens every time
                      "import torch\n@torch.inference_mode()\ndef inference(llm, x, max_len):\n    out_tokens = []\n"
                      "    for i in range(max_len):\n        top_id = llm(x)[:, -1].argmax(-1).item()\n"
                      "        out_tokens.append(top_id)\n        x = llm.embed(top_id)\n"
                      "    return torch.tensor([out_tokens], dtype=torch.int64)\n",
                      # a tensor of a list at module level, no function around it (found by the fuzz test)
                      "import torch\nlens = torch.tensor(lengths)\nidx = torch.repeat_interleave(ids, lens)\n",)
    must_fire += (  # session 31: the packed row of a batch, made a tensor of one row (nanorlhf's packing collate)
                  "import torch\ndef collate_packed(batch):\n    input_ids = []\n    for sample in batch:\n"
                  "        input_ids.extend(sample['input_ids'])\n"
                  "    return torch.tensor([input_ids], dtype=torch.long)\n",)
    must_not_fire += (  # one entry per sample (the cumulative lengths): as many as the batch's samples
                      "import torch\ndef collate_packed(batch):\n    cu = [0]\n    for sample in batch:\n"
                      "        cu.append(cu[-1] + len(sample['input_ids']))\n    return torch.tensor([cu])\n",)
    must_fire += (  # session 31: elements kept by a test of their own values (terratorch's apply_ignore_index)
                  "import torch\ndef drop_ignored(labels: dict, boxes: dict, ignore: int):\n"
                  "    kept = torch.cat([x[None] for x in labels['t'] if x != ignore])\n"
                  "    rows = torch.cat([b[None] for b, l in zip(boxes['t'], labels['t']) if l != ignore])\n"
                  "    return kept, rows\n",)
    must_not_fire += (  # a counter's test, a size test, an identity test spelled !=, a key the code names
                      "import torch\ndef pick(feats: dict, k: int, names: dict):\n"
                      "    a = torch.stack([x for i, x in enumerate(feats['f']) if i != k])\n"
                      "    b = torch.stack([feats['f'][i] for i in range(8) if i != k])\n"
                      "    c = torch.cat([x[None] for x in feats['f'] if x != None])\n"
                      "    d = torch.stack([v for v, n in zip(feats['f'], names['n']) if n != 'bias'])\n"
                      "    return a, b, c, d\n",)

    must_fire += (  # session 32 (rec32b): a dataclass batch whose ``InitVar`` field receives the samples, read as a
                    # ``__post_init__`` parameter (chemprop's BatchMolGraph), and one tag per row of each sample
        "import numpy as np\nimport torch\nfrom dataclasses import InitVar, dataclass, field\n"
        "from torch.utils.data import DataLoader\n@dataclass\nclass Batch:\n    mgs: InitVar[list]\n"
        "    V: torch.Tensor = field(init=False)\n    def __post_init__(self, mgs):\n        vs, tags = [], []\n"
        "        for i, mg in enumerate(mgs):\n            vs.append(mg.V)\n            tags.append([i] * len(mg.V))\n"
        "        self.V = torch.from_numpy(np.concatenate(vs))\n        self.batch = torch.tensor(np.concatenate(tags))\n"
        "def collate(batch):\n    mgs, ys = zip(*batch)\n    return Batch(mgs), torch.stack(ys)\n"
        "loader = DataLoader(ds, collate_fn=collate)\n",)
    must_not_fire += (  # ... not one tag per entry of a setting, nor a dataclass no collate function builds
        "import numpy as np\nimport torch\nfrom dataclasses import InitVar, dataclass, field\n"
        "from torch.utils.data import DataLoader\n@dataclass\nclass Batch:\n    mgs: InitVar[list]\n"
        "    def __post_init__(self, mgs):\n        self.V = torch.from_numpy(np.concatenate([m.V for m in mgs]))\n"
        "def collate(batch):\n    tags = []\n    for i, s in enumerate(batch):\n"
        "        tags.append([i] * len(self.views))\n    return torch.tensor(np.concatenate(tags))\n"
        "loader = DataLoader(ds, collate_fn=collate)\nb = Batch(graphs)\n",)

    must_fire += (  # session 32 (rec32b): an episode buffer appended at every call, joined and emptied when a tensor's
                    # value ends the episode (rllte's intrinsic-reward modules)
        "import torch\nclass Reward:\n    def __init__(self):\n        self.buf = []\n"
        "    def compute(self, samples):\n        self.buf.append(samples['rewards'])\n"
        "        if samples['terminateds'].item():\n            if self.norm == 'rms':\n"
        "                self.stats.update(torch.cat(self.buf))\n            self.buf.clear()\n",)
    must_not_fire += (  # ... not a buffer emptied under a setting, nor one joined under a data test but never emptied
        "import torch\nclass Reward:\n    def __init__(self):\n        self.buf = []\n"
        "    def compute(self, samples, sync):\n        self.buf.append(samples['rewards'])\n"
        "        if sync:\n            self.stats.update(torch.cat(self.buf))\n            self.buf = []\n"
        "        if samples['terminateds'].item():\n            self.log(torch.cat(self.buf))\n",)

    must_not_fire += (  # session 32 (prec32, inverted_joins._batch_loop): one result per batch of a loader pass, the
                        # batch moved to the device in the loop, joined once after it (an evaluation's predictions and
                        # labels, FID features: advertorch, cn_clip, basicsr): the dataset's size, the same every pass
        "import torch\ndef evaluate(model, loader, device):\n    preds, labels = [], []\n"
        "    for x, y in loader:\n        x, y = x.to(device), y.to(device)\n"
        "        preds.append(model(x))\n        labels.append(y)\n"
        "    return torch.cat(preds), torch.cat(labels)\n",
        "import torch\ndef evaluate(model, loader, device):\n    labels = []\n    for x, y in loader:\n"
        "        x, y = x.to(device), y.to(device)\n        labels.append(y)\n"
        "    return torch.cat(labels)\n",
        # a parameter annotated as a loader: its batches, whatever the body does with them (pytorch_tabular)
        "import torch\ndef captum_inputs(model, test_dl: torch.utils.data.DataLoader):\n    xs = []\n"
        "    for x in test_dl:\n        xs.append(model.embed_input(x))\n    return torch.cat(xs, dim=0)\n",)
    must_fire += (  # ... a loop whose items are not moved (a list of samples); rows a selection keeps per batch
        "import torch\ndef evaluate(model, loader, device):\n    preds, labels = [], []\n"
        "    for x, y in loader:\n        preds.append(model(x))\n        labels.append(y)\n"
        "    return torch.cat(preds), torch.cat(labels)\n",
        "import torch\ndef features(model, loader, device):\n    feats = []\n    for x in loader:\n"
        "        x = x.to(device)\n        feats.append(x[x > 0])\n    return torch.cat(feats, 0)\n",
        # per-image items paired by zip, one moved to the device: the images' targets, not a loader's batches
        "import torch\ndef sample(targets, indices, device):\n    out = []\n"
        "    for target, idx in zip(targets, indices):\n        idx = idx.to(device)\n"
        "        out.append(target['masks'][idx])\n    return torch.cat(out, dim=0)\n",)

    def check(self, node: object, ctx: FileContext) -> None:
        assert isinstance(node, ast.Call)
        before = len(ctx.findings)
        name = ctx.resolver.qualname(node.func)
        if name in _PROVEN:
            self._proven(node, ctx)
        if len(ctx.findings) == before and ctx.uses_torch:
            for finder, advice in _BROAD_PATHS:
                found = finder(node, name, ctx)
                if found is None:
                    continue
                text = f"{name.rsplit('.', 1)[-1]}({short_source(node.args[0], 30)}) joins {found}: {advice}"
                if finder is inverted_join:
                    # where NPU405 reports the same call (a collate's ``pad_sequence``), that finding says it: one
                    # site, one finding (``report_repeat`` drops this one once the file is walked)
                    ctx.report_repeat(node, text, name, node, _PADDING_CODES)
                else:
                    ctx.report(node, text, name)
                return

    def _proven(self, node: object, ctx: FileContext) -> None:
        assert isinstance(node, ast.Call)
        name = ctx.resolver.qualname(node.func)
        if name in _JOINERS:    # a library's batch of graphs: their nodes and edges concatenated
            joined = joined_samples(node, name, ctx)
            if joined is not None:
                what = f"{name.rsplit('.', 1)[-1]}({short_source(joined[0], 30)})"
                ctx.report(node, self.message.format(what=what, why=joined[1]), name)
            return
        if not node.args or not ctx.uses_torch:
            return
        items = node.args[0]
        if name in _TAG_TENSORS:
            if not self._row_tags(node, ctx) and not self._stopped_tensor(node, name, ctx):
                self._traversed(node, name, ctx)
            return
        if isinstance(items, ast.Name) and self._counted_pieces(node, items, ctx):
            return
        if (name in _DEFAULT_COLLATE or name in _STACK or name in _CAT
                or name in _HOST_JOINS and becomes_host_batch(node, ctx)) and self._kept(node, items, name, ctx):
            return   # numpy's join of the kept samples only where it becomes the batch
        if name in _DEFAULT_COLLATE or name in _HOST_JOINS - HOST_CAT:
            return
        if name in HOST_CAT:    # numpy: only the batch a collate path builds
            why = host_batch_items(node, ctx)
        elif isinstance(items, (ast.ListComp, ast.GeneratorExp, ast.Name)) and self._per_value(node, items, ctx):
            return
        elif isinstance(items, ast.Name) and self._stopped(node, items, ctx):
            return
        elif isinstance(items, ast.Name) and self._repeated(node, items, ctx):
            return
        elif name not in _CAT:
            return      # a stack of per-sample items has one row per sample: only a count of values varies
        elif isinstance(items, (ast.List, ast.Tuple)):
            why = "the batch's per-sample fields" if any(_batch_field(e, ctx) for e in items.elts) else None
            loop = accumulated_rows(node, ctx) if not why and along_rows(node, ctx) else None
            if loop is not None:    # ``acc = torch.cat((acc, piece), 0)`` in a loop that tags each sample's rows
                why = f"each sample's rows added in the loop of line {loop.lineno}, which counts them per sample"
        elif isinstance(items, (ast.ListComp, ast.GeneratorExp, ast.Name)):
            why = per_sample_items(items, node, ctx)
            measuring = measured_lengths(items, node, ctx) if not why and isinstance(items, ast.Name) else None
            if measuring is not None:
                why = f"the code makes a tensor of their lengths, line {measuring.lineno}"
        elif isinstance(items, ast.Call) and isinstance(items.func, ast.Name) and items.func.id in ("list", "tuple") \
                and len(items.args) == 1 and not items.keywords and along_rows(node, ctx):
            why = labelled_sequence(items, node, ctx)      # ``torch.cat(list(history))``
        else:
            return
        if not why:
            return
        ctx.report(node, self.message.format(what=f"{name.rsplit('.', 1)[-1]}({short_source(items, 30)})", why=why),
                   name)


    @staticmethod
    def _per_value(node: ast.Call, items: ast.AST, ctx: FileContext) -> bool:
        """``torch.stack([x[labels == c].mean(0) for c in labels.unique()])``: one item per value found in the
        data (``cat`` or ``stack``), reported with the sequence that counts them."""
        if not (isinstance(node.func, ast.Attribute) and node.func.attr in _JOIN_WORDS):
            return False
        source = per_value_items(items, ctx)
        name = ctx.resolver.qualname(node.func) if source is not None else None
        if name not in _CAT and name not in _STACK:
            return False
        ctx.report(node, f"{name.rsplit('.', 1)[-1]}({short_source(items, 30)}) joins one item per value of "
                   f"{short_source(source, 30)}: the number of items changes with the data, a recompile per count on "
                   "NPU; loop over a fixed range (every class, num_classes, a maximum count of detections) with a mask per item", name)
        return True


    @staticmethod
    def _kept(node: ast.Call, items: ast.AST, name: str, ctx: FileContext) -> bool:
        """``default_collate([b for b in batch if b is not None])`` in a collate function (also ``torch.stack``
        of the kept samples or of one field of each): one row per sample a test keeps, a batch size that changes
        with the data."""
        test = kept_samples(items, ctx)
        if test is None:
            return False
        advice = "replace a dropped sample (another index of the dataset, or a masked placeholder) so every batch " \
            "keeps its size" if test.startswith("sample") else "keep every item and mask (weight 0) those the test " \
            "rejects, or gather them into a buffer of a fixed size"
        ctx.report(node, f"{name.rsplit('.', 1)[-1]}({short_source(items, 30)}) joins one item per {test}: the number "
                   f"of items changes with the data, a recompile per count on NPU; {advice}", name)
        return True

    @staticmethod
    def _traversed(node: ast.Call, name: str, ctx: FileContext) -> None:
        """``torch.tensor(ids)`` of a list grown while walking a worklist (``while stack: ... stack.pop()``) or under
        a flag read back from a tensor (traversed_lists.py): as many elements as the data decides."""
        found = traversed_list(node, ctx)
        if found is None:
            return
        ctx.report(node, f"{short_source(node, 30)} makes a tensor of a list grown as often as {found[1]} decides: "
                   "its length changes with the data, a recompile per length on NPU; fill a buffer of a fixed "
                   "maximum length and pass the count (or a mask)", name)

    @staticmethod
    def _row_tags(node: ast.Call, ctx: FileContext) -> bool:
        """``torch.from_numpy(np.array(idx))`` after ``idx += [i] * len(items)`` in a loop over the samples: one
        tag per row of per-sample items, as long as all the rows of the batch."""
        if not (len(node.args) == 1 and isinstance(node.args[0], (ast.Name, ast.Call))):
            return False
        loop = tagged_list(node, ctx)
        if loop is None:
            return False
        ctx.report(node, f"{short_source(node, 30)} makes a tensor of one tag per row of per-sample items of "
                   f"different lengths (the loop of line {loop.lineno} repeats each sample's index by its row "
                   "count): its length changes with every batch, a recompile per length on NPU; pad each sample "
                   "to a fixed maximum with a mask", ctx.resolver.qualname(node.func) or "torch.tensor")
        return True

    @staticmethod
    def _counted_pieces(node: ast.Call, items: ast.Name, ctx: FileContext) -> bool:
        """``torch.stack(splits)`` after ``splits.extend(parts)`` beside ``index += [i] * len(parts)`` in a loop
        over the samples: a number of items that changes with the data (``cat`` or ``stack``)."""
        name = _join_name(node, ctx)
        if name is None:
            return False
        loop = counted_pieces(items, node, ctx)
        if loop is None:
            return False
        ctx.report(node, f"{name.rsplit('.', 1)[-1]}({items.id}) joins the pieces of every sample, a number the "
                   f"loop of line {loop.lineno} counts per sample (one tag per piece): the number of items changes "
                   "with the data, a recompile per count on NPU; give every sample a fixed number of pieces, padded "
                   "with a mask", name)
        return True

    @staticmethod
    def _repeated(node: ast.Call, items: ast.Name, ctx: FileContext) -> bool:
        """``torch.stack(states)`` after ``for b, n in enumerate(samples["n_answers"]): states += [h[b]] * n``: as
        many items as the counts of the data add up to (``cat`` or ``stack``; repeated_items.py)."""
        name = _join_name(node, ctx)
        found = repeated_items(items, node, ctx) if name is not None else None
        if found is None:
            return False
        loop, sequence = found
        ctx.report(node, f"{name.rsplit('.', 1)[-1]}({items.id}) joins each item repeated by a count the loop of line "
                   f"{loop.lineno} reads from {short_source(sequence, 30)}: the number of items changes with the "
                   "data, a recompile per count on NPU; repeat to a fixed maximum count and mask the extra items",
                   name)
        return True

    @staticmethod
    def _stopped(node: ast.Call, items: ast.Name, ctx: FileContext) -> bool:
        """``torch.cat(tokens)`` after ``for ...: tokens.append(t); if (t == eos).all(): break``: one item per
        step of a loop a tensor's value ends (``cat`` or ``stack``)."""
        name = _join_name(node, ctx)
        if name is None:
            return False
        return _report_stopped(node, items, name, f"{name.rsplit('.', 1)[-1]}({items.id}) joins one item per step",
                               "the number of items changes with the data, a recompile per count", ctx)

    @staticmethod
    def _stopped_tensor(node: ast.Call, name: str, ctx: FileContext) -> bool:
        """``torch.tensor([out_tokens])`` (or ``torch.LongTensor(ids)``) after ``for ...: out_tokens.append(t);
        if t == eos: break``: the tokens a generation loop the data ends collected one per step, made a tensor
        after it (session 27, recall27b): as long as the loop ran, as ``torch.cat(tokens)`` is (``_stopped``)."""
        items = node.args[0]
        if isinstance(items, ast.List) and len(items.elts) == 1:
            items = items.elts[0]   # ``torch.tensor([ids])``: one row of the ids
        if not isinstance(items, ast.Name) or items.id not in _broken_appends(node, ctx):
            return False   # (a cheap filter, once per function: no list appended in a loop that can break)
        return _report_stopped(node, items, name, f"{name.rsplit('.', 1)[-1]}({short_source(node.args[0], 30)}) "
                               "makes a tensor of one item per step",
                               "its length changes with the data, a recompile per length", ctx)


def _report_stopped(node: ast.Call, items: ast.Name, name: str, what: str, effect: str, ctx: FileContext) -> bool:
    """Report ``node`` when ``items`` gets one item per step of a loop a tensor's value ends (`stopped_items`):
    ``what`` says what the call makes of them, ``effect`` what varies (`_stopped`, `_stopped_tensor`)."""
    found = stopped_items(items, node, ctx)
    if found is None:
        return False
    loop, stop = found
    ctx.report(node, f"{what} of the loop at line {loop.lineno}, which a tensor's value ends (line {stop.lineno}): "
               f"{effect} on NPU; run the fixed number of steps and mask the finished ones", name)
    return True


def _broken_appends(node: ast.AST, ctx: FileContext) -> frozenset[str]:
    """The names of the lists the function around ``node`` grows (``append``/``extend``/``+=``) inside a loop that
    holds a ``break``, computed once per function (the candidates of `stopped_items` for a tensor made of a list)."""
    function = ctx.enclosing_any(node, FUNCTION_TYPES)
    if function is None:   # module level: the whole module
        function = node
        while (up := ctx.parent(function)) is not None:
            function = up
    memo = ctx.scratch.setdefault("broken_appends", {})
    found = memo.get(id(function))
    if found is None:
        names: set[str] = set()
        for loop in walk(function):
            if isinstance(loop, (ast.For, ast.While)) and any(isinstance(n, ast.Break) for n in walk(loop)):
                for n in walk(loop):
                    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                            and n.func.attr in ("append", "extend") and isinstance(n.func.value, ast.Name):
                        names.add(n.func.value.id)
                    elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                        names.add(n.target.id)
        found = memo[id(function)] = frozenset(names)
    return found


def _batch_field(element: ast.AST, ctx: FileContext) -> bool:
    """``batch["batch_idx"]`` (or a name bound to it): the index of the sample each row of a batch's flattened
    targets belongs to, concatenated with those targets."""
    element = _strip(element)
    if isinstance(element, ast.Name):
        binding = ctx.resolver.binding(element)
        if binding is None or binding.tag != "value" or binding.path:
            return False
        element = _strip(binding.value)
    return isinstance(element, ast.Subscript) and isinstance(element.slice, ast.Constant) \
        and element.slice.value == "batch_idx"


def _join_name(node: ast.Call, ctx: FileContext) -> Optional[str]:
    """``torch.cat`` / ``torch.stack`` (their qualified name) when ``node`` calls one, else None."""
    name = ctx.resolver.qualname(node.func)
    return name if name in _CAT or name in _STACK else None


# NPU409's broad paths, asked in turn once the proven paths found nothing: each finder says what the list joins, and
# the finding advises the cheapest static alternative for that kind of join
_BROAD_PATHS = (
    # the op is the trigger (broad_joins.py): nothing proves the count fixed
    (broad_join, "the joined length can change with the data, a recompile per length on NPU; give the list a fixed "
                 "count (pad to a maximum number of items with a validity mask)"),
    # the join itself is the trigger (inverted_joins.py): nothing proves it static
    (inverted_join, "nothing fixes their count or their lengths, so the joined length can change with the data, a "
                    "recompile per length on NPU; pad each item to a fixed maximum (and the list to a fixed count) "
                    "with a validity mask"),
    # a container filled elsewhere in the function (filled_joins.py)
    (filled_join, "the items differ in length, so the joined length changes with the data, a recompile per length "
                  "on NPU; pad each item to a fixed maximum (and the list to a fixed count) with a validity mask, or "
                  "keep a fixed-size buffer and its valid count"),
    # items sized by the data, whatever their count (sized_joins.py)
    (sized_join, "the items differ in length, so the joined length changes with the data, a recompile per length on "
                 "NPU; pad each item to a fixed maximum length with a validity mask (or keep a fixed-size buffer of "
                 "the total and its valid count)"),
    # a data test filters a loop of fixed count (sized_joins.py)
    (kept_join, "how many items reach the join changes with the data, a recompile per count on NPU; keep every item "
                "and a validity mask (or weight the skipped ones by 0) instead of skipping them"),
    # per-item lists flattened into one list made a tensor (flat_joins.py)
    (flat_join, "the flattened length is the items' lengths together and changes with the data, a recompile per "
                "length on NPU; pad each item's list to a fixed length (and their count to a fixed maximum) with a "
                "validity mask"),
    # one of a helper's several results per element, unzipped (sized_joins.py)
    (unzipped_join, "the joined length changes with the data, a recompile per length on NPU; pad each item to a "
                    "fixed maximum (and the list to a fixed count) with a validity mask"),
    # a sibling result of the same per-element call tagged with the element's index (sibling_joins.py, session 33)
    (sibling_join, "the items differ in length, so the joined length changes with the data, a recompile per length "
                   "on NPU; pad each item to a fixed maximum (and the list to a fixed count) with a validity mask, or "
                   "keep a fixed-size buffer and its valid count"),
    # the file's helper returns each item as a data-dependent selection (helper_selections.py, session 33)
    (helper_selection_join, "the items differ in length, so the joined length changes with the data, a recompile "
                            "per length on NPU; return a fixed-size index with a validity mask from the helper"),
    # a displayed piece is a tokenised text (token_joins.py, session 27)
    (token_join, "the joined length is the texts' token counts together and changes with every sample, a "
                 "recompile per length on NPU; truncate and pad the ids to a fixed length (or a few buckets) "
                 "with an attention mask"),
)
