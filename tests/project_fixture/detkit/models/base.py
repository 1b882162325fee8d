import torch.nn as nn


class BaseDetector(nn.Module):
    def extract(self, images):
        return images.flatten(1)
