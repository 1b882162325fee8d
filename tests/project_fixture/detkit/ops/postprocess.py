"""Post-processing helpers other modules call: an NMS loop filling a list per image, a selection by a mask."""
import torch
import torchvision


def batched_detections(prediction, conf, iou):
    output = [None] * prediction.shape[0]
    for i, pred in enumerate(prediction):
        pred = pred[pred[:, 4] > conf]  # expect: NPU402@15
        keep = torchvision.ops.nms(pred[:, :4], pred[:, 4], iou)  # expect: NPU401@15
        output[i] = pred[keep]
    return output


def confident(prediction, conf):
    return [p[p[:, 4] > conf] for p in prediction]  # expect: NPU402@12


def masked_mean(values, valid):
    return values[valid].mean()  # expect: NPU402@11
