// An emulated ACL stream: one worker thread running queued work in order, and
// the events that order work across streams.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "acl/acl_base.h"

namespace ge::acl_emulator {

// One piece of stream work; on failure it returns an error code and fills `message`.
using StreamWork = std::function<aclError(std::string& message)>;

class EmulatedStream {
 public:
  explicit EmulatedStream(int32_t device);
  // Runs what is queued, then stops the worker.
  ~EmulatedStream();
  EmulatedStream(const EmulatedStream&) = delete;
  EmulatedStream& operator=(const EmulatedStream&) = delete;

  int32_t device() const { return device_; }
  // Queues work. After a failure, later work is skipped until Synchronize()
  // reports the failure, except `ordering` work (event records and waits),
  // which always runs so that nothing waiting on this stream hangs.
  void Launch(StreamWork work, bool ordering = false);
  // Waits until everything queued so far has run; returns the first failure
  // since the last Synchronize (and its message), then clears it.
  aclError Synchronize(std::string& message);
  // From now on every non-ordering work item fails (fault injection).
  void InjectFailure();

 private:
  struct Item {
    StreamWork work;
    bool ordering = false;
  };
  void WorkerLoop();

  const int32_t device_;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable idle_;
  std::deque<Item> queue_;
  bool running_item_ = false;
  bool stopping_ = false;
  bool injected_failure_ = false;
  aclError error_ = ACL_SUCCESS;
  std::string error_message_;
  std::thread worker_;  // last: starts after every member above is ready
};

// An event: each record is a position in a stream; waits and synchronizes
// wait for the records made before them.
class EventState {
 public:
  // A new record; returns its number, to be completed when the stream reaches it.
  uint64_t NewRecord();
  void Complete(uint64_t record);
  uint64_t last_record();
  void WaitFor(uint64_t record);

 private:
  std::mutex mutex_;
  std::condition_variable completed_cv_;
  uint64_t recorded_ = 0;
  uint64_t completed_ = 0;
};

}  // namespace ge::acl_emulator
