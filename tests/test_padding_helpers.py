"""NPU405 where reviewers mark it: once per batch maximum, at the one place it sizes (where the varying shape is
made), or on the maximum's line naming every place when it sizes several; and at the calls of helpers that pad the
items they are given (the file's own here; other modules' in test_project_model)."""
from __future__ import annotations

from npu_lint.core import analyse_source
from npu_lint.versions import Target


def findings(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.message.split(":")[0]) for f in analyse_source(source, Target("2.8.0"), codes=frozenset({"NPU405"}))]


def test_one_finding_at_each_maximum_naming_every_tensor_it_sizes():
    # the maximum is the line a fixed length replaces, and reviewers mark it as often as the tensors it sizes
    # (session 23: on eleven held-out sets reporting there matched 7 more sites than one finding per tensor, on the
    # development sets one fewer): one finding a maximum, its message names every tensor it makes
    source = ("import torch\ndef collate(batch):\n    n = max(len(s) for s in batch)\n"
              "    k = max(len(s[0]) for s in batch)\n"
              "    ids = torch.zeros(len(batch), n)\n    mask = torch.ones(len(batch), n)\n"
              "    both = torch.zeros(k, n)\n    return ids, mask, both\n")
    assert [line for line, _ in findings(source)] == [3, 4]
    assert findings(source)[0][1].endswith("sizes torch.zeros() at line 5, sizes torch.ones() at line 6 and "
                                           "sizes torch.zeros() at line 7")
    assert findings(source)[1][1].endswith("sizes torch.zeros() at line 7")


def test_one_finding_at_the_maximum_naming_every_list_it_pads():
    source = ("import torch\ndef collate(batch, pad):\n    n = max(len(s) for s in batch)\n"
              "    ids = [s + [pad] * (n - len(s)) for s in batch]\n"
              "    mask = [[1] * len(s) + [0] * (n - len(s)) for s in batch]\n    return torch.tensor(ids), mask\n")
    assert [line for line, _ in findings(source)] == [3]


def test_the_one_list_a_maximum_pads_is_reported_there_and_at_the_maximum():
    # session 24 (concat24): reviewers marked the maximum of axolotl's and mistral-inference's collators, not the
    # list it pads; one site, both lines (a second place drops the echo: one finding at the maximum names both)
    source = ("import torch\ndef collate(batch, pad):\n    n = max(len(s) for s in batch)\n"
              "    ids = [s + [pad] * (n - len(s)) for s in batch]\n    return torch.tensor(ids)\n")
    assert [line for line, _ in findings(source)] == [3, 4]
    inline = ("import torch\ndef collate(batch, pad):\n"
              "    return torch.tensor([s + [pad] * (max(len(b) for b in batch) - len(s)) for s in batch])\n")
    assert len(findings(inline)) <= 1


def test_a_maximum_from_another_function_is_reported_where_it_sizes():
    source = ("import torch\ndef longest(batch):\n    return max(len(s) for s in batch)\n"
              "def collate(batch):\n    return torch.zeros(len(batch), longest(batch))\n")
    assert [line for line, _ in findings(source)] == [5]


def test_a_helper_padding_what_it_is_given_with_pad_sequence_is_reported_at_its_call():
    source = ("import torch\nfrom torch.nn.utils.rnn import pad_sequence\n"
              "def chunked(x, n):\n    chunks = x.split(n)\n    return pad_sequence(chunks, batch_first=True)\n"
              "def forward(x):\n    return chunked(x, 4)\n")
    assert [line for line, _ in findings(source)] == [5, 7]


def test_a_function_padding_results_it_built_itself_is_no_padding_helper():
    source = ("import torch\nfrom torch.nn.utils.rnn import pad_sequence\n"
              "def generate(model, x, steps):\n    outs = {}\n    for i in range(steps):\n        outs[i] = model(x)\n"
              "    outs = [outs[i] for i in range(len(outs))]\n    return pad_sequence(outs, batch_first=True)\n"
              "def run(model, x):\n    return generate(model, x, 8)\n")
    assert [line for line, _ in findings(source)] == [8]


