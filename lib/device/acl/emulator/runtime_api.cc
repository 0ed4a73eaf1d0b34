// aclInit / aclFinalize, devices, contexts, streams and events of the emulator.
#include <fmt/core.h>

#include "acl/acl.h"
#include "device/acl/emulator/emulator_state.h"

using ge::acl_emulator::CurrentDevice;
using ge::acl_emulator::Emulator;
using ge::acl_emulator::Fail;
using ge::acl_emulator::RequireInitialized;

namespace {

aclError CheckDeviceId(const char* call, int32_t device_id) {
  if (device_id >= 0 && device_id < ge::acl_emulator::kDeviceCount) return ACL_SUCCESS;
  return Fail(ACL_ERROR_RT_INVALID_DEVICEID, fmt::format("{}: device id {} is out of range; the emulator has "
                                                         "devices 0..{}",
                                                         call, device_id, ge::acl_emulator::kDeviceCount - 1));
}

// The current device of this thread, or a failure naming `call`.
aclError RequireCurrentDevice(const char* call) {
  if (CurrentDevice() >= 0) return ACL_SUCCESS;
  return Fail(ACL_ERROR_RT_CONTEXT_NULL, fmt::format("{}: this thread has no current device; call aclrtSetDevice "
                                                     "or aclrtSetCurrentContext first",
                                                     call));
}

aclError UnknownHandle(const char* call, const char* what, const void* handle) {
  return Fail(ACL_ERROR_INVALID_PARAM,
              fmt::format("{}: {} {} is not a live {} (never created, or destroyed)", call, what, handle, what));
}

}  // namespace

