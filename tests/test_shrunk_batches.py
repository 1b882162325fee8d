"""Session 33 (rec33b): a batch re-indexed by positions whose count the data decides (beam search dropping the
finished sentences, rows picked by a mask), reported by NPU402 at each re-indexing line; and the tensors the
configuration model must not call fixed (a configuration tensor picked by a data index, a host nonzero made a
tensor, a zeros buffer accumulated into)."""
from __future__ import annotations

from npu_lint.core import analyse_source
from npu_lint.versions import Target


def _lines(source: str, code: str = "NPU402") -> list[int]:
    return sorted({f.line for f in analyse_source(source, Target("2.8.0"), codes=frozenset({code}))})


MASKED_SELECT = '''import torch


def shrink(x, eos_mask, scores, finished, bsz):
    batch_mask = torch.ones(bsz, dtype=torch.bool, device=x.device)
    batch_mask[finished] = False
    batch_idxs = torch.arange(bsz, device=x.device).masked_select(batch_mask)
    eos_mask = eos_mask[batch_idxs]
    scores = scores.view(bsz, -1)[batch_idxs]
    return eos_mask, scores
'''


def test_masked_select_positions_index_every_line():
    assert _lines(MASKED_SELECT) == [8, 9]


PICKED = '''import torch


def pick(x, keep: torch.Tensor, bsz):
    idx = torch.arange(bsz, device=x.device)[keep > 0]
    return x[idx]


def taken(x, enc, ids, flags):
    unfinished = flags.eq(False).nonzero().view(-1)
    batch_index = ids.index_select(0, unfinished)
    select = batch_index.view(-1)
    return enc.index_select(0, select), x.gather(0, unfinished)
'''


def test_rows_picked_by_a_mask_or_positions_are_positions():
    assert _lines(PICKED) == [5, 6, 11, 13]


FIELD = '''import torch


class Greedy:
    def update(self, topk_ids):
        non_finished = [b for b, fin in enumerate(topk_ids.eq(2).tolist()) if not fin[0]]
        self.select_indices = torch.tensor(non_finished, device=topk_ids.device)
        self.alive_seq = self.alive_seq[self.select_indices]
        if self.alive_attn is not None:
            self.alive_attn = self.alive_attn[self.select_indices]

    def reset(self, n):
        self.select_indices = torch.arange(n)
'''


def test_field_stored_above_in_the_same_function():
    assert _lines(FIELD) == [8, 10]


SILENT = '''import torch


def fixed(x, n):
    idx = torch.arange(n, device=x.device)[torch.arange(n) % 2 == 0]
    return x[idx]


def arange_picked_by_constant(x, n):
    idx = torch.arange(n, device=x.device)[1:]
    return x[idx]


class Greedy:
    def update(self, n, flag):
        if flag:
            self.select_indices = torch.tensor([i for i, f in enumerate(self.fin.tolist()) if f])
        self.alive_seq = self.alive_seq[self.select_indices]

    def reset(self, n):
        self.select_indices = torch.arange(n)


def gathered(x, labels):
    return x.gather(1, labels.unsqueeze(1))


def weights(x, n):
    w = torch.zeros(n, device=x.device)
    w[0] = 1.0
    out = x.clone()
    out[w == 0] = -1
    return out
'''


def test_fixed_or_undecided_indices_stay_silent():
    assert _lines(SILENT) == []


ACCUMULATED = '''import torch


def vote(spikes, n_samples, n_labels):
    rates = torch.zeros((n_samples, n_labels), device=spikes.device)
    for i in range(n_labels):
        rates[:, i] += torch.sum(spikes[:, i], 1)
    predictions = torch.sort(rates, dim=1, descending=True)[1][:, 0]
    predictions[rates.sum(1) == 0] = -1
    return predictions
'''


def test_buffer_accumulated_into_holds_data():
    assert _lines(ACCUMULATED) == [9]


LATER = '''import torch


def pull(self, idx):
    cpu_idx = idx.cpu()
    cpu_mask = self.bitmap[cpu_idx]
    cpu_idx = cpu_idx[cpu_mask]
    cpu_idx = torch.unique(cpu_idx)
    return self.emb[cpu_idx]


def looped(x, idx, n):
    for _ in range(n):
        x = x + x[idx]
        idx = torch.unique(idx)
    return x
'''


def test_an_assignment_further_down_reaches_only_through_a_loop():
    assert _lines(LATER) == [9, 14]
