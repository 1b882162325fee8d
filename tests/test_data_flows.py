"""The data-flow query's newer flavours: the length of a data-dependent result (``data_size``) and the batch's
longest or shortest item (``batch_max``) in more spellings. Each case asks what the argument of the last
``probe(x)`` call may carry; every inference has cases that must give the flow and cases that must not."""
from __future__ import annotations

import pytest

from conftest import flows

HEAD = "import torch\nimport numpy as np\n"




@pytest.mark.parametrize(("body", "origin"), [
    ("def f(labels: torch.Tensor):\n    ids = labels.unique()\n    probe(ids.size(0))\n", "ids.size(0)"),
    ("def f(mask: torch.Tensor):\n    idx = mask.nonzero().squeeze(1)\n    n = idx.shape[0]\n    probe(n)\n",
     "idx.shape[0]"),
    ("def f(x, scores):\n    sel = x[scores > 0.5]\n    probe(len(sel))\n", "len(sel)"),
    ("def f(mask):\n    rows, cols = torch.where(mask)\n    probe(rows.numel())\n", "rows.numel()"),
    # numpy's counts are the data's too (NPU403 reports them only where they size a tensor); an element of the tuple
    # of index arrays, also through a parameter the file's calls fill with one
    ("def f(labels):\n    probe(len(np.unique(labels)))\n", "len(np.unique(labels))"),
    ("def f(prob, t):\n    inds = np.nonzero(prob > t)\n    probe(len(inds[0]))\n", "len(inds[0])"),
    ("def g(inds):\n    probe(len(inds[0]))\ndef f(m):\n    g(torch.nonzero(m, as_tuple=True))\n", "len(inds[0])"),
    ("def g(keep):\n    probe(keep.shape[0])\ndef f(m):\n    keep = m.nonzero()\n    g(keep)\n", "keep.shape[0]"),
    ("def f(labels):\n    u, counts = torch.unique(labels, return_counts=True)\n    probe(counts.size(0) + 1)\n",
     "counts.size(0)"),
    ("def f(labels: torch.Tensor):\n    probe(torch.unique(labels).view(-1).shape)\n",
     "torch.unique(labels).view(-1).shape"),
])
def test_length_of_a_data_dependent_result_is_data(body: str, origin: str) -> None:
    assert ("data_size", origin) in flows(HEAD + body)


@pytest.mark.parametrize("body", [
    # the inverse indices of unique() have the input's shape; the second axis of nonzero() is the rank
    "def f(labels):\n    u, inv = torch.unique(labels, return_inverse=True)\n    probe(inv.size(0))\n",
    "def f(mask: torch.Tensor):\n    idx = mask.nonzero()\n    probe(idx.shape[1])\n",
    # a pandas column, a tensor of fixed shape; the number of axes numpy's nonzero gives (not a count of the data)
    "def f(m):\n    probe(len(np.nonzero(m > 0)))\n",
    "def g(keep):\n    probe(keep.shape[0])\ndef f(x: torch.Tensor):\n    g(x)\n",
    "def f(df):\n    probe(len(df['label'].unique()))\n",
    "def f(x: torch.Tensor):\n    probe(x.size(0))\n",
])
def test_lengths_that_do_not_depend_on_the_data(body: str) -> None:
    assert not [f for f in flows(HEAD + body) if f[0] == "data_size"]


@pytest.mark.parametrize(("body", "origin"), [
    ("def f(batch):\n    lengths = [len(x['ids']) for x in batch]\n    probe(max(lengths))\n", "max(lengths)"),
    ("def f(batch):\n    probe(max(map(len, batch)))\n", "max(map(len, batch))"),
    ("def f(batch):\n    m = max((len(s) for s in batch), default=0)\n    probe(m)\n",
     "max((len(s) for s in batch), default=0)"),
    ("def f(batch):\n    m = 0\n    for s in batch:\n        m = max(m, len(s))\n    probe(m)\n", "max(m, len(s))"),
    ("def f(batch):\n    probe(min(x.shape[0] for x in batch))\n", "min((x.shape[0] for x in batch))"),
    ("def f(chunk):\n    m = len(max(chunk, key=len))\n    probe(m)\n", "len(max(chunk, key=len))"),
    # the longest along each axis of the items' shapes
    ("def f(samples):\n    shape = [max(s) for s in zip(*[x.shape for x in samples])]\n    probe(shape)\n", "max(s)"),
])
def test_batch_extremes(body: str, origin: str) -> None:
    assert ("batch_max", origin) in flows(HEAD + body)


@pytest.mark.parametrize("body", [
    "def f(a, b):\n    probe(max(a, b))\n",
    # a per-item bound, a literal tuple of named tensors, nested comprehensions
    "def f(batch):\n    for s in batch:\n        n = max(len(s), 8)\n        probe(n)\n",
    "def f(a, b, c):\n    probe(min(t.shape[0] for t in (a, b, c)))\n",
    "def f(d):\n    probe(max(len(v) for p in d.values() for v in p))\n",
    # the longest item itself, or the longest by another key: no length
    "def f(chunk):\n    probe(max(chunk, key=len))\n",
    "def f(boxes):\n    probe(len(max(boxes, key=area)))\n",
    # the larger of two named shapes, axis by axis: no batch
    "def f(a, b):\n    probe([max(s) for s in zip(*[a.shape, b.shape])])\n",
])
def test_not_batch_extremes(body: str) -> None:
    assert not [f for f in flows(HEAD + body) if f[0] == "batch_max"]


