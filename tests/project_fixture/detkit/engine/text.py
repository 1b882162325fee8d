import torch  # noqa: F401  (the collators hand tensors to a torch model)

from detkit.utils.text_collate import ConfiguredCollatorBase, FixedCollatorBase, PairCollatorBase


class PairCollator(PairCollatorBase):
    def __call__(self, features):
        return self.tokenizer.pad(features, padding=self.padding, return_tensors="pt")  # expect: NPU405@15


class FixedCollator(FixedCollatorBase):
    def __call__(self, features):
        return self.tokenizer.pad(features, padding=self.padding, max_length=64, return_tensors="pt")


class ConfiguredCollator(ConfiguredCollatorBase):
    def __call__(self, features):
        return self.tokenizer.pad(features, padding=self.padding, max_length=64, return_tensors="pt")
