// The host ACL emulator's runtime: initialisation rules, the device memory
// registry, copy kinds and bounds, streams, events and the recent error message.
#include <catch2/catch.hpp>
#include <numeric>
#include <thread>

#include "emulator_fixture.h"

namespace ge::test {
namespace {

TEST_CASE("ACL emulator: calls before aclInit fail and init is not repeatable", "[acl][emulator]") {
  acl_emulator::Reset();
  void* p = nullptr;
  CHECK(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_ERROR_UNINITIALIZE);
  CHECK(RecentError().find("aclrtMalloc") != std::string::npos);
  aclrtStream stream = nullptr;
  CHECK(aclrtCreateStream(&stream) == ACL_ERROR_UNINITIALIZE);
  CHECK(aclrtSetDevice(0) == ACL_ERROR_UNINITIALIZE);
  CHECK(aclFinalize() == ACL_ERROR_REPEAT_FINALIZE);

  REQUIRE(aclInit(nullptr) == ACL_SUCCESS);
  CHECK(aclInit(nullptr) == ACL_ERROR_REPEAT_INITIALIZE);
  CHECK(RecentError().find("aclInit") != std::string::npos);
  CHECK(aclGetRecentErrMsg() == nullptr);  // read once, then cleared
  // Memory needs a current device on the calling thread.
  CHECK(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_ERROR_RT_CONTEXT_NULL);
  CHECK(aclrtSetDevice(2) == ACL_ERROR_RT_INVALID_DEVICEID);  // the emulator has devices 0 and 1
  CHECK(aclrtSetDevice(-1) == ACL_ERROR_RT_INVALID_DEVICEID);
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  REQUIRE(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  CHECK(aclFinalize() == ACL_SUCCESS);  // releases what is still live
  CHECK(acl_emulator::LiveDeviceAllocations() == 0);
  CHECK(aclInit(nullptr) == ACL_SUCCESS);  // the emulator may be initialised again
  acl_emulator::Reset();
}

TEST_CASE("ACL emulator: contexts carry the current device to other threads", "[acl][emulator]") {
  EmulatorSession session;
  aclrtContext context = nullptr;
  REQUIRE(aclrtCreateContext(&context, 1) == ACL_SUCCESS);
  // Catch2 assertions stay on the test's thread: the other thread only records codes.
  aclError without_context = ACL_SUCCESS;
  aclError set_context = ACL_ERROR_INTERNAL_ERROR;
  aclError with_context = ACL_ERROR_INTERNAL_ERROR;
  void* p = nullptr;
  std::thread([&] {
    void* q = nullptr;
    without_context = aclrtMalloc(&q, 16, ACL_MEM_MALLOC_HUGE_FIRST);
    set_context = aclrtSetCurrentContext(context);
    with_context = aclrtMalloc(&p, 16, ACL_MEM_MALLOC_HUGE_FIRST);
  }).join();
  CHECK(without_context == ACL_ERROR_RT_CONTEXT_NULL);
  CHECK(set_context == ACL_SUCCESS);
  CHECK(with_context == ACL_SUCCESS);
  CHECK(aclrtFree(p) == ACL_SUCCESS);
  CHECK(aclrtDestroyContext(context) == ACL_SUCCESS);
  CHECK(aclrtDestroyContext(context) == ACL_ERROR_INVALID_PARAM);
}

TEST_CASE("ACL emulator: the device memory registry counts and checks frees", "[acl][emulator]") {
  EmulatorSession session;
  void* a = nullptr;
  void* b = nullptr;
  REQUIRE(aclrtMalloc(&a, 100, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  REQUIRE(aclrtMalloc(&b, 1, ACL_MEM_MALLOC_NORMAL_ONLY) == ACL_SUCCESS);
  CHECK(reinterpret_cast<uintptr_t>(a) % 64 == 0);
  CHECK(acl_emulator::LiveDeviceAllocations() == 2);
  CHECK(aclrtMalloc(&a, 0, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_ERROR_INVALID_PARAM);

  // Only the start of a live allocation may be freed, and only once.
  CHECK(aclrtFree(static_cast<char*>(a) + 4) == ACL_ERROR_INVALID_PARAM);
  int on_stack = 0;
  CHECK(aclrtFree(&on_stack) == ACL_ERROR_INVALID_PARAM);
  CHECK(RecentError().find("aclrtFree") != std::string::npos);
  REQUIRE(aclrtFree(a) == ACL_SUCCESS);
  CHECK(aclrtFree(a) == ACL_ERROR_INVALID_PARAM);
  REQUIRE(aclrtFree(b) == ACL_SUCCESS);
  CHECK(acl_emulator::LiveDeviceAllocations() == 0);

  // Host memory is tracked apart, and is not device memory.
  void* host = nullptr;
  REQUIRE(aclrtMallocHost(&host, 32) == ACL_SUCCESS);
  CHECK(acl_emulator::LiveHostAllocations() == 1);
  CHECK(acl_emulator::LiveDeviceAllocations() == 0);
  CHECK(aclrtFree(host) == ACL_ERROR_INVALID_PARAM);
  CHECK(aclrtFreeHost(host) == ACL_SUCCESS);
  CHECK(aclrtFreeHost(host) == ACL_ERROR_INVALID_PARAM);
  CHECK(acl_emulator::LiveHostAllocations() == 0);
}

TEST_CASE("ACL emulator: copies check their kinds and bounds", "[acl][emulator]") {
  EmulatorSession session;
  std::vector<float> host = {1, 2, 3, 4};
  std::vector<float> back(4, 0);
  void* device = nullptr;
  void* other = nullptr;
  REQUIRE(aclrtMalloc(&device, 16, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  REQUIRE(aclrtMalloc(&other, 16, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);

  REQUIRE(aclrtMemcpy(device, 16, host.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
  REQUIRE(aclrtMemcpy(other, 16, device, 16, ACL_MEMCPY_DEVICE_TO_DEVICE) == ACL_SUCCESS);
  REQUIRE(aclrtMemcpy(back.data(), 16, other, 16, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
  CHECK(back == host);

  SECTION("a host pointer where device memory is required") {
    CHECK(aclrtMemcpy(back.data(), 16, host.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_ERROR_INVALID_PARAM);
    const std::string message = RecentError();
    CHECK(message.find("aclrtMemcpy") != std::string::npos);
    CHECK(message.find("dst") != std::string::npos);
    CHECK(message.find("not device memory") != std::string::npos);
    CHECK(aclrtMemcpy(back.data(), 16, host.data(), 16, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_ERROR_INVALID_PARAM);
  }
  SECTION("a device pointer where host memory is required") {
    CHECK(aclrtMemcpy(device, 16, host.data(), 16, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_ERROR_INVALID_PARAM);
    CHECK(RecentError().find("wants host memory") != std::string::npos);
  }
  SECTION("a range past an allocation's end") {
    CHECK(aclrtMemcpy(static_cast<char*>(device) + 8, 16, host.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE) ==
          ACL_ERROR_INVALID_PARAM);
    CHECK(RecentError().find("past the end") != std::string::npos);
    CHECK(aclrtMemcpy(back.data(), 16, static_cast<char*>(other) + 4, 16, ACL_MEMCPY_DEVICE_TO_HOST) ==
          ACL_ERROR_INVALID_PARAM);
    CHECK(aclrtMemcpy(device, 8, host.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_ERROR_INVALID_PARAM);  // destMax
  }
  SECTION("memset stays in bounds") {
    REQUIRE(aclrtMemset(device, 16, 0, 16) == ACL_SUCCESS);
    REQUIRE(aclrtMemcpy(back.data(), 16, device, 16, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    CHECK(back == std::vector<float>(4, 0.0f));
    CHECK(aclrtMemset(device, 32, 0, 32) == ACL_ERROR_INVALID_PARAM);
    CHECK(aclrtMemset(device, 8, 0, 16) == ACL_ERROR_INVALID_PARAM);
    CHECK(aclrtMemset(host.data(), 16, 0, 16) == ACL_ERROR_INVALID_PARAM);
  }
  CHECK(aclrtFree(device) == ACL_SUCCESS);
  CHECK(aclrtFree(other) == ACL_SUCCESS);
}

TEST_CASE("ACL emulator: a stream runs many asynchronous copies in order", "[acl][emulator]") {
  EmulatorSession session;
  aclrtStream stream = nullptr;
  REQUIRE(aclrtCreateStream(&stream) == ACL_SUCCESS);
  CHECK(acl_emulator::LiveStreams() == 1);
  void* device = nullptr;
  REQUIRE(aclrtMalloc(&device, sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  // Each copy overwrites the same word: only in-order execution leaves the last value.
  constexpr int kCopies = 500;
  std::vector<int32_t> values(kCopies);
  std::iota(values.begin(), values.end(), 1);
  std::vector<int32_t> trace(kCopies, -1);
  for (int i = 0; i < kCopies; ++i) {
    REQUIRE(aclrtMemcpyAsync(device, 4, &values[i], 4, ACL_MEMCPY_HOST_TO_DEVICE, stream) == ACL_SUCCESS);
    REQUIRE(aclrtMemcpyAsync(&trace[i], 4, device, 4, ACL_MEMCPY_DEVICE_TO_HOST, stream) == ACL_SUCCESS);
  }
  REQUIRE(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
  CHECK(trace == values);
  CHECK(aclrtFree(device) == ACL_SUCCESS);
  CHECK(aclrtDestroyStream(stream) == ACL_SUCCESS);
  CHECK(aclrtDestroyStream(stream) == ACL_ERROR_INVALID_PARAM);
  CHECK(acl_emulator::LiveStreams() == 0);
}

TEST_CASE("ACL emulator: events order work across streams", "[acl][emulator]") {
  EmulatorSession session;
  aclrtStream slow = nullptr;
  aclrtStream producer = nullptr;
  aclrtStream consumer = nullptr;
  aclrtEvent slow_done = nullptr;
  aclrtEvent produced = nullptr;
  for (aclrtStream* stream : {&slow, &producer, &consumer}) REQUIRE(aclrtCreateStream(stream) == ACL_SUCCESS);
  REQUIRE(aclrtCreateEvent(&slow_done) == ACL_SUCCESS);
  REQUIRE(aclrtCreateEvent(&produced) == ACL_SUCCESS);
  void* word = nullptr;
  void* big = nullptr;
  const size_t big_bytes = size_t{16} << 20;
  std::vector<char> source(big_bytes, 1);
  REQUIRE(aclrtMalloc(&word, 4, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  REQUIRE(aclrtMalloc(&big, big_bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  const int32_t zero = 0;
  const int32_t answer = 42;
  int32_t seen = -1;
  REQUIRE(aclrtMemcpy(word, 4, &zero, 4, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);

  // slow: long copies, then slow_done. producer: waits for slow_done, writes
  // the answer, records produced. consumer: waits for produced, reads. Had
  // either wait been ignored, the consumer would read the word long before
  // the slow stream finished and see 0.
  for (int i = 0; i < 10; ++i) {
    REQUIRE(aclrtMemcpyAsync(big, big_bytes, source.data(), big_bytes, ACL_MEMCPY_HOST_TO_DEVICE, slow) == ACL_SUCCESS);
  }
  REQUIRE(aclrtRecordEvent(slow_done, slow) == ACL_SUCCESS);
  REQUIRE(aclrtStreamWaitEvent(producer, slow_done) == ACL_SUCCESS);
  REQUIRE(aclrtMemcpyAsync(word, 4, &answer, 4, ACL_MEMCPY_HOST_TO_DEVICE, producer) == ACL_SUCCESS);
  REQUIRE(aclrtRecordEvent(produced, producer) == ACL_SUCCESS);
  REQUIRE(aclrtStreamWaitEvent(consumer, produced) == ACL_SUCCESS);
  REQUIRE(aclrtMemcpyAsync(&seen, 4, word, 4, ACL_MEMCPY_DEVICE_TO_HOST, consumer) == ACL_SUCCESS);
  REQUIRE(aclrtSynchronizeStream(consumer) == ACL_SUCCESS);
  CHECK(seen == answer);
  REQUIRE(aclrtSynchronizeEvent(slow_done) == ACL_SUCCESS);

  CHECK(aclrtDestroyEvent(produced) == ACL_SUCCESS);
  CHECK(aclrtDestroyEvent(produced) == ACL_ERROR_INVALID_PARAM);
  CHECK(aclrtDestroyEvent(slow_done) == ACL_SUCCESS);
  CHECK(acl_emulator::LiveEvents() == 0);
  for (aclrtStream stream : {slow, producer, consumer}) CHECK(aclrtDestroyStream(stream) == ACL_SUCCESS);
  CHECK(aclrtFree(word) == ACL_SUCCESS);
  CHECK(aclrtFree(big) == ACL_SUCCESS);
}

TEST_CASE("ACL emulator: aclrtSynchronizeEvent waits for the stream to reach the record", "[acl][emulator]") {
  EmulatorSession session;
  aclrtStream stream = nullptr;
  aclrtEvent event = nullptr;
  REQUIRE(aclrtCreateStream(&stream) == ACL_SUCCESS);
  REQUIRE(aclrtCreateEvent(&event) == ACL_SUCCESS);
  std::vector<int32_t> source(1 << 20, 7);
  void* device = nullptr;
  REQUIRE(aclrtMalloc(&device, source.size() * 4, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  std::vector<int32_t> back(source.size(), 0);
  for (int i = 0; i < 20; ++i) {
    REQUIRE(aclrtMemcpyAsync(device, source.size() * 4, source.data(), source.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE,
                             stream) == ACL_SUCCESS);
  }
  REQUIRE(aclrtMemcpyAsync(back.data(), back.size() * 4, device, back.size() * 4, ACL_MEMCPY_DEVICE_TO_HOST, stream) ==
          ACL_SUCCESS);
  REQUIRE(aclrtRecordEvent(event, stream) == ACL_SUCCESS);
  REQUIRE(aclrtSynchronizeEvent(event) == ACL_SUCCESS);
  CHECK(back == source);  // the copy before the record has completed
  CHECK(aclrtFree(device) == ACL_SUCCESS);
}

TEST_CASE("ACL emulator: the recent error message is per thread", "[acl][emulator]") {
  EmulatorSession session;
  CHECK(aclrtFree(nullptr) == ACL_ERROR_INVALID_PARAM);
  std::string other_thread = "unset";
  std::thread([&] { other_thread = RecentError(); }).join();
  CHECK(other_thread.empty());
  CHECK(RecentError().find("aclrtFree") != std::string::npos);
}

}  // namespace
}  // namespace ge::test
