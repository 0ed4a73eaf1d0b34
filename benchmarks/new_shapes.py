#!/usr/bin/python3
"""What each new input shape of a dynamic model costs: the variable-length
encoder of dynamic_compare.sh, run three times at (1, 7), then three times at
each of 32 shapes not seen before, (1, 8) to (1, 39). The first run at a shape
goes node by node, the second compiles its static plan and runs it, the third
runs the plan (docs/runtime.md). Prints the median of each of the three in ms,
one intra-op thread, with the weights kept only packed as ge run keeps them
(ge.exec.releasePackedConstants=1); `--option KEY=VALUE` adds or replaces
an option (ge.exec.symbolicShapes=0 infers every changed step's shape with
its schema). Run from the repository root after
`bash benchmarks/dynamic_compare.sh DIR --export`:

    GE_C_LIBRARY=build/default/lib/c_api/libge_c.so PYTHONPATH=bindings/python \\
        /usr/bin/python3 benchmarks/new_shapes.py DIR [--option KEY=VALUE]... [--json]
"""
import json
import statistics
import sys
import time

import numpy as np

import ge


def timed_ms(session, x):
    start = time.perf_counter()
    session.run(None, {"x": x})
    return (time.perf_counter() - start) * 1e3


def main():
    folder = sys.argv[1]
    options = {"ge.exec.intraOpThreads": 1, "ge.exec.releasePackedConstants": 1}
    arguments = sys.argv[2:]
    for flag, value in zip(arguments, arguments[1:]):
        if flag == "--option":
            key, _, setting = value.partition("=")
            options[key] = setting
    session = ge.InferenceSession(f"{folder}/encoder_dynamic.onnx", options=options)
    rng = np.random.default_rng(0)
    features = np.load(f"{folder}/x_1_7.npy").shape[2]
    for _ in range(3):
        session.run(None, {"x": rng.standard_normal((1, 7, features)).astype(np.float32)})
    runs = [[], [], []]  # by visit: node by node, compiling the plan, planned
    for length in range(8, 40):
        x = rng.standard_normal((1, length, features)).astype(np.float32)
        for visit in runs:
            visit.append(timed_ms(session, x))
    names = ("first_run_ms", "second_run_ms", "third_run_ms")
    result = {name: statistics.median(visit) for name, visit in zip(names, runs)}
    result["plans_compiled"] = session.model.run_stats["plans_compiled"]
    result["shape_inferences"] = session.model.run_stats.get("shape_inferences")
    if "--json" in sys.argv[2:]:
        print(json.dumps(result))
    else:
        print("median over 32 new shapes (ms): first run (node by node) {first_run_ms:.3f}, second (compiles the "
              "plan) {second_run_ms:.3f}, third (planned) {third_run_ms:.3f}; plans compiled: "
              "{plans_compiled}; steps whose shapes were inferred: {shape_inferences}".format(**result))


if __name__ == "__main__":
    main()
