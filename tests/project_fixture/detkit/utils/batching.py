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