def test_tolist_of_a_numpy_array_is_no_device_read() -> None:
    assert flows(HEAD + "def f(strides):\n    order = np.argsort(strides, axis=0).tolist()\n    probe(order[0])\n") == []
    assert ("host", "x.sum().tolist()") in flows(HEAD + "def f(x: torch.Tensor):\n    probe(x.sum().tolist())\n")
    assert ("host", "x.cpu().squeeze().tolist()") in flows(   # a tensor's data, moved to the host first
        HEAD + "def f(x: torch.Tensor):\n    probe(x.cpu().squeeze().tolist())\n")


@pytest.mark.parametrize("body", [
    # a name given where an index tensor goes is a tensor: its element read back is a host value
    "def f(inputs, y):\n    idx = inputs['idx_m']\n    n = int(idx[-1]) + 1\n    scatter_add(y, idx, dim_size=n)\n"
    "    probe(n)\n",
    "def f(feats, idx):\n    n = int(idx[-1]) + 1\n    feats.new_zeros(n, 4).index_add_(0, idx, feats)\n    probe(n)\n",
    "def f(x, seg):\n    n = int(seg[-1])\n    torch.gather(x, 0, seg)\n    probe(n)\n",
    "def f(seg):\n    n = int(seg[0])\n    torch.bincount(seg)\n    probe(n)\n",
    "def f(data, x):\n    n = int(data.batch[-1]) + 1\n    scatter(x, data.batch, dim=0)\n    probe(n)\n",
])
def test_a_name_given_as_an_index_is_a_tensor(body: str) -> None:
    assert [f for f in flows(HEAD + body) if f[0] == "host"], body


@pytest.mark.parametrize("body", [
    # a distributed scatter's list, numpy's take, a dim given to gather: no index tensor
    "import torch.distributed as dist\ndef f(t, chunks):\n    n = int(chunks[-1])\n    dist.scatter(t, chunks)\n"
    "    probe(n)\n",
    "def f(x, d, idx: torch.Tensor):\n    n = int(d[0])\n    torch.gather(x, d, idx)\n    probe(n)\n",
    "def f(a, idx):\n    n = int(idx[-1])\n    np.take(a, idx)\n    probe(n)\n",
    "def f(data, cfg, x):\n    n = int(cfg.sizes[-1]) + 1\n    scatter(x, data.batch, dim=0)\n    probe(n)\n",
    "def f(data, x):\n    n = int(data.sizes[-1]) + 1\n    data = other(data)\n    scatter(x, data.sizes, dim=0)\n"
    "    probe(n)\n",
])
def test_no_index_tensor_without_evidence(body: str) -> None:
    assert not [f for f in flows(HEAD + body) if f[0] == "host"], body


@pytest.mark.parametrize(("body", "origin"), [
    # rows gathered by NMS's keep indices, through a literal tuple, a helper returning its parameter and its host copy
    ("from torchvision.ops import nms\ndef pad(b):\n    b = b.trunc().int().cpu().numpy()\n    return b[:, 1], b[:, 3]\n"
     "def rerec(b):\n    b[:, 0] = b[:, 0] + 1\n    return b\n"
     "def f(boxes, scores, inds):\n    keep = nms(boxes, scores, 0.5)\n    boxes, inds = boxes[keep], inds[keep]\n"
     "    y, ey = pad(rerec(boxes))\n    probe(len(y))\n", "len(y)"),
    # elementwise arithmetic of the kept boxes' columns, stacked and transposed back to one row per box
    ("def f(boxes):\n    b = boxes[boxes[:, 4] > 0.5]\n    w = b[:, 2] - b[:, 0]\n    x1 = b[:, 0] + w * 0.5\n"
     "    out = torch.stack([x1, b[:, 1]]).permute(1, 0)\n    probe(out.shape[0])\n", "out.shape[0]"),
    ("def f(x, keep_mask):\n    keep = keep_mask.nonzero().squeeze(1)\n    probe(x.index_select(0, keep).size(0))\n",
     "x.index_select(0, keep).size(0)"),
])
def test_length_of_rows_kept_by_the_data(body: str, origin: str) -> None:
    assert ("data_size", origin) in flows(HEAD + body)


@pytest.mark.parametrize("body", [
    # a helper returning its parameter given a tensor of fixed rows; rows gathered by an index of unknown origin
    "def rerec(b):\n    return b\ndef f(boxes):\n    probe(len(rerec(boxes)))\n",
    "def f(x, idx):\n    probe(len(x[idx]))\n",
    # broadcast against a tensor of other rows; a stack not transposed (one row per vector)
    "def f(a, b):\n    probe((a[:, None] - b[b > 0]).shape[0])\n",
    "def f(b):\n    probe(torch.stack([b[b > 0], b[b > 0]]).shape[0])\n",
])
def test_rows_not_kept_by_the_data(body: str) -> None:
    assert not [f for f in flows(HEAD + body) if f[0] == "data_size"]


@pytest.mark.parametrize(("body", "flavour"), [
    ("def f(boxes: torch.Tensor):\n    b = boxes.round().cpu().numpy()\n    probe(b[0, 1])\n", "host"),
    ("def f(boxes):\n    b = boxes.detach().cpu().numpy()\n    probe(int(b[0][3]))\n", "host"),
])
def test_numpy_copy_of_device_values_is_read_back(body: str, flavour: str) -> None:
    assert flavour in [f[0] for f in flows(HEAD + body)]


@pytest.mark.parametrize("body", [
    "def f(path):\n    b = torch.from_numpy(np.load(path)).numpy()\n    probe(b[0])\n",
    "def f():\n    b = torch.tensor([3, 4]).numpy()\n    probe(b[0])\n",
    "def f(a):\n    b = np.asarray(a)\n    probe(b[0])\n",
])
def test_numpy_arrays_that_hold_no_device_values(body: str) -> None:
    assert not [f for f in flows(HEAD + body) if f[0] == "host"]
