import torch
import torch.nn as nn

from ..utils.vocab import Vocab


class BaseDetector(nn.Module):
    def extract(self, images):
        return images.flatten(1)

    @staticmethod
    def padding2d(batch):
        longest = max([len(x) for x in batch])  # expect: NPU405@18
        mask = torch.zeros(len(batch), longest, dtype=torch.bool)
        batch = [x + [0.0] * (longest - len(x)) for x in batch]  # expect: NPU405@21
        return batch, mask

    def pad_codes(self, batch, max_len=None):
        if max_len is None:
            max_len = max(len(x) for x in batch)  # expect: NPU405@22
        return torch.zeros(len(batch), max_len)

    def add_vocab(self, key, itos):
        # the items of a dict the subclass builds empty: a Vocab each (its encode pads to the longest)
        vocab = Vocab(itos)
        self.vocabs[key] = vocab
        self.labels[key] = Vocab(itos)
        self.labels[key] = len(itos)
