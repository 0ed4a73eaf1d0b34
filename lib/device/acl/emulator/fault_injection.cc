#include "device/acl/emulator/fault_injection.h"

#include "device/acl/emulator/emulator_state.h"

namespace ge::acl_emulator {

void FailNextMalloc(int n_th) {
  Emulator& emulator = Emulator::Get();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  emulator.malloc_failure_countdown = n_th > 0 ? n_th : 0;
}

void FailNextOp(const char* op_type) {
  Emulator& emulator = Emulator::Get();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  emulator.op_failure_pending = true;
  emulator.failing_op_type = op_type == nullptr ? "" : op_type;
}

void FailStream(aclrtStream stream) {
  Emulator& emulator = Emulator::Get();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  if (EmulatedStream* target = emulator.FindStream(stream)) target->InjectFailure();
}

size_t LiveDeviceAllocations() {
  Emulator& emulator = Emulator::Get();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  return emulator.device_memory.size();
}

size_t LiveHostAllocations() {
  Emulator& emulator = Emulator::Get();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  return emulator.host_memory.size();
}

size_t LiveStreams() {
  Emulator& emulator = Emulator::Get();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  return emulator.streams.size();
}

size_t LiveEvents() {
  Emulator& emulator = Emulator::Get();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  return emulator.events.size();
}

size_t CachedOps() { return OpCacheSize(); }

std::string CompileOption(aclCompileOpt option) {
  Emulator& emulator = Emulator::Get();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  auto found = emulator.compile_options.find(option);
  return found == emulator.compile_options.end() ? std::string() : found->second;
}

void Reset() {
  Emulator& emulator = Emulator::Get();
  emulator.EndSession();
  std::lock_guard<std::mutex> lock(emulator.mutex);
  emulator.malloc_failure_countdown = 0;
  emulator.op_failure_pending = false;
  emulator.failing_op_type.clear();
  CurrentDevice() = -1;
}

}  // namespace ge::acl_emulator
