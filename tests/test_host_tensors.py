"""Tensors that stay on the host (issue 14): a reader's result (``torchaudio.load``, ``torch.from_numpy``) until it is
moved, torch ops whose operands are all host tensors (``torch.cat`` of ``.cpu()`` results), a factory's tensor read
with ``.numpy()`` (here or by the caller of the function that returns it) or made without a device and moved later.
Their varying shapes and values compile nothing on the NPU. The moved values are device tensors and still fire."""
from __future__ import annotations

import pytest

from npu_lint.core import analyse_source
from npu_lint.versions import Target

H = "import numpy as np\nimport torch\nimport torchaudio\n"
_CODES = frozenset({"NPU402", "NPU403", "NPU405", "NPU407", "NPU409", "NPU413", "NPU414"})


def codes(source: str) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in analyse_source(H + source, Target("2.8.0"), codes=_CODES)]


@pytest.mark.parametrize("source", [
    # a clip loaded from disk and checked before any move
    "def f(p, target):\n    wav, sr = torchaudio.load(p)\n    if wav.abs().max() < target:\n        wav = wav * 2\n"
    "    return wav[:, wav.abs().sum(0) > 0]\n",
    "def f(p, model, device):\n    x = torch.from_numpy(np.load(p))\n    if x.max() > 1:\n        x = x / 255\n"
    "    return model(x[x > 0].to(device))\n",
    # a cast keeps it on the host
    "def f(p):\n    x = torch.from_numpy(np.load(p)).to(torch.float32)\n    return x[x > 0]\n",
    # outputs brought back to the host, then joined and selected
    "def f(model, loader):\n    outs = []\n    for x in loader:\n        outs.append(model(x).cpu())\n"
    "    stacked = torch.cat(outs)\n    return stacked[stacked > 0.5]\n",
    # a factory's tensor filled item by item and read with .numpy() (which a device tensor refuses)
    "def f(seqs, n, pad):\n    out = torch.ones((len(seqs), n), dtype=torch.int64)\n    for i, s in enumerate(seqs):\n"
    "        out[i, : len(s)] = torch.tensor(s)\n    keep = out[out != pad]\n    return out.numpy(), keep\n",
    # ... or by the caller of the function returning it (through a crop of itself)
    "def g(seqs, n, pad):\n    out = torch.zeros((len(seqs), n), dtype=torch.int64)\n    if out.max() > pad:\n"
    "        out = out[:, :5]\n    return out\n"
    "def f(seqs):\n    arr = g(seqs, 10, 0).numpy()\n    return arr\n",
    # labels made without a device, examined, then moved
    "def f(seqs, n, device):\n    labels = torch.full((len(seqs), n), -100, dtype=torch.long)\n"
    "    k = (labels != -100).sum()\n    if k > 0:\n        labels = labels[:, : int(k)]\n    return labels.to(device)\n",
    # returned to a caller of this file that moves it: ``lens`` lives on the host inside ``pad``
    "def pad(arr, tok):\n    lens = torch.LongTensor([len(a) for a in arr])\n"
    "    padded = torch.ones(len(arr), 8, dtype=torch.long) * tok\n    for i, a in enumerate(arr):\n"
    "        padded[i, : lens[i]] = torch.tensor(a)\n    return padded, lens\n"
    "def f(arr, device):\n    padded, lens = pad(arr, 0)\n    lens = lens.to(device=device)\n"
    "    padded = padded.to(device)\n    return padded, lens\n",
])
def test_host_tensors_are_silent(source):
    assert codes(source) == []