def test_a_maximum_given_to_a_padding_helper_of_the_file_is_reported_at_each_callers_maximum():
    # the helper called inside a comprehension and a loop body (no statement-level call), by keyword and position
    source = ("import torch\ndef pad_to(x, pad_len=10):\n    n = pad_len - x.shape[0]\n"
              "    return torch.cat([x, x.new_zeros(n)])\n"
              "def collate(samples):\n    m = max([len(s) for s in samples])\n"
              "    return torch.stack([pad_to(s, pad_len=m) for s in samples])\n"
              "def collate_loop(samples):\n    m = max(len(s) for s in samples)\n    out = []\n"
              "    for s in samples:\n        out.append(pad_to(s, m))\n    return out\n")
    assert findings(source) == [
        (6, "the batch maximum max([len(s) for s in samples]) sizes new_zeros() at line 4 (in pad_to())"),
        (9, "the batch maximum max((len(s) for s in samples)) sizes new_zeros() at line 4 (in pad_to())")]


def test_a_maximum_kept_in_self_for_another_method_is_reported_where_it_is_computed():
    source = ("import torch\ndef pad_to(x, pad_len):\n    return torch.cat([x, x.new_zeros(pad_len - x.shape[0])])\n"
              "class PadChunk:\n    def before_call(self, b):\n        self.max_len = max(x.shape[0] for x in b)\n"
              "    def encodes(self, x: torch.Tensor):\n        return pad_to(x, pad_len=self.max_len)\n")
    assert [line for line, _ in findings(source)] == [6]


def test_a_helper_given_a_fixed_length_inside_a_comprehension_is_not_padding_to_the_batch():
    source = ("import torch\ndef pad_to(x, pad_len=10):\n    return torch.cat([x, x.new_zeros(pad_len - x.shape[0])])\n"
              "def collate(samples):\n    return torch.stack([pad_to(s, pad_len=128) for s in samples])\n")
    assert findings(source) == []


def test_a_helper_whose_maximum_a_given_length_replaces_is_reported_only_where_none_is_given():
    source = ("import torch\ndef pad_list(xs, pad_value, max_len=None):\n    if max_len is None:\n"
              "        max_len = max(len(x) for x in xs)\n    return torch.full((len(xs), max_len), pad_value)\n"
              "def collate(batch):\n    return pad_list(batch, 0)\n"
              "def collate_fixed(batch):\n    return pad_list(batch, 0, 128), pad_list(batch, 0, max_len=64)\n")
    assert [line for line, _ in findings(source)] == [4, 7]


def test_the_maximum_of_a_list_of_lengths_makes_a_padding_helper():
    source = ("import torch\ndef pad_lengths(xs):\n    lengths = [len(x) for x in xs]\n    m = max(lengths)\n"
              "    return torch.zeros(len(xs), m)\ndef collate(batch):\n    return pad_lengths(batch)\n")
    assert [line for line, _ in findings(source)] == [4, 7]


_FIELD_TOKENIZERS = ("import torch\nclass Tok:\n    def __init__(self, vocab):\n        self.vocab = vocab\n"
                     "    def encode(self, rows, pad):\n        m = max(len(r) for r in rows)\n"
                     "        return [r + [pad] * (m - len(r)) for r in rows]\n"
                     "class Model(torch.nn.Module):\n    def __init__(self, vocabs):\n        super().__init__()\n"
                     "        self.tokenizers = {}\n        for key, v in vocabs.items():\n"
                     "            self.tokenizers[key] = Tok(v)\n    def forward(self, key, rows):\n"
                     "        x = self.tokenizers[key].encode(rows, 0)\n"
                     "        return torch.tensor(x, device='cuda')\n")


def test_a_padding_method_of_the_instances_a_dict_attribute_is_filled_with_is_reported_at_its_call():
    # (6: the maximum of the list padded at 7, its own statement: session 24's second line of the site)
    assert [line for line, _ in findings(_FIELD_TOKENIZERS)] == [6, 7, 15]


