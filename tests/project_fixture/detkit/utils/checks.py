import torch


def all_close(a: torch.Tensor, b: torch.Tensor, tol: float) -> bool:
    """A value read back from the device: a branch on it is a host sync."""
    return bool(((a - b).abs() < tol).all())


def wide(cfg) -> bool:
    return cfg.width > 3
