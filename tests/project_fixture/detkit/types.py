"""Type aliases the package re-exports (``Tensor`` is torch's class under the package's name)."""
import torch

Tensor = torch.Tensor
