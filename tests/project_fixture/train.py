import torch

from detkit import Detector, positive_indices
from detkit.utils.dtw import dtw_cuda


def train(loader, epochs):
    model = Detector()
    model.share_memory()  # expect: NPU101@4
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(epochs):
        for images, labels in loader:
            loss = model(images).sum()
            pos = positive_indices(labels)  # expect: NPU401@18
            loss = loss + pos.numel()
            loss.backward()
            optimizer.step()  # expect: NPU101@12
    return dtw_cuda([1, 2], [1, 3])
