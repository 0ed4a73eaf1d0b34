#include "device/acl/emulator/emulator_state.h"

#include <fmt/core.h>

#include <vector>

namespace ge::acl_emulator {
namespace {

struct RecentError {
  std::string pending;  // recorded, not read yet
  std::string read;     // what the last aclGetRecentErrMsg returned; its pointer stays valid
  bool has_pending = false;
};

RecentError& ThisThreadError() {
  thread_local RecentError error;
  return error;
}

}  // namespace

aclError Fail(aclError code, std::string message) {
  RecentError& error = ThisThreadError();
  error.pending = fmt::format("{} (error code {})", message, code);
  error.has_pending = true;
  return code;
}

const char* TakeRecentErrorMessage() {
  RecentError& error = ThisThreadError();
  if (!error.has_pending) return nullptr;
  error.read = std::move(error.pending);
  error.has_pending = false;
  return error.read.c_str();
}

AlignedMemory AllocateAligned(size_t bytes) {
  const size_t rounded = (bytes + kMemoryAlignment - 1) / kMemoryAlignment * kMemoryAlignment;
  return AlignedMemory(static_cast<std::byte*>(std::aligned_alloc(kMemoryAlignment, rounded)));
}

Emulator& Emulator::Get() {
  static Emulator emulator;
  return emulator;
}

RangePlace Emulator::Locate(const void* p, size_t bytes) const {
  const auto address = reinterpret_cast<uintptr_t>(p);
  auto next = device_memory.upper_bound(address);
  if (next == device_memory.begin()) return RangePlace::kHost;
  const auto& [base, allocation] = *std::prev(next);
  if (address >= base + allocation.size) return RangePlace::kHost;
  return bytes <= base + allocation.size - address ? RangePlace::kDevice : RangePlace::kPastEnd;
}

EmulatedStream* Emulator::FindStream(aclrtStream stream) const {
  auto found = streams.find(stream);
  return found == streams.end() ? nullptr : found->second.get();
}

void Emulator::EndSession() {
  std::map<void*, std::unique_ptr<EmulatedStream>> released_streams;
  std::map<uintptr_t, Allocation> released_device_memory;
  std::map<uintptr_t, Allocation> released_host_memory;
  {
    std::lock_guard<std::mutex> lock(mutex);
    released_streams.swap(streams);
    events.clear();
    contexts.clear();
    compile_options.clear();
    compile_flag = ACL_OP_COMPILE_DEFAULT;
    initialized = false;
  }
  ClearOpCache();
  // The streams finish their queued work (which may touch the memory) before the memory goes.
  released_streams.clear();
  std::lock_guard<std::mutex> lock(mutex);
  released_device_memory.swap(device_memory);
  released_host_memory.swap(host_memory);
}

LockedCall::LockedCall(const char* call)
    : emulator_(Emulator::Get()), lock_(emulator_.mutex), call_(call), status_(ACL_SUCCESS) {
  if (!emulator_.initialized) {
    status_ = Fail(ACL_ERROR_UNINITIALIZE, fmt::format("{}: ACL is not initialised; call aclInit first", call));
  }
}

aclError LockedCall::UnknownHandle(const char* what, const void* handle) const {
  return Fail(ACL_ERROR_INVALID_PARAM,
              fmt::format("{}: {} {} is not a live {} (never created, or destroyed)", call_, what, handle, what));
}

aclError LockedCall::FindStream(aclrtStream handle, EmulatedStream*& stream) const {
  if (status_ != ACL_SUCCESS) return status_;
  stream = emulator_.FindStream(handle);
  return stream != nullptr ? ACL_SUCCESS : UnknownHandle("stream", handle);
}

aclError LockedCall::FindEvent(aclrtEvent handle, std::shared_ptr<EventState>& event) const {
  if (status_ != ACL_SUCCESS) return status_;
  auto found = emulator_.events.find(handle);
  if (found == emulator_.events.end()) return UnknownHandle("event", handle);
  event = found->second;
  return ACL_SUCCESS;
}

aclError LockedCall::FindContext(aclrtContext handle, const Context*& context) const {
  if (status_ != ACL_SUCCESS) return status_;
  auto found = emulator_.contexts.find(handle);
  if (found == emulator_.contexts.end()) return UnknownHandle("context", handle);
  context = found->second.get();
  return ACL_SUCCESS;
}

int32_t& CurrentDevice() {
  thread_local int32_t device = -1;
  return device;
}

}  // namespace ge::acl_emulator
