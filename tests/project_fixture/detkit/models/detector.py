import torch.nn as nn

from .base import BaseDetector


class Detector(BaseDetector):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(16, 4)

    def forward(self, images):
        return self.head(self.extract(images))
