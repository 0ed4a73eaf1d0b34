#!/usr/bin/env python3
"""Calibration and held-out inputs for an image model, from real photos.

Random N(0, 1) or uniform inputs give a trained network activation ranges it
never sees on pictures, so its quantization looks worse (or better) than it
is. This crops square windows (a third of the short side up to all of it, at
seeded random places) out of the calibration photos, resizes them to the
model's input and scales the pixels to [0, 1], as the TensorFlow.js models of
@vladmandic/human take them. The held-out input is the centre square of a
photo not used for calibration.

usage: image_calibration.py OUT_DIR --shape 1,H,W,C --calib PHOTO [PHOTO ...] --held-out PHOTO
       [--batches 8] [--seed 0]
writes OUT_DIR/calib/batch_NN.npy and OUT_DIR/eval.npy (float32, NHWC; C 1 is greyscale).
Needs Debian's python3-numpy and python3-pil.
"""
import argparse
import os
import random

import numpy as np
from PIL import Image


def to_input(image, height, width, channels):
    image = image.convert("L" if channels == 1 else "RGB").resize((width, height), Image.BILINEAR)
    pixels = np.asarray(image, dtype=np.float32) / 255.0
    return pixels.reshape(1, height, width, channels)


def random_crop(image, rng):
    short = min(image.size)
    side = rng.randint(short // 3, short)
    left = rng.randint(0, image.size[0] - side)
    top = rng.randint(0, image.size[1] - side)
    return image.crop((left, top, left + side, top + side))


def centre_crop(image):
    short = min(image.size)
    left, top = (image.size[0] - short) // 2, (image.size[1] - short) // 2
    return image.crop((left, top, left + short, top + short))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir")
    parser.add_argument("--shape", required=True, help="1,H,W,C")
    parser.add_argument("--calib", nargs="+", required=True)
    parser.add_argument("--held-out", required=True)
    parser.add_argument("--batches", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    batch, height, width, channels = (int(d) for d in args.shape.split(","))
    if batch != 1 or channels not in (1, 3):
        parser.error(f"--shape {args.shape}: expected 1,H,W,C with C 1 or 3")

    rng = random.Random(args.seed)
    photos = [Image.open(path) for path in args.calib]
    os.makedirs(os.path.join(args.out_dir, "calib"), exist_ok=True)
    for n in range(args.batches):
        crop = random_crop(photos[n % len(photos)], rng)
        np.save(os.path.join(args.out_dir, "calib", f"batch_{n:02d}.npy"), to_input(crop, height, width, channels))
    held_out = centre_crop(Image.open(args.held_out))
    np.save(os.path.join(args.out_dir, "eval.npy"), to_input(held_out, height, width, channels))


if __name__ == "__main__":
    main()
