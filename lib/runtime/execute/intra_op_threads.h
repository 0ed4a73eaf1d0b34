// The OpenMP team size of the calling thread while ge works on it.
//
// Kernels size per-thread scratch memory (oneDNN scratchpads) by the team
// size when they are created, so compiling, loading and running a model all
// happen under the model's ge.exec.intraOpThreads. OpenMP keeps the setting
// per thread, so concurrent runs of different models do not interfere; the
// caller's own setting is restored afterwards.
#pragma once

namespace ge::runtime {

class ScopedIntraOpThreads {
 public:
  // threads <= 0: every core the process may use (UsableCores).
  explicit ScopedIntraOpThreads(int threads);
  ~ScopedIntraOpThreads();
  ScopedIntraOpThreads(const ScopedIntraOpThreads&) = delete;
  ScopedIntraOpThreads& operator=(const ScopedIntraOpThreads&) = delete;

 private:
  int previous_;
};

}  // namespace ge::runtime
