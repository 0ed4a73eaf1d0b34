// Bounded spinning for the OpenMP threads of the `ge` tool.
//
// OpenMP workers that finish a parallel region early spin before they sleep:
// libgomp's default is 300,000 spins (about a millisecond) per wait. On a
// quiet machine that only keeps them warm, but when other processes hold the
// cores, a spinning worker can take the very core the straggler of its team
// waits for, and the regions of a CNN's run then cost scheduler time slices:
// p99 latencies of hundreds of milliseconds. 1,000 spins (libgomp's own
// count for oversubscribed teams) keep mobilenet_v2 under two busy loops at
// ONNX Runtime's p90, for 0-5% of median latency on a quiet machine; counts
// between 3,000 and 30,000 measured worse under load than either
// (docs/performance.md, benchmarks/busy_core.sh).
//
// libgomp reads GOMP_SPINCOUNT once, in its own initializer, which runs
// before main: hence an entry of the executable's preinit array, which the
// dynamic loader runs before any library's initializer. A value the user
// set (GOMP_SPINCOUNT or OMP_WAIT_POLICY) is kept.
#include <cstdlib>

namespace {

void BoundOpenMpSpinning(int /*argc*/, char** /*argv*/, char** /*envp*/) {
  if (std::getenv("GOMP_SPINCOUNT") == nullptr && std::getenv("OMP_WAIT_POLICY") == nullptr) {
    setenv("GOMP_SPINCOUNT", "1000", /*overwrite=*/0);
  }
}

[[gnu::section(".preinit_array"), gnu::used]] void (*const kBoundOpenMpSpinning)(int, char**, char**) =
    &BoundOpenMpSpinning;

}  // namespace
