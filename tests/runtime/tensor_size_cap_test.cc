// Byte sizes of what a model claims are checked at compile time against
// ge.maxTensorBytes and against int64: a dim of 2^62 used to wrap the size to
// 0 ("arena 0 B") and let the Transpose kernel write out of bounds.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>

#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "ge/error.h"
#include "runtime/compile/memory_planner.h"
#include "test_support.h"

namespace ge::test {
namespace {

using Catch::Matchers::Contains;

// x [dims] float -> Relu "act" -> y.
std::unique_ptr<Graph> ReluModel(const Shape& shape) {
  GraphBuilder b("relu");
  b.Output(b.Relu(b.Input("x", DataType::kFloat, shape), "act"));
  return b.Build();
}

std::string CompileError(std::unique_ptr<Graph> graph, const Options& options = {}) {
  try {
    CompiledModel::Compile(std::move(graph), options);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidModel);
    return e.what();
  }
  FAIL("the graph compiled");
  return "";
}

}  // namespace

TEST_CASE("A value over ge.maxTensorBytes is refused at compile time naming node, value, shape and cap") {
  // [2, 3] float: 24 bytes.
  const std::string message = CompileError(ReluModel({2, 3}), {{"ge.maxTensorBytes", "23"}});
  CHECK_THAT(message, Contains("'x'") && Contains("[2,3]") && Contains("24 bytes") &&
                          Contains("cap (ge.maxTensorBytes) is 23 bytes"));
  auto model = CompiledModel::Compile(ReluModel({2, 3}), {{"ge.maxTensorBytes", "24"}});
  Tensor x(DataType::kFloat, {2, 3});
  x.data_as<float>()[4] = -2.0f;
  x.data_as<float>()[5] = 3.0f;
  const Tensor y = model->Run({x})[0];
  CHECK(y.data_as<float>()[4] == 0.0f);
  CHECK(y.data_as<float>()[5] == 3.0f);
}

TEST_CASE("The default cap is 64 GiB") {
  // 2^34 floats are exactly 64 GiB; one more element is over.
  const int64_t elements = int64_t{1} << 34;
  CHECK_THAT(CompileError(ReluModel({elements + 1})),
             Contains("68719476740 bytes") && Contains("is 68719476736 bytes"));
}

TEST_CASE("A dim of 2^62 is refused at compile time, not sized to 0 bytes") {
  GraphBuilder b("transpose");
  b.Output(b.Transpose(b.Input("x", DataType::kFloat, {int64_t{1} << 62, 2}), {1, 0}, "t"));
  CHECK_THAT(CompileError(b.Build()), Contains("'x'") && Contains("[4611686018427387904,2]") &&
                                          Contains("more bytes than int64 can count"));
}

TEST_CASE("ge.maxTensorBytes takes 1 to 2^63 - 1 bytes") {
  for (const char* bad : {"0", "-1", "9223372036854775808", "64GiB", ""}) {
    INFO(bad);
    CHECK_THROWS_WITH(CompiledModel::Compile(ReluModel({2}), {{"ge.maxTensorBytes", bad}}),
                      Contains("option ge.maxTensorBytes") && Contains("9223372036854775807"));
  }
  CHECK_NOTHROW(CompiledModel::Compile(ReluModel({2}), {{"ge.maxTensorBytes", "9223372036854775807"}}));
}

TEST_CASE("The memory planner refuses buffers whose sum overflows int64") {
  const size_t half = static_cast<size_t>(std::numeric_limits<int64_t>::max() / 2 + 1);
  std::vector<runtime::BufferRequest> requests = {{half, 0, 1}, {half, 1, 2}};
  CHECK_THROWS_WITH(runtime::PlanMemory(requests, true), Contains("more bytes than int64 can count"));
  requests[1].size = 64;
  CHECK_NOTHROW(runtime::PlanMemory(requests, true));
}

}  // namespace ge::test

namespace ge::test {

TEST_CASE("Constant folding does not allocate a value over ge.maxTensorBytes") {
  // Fill's dims come from a constant that an Add computes, so its shape is
  // known only once the passes fold the Add: the check before them cannot see it.
  GraphBuilder b("fill");
  Tensor half(DataType::kInt64, {1});
  half.data_as<int64_t>()[0] = int64_t{1} << 39;  // dims [2^40]: 4 TiB of floats
  Value* dims = b.Add(b.Constant("half", half), b.Constant("other_half", half), "dims");
  Tensor value(DataType::kFloat, {});
  Value* filled = b.Op("Fill", {dims, b.Constant("value", value)}, {}, 1, "fill")[0];
  b.Output(b.Add(filled, b.Input("x", DataType::kFloat, {1}), "sum"));
  CHECK_THAT(CompileError(b.Build()), Contains("'fill' (Fill)") && Contains("[1099511627776]") &&
                                          Contains("4398046511104 bytes") && Contains("ge.maxTensorBytes"));
}

TEST_CASE("Shapes known only at run time are held to ge.maxTensorBytes, with plans per shape and node by node") {
  for (const char* plan_cache_bytes : {"268435456", "0"}) {
    INFO("ge.exec.dynamicPlanCacheBytes=" << plan_cache_bytes);
    auto model = CompiledModel::Compile(ReluModel({Shape::kUnknownDim}), {{"ge.maxTensorBytes", "16"},
                                                                          {"ge.exec.dynamicPlanCacheBytes", plan_cache_bytes}});
    CHECK(model->Run({Tensor(DataType::kFloat, {4})})[0].shape() == Shape{4});
    try {
      model->Run({Tensor(DataType::kFloat, {5})});  // 20 bytes: x (a plan's compile checks it too) and act
      FAIL("a 20-byte output ran under a 16-byte cap");
    } catch (const Error& e) {
      CHECK_THAT(e.what(), Contains("of shape [5] (float32) needs 20 bytes") && Contains("is 16 bytes"));
    }
  }
}

TEST_CASE("A .gem is held to the loader's ge.maxTensorBytes, not to the cap stored in the file") {
  const std::string path = (TempDir("gem_tensor_cap") / "relu.gem").string();
  // Compiled under a cap of exactly its 24-byte values; the file stores that option.
  CompiledModel::Compile(ReluModel({2, 3}), {{"ge.maxTensorBytes", "24"}})->Save(path);
  CHECK(CompiledModel::Load(path)->inputs()[0].shape == Shape{2, 3});
  try {
    CompiledModel::Load(path, {{"ge.maxTensorBytes", "23"}});
    FAIL("loaded over the loader's cap");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Contains("relu.gem") && Contains("needs 24 bytes") && Contains("is 23 bytes"));
  }
}

TEST_CASE("An empty value's other dims must multiply within int64; a plain empty value runs") {
  const int64_t huge = int64_t{1} << 62;
  CHECK_THAT(CompileError(ReluModel({7, huge, 0})), Contains("[7,4611686018427387904,0]") &&
                                                        Contains("is empty, but its other dims multiply past int64"));
  auto model = CompiledModel::Compile(ReluModel({7, 1000, 0}));
  CHECK(model->Run({Tensor(DataType::kFloat, {7, 1000, 0})})[0].shape() == Shape{7, 1000, 0});
}

}  // namespace ge::test
