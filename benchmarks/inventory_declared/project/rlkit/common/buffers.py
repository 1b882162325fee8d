from typing import Generator

import numpy as np
import torch as th

from rlkit.common.type_aliases import RolloutBufferSamples


class RolloutBuffer:
    def __init__(self, size: int):
        self.observations = np.zeros((size, 4))

    def get(self, batch_size: int) -> Generator[RolloutBufferSamples, None, None]:
        yield self._get_samples(np.arange(batch_size))

    def _get_samples(self, idx) -> RolloutBufferSamples:
        data = (self.observations[idx],) * 5
        return RolloutBufferSamples(*tuple(map(th.as_tensor, data)))
