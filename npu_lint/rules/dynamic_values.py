"""NPU403: sizes that come from tensor values (NPU404, random draws: dynamic_random.py).

The rules name the places that fix a shape (factory sizes, ``view`` / ``reshape`` / ``split`` / ``topk``
arguments, slice bounds, ``range`` loop counts, ``interpolate`` sizes) and ask the semantic model what may
flow into them (:meth:`npu_lint.resolver.Resolver.flows`: values read from tensors, random draws, batch
maxima, through every binding that may reach the use). Where the findings go and how they name the chain:
value_reports.py.
"""
from __future__ import annotations

import ast

from npu_lint.analysis.data_tensors import data_scalar, filled_count, paired_pick
from npu_lint.analysis.flows import DATA_SIZE, ELEMENT, HOST, PICKED, ZERO_D
from npu_lint.analysis.kinds import TENSORS as TENSOR_KINDS
from npu_lint.analysis.size_sinks import LOOP_COUNT as _LOOP_COUNT
from npu_lint.context import FileContext
from npu_lint.analysis.setup_time import runs_at_setup, tensor_work
from npu_lint.rules import FUNCTION_TYPES, short_source
from npu_lint.rules.data_loops import report_kept
from npu_lint.rules.data_whiles import report_shrinking
from npu_lint.rules.escaped_reads import report_escaped
from npu_lint.rules.batch_methods import per_sample_work
from npu_lint.rules.host_work import in_collator
from npu_lint.rules.own_calls import own_call
from npu_lint.rules.passed_sizes import passed_in
from npu_lint.rules.sample_cuts import sample_count, sample_cut
from npu_lint.rules.segment_loops import segment_count
from npu_lint.rules.sliced_loops import report_sliced_loop
from npu_lint.rules.size_helpers import omitted_size, size_helper_call
from npu_lint.rules.value_flow import ValueFlow, origin_text, shape_sink
from npu_lint.rules.value_reports import report_flow, report_loop, report_read

_SIZE_CODES = frozenset({"NPU403"})

