import torch


def positive_indices(labels):
    inds = torch.nonzero(labels > 0)  # expect: NPU401@11
    return inds


def keep_positive(labels):
    return positive_indices(labels)  # the nonzero above is reported once, where it stands: no repeat here


def positive_pairs(scores):
    rows, cols = torch.where(scores > 0)  # expect: NPU401@17
    return rows, cols


def gather_positive(x, labels):
    return x.index_select(0, keep_positive(labels))  # expect: NPU402@11 (rows taken by the positions found)


def gather_rows(x, rows):
    return x.index_select(0, rows)   # the rows a caller gives: no data-dependent op here


def blended(scores, fallback):
    return torch.where(scores > 0, scores, fallback)   # three arguments: a static shape
