"""Bounded spinning for OpenMP threads, set before libge_c loads libgomp.

libgomp's workers spin about a millisecond (300,000 spins) before they sleep.
When other processes hold the cores, a spinning worker can take the core the
straggler of its team waits for, and latency collapses; with 1,000 spins it
does not, for 0-5% of latency on a quiet machine (docs/performance.md; the
ge tool does the same, tools/ge/openmp_wait.cc). libgomp reads GOMP_SPINCOUNT once, when it is loaded:
this sets it only when neither it nor OMP_WAIT_POLICY is set and libgomp is
not loaded yet (by another module of this process, whose setting then holds).
"""
import os

SPIN_COUNT = "1000"


def _libgomp_loaded():
    try:
        with open("/proc/self/maps") as maps:
            return any("libgomp" in line for line in maps)
    except OSError:
        return False


def bound_spinning():
    if "GOMP_SPINCOUNT" in os.environ or "OMP_WAIT_POLICY" in os.environ or _libgomp_loaded():
        return
    os.environ["GOMP_SPINCOUNT"] = SPIN_COUNT
