"""No torch word here: the file reaches the data-dependent op only through the project's wrapper."""
from ..ops import boxes


def matched(labels):
    found = boxes.keep_positive(labels)  # expect: NPU401@12
    return found


def pairs(scores, fallback):
    rows, cols = boxes.positive_pairs(scores)  # expect: NPU401@17
    dense = boxes.blended(scores, fallback)
    return rows, cols, dense


def gathered(feats, labels, rows):
    picked = boxes.gather_positive(feats, labels)  # expect: NPU401@13
    kept = boxes.gather_rows(feats, rows)
    return picked, kept