@pytest.mark.parametrize("source, expected", [
    # moved before the check: a device tensor
    ("def f(p, device, target):\n    wav, sr = torchaudio.load(p)\n    wav = wav.to(device)\n"
     "    if wav.abs().max() < target:\n        wav = torch.cat([wav, wav], 1)\n    return wav\n", [("NPU414", 7)]),
    ("def f(p):\n    x = torch.from_numpy(np.load(p)).npu()\n    return x[x > 0]\n", [("NPU402", 6)]),
    ("def f(p, device):\n    y = torch.from_numpy(np.load(p)).to(device=device)\n    return y[y > 0]\n",
     [("NPU402", 6)]),
    # one operand on the device: the op runs there
    ("def f(p, device):\n    y = torch.from_numpy(np.load(p)).to(device)\n    z = torch.cat([y, y.cpu()])\n"
     "    return z[z > 0]\n", [("NPU402", 7)]),
    # a factory's tensor handed to a model and never read as numpy; .tolist() reads a device tensor too
    ("def f(seqs, n, pad, model):\n    out = torch.ones((len(seqs), n), dtype=torch.int64)\n"
     "    keep = out[out != pad]\n    return model(out).tolist(), keep\n", [("NPU402", 6)]),
    ("def g(n, pad):\n    out = torch.zeros((2, n))\n    if out.max() > pad:\n        out = out[:, :5]\n    return out\n"
     "def f():\n    return g(10, 0).tolist()\n", [("NPU414", 6)]),
    # made on the device, or moved before the check
    ("def f(n, device):\n    labels = torch.full((2, n), -100, device=device)\n    k = (labels != -100).sum()\n"
     "    if k > 0:\n        labels = labels[:, : int(k)]\n    return labels.to(device)\n",
     [("NPU414", 7), ("NPU403", 8)]),
    ("def f(n, device):\n    labels = torch.full((2, n), -100)\n    labels = labels.to(device)\n"
     "    k = (labels != -100).sum()\n    if k > 0:\n        labels = labels[:, : int(k)]\n    return labels\n",
     [("NPU414", 8), ("NPU403", 9)]),
    # torch.as_tensor of a device tensor keeps it there
    ("def f(x, device):\n    y = torch.as_tensor(x.softmax(-1))\n    if y.max() > 0.5:\n        y = y.sum(0)\n"
     "    return y.to(device)\n", [("NPU414", 6)]),
    # the caller hands ``lens`` to a model unmoved: no evidence it stays on the host
    ("def pad(arr, tok):\n    lens = torch.LongTensor([len(a) for a in arr])\n"
     "    padded = torch.ones(len(arr), 8, dtype=torch.long) * tok\n    for i, a in enumerate(arr):\n"
     "        padded[i, : lens[i]] = torch.tensor(a)\n    return padded, lens\n"
     "def f(arr, model, device):\n    padded, lens = pad(arr, 0)\n    padded = padded.to(device)\n"
     "    return model(padded, lens)\n", [("NPU403", 8)]),
])
def test_device_tensors_fire(source, expected):
    assert codes(source) == expected


_OPS = frozenset({"NPU401", "NPU402"})


def op_codes(source: str) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in analyse_source("import cv2\nimport torch\n" + source, Target("2.8.0"), codes=_OPS)]


@pytest.mark.parametrize("source, expected", [
    # the retrieval metrics of an evaluation: logits brought to the host, kept in a dict, ranked per direction
    ("def metrics(a, t, scale):\n    per_a = (scale * a @ t.t()).detach().cpu()\n    per_t = per_a.t().detach().cpu()\n"
     "    logits = {'a2t': per_a, 't2a': per_t}\n    truth = torch.arange(len(t)).view(-1, 1)\n"
     "    for name, logit in logits.items():\n        ranking = torch.argsort(logit, descending=True)\n"
     "        preds = torch.where(ranking == truth)[1]\n    return preds\n", []),
    ("def f(x):\n    y = x.detach().cpu()\n    return torch.where(y > 0), torch.nonzero(y)\n", []),
    # the same over a dict of device outputs fires
    ("def f(model, x):\n    outs = {'a': model(x), 'b': model(x * 2)}\n    for name, out in outs.items():\n"
     "        yield torch.nonzero(out > 0)\n    for out in outs.values():\n        yield torch.where(out > 0)\n",
     [("NPU401", 6), ("NPU401", 8)]),
    # an inpainting result resized by OpenCV: the pixels pasted back into it are read on the host
    ("def paste(image, mask, result):\n    result = cv2.resize(result, (64, 64))\n    keep = mask < 127\n"
     "    result[keep] = image[:, :, ::-1][keep]\n    return result\n", []),
    ("def paste(image, mask, result):\n    keep = mask < 127\n    result[keep] = image[:, :, ::-1][keep]\n"
     "    return result\n", [("NPU402", 5)]),
])
def test_host_results_of_data_dependent_ops(source, expected):
    assert op_codes(source) == expected