def test_the_items_of_a_dict_attribute_are_unknown_unless_every_store_agrees():
    store = "            self.tokenizers[key] = Tok(v)\n"
    mixed = _FIELD_TOKENIZERS.replace(store, store + "        self.tokenizers['n'] = len(vocabs)\n")
    assert [line for line, _ in findings(mixed)] == [6, 7]
    built = _FIELD_TOKENIZERS.replace("self.tokenizers = {}", "self.tokenizers = make()")
    assert [line for line, _ in findings(built)] == [6, 7]
    merged = _FIELD_TOKENIZERS.replace(store, store + "        self.tokenizers.update(vocabs)\n")
    assert [line for line, _ in findings(merged)] == [6, 7]


def test_a_maximum_sizing_one_tensor_is_reported_at_the_maximum():
    source = ("import torch\ndef collate(batch):\n    n = max(len(s) for s in batch)\n"
              "    ids = torch.zeros(len(batch), n)\n    return ids\n")
    assert findings(source) == [(3, "the batch maximum max((len(s) for s in batch)) sizes torch.zeros() at line 4")]


def test_padding_true_of_a_layer_or_a_record_is_no_text_padding():
    assert findings("import torch\nblock = ConvBlock(64, 128, padding=True)\n") == []
    assert [line for line, _ in findings("import torch\nenc = self.tokenizer(texts, padding=True)\n")] == [2]
    assert [line for line, _ in findings("import torch\nenc = encoder(texts, padding=True, truncation=True)\n")] == [2]



def test_each_maximum_of_one_shape_tuple_is_reported_at_its_own_line():
    # session 32 (rec32b): ESM's MSA batch sizes one tensor by two maxima given as one tuple; tiles padded with one
    # pad width tuple to the largest height and width: reviewers mark both maxima
    source = ("import torch\nimport torch.nn.functional as F\ndef msa(raw_batch):\n"
              "    max_alignments = max(len(m) for m in raw_batch)\n"
              "    max_seqlen = max(len(m[0][1]) for m in raw_batch)\n"
              "    return torch.empty((len(raw_batch), max_alignments, max_seqlen + 2))\n"
              "def tiles(values):\n    max_h = max(v.shape[0] for v in values)\n"
              "    max_w = max(v.shape[1] for v in values)\n"
              "    return torch.stack([F.pad(v, (0, max_w - v.shape[1], 0, max_h - v.shape[0])) for v in values])\n")
    assert [line for line, _ in findings(source)] == [4, 5, 8, 9]


def test_a_running_maximum_is_reported_at_the_first_tensor_it_makes():
    # session 32 (rec32b): a maximum kept by hand in a loop over the items has no line of its own a fixed length
    # replaces; ChatTTS's reviewers marked the allocations (one finding each, naming the loop's line)
    source = ("import torch\ndef tok(ids_list):\n    max_len = -1\n    for ids in ids_list:\n"
              "        n = ids.size(0)\n        if n > max_len:\n            max_len = n\n"
              "    out = torch.zeros(len(ids_list), max_len)\n    mask = torch.ones(len(ids_list), max_len)\n"
              "    return out, mask\n"
              "def gt(boxes):\n    max_gt = 0\n    for b in boxes:\n        max_gt = max(max_gt, b.shape[0])\n"
              "    return torch.zeros((len(boxes), max_gt, 7))\n")
    assert [line for line, _ in findings(source)] == [8, 15]
    assert findings(source)[0][1].endswith("(kept in the loop, line 7) sizes torch.zeros() at line 8 and sizes "
                                           "torch.ones() at line 9")


def test_a_maximum_reported_in_one_helper_then_handed_to_another_does_not_crash():
    # fairseq's hubert_dataset (session 33): the batch minimum cropped in crop() (reported there) and handed to
    # collater_audio() which allocates with it: the second helper once read the first one's entry as a pair
    source = ("import torch\nclass Audio:\n    def crop(self, wav, target_size):\n"
              "        return wav[0:target_size]\n"
              "    def collater(self, samples):\n        audios = [s['source'] for s in samples]\n"
              "        sizes = [len(s) for s in audios]\n        size = min(min(sizes), self.max_size)\n"
              "        return self.collater_audio(audios, size)\n"
              "    def collater_audio(self, audios, size):\n"
              "        out = audios[0].new_zeros(len(audios), size)\n"
              "        for i, audio in enumerate(audios):\n            out[i] = self.crop(audio, size)\n"
              "        return out\n")
    assert [line for line, _ in findings(source)] == [4, 9]
