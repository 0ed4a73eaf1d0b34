// The run threads behind CompiledModel::RunAsync and Session::RunGraphAsync.
//
// A bounded pool: at most `max_workers` threads (ge.exec.asyncWorkers), started
// only when work arrives and no worker is idle, and kept (sleeping on a
// condition variable) until the pool is destroyed. Tasks queue in submission
// order. A task that throws is reported on stderr and dropped: nothing a
// caller's callback does can take a worker down.
//
// Destroying the pool runs every task already submitted and waits for them,
// so a model or session that owns one outlives its async runs. A task may
// itself destroy the pool (a callback dropping the last reference to its
// model): the remaining tasks then run on that thread, the other workers are
// joined, and the calling worker finishes on state it shares with the pool.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "ge/compiled_model.h"

namespace ge::runtime {

// What a callback receives for `run`: its outputs, or the exception it threw
// as an Error (ge::Error as is, anything else kInternal).
RunResult RunCapturingErrors(const std::function<std::vector<Tensor>()>& run);

class AsyncRunner {
 public:
  explicit AsyncRunner(size_t max_workers);
  ~AsyncRunner();
  AsyncRunner(const AsyncRunner&) = delete;
  AsyncRunner& operator=(const AsyncRunner&) = delete;

  void Submit(std::function<void()> task);
  // Threads started so far (for tests).
  size_t workers() const;

  struct State;  // shared with the workers (async_runner.cc)

 private:
  std::shared_ptr<State> state_;
};

}  // namespace ge::runtime