class TensorValueInShape(ValueFlow):
    """A size, slice bound or loop count read back from a tensor (``.item()``, ``.tolist()``, ``int(t)``).

    What it does:
        Follows values read from tensors (``.item()``, ``.tolist()``, ``int()`` / ``float()`` of a tensor, ``.numpy()``
        of a host copy of values the code computed on the device (``b = boxes.int().cpu().numpy()``, then
        ``img[:, b[k, 1]:b[k, 3]]``: a detector's boxes cutting crops; a reader's or a factory's tensor is no such copy),
        0-d tensors such as ``mask.sum()``, ``torch.sum(x)`` or ``max(lengths)`` of a tensor, the elements of a
        tensor iterated over or picked in a loop, ``lengths[i]``, the ``batch_sizes`` of a PackedSequence (what
        torch's packing returns, a parameter annotated or tested ``isinstance(seq, PackedSequence)``: ``x,
        batch_sizes, _, _ = seq``, then ``for bs in batch_sizes: h[:bs]`` or ``torch.zeros(batch_sizes[0], n)``;
        the steps of a recurrent cell run by hand; the largest of a collection the model cannot type and the code
        declares nothing of, ``range(max(lengths))`` with ``lengths`` unpacked from a tuple the model returned, and
        the count ``sum([n > t for n in lengths])`` of one), what a function of another module of the project
        returns of them (``n = count_fg(mask)`` with ``return int(mask.sum())``: its ``size_read`` fact), and the
        length of a result whose shape depends on the data: ``labels.unique().size(0)``, ``len(x[mask])``,
        ``len(keep[:k])`` of an NMS, ``idx.shape[0]`` of ``mask.nonzero()``, ``len(inds[0])`` of ``inds =
        torch.nonzero(m, as_tuple=True)``, also in a helper whose parameter the file's calls fill with such a
        result; numpy's ``nonzero`` / ``unique`` counts where they size a device tensor (``torch.zeros(len(inds[0]),
        device=device)`` of ``np.nonzero(prob > t)``; not numpy's own work nor a host loop), the message
        naming the chain ``unique() → .size(0) → new_zeros()``) to the places that fix a shape: the size arguments of
        ``torch.zeros`` / ``arange`` / ``randperm`` and friends (and the legacy ``torch.FloatTensor(b, n)`` given two or more sizes; one argument is its data), ``view`` / ``reshape`` / ``expand`` /
        ``repeat`` / ``split`` / ``narrow`` / ``topk`` / ``new_zeros``, ``F.interpolate`` sizes, the size
        arguments of common libraries (``dim_size`` of torch_scatter's and PyG's ``scatter``, ``batch_size`` /
        ``max_num_nodes`` of ``to_dense_batch`` / ``to_dense_adj``, ``num_classes`` of ``F.one_hot``,
        ``minlength`` of ``bincount``, the ``lengths`` of ``pack_padded_sequence``: ``rule_tables/size_arguments.tsv``;
        a tensor's elements taken as a list, ``list(mask.sum(1))``, are read back as ``.tolist()`` is), slice bounds ``x[:n]`` and
        ``for ... in range(n)`` loops, and loops over the elements of such a result whose body
        builds tensors, writes into one or carries one across iterations (``for lb in torch.unique(kernel): loss =
        loss + ...``; a log line or run-length encodings computed per element leave nothing on the device), and
        ``for g in range(num_gt)`` over the items of an input whose count the function itself tests for zero
        (``if num_gt == 0:``: an assigner's ground truths), loops over the items a comprehension keeps by values read
        back (``for b in [i for i, f in enumerate(fin.tolist()) if f[0]]:``), loop counts from an element picked
        with constants (``batch_size = coors[-1, 0] + 1``), and ``while`` loops that run until a tensor they shrink
        by a data-dependent selection is empty (a greedy NMS: ``while order.shape[0] != 0: ... order =
        order[1:][ious <= thr]``). The semantic model answers what may reach a size: any
        binding that may reach it (both arms of an ``if``, loop-carried values, ``+=``; a full reduction of a
        parameter or a batch's field of unknown kind kept whole in a name, ``max_len = lengths.max()``, when
        the function also uses it as only a tensor can be used, ``lengths.unsqueeze(1)`` / ``lengths.device`` /
        ``lengths = batch["lengths"].to(device)``, and it is no state of the model), through arithmetic, the
        count and the elements picked by a constant of a range over it (``len(range(0, n, hop))``,
        ``starts[-1]`` of ``starts = list(range(0, n, hop))``),
        ``min`` / ``max`` / ``int`` / ``round``, tuples and comprehensions, ``self.x`` assigned in any method
        of the class, what the file's own functions return and what its own calls pass to a parameter. The
        batch's largest of each example's values (``max(ex["src_map"].max() for ex in batch)``) is such a read. A call
        of a helper that sizes a tensor with a parameter (the file's own, or with the project index another
        module's: ``scatter_add(y, idx, dim_size=n)`` whose ``shape[dim] = dim_size`` sizes ``torch.zeros``; the call
        of an instance of another module's ``nn.Module`` class whose ``forward`` does, ``conv(x, idx, total=n)`` for
        ``conv`` in ``nn.ModuleList([Block(...) ...])``) is reported at the call, naming the chain; so is a call that leaves out a size the helper then reads from the
        data (``if dim_size is None: dim_size = int(index.max()) + 1``, ``if not exists(length): length =
        t.amax()``, ``length = default(length, t.amax())`` with the file's ``exists`` / ``default``:
        ``lens_to_mask(lens)`` without ``length=``). A read on another line than the size it reaches (``n =
        int(t.max())`` above ``torch.zeros(n)``, also in a function further down the file) is reported there too,
        once, naming every size it reaches: it is the sync, and the line a fixed bound replaces (reviewers mark
        either line). The count of a data-dependent result whose op has its own NPU401 / NPU402 finding in the file
        is reported where it makes a new tensor with a torch factory (``torch.randperm(len(sel))``,
        ``torch.arange(n0, n0 + len(kept))``), picks that many (``s.topk(min(k, len(idx)))``) or bounds a slice of
        another tensor (``knn[i, :len(sel)]``); a
        tensor's method shaping by it (``x.expand(len(sel), 3)``, ``x.new_zeros(n, 4)``, ``x.repeat(1, n, 1)``)
        follows that one data-dependent shape, left to the op's finding.
        A tensor of data used as the size itself, without ``.item()``, is one too: ``range(coors[-1, 0] + 1)`` (a
        loop count only: an element picked with constants is often a shape kept in a tensor), ``am[:, :n]`` with ``n`` a one-element tensor,
        a sample cut to its own length by the index that picks it (``attn[b, :, :src_len[b]]``, ``a[:lens[idx]]`` for
        ``for idx, a in enumerate(out)``; a vector of lengths the model knows as a host list or configuration is left
        alone), a loop over a batch vector's segments counted by its last or largest id (``for b in range(batch[-1] +
        1): m = batch == b``), ``sum([n > t for n in lengths])`` of a tensor (the effective batch of a step),
        the same tensor passed where an int size goes (``scatter(x, batch, dim_size=num_graphs)``, also ``num_graphs
        = inputs["num_graphs"]`` of a parameter ``inputs: Dict[str, Tensor]``), ``self.src_len[b]`` set from data
        outside ``__init__``, one sample's value picked by a constant from a vector of data where the function cuts that
        same sample to it (``n = lengths[0]`` of a loader batch's field, then ``mel[0][:n]`` or ``batch["mel"][0, :,
        :n]``, and any other slice by ``n``: the sample's own length; a value picked for every sample, ``ids[:,
        :batch["prefix_len"][0]]``, may be a setting the dataset repeats and is left alone), and ``voxels[:n]`` where an op given data wrote ``n`` rows into the buffer
        (``n = hard_voxelize(points, voxels, ...)``, or ``n = torch.zeros(())`` passed to it). Data is what the
        model shows comes per call (a tensor parameter the file's calls fill with data, a loader batch, an op's
        output); configuration tensors (``torch.tensor([...])``, ``x.new_tensor(self.num_grids)``, a buffer or
        attribute set or ``register_buffer``-ed in ``__init__`` and written by no other method, a tensor of shapes
        ``torch.tensor([f.shape[-2:] for f in feats])``, positions ``torch.arange(depth)``; not one a collective
        writes into, ``n = torch.tensor(x.size(1)); dist.all_reduce(n, op=MAX)``: the longest of every rank's batch)
        and tensors of unknown origin are left alone: their
        ``.tolist()``, ``.item()``, ``int()``, elements and iteration. So is code that runs while a model is built
        (the ``__init__`` of a module, dataset, sampler or optimizer, and the file's private helpers only such code
        calls: ``self.coords = _meshgrid(resolution)``): one read and one shape per model, not per batch. So is the per-sample
        work of a dataset class that names no device (``__getitem__`` and the helpers it calls: hiding a random share
        of the observed values with ``topk(int(mask.sum() * ratio))``): it runs on the host, in the loader's workers. A name given where an index tensor goes
        (``scatter_add(y, idx_m, dim_size=maxm)``, ``y.index_add(0, idx_m, v)``) is a tensor: ``maxm =
        int(idx_m[-1]) + 1`` reads the segment count of the batch back.
        The elements of a host copy of a device tensor (``lengths = mask.sum(-1).cpu()``, ``net(x).cpu()`` of a
        value the model cannot type: ``.cpu()`` is a tensor's move, also passed to a
        helper, ``for i, n in enumerate(lengths): x[i, :n]``) are values read back too; a reader's host tensor
        (``torch.from_numpy(arr)``) is not.
        Fill values, dtypes and the input of a resize are no sizes; numpy arrays are no NPU shapes; a value
        computed from configuration (``torch.tensor(cfg.depths)``) is no data, but a bound clamped by a constant
        (``torch.max(torch.tensor(0), bins - 4)``) is the data's.
        One finding per size: a reshape (``.view()`` / ``.reshape()``) of a tensor whose making already took the
        read (``torch.full((n * k,), v)``, a call given ``k``) and a tensor shaped like one a data-dependent op
        made (``x.new_ones(y.shape)``, as ``ones_like``) are no sizes of their own; a size inside the file's helper
        that reaches it only through the helper's parameters from a read in its caller is left to the call that
        passes the read (``t = pad_at_dim(t, (max_pad_len, 0))``: reported there, naming ``pad_at_dim(...) →
        pad()``, the line a fixed bound replaces); a
        loop counted by a read (reported on its own line) whose body only builds a Python list (builtins, list
        methods, counters, numbers) runs no device operator per iteration and is left out.
        Also an element picked by a constant from a tensor the code computed from other tensors' values (``reps =
        torch.ceil(cutoff * inv_lengths).long()``, then ``torch.arange(1, reps[0] + 1)``; not one it only received
        nor one made from configuration), the counts ``unique_consecutive`` or ``x.unique(return_counts=True)``
        return unpacked (``_, n = ...``, then ``torch.arange(offset, offset + n[k])``), a batched graph's per-graph
        counts ``g.batch_num_nodes()`` / ``g.batch_num_edges()`` (DGL) and ``sum()`` of a slice of them, the values
        a function appends to a list (``sizes.append(int((batch == b).sum()))``, then ``torch.split(x, sizes)``),
        and a counter the data advances: ``count += 1`` in a ``while`` loop that runs on a tensor's value or until a
        tensor it shrinks by a data-dependent selection is empty, or under an ``if`` that tests a tensor's value
        (``idxs_out[:count]`` of a soft NMS; a counter of a loop's items alone counts a length and is left alone),
        and a loop over a slice of a list cut by such a value whose body runs tensor operators (``for hist in
        reversed(history[:seq_ends[i]]):``, a Viterbi backtrace). The sizes of ``repeat_interleave(x, k)`` (an int
        ``k``; a tensor of repeats is NPU401's), ``multinomial(p, n)``, ``histc(x, bins)``, ``x.unfold(d, size, step)``
        and the 1-d and 3-d adaptive pools are sizes too.
        Where the size is out of sight, an integral read (``int(t)``, ``.item()`` of an extreme, a count or an
        element, ``max(t)``, ``.tolist()`` of counts) whose value leaves its function is reported at the read: passed
        by keyword to a callee the model cannot look into (``self.rotary(q, k, max_seqlen=n)`` of ``n = q_len +
        offset.max().item()``, ``VarlenMetadata(max_q=n)``), returned with other values or in a list of
        spans (a start and a length), a list of counts stored on ``self`` / ``ctx``; a ratio, a comparison, a log call, a
        positional argument, a bare scalar returned, ``argmax`` (a token id), datasets' and samplers' methods and test code stay quiet
        (escaped_reads.py).
        A sample cut to its own count when the count is a host number one per sample (``logits[b, :num_objects[b]
        + 1]`` with ``num_objects: list[int]`` a parameter; ``x[b, :n]`` in ``for b, n in enumerate(counts)``, a
        loop or a comprehension) is reported with its own message: no sync, but a new shape per sample
        (sample_cuts.py). The sizes ``dist.all_gather`` collects from the ranks are data (their maximum sizing a
        buffer, each rank's cutting its piece).
    Why it matters on NPU:
        Reading a value is a host-device sync, and a shape built from it changes with the data: each new
        shape compiles the NPU operators again, so the step time follows the data instead of staying flat.
    Example:
        num_pos = int(pos_mask.sum())
        topk = scores.topk(num_pos)
    Use instead:
        k = max_candidates                               # a fixed upper bound
        vals, idx = scores.topk(k); keep = torch.arange(k, device=scores.device) < pos_mask.sum()
    Fix safety:
        No automatic fix.
    """

    code = "NPU403"
    name = "tensor-value-in-shape"
    node_types = (ast.Call, ast.Subscript, ast.For, ast.While)
    triggers = (".item()", ".tolist()", "int(", "float(", "list(", ".sum(", ".max(", ".min(", ".count_nonzero(", "for ",
                "unique", "nonzero", "masked_select", "argwhere", "where(", "nms(", "[", "while ", "dim_size")
    kinds = (HOST, ZERO_D, ELEMENT, DATA_SIZE)
    message = "{sink} takes a size from a tensor's value ({origin}, line {line}): a sync and a new shape per value on NPU; use a fixed upper bound and a mask"
    data_message = "{chain} → {sink}: the size is the count of a data-dependent result (line {line}), known only after a sync, a new shape per count on NPU; use a fixed upper bound and a mask"
    filled_message = "a slice bound takes the count of rows an op wrote into {buffer} ({op}, line {line}): the number of valid rows is data, read back from the device, a new shape per count on NPU; keep the buffer's fixed size and mask the rows past the count"
    count_message = "this loop runs once per item of {items}, a count the code expects to vary (it tests it for zero, line {line}): {effect}, a new graph per count on NPU; loop over a fixed bound (the maximum count) with a mask, or vectorise over the items"
    loop_message = "this loop runs once per element of {op}, a data-dependent count (line {line}): {effect}, a new graph per count on NPU; loop over a fixed bound (the maximum count) with a mask"
    read_message = "{origin} {reads}; it sizes {uses}: a sync and a new shape per value on NPU; use a fixed upper bound and a mask"
    sample_message = "a slice bound takes each sample's own count ({count}): a new shape for every sample on NPU; pad every sample to the largest count and mask the rest"
    must_fire = (# each sample cut to its own count, a host number: a parameter of one int per sample (Cutie's loss), the
                 # values of a per-call list walked beside the sample index (DeAOT's obj_nums)
                 "import torch\ndef compute(data, num_objects: list[int]):\n    out = []\n"
                 "    for bi in range(data['rgb'].shape[0]):\n        out.append(data['logits'][bi, :num_objects[bi] + 1])\n"
                 "    return out\n",
                 "import torch\nclass Engine:\n    def add(self, img, obj_nums):\n        self.obj_nums = obj_nums\n"
                 "    def loss(self, logits):\n        for b, n in enumerate(self.obj_nums):\n"
                 "            yield logits[b, :n + 1]\n",
                 "import torch\ndef crop(feats, counts):\n    return [feats[b, :n] for b, n in enumerate(counts)]\n",
                 # the sizes every rank sends, gathered (essmc2's gather of variable-length tensors): their maximum
                 # sizes the buffer, each rank's own cuts its piece
                 "import torch\nimport torch.distributed as dist\ndef gather(t, world):\n"
                 "    size = torch.tensor(t.shape[0], device='cuda')\n    sizes = [size.clone() for _ in range(world)]\n"
                 "    dist.all_gather(sizes, size)\n    buf = torch.zeros(torch.tensor(sizes).max())\n    return buf\n",
                 "import torch\nimport torch.distributed as dist\ndef gather(out, t, world):\n"
                 "    size = torch.tensor(t.shape[0])\n    sizes = [size.clone() for _ in range(world)]\n"
                 "    dist.all_gather(sizes, size)\n    return [o[:n] for o, n in zip(out, sizes)]\n",
                 # (lead, session 26) torch's arithmetic on a 0-d tensor of the data or on a value read back: the data's
                 "import torch\ndef half(x, mask):\n    return x[:int(torch.div(mask.sum(), 2, rounding_mode='floor'))]\n",
                 "import torch\ndef half(x, t):\n    n = t.item()\n    return x[:int(torch.div(n, 2))]\n",
                 # ... and on values of unknown origin (a dict's entry, a row unpacked from a tensor): no evidence
                 # they are shape numbers
                 "import torch\ndef call(d, key, offset):\n"
                 "    label = d[key] if isinstance(d[key], torch.Tensor) else torch.from_numpy(d[key])\n"
                 "    return torch.zeros(int(torch.max(label)) + offset)\n",
                 "import torch\ndef targets(gt_bbox, w, stride):\n    cx, cy, _, _ = gt_bbox[:, 1:][0]\n"
                 "    left = int(torch.ceil((cx - 8) / stride + 0.5))\n    return torch.zeros(w, w)[:, left:]\n",
                 # session 22 (values22): ``lengths.max()`` with no dimension kept in a name: a list has no ``max``,
                 # so a tensor's or an array's largest value sizes the range either way (was must-not-fire: "numpy's too")
                 "import torch\ndef sequence_mask(lengths):\n    n = lengths.max()\n"
                 "    return torch.arange(0, n) >= lengths.sum()\n",
                 
        # a tensor's elements taken as a Python list (each read on the host) as the lengths of a packed sequence
        "import torch\ndef encode(rnn, x, mask):\n    lens = list(mask.eq(0).long().sum(1))\n"
        "    return rnn(torch.nn.utils.rnn.pack_padded_sequence(x, lens, batch_first=True))\n",
                     # a PackedSequence's batch_sizes: how many sequences run at each step (a recurrent cell by hand)
                     "import torch\nfrom torch.nn.utils.rnn import PackedSequence\ndef run(cell, seq, h):\n"
                     "    assert isinstance(seq, PackedSequence)\n    x, batch_sizes, _, _ = seq\n    start = 0\n"
                     "    for bs in batch_sizes:\n        h = cell(x[start:start + bs], h[:bs])\n        start += bs\n"
                     "    return h\n",
                     "import torch\nfrom torch.nn.utils.rnn import PackedSequence\ndef init(seq: PackedSequence, n):\n"
                     "    return torch.zeros(seq.batch_sizes[0], n)\n",
                     "import torch\nfrom torch.nn.utils.rnn import PackedSequence\ndef init(seq, n):\n"
                     "    is_packed = isinstance(seq, PackedSequence)\n    if is_packed:\n"
                     "        x, batch_sizes, _, _ = seq\n        b = int(batch_sizes[0])\n    else:\n"
                     "        b = seq.shape[1]\n    return torch.zeros(b, n)\n",
                     # the same on the device
                     "import torch\nfrom torch.utils.data import Dataset\nclass Imputation(Dataset):\n"
                     "    def __getitem__(self, i):\n        observed = self.m[i].to(self.device)\n"
                     "        n = int(observed.sum().item() * 0.5)\n        return observed.topk(n).indices\n",
                 "import torch\nn = counts.max().item()\nbuf = torch.zeros(n, 4)\n",
                 # an ``isinstance(size, Tensor)`` arm on a value that may be a tensor
                 "import torch\nfrom torch import Tensor\ndef f(x):\n    size = x.sum(0)\n"
                 "    if isinstance(size, Tensor):\n        return torch.zeros(int(size.max()))\n    return None\n",
                 # a data container built per batch; a private helper a step also calls
                 "import torch\nclass Batch:\n    def __init__(self, lengths: torch.Tensor):\n"
                 "        n = int(lengths.max())\n        self.ids = torch.zeros(len(lengths), n)\n",
                 "import torch\ndef _grid(res: torch.Tensor):\n    return torch.arange(int(res.max()))\n"
                 "class Net(torch.nn.Module):\n    def __init__(self, res):\n        super().__init__()\n"
                 "        self.g = _grid(res)\n    def forward(self, x, res):\n        return x + _grid(res).sum()\n",
                 "import torch\ndef f(x: torch.Tensor, lengths: torch.Tensor):\n    sizes = lengths.tolist()\n    return x.split(sizes)\n",
                 "import torch\ndef f(scores, pos_mask):\n    k = int(pos_mask.sum())\n    return scores.topk(k)\n",
                 "import torch\nn = int(t.sum())\ny = x[:n]\n",
                 "import torch\nfor i in range(labels.max().item() + 1):\n    pass\n",
                 "import torch\nout = x.view(t.item(), -1)\n",
                 # a legacy typed constructor given sizes (two or more arguments allocate)
                 "import torch\ndef f(t, b):\n    n = int(t.max())\n    return torch.FloatTensor(b, n).zero_()\n",
                 "import torch\ndef f(x, labels):\n    n = (labels > 0).sum()\n    return x[:n]\n",
                 "import torch\ndef f(b, counts):\n    return torch.zeros(b, counts.max(), 5)\n",
                 "import torch\nclass Head(torch.nn.Module):\n    def prepare(self, counts):\n"
                 "        self.k = int(counts.max().item())\n    def forward(self, x):\n        return x.topk(self.k)\n",
                 # read in a method above the one that assigns it
                 "import torch\nclass Head(torch.nn.Module):\n    def forward(self, x):\n        return x[:, :self.k]\n"
                 "    def prepare(self, counts):\n        self.k = counts.max().item()\n",
                 # one arm reads a tensor, the other keeps metadata: either may reach the slice
                 "import torch\ndef f(x, mask, dynamic):\n    if dynamic:\n        r = min(mask.sum().item(), 8)\n"
                 "        if r == 0:\n            r = 1\n    else:\n        r = min(x.shape[0], 8)\n    return x[:r]\n",
                 # iterating a tensor gives one data value per element
                 "import torch\ndef f(m, h0s: torch.Tensor, bd):\n    for b, h0 in enumerate(h0s):\n"
                 "        m[b, h0 - bd:] = 0\n",
                 "import torch\ndef f(x, counts):\n    out = []\n    for n in counts.tolist():\n"
                 "        out.append(x.new_zeros(n, 4))\n    return out\n",
                 # returned by the file's own function, then arithmetic and int()
                 "import torch\ndef max_candidates(p: torch.Tensor):\n    return torch.sum(p.sum(1).max(-1)[0])\n"
                 "def sample(p, percent, device):\n    n = int(max_candidates(p) * percent)\n"
                 "    return torch.randint(100, (n,), device=device)\n",
                 # a 0-d tensor used directly as a slice bound
                 "import torch\ndef f(x: torch.Tensor, mask: torch.Tensor):\n    return x[:mask.sum()]\n",
                 # loop-carried, and ``+=``
                 "import torch\ndef f(x, t: torch.Tensor, steps):\n    end = 4\n    for _ in range(steps):\n"
                 "        y = x[:end]\n        end = t.argmax().item()\n    return y\n",
                 "import torch\ndef f(x, sizes: torch.Tensor):\n    total = 0\n    for s in sizes:\n"
                 "        total += s.item()\n    return torch.zeros(total)\n",
                 # a parameter filled by the file's own call with a value read from a tensor
                 "import torch\ndef pad(x, n):\n    return x.new_zeros(n, x.shape[1])\n"
                 "def run(x, mask):\n    return pad(x, int(mask.sum()))\n",
                 # an element of a tensor picked in a loop
                 "import torch\ndef f(x, lengths: torch.Tensor):\n    for i in range(x.shape[0]):\n"
                 "        x[i, lengths[i]:] = 0\n",
                 # at the call of a helper that sizes a tensor with its parameter (the chain in the message)
                 "import torch\ndef make(n):\n    return torch.zeros(n, 4)\ndef run(x):\n"
                 "    k = (x > 0).sum().item()\n    return make(k)\n",
                 # ... through an element of a list of sizes
                 "import torch\ndef make(x, n, dim=0):\n    shape = list(x.shape)\n    shape[dim] = n\n"
                 "    return torch.zeros(shape)\ndef run(x, idx: torch.Tensor):\n    return make(x, int(idx.max()) + 1)\n",
                 # the size arguments of common libraries
                 "import torch\nfrom torch_scatter import scatter\ndef pool(x, batch: torch.Tensor):\n"
                 "    n = int(batch.max()) + 1\n    return scatter(x, batch, dim=0, dim_size=n)\n",
                 "import torch\nimport torch.nn.functional as F\ndef f(labels: torch.Tensor):\n"
                 "    return F.one_hot(labels, labels.max().item() + 1)\n",
                 # the length of a data-dependent result: unique(), nonzero(), a mask selection
                 "import torch\ndef f(x, labels: torch.Tensor):\n    ids = labels.unique()\n"
                 "    return x.new_zeros(ids.size(0), 4)\n",
                 "import torch\ndef f(mask: torch.Tensor):\n    idx = mask.nonzero().squeeze(1)\n"
                 "    return torch.eye(idx.shape[0])\n",
                 "import torch\ndef f(x, scores):\n    sel = x[scores > 0.5]\n    return torch.arange(len(sel))\n",
                 "import torch\ndef f(x, labels):\n    vals, counts = torch.unique(labels, return_counts=True)\n"
                 "    return x[:, :counts.numel()]\n",
                 # a loop over the elements of a data-dependent result that builds tensors
                 "import torch\ndef f(feats, labels: torch.Tensor):\n    out = []\n    for c in labels.unique():\n"
                 "        out.append(feats[labels == c].mean(0))\n    return torch.stack(out)\n",
                 "import torch\ndef f(feats, labels: torch.Tensor):\n    out = []\n"
                 "    for i, c in enumerate(labels.unique()):\n        out.append(feats[labels == c].mean(0))\n"
                 "    return torch.cat(out)\n",
                 # a loop over the unique labels that computes on tensors: one set of operators per label
                 "import torch\ndef pull(kernel, emb: torch.Tensor):\n    labels = torch.unique(kernel)\n    loss = 0\n"
                 "    for lb in labels:\n        loss = loss + emb[:, kernel == lb].var(1).sum()\n    return loss\n",
                 # an element plus one as a bound; the last element of a mask selection
                 "import torch\ndef f(logits: torch.Tensor, lengths: torch.Tensor):\n"
                 "    for k in range(logits.shape[0]):\n        last = lengths[k] + 1\n        logits[k, :last] = -1e9\n",
                 "import torch\ndef f(logits: torch.Tensor, tokens: torch.Tensor, begin: int):\n"
                 "    stamps = tokens[tokens.ge(begin)]\n    last = stamps[-1] + 1\n    logits[:, begin:last] = -1e9\n",
                 # a loop once per item of an input the function checks for zero (an assigner's ground truths)
                 "import torch\ndef assign(gt_bboxes, cand: torch.Tensor, n):\n"
                 "    num_gt, num_b = gt_bboxes.size(0), cand.size(0)\n    if num_gt == 0 or num_b == 0:\n"
                 "        return None\n    for g in range(num_gt):\n        cand[:, g] += g * n\n    return cand\n",
                 # session 27 (precision27): the same loop when a test of the count for zero returns early (the
                 # raise-only validation of a configuration list below is no such test)
                 "import torch\ndef costs(pred: torch.Tensor, per_class, tgt: torch.Tensor):\n    n = len(per_class)\n"
                 "    if n == 0:\n        return pred.new_zeros(0)\n    for c in range(n):\n        pred[:, c] += tgt[c]\n"
                 "    return pred\n",
                 # a parameter the function's own body calls a tensor-only method on is a tensor
                 "import torch\ndef sequence_mask(lengths, max_len=None):\n    max_len = max_len or lengths.max()\n"
                 "    return torch.arange(0, max_len) >= lengths.unsqueeze(1)\n",
                 # a loop count from an element picked with constants; a while loop shrinking a tensor by a selection
                 "import torch\ndef scatter(feats: torch.Tensor, coors: torch.Tensor, c, n):\n"
                 "    batch_size = coors[-1, 0] + 1\n    out = []\n    for b in range(batch_size):\n"
                 "        canvas = feats.new_zeros(c, n)\n        out.append(canvas)\n    return torch.stack(out)\n",
                 "import torch\ndef nms(boxes: torch.Tensor, scores: torch.Tensor, thr):\n"
                 "    order = scores.argsort(descending=True)\n    keep = []\n    while order.shape[0] != 0:\n"
                 "        i = order[0]\n        keep.append(i)\n        d = (boxes[order[1:]] - boxes[i]).abs().sum(-1)\n"
                 "        order = order[1:][d > thr]\n    return torch.stack(keep)\n",
                 # a loop over the items kept by values read back
                 "import torch\ndef finished(fin: torch.Tensor, seqs: torch.Tensor):\n    rows = fin.tolist()\n"
                 "    hyps = []\n    for b in [i for i, f in enumerate(rows) if f[0]]:\n"
                 "        hyps.append(seqs[b].clone())\n    return hyps\n",
                 "import torch\ndef pairs(counts: torch.Tensor):\n    m = int(counts.max())\n"
                 "    return torch.tril_indices(m, m, -1)\n",
                 # the batch's largest value of each example's own map, as the size of an axis
                 "import torch\ndef collate(batch):\n    vocab = max(ex['src_map'].max() for ex in batch) + 1\n"
                 "    return torch.zeros(len(batch), 50, vocab)\n",
                 # to_dense_batch: reported at the reads, each naming the sizes it fixes
                 "import torch\ndef dense(x, batch: torch.Tensor, num_nodes: torch.Tensor):\n"
                 "    batch_size = int(batch.max()) + 1\n    max_num_nodes = int(num_nodes.max())\n"
                 "    return x.new_full((batch_size * max_num_nodes, x.size(-1)), 0.0)\n",
                 # an element picked with constants (often a shape kept in a tensor) counts as data in a loop count
                 "import torch\ndef scatter(feats, coors):\n    batch_size = coors[-1, 0] + 1\n    ids = coors.long()[:, 0]\n"
                 "    for i in range(batch_size):\n        feats[ids == i] *= 2\n    return feats\n",
                 # a one-element tensor of data as the bound itself; self.x set from data outside __init__
                 "import torch\ndef f(am, src_len: torch.Tensor):\n    return am[:, :src_len]\n",
                 "import torch\ndef f(am, src_len: torch.Tensor):\n    n = src_len[0]\n    return am[:, :n]\n",
                 "import torch\nclass Beam:\n    def __init__(self):\n        self.src_len = None\n"
                 "    def initialize(self, enc_out, src_len: torch.Tensor):\n        self.src_len = src_len.repeat_interleave(4)\n"
                 "    def update(self, attn, b):\n        return attn[b, :, :self.src_len[b]]\n",
                 # a one-element tensor of data passed where an int size goes (a parameter, a tensor the caller passes
                 # in a mapping): scatter reads it back to size its output
                 "import torch\nfrom torch_scatter import scatter\nclass Pool(torch.nn.Module):\n"
                 "    def forward(self, x: torch.Tensor, batch: torch.Tensor, num_graphs: torch.Tensor):\n"
                 "        return scatter(x, batch, dim=0, dim_size=num_graphs)\n",
                 "import torch\nfrom typing import Dict\nfrom torch_scatter import scatter\n"
                 "def pool(inputs: Dict[str, torch.Tensor]):\n    n = inputs['num_graphs']\n"
                 "    return scatter(inputs['x'], inputs['batch'], dim=0, dim_size=n)\n",
                 # the count of rows an op wrote into a buffer (returned, or written into a 0-d tensor)
                 "import torch\nfrom .ext import hard_voxelize\ndef voxelize(points, max_voxels=20000):\n"
                 "    voxels = points.new_zeros(size=(max_voxels, points.size(1)))\n"
                 "    voxel_num = hard_voxelize(points, voxels, max_voxels)\n    return voxels[:voxel_num]\n",
                 "import torch\nfrom . import ext_module\ndef voxelize(points, max_voxels=20000):\n"
                 "    voxels = points.new_zeros(size=(max_voxels, points.size(1)))\n"
                 "    voxel_num = torch.zeros(size=(), dtype=torch.long)\n"
                 "    ext_module.hard_voxelize_forward(points, voxels, voxel_num)\n    return voxels[:voxel_num]\n",
                 # an index of unknown origin (a field of the batch, a dict's entry) given to a scatter or an
                 # index_add is a tensor: its last element read back sizes the output (segments of a graph batch)
                 "import torch\ndef scatter_sum(src, index, dim_size):\n    out = torch.zeros(dim_size, src.shape[1])\n"
                 "    return out.index_add_(0, index, src)\ndef readout(data):\n    batch = data.batch\n"
                 "    n = int(batch[-1]) + 1\n    return scatter_sum(data.x, batch, dim_size=n)\n",
                 "import torch\ndef pool(feats, idx_m):\n    maxm = int(idx_m[-1]) + 1\n"
                 "    y = torch.zeros(maxm, feats.shape[1])\n    return y.index_add(0, idx_m, feats)\n",
                 "import torch\nfrom torch_scatter import scatter_add\ndef pool(inputs):\n    idx_m = inputs['idx_m']\n"
                 "    maxm = int(idx_m[-1]) + 1\n    return scatter_add(inputs['y'], idx_m, dim=0, dim_size=maxm)\n",
                 "import torch\nfrom torch_scatter import scatter\ndef readout(data, x):\n"
                 "    n = int(data.batch[-1]) + 1\n    return scatter(x, data.batch, dim=0, dim_size=n)\n",
                 # a buffer of zeros an op fills with counts of the data
                 "import torch\ndef per_graph(x, batch: torch.Tensor, b: int):\n"
                 "    counts = torch.zeros(b, dtype=torch.long)\n    counts.scatter_add_(0, batch, torch.ones_like(batch))\n"
                 "    return [x.new_zeros(counts[i], 4) for i in range(b)]\n",
                 # a buffer another method writes from data is no configuration
                 "import torch\nclass Tracker(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                 "        self.register_buffer('n', torch.zeros((), dtype=torch.long))\n"
                 "    def update(self, mask):\n        self.n.copy_(mask.sum())\n"
                 "    def take(self, x):\n        return x[:self.n.item()]\n",
                 # a tensor of values computed per item (not of their shapes) is data
                 "import torch\ndef first(xs):\n    vals = torch.tensor([x.sum() for x in xs])\n"
                 "    return torch.zeros(int(vals[0]))\n",
                 # each target's length (not a spatial size of feature levels) is data
                 "import torch\ndef pad(targets, padded):\n    lengths = torch.IntTensor([len(t) for t in targets])\n"
                 "    for i, n in enumerate(lengths):\n        padded[i, :n] = targets[i][:n]\n",
                 # the count of an NMS result cut to a maximum; the largest element of a tensor by the builtin max
                 "import torch\nfrom torchvision.ops import batched_nms\ndef det(boxes, scores, cls, k):\n"
                 "    keep = batched_nms(boxes, scores, cls, 0.5)[:k]\n    return torch.zeros(k - len(keep), 6)\n",
                 "import torch\ndef f(x: torch.Tensor, lengths: torch.Tensor):\n    m = max(lengths)\n"
                 "    return x[:, :m]\n",
                 # the count and the last start of windows over a length read back from a tensor
                 "import torch\ndef f(x, lengths):\n    n = int(lengths.max())\n    k = len(range(0, n, 160))\n"
                 "    return torch.zeros(k, 4)\n",
                 "import torch\ndef f(x, mask):\n    n = int(mask.sum())\n    starts = list(range(0, n, 4))\n"
                 "    return x[:starts[-1]]\n",
                 # the largest of a parameter kept in a name (a mask helper given the lengths of the batch)
                 "import torch\ndef get_pad_mask(lengths):\n    max_len = lengths.max()\n"
                 "    return torch.arange(0, max_len)[None] >= lengths.unsqueeze(1)\n",
                 "import torch\ndef sequence_mask(lengths, max_len=None):\n    if max_len is None:\n"
                 "        max_len = lengths.max()\n"
                 "    return torch.ones((len(lengths), max_len)).to(lengths.device).cumsum(1) > 0\n",
                 # the lengths of a batch moved to the device in the training loop
                 "import torch\ndef train(model, loader, device):\n    for batch in loader:\n"
                 "        x = batch['x'].to(device)\n        lengths = batch['lengths'].to(device)\n"
                 "        T = lengths.max()\n        model(x[:, :T])\n")
    must_fire += (  # a sparse tensor sized by the longest row of the batch (its ``size`` argument: size_arguments.tsv)
                  "import torch\ndef pad(values: torch.Tensor, offsets: torch.Tensor, idx):\n"
                  "    longest = int((offsets[1:] - offsets[:-1]).max())\n"
                  "    return torch.sparse_coo_tensor(idx, values, torch.Size([len(offsets) - 1, longest])).to_dense()\n",)
    must_fire += (  # the mixin's attribute is a tensor of the data in the class it is mixed into
        "import torch\nclass CountsMixin:\n    def act(self, x):\n        return torch.split(x, self.counts.tolist())\n"
        "class Net(CountsMixin, torch.nn.Module):\n    def forward(self, x, lengths: torch.Tensor):\n"
        "        self.counts = lengths.sum(0)\n        return self.act(x)\n",)
    must_fire += (
        # one sample's length picked from a loader batch, cutting that same sample (and then any tensor)
        "import torch\nfrom torch.utils.data import DataLoader\ndef log_sample(model, ds):\n"
        "    for batch in DataLoader(ds, batch_size=8, drop_last=True):\n        lengths = batch['mel_lengths']\n"
        "        n = lengths[0]\n        ref = batch['mel'][0, :, :n]\n        out = model(ref)\n        return out[:, n:]\n",
        "import torch\ndef show(mel: torch.Tensor, lengths: torch.Tensor):\n    return mel[1][:lengths[1]]\n",
        # a helper that reads its size from the data when the call leaves it out (``exists`` / ``default`` idioms)
        "import torch\ndef exists(v):\n    return v is not None\ndef lens_to_mask(t, length=None):\n"
        "    if not exists(length):\n        length = t.amax()\n    return torch.arange(length, device=t.device) < t[:, None]\n"
        "def run(x, lens):\n    return x * lens_to_mask(lens)[..., None]\n",
        "import torch\ndef exists(v):\n    return v is not None\ndef default(v, d):\n    return v if exists(v) else d\n"
        "def lens_to_mask(t, length=None):\n    length = default(length, t.amax())\n"
        "    return torch.arange(length, device=t.device) < t[:, None]\ndef run(x, lens):\n    return lens_to_mask(lens)\n",
        # the elements of a copy brought to the host from the device (also through a parameter the file fills)
        "import torch\ndef rev(x: torch.Tensor, mask: torch.Tensor):\n    lengths = mask.int().sum(-1).cpu()\n"
        "    for i, n in enumerate(lengths):\n        x[i, :n] = 0\n    return x\n",
        # a window bound clamped by a constant is still the data's value
        "import torch\ndef window(logits):\n    bins = logits.argmax(dim=1)\n"
        "    start = torch.max(torch.tensor(0, device=logits.device), bins - 4)\n"
        "    for b in range(logits.size(0)):\n        logits[b, :start[b]] = 0\n    return logits\n",
        # the pixels above a threshold counted on the host, handed down to the helper that sizes a device tensor
        "import numpy as np\nimport torch\ndef steps(dP, inds, device):\n"
        "    return torch.zeros((1, len(inds[0]), 2), device=device)\ndef masks(prob, dP, t, device):\n"
        "    inds = np.nonzero(prob > t)\n    return steps(dP, inds, device)\n",
        "import torch\ndef pts(m: torch.Tensor, device):\n    inds = torch.nonzero(m, as_tuple=True)\n"
        "    return torch.zeros(len(inds[0]), 2, device=device)\n",
        # boxes copied to the host with ``.numpy()``: their values cut the crops, as ``.tolist()`` would
        "import torch\ndef crops(img, boxes):\n    b = boxes.int().cpu().numpy()\n    out = []\n"
        "    for k in range(b.shape[0]):\n        out.append(img[:, b[k, 1]:b[k, 3], b[k, 0]:b[k, 2]].mean())\n"
        "    return out\n",
        # session 20 (values20): the counts ``unique_consecutive`` returns, unpacked, bound an arange per element
        "import torch\ndef triples(idx_i):\n    _, n = torch.unique_consecutive(idx_i, return_counts=True)\n"
        "    out, offset = [], 0\n    for k in range(n.shape[0]):\n"
        "        out.append(torch.arange(offset, offset + n[k]))\n        offset += n[k]\n    return out\n",
        # an element picked by a constant from a tensor the code computed (rounded distances): a value of the data
        "import torch\ndef shifts(cell: torch.Tensor, cutoff: float):\n"
        "    reps = torch.ceil(cutoff * torch.norm(cell.inverse().t(), dim=1)).long()\n"
        "    return torch.arange(1, reps[0] + 1, device=cell.device)\n",
        # a batched graph's per-graph node counts (DGL) bound the slices of the node features
        "import torch\ndef split(g, feats):\n    start, out = 0, []\n    for i in range(3):\n"
        "        end = start + g.batch_num_nodes()[i]\n        out.append(feats[start:end].sum(0))\n        start = end\n"
        "    return torch.stack(out)\n",
        "import torch\ndef nodes(g, feats, a, b):\n    n = sum(g.batch_num_nodes()[a:b])\n    return feats[:n]\n",
        # a counter the data advances: a loop that runs until a tensor it shrinks by a mask is empty (a soft NMS),
        # and a count kept under a test of a tensor's value
        "import torch\ndef soft_nms(scores: torch.Tensor, thr: float):\n    out = torch.zeros(scores.numel())\n"
        "    count: int = 0\n    while scores.numel() > 0:\n        out[count] = scores.max()\n        count += 1\n"
        "        scores = scores[scores > thr]\n    return out[:count]\n",
        "import torch\ndef kept(x, scores: torch.Tensor):\n    n = 0\n    for i in range(scores.shape[0]):\n"
        "        if scores[i] > 0.5:\n            n += 1\n    return x[:n]\n",
        # values read back appended to a list that then gives the sizes
        "import torch\ndef per_graph(x, batch: torch.Tensor):\n    sizes = []\n    for b in range(4):\n"
        "        sizes.append(int((batch == b).sum()))\n    return torch.split(x, sizes)\n",
        # a position made from a setting, then advanced in place by the data in the generation loop
        "import torch\ndef gen(model, tok, n: int, limit: int):\n    pos = torch.tensor([n])\n    while True:\n"
        "        k = min(4, (limit - pos - 1).item())\n        tok = model(tok)[:, :k]\n        pos.add_(len(tok))\n",
        # counts that shape a result: repeat_interleave by an int, multinomial draws, a 1-d adaptive pool, unfold
        "import torch\ndef rep(x, mask: torch.Tensor):\n    k = int(mask.sum())\n    return x.repeat_interleave(k, dim=0)\n",
        "import torch\ndef draw(p, mask: torch.Tensor):\n    return torch.multinomial(p, int(mask.sum().item()))\n",
        "import torch\nimport torch.nn.functional as F\ndef pool(x, lengths: torch.Tensor):\n"
        "    return F.adaptive_avg_pool1d(x, lengths.max().item())\n",
        # a loop over a list cut by a tensor's value (a Viterbi backtrace over one sample's steps)
        "import torch\ndef backtrace(history, mask: torch.Tensor, score):\n    ends = mask.long().sum(dim=0) - 1\n"
        "    out = []\n    for i in range(score.shape[0]):\n        best = [score[i].argmax().item()]\n"
        "        for hist in reversed(history[:ends[i]]):\n            best.append(hist[i][best[-1]].item())\n"
        "        out.append(best)\n    return out\n",)
    must_not_fire = (# the same lists when no collective fills them: the code's own sizes
                     # counts that are configuration (set when the model is built), or host arrays; a list of ints
                     # not indexed by the sample the slice cuts
                     "import torch\nclass Head(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                     "        self.sizes = [3, 5, 7]\n    def forward(self, x):\n"
                     "        for i, n in enumerate(self.sizes):\n            yield x[i, :n]\n",
                     "import numpy as np\nimport torch\ndef f(x, c):\n    counts = np.asarray(c)\n"
                     "    for i, n in enumerate(counts):\n        yield x[i, :n]\n",
                     "import torch\ndef f(x, counts):\n    for i, n in enumerate(counts):\n        yield x[:, :n]\n",
                     "import torch\ndef f(x, sizes: list[int], k: int):\n    return x[k, :sizes[0] + 1]\n",
                     "import torch\ndef pad(t, world):\n    size = torch.tensor(t.shape[0])\n"
                     "    sizes = [size.clone() for _ in range(world)]\n    return torch.zeros(torch.tensor(sizes).max())\n",

        # session 27 (precision27): a count validated by a test that only raises (``if num_classes == 0: raise``) is
        # no count the code expects to vary: a loop over a configuration list's classes (rf-detr's keypoint costs)
        "import torch\ndef costs(pred: torch.Tensor, per_class, tgt: torch.Tensor):\n    n = len(per_class)\n"
        "    if n == 0:\n        raise ValueError('per_class must be non-empty')\n    for c in range(n):\n"
        "        pred[:, c] += tgt[c]\n    return pred\n",  # session 20 (values20): a counter of a loop's items (a length, no value of the data), a
                     # count kept under a test of host values, sizes appended from shapes, a constant element of a
                     # tensor the code only received (a setting the batch may repeat) or made from configuration
                     "import torch\ndef count(x, items):\n    n = 0\n    for it in items:\n        n += 1\n"
                     "    return x[:n]\n",
                     "import torch\ndef count(x, xs: list):\n    n = 0\n    for i in range(10):\n"
                     "        if xs[i] > 3:\n            n += 1\n    return x[:n]\n",
                     "import torch\ndef pieces(x, ys):\n    sizes = []\n    for y in ys:\n"
                     "        sizes.append(y.shape[0])\n    return torch.split(x, sizes)\n",
                     "import torch\ndef cut(x, prefix_len: torch.Tensor):\n    return x[:, :prefix_len[0]]\n",
                     "import torch\ndef grid(x):\n    sizes = torch.tensor([4, 8]) * 2\n    return torch.zeros(sizes[0])\n",
                     "import torch\ndef names(mask: torch.Tensor):\n    n = int(mask.sum())\n    labels, out = ['a', 'b'], []\n"
                     "    for name in labels[:n]:\n        out.append(name)\n    return out\n",
                     "import torch\ndef head(x, n: int):\n    pos = torch.tensor([n])\n    pos.requires_grad_(False)\n"
                     "    return x[:, :pos.item()]\n",
                     # a tensor of configuration (a buffer set when the module is built) passed as the size
                     "import torch\nfrom torch_scatter import scatter\nclass Pool(torch.nn.Module):\n"
                     "    def __init__(self, n):\n        super().__init__()\n"
                     "        self.register_buffer('n', torch.tensor(n))\n"
                     "    def forward(self, x, batch: torch.Tensor):\n"
                     "        return scatter(x, batch, dim=0, dim_size=self.n)\n",
                     # a mapping of tensors the file's own call fills with configuration
                     "import torch\nfrom typing import Dict\ndef make(sizes: Dict[str, torch.Tensor]):\n"
                     "    return torch.zeros(sizes['n'], 3)\ndef run():\n    return make({'n': torch.tensor(4)})\n",
                     # numpy's counts sizing numpy's work and a host loop: no NPU shape
                     "import numpy as np\nimport torch\ndef hist(labels, img, t):\n    labels = np.asarray(labels)\n"
                     "    n = len(np.unique(labels))\n    counts = np.zeros(n)\n    for i in range(n):\n"
                     "        counts[i] = (labels == i).sum()\n    ys, xs = np.nonzero(img > t)\n"
                     "    return counts[:len(ys)], img[:len(xs)]\n",
                     # a reader's host tensor and configuration given ``.numpy()``: no value of the device's
                     "import numpy as np\nimport torch\ndef crops(img, path):\n"
                     "    b = torch.from_numpy(np.load(path)).numpy()\n    s = torch.tensor([1, 2]).numpy()\n"
                     "    return img[:, b[1]:b[3]], img[:s[0]]\n",
                     # index bookkeeping cut from tensors torch.load put on the CPU (map_location="cpu")
                     "import torch\nclass Updater:\n    def _lens(self, p):\n        return torch.tensor(read(p))\n"
                     "    def _codes(self, p):\n        return torch.load(p, map_location='cpu')\n"
                     "    def remove(self, p, i):\n        lens, codes = self._lens(p), self._codes(p)\n"
                     "        start = sum(lens[:i])\n        end = start + lens[i]\n"
                     "        return torch.cat((codes[:start], codes[end:]))\n",
                     # the elements of a tensor the code fixes, as packing lengths; a tensor's rows only iterated
                     "import torch\ndef encode(rnn, x):\n    lens = list(torch.tensor([4, 4, 4]))\n"
                     "    return rnn(torch.nn.utils.rnn.pack_padded_sequence(x, lens, batch_first=True))\n",
                     "import torch\ndef f(x):\n    rows = list(x)\n    return [r * 2 for r in rows]\n",
                     # a collator's span masking: host work in the loader's workers
                     "import torch\nfrom transformers import DataCollatorForLanguageModeling\n"
                     "class SpanCollator(DataCollatorForLanguageModeling):\n"
                     "    def torch_mask_tokens(self, inputs: torch.Tensor):\n"
                     "        masked = torch.zeros(inputs.shape, dtype=torch.bool)\n"
                     "        for i in range(inputs.size(0)):\n            span = torch.randint(1, 5, (1,)).item()\n"
                     "            masked[i, :span] = True\n        return inputs, masked\n",
                     # a numpy copy handed on whole: host post-processing (thresholds, connected components)
                     "import numpy as np\nimport torch\ndef boxes(textmap, thr):\n    n = int(textmap.max() * 10)\n"
                     "    return [np.zeros(k) for k in range(n)]\ndef detect(y):\n"
                     "    return boxes(y[:, :, 0].cpu().data.numpy(), 0.5)\n",
                     # a four-tuple that no code shows is a packed sequence
                     "import torch\ndef run(cell, seq, h):\n    x, batch_sizes, _, _ = seq\n    start = 0\n"
                     "    for bs in batch_sizes:\n        h = cell(x[start:start + bs], h[:bs])\n        start += bs\n"
                     "    return h\n",
                     # a value of the batch picked for all samples (a setting the dataset may repeat), one sample
                     # cut to another sample's value; a reader's host tensor; a clamp of two constants
                     "import torch\nfrom torch.utils.data import DataLoader\ndef run(model, ds):\n"
                     "    for batch in DataLoader(ds, batch_size=8, drop_last=True):\n        p = batch['prefix_len'][0]\n"
                     "        model(batch['ids'][:, :p], batch['ids'][1, :p])\n",
                     "import torch\ndef f(x: torch.Tensor, arr):\n    lengths = torch.from_numpy(arr)\n"
                     "    for i, n in enumerate(lengths):\n        x[i, :n] = 0\n    return x\n",
                     "import torch\ndef f(x: torch.Tensor):\n    lim = torch.max(torch.tensor(0), torch.tensor(4))\n"
                     "    for b in range(x.size(0)):\n        x[b, :lim[0]] = 0\n    return x\n",
                     # a dataset's per-sample work on the host: hiding a random share of the observed values
                     "import numpy as np\nimport torch\nfrom torch.utils.data import Dataset\nclass Imputation(Dataset):\n"
                     "    @staticmethod\n    def rand_mask(observed):\n        r = torch.rand_like(observed) * observed\n"
                     "        n = round(observed.sum().item() * np.random.rand())\n        r[r.topk(n).indices] = -1\n"
                     "        return (r > 0).float()\n    def __getitem__(self, i):\n        return self.rand_mask(self.m[i])\n",
                     "import torch\nloss_value = loss.item()\nprint(loss_value)\n",
                     # the largest of a parameter known a numpy array (made one, or annotated), or used as no more
                     # than one (the quiet ``sequence_mask`` below); one used as a value
                     "import torch\nimport numpy as np\ndef f(lengths):\n    lengths = np.asarray(lengths)\n"
                     "    max_len = lengths.max()\n    return torch.zeros(4, max_len)\n",
                     "import torch\nimport numpy as np\ndef f(lengths: np.ndarray):\n    max_len = lengths.max()\n"
                     "    return torch.zeros(4, max_len)\n",
                     "import torch\ndef scale(x):\n    m = x.max()\n    return x / m\n",
                     # the model's own buffer moved to the device: the same every batch
                     "import torch\nclass Head(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                     "        self.register_buffer('strides', torch.tensor([8, 16, 32]))\n"
                     "    def forward(self, x):\n        strides = self.strides.to(x.device)\n"
                     "        n = strides.max()\n        return x.new_zeros(n)\n",
                     # windows over a configured length: their count is no value read back
                     "import torch\ndef f(x, cfg):\n    k = len(range(0, cfg.length, cfg.hop))\n"
                     "    return torch.zeros(k, 4)\n",
                     # an ``isinstance(size, Tensor)`` arm that never runs: ``size`` is a Python number or list
                     "import torch\nfrom torch import Tensor\ndef batch_vector(items, dim):\n    out = []\n"
                     "    for i, item in enumerate(items):\n        size = item.size(dim)\n"
                     "        if isinstance(size, Tensor):\n            size = size.tolist()\n"
                     "        out.append(torch.full((size,), i))\n    return torch.cat(out)\n",
                     # read once while the model is built: its constructor, a private helper only it calls
                     "import torch\nclass Head(torch.nn.Module):\n    def __init__(self, labels: torch.Tensor, d):\n"
                     "        super().__init__()\n        n = int(labels.max().item()) + 1\n"
                     "        self.register_buffer('table', torch.zeros(n, d))\n",
                     "import torch\nclass Occ(torch.nn.Module):\n    def __init__(self, res):\n        super().__init__()\n"
                     "        self.register_buffer('coords', self._grid(res))\n"
                     "    def _grid(self, res: torch.Tensor):\n        res = res.tolist()\n        return torch.arange(res[0])\n",
                     # one argument of a legacy typed constructor is its data, not a size
                     "import torch\ndef f(t):\n    return torch.LongTensor(t.tolist())\n",
                     # the builtin max of a host list of sizes
                     "import torch\ndef f(x: torch.Tensor, sizes: list):\n    m = max(sizes)\n    return x[:, :m]\n",
                     # a mixin's attribute set by the class it is mixed into when built (a gym space's sizes)
                     "import torch\nclass MultiCategoricalMixin:\n    def act(self, logits):\n"
                     "        return torch.split(logits, self.action_space.nvec.tolist(), dim=-1)\n",
                     # a numpy array's maximum (the ``isinstance`` arm says so) is no device read
                     "import numpy as np\nimport torch\ndef adj(e):\n    if isinstance(e, np.ndarray):\n"
                     "        n = int(e.max()) + 1\n        return torch.zeros(n, n)\n",
                     # a while loop over a host queue; a tensor cut by a fixed slice; an element of configuration;
                     # a comprehension filtered by host values
                     "import torch\ndef f(x: torch.Tensor, queue):\n    while len(queue) > 0:\n"
                     "        queue = queue[1:]\n        x = x * 2\n    return x\n",
                     "import torch\ndef f(x: torch.Tensor):\n    while x.shape[0] > 1:\n        x = x[1:] + x[:-1]\n"
                     "    return x\n",
                     # a size (not a loop count) from an element picked by constants: often a shape kept in a tensor
                     "import torch\ndef coords(spatial_shapes: torch.Tensor):\n"
                     "    return torch.arange(spatial_shapes[0, 0])\n",
                     "import torch\ndef f(x):\n    grid = torch.tensor([[1, 2], [3, 4]])\n    out = []\n"
                     "    for i in range(grid[0, 1]):\n        out.append(x * i)\n    return torch.cat(out)\n",
                     "import torch\ndef f(x: torch.Tensor, n):\n    out = []\n"
                     "    for i in [j for j in range(n) if j % 2]:\n        out.append(x * i)\n    return torch.cat(out)\n",
                     # a window of a fixed length at a position read from a tensor (a momentum queue)
                     "import torch\ndef enqueue(queue: torch.Tensor, ptr_t: torch.Tensor, feats: torch.Tensor):\n"
                     "    ptr = int(ptr_t)\n    b = feats.shape[0]\n    queue[:, ptr:ptr + b] = feats.T\n",
                     # model state set when the module is built (a YOLO's strides): the same every batch
                     "import torch\nimport torch.nn.functional as F\nclass Model(torch.nn.Module):\n"
                     "    def __init__(self, s=256):\n        super().__init__()\n"
                     "        self.stride = torch.tensor([s / x.shape[-2] for x in self.forward(torch.zeros(1, 3, s, s))])\n"
                     "    def forward(self, x):\n        return F.pad(x, (0, int(self.stride.max())))\n",
                     # session 22: the largest of a tensor the code fills with constants stays fixed
                     "import torch\ndef f(x):\n    strides = torch.tensor([8, 16, 32])\n    n = strides.max()\n"
                     "    return torch.zeros(n, 4)\n",
                     # a count loop with no zero test (a batch), or one that leaves no tensor work
                     "import torch\ndef f(x: torch.Tensor, out: torch.Tensor):\n    n = x.size(0)\n"
                     "    for i in range(n):\n        out[i] += x[i].sum()\n",
                     "import torch\ndef f(gt: torch.Tensor):\n    if len(gt) == 0:\n        return []\n    names = []\n"
                     "    for i in range(len(gt)):\n        names.append(str(i))\n    return names\n",
                     "import torch\nn = x.size(0)\nbuf = torch.zeros(n, 4)\n",
                     "import torch\nn = t.item()\nn = 8\nbuf = torch.zeros(n)\n",
                     "import torch\ndef a(t):\n    n = t.item()\ndef b():\n    return torch.zeros(n)\n",
                     "n = t.item()\nbuf = zeros(n)\n",
                     # an attribute of a model read from outside its class (its strides): model state, not data;
                     # ``Model`` is another name of the class
                     "import torch\nfrom torch import nn\nclass Det(nn.Module):\n    def __init__(self):\n"
                     "        super().__init__()\n        self.stride = torch.tensor([8.0, 16.0, 32.0])\nModel = Det\n"
                     "def probe(cfg):\n    model = Model()\n    gs = max(int(model.stride.max()), 32)\n"
                     "    return torch.empty(1, 3, gs, gs)\n",
                     # a buffer of the model (registered, never bound from data) read back as a size: a constant
                     "import torch\nclass Quant(torch.nn.Module):\n    def __init__(self, levels):\n"
                     "        super().__init__()\n        self.register_buffer('levels', torch.tensor(levels))\n"
                     "        self.codebook = torch.arange(self.levels.prod().item())\n",
                     # (lead, session 26) shape arithmetic done by torch on host numbers (TorchScript style):
                     # the value read back is the shape's, known without the data (composer's blurpool)
                     "import torch\nimport torch.nn.functional as F\ndef pad(filt: torch.Tensor):\n"
                     "    _, _, h, w = filt.shape\n    return int(torch.div(h, 2)), int(torch.div(w, 2))\n"
                     "def half(x: torch.Tensor):\n    n = x.shape[0]\n"
                     "    return x[:int(torch.div(n, 2, rounding_mode='floor'))]\n",
                     # a Python bool made an int: ``len`` of a list against a batch size, a tensor tested for None
                     "import torch\ndef batches(bs, xs, t: torch.Tensor):\n    n = len(xs) // bs + int(len(xs) % bs != 0)\n"
                     "    k = int(t is not None)\n    return [xs[i * bs:(i + 1) * bs] for i in range(n)], torch.zeros(k)\n",
                     "import torch\nimport numpy as np\nstart = int(np.min(tracks[:, 1]))\nfor i in range(start):\n    pass\n",
                     "import torch\ndef f(x, arr):\n    n = arr.sum()\n    return x[:n]\n",
                     # the longest of the examples is NPU405's; a maximum over a few named tensors
                     "import torch\ndef collate(batch):\n    n = max(ex['ids'].size(0) for ex in batch)\n"
                     "    return torch.zeros(len(batch), n)\n",
                     "import torch\nends = torch.tensor(config.depths).cumsum(0).tolist()\nd = dpr[ends[0]:ends[1]]\n",
                     "import torch\ndef f(p: torch.Tensor):\n    rng = p.max() - p.min()\n    c = (0.01 * rng) ** 2\n"
                     "    s = p * c\n    return s.reshape(s.shape[0], -1)\n",
                     "import torch\nclass A:\n    def a(self, t):\n        self.k = t.item()\nclass B:\n"
                     "    def b(self, x):\n        return x.topk(self.k)\n",
                     # numpy's bincount: host memory; a fixed count of classes
                     "import torch\nimport numpy as np\ndef f(labels: torch.Tensor, a):\n"
                     "    k = labels.max().item() + 1\n    return np.bincount(a, minlength=k), torch.bincount(labels, minlength=10)\n",
                     # the ends of a linspace are values; its number of steps is the size
                     "import torch\ndef grid(x: torch.Tensor, n: int):\n    lo, hi = x.min().item(), x.max().item()\n"
                     "    return torch.linspace(lo, hi, n), torch.logspace(lo, end=hi, steps=8)\n",
                     # a value read from a tensor as the fill value, not the size
                     "import torch\ndef f(t: torch.Tensor, n):\n    return torch.full((n,), t.item())\n",
                     # iterating a tensor: its elements as the input of a resize, not as its size
                     "import torch\nimport torch.nn.functional as F\ndef f(feats: torch.Tensor):\n"
                     "    return [F.interpolate(x[None], size=(8, 8)) for x in feats]\n",
                     # the loop index of enumerate(), not the element
                     "import torch\ndef f(x, t: torch.Tensor):\n    for i, w in enumerate(t.tolist()):\n"
                     "        x = x[:, i:]\n    return x\n",
                     # rebound unconditionally before the use
                     "import torch\ndef f(x, mask: torch.Tensor, dynamic):\n    k = mask.sum().item()\n"
                     "    if dynamic:\n        pass\n    k = 8\n    return x[:k]\n",
                     # configuration put in a tensor, through a name
                     "import torch\ndef f(x, cfg):\n    bounds = x.new_tensor(cfg.grids).cumsum(0)\n"
                     "    for lvl in range(1, 3):\n        x[bounds[lvl - 1]:bounds[lvl]] *= 2\n    return x\n",
                     # a numpy array's reshape is no NPU shape; a tensor's shape is metadata, not data
                     "import torch\nimport numpy as np\ndef f(x, t: torch.Tensor):\n    n = t.item()\n"
                     "    y = x * n\n    a = np.zeros(12).reshape(n, -1)\n    return x.view(y.shape[0], -1), a\n",
                     # the helper's parameter is a fill value, not a size; a size from metadata
                     "import torch\ndef fill(v):\n    return torch.full((4,), v)\ndef make(n):\n    return torch.zeros(n)\n"
                     "def run(x):\n    a = fill(x.sum().item())\n    return a, make(x.size(0))\n",
                     # the inverse indices of unique() and the second axis of nonzero() have fixed lengths
                     "import torch\ndef f(x, labels: torch.Tensor, mask: torch.Tensor):\n"
                     "    u, inv = torch.unique(labels, return_inverse=True)\n    idx = mask.nonzero()\n"
                     "    return x.new_zeros(inv.size(0), idx.shape[1])\n",
                     # numpy's unique: host memory, no NPU shape; a loop over it that builds nothing
                     "import torch\nimport numpy as np\ndef f(x, labels):\n    u = np.unique(labels)\n"
                     "    return torch.zeros(len(u))\n",
                     "import torch\ndef f(labels: torch.Tensor):\n    for c in labels.unique():\n        print(c)\n",
                     "import torch\ndef f(labels: torch.Tensor, names):\n    for c in labels.unique().tolist():\n"
                     "        names.append(str(c))\n",
                     # tensors computed per element only to be read back: a log line, run-length encodings
                     "import torch\ndef describe(cls: torch.Tensor, names):\n    s = ''\n    for c in cls.unique():\n"
                     "        n = (cls == c).sum()\n        s += f'{n} {names[int(c)]}, '\n    return s\n",
                     "import torch\ndef to_rle(seg: torch.Tensor):\n    out = []\n    for idx in torch.unique(seg):\n"
                     "        m = torch.where(seg == idx, 1, 0)\n        out.append(rle(m))\n    return out\n",
                     "import torch\nimport numpy as np\nclass Confusion:\n    def __init__(self, nc):\n"
                     "        self.matrix = np.zeros((nc + 1, nc + 1))\n    def update(self, det: torch.Tensor, thr):\n"
                     "        for dc in det[det[:, 4] > thr][:, 5].int():\n            self.matrix[dc, -1] += 1\n",
                     # from the slice branch: configuration, or no evidence of data
                     "import torch\nclass Head(torch.nn.Module):\n    def __init__(self, num_grids=(40, 36, 24)):\n        super().__init__()\n        self.num_grids = num_grids\n        self.register_buffer('ranges', torch.tensor([[1, 96], [48, 192]]))\n    def predict(self, scores: torch.Tensor, labels: torch.Tensor):\n        lvl = labels.new_tensor(self.num_grids).pow(2).cumsum(0)\n        strides = scores.new_ones(lvl[-1])\n        strides[:lvl[0]] *= 8\n        for i in range(1, 3):\n            strides[lvl[i - 1]:lvl[i]] *= 2\n        return strides[:self.ranges[0, 1]]\n",
                     'import torch\ndef f(x: torch.Tensor):\n    b = torch.tensor([[0, 4], [4, 8]])\n    return x[b[0, 0]:b[0, 1]], x[:b[1, 0]]\n',
                     'import torch\nclass Grid:\n    def __init__(self, sizes: torch.Tensor):\n        self.sizes = sizes\n    def cut(self, x: torch.Tensor):\n        return x[:self.sizes[0, 0]]\n',
                     'import torch\ndef gate(a, n):\n    return a[:, :n].tanh() * a[:, n:].sigmoid()\ndef run(a, hidden):\n    n = torch.IntTensor([hidden])\n    return gate(a, n[0])\n',
                     'import torch\ndef scatter(feats: torch.Tensor, coors):\n    batch_size = coors[-1, 0] + 1\n    return feats.new_zeros(batch_size, 64)\n',
                     'import torch\nfrom .ext import fill_grid\ndef grid(x: torch.Tensor, cfg):\n    buf = x.new_zeros(100, 4)\n    n = fill_grid(buf, cfg.size)\n    return buf[:n]\n',
                     # buffers registered in __init__ from the constructor's arguments (a base class of another
                     # module), never written from data: an occupancy grid's resolution is configuration
                     "import torch\nfrom .base import Estimator\nclass Grid(Estimator):\n"
                     "    def __init__(self, resolution=128):\n        super().__init__()\n"
                     "        self.register_buffer('resolution', torch.tensor([resolution] * 3))\n"
                     "        self.cells = int(self.resolution.prod().item())\n"
                     "        self.register_buffer('occs', torch.zeros(self.cells))\n"
                     "    def coords(self, x):\n        res = self.resolution.tolist()\n"
                     "        return torch.zeros(*res), x[:, :int(self.resolution[0])]\n",
                     # attributes set to configuration tensors: an element, an iteration
                     "import torch\nclass Head(torch.nn.Module):\n    def __init__(self, strides=(8, 16)):\n"
                     "        super().__init__()\n        self.strides = torch.tensor(strides)\n"
                     "    def forward(self, x):\n        for s in self.strides:\n            x = x[:, :s]\n"
                     "        return x[:, :int(self.strides[0])]\n",
                     # a tensor built from shapes holds metadata (read without a sync), not a tensor's values
                     "import torch\ndef levels(feats):\n    hw = torch.as_tensor([(f.size(2), f.size(3)) for f in feats])\n"
                     "    return torch.zeros(int(hw[0, 0]), int(hw[0, 1])), feats[0][:, :hw[1].prod()]\n",
                     # positions fixed by configuration: torch.arange(depth), iterated or in arithmetic
                     "import torch\ndef stages(x, depth=4):\n    for i in torch.arange(depth):\n        x = x[:, :i + 1]\n"
                     "    sizes = torch.arange(1, depth + 1) * 2\n    return x, torch.zeros(sizes.tolist())\n",
                     # no evidence the list is a tensor: a distributed scatter takes a list of tensors
                     "import torch\nimport torch.distributed as dist\ndef share(t, chunks):\n    n = int(chunks[-1])\n"
                     "    dist.scatter(t, chunks)\n    return torch.zeros(n)\n")

    must_not_fire += (  # a sparse tensor sized by configuration
                      "import torch\ndef pad(values: torch.Tensor, idx, rows: int, width: int):\n"
                      "    return torch.sparse_coo_tensor(idx, values, (rows, width)).to_dense()\n",)
    must_fire += (  # session 20 (dataops20): k of a top-k taken from the count of a data-dependent result is a site of
                    # its own (the reviewer's "topk with k computed from data"), beside the op that made the count
                  "import torch\ndef select(scores, thr, k):\n    keep = scores > thr\n    s = scores[keep]\n"
                  "    idx = torch.where(keep)[0]\n    n = min(k, idx.size(0))\n    return s.topk(n)\n",)

    must_fire += (  # session 20 (values20b): a sample cut to its own length, picked by the index that picks the
                    # sample (a loop's, a parameter, the index of ``enumerate``); a loop over a batch vector's segments
                    # counted by its last or largest id; ``sum()`` of comparisons of a tensor's elements
                  "import torch\ndef save(model, loader):\n    for data in loader:\n        lens = data['mel_lengths'].cuda()\n"
                  "        out = model(data['x'])\n        for idx, a in enumerate(out):\n"
                  "            keep(a[:lens[idx]].cpu())\n",
                  "import torch\nclass Search:\n    def finish(self, i, attention):\n"
                  "        return attention[i, :, :self.src_len[i]]\n\n    def keep(self, select):\n"
                  "        self.src_len = self.src_len[select]\n",
                  "import torch\ndef per_graph(x, batch):\n    n = batch[-1] + 1\n    out = []\n    for b in range(n):\n"
                  "        out.append(x[batch == b].sum(0))\n    return out\n",
                  "import torch\ndef step(h, x, lengths: torch.Tensor):\n    for t in range(x.size(1)):\n"
                  "        bs = sum([n > t for n in lengths])\n        h[:bs] = h[:bs] + x[:bs, t]\n    return h\n",)
    must_not_fire += (  # session 20 (values20b): a host list of lengths, a numpy array, a tensor of constants; a
                        # loop to the last id that selects no segment; ``sum()`` over a list of Python numbers
                      "import torch\ndef cut(model, sents):\n    lengths = [len(s) for s in sents]\n"
                      "    out = model(sents)\n    return [x[:lengths[i]] for i, x in enumerate(out)]\n",
                      "import torch\ndef cut(out):\n    sizes = torch.tensor([3, 4, 5])\n"
                      "    return [out[i, :sizes[i]] for i in range(3)]\n",
                      "import torch\ndef walk(x, batch):\n    for b in range(batch[-1] + 1):\n        print(x[b])\n",
                      "import numpy as np\nimport torch\ndef walk(x, ids):\n    ids = np.asarray(ids)\n"
                      "    for b in range(ids[-1] + 1):\n        print(x[ids == b])\n",
                      "import torch\ndef step(h, x, lengths: list):\n    for t in range(x.size(1)):\n"
                      "        bs = sum([n > t for n in lengths])\n        h[:bs] = h[:bs] + x[:bs, t]\n    return h\n",)

    must_fire += (  # session 21 (values21): ``.cpu()`` of a value the model cannot type (a network's output) is a
                    # host copy of device values: its elements, or its ``.numpy()``, as sizes
        "import torch\ndef crops(net, img):\n    b = net(img).cpu().numpy()\n    out = []\n"
        "    for k in range(b.shape[0]):\n        out.append(img[:, b[k, 1]:b[k, 3]].mean())\n    return out\n",
        "import torch\ndef cut(net, x):\n    lengths = net(x).cpu()\n    for i, n in enumerate(lengths):\n"
        "        x[i, :n] = 0\n    return x\n")
    must_fire += (  # session 21: the effective batch of a step counted over lengths unpacked from a tuple the model
                    # returned (a collection the model cannot type)
        "import torch\ndef viterbi(features_tuple, scores):\n    features, lengths, trans = features_tuple\n"
        "    for t in range(features.size(1)):\n        bt = sum([n > t for n in lengths])\n"
        "        scores[:bt] = scores[:bt] + features[:bt, t]\n    return scores\n",
        "import torch\ndef viterbi(features_tuple, scores):\n    features, lengths, trans = features_tuple\n"
        "    for t in range(max(lengths)):\n        scores[:, t] = features[:, t]\n    return scores\n")
    must_not_fire += (  # ... not over a literal list, a declared list of ints, nor a setting's attribute
        "import torch\ndef f(x, t):\n    b = sum([n > t for n in [3, 2, 1]])\n    return x[:b]\n",
        "import torch\nfrom typing import List\ndef f(x, t, lengths: List[int]):\n    b = sum([n > t for n in lengths])\n"
        "    return x[:b]\n",
        "import torch\ndef f(x, t, cfg):\n    b = sum([n > t for n in cfg.sizes])\n    return x[:b]\n",
        "import torch\ndef g(x, sizes: list):\n    return x[:max(sizes)]\n",
        "import torch\ndef g(x, cfg):\n    sizes = [cfg.a, cfg.b]\n    return x[:max(sizes)]\n")
    must_fire += (  # session 21 (values21b): an integral read leaving its function, the size out of sight (escaped_reads.py)
        "import torch\ndef unpad(mask):\n    lens = mask.sum(-1)\n    max_len = lens.max().item()\n    return lens, max_len\n",
        "import torch\nclass Attn(torch.nn.Module):\n    def forward(self, q, k, offset):\n"
        "        max_seqlen = q.shape[1] + offset.max().item()\n        return self.rotary(q, k, max_seqlen=max_seqlen)\n",
        "import torch\ndef rope(rotary, q, k, lens):\n    offset = lens - q.shape[1]\n"
        "    return rotary(q, k, max_seqlen=q.shape[1] + max(offset))\n",
        "import torch\ndef meta(seq_lengths):\n    n = int(seq_lengths.max().item())\n    return Meta(max_q=n, max_k=n)\n",
        "import torch\ndef spans(starts, counts):\n    out = []\n    for i in range(len(counts)):\n"
        "        out.append((int(starts[i].item()), int(counts[i].item())))\n    return out\n",
        "import torch\ndef splits(tokens_per_expert, ep):\n    s = tokens_per_expert.view(ep, -1).sum(dim=1)\n"
        "    return s.tolist()\n",
        "import torch\nclass G(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, sizes):\n"
        "        ctx.sizes = sizes.sum(-1).tolist()\n        return x\n")
    must_not_fire += (  # ... not a ratio, a logged or tested value, a flag, a constant, nor test code
        "import torch\ndef acc(pred, y):\n    return pred.eq(y).sum().item() / len(y)\n",
        "import torch\ndef step(logger, mask):\n    n = mask.sum().item()\n    logger.info(n)\n    if n > 3:\n        return 1\n",
        "import torch\ndef f(x):\n    return x.mean().item()\n",
        "import torch\ndef duration(tracks):\n    ds = (t.offset + t.duration for t in tracks)\n    return round(max(ds), 8)\n",
        "import torch\ndef stats(pred, target, non_padding):\n    n = non_padding.sum().item()\n"
        "    return Statistics(n_words=n, n_correct=pred.eq(target).sum().item())\n",
        "import torch\ndef evaluate(model, batch):\n    loss_and_count = model.forward_loss(batch)\n"
        "    return loss_and_count[0].item(), loss_and_count[1]\n",
        "import torch\ndef next_token(model, ids):\n    return model(ids).logits[0, -1].argmax().item()\n",
        "import torch\ndef f(x):\n    return preds_of(x).tolist()\n",
        "import torch\ndef windows(sig_len, n, hop):\n    b = (sig_len - n * hop) > 0\n    return n + int(b)\n",
        "import torch\ndef f(x):\n    return torch.tensor([4, 8]).max().item()\n",
        "import torch\ndef test_counts(counts):\n    return use(n=counts.max().item())\n")
    must_fire += (  # session 21 round 3 (llmsizes21c): an extreme or a list of counts handed on positionally, to a
        # callee defined elsewhere or through the file's own helper to one (escaped_reads._positional_escape)
        "import torch\nfrom .comm import all_to_all\ndef exchange(x, tpe, ep, group):\n"
        "    send = tpe.view(ep, -1).cpu().sum(dim=-1)\n    send = send.tolist()\n"
        "    return all_to_all(x, send, send, group)\n",
        "import torch\nfrom . import ops\nclass MoE(torch.nn.Module):\n    def forward(self, x, tpe, idx, bins):\n"
        "        cap = torch.max(tpe).item()\n        return self.compute(x, idx, bins, cap)\n"
        "    def compute(self, x, idx, bins, cap):\n        return ops.binned_gather(x, idx, bins, cap)\n",
        "import torch\ndef to_bshd(ids: torch.Tensor, pad):\n    lens = ids.offsets().diff()\n"
        "    n = int(lens.max().item())\n    n += (8 - n % 8) % 8\n"
        "    return ids.to_padded_tensor(pad, output_size=(ids.shape[0], n))\n")
    must_not_fire += (  # ... not a sum or an element handed on, a helper that only logs it, an exception's text
        "import torch\nfrom .metrics import record\ndef step(mask):\n    n = mask.sum().item()\n    return record('tokens', n)\n",
        "import torch\nclass T:\n    def step(self, lens):\n        m = lens.max().item()\n        self.show(m)\n"
        "    def show(self, m):\n        print(m)\n",
        "import torch\ndef check(lens):\n    m = lens.max().item()\n    raise ValueError('too long', m)\n",
        "import torch\ndef calibrate(module, amax):\n    module.input_amax.fill_(amax.max().item())\n",
        "import torch\nfrom .td import NonTensorData\ndef meta(ids):\n    n = ids.offsets().diff().tolist()\n"
        "    return NonTensorData(n)\n",
        "import torch\nSTATS = {'pieces': []}\ndef verify(a, b):\n    STATS['pieces'].append(int((a != b).sum()))\n",
        "import torch, bisect\ndef bucket(bounds, mask):\n    return bisect.bisect_right(bounds, mask.sum(-1).max().item())\n",
        "import torch\ndef crop(im, corners, m):\n    return [im[slice(int(j), int(j) + m)] for j in corners]\n")
    must_not_fire += (  # ... not a tensor of constants, nor a module moved to the host
        "import torch\ndef f(x):\n    b = torch.tensor([2, 4]).cpu().numpy()\n    return x[:, :b[0]]\n",
        "import torch\ndef f(net, x, n: int):\n    m = net.cpu()\n    return m(x)[:n]\n")
    must_fire += (  # session 21 (params21): a base class's method called through ``self`` takes the count of a
                    # data-dependent result its caller passes (monai's hard negative sampler)
        "import torch\nclass Base:\n    def pick(self, neg, num):\n        k = min(neg.numel(), num)\n"
        "        return torch.randperm(neg.numel())[:k]\n"
        "class Sampler(Base):\n    def run(self, labels):\n        neg = torch.where(labels == 0)[0]\n"
        "        return self.pick(neg, 4)\n",)
    must_not_fire += (  # ... nor the element count of a parameter declared a shape, now that ``Cls.get_numel(s)``
                        # reaches the static method
        "import torch\nclass D:\n    def __init__(self, h):\n        self.h = h\n"
        "    def rsample(self, sample_shape: torch.Size = torch.Size()):\n        n = D.get_numel(sample_shape)\n"
        "        return self.h.repeat_interleave(repeats=n, dim=0)\n"
        "    @staticmethod\n    def get_numel(tensor_shape: torch.Size) -> int:\n"
        "        return torch.prod(torch.tensor(tensor_shape)).item()\n",)
    must_not_fire += (  # session 23 (values23): the maximum of a parameter declared ``int`` or a sequence of ints,
                        # made a tuple where an ``isinstance`` test says it is an int (mmpretrain's retrieval metric)
        "import torch\nfrom typing import Sequence, Union\n"
        "def calculate(pred: torch.Tensor, topk: Union[int, Sequence[int]]):\n"
        "    topk = (topk, ) if isinstance(topk, int) else topk\n    max_keep = max(topk)\n"
        "    return pred.topk(max_keep)[1][:, :max_keep]\n",)
    must_fire += (  # session 23 (values23, batch_methods.py): a dataset class's own collate method builds the batch
                    # (pytorch-forecasting's ``_collate_fn``, ptls' ``RtdDataset.collate_fn``), not a sample
        "import torch\nfrom torch.utils.data import Dataset\nclass Rtd(Dataset):\n    def __len__(self):\n"
        "        return 4\n    def __getitem__(self, i):\n        return torch.zeros(i)\n"
        "    def collate_fn(self, batch):\n        mask = torch.stack(batch) > 0\n"
        "        return torch.multinomial(mask.flatten().float(), num_samples=mask.sum().item())\n",
        "import torch\nfrom torch.utils.data import Dataset, DataLoader\nclass TS(Dataset):\n"
        "    def __getitem__(self, i):\n        return {'n': i}\n    @staticmethod\n    def _collate_fn(batches):\n"
        "        lengths = torch.tensor([b['n'] for b in batches])\n        return torch.arange(lengths.max())\n"
        "    def loader(self):\n        return DataLoader(self, collate_fn=self._collate_fn)\n",)
    must_not_fire += (  # ... not a method the per-sample entries call (the sample's own work)
        "import torch\nfrom torch.utils.data import Dataset\nclass Crops(Dataset):\n    def __len__(self):\n"
        "        return 4\n    def __getitem__(self, i):\n        return self.crop([torch.rand(8)])\n"
        "    def crop(self, items):\n        x = torch.stack(items)\n        return x[:, :int(x.sum().item())]\n",)
    must_fire += (  # session 25 (values25): a helper of the file that every call hands a read (colbert's per-passage
                    # pooling over ``doclens = mask.sum(-1).tolist()``): its own slice is a size of the data too
        "import torch\ndef pool(p, token_lengths):\n    out, start = [], 0\n    for n in token_lengths:\n"
        "        out.append(p[start:start + n].mean(0))\n        start += n\n    return out\n"
        "def run(p: torch.Tensor, mask: torch.Tensor):\n    doclens = mask.sum(-1).tolist()\n"
        "    return torch.stack(pool(p, doclens))\n",)

    must_not_fire += (  # session 24 (precision24): a comparison of a counter is a Python bool
        'import torch\ndef generate_coarse(model, x_in, n_steps):\n    n_step = 0\n    for _ in range(n_steps):\n        is_major_step = n_step % model.config.N_COARSE == 0\n        logits = model.coarse_model(x_in)\n        start = model.config.VOCAB + (1 - int(is_major_step)) * model.config.CODEBOOK\n        end = model.config.VOCAB + (2 - int(is_major_step)) * model.config.CODEBOOK\n        relevant = logits[0, 0, start:end]\n        x_in = torch.cat([x_in, relevant.argmax()[None, None]], dim=1)\n        n_step += 1\n    return x_in\n',
    )
    must_fire += (  # the same comparison of a tensor's value still reads it back; a counter against a tensor is a mask
        'import torch\ndef track(feat, batch_idx, num_batches, k):\n    out = []\n    for b in range(num_batches):\n        f = feat[batch_idx == b]\n        rand = torch.randperm(len(f))[:k]\n        out.append(f[rand])\n    return out\n',
        'import torch\ndef generate_coarse(model, x_in, n_steps):\n    n_step = 0\n    for _ in range(n_steps):\n        is_major_step = x_in.sum() % 2 == 0\n        logits = model.coarse_model(x_in)\n        start = model.config.VOCAB + (1 - int(is_major_step)) * model.config.CODEBOOK\n        end = model.config.VOCAB + (2 - int(is_major_step)) * model.config.CODEBOOK\n        relevant = logits[0, 0, start:end]\n        x_in = torch.cat([x_in, relevant.argmax()[None, None]], dim=1)\n        n_step += 1\n    return x_in\n',
    )
    must_fire += (  # session 24 (values24): an element picked by constants sizing a canvas, named (and reported on its
                    # own line); the sequence lengths of xformers' block-diagonal attention biases read from a tensor
        "import torch\ndef scatter(pts_coors: torch.Tensor, x: torch.Tensor, n: int):\n"
        "    batch_size = pts_coors[-1, 0] + 1\n    canvas_len = n * batch_size\n    return x.new_zeros(canvas_len)\n",
        "import torch\nfrom xformers.ops.fmha.attn_bias import BlockDiagonalMask\n"
        "def bias(seqlens, cached: torch.Tensor, size: int):\n"
        "    return BlockDiagonalMask.from_seqlens(q_seqlen=seqlens,\n"
        "        kv_seqlen=[s + c.clamp(max=size).item() for s, c in zip(seqlens, cached)])\n",)
    must_not_fire += (  # ... not lengths the inputs' shapes give, nor the host's own lengths
        "from xformers.ops import fmha\ndef bias(xs):\n    seqlens = [x.shape[0] for x in xs]\n"
        "    return fmha.BlockDiagonalMask.from_seqlens(seqlens)\n",
        "import torch\nfrom xformers.ops.fmha.attn_bias import BlockDiagonalCausalWithOffsetPaddedKeysMask as M\n"
        "def bias(seqlens, size: int):\n"
        "    return M.from_seqlens(q_seqlen=seqlens, kv_padding=size, kv_seqlen=[min(s, size) for s in seqlens])\n",)

    must_not_fire += (  # session 25 (lead25): a configuration tensor clamped once, outside any loop, with a setting
        "import torch\nfrom torch import nn\nclass D(nn.Module):\n"
        "    def __init__(self, n=4, cap=16, dim_max=512):\n        super().__init__()\n"
        "        dims = (2 ** (torch.arange(n) + 1)) * cap\n        dims.clamp_(max=dim_max)\n"
        "        self.dims = dims.tolist()\n    def forward(self, x):\n        return x.split(self.dims, dim=1)\n",)
    must_fire += (  # ... while a write in a loop advances it (a position per generated token)
        "import torch\ndef gen(model, x, n: int):\n    pos = torch.tensor([0])\n    for _ in range(n):\n"
        "        pos.add_(1)\n        x = model(x[:, :pos.item()])\n    return x\n",)

    must_not_fire += (  # session 26 (dataops26): positions kept by values read back through a name: a host nonzero,
                        # NPU401's one finding
                      "import torch\ndef shrink(fin: torch.Tensor, seqs: torch.Tensor):\n    rows = fin.tolist()\n"
                      "    left = [i for i, f in enumerate(rows) if not f[0]]\n"
                      "    return seqs.index_select(0, torch.tensor(left))\n",)

    _GATHER = ("import torch\nimport torch.distributed as dist\nfrom torch.autograd import Function\n"
               "class AllGather(Function):\n    @staticmethod\n    def forward(ctx, x, sizes):\n"
               "        ctx.sizes = {}\n        ctx.dim = 0\n        return x\n"
               "    @staticmethod\n    def backward(ctx, grads, _):\n"
               "        return grads.split(ctx.sizes, dim=ctx.dim)[dist.get_rank()], None\n")
    must_fire += (  # session 33 (rec33d): an autograd Function's ``ctx`` attribute set in ``forward`` from values
                    # read back (every rank's batch size gathered) sizes the split of the gradients in ``backward``
        _GATHER.format("sizes.tolist()"),)
    must_not_fire += (  # ... not a setting kept there, nor a static ``forward`` of a class that is no autograd Function
        _GATHER.format("[int(s) for s in (1, 2)]"),
        _GATHER.replace("class AllGather(Function)", "class AllGather").format("sizes.tolist()"),)
    must_fire += (  # ... and a comprehension counted by a read whose element runs tensor work, as a loop would be
                    # (kornia's stitching: one mask per sample of the batch the largest index says)
        "import torch\ndef split(kp: torch.Tensor, idx: torch.Tensor):\n    n = int(idx.max().item()) + 1\n"
        "    return [kp[idx == i].mean(0) for i in range(n)]\n",)
    _VIEWS = ("import torch\nimport torch.distributed as dist\ndef gather(t, world):\n"
              "    mine = torch.tensor(t.numel(), device=t.device)\n    sizes = mine.view(1).repeat(world)\n{}"
              "    n = sizes.cpu().max().item()\n    return torch.empty((world, n), device=t.device)\n")
    must_fire += (  # ... and a tensor a collective writes into through its views (every rank's size gathered into
                    # ``list(sizes.unbind(0))``: habitat's gather of variable-size tensors)
        _VIEWS.format("    dist.all_gather(list(sizes.unbind(0)), mine)\n"),)
    must_not_fire += (_VIEWS.format(""),)   # ... not the local size repeated: configuration of the code
    must_fire += (  # ... and the count of a data-dependent result deciding how many draws multinomial makes (a
                    # federated loss sampling the classes that did not appear), as topk's k does
        "import torch\ndef fed_inds(gt, prob, k: int):\n    seen = torch.unique(gt)\n"
        "    more = torch.multinomial(prob, k - len(seen), replacement=False)\n    return torch.cat([seen, more])\n",)
    must_not_fire += ("import torch\ndef draws(gt, prob, k: int):\n    seen = torch.unique(gt)\n"
                      "    return seen, torch.multinomial(prob, k, replacement=False)\n",)
    must_not_fire += (  # ... not one counted by a setting
        "import torch\ndef split(kp: torch.Tensor, idx: torch.Tensor, n: int):\n"
        "    return [kp[idx == i].mean(0) for i in range(n)]\n",)

    def check(self, node: object, ctx: FileContext) -> None:
        if isinstance(node, ast.For):
            function = ctx.enclosing(node, FUNCTION_TYPES)
            if ctx.uses_torch and not runs_at_setup(function, ctx.resolver) \
                    and not per_sample_work(function, ctx):
                report_loop(self, node, ctx)
                report_sliced_loop(self, node, ctx)   # ``for h in reversed(history[:seq_ends[i]]):``
            return
        if isinstance(node, ast.While):
            if ctx.uses_torch:
                report_shrinking(node, ctx)
            return
        super().check(node, ctx)

    def check_call(self, node: ast.Call, ctx: FileContext) -> None:
        function = ctx.enclosing(node, FUNCTION_TYPES)
        if runs_at_setup(function, ctx.resolver) or per_sample_work(function, ctx) or in_collator(node, ctx):
            return   # a model's constructor or a private helper only it calls: one read, one shape per model;
            # a dataset's per-sample work or a collator's batch building, on the host
        report_escaped(self, node, ctx)   # an integral read leaving its function: the op is the trigger
        if report_kept(node, ctx):   # ``select = torch.tensor(non_finished)``: the batch shrinks by a count of the data
            return
        parent = ctx.parent(node)
        found = shape_sink(node, ctx, ctx.resolver.current, (isinstance(parent, ast.For) or (
            isinstance(parent, ast.comprehension) and tensor_work(ctx.parent(parent), ctx.resolver)))
            and parent.iter is node)   # ``[idx == i for i in range(n)]``: a loop of tensor work too
        if found is None:   # ``make(n)`` where the file's ``make`` sizes a tensor with ``n``
            callee = own_call(node, ctx)   # once, for both questions (and other rules)
            at_helper = size_helper_call(node, ctx, self.kinds, callee)
            if at_helper is not None:
                sink, origin = at_helper
                report_read(self, node, sink, origin, ctx)
                text = self.message.format(sink=sink, origin=origin_text(origin), line=origin[1].lineno)
                if callee is not None:   # the file's own helper: the call brings the read in (passed_sizes.py)
                    ctx.report(node, text, sink.rpartition(" → ")[2])
                else:
                    ctx.report_repeat(node, text, sink.rpartition(" → ")[2], None, _SIZE_CODES,
                                      f"line {origin[1].lineno})")
                return
            left_out = omitted_size(node, ctx, callee)   # ``scatter(x, batch)``: the helper reads ``dim_size`` from the data
            if left_out is not None:
                helper, name, chain = left_out
                ctx.report(node, f"{helper}() without {name}= reads it from a tensor ({name} → {chain}): a sync and a "
                           f"new shape per value on NPU; pass {name}= (a fixed upper bound, the batch's count)",
                           chain.rpartition(" → ")[2])
            return
        args, sink = found
        origin = self._flow(args, node, ctx, (PICKED,) if sink == _LOOP_COUNT else ())   # ``range(coors[-1, 0] + 1)``
        if origin is not None:
            if not passed_in(node, args, origin, ctx):   # a helper given the size: its call is reported
                report_flow(self, node, sink, origin, ctx, args)
            return
        if sink == _LOOP_COUNT:
            read = segment_count(node, ctx, ctx.resolver.current)
            if read is not None:   # ``for b in range(batch[-1] + 1): m = batch == b``: the batch's sample count
                report_flow(self, node, sink, (ELEMENT if isinstance(read, ast.Subscript) else ZERO_D, read), ctx)
            return
        if isinstance(node.func, ast.Attribute) and ctx.resolver.qualname(node.func) is None \
                and ctx.resolver.kind_of(node.func.value) not in TENSOR_KINDS:
            return   # ``self.tiler.tile(images)``: a method of an object the model does not know is a tensor's
        scope = ctx.resolver.current
        for arg in args:   # a tensor of data passed where an int goes (``dim_size=num_graphs``): a one-element read
            if data_scalar(ctx.resolver, arg, scope) is not None:   # named by the element it was picked from
                report_flow(self, node, sink, ctx.resolver.flow_of(arg, (PICKED,), scope) or (ZERO_D, arg), ctx)
                return

    def check_subscript(self, node: ast.Subscript, ctx: FileContext) -> None:
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if not any(isinstance(s, ast.Slice) and (s.lower or s.upper or s.step) for s in elements):
            return   # no slice bound (``x[i]``, ``x[:, 0]``, ``x[:]``): nothing to ask the model
        function = ctx.enclosing(node, FUNCTION_TYPES)
        if runs_at_setup(function, ctx.resolver) or per_sample_work(function, ctx) or in_collator(node, ctx):
            return
        bounds = [b for s in elements if isinstance(s, ast.Slice) and not self._window(s, ctx)
                  for b in (s.lower, s.upper, s.step) if b is not None]
        if not bounds or ctx.resolver.is_host(node.value):   # numpy slicing: no NPU shape
            return
        origin = self._flow(bounds, node, ctx)
        if origin is not None:
            if not passed_in(node, bounds, origin, ctx):
                report_flow(self, node, "a slice bound", origin, ctx, bounds)
            return
        scope = ctx.resolver.current
        for bound in bounds:   # a tensor of data used as the bound itself, or the count an op wrote into a buffer
            op = filled_count(ctx.resolver, node.value, bound, scope)
            if op is not None:
                ctx.report(node, self.filled_message.format(op=short_source(op), line=op.lineno,
                                                            buffer=short_source(node.value)), "a slice bound")
                return
            if data_scalar(ctx.resolver, bound, scope) is not None \
                    or paired_pick(ctx.resolver, bound, function, scope) is not None:
                report_flow(self, node, "a slice bound", ctx.resolver.flow_of(bound, (PICKED,), scope)
                            or (ZERO_D, bound), ctx)
                return
        pick = sample_cut(node, bounds, ctx, scope)
        if pick is not None:   # ``attn[b, :, :src_len[b]]``: the sample cut to its own length
            report_flow(self, node, "a slice bound", (ELEMENT, pick), ctx)
            return
        count = sample_count(node, bounds, ctx, scope)
        if count is not None:   # ``logits[b, :num_objects[b] + 1]`` of a ``list[int]``: each sample's own count
            ctx.report(node, self.sample_message.format(count=short_source(count)), "a slice bound")
