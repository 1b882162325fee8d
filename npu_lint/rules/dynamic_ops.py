"""NPU401-NPU402: operations whose output shape depends on the values in a tensor.

The operators come from ``rule_tables/dynamic_shape.tsv`` (torch's ``dynamic_output_shape`` tag, the
fake-tensor implementations and the op-plugin kernels that size their output with a device sync);
boolean-mask indexing is matched structurally.
"""
from __future__ import annotations

import ast
from typing import Optional

from npu_lint.analysis.host_indices import HOST_NONZERO_FIRE, HOST_NONZERO_SILENT, host_selection
from npu_lint.analysis.names import rooted
from npu_lint.analysis.nodes import walk
from npu_lint.analysis.setup_time import converts_inputs, runs_at_setup, runs_per_sample
from npu_lint.analysis.kinds import BATCH, MASK, TENSOR, TENSORS, TENSOR_ONLY_MASK_METHODS
from npu_lint.context import FileContext
from npu_lint.project.facts import ONE_ARGUMENT
from npu_lint.host_arrays import host_array_evidence, is_host_array
from npu_lint.rules import FUNCTION_TYPES, ApiRef, Rule, short_source
from npu_lint.rules.dynamic_aliases import chosen_dynamic
from npu_lint.rules.dynamic_wrappers import (JIT_TIP, MASK_SELECTION, always_dynamic, condition_holds,
                                             configured_input, dynamic_row,
                                             fixed_output, flags_left_off, helper_of_file,
                                             is_mask_selection, wrapper_chain, wrapper_site)
from npu_lint.rules.mask_reads import (assigned, index_text, is_bool_index, mask_helper, mask_helper_site,
                                       reads_through_mask, rows_written, tensor_evidence, type_name, updated_in_place)
from npu_lint.rules.branch_arms import for_message
from npu_lint.rules.broad_masks import (MASK_WORD, POSITIONS, MASK_INDEX_FIRE, MASK_INDEX_SILENT, VALUES, constructed_index,
                                       not_a_tensor, positions_taken)
from npu_lint.rules.host_work import host_helper_work, host_work
from npu_lint.rules.library_instances import library_module_call
from npu_lint.rules.mask_values import mask_position
from npu_lint.rules.nms_calls import nms_call

_INDEX_WORDS = {POSITIONS: "positions built from values", VALUES: "the distinct values of a tensor (unique)",
                MASK_WORD: "a mask built from values"}

FAMILY = "dynamic-shape"
# Calls that build a tensor from a Python list (of positions, for NPU401's host-side nonzero).
_BUILDERS = frozenset({"torch.tensor", "torch.as_tensor", "torch.LongTensor", "torch.IntTensor", "torch.asarray"})


# Per-sample work NPU401 and NPU402 report since session 26 (dataops26; before, left alone as host work): a collate
# function's batch building and a dataset's ``__getitem__``: reviewers mark the data-dependent op there.
_SAMPLE_WORK = (
    "import torch\nfrom torch.utils.data import DataLoader\ndef collate(batch):\n"
    "    w = torch.tensor([b[1] for b in batch])\n    n = torch.tensor([len(b[0]) for b in batch])\n"
    "    keep = torch.cat([b[0] for b in batch])\n"
    "    return keep[keep > 0], torch.repeat_interleave(w, n), torch.nonzero(keep)\n"
    "loader = DataLoader(ds, batch_size=8, collate_fn=collate)\n",
    "import torch\nfrom torch.utils.data import Dataset\nclass Masked(Dataset):\n"
    "    def __getitem__(self, i):\n        x = torch.randn(10)\n        keep = torch.nonzero(x > 0)\n"
    "        return x[x > 0], keep\n",
)
# Host work NPU401 and NPU402 still leave alone: a dataset's other methods (a split of the data set run once, a
# helper of ``__getitem__``), a collator class's methods.
_HOST_WORK = (
    "import torch\nfrom torch.utils.data import Dataset\nclass KG(Dataset):\n    def __getitem__(self, i):\n"
    "        return self.h[i]\n    def split(self, share):\n        keep = torch.nonzero(self.mask > share)\n"
    "        return self.h[self.mask > share], keep\n",
    "import torch\nfrom torch.utils.data import Dataset\nclass Masked(Dataset):\n    def __getitem__(self, i):\n"
    "        return self._hide(self.x[i])\n    def _hide(self, x):\n        return x[x > 0], torch.nonzero(x > 0)\n",
)


# Device work in a collate function or a dataset that NPU401 and NPU402 still report: the batch built on the device,
# items made on the device.
_DEVICE_WORK = (
    "import torch\nfrom torch.utils.data import DataLoader\ndef collate(batch):\n"
    "    keep = torch.cat([b[0] for b in batch]).to('cuda')\n"
    "    return keep[keep > 0], torch.nonzero(keep)\n"
    "loader = DataLoader(ds, batch_size=8, collate_fn=collate)\n",
    "import torch\nfrom torch.utils.data import Dataset\nclass OnDevice(Dataset):\n"
    "    def __getitem__(self, i):\n        x = torch.randn(10, device=self.device)\n"
    "        return x[x > 0], torch.nonzero(x > 0)\n",
)



def fill_receiver(node: ast.Subscript, written: ast.AST, ctx: FileContext, mask: Optional[ast.AST] = None) -> bool:
    """The value a fill through a mask writes (``x[mask] = 0``) is a device tensor as far as the model can tell: a
    tensor it knows, or a value of no kind it can tell (a parameter, what a helper returns) that is no evident host
    array, in a function that runs torch's operators (``certainty = certainty.clone()`` then ``certainty[certainty >
    t] = 1`` beside ``torch.multinomial``; ``p = 1 / (density + 1)`` then ``p[density < 10] = 1e-7``)."""
    resolver, receiver = ctx.resolver, node.value
    if resolver.kind_of(receiver) in (TENSOR, BATCH, MASK):
        return True
    if resolver.value_of(receiver) is not None or resolver.value_of(written) is not None \
            or is_host_array(receiver, ctx, receiver):
        return False
    return _runs_torch(ctx.enclosing(node, FUNCTION_TYPES), ctx) or (mask is not None and _torch_mask(mask, ctx))


def _torch_mask(mask: ast.AST, ctx: FileContext) -> bool:
    """``m.bool()``, ``torch.isnan(x)``, ``m.to(torch.bool)``: a mask only torch makes (numpy's arrays have no such
    method), so what it indexes is a tensor too."""
    while isinstance(mask, ast.UnaryOp):
        mask = mask.operand
    if not isinstance(mask, ast.Call):
        return False
    name = ctx.resolver.qualname(mask.func)
    if name is not None:
        return rooted(name, ("torch",))
    return isinstance(mask.func, ast.Attribute) and mask.func.attr in TENSOR_ONLY_MASK_METHODS | {"to", "type"}


def _runs_torch(function: Optional[ast.AST], ctx: FileContext) -> bool:
    """``function`` calls one of torch's functions itself (``torch.multinomial(p, n)``, ``F.softmax(x)``)."""
    if function is None:
        return False
    verdicts = ctx.scratch.setdefault("runs_torch", {})
    key = id(function)
    if key not in verdicts:
        verdicts[key] = any(type(node) is ast.Call and rooted(ctx.resolver.qualname(node.func) or "", ("torch",))
                            for node in walk(function))
    return verdicts[key]

