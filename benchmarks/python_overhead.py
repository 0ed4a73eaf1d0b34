#!/usr/bin/env python3
"""What the Python bindings add to a run: the median latency of
ge.InferenceSession.run and ge.Model.run on the demo model next to that of
ge_model_run called from C (benchmarks/c_run_loop.c, target ge_c_run_loop),
printed as one JSON line.

    /usr/bin/python3 benchmarks/python_overhead.py [--build-dir build/default] [--runs 20000]

Run from anywhere; the package comes from bindings/python and the library from
GE_C_LIBRARY, else from the build folder. Both sides use one intra-op thread,
and each timed call includes freeing its output, as a Python run does. The
measurement is repeated in alternating rounds and the least median of each
side is kept, so that a burst of load from other processes does not count.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPTIONS = {"ge.exec.intraOpThreads": 1}


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(REPO, "build", "default"))
    parser.add_argument("--model", default=os.path.join(REPO, "models", "demo_cnn.onnx"))
    parser.add_argument("--input", default=os.path.join(REPO, "models", "demo_cnn.input.npy"))
    parser.add_argument("--runs", type=int, default=20000, help="timed runs per round and side")
    parser.add_argument("--warmup", type=int, default=1000, help="untimed runs before each round")
    parser.add_argument("--rounds", type=int, default=3)
    return parser.parse_args()


def median_us(call, runs, warmup):
    """The median wall time of call() in microseconds."""
    for _ in range(warmup):
        call()
    clock = time.perf_counter_ns
    times = []
    for _ in range(runs):
        start = clock()
        call()
        times.append(clock() - start)
    return statistics.median(times) / 1e3


def c_median_us(program, args):
    """The median that ge_c_run_loop measures on the same model and input."""
    output = subprocess.run([program, args.model, args.input, str(args.runs), str(args.warmup)], check=True,
                            capture_output=True, text=True).stdout
    return json.loads(output)["median_us"]


def main():
    args = parse_arguments()
    os.environ.setdefault("GE_C_LIBRARY", os.path.join(args.build_dir, "lib", "c_api", "libge_c.so"))
    sys.path.insert(0, os.path.join(REPO, "bindings", "python"))
    import numpy as np
    import ge

    program = os.path.join(args.build_dir, "benchmarks", "ge_c_run_loop")
    if not os.path.exists(program):
        sys.exit(f"python_overhead: {program} is missing; build it with "
                 f"cmake --build {args.build_dir} --target ge_c_run_loop")
    image = np.load(args.input)
    session = ge.InferenceSession(args.model, options=OPTIONS)
    feed = {session.get_inputs()[0].name: image}
    model = session.model
    inputs = [image]

    medians = {"c": [], "inference_session": [], "model_run": []}
    for _ in range(args.rounds):
        medians["c"].append(c_median_us(program, args))
        medians["inference_session"].append(median_us(lambda: session.run(None, feed), args.runs, args.warmup))
        medians["model_run"].append(median_us(lambda: model.run(inputs), args.runs, args.warmup))
    best = {side: min(values) for side, values in medians.items()}
    print(json.dumps({
        "model": os.path.relpath(args.model, REPO), "runs": args.runs, "rounds": args.rounds,
        "c_median_us": round(best["c"], 2),
        "inference_session_median_us": round(best["inference_session"], 2),
        "model_run_median_us": round(best["model_run"], 2),
        "inference_session_overhead_us": round(best["inference_session"] - best["c"], 2),
        "model_run_overhead_us": round(best["model_run"] - best["c"], 2),
    }))


if __name__ == "__main__":
    main()
