#include "runtime/execute/stream_workers.h"

#include <omp.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "runtime/execute/usable_cores.h"

namespace ge::runtime {
namespace {

class WorkerPool {
 public:
  void Run(std::function<void()> task) {
    std::unique_lock lock(mutex_);
    if (idle_ == 0) {
      std::thread(&WorkerPool::Loop, this).detach();  // lives as long as the process
      ++idle_;
    }
    --idle_;
    tasks_.push_back(std::move(task));
    lock.unlock();
    wake_.notify_one();
  }

 private:
  void Loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return !tasks_.empty(); });
      std::function<void()> task = std::move(tasks_.back());
      tasks_.pop_back();
      lock.unlock();
      task();  // tasks catch their own exceptions
      task = nullptr;
      lock.lock();
      ++idle_;
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<std::function<void()>> tasks_;
  int idle_ = 0;  // workers not running a task, minus tasks handed to them and not yet taken
};

// Never destroyed: detached workers use it until the process ends.
WorkerPool& Pool() {
  static WorkerPool* pool = new WorkerPool();
  return *pool;
}

}  // namespace

void RunOnWorker(std::function<void()> task) { Pool().Run(std::move(task)); }

namespace {

int BudgetThreads(int intra_op_threads) { return intra_op_threads > 0 ? intra_op_threads : UsableCores(); }

}  // namespace

int StreamTeamSize(int intra_op_threads, int streams) {
  return std::max(1, BudgetThreads(intra_op_threads) / std::max(1, streams));
}

ThreadBudget::ThreadBudget(int intra_op_threads, int streams)
    : free_(BudgetThreads(intra_op_threads)), share_(StreamTeamSize(intra_op_threads, streams)) {}

int ThreadBudget::Acquire() {
  std::unique_lock lock(mutex_);
  freed_.wait(lock, [&] { return free_ >= share_; });
  free_ -= share_;
  return share_;
}

void ThreadBudget::Release(int threads) {
  {
    std::lock_guard lock(mutex_);
    free_ += threads;
  }
  freed_.notify_one();
}

}  // namespace ge::runtime
