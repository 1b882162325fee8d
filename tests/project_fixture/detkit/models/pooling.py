import torch

import detkit.ops.scatter as snn


def pool(y, idx_m: torch.Tensor):
    maxm = int(idx_m[-1]) + 1  # expect: NPU403@11
    y = snn.scatter_add(y, idx_m, dim_size=maxm)  # expect: NPU403@8
    counts = snn.count_per(idx_m, maxm)
    fixed = snn.scatter_add(y, idx_m, y.shape[0])
    return y, counts, fixed
