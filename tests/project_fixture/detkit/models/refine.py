import torch

from detkit.utils.checks import all_close, check_size, count_kept, wide


def refine(x: torch.Tensor, prev: torch.Tensor, cfg):
    if all_close(x, prev, 1e-3):
        return x
    if wide(cfg):
        print("wide")
    return x * 0.5 + prev * 0.5


class Cropper:
    def prepare(self, mask: torch.Tensor):
        self.n = count_kept(mask)  # expect: NPU403@17

    def crop(self, x: torch.Tensor):
        return x[:, :self.n]  # expect: NPU403@15


def grid(model: torch.nn.Module, size: int):
    gs = max(int(model.stride.max()), 32)   # the model's stride: configuration, passed to a helper that reads
    n = check_size(size, gs)                # its parameter only when it is a tensor
    return torch.zeros(n, n)
