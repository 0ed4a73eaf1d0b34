#!/usr/bin/python3
"""Peak memory of a dynamic model planned at several input shapes in one
process: the variable-length encoder of dynamic_compare.sh run three times at
each of (1, 7), (4, 33) and (2, 128), which compiles a plan per shape from its
second run (docs/runtime.md). Prints the peak RSS above the loaded model and
the plans compiled. Run from the repository root after
`bash benchmarks/dynamic_compare.sh DIR --export`:

    GE_C_LIBRARY=build/default/lib/c_api/libge_c.so PYTHONPATH=bindings/python \\
        /usr/bin/python3 benchmarks/plans_memory.py DIR
"""
import resource
import sys

import numpy as np

import ge


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main():
    folder = sys.argv[1]
    session = ge.InferenceSession(f"{folder}/encoder_dynamic.onnx")
    loaded = peak_mb()
    for batch, length in ((1, 7), (4, 33), (2, 128)):
        x = np.load(f"{folder}/x_{batch}_{length}.npy")
        for _ in range(3):
            session.run(None, {"x": x})
    print(f"peak RSS above the loaded model: {peak_mb() - loaded:.1f} MB, "
          f"plans compiled: {session.model.run_stats['plans_compiled']}")


if __name__ == "__main__":
    main()
