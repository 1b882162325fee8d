import torch


def scatter_add(x: torch.Tensor, idx_i: torch.Tensor, dim_size: int, dim: int = 0) -> torch.Tensor:
    return _scatter_add(x, idx_i, dim_size, dim)


def _scatter_add(x, idx_i, dim_size, dim=0):
    shape = list(x.shape)
    shape[dim] = dim_size
    tmp = torch.zeros(shape, dtype=x.dtype, device=x.device)
    return tmp.index_add(dim, idx_i, x)


def count_per(idx_i, n):
    print(n)
    return idx_i.new_ones(idx_i.shape[0])


def scatter_sum(src: torch.Tensor, index: torch.Tensor, dim: int = 0, dim_size=None) -> torch.Tensor:
    """A vendored ``torch_scatter.scatter_sum``: sized by the largest index when ``dim_size`` is left out."""
    if dim_size is None:
        dim_size = int(index.max()) + 1  # expect: NPU403@19
    shape = list(src.shape)
    shape[dim] = dim_size
    return torch.zeros(shape, dtype=src.dtype, device=src.device).index_add_(dim, index, src)  # expect: NPU403@11
