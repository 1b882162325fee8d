import torch

import detkit.ops.scatter as snn


def pool(y, idx_m: torch.Tensor):
    maxm = int(idx_m[-1]) + 1  # expect: NPU403@11
    y = snn.scatter_add(y, idx_m, dim_size=maxm)  # expect: NPU403@8
    counts = snn.count_per(idx_m, maxm)
    fixed = snn.scatter_add(y, idx_m, y.shape[0])
    return y, counts, fixed


def readout(h: torch.Tensor, batch: torch.Tensor, num_graphs: int):
    per_graph = snn.scatter_sum(h, batch)  # expect: NPU403@16
    given = snn.scatter_sum(h, batch, 0, num_graphs)
    named = snn.scatter_sum(h, batch, dim_size=num_graphs)
    return per_graph[:, :8], given, named
