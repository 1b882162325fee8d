from torch import nn

from ..ops.assign import Assigner, split_positive


class Loss(nn.Module):
    def __init__(self):
        super().__init__()
        self.assigner = Assigner()

    def forward(self, scores, boxes):
        matched, keep = self.assigner(scores, boxes)
        values, positive = split_positive(scores)
        return matched[keep].sum() + values[positive].sum()  # expect: NPU402@15 NPU402@37
