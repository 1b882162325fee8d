import torch

from detkit.utils.batching import longest, pad_list, pad_targets


def collate(batch):
    feats = pad_list([torch.as_tensor(f) for f, _ in batch], 0.0)  # expect: NPU405@12
    labels = pad_targets([torch.as_tensor(t) for _, t in batch])  # expect: NPU405@13
    print("longest item", longest(labels))
    return feats, labels
