import numpy as np
import torch as th
import wandb

from rlkit.algos.base import OnPolicyAlgorithm, Trainer
from rlkit.common.policies import BasePolicy, split_heads


class PPO(OnPolicyAlgorithm):
    def train(self, device) -> None:
        self.policy.train()
        for rollout_data in self.rollout_buffer.get(64):
            actions = rollout_data.actions.long().flatten()
            values, log_prob, entropy = self.policy.evaluate_actions(rollout_data.observations, actions)
            values = values.flatten()
            advantages = rollout_data.advantages
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
            ratio = th.exp(log_prob - rollout_data.old_values)
            loss = -(advantages * ratio).mean()
            self.policy.optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(self.policy.parameters(), 0.5)
            self.policy.optimizer.step()
            wandb.log({"loss": loss.item()})

    def tail(self, x):
        first, second = split_heads(x)
        return first.mean(), second.reshape(-1)

    def narrow(self, x, outputs: list):
        assert isinstance(x, th.Tensor)
        y = x.mean()
        if isinstance(outputs, th.Tensor):
            outputs = outputs.flatten()
        return y, x.item()

    def move(self, batches: tuple[th.Tensor, ...], device):
        moved = [t.to(device) for t in batches]
        for t in batches:
            t.to(device)
        return moved

    def host(self, policy: BasePolicy, obs):
        probs = policy.predict_proba(obs)
        more = policy.expand(2)
        return probs.astype(np.float32).any(), more


class AmpTrainer(Trainer):
    def step(self, loss):
        if self.scaler is not None:
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            loss.backward()
            self.optimizer.step()
        self.optimizer.zero_grad()


class AmpAlgo(OnPolicyAlgorithm):
    def step(self, loss):
        self.scaler.scale(loss).backward()
        self.scaler.step(self.policy.optimizer)
        self.scaler.update()


def seed(n):
    th.default_generator.manual_seed(n)
