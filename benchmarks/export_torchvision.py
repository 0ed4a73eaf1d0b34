#!/usr/bin/python3
"""Exports torchvision CNNs to ONNX for the memory table in docs/runtime.md.

Weights are random (no download): the memory plan depends only on the
graph. Uses Debian's python3-torch and python3-torchvision:

    /usr/bin/python3 benchmarks/export_torchvision.py OUT_DIR [--models resnet18 mobilenet_v2]
"""
import argparse
import os

import torch
import torchvision

DEFAULT_MODELS = ["resnet18", "mobilenet_v2"]


def export(name, out_dir, opset):
    model = getattr(torchvision.models, name)()  # random weights
    model.eval()
    example = torch.randn(1, 3, 224, 224)
    path = os.path.join(out_dir, name + ".onnx")
    with torch.no_grad():
        torch.onnx.export(model, example, path, input_names=["input"], output_names=["logits"],
                          opset_version=opset, do_constant_folding=True)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir", help="folder for the .onnx files (created if missing)")
    parser.add_argument("--models", nargs="+", default=DEFAULT_MODELS,
                        help="torchvision.models constructors (default: %(default)s)")
    parser.add_argument("--opset", type=int, default=13, help="ONNX opset (default: %(default)s)")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    torch.manual_seed(0)
    for name in args.models:
        print(export(name, args.out_dir, args.opset))


if __name__ == "__main__":
    main()
