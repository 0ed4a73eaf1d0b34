#!/usr/bin/python3
"""Exports torchvision CNNs to ONNX for the memory table in docs/runtime.md and
the quantization table in docs/quantization.md.

Weights are random (no download): the memory plan depends only on the
graph. For quantization, --bn-batches runs random batches through the model
in training mode first, so that every BatchNorm's running statistics fit the
random weights and activations keep the scale a trained network has (with
the initial statistics they grow or vanish layer after layer).
--calib-batches writes that many further random batches as .npy files for
`ge quantize --calib-data`. Uses Debian's python3-torch and python3-torchvision:

    /usr/bin/python3 benchmarks/export_torchvision.py OUT_DIR [--models resnet18 mobilenet_v2]
        [--bn-batches 20] [--calib-batches 8]
"""
import argparse
import os

import numpy
import torch
import torchvision

DEFAULT_MODELS = ["resnet18", "mobilenet_v2"]


def warm_up_batch_norm(model, batches):
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn(8, 3, 224, 224))


def write_calibration_batches(name, out_dir, batches):
    folder = os.path.join(out_dir, name + "_calib")
    os.makedirs(folder, exist_ok=True)
    for k in range(batches):
        numpy.save(os.path.join(folder, "batch_%02d.npy" % k), torch.randn(1, 3, 224, 224).numpy())
    return folder


def export(name, out_dir, opset, bn_batches):
    model = getattr(torchvision.models, name)()  # random weights
    if bn_batches:
        warm_up_batch_norm(model, bn_batches)
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
    parser.add_argument("--bn-batches", type=int, default=0,
                        help="random batches that set the BatchNorm statistics (default: %(default)s)")
    parser.add_argument("--calib-batches", type=int, default=0,
                        help="random input batches to write as OUT_DIR/<model>_calib/*.npy (default: %(default)s)")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    torch.manual_seed(0)
    for name in args.models:
        print(export(name, args.out_dir, args.opset, args.bn_batches))
        if args.calib_batches:
            print(write_calibration_batches(name, args.out_dir, args.calib_batches))


if __name__ == "__main__":
    main()
