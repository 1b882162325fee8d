"""NPU414 at the line that reads a flag back from a tensor, beside the branch on it; NPU408's general cache forms."""
from npu_lint.core import analyse_source


def _lines(source, code):
    return sorted(f.line for f in analyse_source(source, codes=frozenset({code})) if f.code == code)


def test_flag_read_back_reported_at_its_line_and_the_branch():
    source = ("import torch\ndef shift(trg: torch.Tensor, eos: int):\n"
              "    has_eos = torch.any(trg == eos).item()\n"
              "    out = trg[:, :-1] if has_eos else trg\n"
              "    if has_eos:\n        out = torch.cat([out, out])\n    return out\n")
    assert _lines(source, "NPU414") == [3, 4, 5]


def test_guard_flag_and_host_flag_not_reported_at_their_lines():
    guard = ("import torch\ndef f(loss: torch.Tensor):\n    bad = bool(torch.isnan(loss).any())\n    if bad:\n"
             "        loss = torch.zeros_like(loss)\n    return loss\n")
    assert 3 not in _lines(guard, "NPU414")
    host = ("import torch\ndef f(x: torch.Tensor, n: int):\n    big = n > 3\n    if big:\n        x = x * 2\n"
            "    return x\n")
    assert _lines(host, "NPU414") == []


def test_cache_forms():
    in_place = ("import torch\ndef answer(model, ids, cache, n):\n    out = [ids[:, -1:]]\n    for i in range(n):\n"
                "        o = model(input_ids=out[-1], past_key_values=cache)\n"
                "        out.append(o.logits[:, -1:].argmax(-1))\n    return out\n")
    assert _lines(in_place, "NPU408") == [5]
    layer_past = ("import torch\nclass Attn:\n    def forward(self, x, layer_past=None):\n"
                  "        k, v = self.key(x), self.value(x)\n        present = torch.stack((k, v))\n"
                  "        if layer_past is not None:\n            past_key, past_value = layer_past\n"
                  "            k = torch.cat((past_key, k), dim=-2)\n            v = torch.cat((past_value, v), dim=-2)\n"
                  "        return self.attn(x, k, v), present\n")
    assert _lines(layer_past, "NPU408") == [8, 9]


def test_stop_token_read_back_reported_at_its_line():
    # session 33: ``tok = sampled.item()`` then ``if tok == eos: break``: the read line and the stop test
    source = ("import torch\ndef decode(step, x: torch.Tensor, n, eos):\n    out = []\n    for i in range(n):\n"
              "        sampled = torch.argmax(step(x), -1)\n        tok = sampled.item()\n        if tok == eos:\n"
              "            break\n        out.append(sampled)\n    return out\n")
    assert _lines(source, "NPU413") == [6, 7]
    # a value read otherwise (a reduction kept as a tensor) is the test's alone; a host list's item is no read
    kept = source.replace("tok = sampled.item()", "tok = sampled.max()")
    assert _lines(kept, "NPU413") == [7]
    host = ("import torch\ndef decode(xs, n, eos):\n    for i in range(n):\n        tok = xs[i]\n"
            "        if tok == eos:\n            break\n        print(torch.zeros(i))\n")
    assert _lines(host, "NPU413") == []


def test_read_back_compared_with_a_size_is_not_a_stop_token():
    # ``total = cu[-1].item()`` compared with ``value.numel()``: a shape test, the read line left alone
    source = ("import torch\ndef split(batch, cu: torch.Tensor, a, b):\n    total = cu[-1].item()\n    out = {}\n"
              "    for key, value in batch.items():\n        if value.numel() == total:\n"
              "            out[key] = value[a:b]\n            continue\n        out[key] = value\n    return out\n")
    assert 3 not in _lines(source, "NPU413")
    # a ``while`` loop left on the token read back
    loop = ("import torch\ndef decode(step, x: torch.Tensor, eos):\n    while True:\n"
            "        sampled = torch.argmax(step(x), -1)\n        tok = sampled.item()\n        if tok == eos:\n"
            "            break\n        x = torch.cat([x, sampled])\n    return x\n")
    assert 5 in _lines(loop, "NPU413")
