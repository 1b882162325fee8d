"""NPU402 in a helper of another module given a mask (nanorlhf's ``accumulate_ppo_micro_metrics(...,
micro_loss_mask=micro_loss_mask)``): the caller's ``n = mask.sum().to(device)`` moves a count, not the mask, so the
mask passed stays a mask (session 32); a mask the caller itself moves to the device afterwards is still passed as
one where it is made on the device."""
from __future__ import annotations

from pathlib import Path

from conftest import package_findings

METRICS = '''import torch


def accumulate(ratio: torch.Tensor, micro_loss_mask: torch.Tensor):
    mask = micro_loss_mask
    return ratio[mask].mean()


def gathered(ratio: torch.Tensor, index: torch.Tensor):
    return ratio[index].mean()
'''
WORKER = '''import torch

from pkg.metrics import accumulate, gathered


class Worker:
    def step(self, micro_batches, device):
        for micro_batch in micro_batches:
            micro_loss_mask = micro_batch["loss_mask"].to(torch.bool)
            valid_tokens = micro_loss_mask.sum().to(device).float()
            ratio = self.model(micro_batch["input_ids"])
            accumulate(ratio, micro_loss_mask=micro_loss_mask)
            order = micro_batch["order"].long()
            total = order.sum().to(device)
            gathered(ratio, order)
            return valid_tokens, total
'''


def test_a_count_moved_leaves_the_mask_a_mask(tmp_path: Path) -> None:
    found = package_findings(tmp_path, {"metrics": METRICS, "worker": WORKER})
    assert ("metrics.py", 6, "NPU402") in found
    assert not any(name == "metrics.py" and line == 10 for name, line, _ in found)   # an index, not a mask
