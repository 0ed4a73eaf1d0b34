#!/usr/bin/env python3
"""Writes tests/caffe/pytorch/<net>/: Caffe nets converted from PyTorch modules
by this script's own writer (deploy.prototxt + trained.caffemodel), the input
it fed and PyTorch's output (input.npy, expected.npy, float64 arithmetic).

tests/caffe/caffe_pytorch_test.cc imports each pair and compares ge's output
with PyTorch's. The files are committed, so the tests need no PyTorch; this
script needs Debian's python3-torch and python3-numpy and is run by hand when a
net changes: python3 scripts/make_caffe_fixtures.py

The writer encodes the NetParameter itself (protobuf's wire format: varints
and length-delimited fields), with the field numbers of Caffe's caffe.proto
that lib/graph/caffe/proto/caffe_net.proto also uses."""
import os
import struct
import sys

import numpy as np
import torch
from torch import nn

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "caffe", "pytorch")


def varint(value):
    out = b""
    while True:
        low, value = value & 0x7F, value >> 7
        out += bytes([low | (0x80 if value else 0)])
        if not value:
            return out


def field(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def blob(array):
    """BlobProto: shape (7) { dim (1), packed }, data (5), packed float32."""
    array = np.asarray(array, dtype=np.float32)
    dims = b"".join(varint(d) for d in array.shape)
    return field(7, field(1, dims)) + field(5, array.tobytes())


class CaffeNet:
    """Layers in order: the prototxt keeps the structure, the .caffemodel the blobs."""

    def __init__(self, name, input_shape):
        self.name = name
        self.layers = []
        shape = " ".join("dim: %d" % d for d in input_shape)
        self.text = ['name: "%s"' % name,
                     'layer { name: "data" type: "Input" top: "data" input_param { shape { %s } } }' % shape]

    def add(self, name, kind, bottoms, top, params="", blobs=()):
        bottom_text = " ".join('bottom: "%s"' % b for b in bottoms)
        self.text.append('layer { name: "%s" type: "%s" %s top: "%s" %s}' % (name, kind, bottom_text, top,
                                                                           params + " " if params else ""))
        if blobs:
            self.layers.append((name, [np.asarray(b, dtype=np.float32) for b in blobs]))
        return top

    def save(self, folder):
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "deploy.prototxt"), "w") as f:
            f.write("\n".join(self.text) + "\n")
        model = b""
        for name, blobs in self.layers:
            model += field(100, field(1, name.encode()) + b"".join(field(7, blob(b)) for b in blobs))
        with open(os.path.join(folder, "trained.caffemodel"), "wb") as f:
            f.write(model)


def conv_params(conv, transposed=False):
    k, p, s, d = conv.kernel_size[0], conv.padding[0], conv.stride[0], conv.dilation[0]
    out = conv.out_channels
    text = "num_output: %d kernel_size: %d pad: %d stride: %d dilation: %d group: %d bias_term: %s" % (
        out, k, p, s, d, conv.groups, "true" if conv.bias is not None else "false")
    blobs = [conv.weight.detach().numpy()]
    if conv.bias is not None:
        blobs.append(conv.bias.detach().numpy())
    return "convolution_param { %s }" % text, blobs


def batch_norm(net, name, bottom, bn, factor):
    """Caffe's BatchNorm stores mean and variance multiplied by a moving-average factor (blob 2), then a Scale."""
    mean = bn.running_mean.detach().numpy() * factor
    var = bn.running_var.detach().numpy() * factor
    net.add(name, "BatchNorm", [bottom], bottom, "batch_norm_param { use_global_stats: true eps: %g }" % bn.eps,
            [mean, var, np.array([factor])])
    return net.add(name + "_scale", "Scale", [bottom], bottom, "scale_param { bias_term: true }",
                   [bn.weight.detach().numpy(), bn.bias.detach().numpy()])


