from typing import Optional

import torch as th

from rlkit.common.buffers import RolloutBuffer
from rlkit.common.policies import ActorCriticPolicy


class OnPolicyAlgorithm:
    policy: ActorCriticPolicy
    rollout_buffer: RolloutBuffer

    def __init__(self, dim: int, amp: bool = False):
        self.dim = dim
        self.scaler: Optional[th.cuda.amp.GradScaler] = None
        if amp:
            self.scaler = th.cuda.amp.GradScaler()

    def _setup_model(self) -> None:
        self.policy = ActorCriticPolicy(self.dim)
        self.rollout_buffer = RolloutBuffer(64)


class Trainer:
    def __init__(self, model, amp: bool):
        self.model = model
        self.optimizer: th.optim.Optimizer = th.optim.SGD(model.parameters(), lr=0.1)
        self.scaler = th.cuda.amp.GradScaler() if amp else None
