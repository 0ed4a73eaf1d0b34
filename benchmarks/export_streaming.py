#!/usr/bin/python3
"""Exports a streaming voice-activity model in the shape of Silero VAD (whose
trained weights cannot be fetched here): one 32 ms audio chunk [1, 1, 512]
and the sampling rate in, a speech probability and the LSTM state out, with
the state fed back on the next chunk. torch.jit.script turns its Python
control flow into ONNX If (the front end for 16 kHz or 8 kHz) and Loop (the
encoder over sub-chunks). Random weights, seed 0; Debian's python3-torch:

    /usr/bin/python3 benchmarks/export_streaming.py OUT.onnx

Also writes OUT.inputs/ (x.npy, sr.npy, h.npy, c.npy) and OUT.expected/
(prob.npy, h_out.npy, c_out.npy): PyTorch's outputs for those inputs.
"""
import sys

import torch
from torch import nn

from model_export import export_with_reference


class StreamingVad(nn.Module):
    def __init__(self):
        super().__init__()
        self.front16 = nn.Conv1d(1, 64, kernel_size=64, stride=32)
        self.front8 = nn.Conv1d(1, 64, kernel_size=32, stride=16)
        self.encoder = nn.Sequential(nn.Conv1d(64, 64, 3, padding=1), nn.ReLU(), nn.Conv1d(64, 128, 3, padding=1),
                                     nn.ReLU())
        self.lstm = nn.LSTM(128, 128, batch_first=True)
        self.decoder = nn.Conv1d(128, 1, 1)

    def forward(self, x, sr, h, c):
        if bool(sr == 16000):
            features = self.front16(x)
        else:
            features = self.front8(x)
        # The encoder over sub-chunks of 4 frames, summed: a loop whose trip
        # count follows from the input's length (an ONNX Loop).
        step = 4
        encoded = torch.zeros(1, 128, step)
        for i in range(features.size(2) // step):
            encoded = encoded + self.encoder(features[:, :, i * step:(i + 1) * step])
        out, (h_out, c_out) = self.lstm(encoded.transpose(1, 2), (h, c))
        prob = torch.sigmoid(self.decoder(out.transpose(1, 2))).mean(dim=2)
        return prob, h_out, c_out


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    model = torch.jit.script(StreamingVad().eval())
    inputs = {"x": torch.randn(1, 1, 512), "sr": torch.tensor(16000, dtype=torch.int64),
              "h": torch.randn(1, 1, 128) * 0.1, "c": torch.randn(1, 1, 128) * 0.1}
    export_with_reference(model, inputs, ["prob", "h_out", "c_out"], out)
    print(out)


if __name__ == "__main__":
    main()
