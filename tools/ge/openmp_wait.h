// Bounded spinning for the OpenMP threads of the `ge` tool.
//
// OpenMP workers that finish a parallel region early spin before they sleep:
// libgomp's default is 300,000 spins (about a millisecond) per wait. On a
// quiet machine that only keeps them warm, but when other processes hold the
// cores, a spinning worker can take the very core the straggler of its team
// waits for, and the regions of a CNN's run then cost scheduler time slices:
// p99 latencies of hundreds of milliseconds. 1,000 spins (libgomp's own
// count for oversubscribed teams) keep mobilenet_v2 under two busy loops near
// ONNX Runtime's p90, for 0-5% of median latency on a quiet machine; counts
// between 3,000 and 30,000 measured worse under load than either
// (docs/performance.md, benchmarks/busy_core.sh).
//
// libgomp reads GOMP_SPINCOUNT once, in its initializer, which runs before
// main; setting it earlier does not work either (libc's own initializer,
// after the executable's preinit array, resets the environment). So the tool
// sets it and executes itself again, once: a few milliseconds of start-up.
#pragma once

namespace ge::cli {

inline constexpr const char* kOpenMpSpinCount = "1000";

// Unless GOMP_SPINCOUNT or OMP_WAIT_POLICY is set: sets GOMP_SPINCOUNT and
// re-executes this program with `argv` (returns only when that fails).
void BoundOpenMpSpinning(char** argv);

}  // namespace ge::cli
