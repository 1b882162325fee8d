import math

import torch


def all_close(a: torch.Tensor, b: torch.Tensor, tol: float) -> bool:
    """A value read back from the device: a branch on it is a host sync."""
    return bool(((a - b).abs() < tol).all())


def wide(cfg) -> bool:
    return cfg.width > 3


def count_kept(keep_mask):
    """A count read back from the data (``int`` of a sum): a size at every call of another module."""
    return int(keep_mask.sum())


def error_ratio(y_full, y_half, rtol: float) -> float:
    """A scalar read back through a host copy (``.cpu().item()``: the copy is the sync)."""
    err = ((y_full - y_half).abs() / rtol).max()
    return err.detach().cpu().item()


def make_divisible(x, divisor):
    """A read of its own parameter, only when a tensor is passed (``isinstance``): no size read of its callers'."""
    if isinstance(divisor, torch.Tensor):
        divisor = int(divisor.max())
    return math.ceil(x / divisor) * divisor


def check_size(size, s=32):
    return max(make_divisible(size, int(s)), s)
