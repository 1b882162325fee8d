from typing import NamedTuple

import torch as th


class RolloutBufferSamples(NamedTuple):
    observations: th.Tensor
    actions: th.Tensor
    old_values: th.Tensor
    advantages: th.Tensor
    returns: th.Tensor
