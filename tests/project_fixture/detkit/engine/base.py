"""A trainer base class whose attributes are declared by annotations (read by engine/loop.py)."""
from typing import Iterator, NamedTuple, Optional

import numpy as np
import torch as th

from detkit.models.detector import Detector


class Batch(NamedTuple):
    images: th.Tensor
    labels: th.Tensor


class Anchors:
    def expand(self, n: int) -> "Anchors":
        return self


class BaseTrainer:
    optimizer: th.optim.Optimizer
    model: Detector

    def __init__(self, amp: bool):
        self.teacher = Detector()
        self.scaler: Optional[th.cuda.amp.GradScaler] = None
        if amp:
            self.scaler = th.cuda.amp.GradScaler()

    def batches(self, loader) -> Iterator[Batch]:
        for images, labels in loader:
            yield Batch(images, labels)

    def split(self, x) -> tuple[th.Tensor, th.Tensor]:
        return x[0], x[1]

    def scores(self, x) -> np.ndarray:
        return np.asarray(x)
