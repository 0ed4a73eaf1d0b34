"""Shared by the export scripts: exports a PyTorch module to ONNX and writes
the inputs it was fed and PyTorch's outputs next to it, as .npy files in
OUT.inputs/ and OUT.expected/, for ge run --input and the comparisons."""
import os

import numpy as np
import torch


def export_with_reference(model, inputs, output_names, out, opset_version=14):
    """`inputs`: {name: tensor}, in the module's argument order."""
    names, tensors = list(inputs), tuple(inputs.values())
    with torch.no_grad():
        expected = model(*tensors)
        torch.onnx.export(model, tensors, out, input_names=names, output_names=output_names,
                          opset_version=opset_version)
    for folder, folder_names, values in ((out + ".inputs", names, tensors),
                                         (out + ".expected", output_names, expected)):
        os.makedirs(folder, exist_ok=True)
        for name, tensor in zip(folder_names, values):
            np.save(os.path.join(folder, name + ".npy"), tensor.numpy())