class DataDependentShapeOp(Rule):
    """An operator whose output shape depends on the values in its input.

    What it does:
        Flags ``nonzero``, ``argwhere``, one-argument ``torch.where``, ``masked_select``, ``unique`` and
        ``unique_consecutive``, ``repeat_interleave`` with tensor repeats and no ``output_size``, ``bincount``,
        ``F.one_hot`` without ``num_classes`` (or with a name bound to ``-1`` on some path), ``linalg.lstsq`` (not its ``.solution`` alone), ``pack_padded_sequence`` and
        torchvision's ``nms`` / ``batched_nms``: the operators torch tags ``dynamic_output_shape`` or whose
        NPU kernels size their output after running (``rule_tables/dynamic_shape.tsv``, which also lists the
        same kinds of op in common libraries: mmcv's 2D and 3D NMS, torch_scatter's and PyG's ``scatter`` without
        ``dim_size``, torch_cluster's and PyG's ``radius`` / ``radius_graph``, ``consecutive_cluster``,
        ``pool_pos``, ``remove_self_loops``, ase's and matscipy's neighbour lists of atoms within a cutoff, torchaudio's
        ``vad``, torch_points_kernels' ``region_grow``, mmcv's ``dynamic_scatter``; and the calls of an instance of a
        library module whose forward does the same, known by its construction: ``self.scatter(f, c)`` after
        ``self.scatter = DynamicScatter(...)``, ``vad(x)`` after ``vad = torchaudio.transforms.Vad(...)``). Any other non-maximum suppression too, by the operation its name says
        it runs (``batched_soft_nms`` of the project, monai's ``batched_nms``, ``self.nms(...)``,
        ``non_max_suppression``): not torch_npu's padded NMS, a ``*_static`` / ``*_padded`` / ``*_mask`` variant,
        TensorRT's ``efficient_nms`` (padded to ``keep_top_k``), a name acting on an NMS (``attach_onnx_nms``,
        ``add_nms``), a call on numpy data, a helper of the file that runs no torch operator, or a function of another
        module of the project that imports no torch package (a numpy NMS). A call of a name chosen among several such ops (``nms_func =
        nms_bev`` in one arm, ``nms_normal_bev`` in the other; ``batched_nms if per_class else nms``) is one
        finding where it is called, when every candidate is one. Method calls are
        matched on any receiver except evident numpy arrays (a tensor moved to the CPU on one path only, ``if mps:
        prediction = prediction.cpu()``, stays a device tensor on the others, and a size read of it, ``nc =
        prediction.shape[1] - 4``, is a Python int that makes nothing a host array); ``.unique()`` only on
        evident tensors. Also a
        nonzero computed on the host: ``torch.tensor(keep)`` (``as_tensor``, ``LongTensor``, ``new_tensor``)
        of a list of loop positions chosen by tensor values (``[i for i, f in enumerate(flags.tolist()) if
        not f]``, ``keep.append(i)`` under ``if scores[i].item() > thr``; also a test that hands
        values read back or tensors to a function, ``if self.beams_non_finished(i, scores_list, preds)``, a
        membership of a value read back, ``if i not in slab``, and a list read back through a name or a field of
        the class every store of which is ``.tolist()``), and the calls of the file's
        helpers (not when the op runs only under ``if flag:`` of a parameter defaulting to ``False`` that the
        call leaves off) reached through ``functools.partial`` or an alias (``self.pick = self._positives``).
        Not CTC loss (the vendor lists it for its inputs' data-dependent lengths, but its output, a loss per batch
        or per sample, has a fixed shape: the varying target lengths are reported where they are made, the
        batch-max padding or the concatenation of the targets). Not when the op reads only tensors the code fixes (a list of constants put in a tensor, a tensor of
        shapes: the semantic model's ``configured``), whose output size is the same every batch.
        Nor in the other methods of a dataset class that names no device (the helpers ``__getitem__`` calls, static
        ones too, a split of the data set), nor at their calls in ``__getitem__``: per-sample work on the host, in
        the loader's workers. Also an op in ``__getitem__`` itself and in a collate function (passed as
        ``collate_fn=`` in the file or, by the project index, in another module; or a helper it hands the samples
        to: ``torch.repeat_interleave(weights, atoms_per_molecule)``) is reported: reviewers mark it, a new shape per
        sample or batch.
    Why it matters on NPU:
        The NPU kernel must synchronise with the host to learn how big its output is, and every new output
        size means new shapes downstream: on Ascend each new shape compiles the operators again, so a
        training step that should take milliseconds stalls on compilation.
    Example:
        pos_inds = torch.nonzero(labels > 0).squeeze(1)
        loss = F.l1_loss(pred[pos_inds], target[pos_inds])
    Use instead:
        pos = (labels > 0).float()
        loss = (F.l1_loss(pred, target, reduction="none").sum(-1) * pos).sum() / pos.sum().clamp(min=1)
    Fix safety:
        No automatic fix: the static form changes how the results are used downstream.
    """

    code = "NPU401"
    name = "data-dependent-shape-op"
    family = FAMILY
    node_types = (ApiRef, ast.Call)
    triggers = ("nonzero", "argwhere", "where", "masked_select", "unique", "repeat_interleave", "bincount",
                "one_hot", "ctc", "CTC", "lstsq", "pack_", "nms", "small_boxes", "tolist", ".item()", "scatter",
                "radius", "consecutive_cluster", "pool_pos", "self_loops", "suppression", "neighbo",
                "Scatter", "Vad", "vad", "region_grow")
    message = "{api} has a data-dependent output shape ({construct}): a device sync and a recompile per new size on NPU; {alternative}"
    must_fire = (
        # the distinct values of random draws from a model's fixed distribution (a registered buffer): the draws are
        # the run's (Transformers4Rec's negative sampler)
        "import torch\nclass Sampler(torch.nn.Module):\n    def __init__(self, p):\n        super().__init__()\n"
        "        self.register_buffer('dist', torch.tensor(p))\n    def sample(self, n):\n"
        "        return torch.multinomial(self.dist, n, replacement=True).unique()\n",
                 *_DEVICE_WORK, *_SAMPLE_WORK,
                 "import torch\npos = torch.nonzero(labels > 0)\n",
                 # a graph library's scatter without dim_size: its output has index.max() + 1 rows
                 "import torch\nfrom torch_scatter import scatter\nout = scatter(x, batch, dim=0, reduce='mean')\n",
                 "import torch\nfrom torch_geometric.utils import scatter\nout = scatter(x, batch, 0)\n",
                 "import torch\nidx = (scores > 0.5).nonzero(as_tuple=True)\n",
                 "import torch\nrows, cols = torch.where(mask)\n",
                 "import torch\nvals = x.masked_select(m)\n",
                 "import torch\nids = torch.unique(labels)\n",
                 "import torch\ndef f(t: torch.Tensor):\n    return t.unique(return_counts=True)\n",
                 "import torch\ncounts = torch.bincount(labels)\n",
                 "import torch\ndef f(t: torch.Tensor, w):\n    return t.bincount(w)\n",
                 # bins declared by a count the data decides (a unique's count): still the data's size
                 'import torch\ndef dice(assign, y_idx, y_pred_idx):\n    uniq, inv = torch.unique(assign.view(-1), return_inverse=True)\n    n = uniq.numel()\n    code = (y_idx.view(-1) << 1) | y_pred_idx.view(-1)\n    hist = torch.bincount((inv << 2) | code, minlength=n * 4).reshape(-1, 4)\n    return hist\n',
                 "import torch\nimport torch.nn.functional as F\noh = F.one_hot(labels)\n",
                 "import torch\nres = torch.linalg.lstsq(A, B).residuals\n",
                 "import torch\nlens = torch.tensor(lengths)\nidx = torch.repeat_interleave(ids, lens)\n",
                 "from torchvision.ops import batched_nms\nkeep = batched_nms(boxes, scores, idxs, 0.5)\n",
                 "from torchvision.ops import boxes as box_ops\nkeep = box_ops.remove_small_boxes(boxes, 1e-3)\n",
                 "from torch.nn.utils.rnn import pack_padded_sequence\np = pack_padded_sequence(x, lengths)\n",
                 # graph and point-cloud library ops: the edges within a radius, the clusters left after unique
                 "import torch\nfrom torch_geometric.nn import radius\nedges = radius(pos, pos, 0.1, batch, batch)\n",
                 "import torch\nfrom torch_cluster import radius_graph\nedges = radius_graph(pos, r=0.2, batch=batch)\n",
                 "import torch\nfrom torch_geometric.nn.pool.consecutive import consecutive_cluster\n"
                 "cluster, perm = consecutive_cluster(cluster)\n",
                 "import torch\nfrom torch_geometric.utils import remove_self_loops\nei, _ = remove_self_loops(ei)\n",
                 # a name chosen among data-dependent ops (in two arms, a conditional expression)
                 "import torch\nfrom torchvision.ops import nms, batched_nms\ndef post(b, s, i, cfg):\n"
                 "    nms_op = batched_nms if cfg.per_class else nms\n    return nms_op(b, s, cfg.thr)\n",
                 "import torch\nfrom torchvision.ops import nms\ndef nms_bev(b, s, t):\n    return nms(b, s, t)\n"
                 "def nms_normal(b, s, t):\n    return nms(b[:, :4], s, t)\ndef post(b, s, rotate):\n"
                 "    if rotate:\n        fn = nms_bev\n    else:\n        fn = nms_normal\n    return fn(b, s, 0.5)\n",
                 # images stacked by numpy, then made a device tensor: what the net computes from it is no host array
                 "import numpy as np\nimport torch\nfrom torchvision.ops import batched_nms\ndef detect(imgs, net, device):\n"
                 "    imgs = np.stack([np.uint8(im) for im in imgs])\n    imgs = torch.as_tensor(imgs.copy(), device=device)\n"
                 "    boxes, inds = net(imgs)\n    return batched_nms(boxes[:, :4], boxes[:, 4], inds, 0.5)\n")
    must_fire += ("import torch\ndef positives(labels):\n    inds = torch.nonzero(labels > 0)\n    return inds\n"
                  "pos = positives(gt)\n",
                  "import torch\ndef keep(s):\n    return torch.unique(s)\ndef keep2(s):\n    return keep(s) + 1\n"
                  "k = keep2(scores)\n")
    must_fire += ("import torch\nclass Head(torch.nn.Module):\n    def _pos(self, labels):\n"
                  "        return torch.nonzero(labels > 0)\n    def forward(self, labels):\n        return self._pos(labels)\n",
                  # ``unique`` on a value of unknown kind in a file without data frames: no numpy or Python method
                  "import torch\ndef sample(sampler, result):\n    inds = sampler.sample_pos(result)\n    return inds.unique()\n",
                  # a nonzero computed on the host: positions chosen by tensor values, then made an index tensor
                  "import torch\ndef drop(x, flags: torch.Tensor):\n    keep = [i for i, f in enumerate(flags.tolist()) if not f]\n"
                  "    return x.index_select(0, torch.tensor(keep))\n",
                  "import torch\ndef drop(x, scores: torch.Tensor, thr):\n    keep = []\n    for i in range(len(scores)):\n"
                  "        if scores[i].item() > thr:\n            keep.append(i)\n    return x[torch.as_tensor(keep)]\n")
    must_not_fire = (
                     # session 24 (precision24): bins the caller declares (minlength=, as one_hot's num_classes)
                     "import torch\ncounts = torch.bincount(labels, minlength=10)\n",
                     "import torch\ndef f(t: torch.Tensor, k):\n    return t.bincount(None, k)\n",
                     *_HOST_WORK,
                     "import torch\ndef loss(labels):\n    return torch.where(labels > 0, labels, 0).sum()\nl = loss(gt)\n",
                     # a choice between NMS and a dense top-k: not every candidate is data-dependent
                     "import torch\nfrom torchvision.ops import nms\ndef top(b, s, t):\n    return s.topk(100).indices\n"
                     "def post(b, s, cfg):\n    pick = nms if cfg.nms else top\n    return pick(b, s, 0.5)\n",
                     # a fixed k: top-k then a sort of its k indices
                     "import torch\ndef f(scores: torch.Tensor):\n    vals, idx = scores.topk(100)\n    return idx.sort().values\n",
                     # k nearest neighbours: k edges per query, a fixed count
                     "import torch\nfrom torch_geometric.nn import knn\nedges = knn(pos, pos, 16, batch, batch)\n",
                     # the output size given: dim_size, torch_scatter's ``out`` (4th), PyG's dim_size (4th)
                     "import torch\nfrom torch_scatter import scatter\nout = scatter(x, batch, dim=0, dim_size=n)\n",
                     "import torch\nfrom torch_scatter import scatter_add\nout = scatter_add(x, batch, 0, buf)\n",
                     "import torch\nfrom torch_geometric.utils import scatter\nout = scatter(x, batch, 0, num_graphs)\n",
                     # a helper whose repeats are a number, whose one_hot has its classes
                     "import torch\nimport torch.nn.functional as F\ndef rep(x, n):\n    return torch.repeat_interleave(x, n.shape[0], dim=0)\n"
                     "def oh(x, k):\n    return F.one_hot(x, k)\ny = rep(a, b)\nz = oh(a, 4)\n",
                     "import torch\ny = torch.where(mask, x, 0)\n",
                     # the solution of least squares has the inputs' shape (only residuals and rank vary)
                     "import torch\ncoef = torch.linalg.lstsq(A, B).solution[:, 0]\n",
                     "import torch\nimport torch.nn.functional as F\noh = F.one_hot(labels, num_classes=10)\n",
                     "import torch\nk = x.repeat_interleave(4, dim=1)\n",
                     "import torch\nk = k.repeat_interleave(self.n_rep, dim=1)\n",
                     "import torch\nidx = torch.repeat_interleave(ids, lens, output_size=64)\n",
                     "import numpy as np\nimport torch\nidx = np.array(v).nonzero()\n",
                     "import numpy as np\nimport torch\nidx = np.nonzero(v)\n",
                     "import torch\nimport pandas as pd\nnames = df['name'].unique()\n",
                     "import torch\nimport pandas as pd\ndef f(load):\n    frame = load()\n    return frame.unique()\n",
                     "idx = x.nonzero()\n", "import torch\nidx = (labels > 0).nonzero()[0]\n",
                     # positions chosen by Python values (names, a fixed rule), or a list of values, not positions
                     "import torch\ndef f(x, names):\n    keep = [i for i, n in enumerate(names) if n.startswith('a')]\n"
                     "    return x[torch.tensor(keep)]\n",
                     "import torch\ndef f(x, n):\n    keep = [i for i in range(n) if i % 2 == 0]\n    return x[torch.tensor(keep)]\n",
                     "import torch\ndef f(x, s: torch.Tensor):\n    out = []\n    for i in range(len(s)):\n"
                     "        if s[i].item() > 0:\n            out.append(s[i].item())\n    return torch.tensor(out)\n",
                     # host data (numpy) chose the positions
                     "import numpy as np\nimport torch\ndef f(x, a):\n    flags = np.asarray(a) > 0\n"
                     "    keep = [i for i, v in enumerate(flags.tolist()) if v]\n    return x[torch.tensor(keep)]\n",
                     # an error path: the first bad position, found once for the message before the raise
                     "import torch\ndef check(x, lo):\n    bad = x.lt(lo)\n    if bad.any():\n"
                     "        first = bad.nonzero(as_tuple=False).squeeze(1)[0].item()\n"
                     "        raise ValueError(f'out of range at {first}')\n    return x\n",
                     # repeats or values the code fixes (a list of constants, a tensor of shapes): a fixed size
                     "import torch\ndef edges(out, n, device):\n    counts = [1] * n\n    counts[0] = 2\n"
                     "    counts = torch.tensor(counts).to(device)\n    return torch.repeat_interleave(out, counts, dim=-1)\n",
                     "import torch\ndef levels(feats):\n    sizes = torch.tensor([f.shape[-2:] for f in feats])\n"
                     "    return sizes.unique(dim=0)\n")
    must_fire += (  # a flag left off skips only its own arm: the result before it still comes from ``unique``
                  "import torch\ndef table(preds, eps=None, sparse=False):\n"
                  "    _, idx = torch.unique(preds, return_inverse=True)\n    c = torch.zeros(3).index_add(0, idx, preds)\n"
                  "    if not sparse:\n        c = c.to_dense()\n        if eps:\n            c = c + eps\n    return c\n"
                  "def pairs(preds):\n    return table(preds)\n",
                  # the repeats of a name of unknown origin, a tensor's own values
                  "import torch\ndef expand(ids, lengths):\n    lens = torch.tensor(lengths)\n"
                  "    return torch.repeat_interleave(ids, lens)\n",
                  "import torch\ndef classes(labels: torch.Tensor):\n    return torch.tensor(labels.tolist()).unique()\n")

    must_fire += (  # session 20 (natural20b): a neighbour list of an atoms library, a count of pairs by position
                  "import torch\nfrom ase.neighborlist import neighbor_list\ndef pairs(at, cutoff):\n"
                  "    i, j, S = neighbor_list('ijS', at, cutoff)\n    return torch.from_numpy(i), torch.from_numpy(j)\n",
                  "import torch\nfrom matscipy.neighbours import neighbour_list\ndef pairs(at, cutoff):\n"
                  "    i, j = neighbour_list('ij', at, cutoff)\n    return torch.from_numpy(i)\n")
    must_fire += (  # session 20 (dataops20): an NMS the rule table does not list -- another module's or library's,
                    # the file's own loop of torch ops, a method of the model
                  "import torch\nfrom effdet.soft_nms import batched_soft_nms\ndef post(b, s, c):\n"
                  "    return batched_soft_nms(b, s, c, 0.5)\n",
                  "import torch\ndef torch_nms(boxes, scores, thr):\n    order = scores.argsort(descending=True)\n"
                  "    keep = []\n    while order.numel() > 0:\n        keep.append(order[0])\n        order = order[1:]\n"
                  "    return torch.stack(keep)\ndef post(b, s):\n    return torch_nms(b, s, 0.5)\n",
                  "import torch\nclass Post(torch.nn.Module):\n    def forward(self, boxes, scores):\n"
                  "        return self.non_max_suppression(boxes, scores)\n")
    must_not_fire += (  # a numpy NMS of the file, numpy boxes, torch_npu's padded NMS, a threshold named after NMS
                      "import numpy as np\nimport torch\ndef py_cpu_nms(dets, thresh):\n    order = np.argsort(dets[:, 4])\n"
                      "    keep = []\n    while order.size > 0:\n        keep.append(order[0])\n        order = order[1:]\n"
                      "    return keep\ndef post(dets):\n    return py_cpu_nms(dets, 0.5)\n",
                      "import numpy as np\nimport torch\nfrom mylib import nms\ndef post(b):\n    return nms(np.asarray(b), 0.5)\n",
                      "import torch\nfrom torch_npu import npu_nms_with_mask\ndef post(b):\n    return npu_nms_with_mask(b, 0.5)\n",
                      "import torch\nclass P:\n    def run(self, b):\n        return self.nms_thresh(b)\n",
                      # (session 25) a word that starts with the letters: a normalised mean squared error metric
                      "import torch\nclass M:\n    def end(self, m):\n        return self.NMSE(m['nmse'])\n",
                      # a keep mask over every box: a fixed shape
                      "import torch\nclass R:\n    def boxes(self, c, s):\n        return c[:, 0] * self._nms_mask(c, s)\n",
                      # an NMS attached to an exported graph, put in the model: no tensor selected here
                      "import torch\nfrom mylib.onnx import attach_onnx_nms\ndef export(path):\n"
                      "    attach_onnx_nms(onnx_model_path=path, output_onnx_model_path=path)\n",
                      "import torch\ndef build(model):\n    model.add_nms(conf=0.25)\n    return model\n",
                      # TensorRT's EfficientNMS plugin pads its output to keep_top_k
                      "import torch\nfrom mmyolo.deploy.models.layers import efficient_nms\ndef post(b, s):\n"
                      "    return efficient_nms(b, s, 100, 0.5, 0.05, 1000, 100)\n")

    # session 24 (dataops24): a library module whose forward sizes its output by the data, called through its
    # instance (mmdet3d's voxel encoders: DynamicScatter; coqui-tts' kNN-VC: torchaudio's Vad) and library functions
    # of the same kind (torch_points3d's PointGroup: region_grow); the construction is no site
    must_fire += ("import torch\nfrom torch import nn\nfrom mmcv.ops import DynamicScatter\nclass Enc(nn.Module):\n"
                  "    def __init__(self):\n        super().__init__()\n"
                  "        self.scatter = DynamicScatter([0.2, 0.2, 4], [0, -40, -3, 70, 40, 1], True)\n"
                  "    def forward(self, feats, coors):\n        return self.scatter(feats, coors)\n",
                  "import torch\nimport torchaudio\ndef trim(x, sr):\n"
                  "    vad = torchaudio.transforms.Vad(sample_rate=sr, trigger_level=7.0)\n"
                  "    return torch.flip(vad(torch.flip(vad(x), (-1,))), (-1,))\n",
                  "import torch\nfrom torchaudio.functional import vad\ndef trim(x: torch.Tensor, sr):\n"
                  "    return vad(x, sr)\n",
                  "import torch\nfrom torch_points_kernels import region_grow\ndef cluster(pos, labels, batch):\n"
                  "    return region_grow(pos, labels, batch, radius=0.03)\n")
    must_not_fire += (  # the constructor alone; a name also bound to a module of fixed output; another library's class
                      "import torch\nfrom mmcv.ops import DynamicScatter\ndef build(cfg):\n"
                      "    return DynamicScatter(cfg.size, cfg.range, True)\n",
                      "import torch\nimport torchaudio\ndef f(x, sr, trim):\n"
                      "    t = torchaudio.transforms.Vad(sample_rate=sr)\n    if not trim:\n"
                      "        t = torchaudio.transforms.Resample(sr, 16000)\n    return t(x)\n",
                      "import torch\nimport torchaudio\nclass A(torch.nn.Module):\n    def __init__(self, sr):\n"
                      "        super().__init__()\n        self.spec = torchaudio.transforms.MelSpectrogram(sr)\n"
                      "    def forward(self, x):\n        return self.spec(x)\n")

    # session 25 (precision25, constant_fills.py): a nonzero over a tensor of constants of configured sizes (the
    # upper triangle's positions; window masks set with constant slices, stacked) has a fixed count; one written at
    # positions a tensor gives does not
    must_not_fire += ("import torch\ndef triu_vec(x):\n    b, n, _ = x.size()\n"
                      "    idx = torch.ones(n, n).triu().view(n * n).nonzero()\n    return x.reshape(b, -1)[:, idx]\n",
                      "import torch\nclass W(torch.nn.Module):\n    def __init__(self, w, e):\n        super().__init__()\n"
                      "        tl = torch.ones(w, w)\n        tl[:-e, :-e] = 0\n        br = torch.ones(w, w)\n"
                      "        br[e:, e:] = 0\n        m = torch.stack((tl, br), 0).flatten(0)\n"
                      "        self.register_buffer('ind', m.nonzero(as_tuple=False).view(-1))\n")
    must_not_fire += (  # a helper whose op runs over configuration, at its calls too (schnetpack's sh_indices)
        "import torch\ndef sh_indices(lmax: int):\n    ls = torch.arange(0, lmax + 1)\n"
        "    return torch.repeat_interleave(ls, 2 * ls + 1)\ndef table(lmax: int):\n    idx = sh_indices(lmax)\n"
        "    return idx * 2\n",)
    must_fire += ("import torch\ndef picked(x, idx):\n    m = torch.zeros(x.shape[0])\n    m[idx.argmax(-1)] = 1\n"
                  "    return m.nonzero()\n",
                  # a helper's nonzero over the state of a result object made per batch, repeated at its calls
                  "import torch\nclass Match:\n    def __init__(self, r):\n        self.r = r\n"
                  "    def matched(self):\n        return torch.nonzero(self.r > -1).flatten()\n"
                  "    def count(self):\n        return self.matched().numel()\n",
                  # a block at a drawn position (lightly's block masking): the bounds of the slice are random
                  "import torch\ndef block(h, w, n):\n    top = int(torch.randint(0, h - 2, (1,)).item())\n"
                  "    grid = torch.zeros(h, w, dtype=torch.bool)\n    grid[top:top + 2, :] = True\n"
                  "    return grid.flatten().nonzero().flatten()[:n]\n")

    must_fire += (*HOST_NONZERO_FIRE,   # session 26 (dataops26): a test handed read-back values; num_classes=-1
                  "import torch\nimport torch.nn.functional as F\ndef f(t, num_classes=None):\n"
                  "    if num_classes is None:\n        num_classes = -1\n    return F.one_hot(t, num_classes=num_classes)\n")
    must_fire += (  # a tensor moved to the CPU on one path only (Apple MPS): on the others it stays on the device,
                    # and a size read of it (``nc = p.shape[1] - 4``) makes nothing a host array
                  "import torch\nimport numpy as np\nimport torchvision\ndef nms(prediction, thr):\n"
                  "    if prediction.device.type == 'mps':\n        prediction = prediction.cpu()\n"
                  "    nc = prediction.shape[1] - 4\n    for x in prediction:\n        box, cls = x.split((4, nc), 1)\n"
                  "        i, j = (cls > thr).nonzero(as_tuple=False).T\n"
                  "        keep = torchvision.ops.nms(box[i], cls[i, j], 0.5)\n    return keep\n",)
    must_not_fire += (  # ... moved on every path: numpy's
                      "import torch\nimport numpy as np\nimport torchvision\ndef nms(prediction, thr):\n"
                      "    prediction = prediction.cpu()\n    nc = prediction.shape[1] - 4\n"
                      "    for x in prediction:\n        box, cls = x.split((4, nc), 1)\n"
                      "        i, j = (cls > thr).nonzero(as_tuple=False).T\n    return i\n",)
    must_not_fire += (*HOST_NONZERO_SILENT,
                      "import torch\nimport torch.nn.functional as F\ndef f(t, num_classes=5):\n"
                      "    return F.one_hot(t, num_classes=num_classes)\n")

    def check(self, node: object, ctx: FileContext) -> None:
        if host_helper_work(node.node if isinstance(node, ApiRef) else node, ctx):
            return   # a dataset's per-sample work, a collate function's batch building: on the host
        if isinstance(node, ast.Call) and helper_of_file(node, ctx) is not None:
            definition = helper_of_file(node, ctx)
            if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)) and definition.name != "__getitem__" \
                    and host_work(node, ctx) and runs_per_sample(definition, ctx.resolver):
                return   # ``self._hide(x)`` in ``__getitem__``: the helper's host work, silent in it and at its calls
            self._wrapper_call(node, ctx)
            return
        if isinstance(node, ApiRef) and ctx.project is not None and not rooted(node.qualname, ("torch",)):
            call = ctx.call_of(node.node)
            chain = ctx.project.returned_leaf(node.qualname, ctx.module, always_dynamic) if call else None
            if chain:   # a project wrapper defined in another module
                self._report(call, " → ".join(chain), dynamic_row(chain[-1].removesuffix(ONE_ARGUMENT)), ctx)
                return
        if isinstance(node, ApiRef):
            call = ctx.call_of(node.node)
            if call is not None and node.qualname in _BUILDERS and call.args:
                self._host_nonzero(call, node.qualname, ctx)
                return
            row = dynamic_row(node.qualname)
            if row is None and call is not None and nms_call(call, node.qualname, ctx, _runs_torch):
                row = _nms_row()   # another library's or module's NMS (``from effdet.soft_nms import batched_soft_nms``)
            if call is None or row is None or not condition_holds(row["condition"], call, ctx, method=False) \
                    or (call.args and not _spec(call.args[0]) and is_host_array(call.args[0], ctx, call)) \
                    or fixed_output(node.qualname, call, ctx) \
                    or configured_input(row["condition"], call, ctx, method=False):
                return
            self._report(node.node, node.qualname, row, ctx)
            return
        func = node.func
        if isinstance(func, (ast.Name, ast.Attribute)) and ctx.resolver.qualname(func) is None:
            instance = library_module_call(node, ctx)   # ``self.scatter(f, c)``, a DynamicScatter (session 24)
            if instance is not None:
                self._report(node, f"{short_source(func, 30)} ({instance[0]})", instance[1], ctx)
                return
            chosen = chosen_dynamic(node, ctx)   # ``nms_func = nms_bev if rotate else nms_normal_bev``
            if chosen is not None:
                self._report(node, " → ".join(chosen[0]), chosen[1], ctx)
                return
        if not ctx.uses_torch or not isinstance(func, ast.Attribute) or ctx.resolver.qualname(func) is not None:
            return
        if func.attr == "new_tensor" and node.args and not is_host_array(func.value, ctx, node):
            self._host_nonzero(node, short_source(func, 30), ctx)   # ``x.new_tensor(keep)``
            return
        api = "torch.Tensor." + func.attr
        row = dynamic_row(api)
        if row is None and nms_call(node, func.attr, ctx, _runs_torch) and not is_host_array(func.value, ctx, node):
            self._report(node, short_source(func, 40), _nms_row(), ctx)   # ``self.nms(boxes, scores)``, ``ops.soft_nms``
            return
        if row is None or is_host_array(func.value, ctx, node) or not condition_holds(row["condition"], node, ctx, True) \
                or configured_input(row["condition"], node, ctx, method=True):
            return
        parent = ctx.parent(node)
        if func.attr == "nonzero" and not node.args and not node.keywords and isinstance(parent, ast.Subscript) \
                and parent.value is node and isinstance(parent.slice, ast.Constant):
            return   # ``m.nonzero()[0]``: numpy's tuple-returning nonzero (torch's returns one 2-D tensor)
        self._report(node, api, row, ctx)

    @staticmethod
    def project_triggers(project) -> frozenset[str]:
        """Files that call a project wrapper of a data-dependent op must reach this rule too."""
        return project.wrapper_names(always_dynamic)

    def _wrapper_call(self, node: ast.Call, ctx: FileContext) -> None:
        """A call of one of the file's functions (or its class's methods) that returns the result of a
        data-dependent op."""
        definition = helper_of_file(node, ctx)
        if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
            off = flags_left_off(node, definition)
            chain = wrapper_chain(definition, ctx, off=off)
            if chain and chain[-1] != MASK_SELECTION:   # a helper returning ``x[mask]`` is NPU402's
                self._report(node, " → ".join(chain), dynamic_row(chain[-1]), ctx, wrapper_site(definition, ctx, off))
                return
        if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and nms_call(node, definition.name, ctx, _runs_torch, definition):
            self._report(node, short_source(node.func, 40), _nms_row(), ctx)   # the file's own NMS loop

    def _host_nonzero(self, call: ast.Call, api: str, ctx: FileContext) -> None:
        """``torch.tensor(keep)`` where ``keep`` lists the positions a Python loop chose by tensor values."""
        found = host_selection(ctx.resolver, call.args[0], ctx.resolver.current)
        if found is None or any(is_host_array(receiver, ctx, call) for receiver in found.unknown):
            return
        construct = (f"a nonzero computed on the host: positions chosen by {short_source(found.evidence, 30)} "
                     f"(line {found.line}), as many as the data passes")
        alternative = "static alternative: keep the mask on the device, torch.nonzero_static(mask, size=N, fill_value=-1) or a fixed-size mask"
        ctx.report(call, self.message.format(api=f"{api}({short_source(call.args[0], 30)})", construct=construct,
                                             alternative=alternative), "torch.nonzero")

    def _report(self, where: ast.AST, api: str, row: dict[str, str], ctx: FileContext,
                site: Optional[ast.AST] = None) -> None:
        if ctx.on_error_path(where):
            return   # the offending position for an error message, once, before the raise
        reported = ctx.scratch.setdefault("npu401_reported", set())
        position = (getattr(where, "lineno", 0), getattr(where, "col_offset", 0), row["construct"])
        if position in reported:
            return   # ``nms_function(...)`` bound to two NMS ops of the table: one finding where it is called
        reported.add(position)
        alternative = (f"static alternative: {row['alternative']}" if row["alternative"]
                       else f"keep it out of the training step, or {JIT_TIP}")
        message = self.message.format(api=api, construct=row["construct"], alternative=alternative)
        if site is None:
            ctx.report(where, message, api)
        else:   # a call of the file's helper: a repeat of the op inside it, where that op is reported itself
            ctx.report_repeat(where, message, api, site, _OWN_SITES)


