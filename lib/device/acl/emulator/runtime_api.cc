// aclInit / aclFinalize, devices, contexts, streams and events of the emulator.
#include <fmt/core.h>

#include "acl/acl.h"
#include "device/acl/emulator/emulator_state.h"

using ge::acl_emulator::CurrentDevice;
using ge::acl_emulator::Emulator;
using ge::acl_emulator::EmulatedStream;
using ge::acl_emulator::EventState;
using ge::acl_emulator::Fail;
using ge::acl_emulator::LockedCall;

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
  LockedCall call("aclrtSetDevice");
  if (aclError status = call.status()) return status;
  if (aclError status = CheckDeviceId("aclrtSetDevice", deviceId)) return status;
  CurrentDevice() = deviceId;
  return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId) {
  LockedCall call("aclrtResetDevice");
  if (aclError status = call.status()) return status;
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
  LockedCall call("aclrtCreateContext");
  if (aclError status = call.status()) return status;
  if (context == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateContext: context is null");
  if (aclError status = CheckDeviceId("aclrtCreateContext", deviceId)) return status;
  auto created = std::make_unique<ge::acl_emulator::Context>(ge::acl_emulator::Context{deviceId});
  *context = created.get();
  call.emulator().contexts.emplace(created.get(), std::move(created));
  CurrentDevice() = deviceId;  // a new context becomes the thread's current one
  return ACL_SUCCESS;
}

aclError aclrtDestroyContext(aclrtContext context) {
  LockedCall call("aclrtDestroyContext");
  if (aclError status = call.status()) return status;
  if (call.emulator().contexts.erase(context) == 0) return call.UnknownHandle("context", context);
  return ACL_SUCCESS;
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  LockedCall call("aclrtSetCurrentContext");
  const ge::acl_emulator::Context* found = nullptr;
  if (aclError status = call.FindContext(context, found)) return status;
  CurrentDevice() = found->device;
  return ACL_SUCCESS;
}

aclError aclrtCreateStream(aclrtStream* stream) {
  LockedCall call("aclrtCreateStream");
  if (aclError status = call.status()) return status;
  if (stream == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: stream is null");
  if (aclError status = RequireCurrentDevice("aclrtCreateStream")) return status;
  auto created = std::make_unique<EmulatedStream>(CurrentDevice());
  *stream = created.get();
  call.emulator().streams.emplace(created.get(), std::move(created));
  return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  std::unique_ptr<EmulatedStream> destroyed;
  {
    LockedCall call("aclrtDestroyStream");
    EmulatedStream* found = nullptr;
    if (aclError status = call.FindStream(stream, found)) return status;
    destroyed = std::move(call.emulator().streams.extract(stream).mapped());
  }
  destroyed.reset();  // runs the queued work outside the lock
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  LockedCall call("aclrtSynchronizeStream");
  if (aclError status = call.status()) return status;
  if (stream == nullptr) return ACL_SUCCESS;  // the default stream runs its work at launch
  EmulatedStream* target = nullptr;
  if (aclError status = call.FindStream(stream, target)) return status;
  call.Unlock();
  std::string message;
  if (aclError status = target->Synchronize(message)) {
    return Fail(status, fmt::format("aclrtSynchronizeStream: work queued on stream {} failed: {}", stream, message));
  }
  return ACL_SUCCESS;
}

aclError aclrtCreateEvent(aclrtEvent* event) {
  LockedCall call("aclrtCreateEvent");
  if (aclError status = call.status()) return status;
  if (event == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateEvent: event is null");
  auto created = std::make_shared<EventState>();
  *event = created.get();
  call.emulator().events.emplace(created.get(), std::move(created));
  return ACL_SUCCESS;
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  LockedCall call("aclrtDestroyEvent");
  if (aclError status = call.status()) return status;
  // Queued records and waits hold the event's state, so destroying it early is safe.
  if (call.emulator().events.erase(event) == 0) return call.UnknownHandle("event", event);
  return ACL_SUCCESS;
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  LockedCall call("aclrtRecordEvent");
  std::shared_ptr<EventState> state;
  if (aclError status = call.FindEvent(event, state)) return status;
  const uint64_t record = state->NewRecord();
  if (stream == nullptr) {
    state->Complete(record);  // the default stream has run everything launched on it
    return ACL_SUCCESS;
  }
  EmulatedStream* target = nullptr;
  if (aclError status = call.FindStream(stream, target)) return status;
  target->Launch(
      [state, record](std::string&) {
        state->Complete(record);
        return ACL_SUCCESS;
      },
      /*ordering=*/true);
  return ACL_SUCCESS;
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  LockedCall call("aclrtStreamWaitEvent");
  std::shared_ptr<EventState> state;
  if (aclError status = call.FindEvent(event, state)) return status;
  EmulatedStream* target = nullptr;
  if (stream != nullptr) {
    if (aclError status = call.FindStream(stream, target)) return status;
  }
  call.Unlock();
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
  LockedCall call("aclrtSynchronizeEvent");
  std::shared_ptr<EventState> state;
  if (aclError status = call.FindEvent(event, state)) return status;
  call.Unlock();
  state->WaitFor(state->last_record());
  return ACL_SUCCESS;
}

}  // extern "C"
