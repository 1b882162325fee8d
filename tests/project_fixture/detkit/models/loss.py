from torch import nn

from ..ops.assign import Assigner, split_positive
from ..ops.boxes import blended, keep_positive


class Loss(nn.Module):
    def __init__(self):
        super().__init__()
        self.assigner = Assigner()

    def forward(self, scores, boxes):
        matched, keep = self.assigner(scores, boxes)
        values, positive = split_positive(scores)
        return matched[keep].sum() + values[positive].sum()  # expect: NPU402@15 NPU402@37


def kept_rows(feats, labels, scores, fallback):
    found = keep_positive(labels)  # expect: NPU401@12
    dense = blended(scores, fallback)   # another module's dense where: no positions
    return feats[found], feats[dense]  # expect: NPU402@11
