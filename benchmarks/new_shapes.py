#!/usr/bin/python3
"""The first run at each new input shape of a dynamic model that has planned
another shape: the variable-length encoder of dynamic_compare.sh, run three
times at (1, 7) (which compiles a plan from its second run), then once at
each length from 8 to 39 (batch 1), each a shape not seen before, so each
runs node by node (docs/runtime.md). Prints the median and range of those
first runs in ms, one intra-op thread. Run from the repository root after
`bash benchmarks/dynamic_compare.sh DIR --export`:

    GE_C_LIBRARY=build/default/lib/c_api/libge_c.so PYTHONPATH=bindings/python \\
        /usr/bin/python3 benchmarks/new_shapes.py DIR [--json]
"""
import json
import statistics
import sys
import time

import numpy as np

import ge


def main():
    folder = sys.argv[1]
    session = ge.InferenceSession(f"{folder}/encoder_dynamic.onnx", options={"ge.exec.intraOpThreads": 1})
    rng = np.random.default_rng(0)
    x = np.load(f"{folder}/x_1_7.npy")
    for _ in range(3):
        session.run(None, {"x": x})
    first_runs = []
    for length in range(8, 40):
        x = rng.standard_normal((1, length, x.shape[2])).astype(np.float32)
        start = time.perf_counter()
        session.run(None, {"x": x})
        first_runs.append((time.perf_counter() - start) * 1e3)
    stats = session.model.run_stats
    result = {"first_run_median_ms": statistics.median(first_runs), "first_run_min_ms": min(first_runs),
              "first_run_max_ms": max(first_runs), "plans_compiled": stats["plans_compiled"]}
    if "--json" in sys.argv[2:]:
        print(json.dumps(result))
    else:
        print(f"first runs at 32 new shapes: median {result['first_run_median_ms']:.3f} ms "
              f"({result['first_run_min_ms']:.3f}-{result['first_run_max_ms']:.3f}), "
              f"plans compiled: {result['plans_compiled']}")


if __name__ == "__main__":
    main()
