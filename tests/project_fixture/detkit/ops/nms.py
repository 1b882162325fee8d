import torch


def nms_rotated(boxes, scores, thr):
    return torch.ops.detkit.nms_rotated(boxes, scores, thr)  # expect: NPU223@11 NPU401@11


def roi_align(features, rois):
    return _C.roi_align_forward(features, rois)  # expect: NPU223@11


from .. import _C  # noqa: E402  # expect: NPU221@0
