import torch
import torch.nn as nn

from .base import BaseDetector


class Detector(BaseDetector):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(16, 4)

    def forward(self, images):
        return self.head(self.extract(images))

    def encode(self, rows):
        # a padding method of the base class in another module; one given the length it pads to
        x, mask = self.padding2d(rows)  # expect: NPU405@18
        fixed = self.pad_codes(rows, 64)
        return torch.tensor(x), mask, fixed