@pytest.mark.parametrize("source, expected", [
    # text chunking over a list declared ``List[...]``: Python slicing, no tensor
    ("from typing import List\ndef cut(tokens: List[str], budget: int, marks: List[str]):\n    for w in marks:\n"
     "        z = next((i for i, t in enumerate(tokens) if t in w), None)\n        if z is None:\n            continue\n"
     "        z += 1\n        if z < len(tokens):\n            z += 1\n"
     "        if budget - len(''.join(tokens[:z])) <= 510:\n            return z\n    return len(tokens)\n", []),
    # the same cut of a tensor is a new shape per length
    ("def cut(tokens: torch.Tensor, budget: int, marks):\n    for w in marks:\n"
     "        z = next((i for i, t in enumerate(tokens) if t in w), None)\n        if z is None:\n            continue\n"
     "        z += 1\n        if z < len(tokens):\n            z += 1\n"
     "        if budget - tokens[:z].sum() <= 510:\n            return z\n    return len(tokens)\n", [("NPU412", 10)]),
])
def test_declared_lists_are_host(source, expected):
    found = [(f.code, f.line) for f in analyse_source("import torch\n" + source, Target("2.8.0"),
                                                       codes=frozenset({"NPU412", "NPU402", "NPU403"}))]
    assert found == expected


_ALL_DYNAMIC = frozenset({"NPU401", "NPU402", "NPU403", "NPU405", "NPU407", "NPU409", "NPU413", "NPU414"})


def dynamic_codes(source: str) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in analyse_source(H + source, Target("2.8.0"), codes=_ALL_DYNAMIC)]


@pytest.mark.parametrize("source", [
    # a tokenizer's output (return_tensors="pt") is made on the CPU: its fields are host tensors until moved
    "def spans(tokenizer, text, prefix):\n    enc = tokenizer(text, return_tensors='pt', return_offsets_mapping=True)\n"
    "    m = enc.offset_mapping[0, :, 0]\n    m = torch.cat([m, torch.tensor([len(text)])])\n"
    "    start = torch.where(m >= len(prefix))[0]\n    return enc.input_ids, start\n",
    "def ids(tok, msgs):\n    ids = tok.apply_chat_template(msgs, return_tensors='pt')\n    return ids[ids != 0]\n",
    "def ids(tok, text):\n    enc = tok(text, return_tensors='pt')\n    keep = torch.nonzero(enc['input_ids'] > 2)\n"
    "    return keep\n",
    # a host tensor's reduction along a dim: its values and indices stay on the host
    "def reps(scores, pad, n):\n    logits = torch.stack(scores, 1).cpu().max(-1)\n    indices = logits.indices\n"
    "    out = []\n    for b in range(n):\n        if (indices[b] == pad).any():\n            continue\n"
    "        out.append(b)\n    return out\n",
])
def test_host_outputs_are_silent(source):
    assert dynamic_codes(source) == []


@pytest.mark.parametrize("source, expected", [
    # moved to the device first: device tensors, still reported
    ("def ids(tok, text, device):\n    enc = tok(text, return_tensors='pt').to(device)\n"
     "    return torch.nonzero(enc['input_ids'] > 2)\n", [("NPU401", 6)]),
    ("def ids(tok, text, device):\n    ids = tok(text, return_tensors='pt').input_ids.to(device)\n"
     "    return ids[ids != 0]\n", [("NPU402", 6)]),
    # a reduction of a device tensor: its indices are on the device
    ("def reps(scores, pad, n):\n    indices = torch.stack(scores, 1).max(-1).indices\n"
     "    return torch.nonzero(indices == pad)\n", [("NPU401", 6)]),
])
def test_moved_outputs_still_fire(source, expected):
    assert dynamic_codes(source) == expected
