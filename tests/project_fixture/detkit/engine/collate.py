import torch

from detkit.utils.batching import longest, pad_frames, pad_list, pad_targets, pad_to, prepare_ids, stack_tensors


def collate(batch):
    feats = pad_list([torch.as_tensor(f) for f, _ in batch], 0.0)  # expect: NPU405@12
    labels = pad_targets([torch.as_tensor(t) for _, t in batch])  # expect: NPU405@13
    print("longest item", longest(labels))
    return feats, labels


def collate_frames(batch):
    return pad_frames([f for f, _ in batch])  # expect: NPU405@11


def collate_fixed(batch):
    ids = pad_to([torch.as_tensor(t) for _, t in batch], 128)
    return ids, pad_to([torch.as_tensor(t) for _, t in batch])  # expect: NPU405@16


def collate_priors(batch):
    spec_len = max([p.shape[0] for p in batch])  # expect: NPU405@15
    fixed = stack_tensors(batch, max_lens=[64, 128])
    return stack_tensors(batch, max_lens=[64, spec_len]), fixed


def collate_ids(batch):
    return torch.as_tensor(prepare_ids([ids for ids, _ in batch]))  # expect: NPU405@27
