import torch

from detkit.utils.checks import all_close, wide


def refine(x: torch.Tensor, prev: torch.Tensor, cfg):
    if all_close(x, prev, 1e-3):
        return x
    if wide(cfg):
        print("wide")
    return x * 0.5 + prev * 0.5
