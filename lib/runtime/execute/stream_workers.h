// What the CPU needs to run several streams of one run at once: threads to
// run them on, and one intra-op thread budget they share.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>

namespace ge::runtime {

// Runs a task on a thread of a process-wide pool: an idle worker if there
// is one, else a new one. Every task gets a thread of its own at once, so
// tasks may wait for each other without deadlock. Idle workers sleep on a
// condition variable until the next task; the pool never shrinks below the
// most tasks ever running at once (a few per concurrent multi-stream run).
void RunOnWorker(std::function<void()> task);

// Threads of the intra-op budget each stream of a `streams`-stream plan runs
// its kernels with: budget / streams, at least 1. `intra_op_threads` is
// ge.exec.intraOpThreads (0: every core the process may use). Kernels of a
// multi-stream plan are created with this team size (oneDNN fixes a
// primitive's thread count when it is created), so running them on the
// stream's share keeps the budget.
int StreamTeamSize(int intra_op_threads, int streams);

// The intra-op (OpenMP) threads of one run, shared by its streams so that
// kernels running at once never use more threads together than the budget.
// Each stream gets a fixed share, budget / streams (at least one thread);
// with more streams than threads, a stream waits (asleep) for a free thread
// before each kernel. Shares are fixed rather than regrown when a stream
// idles because OpenMP workers keep spinning for a while after a parallel
// region: a team grown and shrunk again would hold cores another stream was
// promised.
class ThreadBudget {
 public:
  // `intra_op_threads` as for StreamTeamSize.
  ThreadBudget(int intra_op_threads, int streams);
  // Blocks until the stream's share is free; returns it.
  int Acquire();
  void Release(int threads);

 private:
  std::mutex mutex_;
  std::condition_variable freed_;
  int free_;
  const int share_;  // StreamTeamSize
};

}  // namespace ge::runtime
