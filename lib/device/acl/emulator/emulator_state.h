// The process-wide state of the host ACL emulator: initialisation, the device
// and host memory registries, streams, events, contexts, compile options and
// injected faults. Internal to lib/device/acl/emulator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "device/acl/emulator/emulated_stream.h"

struct aclTensorDesc {
  aclDataType dtype = ACL_DT_UNDEFINED;
  std::vector<int64_t> dims;
  aclFormat format = ACL_FORMAT_UNDEFINED;
  std::optional<std::vector<std::byte>> constant;  // host copy of what aclSetTensorConst gave
};

struct aclDataBuffer {
  void* data = nullptr;
  size_t size = 0;
};

namespace ge::acl_emulator {

inline constexpr int32_t kDeviceCount = 2;
inline constexpr size_t kMemoryAlignment = 64;

// Records `message` as this thread's most recent error and returns `code`.
aclError Fail(aclError code, std::string message);
// aclGetRecentErrMsg: this thread's most recent error message (valid until the
// thread's next call of it), or nullptr when none was recorded since.
const char* TakeRecentErrorMessage();

// Memory from std::aligned_alloc, released with std::free.
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using AlignedMemory = std::unique_ptr<std::byte, FreeDeleter>;
AlignedMemory AllocateAligned(size_t bytes);

struct Allocation {
  AlignedMemory memory;
  size_t size = 0;
  int32_t device = -1;
};

struct Context {
  int32_t device = 0;
};

// Where a pointer range lies relative to the device memory registry.
enum class RangePlace { kHost, kDevice, kPastEnd };

class Emulator {
 public:
  static Emulator& Get();

  std::mutex mutex;  // guards every member below
  bool initialized = false;
  std::map<uintptr_t, Allocation> device_memory;  // by base address
  std::map<uintptr_t, Allocation> host_memory;
  std::map<void*, std::unique_ptr<EmulatedStream>> streams;
  std::map<void*, std::shared_ptr<EventState>> events;
  std::map<void*, std::unique_ptr<Context>> contexts;
  std::map<aclCompileOpt, std::string> compile_options;
  aclOpCompileFlag compile_flag = ACL_OP_COMPILE_DEFAULT;

  int malloc_failure_countdown = 0;  // 0: none pending
  bool op_failure_pending = false;
  std::string failing_op_type;  // empty: any op

  // Where [p, p + bytes) lies; the caller holds `mutex`.
  RangePlace Locate(const void* p, size_t bytes) const;
  // The stream behind a handle, or nullptr; the caller holds `mutex`.
  EmulatedStream* FindStream(aclrtStream stream) const;
  // Ends the aclInit..aclFinalize session: releases every stream (after its
  // queued work), event, context, allocation and compiled op, forgets the
  // compile options and clears `initialized` (aclFinalize, Reset). Takes `mutex`.
  void EndSession();
};

// One ACL entry point's hold on the emulator: takes its mutex and checks that
// aclInit succeeded (status(): ACL_ERROR_UNINITIALIZE naming the call, or
// ACL_SUCCESS). The Find functions look up the handles the call was given and
// fail, naming the call, on one never created or already destroyed; after a
// failed status() they return it unchanged. Calls that wait for queued work
// Unlock() first, since that work takes the mutex itself.
class LockedCall {
 public:
  explicit LockedCall(const char* call);

  aclError status() const { return status_; }
  Emulator& emulator() { return emulator_; }

  aclError FindStream(aclrtStream handle, EmulatedStream*& stream) const;
  aclError FindEvent(aclrtEvent handle, std::shared_ptr<EventState>& event) const;
  aclError FindContext(aclrtContext handle, const Context*& context) const;
  // The failure for `handle`, which is not a live `what` (stream, event, context).
  aclError UnknownHandle(const char* what, const void* handle) const;

  void Unlock() { lock_.unlock(); }

 private:
  Emulator& emulator_;
  std::unique_lock<std::mutex> lock_;
  const char* call_;
  aclError status_;
};
// The device this thread set with aclrtSetDevice / aclrtSetCurrentContext, or -1.
int32_t& CurrentDevice();

// Clears the op cache (Emulator::EndSession).
void ClearOpCache();
size_t OpCacheSize();

}  // namespace ge::acl_emulator
