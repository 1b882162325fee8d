import numpy as np
import torch


def pad_list(xs, pad_value):
    """Pads a list of tensors to the longest among them (what speech toolkits call ``pad_list``)."""
    n_batch = len(xs)
    max_len = max(x.size(0) for x in xs)  # expect: NPU405@14
    pad = xs[0].new(n_batch, max_len, *xs[0].size()[1:]).fill_(pad_value)
    for i in range(n_batch):
        pad[i, : xs[i].size(0)] = xs[i]
    return pad


def pad_targets(ys):
    return pad_list(ys, -1)  # expect: NPU405@11


def longest(xs):
    return max(len(x) for x in xs)


def pad_frames(feats, pad_value=0.0):
    """The lengths gathered first, their maximum taken with numpy, a numpy buffer handed to torch."""
    lengths = [f.shape[0] for f in feats]
    num_frames = np.max(lengths)  # expect: NPU405@17
    out = np.full((len(feats), num_frames, feats[0].shape[1]), pad_value, dtype=np.float32)  # expect: NPU405@10
    for i, f in enumerate(feats):
        out[i, : f.shape[0]] = f
    return torch.from_numpy(out)


def pad_to(xs, max_len=None):
    """The maximum only when the caller gives no length."""
    if max_len is None:
        max_len = max(map(len, xs))  # expect: NPU405@18
    return torch.stack([torch.cat([x, x.new_zeros(max_len - len(x))]) for x in xs])


def stack_tensors(tensors, max_lens, pad_value=0.0):
    """Pads each tensor's last axes to the lengths given (a list, last axis first) and stacks them."""
    padded = []
    for t in tensors:
        padding = []
        for i, max_len in enumerate(max_lens, 1):
            padding += [0, max_len - t.shape[-i]]
        padded.append(torch.nn.functional.pad(t, pad=padding, value=pad_value))
    return torch.stack(padded)


def _pad_one(x, length):
    return np.pad(x, (0, length - x.shape[0]), mode="constant")


def prepare_ids(inputs):
    """The maximum handed to a helper of the file that pads up to its parameter (coqui TTS ``prepare_data``)."""
    max_len = max(len(x) for x in inputs)  # expect: NPU405@14
    return np.stack([_pad_one(x, max_len) for x in inputs])
