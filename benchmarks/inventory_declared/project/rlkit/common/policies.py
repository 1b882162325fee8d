from typing import Optional, Tuple, Type

import numpy as np
import torch as th
from torch import nn


class BasePolicy(nn.Module):
    optimizer: th.optim.Optimizer

    def __init__(self, lr: float = 1e-3):
        super().__init__()
        self.lr = lr

    def predict_proba(self, obs) -> np.ndarray:
        with th.no_grad():
            out = self(th.as_tensor(obs))
        return out.cpu().numpy()

    def expand(self, n: int) -> "BasePolicy":
        return self


class ActorCriticPolicy(BasePolicy):
    def __init__(self, dim: int, optimizer_class: Type[th.optim.Optimizer] = th.optim.Adam):
        super().__init__()
        self.net = nn.Linear(dim, dim)
        self.optimizer_class = optimizer_class
        self.optimizer = self.optimizer_class(self.parameters(), lr=self.lr)

    def forward(self, obs):
        return self.net(obs)

    def evaluate_actions(self, obs: th.Tensor, actions: th.Tensor) -> Tuple[th.Tensor, th.Tensor, Optional[th.Tensor]]:
        values = self.net(obs)
        return values, values, None

    def predict_values(self, obs):
        return self.net(obs)


def split_heads(x) -> tuple[th.Tensor, th.Tensor]:
    return x[0], x[1]