_OWN_SITES = frozenset({"NPU401", "NPU402"})


def _spec(node: ast.AST) -> bool:
    """A string first argument (the quantities ``"ijS"`` of a neighbour list): no array the call runs on."""
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _nms_row() -> dict[str, str]:
    """The rule table's row of an NMS (torchvision's), told as what any NMS does."""
    row = dict(dynamic_row("torchvision.ops.nms") or {})
    row["construct"] = "a non-maximum suppression keeps as many boxes as the scores and overlaps let through"
    return row


class BooleanMaskIndexing(Rule):
    """Reading a tensor through a boolean mask: ``x[mask]``, ``x[x > 0]``, ``boxes[keep, :]``.

    What it does:
        Flags subscripts read (or updated in place: ``x[mask] += v``) with a boolean index: a comparison, a combination of masks
        (``~``, ``&``, ``|``), ``torch.isnan(x)`` or ``m.bool()`` (``m.to(torch.bool)``: numpy has no ``.to``), or a
        name bound to one of these, in files that use torch (a tensor compared with a numpy number, ``angles >
        self.angle`` with ``self.angle = np.radians(a)``, is torch's mask; ``F.pad`` / ``torch.as_tensor`` of a mask
        is one); also a name the function itself uses as a mask (``masked_fill(m, v)``, the condition of
        a three-argument ``torch.where``, beside a comparison in ``&``, ``|`` or ``torch.logical_and``, inverted as
        an index, ``l[~m]`` beside ``e[m]``, also when unpacked from what a method returns; an index it counts,
        ``n = m.sum()``, or checks is boolean, ``keep.dtype == torch.bool``, unless the test's other arm indexes
        with it), a numpy array of booleans made a tensor
        (``torch.from_numpy(~sel)`` of ``sel = np.zeros(n, dtype=bool)``), and a mask
        kept in a dict under its key (``t = {"pos": labels > 0, ...}``; ``x[t["pos"]]``, also the dict a
        helper of the file returns, whole or in a returned tuple), an element of a returned tuple that every return
        of the function puts a mask in (``boxes, keep = clip(boxes)``, ``out[1]`` of ``out = f(x)``, through a function
        returning another's result, in the file or, by the project index, in another module). Values that evidently
        come from numpy or pandas (``np.*`` calls, ``.numpy()``, names
        bound to them, comparisons with strings; not a tensor moved to the host only in a fallback arm, ``if mode ==
        "cpu": x = x.cpu()``, which stays on the device on the other path), masks the code fixes (``~torch.eye(n, dtype=torch.bool)``: every
        row drops one element, the semantic model's ``configured``), a helper's selection by an optional mask
        its call leaves out (``m[..., mask] if mask is not None else m``), literal tuples indexed by a condition and generic types
        (``Annotated[...]``: a capitalised name no enclosing function binds) and the per-sample work of a
        dataset class that names no device (the helpers of ``__getitem__``, not ``__getitem__`` itself
        nor a collate function) are left alone; a parameter or local
        named ``A`` or ``X`` is a matrix (``A[rows]``).
        Mask assignment of one fill value (``x[mask] = 0``) is NPU303's advice (``masked_fill_``); it is also
        reported here, with a message of its own, when the index is a mask by kind and the receiver a device tensor
        as far as the model can tell (``probs[probs < cutoff] = 0`` after a softmax, also in the ``else`` arm of a
        ``probs.device.type == "cpu"`` test whose other arm makes it numpy; ``target[~labeled] = 0`` on a stack of
        the batch's fields, ``keep[invalid] = False`` on a mask of the device, ``t[seq == tok] = 2`` where ``t = (seq ==
        img).to(torch.int32)``; a value of no kind it can tell, a parameter's copy or a helper's result, in a
        function that calls torch's operators: ``certainty = certainty.clone()`` then ``certainty[certainty > t] =
        1`` beside ``torch.multinomial``, ``grad_input[output == 0] = 0`` in an autograd backward): a tensor made by a
        factory told no device or moved to the device after the write, numpy, a constructor's work and a helper
        converting a user's inputs (it tests ``isinstance(x, PIL.Image.Image)`` or ``np.ndarray``: a pipeline's
        ``prepare_mask(mask)``) are left alone. A mask the
        model knows through ``torch.cat`` of a list of masks (``fg_masks.append(fg_mask)`` per image) counts.
        An assignment NPU303 leaves alone because
        the value is computed (``x[mask] = rows``, ``x[m] = i + 1``, ``x[m] = torch.sigmoid(y)``) is flagged here,
        unless the value itself reads through a mask (``x[m] = y[m] * 2``: the read is flagged); so is a mask
        combined with another index (``m[keep, idx] = 1``, ``m[keep, 0] = 1``), for which NPU303 has no advice.
        Broad path: where that proof fails, an index boolean or positions BY CONSTRUCTION (a
        comparison, ``~``, ``&``/``|`` of non-constant operands, ``isnan``/``isin``/``logical_*``, ``.bool()``,
        ``dtype=bool``, the positions of ``nonzero`` / ``argwhere`` / one-argument ``where`` / ``masked_select``,
        the rows a mask or such positions pick (``torch.arange(b)[keep]``, ``ids.index_select(0, unfinished)``), a
        conversion, view or row of one, a local, field or helper of the file whose every value is one, a field
        stored in the same function above the read, on every path: ``self.idx = torch.tensor(kept)`` then
        ``self.seq[self.idx]``, a beam search dropping its finished sentences) fires on any value the model
        cannot prove is no tensor (an environment's done flags, a batch object's field, a buffer entry, positions of
        a nonzero used later); silent on proven numpy/pandas/lists/objects (numpy's index on a value of unknown
        kind), annotations and masks the code fixes (``rules/broad_masks.py``). Also the distinct
        values of ``unique`` (``ids, inv, cnt = torch.unique(idx, return_inverse=True, ...)`` then ``state[ids]``;
        not the inverse, which has the input's shape), the positions another module's function returns (the project
        index follows its return to ``nonzero`` / ``argwhere`` / one-argument ``where`` / ``unique``), and a name
        rebound from itself (``seeds = seeds[order]``, ``m = torch.from_numpy(m).to(device)``) keeps what its
        other assignments make.
        Fields of data objects: a field is what the project stores in it. A dataclass / NamedTuple
        field is what the file's constructions pass (``Meta(to_cache=keep)``, ``keep`` built with
        ``dtype=torch.bool``), or, through the project index, every construction and ``self.f = ...`` of that class
        in any module; an object the file builds only inside functions other than ``__init__`` (a view or record
        made per call) and an attribute a method other than ``__init__`` sets (``self.input = data`` in
        ``set_input``) hold that call's data, not model state, so their masks are not "fixed". On a receiver whose
        class the model does not know (``batch.valid``, ``self.input.instance_mask``) the field is a mask only when
        EVERY store of that field name in the project is a mask by construction (or the field itself again,
        ``x.m = x.m.to(d)``) and at most one class stores it: an inference from the project's stores, never
        from the name; one store of another kind, or two classes storing it, leaves it unknown.
        Lists walked by a loop: an element of a list of positions or masks walked by a ``for`` loop (``for rows in
        per_class`` of ``per_class = [torch.nonzero(t == c).flatten() for c in ids]``, or items ``append``ed), a local
        of which ANY assignment in its function is a mask (``mask = kw.get("mask")`` in one arm, ``mask =
        torch.less(a, lens)`` in the other: on that path the size is the data's), positions a Python loop chose by
        values read back (``kept.append(k)`` under ``if i not in slab`` with ``i = t[k].item()``) and the entry of a
        dict of tensors (``inputs["idx_i"][kept]``) count too.
        A selection whose value spans several lines is reported at the mask (``(a * b).sum(`` on one line,
        ``1)[valid]`` on the next: the line and column of ``valid``), where a reader looks for it; ``x[`` then the
        mask on the next line is reported at ``x``.
    Why it matters on NPU:
        A boolean index turns into ``nonzero`` followed by a gather: the NPU syncs with the host to count the
        selected elements, and the result has a new shape whenever the count changes, which compiles the
        following operators again.
    Example:
        loss = criterion(logits[valid], labels[valid])
    Use instead:
        per_item = criterion_none(logits, labels)           # reduction="none"
        loss = (per_item * valid).sum() / valid.sum().clamp(min=1)   # or torch.where(valid, x, 0)
    Fix safety:
        No automatic fix: a dense mask changes how the selection is used afterwards.
    """

    code = "NPU402"
    name = "boolean-mask-indexing"
    family = FAMILY
    node_types = (ast.Subscript, ast.Call)
    triggers = ("[", "index_select", ".take(")
    message = "{value}[{index}] selects by a boolean mask: a data-dependent shape and a device sync on NPU; keep the mask dense (torch.where / masked_fill / multiply by the mask)"
    must_fire = (
                 *_DEVICE_WORK, *_SAMPLE_WORK,
                 "import torch\nx = torch.randn(8)\npos = x[x > 0]\n",
                 # a closure reads positions its enclosing function found (gsplat-style densification helpers)
                 "import torch\ndef split(mask, update):\n    sel = torch.where(mask)[0]\n"
                 "    def param_fn(p):\n        return p[sel].repeat(2, 1)\n    update(param_fn)\n",
                 # moved to the host only in an OOM fallback arm: on the device on the path an NPU runs
                 "import torch\ndef assign(gt, preds, mode='gpu'):\n    if mode == 'cpu':\n        preds = preds.cpu()\n"
                 "    fg = gt > 0\n    return preds[fg]\n",
                 "import torch\ndef f(scores: torch.Tensor, boxes, thr):\n    keep = scores > thr\n    return boxes[keep], scores[keep]\n",
                 "import torch\ndef f(pred: torch.Tensor, valid: torch.Tensor):\n    valid_mask = valid > 0\n    return pred[:, valid_mask]\n",
                 "import torch\nbad = x[torch.isnan(x)]\n",
                 "import torch\ndef f(boxes, scores, thr):\n    keep = scores > thr\n    return boxes[keep]\n",
                 "import torch\ndef f(p: torch.Tensor, e, s, n):\n    p[p <= e - s] += n\n",
                 "import torch\ndef f(x, keep):\n    return x[~keep]\n",
                 # a data container (mmengine's InstanceData) indexed by a mask; a mask parameter its own code
                 # treats as one; a ``new_zeros(..., dtype=torch.bool)`` mask
                 "import torch\ndef f(gt_instances, thr):\n    ignore = gt_instances.scores < thr\n    return gt_instances[~ignore]\n",
                 "import torch\ndef f(prob, mask):\n    prob = prob.masked_fill(~mask, 0.0)\n    return prob[mask]\n",
                 "import torch\ndef f(inst, x, idx):\n    valid = x.new_zeros(x.shape[0], dtype=torch.bool)\n"
                 "    valid[idx] = True\n    return inst[valid]\n",
                 # the call of the file's helper that returns a selection by a mask
                 "import torch\ndef flat(s, l, ignore):\n    valid = l != ignore\n    return s.view(-1)[valid.view(-1)]\n"
                 "def loss(s, l):\n    return flat(s, l, 255).sum()\n",
                 # a method chosen at run time whose every candidate returns a mask
                 "import torch\nclass Head(torch.nn.Module):\n    def __init__(self, cfg):\n"
                 "        self.mask_fn = self._by_thr if cfg else self._by_nan\n    def _by_thr(self, x):\n"
                 "        return x > 0.5\n    def _by_nan(self, x):\n        return torch.isnan(x)\n"
                 "    def forward(self, x):\n        m = self.mask_fn(x)\n        return x[m]\n",
                 "import torch\ndef f(x, mode):\n    fn = {'nan': torch.isnan, 'inf': torch.isinf}[mode]\n    return x[fn(x)]\n",
                 # assigning computed rows through a mask (NPU303 advises masked_fill_ for one fill value only)
                 "import torch\ndef f(self, embeds, pixels, ids, tok):\n    img = self.visual(pixels)\n"
                 "    embeds[ids == tok] = img\n    return embeds\n",
                 "import torch\ndef f(x: torch.Tensor, y):\n    m = x > 0\n    x[m] = torch.sigmoid(y)\n",
                 # a matrix named by a capital letter (a parameter of the function, not a generic type)
                 "import torch\ndef f(A, b):\n    rows = torch.any(A != 0, dim=-1)\n    return A[rows] @ b\n",
                 # the call of an NMS loop (the kept list grows while a selection shrinks the candidates) and of a
                 # helper that joins per-item selections
                 "import torch\ndef nms(boxes, scores, thr):\n    keep = []\n    order = scores.argsort(descending=True)\n"
                 "    while order.numel() > 0:\n        keep.append(order[0])\n        order = order[1:][scores[order[1:]] < thr]\n"
                 "    return torch.stack(keep)\ndef post(b, s):\n    return nms(b, s, 0.5)\n",
                 "import torch\ndef fg(xs, thr):\n    out = []\n    for x in xs:\n        out.append(x[x > thr])\n"
                 "    return torch.cat(out)\ndef post(xs):\n    return fg(xs, 0.1)\n",
                 # a mask combined with an index tensor: no masked_fill_ advice (NPU303), still a nonzero
                 "import torch\ndef match(cost):\n    m = torch.zeros_like(cost)\n    idx = cost.argmin(0)\n"
                 "    keep = cost.min(0).values < 1.0\n    m[keep, idx] = 1\n    return m\n")
    must_not_fire = (
                     # the closure's name is a fixed slice of the enclosing function: no positions found
                     "import torch\ndef split(update):\n    sel = slice(0, 4)\n"
                     "    def param_fn(p):\n        return p[sel].repeat(2, 1)\n    update(param_fn)\n",
                     # a Lightning data module builds its data set once, in its constructor or ``setup``
                     "import torch\nfrom lightning import LightningDataModule\nclass Sine(LightningDataModule):\n"
                     "    def __init__(self, n: int = 100):\n        super().__init__()\n"
                     "        x = torch.linspace(-2, 15, n).unsqueeze(-1)\n        gap = (x > 4) & (x < 8)\n"
                     "        noise = torch.randn_like(x)\n        noise[x > 4] = 0\n"
                     "        self.x = x[~gap.squeeze(), :]\n",
                     "import torch\nimport pytorch_lightning as pl\nclass Data(pl.LightningDataModule):\n"
                     "    def setup(self, stage=None):\n        y = torch.randn(100)\n        self.pos = y[y > 0]\n",
                     # a selection read out to the host for a log line only
                     "import torch, logging\nlogger = logging.getLogger(__name__)\ndef check(q: torch.Tensor, c):\n"
                     "    found = torch.isin(q, c)\n    missing = q[~found].cpu().numpy()\n"
                     "    logger.warning('missing %s', missing)\n",
                     *_HOST_WORK,
                     "import torch\nlabel = ('neg', 'pos')[score > 0]\n",
                     # moved to the host on every path, and a numpy array picked by a tensor's index
                     "import torch\ndef assign(gt, preds):\n    preds = preds.cpu()\n    fg = gt > 0\n    return preds[fg]\n",
                     "import numpy as np\nimport torch\ndef f(a, idx: torch.Tensor):\n    v = np.asarray(a)[idx]\n"
                     "    return v[v > 0]\n",
                     # ``~i`` alone is as often an integer's reverse index: no evidence ``i`` is a mask
                     "import torch\ndef pick(x: torch.Tensor, i):\n    return x[i] * (~i)\n",
                     # a frame indexed by a test on one of its own columns (pandas), whatever the other side is
                     "import pandas as pd\nimport torch\nclass D:\n    def rows(self, index):\n"
                     "        return self.df[self.df['num_index'] == index]\n",
                     # one candidate returns a mask, the other an index tensor: no evidence of a mask
                     "import torch\nclass H:\n    def _a(self, x):\n        return x > 0\n    def _b(self, x):\n"
                     "        return x.argmax(-1)\n    def run(self, x, c):\n        fn = self._a if c else self._b\n"
                     "        return x[fn(x)]\n",
                     "import torch\nimport numpy as np\ndef f(t):\n    a = t.cpu().numpy()\n    keep = a > 0\n    return a[keep]\n",
                     "import torch\nimport pandas as pd\nswitches = events[events.Type == 'SWITCH']\n","import torch\nx = torch.randn(8)\nx[x > 0] = 0\n",
                     "import torch\nx = torch.randn(8)\ny = x[idx]\n",
                     "import numpy as np\nimport torch\na = np.zeros(3)\nb = a[a > 0]\n",
                     "import torch\nx = torch.randn(8)\ny = x[:, 0]\n",
                     "x = get()\ny = x[x > 0]\n",
                     "import torch\ndef match(cost):\n    m = torch.zeros_like(cost)\n    idx = cost.argmin(0)\n"
                     "    m[idx, 0] = 1\n    m[0, idx] = 1\n    return m\n",
                     "import torch\ndef dense(s, l):\n    return s * (l > 0)\ndef loss(s, l):\n    return dense(s, l).sum()\n",
                     # a parameter whose own code shows no mask (``a & m``, numpy's where), a list of booleans
                     "import torch\ndef f(a, m):\n    b = a & m\n    return a[m]\n",
                     # a generic type subscripted with a condition (``Annotated``): no local binds the name
                     "import torch\nfrom typing import Annotated\ndef f(x: torch.Tensor, flag):\n"
                     "    T = Annotated[torch.Tensor, flag == 1]\n    return x\n",
                     "import numpy as np\nimport torch\ndef f(a, m):\n    b = np.where(m, a, 0)\n    return a[m]\n",
                     "import torch\ndef f(rows):\n    keep = [r > 0 for r in rows]\n    return rows[keep]\n",
                     # a mask the code fixes: every row of an identity drops one element (self-pairs, leave-one-out)
                     "import torch\ndef negatives(z: torch.Tensor):\n    sim = z @ z.T\n"
                     "    self_pairs = torch.eye(z.shape[0], dtype=torch.bool, device=z.device)\n"
                     "    return sim[~self_pairs].view(z.shape[0], -1)\n",
                     "import torch\ndef folds(x: torch.Tensor):\n    masks = torch.eye(x.shape[0], dtype=torch.bool)\n"
                     "    return torch.stack([x[~m] for m in masks])\n",
                     # a helper selecting only when its optional mask is given, called without it
                     "import torch\nclass GP(torch.nn.Module):\n    def _mean(self, x, mask=None):\n"
                     "        m = self.mean_module(x)\n        return m[..., mask] if mask is not None else m\n"
                     "    def predict(self, x: torch.Tensor):\n        return self._mean(x)\n")
    must_fire += (  # a torch-only comparison method (numpy arrays and pandas frames have no ``less``) in a function
                    # that uses numpy elsewhere
                  "import torch\nimport numpy as np\ndef refine(tokens, stop, wavs):\n"
                  "    kept = [i[i.less(stop)] for i in tokens]\n    return kept, np.concatenate(wavs)\n",)
    must_not_fire += (  # numpy's comparison in such a function: host data
                      "import torch\nimport numpy as np\ndef strip(wavs, thr):\n"
                      "    return [w[np.abs(w) > thr] for w in wavs]\n",)
    must_fire += (  # a local the function itself uses as a mask (beside a comparison in torch.logical_and)
                  "import torch\ndef loss(preds, targets, valids):\n    valid = torch.cat([v.reshape(-1) for v in valids])\n"
                  "    pos = torch.logical_and(targets >= 0, valid)\n    return preds[valid].sum() + pos.sum()\n",
                  # a mask kept in a dict under its key: built here, or returned by the file's helper (whole or as
                  # one element of a returned tuple), then passed on to a parameter
                  "import torch\ndef f(x, labels):\n    t = {'pos': labels > 0, 'labels': labels}\n    return x[t['pos']]\n",
                  "import torch\nclass Head(torch.nn.Module):\n    def get_targets(self, labels):\n"
                  "        out = dict(reg_mask=labels > 0, labels=labels)\n        return labels.sum(), out\n"
                  "    def predict(self, pred, reg_mask):\n        return pred.view(-1, 4)[reg_mask]\n"
                  "    def loss(self, pred, labels):\n        n, targets = self.get_targets(labels)\n"
                  "        return self.predict(pred, reg_mask=targets['reg_mask'])\n")
    must_not_fire += (  # the other keys of a dict that holds a mask; a numpy mask in a dict; a numpy logical_and
                      "import torch\ndef f(x, labels):\n    t = {'pos': labels > 0, 'idx': labels.argmax(-1)}\n"
                      "    return x[t['idx']]\n",
                      "import numpy as np\nimport torch\ndef f(points, labels):\n    arr = np.asarray(labels)\n"
                      "    t = {'keep': arr > 0}\n    return points[t['keep']]\n",
                      "import numpy as np\nimport torch\ndef f(points, a, b):\n    both = np.logical_and(a > 0, b)\n"
                      "    return points[b]\n",
                      # a tensor moved to the host before the selection
                      "import torch\ndef f(t: torch.Tensor):\n    x = t.detach().cpu()\n    return x[x > 0]\n")
    must_fire += (  # an identity combined with the data's labels; the helper given its mask
                  "import torch\ndef positives(sim: torch.Tensor, labels: torch.Tensor):\n"
                  "    eye = torch.eye(sim.shape[0], dtype=torch.bool)\n    same = (labels[:, None] == labels[None]) & ~eye\n"
                  "    return sim[same]\n",
                  "import torch\nclass GP(torch.nn.Module):\n    def _mean(self, x, mask=None):\n"
                  "        m = self.mean_module(x)\n        return m[..., mask] if mask is not None else m\n"
                  "    def fit(self, x: torch.Tensor, y: torch.Tensor):\n        return self._mean(x, mask=y.isfinite())\n")

    must_fire += (  # (fields25) a record's field: a dataclass built per step with a mask, held by a view object
                  # the file builds per call (its ``self.metadata`` is that call's data, not model state); a field
                  # of the object ``set_input`` stores per batch, filled with a mask elsewhere in the file
                  "import torch\nfrom dataclasses import dataclass\n@dataclass\nclass Meta:\n"
                  "    positions: torch.Tensor\n    to_cache: torch.Tensor\nclass View:\n"
                  "    def __init__(self, metadata: Meta):\n        self.metadata = metadata\n"
                  "    def update(self, xk: torch.Tensor):\n        return xk[self.metadata.to_cache]\n"
                  "def metadata(seqlens, device):\n    masks = [[x >= s - 4 for x in range(s)] for s in seqlens]\n"
                  "    keep = torch.tensor(sum(masks, []), device=device, dtype=torch.bool)\n"
                  "    return Meta(positions=torch.arange(4), to_cache=keep)\n"
                  "def view(meta: Meta):\n    return View(meta)\n",
                  "import torch\nclass Model(torch.nn.Module):\n    def set_input(self, data):\n        self.input = data\n"
                  "    def loss(self, out: torch.Tensor):\n        return out[self.input.valid]\n"
                  "def prepare(data, labels):\n    data.valid = labels != 0\n    return data\n")
    must_not_fire += (  # (fields25) a record built once, in ``__init__``, from configuration: state; a field two
                      # stores give different kinds (a mask here, a list of positions there)
                      "import torch\nfrom dataclasses import dataclass\n@dataclass\nclass Meta:\n"
                      "    keep: torch.Tensor\nclass View:\n    def __init__(self, metadata: Meta):\n"
                      "        self.metadata = metadata\n    def update(self, xk: torch.Tensor):\n"
                      "        return xk[self.metadata.keep]\nclass Model(torch.nn.Module):\n"
                      "    def __init__(self, n):\n        super().__init__()\n"
                      "        self.view = View(Meta(keep=~torch.eye(n, dtype=torch.bool)))\n",
                      "import torch\ndef tag(a, scores):\n    a.keep = scores > 0.5\ndef pick(b, ids):\n"
                      "    b.keep = [i for i in ids]\ndef use(x, obj):\n    return x[obj.keep]\n",
                      # a holder a factory builds with settings and loaders (no tensor, no record): its state
                      "import torch\nfrom fastai.data.load import _loaders\nclass Mixed:\n"
                      "    def __init__(self, loaders):\n        self.loaders = loaders\n    def __iter__(self):\n"
                      "        return zip(*[_loaders[i.fake.num_workers == 0](i.fake) for i in self.loaders])\n"
                      "def mixed(train, valid):\n    return Mixed([train, valid])\n",
                      "import torch\nclass Tiles:\n    def __init__(self, scores):\n        self.keep = scores > 0.5\n"
                      "class Picks:\n    def __init__(self, rows: list):\n        self.keep = rows\n"
                      "def use(x: torch.Tensor, obj):\n    return x[obj.keep]\n")

    must_fire += (  # one fill value written through a mask on a device tensor (a computed tensor, a stack of the
                  # batch's fields); the masks of each image concatenated
                  "import torch\nimport torch.nn.functional as F\ndef top_p(logits: torch.Tensor, cutoff: float):\n"
                  "    probs = F.softmax(logits.float(), dim=-1)\n    probs[probs < cutoff] = 0\n    return probs\n",
                  "import torch\ndef loss(self, batch):\n"
                  "    target = torch.stack([batch[t].float() for t in self.tasks], dim=-1)\n"
                  "    labeled = ~torch.isnan(target)\n    target[~labeled] = 0\n    return target\n",
                  "import torch\ndef loss(preds, gts, anchors):\n    fg_masks = []\n    for gt in gts:\n"
                  "        fg_masks.append((anchors[None] - gt[:, None]).abs().min(0).values < 1.0)\n"
                  "    fg = torch.cat(fg_masks, 0)\n    return preds.view(-1, 4)[fg]\n",
                  # a mask cast to numbers (the semantic model: a tensor now), then written through another mask; a
                  # mask cleared where another holds (``m[other] = False`` is the same IndexPut)
                  "import torch\ndef types(seq: torch.Tensor, image_id, video_id):\n"
                  "    t = (seq == image_id).to(torch.int32)\n    t[seq == video_id] = 2\n    return t\n",
                  "import torch\ndef keep(scores: torch.Tensor, boxes: torch.Tensor, thr):\n    keep = scores > thr\n"
                  "    keep[boxes[:, 2] <= boxes[:, 0]] = False\n    return keep\n")
    must_not_fire += (  # a mask made on the host by a factory told no device, cleared where a test holds
                      "import torch\ndef keep(n, bad: torch.Tensor):\n    keep = torch.ones(n, dtype=torch.bool)\n"
                      "    keep[bad > 0] = False\n    return keep\n",
                      "import torch\ndef build(logits: torch.Tensor, b, n, prob):\n"
                      "    mask = torch.ones(b, n, n, dtype=torch.bool)\n    mask[:, :4, 8:] = logits.flatten(2) > 0\n"
                      "    mask[:, :4, 8:][torch.rand(b, 4) > prob] = True\n    return mask\n",
                      # a cast of a tensor made on the host (a test's random targets) is on the host too
                      "import torch\ndef case(n):\n    target = torch.rand(n)\n    is_nan = torch.rand(n) > 0.3\n"
                      "    target = (target > 0.5).to(torch.float32)\n    target[is_nan] = float('nan')\n"
                      "    t = target.clone()\n    t[is_nan] = 0\n    return t\n",)
    must_fire += (  # a method handed to ``executor.map`` with the rows of a mask: its parameter is a mask
                  "import torch\nfrom concurrent.futures import ThreadPoolExecutor\nclass Post:\n"
                  "    def run(self, logits, padding_mask):\n        x = logits.masked_fill(~padding_mask, -1000)\n"
                  "        with ThreadPoolExecutor() as ex:\n            return list(ex.map(self._item, x, padding_mask))\n"
                  "    def _item(self, row, mask):\n        return row[mask]\n",)
    must_not_fire += (  # the same with the rows of an index tensor: a gather of fixed size
                      "import torch\nfrom concurrent.futures import ThreadPoolExecutor\nclass Post:\n"
                      "    def run(self, logits, n):\n        idx = torch.arange(n).view(-1, 1).expand(-1, 4)\n"
                      "        with ThreadPoolExecutor() as ex:\n            return list(ex.map(self._item, logits, idx))\n"
                      "    def _item(self, row, rows):\n        return row[rows]\n",)
    must_fire += (  # a copy of a tensor the step already put on the device: the later ``.to(device)`` moves nothing,
                    # the fill runs on the device
                  "import torch\ndef step(model, batch, pad_id, device):\n    ids = batch[1].to(device, non_blocking=True)\n"
                  "    labels = ids.clone()\n    labels[labels == pad_id] = -100\n    labels = labels.to(device)\n"
                  "    return torch.nn.functional.cross_entropy(model(ids), labels)\n",)
    must_not_fire += (  # the fill on a tensor moved to the device after the write, made by a factory told no device,
                      # on numpy, in a module's constructor; an index of unknown kind
                      "import torch\ndef labels_of(batch, pad_id, device):\n"
                      "    ids = torch.stack([x[0] for x in batch]).squeeze(1)\n    labels = ids.clone()\n"
                      "    labels[labels == pad_id] = -100\n    labels = labels.to(device)\n    return labels\n",
                      "import numpy as np\nimport torch\ndef f(t: torch.Tensor):\n    a = t.cpu().numpy()\n    a[a < 0] = 0\n"
                      "    return a\n",
                      "import torch\nclass Sparse(torch.nn.Module):\n    def __init__(self, n, sparsity):\n"
                      "        super().__init__()\n        b = torch.rand(n, n)\n        w = torch.zeros(n, n)\n"
                      "        w[b < sparsity] = 1\n        self.register_buffer(\"w\", w)\n",
                      "import torch\ndef f(x: torch.Tensor, keep_ids):\n    x[keep_ids] = 0\n    return x\n",
                      # a factory's CPU tensor scaled by a Python weight stays on the CPU
                      "import torch\ndef step(model, x, y, weights, device):\n    out = model(x.to(device))\n"
                      "    w = torch.ones(y.shape[0]) * weights[0]\n    w[y == 1] = 1\n"
                      "    return (out * w.to(device)).sum()\n",
                      # a helper converting a user's input (PIL image, numpy array or tensor): host, once per call
                      "import numpy as np\nimport torch\nimport PIL.Image\ndef prepare_mask(mask):\n"
                      "    if isinstance(mask, torch.Tensor):\n        mask = mask.float()\n"
                      "        mask[mask < 0.5] = 0\n        return mask\n"
                      "    if isinstance(mask, PIL.Image.Image):\n        mask = np.array(mask)\n"
                      "    return torch.from_numpy(mask)\n")

    must_fire += (  # session 18 (values26): the receiver a device tensor as far as the model can tell -- the else
                    # arm of a device test (the numpy binding in the other arm never reaches it; the threshold a Python
                    # number read from numpy); a parameter's copy or a helper's result of no kind the model can tell,
                    # in a function running torch's operators
                  "import numpy as np\nimport torch\nimport torch.nn.functional as F\n"
                  "def sample(logits, top_p):\n    probs = F.softmax(logits.float(), dim=-1)\n"
                  "    if probs.device.type == 'cpu':\n        probs = probs.cpu().numpy()\n        return probs\n"
                  "    else:\n        c = torch.cumsum(probs, dim=-1).cpu().numpy()\n"
                  "        cutoff = float(probs[np.argmax(c >= top_p)])\n        probs[probs < cutoff] = 0\n"
                  "        return probs\n",
                  "import torch\ndef sample(matches, certainty, thresh, num):\n    certainty = certainty.clone()\n"
                  "    certainty[certainty > thresh] = 1\n    return torch.multinomial(certainty, num)\n",
                  # a factor chosen by a membership test of a string (``"x" in mode``: no pandas comparison)
                  "import torch\ndef sample(self, certainty, num, kde):\n"
                  "    factor = 4 if 'balanced' in self.mode else 1\n"
                  "    good = torch.multinomial(certainty, num_samples=factor * num)\n    density = kde(good)\n"
                  "    p = 1 / (density + 1)\n    p[density < 10] = 1e-7\n    return torch.multinomial(p, num)\n")
    must_not_fire += (  # a parameter of no kind in a function running no torch operator (numpy work); the numpy arm
                      # of a device test
                      "import numpy as np\nimport torch\ndef clip(a, t):\n    a = a.copy()\n    a[a > t] = 1\n"
                      "    return np.mean(a)\n",
                      "import numpy as np\nimport torch\nimport torch.nn.functional as F\n"
                      "def sample(logits, cutoff):\n    probs = F.softmax(logits.float(), dim=-1)\n"
                      "    if probs.device.type == 'cpu':\n        probs = probs.cpu().numpy()\n        probs[probs < cutoff] = 0\n"
                      "        return probs\n    return probs\n")

    must_not_fire += (  # a collator class's methods run in the loader's workers: its instances are the collate
                        # function, or it derives from a Hugging Face data collator
                      "import torch\nfrom torch.utils.data import DataLoader\nclass Collator:\n"
                      "    def __call__(self, examples):\n        return self.mask_tokens(torch.stack(examples))\n"
                      "    def mask_tokens(self, inputs):\n        labels = inputs.clone()\n"
                      "        masked = torch.bernoulli(torch.full(labels.shape, 0.15)).bool()\n"
                      "        labels[~masked] = -100\n        return inputs, labels\n"
                      "def make(ds):\n    return DataLoader(ds, batch_size=8, drop_last=True, collate_fn=Collator())\n",
                      "import torch\nfrom transformers import DataCollatorForLanguageModeling\n"
                      "class SpanCollator(DataCollatorForLanguageModeling):\n"
                      "    def torch_mask_tokens(self, inputs: torch.Tensor):\n        labels = inputs.clone()\n"
                      "        masked = torch.bernoulli(torch.full(labels.shape, 0.15)).bool()\n"
                      "        labels[~masked] = -100\n        inputs[masked] = self.tokenizer.mask_token_id\n"
                      "        return inputs, labels\n")
    must_fire += (  # torch bound by an import helper (``torch = try_import("torch")``); a result declared alone
                    # (``d: Tensor``) then unpacked from a search index, written through a mask
                  "import importlib\ndef try_import(name):\n    try:\n        return importlib.import_module(name)\n"
                  "    except ImportError:\n        return None\ntorch = try_import('torch')\ndef score(k, eps):\n"
                  "    u, s, v = torch.svd(k)\n    mask = s > eps\n    return s[mask]\n",
                  "import torch\nfrom torch import Tensor\ndef knn(index, q, n):\n    d: Tensor\n    i: Tensor\n"
                  "    d, i = index.search(q, 4)\n    d[i == torch.arange(n)[:, None]] = torch.inf\n    return d\n")
    must_fire += (  # a mask kept on ``self`` in one method (joined from a list of masks bound by unpacking ``[], []``),
                    # selecting in another
                  "import torch\nclass Beam:\n    def end(self, scores):\n        outs, flags = [], []\n"
                  "        for s in scores:\n            flags.append(s > 0)\n            outs.append(s)\n"
                  "        self.flag = torch.cat(flags)\n    def step(self, cache):\n        return cache[self.flag]\n",)
    must_fire += (  # a declaration in another function says nothing of this one's local; since session 21 the
                    # comparison's construction is enough on a value the model cannot prove is no tensor (broad path)
                  "import torch\nfrom torch import Tensor\ndef other():\n    d: Tensor\ndef knn(index, q, n):\n"
                  "    d, i = index.search(q, 4)\n    d[i == n] = 0\n    return d\n",)
    must_fire += (  # a callable class that is no collate function: its work may run on the device
                  "import torch\nclass Masker:\n    def __call__(self, inputs: torch.Tensor):\n"
                  "        labels = inputs.clone()\n        masked = torch.bernoulli(torch.full(labels.shape, 0.15)).bool()\n"
                  "        labels[~masked] = -100\n        return inputs, labels\n",)

    must_fire += (  # session 20 (dataops20): a device tensor compared with a numpy number is a torch mask; a name the
                    # function inverts as an index (``l[~m]``) is a mask in its other selections, also one unpacked
                    # from a tuple a method returns
                  "import numpy as np\nimport torch\nclass Miner:\n    def __init__(self, angle):\n"
                  "        self.angle = np.radians(angle)\n    def mine(self, x, a_idx):\n"
                  "        angles = torch.atan(x)\n        keep = angles > self.angle\n        return a_idx[keep]\n",
                  "import torch\ndef split(e, l, enqueue_mask):\n    return e[enqueue_mask], l[~enqueue_mask]\n",
                  "import torch\ndef pick(self, x, m):\n    (d, i), keep = self.rows(m)\n    return x[keep], d[~keep]\n",
                  # a mask padded, converted or cast by torch keeps being one (numpy has no ``.to``); one made by a
                  # torch-only method marks what it writes as a tensor
                  "import torch\nimport torch.nn.functional as F\ndef top_p(logits, thres):\n"
                  "    s, i = torch.sort(logits, descending=True)\n    remove = torch.cumsum(F.softmax(s, -1), -1) > thres\n"
                  "    remove = F.pad(remove, (1, -1), value=False)\n    s[remove] = float('-inf')\n    return s\n",
                  "import torch\ndef filt(v, keep):\n    k = keep > 0\n    return v[torch.as_tensor(k, device=v.device)]\n",
                  "import torch\ndef f(x, m):\n    return x[m.to(torch.bool)]\n",
                  "import torch\ndef f(x, m):\n    x[m.bool()] = 0\n    return x\n",
                  # two names combined to select (``torch.where(a & b)``) are masks, in every arm that binds them
                  "import torch\ndef mine(self, mat, a, b, c):\n    if c:\n        (pd, pi), pk = self.pos(mat, a)\n"
                  "        nk = self.neg(mat, b)\n    else:\n        (pd, pi), pk = self.pos(mat, b)\n"
                  "        nk = self.neg(mat, a)\n    if c > 1:\n        return torch.where(pk & nk)\n"
                  "    return pd[pk], pi[nk]\n")
    must_not_fire += (  # an index combined with a constant: bits of an integer
                      "import torch\ndef f(x, y, i):\n    return x[i & 1] + y[i]\n",)
    must_fire += (  # session 20 (dataops20b): a numpy array of booleans made a tensor; an index the function counts
                    # (``m.sum()``); an index the code checks is boolean (``keep.dtype == torch.bool``)
                  "import numpy as np\nimport torch\ndef split(data, shots, device):\n    data = data.to(device)\n"
                  "    sel = np.zeros(data.size(0), dtype=bool)\n    sel[np.arange(shots) * 2] = True\n"
                  "    rest = torch.from_numpy(~sel)\n    return data[rest]\n",
                  "import torch\ndef probs(label_map, labels, p):\n    out = torch.zeros_like(label_map)\n"
                  "    for label in labels:\n        mask = label_map == label\n        n = mask.sum()\n"
                  "        out[mask] = p / n\n    return out\n",
                  "import torch\nclass Stats:\n    def filter(self, keep: torch.Tensor):\n"
                  "        for k, v in self.d.items():\n            if isinstance(v, torch.Tensor):\n"
                  "                self.d[k] = v[torch.as_tensor(keep, device=v.device)]\n"
                  "            elif keep.dtype == torch.bool:\n                self.d[k] = [a for a, f in zip(v, keep) if f]\n"
                  "            else:\n                self.d[k] = [v[i] for i in keep]\n")
    must_not_fire += (  # a numpy array of another dtype made a tensor; an index neither counted nor checked; numpy
                        # booleans selecting from numpy
                      "import numpy as np\nimport torch\ndef pick(data, n):\n    idx = torch.from_numpy(np.zeros(n, dtype=np.int64))\n"
                      "    return data[idx]\n",
                      "import torch\ndef pick(data: torch.Tensor, idx, w):\n    total = w.sum()\n    return data[idx] / total\n",
                      "import numpy as np\nimport torch\ndef pick(a, n):\n    sel = np.zeros(n, dtype=bool)\n"
                      "    b = np.asarray(a)\n    return b[sel]\n",
                      # a dtype test with another arm: the code takes a mask or an index, the index written here
                      "import torch\ndef drop(which, n, device):\n    which = torch.as_tensor(which)\n"
                      "    if which.dtype == torch.bool:\n        keep = ~which\n    else:\n"
                      "        keep = torch.ones(n, dtype=torch.bool, device=device)\n        keep[which] = False\n"
                      "    return keep\n")
    must_not_fire += (  # a numpy array compared with a numpy number stays a numpy mask; ``~i`` outside an index
                      "import numpy as np\nimport torch\ndef f(a):\n    t = np.radians(20)\n    b = np.asarray(a)\n"
                      "    return b[b > t]\n",
                      "import torch\ndef pick(x: torch.Tensor, i):\n    return x[i] * (~i)\n")
    must_fire += (  # session 21 (dataops21), the broad path: an index boolean (or positions) by construction on a
                    # value the model cannot prove is no tensor: an environment's done flags, positions of a nonzero
                    # used later (read and written), a field every assignment makes a mask, a helper returning one
                  "import torch\ndef step(env, n):\n    obs, rew, term, trunc, info = env.step(None)\n"
                  "    dones = (term | trunc).flatten()\n    return torch.arange(n, device=dones.device)[dones]\n",
                  "import torch\nclass Agent:\n    def track(self, terminated, truncated):\n"
                  "        finished = (terminated + truncated).nonzero(as_tuple=True)[0]\n"
                  "        out = self.rewards[finished]\n        self.rewards[finished] = 0\n        return out\n",
                  "import torch\nclass Agent:\n    def reset(self, state, terminated):\n"
                  "        finished = terminated.nonzero(as_tuple=False)\n        state[:, finished[:, 0]] = 0\n",
                  "import torch\nclass Buffer:\n    def add(self, done):\n        self.alive = done < 1\n"
                  "    def sample(self, batch):\n        return batch.obs[self.alive]\n",
                  "import torch\ndef alive(d):\n    return ~d\ndef f(batch, d):\n    return batch['obs'][alive(d)]\n",
                  "import torch\ndef f(buf, rew, thr):\n    keep = torch.zeros(len(rew), dtype=torch.bool)\n"
                  "    keep |= rew > thr\n    return buf.obs[keep]\n",
                  # numpy's positions selecting from a tensor the model knows: the gather runs on the device
                  "import numpy as np\nimport torch\ndef f(x: torch.Tensor, done):\n    idx = np.where(done)[0]\n"
                  "    return x[idx]\n")
    must_not_fire += (  # the broad path stays silent: numpy's flags on numpy, a field also bound to positions the
                        # model cannot tell, an annotation, a parameter index of unknown kind, a Python list
                      "import numpy as np\nimport torch\ndef roll(obs, n):\n    done = np.zeros(n, dtype=bool)\n"
                      "    return obs[~done]\n",
                      "import torch\nclass Buffer:\n    def add(self, done):\n        self.sel = done < 1\n"
                      "    def reset(self, idx):\n        self.sel = idx\n    def sample(self, batch):\n"
                      "        return batch.obs[self.sel]\n",
                      "import torch\ndef parse(source: str) -> tuple[str | list[str], int]:\n    return source, 1\n",
                      "import torch\ndef f(batch, m):\n    return batch.obs[m]\n",
                      "import torch\ndef f(a, b):\n    names = ['lo', 'hi']\n    return names[a > b]\n",
                      # numpy's positions selecting from a value of unknown kind: a host buffer's arrays
                      "import numpy as np\nimport torch\ndef g(buf, done):\n    idx = np.where(done)[0]\n"
                      "    return buf.obs[idx]\n",
                      # read for an error message; a tensor a factory made on the host (no device)
                      "import torch\nclass Mol:\n    def check(self, v):\n        if torch.isnan(v).any():\n"
                      "            index = torch.isnan(v).nonzero()[0]\n"
                      "            raise ValueError('bad atom %d' % self.atom_type[index])\n",
                      # one position taken from the found ones: a scalar index
                      "import torch\ndef first(labels, cls, hit):\n    idx = torch.where(hit)[0].cpu().numpy()\n"
                      "    return cls[idx[0]].item()\n",
                      "import torch\ndef keep(n, flags):\n    w = torch.ones(n)\n"
                      "    pos = flags.nonzero()[:, 0]\n    return w[pos].tolist()\n")
    _LENS = "import torch\ndef lens_to_mask(lens, n):\n    return torch.arange(n)[None, :] < lens[:, None]\n"
    must_fire += (  # session 21 (params21): a method's parameter takes the mask its callers pass through the class:
                    # a @staticmethod called inside an expression, ``Cls.sel(obj, m)``, a base class's method through
                    # ``self``, ``super().__init__(x, m)``, ``self.sub.sel(x, m)`` of a class of the file
                  _LENS + "class S:\n    @staticmethod\n    def sel(x, m):\n        return x[m]\n"
                  "    def run(self, x, lens):\n        return self.sel(x, lens_to_mask(lens, 4)), 1\n",
                  _LENS + "class S:\n    def sel(self, x, m):\n        return x[m]\n"
                  "def run(s, x, lens):\n    return S.sel(s, x, lens_to_mask(lens, 4))\n",
                  _LENS + "class Base(torch.nn.Module):\n    def select(self, x, m):\n        return x[m]\n"
                  "class Net(Base):\n    def forward(self, x, lens):\n        return self.select(x, lens_to_mask(lens, 4))\n",
                  _LENS + "class Base:\n    def __init__(self, x, m):\n        self.y = x[m]\n"
                  "class Net(Base):\n    def __init__(self, x, lens):\n        super().__init__(x, lens_to_mask(lens, 4))\n",
                  _LENS + "class Helper:\n    def sel(self, x, m):\n        return x[m]\n"
                  "class Net:\n    def __init__(self):\n        self.h = Helper()\n"
                  "    def run(self, x, lens):\n        return self.h.sel(x, lens_to_mask(lens, 4))\n")
    must_not_fire += (  # the same calls passing an index tensor or a slice: a gather of fixed size
                      "import torch\nclass S:\n    @staticmethod\n    def sel(x, m):\n        return x[m]\n"
                      "    def run(self, x):\n        return self.sel(x, torch.arange(4)), 1\n",
                      "import torch\nclass Base:\n    def __init__(self, x, m):\n        self.y = x[m]\n"
                      "class Net(Base):\n    def __init__(self, x):\n        super().__init__(x, slice(0, 4))\n",
                      "import torch\nclass Helper:\n    def sel(self, x, m):\n        return x[m]\n"
                      "class Net:\n    def __init__(self):\n        self.h = Helper()\n"
                      "    def run(self, x):\n        return self.h.sel(x, torch.tensor([0, 2]))\n")
    must_fire += (  # a caller's ``*args`` / ``**kwargs`` handed on whole: the parameter takes what its callers pass
                  _LENS + "def inner(x, m):\n    return x[m]\ndef fwd(x, *args, **kwargs):\n    return inner(x, *args, **kwargs)\n"
                  "def run(x, lens):\n    return fwd(x, lens_to_mask(lens, 3))\n",
                  _LENS + "def inner(x, scale=1, m=None):\n    return x[m] * scale\n"
                  "def fwd(x, **kwargs):\n    return inner(x, **kwargs)\n"
                  "def run(x, lens):\n    return fwd(x, m=lens_to_mask(lens, 3))\n")
    must_not_fire += (  # the same forwarding of an index tensor
                      "import torch\ndef inner(x, m):\n    return x[m]\ndef fwd(x, *args):\n    return inner(x, *args)\n"
                      "def run(x):\n    return fwd(x, torch.arange(3))\n",
                      "import torch\ndef inner(x, m=None):\n    return x[m]\ndef fwd(x, **kwargs):\n    return inner(x, **kwargs)\n"
                      "def run(x):\n    return fwd(x, m=torch.arange(3))\n")

    # round 3 (session 21): rows taken by positions a nonzero / where found (``index_select`` / ``take``), also
    # through a parameter every call of the file passes them to and a field a constructor of the file is given
    must_fire += (
        "import torch\ndef f(x, keep):\n    idx = torch.nonzero(keep).flatten()\n    return x.index_select(0, idx)\n",
        "import torch\ndef f(x, m):\n    return torch.index_select(x, 0, torch.where(m)[0])\n",
        "import torch\ndef _take(p, indices):\n    return p.index_select(0, indices)\n"
        "def split(p, keep):\n    return _take(p, torch.nonzero(keep).flatten())\n",
        "import torch\nfrom dataclasses import dataclass\n@dataclass\nclass Ctx:\n    rows: torch.Tensor\n"
        "def a(keep):\n    return Ctx(rows=torch.nonzero(keep).flatten())\ndef b(p, ctx):\n"
        "    return p.index_select(0, ctx.rows)\n")
    must_not_fire += (
        "import torch\ndef f(x, n):\n    return x.index_select(0, torch.arange(n))\n",
        "import numpy as np\nimport torch\ndef f(a, m):\n    return np.take(a, np.nonzero(m)[0])\n",
        # one call passes a range: the parameter is not positions on every path
        "import torch\ndef _take(p, indices):\n    return p.index_select(0, indices)\n"
        "def a(p, keep):\n    return _take(p, torch.nonzero(keep).flatten())\ndef b(p):\n"
        "    return _take(p, torch.arange(4))\n")

    # session 23 (dataops23): a name rebound from itself keeps what its other assignments make (``seeds =
    # seeds[order]``, ``m = torch.from_numpy(m).to(device)``: cellpose, cellseg, kraken); the distinct values of
    # ``unique`` used as an index (dgl's sparse optimisers; torch_points3d, sentence-transformers on the dev sets);
    # positions returned by another module's function (project index; the fixture's ``matching.py``)
    must_fire += (
        "import torch\ndef seeds(h, order):\n    s = torch.nonzero(h > 10)\n    s = s[order]\n"
        "    return h[s[:, 0], s[:, 1]]\n",
        "import torch\ndef f(x, t, device):\n    m = (t > 0).cpu().numpy()\n    m = torch.from_numpy(m).to(device)\n"
        "    return x[m]\n",
        "import torch as th\ndef step(state, idx, grad):\n"
        "    ids, inverse, cnt = th.unique(idx, return_inverse=True, return_counts=True)\n"
        "    rows = ids.to(state.device)\n    state[rows] += grad\n    return state[rows]\n",
        "import torch\ndef f(emb: torch.Tensor, idx: torch.Tensor):\n    return emb[idx.unique()]\n")
    must_not_fire += (
        # the inverse of ``unique`` has the input's shape; a random subset of fixed size rebound from itself
        "import torch\ndef f(table: torch.Tensor, labels):\n"
        "    _, inv = torch.unique(labels, return_inverse=True)\n    return table[inv]\n",
        "import torch\ndef f(x: torch.Tensor, n):\n    idx = torch.randperm(n)\n    idx = idx[:10]\n    return x[idx]\n",
        # a name only ever rebound from itself proves nothing
        "import torch\ndef f(x: torch.Tensor, idx):\n    for _ in range(3):\n        idx = idx[1:]\n    return x[idx]\n")

    # session 24 (dataops24): masks joined by cat / stack are a mask (gsplat's ``is_split = torch.cat([is_split,
    # torch.zeros(n, dtype=torch.bool)])``, pytorch-forecasting's repetition flags)
    must_fire += ("import torch\ndef f(x, t, g):\n    keep = torch.cat([torch.tensor([False], dtype=torch.bool), "
                  "t[1:] == t[:-1]])\n    return g(x[keep])\n",
                  "import torch\ndef grow(p, grad, n):\n    m = grad > 0.1\n"
                  "    m = torch.cat([m, torch.zeros(n, dtype=torch.bool, device=m.device)])\n    return p[m]\n")
    must_not_fire += (  # a join of index tensors of fixed count; a join with a part of unknown construction
                      "import torch\ndef f(x, n):\n    idx = torch.cat([torch.arange(n), torch.arange(n)])\n"
                      "    return x[idx]\n",
                      "import torch\ndef f(x, t, extra):\n    idx = torch.cat([t > 0, extra])\n    return x[idx]\n")

    # session 25 (tuples25): an element of a tuple a function returns is what that function's returns put there,
    # through a function returning another's result, a name holding the whole tuple (``out = f(x)``, ``out[1]``),
    # a nested target, another module's function (the index's element of the tuple)
    must_fire += ("import torch\ndef crop(b):\n    keep = b[:, 2] > b[:, 0]\n    return b, keep\n"
                  "def clip(b):\n    return crop(b)\n"
                  "def run(b, s):\n    out = clip(b)\n    return s[out[1]]\n",
                  "import torch\nclass Sel:\n    def _split(self, x):\n        if x is None:\n            return None\n"
                  "        return x.abs(), torch.isfinite(x)\n"
                  "    def run(self, x, y):\n        (a, ok), n = self._split(x), 2\n        return y[ok]\n")
    must_not_fire += (  # another element of the same tuple; returns that disagree; an element after a starred target
                      "import torch\ndef crop(b):\n    keep = b[:, 2] > b[:, 0]\n    return b, keep\n"
                      "def run(b, s):\n    out = crop(b)\n    return s[out[0]]\n",
                      "import torch\ndef pick(b, t):\n    if t:\n        return b, b > 0\n    return b, b.argmax(0)\n"
                      "def run(b, s, t):\n    _, idx = pick(b, t)\n    return s[idx]\n",
                      "import torch\ndef f(b):\n    return b, b > 0, b.argmax(0)\n"
                      "def run(b, s):\n    a, *rest, idx = f(b)\n    return s[idx]\n")
    # session 25 (precision25, constant_fills.py): a mask of constants at configured positions (Hugging Face's
    # pruned heads) selects a fixed count; a mask written at positions the data gives does not
    must_not_fire += ("import torch\nclass Attn:\n    def forward(self, bias):\n        if self.pruned_heads:\n"
                      "            mask = torch.ones(bias.shape[1])\n            mask[list(self.pruned_heads)] = 0\n"
                      "            bias = bias[:, mask.bool()]\n        return bias\n",)
    must_fire += ("import torch\ndef keep(x, scores):\n    mask = torch.zeros(x.shape[0])\n"
                  "    mask[scores.argmax(-1)] = 1\n    return x[mask.bool()]\n",
                  # (lead) the fill moved by ``.to(device)`` before the name holds it: its writes still count
                  "import torch\ndef rectify(conf, loss, t):\n    ignore = conf < t\n"
                  "    union = torch.zeros((conf.shape[0] - 1, conf.shape[1]), dtype=torch.bool).to(loss.device)\n"
                  "    for i in range(conf.shape[0] - 1):\n        union[i] = torch.logical_or(ignore[i], ignore[i + 1])\n"
                  "    loss[union] = 0.0\n    return loss\n")

    must_fire += MASK_INDEX_FIRE        # session 26 (dataops26): loop elements, a mask on one path, host-chosen lists
    must_not_fire += MASK_INDEX_SILENT
    # session 32: the positions of a condition joined with those of its negation are every position once, reordered
    # (lerobot's pi0fast ``shift_padding_side``: padding moved to one side); two conditions that leave some out vary
    must_not_fire += ("import torch\ndef shift(tokens: torch.Tensor, padding_mask: torch.Tensor, left: bool):\n"
                      "    out = torch.empty_like(tokens)\n    for i in range(tokens.shape[0]):\n"
                      "        pad = torch.where(padding_mask[i] == 0)[0]\n"
                      "        keep = torch.where(padding_mask[i] == 1)[0]\n"
                      "        idx = torch.cat((pad, keep), dim=0) if left else torch.cat((keep, pad), dim=0)\n"
                      "        out[i] = tokens[i].index_select(0, idx)\n    return out\n",
                      "import torch\ndef f(x: torch.Tensor, s: torch.Tensor):\n"
                      "    idx = torch.cat([torch.nonzero(s > 0).flatten(), torch.nonzero(s <= 0).flatten()])\n"
                      "    return x[idx]\n",
                      "import torch\ndef f(x: torch.Tensor, m: torch.Tensor):\n"
                      "    return x[torch.cat([m.nonzero().squeeze(1), (~m).nonzero().squeeze(1)])]\n")
    # session 32: a parameter whose plain copy the function uses as a mask is a mask (lerobot's VQ codebook: ``ce_mask =
    # mask`` ... ``masked_fill_(~ce_mask, -1)``, then ``loss[loss_mask]`` with ``loss_mask`` the mask or einops'
    # ``repeat`` of it); a copy used as a gather's index, or rebound before its mask use, says nothing
    must_fire += ("import torch\nfrom einops import repeat\nclass VQ(torch.nn.Module):\n"
                  "    def forward(self, loss, ind, mask=None, heads=1):\n        if mask is not None:\n"
                  "            ce_mask = mask\n            if heads > 1:\n"
                  "                ce_mask = repeat(ce_mask, 'b n -> b n h', h=heads)\n"
                  "            ind.masked_fill_(~ce_mask, -1)\n            loss_mask = mask\n            if heads > 1:\n"
                  "                loss_mask = repeat(mask, 'b n -> (b h) n', h=heads)\n"
                  "            loss = loss[loss_mask].mean()\n        return loss, ind\n",)
    # session 32: a helper's selection from a field of a pandas frame (``df.columns[~df.columns.str.contains(t)]``,
    # realtabformer's process_data) is no tensor's; a field of an object of unknown kind still may be one
    must_not_fire += ("import pandas as pd\nimport torch\ndef cols(frames):\n    df = pd.concat(frames, axis=1)\n"
                      "    keep = df.columns[~df.columns.str.contains('cat')]\n    return df[keep]\n"
                      "def run(frames):\n    return torch.tensor(cols(frames).values)\n",)
    must_fire += ("import torch\ndef keep(t, thr):\n    m = t.scores > thr\n    return t.boxes.data[m]\n"
                  "def run(t):\n    return keep(t, 0.5).sum()\n",)
    # session 32: a mask cast to numbers (``(s < t).long()``, ``m.to(torch.long)``) indexes by integers, zeros and
    # ones: as many rows as it has elements (open3d's PointRCNN scoring); moved to a device it stays a mask
    must_not_fire += ("import torch\nimport torch.nn.functional as F\ndef post(rcnn_cls, thr):\n    out = []\n"
                      "    for scores in rcnn_cls:\n        if scores.shape[-1] == 1:\n"
                      "            labels = (torch.sigmoid(scores) < thr).long()\n        else:\n"
                      "            labels = torch.argmax(scores)\n            scores = F.softmax(scores, dim=0)[labels]\n"
                      "        out.append(scores)\n    return out\n",
                      "import torch\ndef g(x, s, thr):\n    k = (s > thr).to(torch.long)\n    return x[k]\n")
    must_fire += ("import torch\ndef g(x, s, thr, device):\n    k = (s > thr).to(device)\n    return x[k]\n",)
    # session 32: masks folded into one by ``functools.reduce`` with and / or (raster-vision's detection output
    # filter); a fold of other values (a sum of indices) says nothing
    must_fire += ("from functools import reduce\nfrom operator import iand\nimport torch\nclass P:\n"
                  "    def f(self, out):\n        masks = [out['labels'] != i for i in self.ignored]\n"
                  "        mask = reduce(iand, masks)\n        return out['boxes'][mask]\n",
                  "import functools\nimport torch\ndef f(x: torch.Tensor, ms):\n"
                  "    return x[functools.reduce(torch.logical_and, [m > 0 for m in ms])]\n")
    must_not_fire += ("import functools, operator\nimport torch\ndef f(x: torch.Tensor, ids):\n"
                      "    idx = functools.reduce(operator.add, [i for i in ids])\n    return x[idx]\n",)
    must_not_fire += ("import torch\ndef f(x: torch.Tensor, idx):\n    sel = idx\n    y = x.gather(1, sel)\n"
                      "    return x[idx] + y\n",
                      "import torch\ndef f(x: torch.Tensor, m, y):\n    k = m\n    k = y > 0\n"
                      "    z = x.masked_fill(~k, 0)\n    return x[m] + z\n")
    must_fire += ("import torch\ndef f(x: torch.Tensor, s: torch.Tensor):\n"
                  "    idx = torch.cat([torch.nonzero(s > 0).flatten(), torch.nonzero(s < 0).flatten()])\n"
                  "    return x.index_select(0, idx)\n",
                  "import torch\ndef f(x: torch.Tensor, s: torch.Tensor):\n"
                  "    idx = torch.cat([torch.where(s == 1)[0], torch.where(s == 2)[0]])\n    return x[idx]\n")

    def check(self, node: ast.AST, ctx: FileContext) -> None:
        if not ctx.uses_torch:
            return
        if isinstance(node, ast.Subscript) and all(
                isinstance(index, (ast.Slice, ast.Constant))
                for index in (node.slice.elts if isinstance(node.slice, ast.Tuple) else (node.slice,))):
            return   # ``x[0]``, ``x[:, 1:]``, ``x[..., None]``: no index that can be a mask
        if host_helper_work(node, ctx):
            return   # (a dataset's per-sample work, a collate function's batch building: on the host)
        if isinstance(node, ast.Subscript) and for_message(ctx.statement_of(node), ctx):
            return   # ``missing = y[~found].cpu().numpy()`` read out for a log line only
        if isinstance(node, ast.Subscript) and runs_at_setup(ctx.enclosing(node, FUNCTION_TYPES), ctx.resolver):
            return   # a constructor (a module's, a Lightning data module's ``setup``): once per run, not per step
        if isinstance(node, ast.Call):
            taken = positions_taken(node, ctx)
            if taken is not None:   # ``x.index_select(0, torch.nonzero(keep).flatten())`` (session 21, round 3)
                ctx.report(node, f"{short_source(taken[0])}.{node.func.attr}(.., {short_source(taken[1], 30)}) takes "
                           "positions built from values: the count of positions a nonzero / where found sets the "
                           "shape (a device sync on NPU); keep the mask dense (torch.where(mask, x, 0), multiply by "
                           "the mask), or nonzero_static(size=N) for a fixed count", "x[mask]")
                return
            self._helper_call(node, ctx)
            return
        rows, combined = None, False
        if not isinstance(node.ctx, ast.Load) and not updated_in_place(node, ctx):
            rows = rows_written(node, ctx)   # ``x[mask] = rows``: one value per selected element (NPU303 advises
            if rows is None:                  # ``masked_fill_`` for one fill value)
                combined = assigned(node, ctx) and mask_position(node.slice) is None \
                    and not reads_through_mask(ctx.parent(node).value, ctx)   # the read is flagged
                if not combined:              # ``m[mask, idx] = 1``: a mask and another index, no NPU303 advice
                    self._fill(node, ctx)     # ``x[mask] = 0`` on a device tensor, a mask by kind
                    return
        if isinstance(node.value, (ast.Tuple, ast.List, ast.Constant)) or type_name(node.value, ctx):
            return   # Optional[...], Union[...]
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for index in elements:
            if isinstance(index, (ast.Slice, ast.Constant)) or not is_bool_index(index, ctx) \
                    or ctx.resolver.configured(index):
                continue   # ``sim[~torch.eye(n, dtype=torch.bool)]``: a mask the code fixes selects as many every batch
            if tensor_evidence(node, index, ctx) or not host_array_evidence(node, index, ctx):
                if combined:
                    ctx.report(node, f"{short_source(node.value)}[{index_text(node.slice)}] = "
                               f"{short_source(ctx.parent(node).value, 30)} assigns through a boolean mask combined "
                               "with another index (IndexPut with a data-dependent nonzero): a device sync on NPU; "
                               "build the full-size mask densely (scatter / one_hot of the index, & the mask), then "
                               "masked_fill_ or torch.where", "x[mask]")
                    return
                if rows is not None:
                    ctx.report(node, f"{short_source(node.value)}[{index_text(node.slice)}] = {short_source(rows, 30)} "
                               "assigns through a boolean mask (IndexPut with a data-dependent nonzero): a device sync "
                               "on NPU, and a shape that follows the mask when the value has one entry per selected "
                               "element; write densely (torch.where(mask, value, x), the value laid out at full size)",
                               "x[mask]")
                    return
                # ``(a * b).sum(\n 1)[mask]``: the value spans lines, the reader looks where ``[mask]`` stands
                where = index if (node.value.end_lineno or node.lineno) > node.lineno else node
                ctx.report(where, self.message.format(value=short_source(node.value), index=index_text(node.slice)),
                           "x[mask]")
                return
        self._broad(node, ctx)

    def _fill(self, node: ast.Subscript, ctx: FileContext) -> None:
        """``x[mask] = v`` with one fill value (NPU303's form, advice in the affinity family): also a data-dependent
        nonzero here, reported only when the model knows ``x`` is a device tensor and the index a mask by kind."""
        place = mask_position(node.slice)
        if place is None or not assigned(node, ctx) or reads_through_mask(ctx.parent(node).value, ctx):
            return
        mask = place[0]
        written = node.value   # ``mask[:, :n][rand > p] = True``: a view of ``mask``, written through
        while isinstance(written, ast.Subscript):
            written = written.value
        if ctx.resolver.configured(mask) or host_array_evidence(node, mask, ctx) \
                or (isinstance(written, ast.Name) and (ctx.resolver.moved_later(written)
                                                       or ctx.resolver.made_on_host(written))) \
                or runs_at_setup(ctx.enclosing(node, FUNCTION_TYPES), ctx.resolver) \
                or converts_inputs(ctx.enclosing(node, FUNCTION_TYPES), ctx.resolver):
            return   # (a tensor made without a device or moved there after the write: on the host; a constructor;
            #          a helper converting a user's PIL images, arrays or tensors)
        if not fill_receiver(node, written, ctx, mask) or ctx.resolver.kind_of(mask) != MASK \
                or not is_bool_index(mask, ctx):
            self._broad(node, ctx, written)   # not proved: the mask's construction decides (session 21)
            return
        ctx.report(node, f"{short_source(node.value)}[{index_text(node.slice)}] = "
                   f"{short_source(ctx.parent(node).value, 30)} writes through a boolean mask (IndexPut runs a "
                   "nonzero on the mask): a device sync and a data-dependent count on NPU; write densely with "
                   "masked_fill_(mask, v) or torch.where(mask, v, x)", "x[mask]")

    def _broad(self, node: ast.Subscript, ctx: FileContext, written: Optional[ast.AST] = None) -> None:
        """The broad path: an index boolean (or positions) by construction, on a value not proven no tensor."""
        if written is None:
            written = node.value
            while isinstance(written, ast.Subscript):
                written = written.value
        if isinstance(ctx.statement_of(node), ast.Raise) or (
                isinstance(written, ast.Name) and ctx.resolver.made_on_host(written)):
            return   # read for an error message; a tensor made on the host (``torch.as_tensor(ids)``, no device)
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for index in elements:
            if isinstance(index, (ast.Slice, ast.Constant)):
                continue
            what = constructed_index(index, ctx)
            # the value indexed, when the model knows it a tensor (``inputs["idx"][keep]`` of a dict of tensors, an
            # item of a list of tensors: session 26), else the name it is read from
            value = node.value if node.value is not written and ctx.resolver.kind_of(node.value) in TENSORS else written
            if what is None or not_a_tensor(value, index, node, ctx):
                continue
            write = not isinstance(node.ctx, ast.Load)
            varies = ("the count of positions a nonzero / where found" if what == POSITIONS
                      else "the count of distinct values unique found" if what == VALUES
                      else "the count of True elements of the mask")
            cheapest = ("keep the boolean mask and write densely: torch.where(mask, v, x) / masked_fill_"
                        if write else "keep the mask dense (torch.where(mask, x, 0), masked_fill, multiply by the "
                        "mask and divide by mask.sum()), or nonzero_static(size=N) for a fixed count")
            ctx.report(node, f"{short_source(node.value)}[{index_text(node.slice)}] "
                       f"{'writes through' if write else 'selects by'} {_INDEX_WORDS[what]}: {varies} sets the "
                       f"shape (IndexPut/Index with a nonzero, a device sync on NPU); {cheapest}", "x[mask]")
            return

    @staticmethod
    def project_triggers(project) -> frozenset[str]:
        """Files that call a project function returning a boolean-mask selection must reach this rule too."""
        return project.wrapper_names(is_mask_selection)

    def _helper_call(self, node: ast.Call, ctx: FileContext) -> None:
        chain = mask_helper(node, ctx)
        site = mask_helper_site(node, ctx) if chain else None
        if chain is None and ctx.project is not None and isinstance(node.func, (ast.Name, ast.Attribute)):
            name = ctx.resolver.qualname(node.func)   # a helper of another module of the project
            chain = ctx.project.returned_leaf(name, ctx.module, is_mask_selection) if name else None
            if chain and ctx.project.returned_leaf(name, ctx.module, always_dynamic):
                chain = None   # it also returns a data-dependent op's result: NPU401 names that chain
        if chain:
            ctx.report_repeat(node, f"{' → '.join(chain[:-1])} returns a selection by a boolean mask: a data-dependent "
                              "shape and a device sync on NPU; keep the mask dense (torch.where / masked_fill / multiply "
                              "by the mask)", "x[mask]", site, _OWN_SITES)


