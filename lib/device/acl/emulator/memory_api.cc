// Device and host memory of the emulator: every device allocation is recorded
// (base, size, device) so that copies can tell device from host pointers and
// catch ranges that run past an allocation's end.
#include <fmt/core.h>

#include <cstring>

#include "acl/acl.h"
#include "device/acl/emulator/emulator_state.h"

using ge::acl_emulator::Emulator;
using ge::acl_emulator::Fail;
using ge::acl_emulator::RangePlace;
using ge::acl_emulator::LockedCall;

namespace {

const char* KindName(aclrtMemcpyKind kind) {
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST:
      return "ACL_MEMCPY_HOST_TO_HOST";
    case ACL_MEMCPY_HOST_TO_DEVICE:
      return "ACL_MEMCPY_HOST_TO_DEVICE";
    case ACL_MEMCPY_DEVICE_TO_HOST:
      return "ACL_MEMCPY_DEVICE_TO_HOST";
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
      return "ACL_MEMCPY_DEVICE_TO_DEVICE";
    case ACL_MEMCPY_DEFAULT:
      return "ACL_MEMCPY_DEFAULT";
  }
  return "an unknown kind";
}

// Checks that [p, p + count) lies where `requirer` wants it: in one device
// allocation (device == true) or outside all of them.
aclError CheckSide(const Emulator& emulator, const char* call, const char* role, const void* p, size_t count,
                   bool device, const char* requirer) {
  const RangePlace place = emulator.Locate(p, count);
  if (device && place == RangePlace::kHost) {
    return Fail(ACL_ERROR_INVALID_PARAM, fmt::format("{}: {} {} is not device memory (from aclrtMalloc), as {} "
                                                     "requires",
                                                     call, role, p, requirer));
  }
  if (device && place == RangePlace::kPastEnd) {
    return Fail(ACL_ERROR_INVALID_PARAM, fmt::format("{}: {} {} plus {} bytes runs past the end of its device "
                                                     "allocation",
                                                     call, role, p, count));
  }
  if (!device && place != RangePlace::kHost) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                fmt::format("{}: {} {} is device memory, but {} wants host memory there", call, role, p, requirer));
  }
  return ACL_SUCCESS;
}

// Validates a copy; the caller holds the emulator's mutex.
aclError CheckCopy(const Emulator& emulator, const char* call, void* dst, size_t dest_max, const void* src,
                   size_t count, aclrtMemcpyKind kind) {
  if (dst == nullptr || src == nullptr) {
    return Fail(ACL_ERROR_INVALID_PARAM, fmt::format("{}: {} is null", call, dst == nullptr ? "dst" : "src"));
  }
  if (count > dest_max) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                fmt::format("{}: count {} exceeds destMax {} of dst {}", call, count, dest_max, dst));
  }
  bool dst_device = false;
  bool src_device = false;
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST:
      break;
    case ACL_MEMCPY_HOST_TO_DEVICE:
      dst_device = true;
      break;
    case ACL_MEMCPY_DEVICE_TO_HOST:
      src_device = true;
      break;
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
      dst_device = src_device = true;
      break;
    case ACL_MEMCPY_DEFAULT:  // the kind follows from where the pointers are; only the bounds are checked
      dst_device = emulator.Locate(dst, 0) != RangePlace::kHost;
      src_device = emulator.Locate(src, 0) != RangePlace::kHost;
      break;
    default:
      return Fail(ACL_ERROR_INVALID_PARAM,
                  fmt::format("{}: kind {} is not an aclrtMemcpyKind (0..4)", call, static_cast<int>(kind)));
  }
  if (aclError status = CheckSide(emulator, call, "dst", dst, count, dst_device, KindName(kind))) return status;
  return CheckSide(emulator, call, "src", src, count, src_device, KindName(kind));
}

}  // namespace

extern "C" {

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  LockedCall call("aclrtMalloc");
  if (aclError status = call.status()) return status;
  Emulator& emulator = call.emulator();
  if (devPtr == nullptr || size == 0) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                fmt::format("aclrtMalloc: {}", devPtr == nullptr ? "devPtr is null" : "size must be > 0"));
  }
  const int32_t device = ge::acl_emulator::CurrentDevice();
  if (device < 0) {
    return Fail(ACL_ERROR_RT_CONTEXT_NULL,
                "aclrtMalloc: this thread has no current device; call aclrtSetDevice or "
                "aclrtSetCurrentContext first");
  }
  if (emulator.malloc_failure_countdown > 0 && --emulator.malloc_failure_countdown == 0) {
    return Fail(ACL_ERROR_BAD_ALLOC, fmt::format("aclrtMalloc: out of device memory allocating {} bytes (failure "
                                                 "injected by ge::acl_emulator::FailNextMalloc)",
                                                 size));
  }
  ge::acl_emulator::AlignedMemory memory = ge::acl_emulator::AllocateAligned(size);
  if (!memory) {
    return Fail(ACL_ERROR_BAD_ALLOC, fmt::format("aclrtMalloc: out of memory allocating {} bytes (policy {})", size,
                                                 static_cast<int>(policy)));
  }
  *devPtr = memory.get();
  const auto base = reinterpret_cast<uintptr_t>(memory.get());
  emulator.device_memory.emplace(base, ge::acl_emulator::Allocation{std::move(memory), size, device});
  return ACL_SUCCESS;
}

