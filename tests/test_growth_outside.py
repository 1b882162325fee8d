"""NPU408 (session 25): the sequence a loop of steps grows, joined outside that loop (growth_outside.py), and a
prefix up to a counter the loop advances itself (growth_counters.py), at their lines."""
from npu_lint.core import analyse_source


def _lines(source):
    return sorted(f.line for f in analyse_source(source, codes=frozenset({"NPU408"})) if f.code == "NPU408")


def test_seed_before_the_loop_and_the_loop_join():
    source = ("import torch\ndef generate(model, prompt, n):\n    gen = prompt\n    tok = model(prompt)\n"
              "    gen = torch.cat([gen, tok], dim=-1)\n    for _ in range(n - 1):\n        tok = model(gen)\n"
              "        gen = torch.cat([gen, tok], dim=-1)\n    return gen\n")
    assert _lines(source) == [5, 8]


def test_no_seed_under_a_test_or_in_an_outer_loop_or_of_three_pieces():
    tested = ("import torch\ndef f(pyr, x, n, p):\n    if p < n:\n        x = torch.cat((x, pyr[p]), -1)\n"
              "    for i in range(n):\n        x = torch.cat((x, pyr[i]), -1)\n    return x\n")
    assert _lines(tested) == [6]
    windows = ("import torch\ndef f(model, sem, coarse, n, m):\n    for _ in range(n):\n"
               "        x = torch.hstack([sem, coarse[:, -8:]])\n        x = torch.hstack([x, coarse[:, -4:]])\n"
               "        for _ in range(m):\n            x = torch.cat([x, model(x)], 1)\n        coarse = x\n"
               "    return coarse\n")
    assert _lines(windows) == [7]
    three = ("import torch\ndef f(model, x, tok, pad, n):\n    x = torch.cat([x, tok, pad], 1)\n"
             "    for _ in range(n):\n        x = torch.cat([x, model(x)], 1)\n    return x\n")
    assert _lines(three) == [5]


def test_whole_sequence_after_the_loop_only_when_fed_back():
    fed = ("import torch\ndef gen(model, states, n):\n    for _ in range(n):\n        for st in states:\n"
           "            y = model(torch.cat(st.ids, dim=-1))\n"
           "        states = [State(last=y, ids=st.ids + [y]) for st in states]\n"
           "    for st in states:\n        out = torch.cat(st.ids, dim=-1)\n    return out\n")
    assert _lines(fed) == [5, 8]
    unfed = ("import torch\ndef gen(model, states, n):\n    for _ in range(n):\n"
             "        states = [State(last=model(s.last), ids=s.ids + [s.last]) for s in states]\n"
             "    return [torch.cat(s.ids, -1) for s in states]\n")
    assert _lines(unfed) == []


def test_prefix_up_to_an_advanced_counter():
    source = ("import torch\ndef gen(model, toks, pos, masks, n, p):\n    cur = p\n    for _ in range(n):\n"
              "        y = model(toks, pos[:, :cur + 1], masks[:, :cur + 1, :cur + 1])\n        cur += 1\n"
              "    return y\n")
    assert _lines(source) == [5, 5]   # pos's slice and the mask's
    window = ("import torch\ndef f(model, ids, n):\n    start, pos = 0, 4\n    while pos < n:\n"
              "        y = model(ids[:, start:pos])\n        start = pos\n        pos += 4\n    return y\n")
    assert _lines(window) == []


def test_no_after_join_of_a_list_made_per_step_or_bound_again():
    source = ("import torch\ndef f(cams, interp, mode, render):\n    if mode:\n        rows = []\n"
              "        for b in range(cams.shape[0]):\n            cur = []\n            for i in range(4):\n"
              "                cur.append(interp(cams[b, i]))\n            rows.append(torch.cat(cur))\n"
              "        cur = torch.stack(rows)\n    else:\n        cur = []\n        for b in range(cams.shape[0]):\n"
              "            cur.append(render(cams[b]))\n        cur = torch.stack(cur)\n    return cur\n")
    assert 15 not in _lines(source)


def test_a_length_read_from_the_grown_sequence_at_each_step():
    """TerraMind's decoding loop: ``cur_len = out.shape[1]`` at the top of a loop that ends with ``out = cat((out,
    nxt))``: the prefix up to it and the causal mask of its size grow with the sequence. Must not: the length read
    once before the loop, a window whose start moves with its end, the batch axis, a length bound twice in the loop."""
    grows = ("import torch\ndef gen(model, out, emb, mask, n):\n    for i in range(n):\n        cur_len = out.shape[1]\n"
             "        y = model(out) + emb[:, :cur_len]\n        causal = torch.ones((cur_len, cur_len)).triu(1)\n"
             "        y = model.dec(y, causal, mask[:, :out.size(-1)])\n        nxt = y[:, -1:].argmax(-1)\n"
             "        out = torch.cat((out, nxt), dim=-1)\n    return out\n")
    assert _lines(grows) == [5, 6, 7, 9]
    before = ("import torch\ndef gen(model, out, emb, n):\n    cur_len = out.shape[1]\n    for i in range(n):\n"
              "        y = model(out) + emb[:, :cur_len]\n        out = torch.cat((out, y[:, -1:]), dim=-1)\n"
              "    return out\n")
    assert _lines(before) == [6]
    window = ("import torch\ndef gen(model, out, emb, n):\n    for i in range(n):\n        cur_len = out.shape[1]\n"
              "        y = model(out[:, -1:]) + emb[:, cur_len - 1:cur_len]\n        out = torch.cat((out, y), dim=-1)\n"
              "    return out\n")
    assert _lines(window) == [6]
    batch = ("import torch\ndef gen(model, out, n):\n    for i in range(n):\n"
             "        pad = torch.ones((out.shape[0], 1), dtype=torch.long)\n        rows = out[:len(out)]\n"
             "        out = torch.cat((out, model(rows) * pad), dim=1)\n    return out\n")
    assert _lines(batch) == [6]   # the batch axis of a sequence grown along axis 1
    afresh = ("import torch\ndef f(features, n):\n    for name in range(n):\n        feats = features[name]\n"
              "        feats = torch.cat([feats, torch.zeros(feats.shape[0], 1)], dim=1)\n"
              "        loops = torch.zeros(n, feats.shape[1])\n    return loops\n")
    assert _lines(afresh) == []   # DGL-LifeSci's featurizer: read afresh each iteration, one column more each time
    twice = ("import torch\ndef gen(model, out, emb, n):\n    for i in range(n):\n        cur_len = out.shape[1]\n"
             "        if cur_len > 8:\n            cur_len = 8\n        y = model(out) + emb[:, :cur_len]\n"
             "        out = torch.cat((out, y[:, -1:]), dim=-1)\n    return out\n")
    assert _lines(twice) == [8]


def test_a_kept_item_grown_in_either_arm_of_a_test_and_not_reset_in_sequence():
    """Cutie's memory store: ``d[k] = cat([new, d[k]])`` or ``cat([d[k], new])`` by ``prepend``, both reported (the
    other arm is an alternative, not a reset); must not: the item set afresh earlier in the same call."""
    arms = ("import torch\ndef add(d, key, new, prepend=False):\n    if key in d:\n        if prepend:\n"
            "            d[key] = torch.cat([new, d[key]], -1)\n        else:\n            d[key] = torch.cat([d[key], new], -1)\n"
            "    else:\n        d[key] = new\n")
    assert _lines(arms) == [5, 7]
    reset = ("import torch\ndef add(d, key, new, head):\n    d[key] = head\n    d[key] = torch.cat([d[key], new], -1)\n")
    assert _lines(reset) == []
