#!/usr/bin/python3
"""Exports the KV-cache decoder of docs/performance.md's dynamic-shape table:
a GPT-style decoder (4 layers, d_model 256, 4 heads, feed-forward 1024, GELU,
vocabulary 1000, random weights, seed 0) whose past keys and values are
inputs and whose present ones are outputs, with the token count ("sequence")
and the past length ("past") symbolic. Uses Debian's python3-torch:

    /usr/bin/python3 benchmarks/export_decoder.py OUT.onnx [--prompt 8] [--tokens 64]

Also writes OUT.tokens.json: the tokens PyTorch generates greedily after the
prompt 1..N, which benchmarks/decode_compare.sh checks ge's and ONNX
Runtime's against.
"""
import argparse
import json

import torch
from torch import nn

LAYERS, D, HEADS, VOCABULARY = 4, 256, 4, 1000


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.qkv, self.o = nn.LayerNorm(D), nn.Linear(D, 3 * D), nn.Linear(D, D)
        self.ln2, self.f1, self.f2 = nn.LayerNorm(D), nn.Linear(D, 4 * D), nn.Linear(4 * D, D)

    def forward(self, x, past_k, past_v):
        b, t, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(D, dim=-1)
        heads = lambda y: y.view(b, t, HEADS, D // HEADS).transpose(1, 2)
        k = torch.cat([past_k, heads(k)], dim=2)
        v = torch.cat([past_v, heads(v)], dim=2)
        total = k.shape[2]
        scores = heads(q) @ k.transpose(-1, -2) / (D // HEADS) ** 0.5
        # Causal within the new tokens: token i sees the past and new tokens up to i.
        mask = torch.ones(t, total, dtype=torch.bool).tril(total - t)
        scores = scores.masked_fill(~mask, float("-inf"))
        attention = torch.softmax(scores, dim=-1) @ v
        x = x + self.o(attention.transpose(1, 2).reshape(b, t, D))
        x = x + self.f2(nn.functional.gelu(self.f1(self.ln2(x))))
        return x, k, v


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCABULARY, D)
        self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.head = nn.Linear(D, VOCABULARY)

    def forward(self, ids, *past):
        x = self.embedding(ids)
        present = []
        for i, block in enumerate(self.blocks):
            x, k, v = block(x, past[2 * i], past[2 * i + 1])
            present += [k, v]
        return (self.head(x), *present)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--prompt", type=int, default=8)
    parser.add_argument("--tokens", type=int, default=64)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = Decoder().eval()
    past_names = [f"past_{kind}{i}" for i in range(LAYERS) for kind in "kv"]
    present_names = [f"present_{kind}{i}" for i in range(LAYERS) for kind in "kv"]
    axes = {"ids": {1: "sequence"}, **{name: {2: "past"} for name in past_names},
            **{name: {2: "total"} for name in present_names}, "logits": {1: "sequence"}}
    # A non-empty example past and two tokens, so that the export specializes neither.
    example = (torch.tensor([[5, 6]]), *[torch.zeros(1, HEADS, 3, D // HEADS) for _ in past_names])
    with torch.no_grad():
        torch.onnx.export(model, example, args.out, input_names=["ids", *past_names],
                          output_names=["logits", *present_names], dynamic_axes=axes, opset_version=17)
        ids = torch.arange(1, args.prompt + 1).unsqueeze(0)
        past = [torch.zeros(1, HEADS, 0, D // HEADS) for _ in past_names]
        generated = []
        for _ in range(args.tokens + 1):
            logits, *past = model(ids, *past)
            generated.append(int(logits[0, -1].argmax()))
            ids = torch.tensor([[generated[-1]]])
    with open(args.out + ".tokens.json", "w") as file:
        json.dump({"prompt": args.prompt, "tokens": args.tokens, "generated": generated}, file)
    print(args.out)


if __name__ == "__main__":
    main()
