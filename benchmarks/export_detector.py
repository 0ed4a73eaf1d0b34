#!/usr/bin/python3
"""Exports a small single-stage detector whose last step depends on data: a
convolutional backbone and head over a [1, 3, 256, 256] image give a score and
a box per cell of a 16x16 grid, and the cells scoring above 0.5 are kept with
NonZero, so the outputs' length is known only from the scores. Everything
before the NonZero has static shapes: ge plans that head statically and runs
the rest node by node (docs/runtime.md). Random weights, seed 0; Debian's
python3-torch:

    /usr/bin/python3 benchmarks/export_detector.py OUT.onnx

Also writes OUT.inputs/image.npy and OUT.expected/ (scores.npy, boxes.npy):
PyTorch's outputs for that input.
"""
import sys

import torch
from torch import nn

from model_export import export_with_reference


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        layers = []
        channels = [3, 32, 64, 128, 128]
        for c_in, c_out in zip(channels, channels[1:]):
            layers += [nn.Conv2d(c_in, c_out, 3, stride=2, padding=1), nn.BatchNorm2d(c_out), nn.ReLU()]
        self.backbone = nn.Sequential(*layers)
        self.head = nn.Conv2d(128, 5, 1)

    def forward(self, image):
        out = self.head(self.backbone(image))
        scores = torch.sigmoid(out[:, 0]).flatten()
        boxes = out[:, 1:].flatten(2).transpose(1, 2)[0]
        keep = torch.nonzero(scores > 0.5).squeeze(1)
        return scores[keep], boxes[keep]


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    model = Detector().eval()
    export_with_reference(model, {"image": torch.randn(1, 3, 256, 256)}, ["scores", "boxes"], out)
    print(out)


if __name__ == "__main__":
    main()