extern "C" {

aclError aclInit(const char* configPath) {
  Emulator& emulator = Emulator::Get();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  if (emulator.initialized) {
    return Fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: ACL is already initialised; call aclFinalize first");
  }
  // The emulator reads no configuration; a named file must at least exist, as ACL requires.
  if (configPath != nullptr && configPath[0] != '\0') {
    if (std::FILE* file = std::fopen(configPath, "rb")) {
      std::fclose(file);
    } else {
      return Fail(ACL_ERROR_INVALID_PARAM, fmt::format("aclInit: cannot open the configuration file '{}'", configPath));
    }
  }
  emulator.initialized = true;
  return ACL_SUCCESS;
}

aclError aclFinalize() {
  Emulator& emulator = Emulator::Get();
  {
    std::lock_guard<std::mutex> lock(emulator.mutex);
    if (!emulator.initialized) {
      return Fail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize: ACL is not initialised (never, or already finalised)");
    }
  }
  emulator.EndSession();
  CurrentDevice() = -1;
  return ACL_SUCCESS;
}

const char* aclGetRecentErrMsg() { return ge::acl_emulator::TakeRecentErrorMessage(); }

aclError aclrtSetDevice(int32_t deviceId) {
  Emulator& emulator = Emulator::Get();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  if (aclError status = RequireInitialized(emulator, "aclrtSetDevice")) return status;
  if (aclError status = CheckDeviceId("aclrtSetDevice", deviceId)) return status;
  CurrentDevice() = deviceId;
  return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId) {
  Emulator& emulator = Emulator::Get();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  if (aclError status = RequireInitialized(emulator, "aclrtResetDevice")) return status;
  if (aclError status = CheckDeviceId("aclrtResetDevice", deviceId)) return status;
  if (CurrentDevice() == deviceId) CurrentDevice() = -1;
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  if (count == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count is null");
  *count = ge::acl_emulator::kDeviceCount;
  return ACL_SUCCESS;
}

aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
  Emulator& emulator = Emulator::Get();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  if (aclError status = RequireInitialized(emulator, "aclrtCreateContext")) return status;
  if (context == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateContext: context is null");
  if (aclError status = CheckDeviceId("aclrtCreateContext", deviceId)) return status;
  auto created = std::make_unique<ge::acl_emulator::Context>(ge::acl_emulator::Context{deviceId});
  *context = created.get();
  emulator.contexts.emplace(created.get(), std::move(created));
  CurrentDevice() = deviceId;  // a new context becomes the thread's current one
  return ACL_SUCCESS;
}

aclError aclrtDestroyContext(aclrtContext context) {
  Emulator& emulator = Emulator::Get();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  if (aclError status = RequireInitialized(emulator, "aclrtDestroyContext")) return status;
  if (emulator.contexts.erase(context) == 0) return UnknownHandle("aclrtDestroyContext", "context", context);
  return ACL_SUCCESS;
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  Emulator& emulator = Emulator::Get();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  if (aclError status = RequireInitialized(emulator, "aclrtSetCurrentContext")) return status;
  auto found = emulator.contexts.find(context);
  if (found == emulator.contexts.end()) return UnknownHandle("aclrtSetCurrentContext", "context", context);
  CurrentDevice() = found->second->device;
  return ACL_SUCCESS;
}

aclError aclrtCreateStream(aclrtStream* stream) {
  Emulator& emulator = Emulator::Get();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  if (aclError status = RequireInitialized(emulator, "aclrtCreateStream")) return status;
  if (stream == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: stream is null");
  if (aclError status = RequireCurrentDevice("aclrtCreateStream")) return status;
  auto created = std::make_unique<ge::acl_emulator::EmulatedStream>(CurrentDevice());
  *stream = created.get();
  emulator.streams.emplace(created.get(), std::move(created));
  return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  Emulator& emulator = Emulator::Get();
  std::unique_ptr<ge::acl_emulator::EmulatedStream> destroyed;
  {
    std::lock_guard<std::mutex> lock(emulator.mutex);
    if (aclError status = RequireInitialized(emulator, "aclrtDestroyStream")) return status;
    auto found = emulator.streams.find(stream);
    if (found == emulator.streams.end()) return UnknownHandle("aclrtDestroyStream", "stream", stream);
    destroyed = std::move(found->second);
    emulator.streams.erase(found);
  }
  destroyed.reset();  // runs the queued work outside the lock
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  Emulator& emulator = Emulator::Get();
  ge::acl_emulator::EmulatedStream* target = nullptr;
  {
    std::lock_guard<std::mutex> lock(emulator.mutex);
    if (aclError status = RequireInitialized(emulator, "aclrtSynchronizeStream")) return status;
    if (stream == nullptr) return ACL_SUCCESS;  // the default stream runs its work at launch
    target = emulator.FindStream(stream);
    if (target == nullptr) return UnknownHandle("aclrtSynchronizeStream", "stream", stream);
  }
  std::string message;
  if (aclError status = target->Synchronize(message)) {
    return Fail(status, fmt::format("aclrtSynchronizeStream: work queued on stream {} failed: {}", stream, message));
  }
  return ACL_SUCCESS;
}

aclError aclrtCreateEvent(aclrtEvent* event) {
  Emulator& emulator = Emulator::Get();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  if (aclError status = RequireInitialized(emulator, "aclrtCreateEvent")) return status;
  if (event == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateEvent: event is null");
  auto created = std::make_shared<ge::acl_emulator::EventState>();
  *event = created.get();
  emulator.events.emplace(created.get(), std::move(created));
  return ACL_SUCCESS;
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  Emulator& emulator = Emulator::Get();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  if (aclError status = RequireInitialized(emulator, "aclrtDestroyEvent")) return status;
  // Queued records and waits hold the event's state, so destroying it early is safe.
  if (emulator.events.erase(event) == 0) return UnknownHandle("aclrtDestroyEvent", "event", event);
  return ACL_SUCCESS;
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  Emulator& emulator = Emulator::Get();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  if (aclError status = RequireInitialized(emulator, "aclrtRecordEvent")) return status;
  auto found = emulator.events.find(event);
  if (found == emulator.events.end()) return UnknownHandle("aclrtRecordEvent", "event", event);
  std::shared_ptr<ge::acl_emulator::EventState> state = found->second;
  const uint64_t record = state->NewRecord();
  if (stream == nullptr) {
    state->Complete(record);  // the default stream has run everything launched on it
    return ACL_SUCCESS;
  }
  ge::acl_emulator::EmulatedStream* target = emulator.FindStream(stream);
  if (target == nullptr) return UnknownHandle("aclrtRecordEvent", "stream", stream);
  target->Launch(
      [state, record](std::string&) {
        state->Complete(record);
        return ACL_SUCCESS;
      },
      /*ordering=*/true);
  return ACL_SUCCESS;
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  Emulator& emulator = Emulator::Get();
  std::shared_ptr<ge::acl_emulator::EventState> state;
  ge::acl_emulator::EmulatedStream* target = nullptr;
  {
    std::lock_guard<std::mutex> lock(emulator.mutex);
    if (aclError status = RequireInitialized(emulator, "aclrtStreamWaitEvent")) return status;
    auto found = emulator.events.find(event);
    if (found == emulator.events.end()) return UnknownHandle("aclrtStreamWaitEvent", "event", event);
    state = found->second;
    if (stream != nullptr) {
      target = emulator.FindStream(stream);
      if (target == nullptr) return UnknownHandle("aclrtStreamWaitEvent", "stream", stream);
    }
  }
  const uint64_t record = state->last_record();  // the wait covers the records made so far
  if (target == nullptr) {
    state->WaitFor(record);  // the default stream's next work starts after the event
    return ACL_SUCCESS;
  }
  target->Launch(
      [state, record](std::string&) {
        state->WaitFor(record);
        return ACL_SUCCESS;
      },
      /*ordering=*/true);
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  Emulator& emulator = Emulator::Get();
  std::shared_ptr<ge::acl_emulator::EventState> state;
  {
    std::lock_guard<std::mutex> lock(emulator.mutex);
    if (aclError status = RequireInitialized(emulator, "aclrtSynchronizeEvent")) return status;
    auto found = emulator.events.find(event);
    if (found == emulator.events.end()) return UnknownHandle("aclrtSynchronizeEvent", "event", event);
    state = found->second;
  }
  state->WaitFor(state->last_record());
  return ACL_SUCCESS;
}

}  // extern "C"
