#include "device/acl/emulator/emulated_stream.h"

#include <algorithm>
#include <utility>

namespace ge::acl_emulator {

EmulatedStream::EmulatedStream(int32_t device) : device_(device), worker_([this] { WorkerLoop(); }) {}

EmulatedStream::~EmulatedStream() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  worker_.join();
}

void EmulatedStream::Launch(StreamWork work, bool ordering) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(Item{std::move(work), ordering});
  }
  work_ready_.notify_all();
}

aclError EmulatedStream::Synchronize(std::string& message) {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return queue_.empty() && !running_item_; });
  const aclError error = std::exchange(error_, ACL_SUCCESS);
  message = std::exchange(error_message_, std::string());
  return error;
}

void EmulatedStream::InjectFailure() {
  std::lock_guard<std::mutex> lock(mutex_);
  injected_failure_ = true;
}

void EmulatedStream::WorkerLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything queued has run
    Item item = std::move(queue_.front());
    queue_.pop_front();
    const bool skip = !item.ordering && error_ != ACL_SUCCESS;
    const bool inject = !item.ordering && injected_failure_;
    running_item_ = true;
    lock.unlock();
    std::string message;
    aclError result = ACL_SUCCESS;
    if (inject) {
      result = ACL_ERROR_RT_FAILURE;
      message = "stream work failed: failure injected by ge::acl_emulator::FailStream";
    } else if (!skip) {
      result = item.work(message);
    }
    item.work = nullptr;  // release what the work captured before the stream reports idle
    lock.lock();
    running_item_ = false;
    if (result != ACL_SUCCESS && error_ == ACL_SUCCESS) {
      error_ = result;
      error_message_ = std::move(message);
    }
    if (queue_.empty()) idle_.notify_all();
  }
}

uint64_t EventState::NewRecord() {
  std::lock_guard<std::mutex> lock(mutex_);
  return ++recorded_;
}

void EventState::Complete(uint64_t record) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    completed_ = std::max(completed_, record);
  }
  completed_cv_.notify_all();
}

uint64_t EventState::last_record() {
  std::lock_guard<std::mutex> lock(mutex_);
  return recorded_;
}

void EventState::WaitFor(uint64_t record) {
  std::unique_lock<std::mutex> lock(mutex_);
  completed_cv_.wait(lock, [&] { return completed_ >= record; });
}

}  // namespace ge::acl_emulator
