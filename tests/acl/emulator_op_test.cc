// Ops through the host ACL emulator: results against hand-computed values,
// float64 references and ge's CPU device; descriptor and buffer errors; the
// op cache; compile options; and fault injection giving clean errors.
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "emulator_fixture.h"
#include "ge/compiled_model.h"
#include "ge/graph.h"

namespace ge::test {
namespace {

struct HostInput {
  std::vector<int64_t> dims;
  std::vector<float> values;
};

// The op run by ge's CPU device through a compiled one-node model.
std::vector<float> RunOnCpu(const std::string& op_type, const std::vector<HostInput>& inputs,
                            const std::map<std::string, AttrValue>& attrs) {
  auto graph = std::make_unique<Graph>("reference");
  std::vector<Value*> values;
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Shape shape(inputs[i].dims);
    values.push_back(graph->AddInput("x" + std::to_string(i), DataType::kFloat, shape));
    tensors.push_back(Tensor::FromVector(DataType::kFloat, shape, inputs[i].values));
  }
  Node* node = graph->AddNode(op_type, "op", values);
  for (const auto& [name, value] : attrs) node->attrs().Set(name, value);
  graph->SetOutputs(node->outputs());
  const Tensor out = CompiledModel::Compile(std::move(graph))->Run(tensors).at(0);
  return std::vector<float>(out.values<float>().begin(), out.values<float>().end());
}

// Runs the op through aclopExecuteV2 on `stream` and returns the code.
aclError Execute(const char* op_type, const std::vector<const DeviceTensor*>& inputs, const DeviceTensor& output,
                 aclopAttr* attr, aclrtStream stream) {
  std::vector<aclTensorDesc*> descs;
  std::vector<aclDataBuffer*> buffers;
  for (const DeviceTensor* input : inputs) {
    descs.push_back(input->desc());
    buffers.push_back(input->buffer());
  }
  aclTensorDesc* out_desc[] = {output.desc()};
  aclDataBuffer* out_buffer[] = {output.buffer()};
  return aclopExecuteV2(op_type, static_cast<int>(inputs.size()), descs.data(), buffers.data(), 1, out_desc, out_buffer,
                        attr, stream);
}

struct Attr {
  Attr() : attr(aclopCreateAttr()) {}
  ~Attr() { aclopDestroyAttr(attr); }
  aclopAttr* attr;
};

struct Stream {
  Stream() { REQUIRE(aclrtCreateStream(&stream) == ACL_SUCCESS); }
  ~Stream() { aclrtDestroyStream(stream); }
  aclrtStream stream = nullptr;
};

TEST_CASE("ACL emulator: Add and Relu compute the hand-computed values", "[acl][emulator]") {
  EmulatorSession session;
  Stream s;
  DeviceTensor a({2, 3}, {1, -2, 3, -4, 5, -6});
  DeviceTensor b({3}, {10, 20, 30});
  DeviceTensor sum({2, 3}, {});
  DeviceTensor relu({2, 3}, {});
  REQUIRE(Execute("Add", {&a, &b}, sum, nullptr, s.stream) == ACL_SUCCESS);
  REQUIRE(Execute("Relu", {&sum}, relu, nullptr, s.stream) == ACL_SUCCESS);  // in stream order after Add
  REQUIRE(aclrtSynchronizeStream(s.stream) == ACL_SUCCESS);
  CHECK(sum.Read() == std::vector<float>{11, 18, 33, 6, 25, 24});
  CHECK(relu.Read() == std::vector<float>{11, 18, 33, 6, 25, 24});
  DeviceTensor relu_a({2, 3}, {});
  // The default (null) stream runs at once.
  REQUIRE(Execute("Relu", {&a}, relu_a, nullptr, nullptr) == ACL_SUCCESS);
  CHECK(relu_a.Read() == std::vector<float>{1, 0, 3, 0, 5, 0});
}

TEST_CASE("ACL emulator: MatMulV2 matches a float64 reference and the CPU device", "[acl][emulator]") {
  EmulatorSession session;
  Stream s;
  const HostInput x1{{2, 3}, {0.5f, -1, 2, 3, 0.25f, -2}};
  const HostInput x2{{4, 3}, {1, 2, 3, -1, 0, 1, 0.5f, 0.5f, 0.5f, 2, -3, 4}};  // transposed: [N, K]
  DeviceTensor a(x1.dims, x1.values);
  DeviceTensor b(x2.dims, x2.values);
  DeviceTensor y({2, 4}, {});
  Attr attr;
  REQUIRE(aclopSetAttrBool(attr.attr, "transpose_x2", 1) == ACL_SUCCESS);
  REQUIRE(Execute("MatMulV2", {&a, &b}, y, attr.attr, s.stream) == ACL_SUCCESS);
  REQUIRE(aclrtSynchronizeStream(s.stream) == ACL_SUCCESS);
  const std::vector<float> got = y.Read();
  for (int m = 0; m < 2; ++m) {
    for (int n = 0; n < 4; ++n) {
      double expected = 0;
      for (int k = 0; k < 3; ++k) expected += double(x1.values[m * 3 + k]) * double(x2.values[n * 3 + k]);
      CHECK(got[m * 4 + n] == Approx(expected).margin(1e-5));
    }
  }
  CHECK(got == RunOnCpu("MatMulV2", {x1, x2}, {{"transpose_x2", true}}));
}

TEST_CASE("ACL emulator: Conv2D matches a float64 reference and the CPU device", "[acl][emulator]") {
  EmulatorSession session;
  Stream s;
  HostInput x{{1, 2, 5, 5}, {}};
  HostInput w{{3, 2, 3, 3}, {}};
  for (int i = 0; i < 50; ++i) x.values.push_back(static_cast<float>((i * 7) % 11) - 5.0f);
  for (int i = 0; i < 54; ++i) w.values.push_back(static_cast<float>((i * 5) % 7) * 0.25f - 0.75f);
  DeviceTensor dx(x.dims, x.values, ACL_FORMAT_NCHW);
  DeviceTensor dw(w.dims, w.values, ACL_FORMAT_NCHW);
  // stride 2, pad 1: out = (5 + 2 - 3) / 2 + 1 = 3
  DeviceTensor dy({1, 3, 3, 3}, {}, ACL_FORMAT_NCHW);
  Attr attr;
  const int64_t strides[] = {1, 1, 2, 2};
  const int64_t pads[] = {1, 1, 1, 1};
  REQUIRE(aclopSetAttrListInt(attr.attr, "strides", 4, strides) == ACL_SUCCESS);
  REQUIRE(aclopSetAttrListInt(attr.attr, "pads", 4, pads) == ACL_SUCCESS);
  REQUIRE(aclopSetAttrString(attr.attr, "data_format", "NCHW") == ACL_SUCCESS);
  REQUIRE(Execute("Conv2D", {&dx, &dw}, dy, attr.attr, s.stream) == ACL_SUCCESS);
  REQUIRE(aclrtSynchronizeStream(s.stream) == ACL_SUCCESS);
  const std::vector<float> got = dy.Read();
  for (int co = 0; co < 3; ++co) {
    for (int oh = 0; oh < 3; ++oh) {
      for (int ow = 0; ow < 3; ++ow) {
        double expected = 0;
        for (int ci = 0; ci < 2; ++ci) {
          for (int kh = 0; kh < 3; ++kh) {
            for (int kw = 0; kw < 3; ++kw) {
              const int ih = oh * 2 - 1 + kh;
              const int iw = ow * 2 - 1 + kw;
              if (ih < 0 || ih >= 5 || iw < 0 || iw >= 5) continue;
              expected +=
                  double(x.values[(ci * 5 + ih) * 5 + iw]) * double(w.values[((co * 2 + ci) * 3 + kh) * 3 + kw]);
            }
          }
        }
        CHECK(got[(co * 3 + oh) * 3 + ow] == Approx(expected).margin(1e-4));
      }
    }
  }
  const std::vector<float> cpu = RunOnCpu(
      "Conv2D", {x, w}, {{"strides", std::vector<int64_t>{1, 1, 2, 2}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  REQUIRE(cpu.size() == got.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(cpu[i]).margin(1e-5));
}

TEST_CASE("ACL emulator: aclSetTensorConst inputs are visible to shape inference", "[acl][emulator]") {
  EmulatorSession session;
  DeviceTensor x({2, 3}, {1, 2, 3, 4, 5, 6});
  DeviceTensor y({3, 2}, {});
  const int64_t shape_dims[] = {2};
  int64_t target_shape[] = {3, 2};
  aclTensorDesc* shape_desc = aclCreateTensorDesc(ACL_INT64, 1, shape_dims, ACL_FORMAT_ND);
  REQUIRE(aclSetTensorConst(shape_desc, target_shape, sizeof(target_shape)) == ACL_SUCCESS);
  aclDataBuffer* shape_buffer = aclCreateDataBuffer(nullptr, 0);  // the constant needs no device copy
  aclTensorDesc* in_desc[] = {x.desc(), shape_desc};
  aclDataBuffer* in_buffer[] = {x.buffer(), shape_buffer};
  aclTensorDesc* out_desc[] = {y.desc()};
  aclDataBuffer* out_buffer[] = {y.buffer()};
  CHECK(aclopExecuteV2("Reshape", 2, in_desc, in_buffer, 1, out_desc, out_buffer, nullptr, nullptr) == ACL_SUCCESS);
  CHECK(y.Read() == std::vector<float>{1, 2, 3, 4, 5, 6});  // a view op: the emulator copies into y's buffer
  // A constant of the wrong size is refused.
  REQUIRE(aclSetTensorConst(shape_desc, target_shape, 8) == ACL_SUCCESS);
  CHECK(aclopExecuteV2("Reshape", 2, in_desc, in_buffer, 1, out_desc, out_buffer, nullptr, nullptr) ==
        ACL_ERROR_INVALID_PARAM);
  CHECK(RecentError().find("aclSetTensorConst") != std::string::npos);
  aclDestroyDataBuffer(shape_buffer);
  aclDestroyTensorDesc(shape_desc);
}

TEST_CASE("ACL emulator: value-dependent output shapes take the described shape", "[acl][emulator]") {
  EmulatorSession session;
  Stream s;
  DeviceTensor x({6}, {10, 11, 12, 13, 14, 15});
  DeviceTensor y({2}, {});
  const int64_t bounds[] = {1, 5, 2};  // begin 1, end 5, stride 2: elements 1 and 3
  void* device_bounds = nullptr;
  REQUIRE(aclrtMalloc(&device_bounds, sizeof(bounds), ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  REQUIRE(aclrtMemcpy(device_bounds, sizeof(bounds), bounds, sizeof(bounds), ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
  const int64_t one[] = {1};
  aclTensorDesc* index_desc = aclCreateTensorDesc(ACL_INT64, 1, one, ACL_FORMAT_ND);
  aclTensorDesc* absent_desc = aclCreateTensorDesc(ACL_DT_UNDEFINED, 0, nullptr, ACL_FORMAT_UNDEFINED);
  auto* base = static_cast<int64_t*>(device_bounds);
  aclDataBuffer* begin = aclCreateDataBuffer(base, 8);
  aclDataBuffer* end = aclCreateDataBuffer(base + 1, 8);
  aclDataBuffer* stride = aclCreateDataBuffer(base + 2, 8);
  aclDataBuffer* absent = aclCreateDataBuffer(nullptr, 0);
  aclTensorDesc* in_desc[] = {x.desc(), index_desc, index_desc, absent_desc, index_desc};
  aclDataBuffer* in_buffer[] = {x.buffer(), begin, end, absent, stride};
  aclTensorDesc* out_desc[] = {y.desc()};
  aclDataBuffer* out_buffer[] = {y.buffer()};
  CHECK(aclopExecuteV2("StridedSliceV2", 5, in_desc, in_buffer, 1, out_desc, out_buffer, nullptr, s.stream) ==
        ACL_SUCCESS);
  CHECK(aclrtSynchronizeStream(s.stream) == ACL_SUCCESS);
  CHECK(y.Read() == std::vector<float>{11, 13});
  // A described rank that cannot be the op's output is refused.
  DeviceTensor wrong_rank({1, 2}, {});
  aclTensorDesc* wrong_desc[] = {wrong_rank.desc()};
  aclDataBuffer* wrong_buffer[] = {wrong_rank.buffer()};
  CHECK(aclopExecuteV2("StridedSliceV2", 5, in_desc, in_buffer, 1, wrong_desc, wrong_buffer, nullptr, s.stream) ==
        ACL_ERROR_OP_OUTPUT_NOT_MATCH);
  for (aclDataBuffer* buffer : {begin, end, stride, absent}) aclDestroyDataBuffer(buffer);
  aclDestroyTensorDesc(index_desc);
  aclDestroyTensorDesc(absent_desc);
  CHECK(aclrtFree(device_bounds) == ACL_SUCCESS);
}

TEST_CASE("ACL emulator: repeated ops reuse the compiled kernel", "[acl][emulator]") {
  EmulatorSession session;
  DeviceTensor a({4}, {1, 2, 3, 4});
  DeviceTensor y({4}, {});
  REQUIRE(acl_emulator::CachedOps() == 0);
  for (int i = 0; i < 3; ++i) REQUIRE(Execute("Relu", {&a}, y, nullptr, nullptr) == ACL_SUCCESS);
  CHECK(acl_emulator::CachedOps() == 1);
  DeviceTensor b({2, 2}, {1, 2, 3, 4});
  DeviceTensor y2({2, 2}, {});
  REQUIRE(Execute("Relu", {&b}, y2, nullptr, nullptr) == ACL_SUCCESS);  // other shapes: another entry
  CHECK(acl_emulator::CachedOps() == 2);
}

TEST_CASE("ACL emulator: bad descriptors and buffers give clean errors", "[acl][emulator]") {
  EmulatorSession session;
  DeviceTensor a({2, 3}, {1, 2, 3, 4, 5, 6});
  DeviceTensor y({2, 3}, {});

  SECTION("an unknown op type") {
    CHECK(Execute("NoSuchOp", {&a}, y, nullptr, nullptr) == ACL_ERROR_OP_NOT_FOUND);
    CHECK(RecentError().find("NoSuchOp") != std::string::npos);
  }
  SECTION("an output descriptor that does not match the inferred output") {
    DeviceTensor wrong({3, 2}, {});
    CHECK(Execute("Relu", {&a}, wrong, nullptr, nullptr) == ACL_ERROR_OP_OUTPUT_NOT_MATCH);
    CHECK(RecentError().find("[2,3]") != std::string::npos);
  }
  SECTION("a host buffer where device memory is required") {
    std::vector<float> host(6, 1.0f);
    aclDataBuffer* host_buffer = aclCreateDataBuffer(host.data(), 24);
    aclTensorDesc* in_desc[] = {a.desc()};
    aclDataBuffer* in_buffer[] = {host_buffer};
    aclTensorDesc* out_desc[] = {y.desc()};
    aclDataBuffer* out_buffer[] = {y.buffer()};
    CHECK(aclopExecuteV2("Relu", 1, in_desc, in_buffer, 1, out_desc, out_buffer, nullptr, nullptr) ==
          ACL_ERROR_INVALID_PARAM);
    const std::string message = RecentError();
    CHECK(message.find("input 0") != std::string::npos);
    CHECK(message.find("not device memory") != std::string::npos);
    aclDestroyDataBuffer(host_buffer);
  }
  SECTION("a buffer smaller than its descriptor") {
    aclDataBuffer* small = aclCreateDataBuffer(a.device(), 8);
    aclTensorDesc* in_desc[] = {a.desc()};
    aclDataBuffer* in_buffer[] = {small};
    aclTensorDesc* out_desc[] = {y.desc()};
    aclDataBuffer* out_buffer[] = {y.buffer()};
    CHECK(aclopExecuteV2("Relu", 1, in_desc, in_buffer, 1, out_desc, out_buffer, nullptr, nullptr) ==
          ACL_ERROR_INVALID_PARAM);
    CHECK(RecentError().find("holds 8 bytes") != std::string::npos);
    aclDestroyDataBuffer(small);
  }
  SECTION("a private format, an unsupported dtype, a dynamic dim") {
    const int64_t dims[] = {2, 3};
    const int64_t dynamic[] = {2, -1};
    aclTensorDesc* nz = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_FRACTAL_NZ);
    aclTensorDesc* text = aclCreateTensorDesc(ACL_STRING, 2, dims, ACL_FORMAT_ND);
    aclTensorDesc* unknown = aclCreateTensorDesc(ACL_FLOAT, 2, dynamic, ACL_FORMAT_ND);
    aclDataBuffer* in_buffer[] = {a.buffer()};
    aclTensorDesc* out_desc[] = {y.desc()};
    aclDataBuffer* out_buffer[] = {y.buffer()};
    aclTensorDesc* in_nz[] = {nz};
    CHECK(aclopExecuteV2("Relu", 1, in_nz, in_buffer, 1, out_desc, out_buffer, nullptr, nullptr) ==
          ACL_ERROR_FORMAT_NOT_MATCH);
    aclTensorDesc* in_text[] = {text};
    CHECK(aclopExecuteV2("Relu", 1, in_text, in_buffer, 1, out_desc, out_buffer, nullptr, nullptr) ==
          ACL_ERROR_UNSUPPORTED_DATA_TYPE);
    aclTensorDesc* in_unknown[] = {unknown};
    CHECK(aclopExecuteV2("Relu", 1, in_unknown, in_buffer, 1, out_desc, out_buffer, nullptr, nullptr) ==
          ACL_ERROR_INVALID_PARAM);
    CHECK(aclopExecuteV2("Relu", 1, nullptr, in_buffer, 1, out_desc, out_buffer, nullptr, nullptr) ==
          ACL_ERROR_INVALID_PARAM);
    for (aclTensorDesc* desc : {nz, text, unknown}) aclDestroyTensorDesc(desc);
  }
  SECTION("attributes the schema refuses") {
    DeviceTensor w({1, 2, 1, 1}, {1, 1});
    DeviceTensor out({1, 1, 1, 3}, {});
    Attr attr;
    const int64_t strides[] = {1, 1, 1};  // needs 4 values
    const int64_t pads[] = {0, 0, 0, 0};
    REQUIRE(aclopSetAttrListInt(attr.attr, "strides", 3, strides) == ACL_SUCCESS);
    REQUIRE(aclopSetAttrListInt(attr.attr, "pads", 4, pads) == ACL_SUCCESS);
    DeviceTensor x({1, 2, 1, 3}, {1, 2, 3, 4, 5, 6});
    CHECK(Execute("Conv2D", {&x, &w}, out, attr.attr, nullptr) == ACL_ERROR_INVALID_PARAM);
    CHECK(RecentError().find("strides") != std::string::npos);
  }
}

TEST_CASE("ACL emulator: compile options are validated and recorded", "[acl][emulator]") {
  EmulatorSession session;
  CHECK(aclSetCompileopt(ACL_PRECISION_MODE, "must_keep_origin_dtype") == ACL_SUCCESS);
  CHECK(acl_emulator::CompileOption(ACL_PRECISION_MODE) == "must_keep_origin_dtype");
  CHECK(aclSetCompileopt(ACL_PRECISION_MODE, "fp64_everywhere") == ACL_ERROR_INVALID_PARAM);
  const std::string message = RecentError();
  CHECK(message.find("ACL_PRECISION_MODE") != std::string::npos);
  CHECK(message.find("force_fp16") != std::string::npos);  // lists the valid values
  CHECK(acl_emulator::CompileOption(ACL_PRECISION_MODE) == "must_keep_origin_dtype");
  CHECK(aclSetCompileopt(ACL_OP_SELECT_IMPL_MODE, "high_precision") == ACL_SUCCESS);
  CHECK(aclSetCompileopt(ACL_OP_SELECT_IMPL_MODE, "fastest") == ACL_ERROR_INVALID_PARAM);
  CHECK(acl_emulator::CompileOption(ACL_OP_SELECT_IMPL_MODE) == "high_precision");
  CHECK(aclSetCompileopt(ACL_OP_SELECT_IMPL_MODE, nullptr) == ACL_ERROR_INVALID_PARAM);
  CHECK(aclopSetCompileFlag(ACL_OP_COMPILE_FUZZ) == ACL_SUCCESS);
  CHECK(aclopSetCompileFlag(static_cast<aclOpCompileFlag>(7)) == ACL_ERROR_INVALID_PARAM);
  REQUIRE(aclFinalize() == ACL_SUCCESS);  // the options belong to the aclInit..aclFinalize session
  CHECK(acl_emulator::CompileOption(ACL_PRECISION_MODE).empty());
  CHECK(acl_emulator::CompileOption(ACL_OP_SELECT_IMPL_MODE).empty());
}

TEST_CASE("ACL emulator: aclopCompileAndExecute runs like aclopExecuteV2", "[acl][emulator]") {
  EmulatorSession session;
  DeviceTensor a({3}, {-1, 0, 2});
  DeviceTensor y({3}, {});
  const aclTensorDesc* in_desc[] = {a.desc()};
  const aclDataBuffer* in_buffer[] = {a.buffer()};
  const aclTensorDesc* out_desc[] = {y.desc()};
  aclDataBuffer* out_buffer[] = {y.buffer()};
  REQUIRE(aclopCompileAndExecute("Relu", 1, in_desc, in_buffer, 1, out_desc, out_buffer, nullptr, ACL_ENGINE_SYS,
                                 ACL_COMPILE_SYS, nullptr, nullptr) == ACL_SUCCESS);
  CHECK(y.Read() == std::vector<float>{0, 0, 2});
  CHECK(aclopCompileAndExecute("Relu", 1, in_desc, in_buffer, 1, out_desc, out_buffer, nullptr,
                               static_cast<aclopEngineType>(9), ACL_COMPILE_SYS, nullptr,
                               nullptr) == ACL_ERROR_INVALID_PARAM);
}

TEST_CASE("ACL emulator: injected faults give clean errors and leak nothing", "[acl][emulator]") {
  EmulatorSession session;

  SECTION("allocation failure") {
    acl_emulator::FailNextMalloc(2);
    void* first = nullptr;
    void* second = nullptr;
    REQUIRE(aclrtMalloc(&first, 16, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(aclrtMalloc(&second, 16, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_ERROR_BAD_ALLOC);
    CHECK(RecentError().find("FailNextMalloc") != std::string::npos);
    CHECK(acl_emulator::LiveDeviceAllocations() == 1);
    REQUIRE(aclrtMalloc(&second, 16, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);  // one failure only
    CHECK(aclrtFree(first) == ACL_SUCCESS);
    CHECK(aclrtFree(second) == ACL_SUCCESS);
  }
  SECTION("op failure of one op type") {
    DeviceTensor a({2}, {-1, 1});
    DeviceTensor y({2}, {7, 7});
    acl_emulator::FailNextOp("Relu");
    REQUIRE(Execute("Neg", {&a}, y, nullptr, nullptr) == ACL_SUCCESS);  // another type runs
    CHECK(y.Read() == std::vector<float>{1, -1});
    CHECK(Execute("Relu", {&a}, y, nullptr, nullptr) == ACL_ERROR_INTERNAL_ERROR);
    CHECK(RecentError().find("'Relu'") != std::string::npos);
    CHECK(y.Read() == std::vector<float>{1, -1});  // nothing ran
    REQUIRE(Execute("Relu", {&a}, y, nullptr, nullptr) == ACL_SUCCESS);
    CHECK(y.Read() == std::vector<float>{0, 1});
  }
  SECTION("stream failure") {
    Stream s;
    DeviceTensor a({2}, {-1, 1});
    DeviceTensor y({2}, {7, 7});
    acl_emulator::FailStream(s.stream);
    REQUIRE(Execute("Relu", {&a}, y, nullptr, s.stream) == ACL_SUCCESS);  // the launch itself succeeds
    CHECK(aclrtSynchronizeStream(s.stream) == ACL_ERROR_RT_FAILURE);
    CHECK(RecentError().find("FailStream") != std::string::npos);
    CHECK(y.Read() == std::vector<float>{7, 7});
    // An event recorded on the failed stream still completes.
    aclrtEvent event = nullptr;
    REQUIRE(aclrtCreateEvent(&event) == ACL_SUCCESS);
    REQUIRE(aclrtRecordEvent(event, s.stream) == ACL_SUCCESS);
    CHECK(aclrtSynchronizeEvent(event) == ACL_SUCCESS);
    CHECK(aclrtDestroyEvent(event) == ACL_SUCCESS);
  }
  CHECK(acl_emulator::LiveDeviceAllocations() == 0);
  CHECK(acl_emulator::LiveStreams() == 0);
}

TEST_CASE("ACL emulator: threads run ops on their own streams at once", "[acl][emulator]") {
  EmulatorSession session;
  aclrtContext context = nullptr;
  REQUIRE(aclrtCreateContext(&context, 0) == ACL_SUCCESS);
  constexpr int kThreads = 4;
  constexpr int kSteps = 25;
  // Thread t adds t + 1 to a zero vector kSteps times: y = (t + 1) * kSteps.
  std::vector<std::unique_ptr<DeviceTensor>> accumulators;
  std::vector<std::unique_ptr<DeviceTensor>> increments;
  for (int t = 0; t < kThreads; ++t) {
    accumulators.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{8}, std::vector<float>(8, 0.0f)));
    increments.push_back(
        std::make_unique<DeviceTensor>(std::vector<int64_t>{8}, std::vector<float>(8, static_cast<float>(t + 1))));
  }
  std::vector<aclError> results(kThreads, ACL_ERROR_INTERNAL_ERROR);  // Catch2 assertions stay on this thread
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      aclError status = aclrtSetCurrentContext(context);
      aclrtStream stream = nullptr;
      if (status == ACL_SUCCESS) status = aclrtCreateStream(&stream);
      for (int step = 0; step < kSteps && status == ACL_SUCCESS; ++step) {
        status = Execute("Add", {accumulators[t].get(), increments[t].get()}, *accumulators[t], nullptr, stream);
      }
      if (status == ACL_SUCCESS) status = aclrtSynchronizeStream(stream);
      if (stream != nullptr && aclrtDestroyStream(stream) != ACL_SUCCESS) status = ACL_ERROR_INTERNAL_ERROR;
      results[t] = status;
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    CHECK(results[t] == ACL_SUCCESS);
    CHECK(accumulators[t]->Read() == std::vector<float>(8, static_cast<float>((t + 1) * kSteps)));
  }
  CHECK(acl_emulator::CachedOps() == 1);  // one shape, one attribute set: one compiled Add for all threads
  CHECK(aclrtDestroyContext(context) == ACL_SUCCESS);
}

}  // namespace
}  // namespace ge::test