class Cnn(nn.Module):
    """Convolution, BatchNorm (+ Scale), in-place ReLU, MAX pooling rounded up, a grouped 1x1 convolution,
    AVE pooling rounded up, InnerProduct, Softmax."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8, eps=1e-5)
        self.pool1 = nn.MaxPool2d(3, 2, ceil_mode=True)
        self.conv2 = nn.Conv2d(8, 8, 1, groups=2)
        self.pool2 = nn.AvgPool2d(2, 2, ceil_mode=True)
        self.fc = nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        x = self.pool1(torch.relu(self.bn(self.conv1(x))))
        x = self.pool2(torch.relu(self.conv2(x)))
        return torch.softmax(self.fc(torch.flatten(x, 1)), dim=1)

    def caffe(self):
        net = CaffeNet("cnn", [1, 3, 15, 15])
        params, blobs = conv_params(self.conv1)
        x = net.add("conv1", "Convolution", ["data"], "conv1", params, blobs)
        x = batch_norm(net, "bn", x, self.bn, factor=4.0)
        x = net.add("relu1", "ReLU", [x], x)
        x = net.add("pool1", "Pooling", [x], "pool1", "pooling_param { pool: MAX kernel_size: 3 stride: 2 }")
        params, blobs = conv_params(self.conv2)
        x = net.add("conv2", "Convolution", [x], "conv2", params, blobs)
        x = net.add("relu2", "ReLU", [x], x)
        x = net.add("pool2", "Pooling", [x], "pool2", "pooling_param { pool: AVE kernel_size: 2 stride: 2 }")
        x = net.add("fc", "InnerProduct", [x], "fc", "inner_product_param { num_output: 10 }",
                    [self.fc.weight.detach().numpy(), self.fc.bias.detach().numpy()])
        net.add("prob", "Softmax", [x], "prob")
        return net


class Branches(nn.Module):
    """Deconvolution, PReLU, a dilated convolution, Eltwise SUM with coefficients, PROD and MAX, Concat, LRN,
    Sigmoid and TanH summed, Dropout (identity at inference), Flatten."""

    def __init__(self):
        super().__init__()
        self.deconv = nn.ConvTranspose2d(4, 4, 3, stride=2, padding=1)
        self.prelu = nn.PReLU(4)
        self.a = nn.Conv2d(4, 4, 1)
        self.b = nn.Conv2d(4, 4, 3, padding=2, dilation=2)
        self.lrn = nn.LocalResponseNorm(5, alpha=1e-2, beta=0.75, k=2.0)

    def forward(self, x):
        x = self.prelu(self.deconv(x))
        a, b = self.a(x), self.b(x)
        joined = torch.cat([0.5 * a - 1.5 * b, a * b, torch.maximum(a, b)], dim=1)
        y = self.lrn(joined)
        return torch.flatten(torch.sigmoid(y) + torch.tanh(y), 1)

    def caffe(self):
        net = CaffeNet("branches", [1, 4, 6, 6])
        params, blobs = conv_params(self.deconv, transposed=True)
        x = net.add("deconv", "Deconvolution", ["data"], "deconv", params, blobs)
        x = net.add("prelu", "PReLU", [x], "prelu", "", [self.prelu.weight.detach().numpy()])
        params, blobs = conv_params(self.a)
        a = net.add("a", "Convolution", [x], "a", params, blobs)
        params, blobs = conv_params(self.b)
        b = net.add("b", "Convolution", [x], "b", params, blobs)
        s = net.add("sum", "Eltwise", [a, b], "sum", "eltwise_param { operation: SUM coeff: 0.5 coeff: -1.5 }")
        p = net.add("prod", "Eltwise", [a, b], "prod", "eltwise_param { operation: PROD }")
        m = net.add("max", "Eltwise", [a, b], "max", "eltwise_param { operation: MAX }")
        x = net.add("concat", "Concat", [s, p, m], "concat", "concat_param { axis: 1 }")
        x = net.add("lrn", "LRN", [x], "lrn", "lrn_param { local_size: 5 alpha: 0.01 beta: 0.75 k: 2 }")
        sig = net.add("sigmoid", "Sigmoid", [x], "sigmoid")
        tanh = net.add("tanh", "TanH", [x], "tanh")
        x = net.add("both", "Eltwise", [sig, tanh], "both")
        x = net.add("drop", "Dropout", [x], x, "dropout_param { dropout_ratio: 0.3 }")
        net.add("flat", "Flatten", [x], "flat")
        return net


def main():
    torch.manual_seed(7)
    for module, shape in ((Cnn(), (1, 3, 15, 15)), (Branches(), (1, 4, 6, 6))):
        module.eval()
        for m in module.modules():  # trained-looking statistics, not the initial 0 and 1
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.data.uniform_(0.5, 1.5)
                m.bias.data.uniform_(-0.2, 0.2)
        net = module.caffe()
        folder = os.path.join(OUT, net.name)
        net.save(folder)
        x = torch.rand(shape, dtype=torch.float32) * 2 - 1
        with torch.no_grad():
            expected = module.double()(x.double()).numpy()
        module.float()
        np.save(os.path.join(folder, "input.npy"), x.numpy())
        np.save(os.path.join(folder, "expected.npy"), expected)
        print("%s: input %s, output %s" % (folder, tuple(x.shape), expected.shape))


if __name__ == "__main__":
    sys.exit(main())
