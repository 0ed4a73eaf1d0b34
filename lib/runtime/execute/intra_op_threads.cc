#include "runtime/execute/intra_op_threads.h"

#include <omp.h>

#include "runtime/execute/usable_cores.h"

namespace ge::runtime {

ScopedIntraOpThreads::ScopedIntraOpThreads(int threads) : previous_(omp_get_max_threads()) {
  omp_set_num_threads(threads > 0 ? threads : UsableCores());
}

ScopedIntraOpThreads::~ScopedIntraOpThreads() { omp_set_num_threads(previous_); }

}  // namespace ge::runtime