aclError aclrtFree(void* devPtr) {
  ge::acl_emulator::Allocation released;  // freed after the lock is dropped
  LockedCall call("aclrtFree");
  if (aclError status = call.status()) return status;
  Emulator& emulator = call.emulator();
  auto found = emulator.device_memory.find(reinterpret_cast<uintptr_t>(devPtr));
  if (found == emulator.device_memory.end()) {
    return Fail(ACL_ERROR_INVALID_PARAM, fmt::format("aclrtFree: {} is not the start of a live device allocation "
                                                     "(never allocated by aclrtMalloc, or already freed)",
                                                     devPtr));
  }
  released = std::move(found->second);
  emulator.device_memory.erase(found);
  return ACL_SUCCESS;
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  LockedCall call("aclrtMallocHost");
  if (aclError status = call.status()) return status;
  Emulator& emulator = call.emulator();
  if (hostPtr == nullptr || size == 0) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                fmt::format("aclrtMallocHost: {}", hostPtr == nullptr ? "hostPtr is null" : "size must be > 0"));
  }
  ge::acl_emulator::AlignedMemory memory = ge::acl_emulator::AllocateAligned(size);
  if (!memory)
    return Fail(ACL_ERROR_BAD_ALLOC, fmt::format("aclrtMallocHost: out of memory allocating {} bytes", size));
  *hostPtr = memory.get();
  const auto base = reinterpret_cast<uintptr_t>(memory.get());
  emulator.host_memory.emplace(base, ge::acl_emulator::Allocation{std::move(memory), size, -1});
  return ACL_SUCCESS;
}

aclError aclrtFreeHost(void* hostPtr) {
  LockedCall call("aclrtFreeHost");
  if (aclError status = call.status()) return status;
  Emulator& emulator = call.emulator();
  if (emulator.host_memory.erase(reinterpret_cast<uintptr_t>(hostPtr)) == 0) {
    return Fail(ACL_ERROR_INVALID_PARAM, fmt::format("aclrtFreeHost: {} is not the start of a live host allocation "
                                                     "(never allocated by aclrtMallocHost, or already freed)",
                                                     hostPtr));
  }
  return ACL_SUCCESS;
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind) {
  {
    LockedCall call("aclrtMemcpy");
    if (aclError status = call.status()) return status;
    Emulator& emulator = call.emulator();
    if (aclError status = CheckCopy(emulator, "aclrtMemcpy", dst, destMax, src, count, kind)) return status;
  }
  std::memmove(dst, src, count);
  return ACL_SUCCESS;
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream) {
  LockedCall call("aclrtMemcpyAsync");
  if (aclError status = call.status()) return status;
  Emulator& emulator = call.emulator();
  if (aclError status = CheckCopy(emulator, "aclrtMemcpyAsync", dst, destMax, src, count, kind)) return status;
  if (stream == nullptr) {  // the default stream runs its work at launch
    std::memmove(dst, src, count);
    return ACL_SUCCESS;
  }
  ge::acl_emulator::EmulatedStream* target = nullptr;
  if (aclError status = call.FindStream(stream, target)) return status;
  target->Launch([dst, src, count](std::string&) {
    std::memmove(dst, src, count);
    return ACL_SUCCESS;
  });
  return ACL_SUCCESS;
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  {
    LockedCall call("aclrtMemset");
    if (aclError status = call.status()) return status;
    Emulator& emulator = call.emulator();
    if (devPtr == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMemset: devPtr is null");
    if (count > maxCount) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  fmt::format("aclrtMemset: count {} exceeds maxCount {} at {}", count, maxCount, devPtr));
    }
    if (aclError status = CheckSide(emulator, "aclrtMemset", "devPtr", devPtr, count, true, "aclrtMemset")) {
      return status;
    }
  }
  std::memset(devPtr, value, count);
  return ACL_SUCCESS;
}

}  // extern "C"
