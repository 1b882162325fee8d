import torch

try:
    import wandb
except ImportError:
    wandb = None


class WandbLogger:
    def __init__(self):
        self._wandb = wandb

    def log(self, loss: torch.Tensor):
        self._wandb.log({"loss": loss.item()})
        self._wandb.save("x")


def log_loss(loss: torch.Tensor):
    wandb.log({"loss": loss.detach().item()})
