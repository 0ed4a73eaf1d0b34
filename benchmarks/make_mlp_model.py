#!/usr/bin/python3
"""Writes an ONNX MLP block (MatMul + bias -> Relu -> MatMul + bias), the shape of a
transformer feed-forward layer, with random float32 weights: the weight-only
quantization benchmark of docs/quantization.md. Uses Debian's python3-onnx and numpy:

    /usr/bin/python3 benchmarks/make_mlp_model.py OUT.onnx [--tokens 1] [--hidden 2048] [--inner 8192]
"""
import argparse

import numpy
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--tokens", type=int, default=1, help="rows of the input (default: %(default)s)")
    parser.add_argument("--hidden", type=int, default=2048, help="model width (default: %(default)s)")
    parser.add_argument("--inner", type=int, default=8192, help="feed-forward width (default: %(default)s)")
    args = parser.parse_args()
    rng = numpy.random.default_rng(0)
    h, f = args.hidden, args.inner
    weights = {
        "w1": (rng.standard_normal((h, f)) / numpy.sqrt(h)).astype(numpy.float32),
        "b1": (rng.standard_normal(f) * 0.1).astype(numpy.float32),
        "w2": (rng.standard_normal((f, h)) / numpy.sqrt(f)).astype(numpy.float32),
        "b2": (rng.standard_normal(h) * 0.1).astype(numpy.float32),
    }
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h1"], name="fc1"),
        helper.make_node("Add", ["h1", "b1"], ["h1b"], name="fc1_bias"),
        helper.make_node("Relu", ["h1b"], ["a1"], name="relu"),
        helper.make_node("MatMul", ["a1", "w2"], ["h2"], name="fc2"),
        helper.make_node("Add", ["h2", "b2"], ["y"], name="fc2_bias"),
    ]
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [args.tokens, h])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [args.tokens, h])],
        [numpy_helper.from_array(value, name) for name, value in weights.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, args.out)
    print(args.out)


if __name__ == "__main__":
    main()
