#include "runtime/execute/async_runner.h"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/core.h>

namespace ge::runtime {

// Shared by the pool and its workers, so that a worker whose task destroyed
// the pool can still finish its loop.
struct AsyncRunner::State {
  size_t max_workers = 1;
  std::mutex mutex;
  std::condition_variable work;  // a task was queued, or the pool stops
  std::condition_variable done;  // a task finished
  std::deque<std::function<void()>> queue;
  size_t busy = 0;  // workers running a task
  size_t idle = 0;  // workers waiting for one
  bool stopping = false;
  std::vector<std::thread> threads;
};

namespace {

void RunGuarded(std::function<void()>& task) {
  try {
    task();
  } catch (const std::exception& error) {
    fmt::print(stderr, "ge: an asynchronous run's callback threw; ignored: {}\n", error.what());
  } catch (...) {
    fmt::print(stderr, "ge: an asynchronous run's callback threw a non-standard exception; ignored\n");
  }
}

// Runs `task` and destroys it (its captures may own the pool) outside the lock.
void RunAndRelease(std::function<void()> task, std::unique_lock<std::mutex>& lock) {
  lock.unlock();
  RunGuarded(task);
  task = nullptr;
  lock.lock();
}

void WorkerLoop(std::shared_ptr<AsyncRunner::State> state) {
  std::unique_lock lock(state->mutex);
  while (true) {
    ++state->idle;
    state->work.wait(lock, [&] { return state->stopping || !state->queue.empty(); });
    --state->idle;
    if (state->queue.empty()) return;  // stopping, and nothing left to run
    std::function<void()> task = std::move(state->queue.front());
    state->queue.pop_front();
    ++state->busy;
    RunAndRelease(std::move(task), lock);
    --state->busy;
    state->done.notify_all();
  }
}

}  // namespace

RunResult RunCapturingErrors(const std::function<std::vector<Tensor>()>& run) {
  RunResult result;
  try {
    result.outputs = run();
  } catch (const Error& error) {
    result.error = error;
  } catch (const std::exception& error) {
    result.error = Error(ErrorCode::kInternal, error.what());
  } catch (...) {
    result.error = Error(ErrorCode::kInternal, "a run threw a non-standard exception");
  }
  return result;
}

AsyncRunner::AsyncRunner(size_t max_workers) : state_(std::make_shared<State>()) {
  state_->max_workers = std::max<size_t>(max_workers, 1);
}

AsyncRunner::~AsyncRunner() {
  std::unique_lock lock(state_->mutex);
  const std::thread::id self = std::this_thread::get_id();
  bool on_worker = std::any_of(state_->threads.begin(), state_->threads.end(),
                               [&](const std::thread& thread) { return thread.get_id() == self; });
  // A worker destroying its own pool is busy with that task; it runs what is
  // queued itself, since it may be the only worker.
  const size_t own_task = on_worker ? 1 : 0;
  while (on_worker && !state_->queue.empty()) {
    std::function<void()> task = std::move(state_->queue.front());
    state_->queue.pop_front();
    RunAndRelease(std::move(task), lock);
  }
  state_->done.wait(lock, [&] { return state_->queue.empty() && state_->busy == own_task; });
  state_->stopping = true;
  std::vector<std::thread> threads = std::move(state_->threads);
  lock.unlock();
  state_->work.notify_all();
  for (std::thread& thread : threads) {
    if (thread.get_id() == self) {
      thread.detach();
    } else {
      thread.join();
    }
  }
}

void AsyncRunner::Submit(std::function<void()> task) {
  {
    std::lock_guard lock(state_->mutex);
    state_->queue.push_back(std::move(task));
    // Idle workers take one queued task each; start another only for the rest.
    if (state_->queue.size() > state_->idle && state_->threads.size() < state_->max_workers) {
      state_->threads.emplace_back(WorkerLoop, state_);
    }
  }
  state_->work.notify_one();
}

size_t AsyncRunner::workers() const {
  std::lock_guard lock(state_->mutex);
  return state_->threads.size();
}

}  // namespace ge::runtime
