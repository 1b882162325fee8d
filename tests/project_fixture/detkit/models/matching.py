"""No torch word here: the file reaches the data-dependent op only through the project's wrapper."""
from ..ops import boxes


def matched(labels):
    found = boxes.keep_positive(labels)  # expect: NPU401@12
    return found
