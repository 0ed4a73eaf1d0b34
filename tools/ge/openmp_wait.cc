#include "openmp_wait.h"

#include <unistd.h>

#include <cstdlib>

namespace ge::cli {

void BoundOpenMpSpinning(char** argv) {
  if (std::getenv("GOMP_SPINCOUNT") != nullptr || std::getenv("OMP_WAIT_POLICY") != nullptr) return;
  if (setenv("GOMP_SPINCOUNT", kOpenMpSpinCount, /*overwrite=*/0) != 0 || std::getenv("GOMP_SPINCOUNT") == nullptr) {
    return;
  }
  execv("/proc/self/exe", argv);
  // No /proc, or the binary was replaced: run on with libgomp's default.
}

}  // namespace ge::cli
