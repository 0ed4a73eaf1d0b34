#!/usr/bin/python3
"""Exports the transformer encoder of the CPU performance table (docs/performance.md):
torch.nn.TransformerEncoder, 4 layers, d_model 256, 4 heads, feed-forward 1024,
GELU, sequence 128, batch 1, random weights. --dynamic leaves batch and
sequence symbolic (the variable-length encoder of docs/performance.md's
dynamic-shape table). Uses Debian's python3-torch:

    /usr/bin/python3 benchmarks/export_transformer.py OUT.onnx [--layers 4] [--seq 128] [--dynamic]
"""
import argparse

import torch


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--opset", type=int, default=13)
    parser.add_argument("--dynamic", action="store_true", help="symbolic batch and sequence dims")
    args = parser.parse_args()
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024, dropout=0.0,
                                             activation="gelu", batch_first=True)
    model = torch.nn.TransformerEncoder(layer, num_layers=args.layers, enable_nested_tensor=False)
    # Training mode with dropout 0 computes the same as eval mode, and keeps
    # PyTorch's fused inference kernel (which ONNX export cannot trace) out of
    # the way; PRESERVE stops the exporter from switching to eval mode (and
    # rules out its constant folding, which ge does itself).
    model.train()
    example = torch.randn(1, args.seq, 256)
    with torch.no_grad():
        axes = {"x": {0: "batch", 1: "sequence"}, "y": {0: "batch", 1: "sequence"}} if args.dynamic else None
        torch.onnx.export(model, example, args.out, input_names=["x"], output_names=["y"], opset_version=args.opset,
                          do_constant_folding=False, training=torch.onnx.TrainingMode.PRESERVE, dynamic_axes=axes)
    print(args.out)


if __name__ == "__main__":
    main()
