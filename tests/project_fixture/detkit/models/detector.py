import torch
import torch.nn as nn

from .base import BaseDetector
from ..utils.vocab import Vocab, encode_batch


class Detector(BaseDetector):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(16, 4)
        self.vocab = Vocab(["<pad>", "a", "b"])
        self.vocabs = {}
        self.labels = {}
        for key in ("words", "tags"):
            self.add_vocab(key, ["<pad>", key])

    def forward(self, images):
        return self.head(self.extract(images))

    def encode(self, rows):
        # a padding method of the base class in another module; one given the length it pads to
        x, mask = self.padding2d(rows)  # expect: NPU405@18
        fixed = self.pad_codes(rows, 64)
        return torch.tensor(x), mask, fixed

    def tokens(self, rows, sentences):
        # Python lists padded to the longest by helpers of another module, made tensors here; one only printed
        ids = encode_batch(rows)  # expect: NPU405@14
        words = self.vocab.encode(sentences)  # expect: NPU405@16
        print(self.vocab.encode(sentences))
        return torch.tensor(ids), torch.tensor(words)

    def fields(self, rows):
        # items of dicts built empty and filled item by item in the base class: a Vocab in every store (reported);
        # a Vocab or an int (unknown)
        words = self.vocabs["words"].encode(rows)  # expect: NPU405@16
        tags = self.labels["tags"].encode(rows)
        return torch.tensor(words), torch.tensor(tags)
