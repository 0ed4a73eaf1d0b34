// IO binding (ge/io_binding.h, CompiledModel::RunInto): outputs written into
// caller buffers in place, on static plans and on the node-by-node path of a
// dynamic model; a state bound as input and output updated in place; and the
// errors for names, dtypes, shapes and overlapping buffers.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "attention_cache_model.h"
#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "ge/error.h"
#include "ge/io_binding.h"
#include "ge/profile.h"
#include "test_support.h"

using ge::DataType;
using ge::Shape;
using ge::Tensor;
using ge::test::AttentionCacheModel;

namespace {

// a = Sigmoid(h) and b = a + h: b reads h after a exists, so a written over
// h before b runs would give b = 2a.
std::shared_ptr<const ge::CompiledModel> StateModel(const Shape& shape) {
  ge::GraphBuilder b("state");
  ge::Value* h = b.Input("h", DataType::kFloat, shape);
  ge::Value* a = b.Sigmoid(h, "a");
  b.Outputs({a, b.Add(a, h, "b")});
  return ge::CompiledModel::Compile(b.Build());
}

void RequireEqual(const Tensor& got, const Tensor& expected) {
  REQUIRE(got.dtype() == expected.dtype());
  REQUIRE(got.shape() == expected.shape());
  REQUIRE(std::memcmp(got.data(), expected.data(), expected.nbytes()) == 0);
}

void RequireClose(const Tensor& got, const Tensor& expected) {
  REQUIRE(got.shape() == expected.shape());
  for (int64_t i = 0; i < expected.num_elements(); ++i) {
    const float e = expected.data_as<float>()[i];
    REQUIRE(std::abs(got.data_as<float>()[i] - e) <= 1e-5f * std::max(1.0f, std::abs(e)));
  }
}

std::string ErrorOf(const std::function<void()>& body) {
  try {
    body();
  } catch (const ge::Error& e) {
    CHECK(e.code() == ge::ErrorCode::kInvalidArgument);
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("io binding: a static plan writes bound outputs in place", "[io_binding]") {
  auto model = StateModel({2, 3});
  Tensor h = ge::test::RandomTensor({2, 3}, 5);
  std::vector<Tensor> expected = model->Run({h});
  ge::IoBinding binding(model);
  Tensor a(DataType::kFloat, {2, 3});
  binding.BindInput("h", h);
  binding.BindOutput("a", a);
  binding.Run();
  CHECK(binding.output("a").data() == a.data());
  RequireEqual(binding.output("a"), expected[0]);
  RequireEqual(binding.output("b"), expected[1]);  // unbound: a buffer of ge's own
  CHECK(binding.output("b").data() != a.data());
}

TEST_CASE("io binding: a state bound as input and output is updated in place", "[io_binding]") {
  for (const Shape& declared : {Shape{4, 5}, Shape{ge::Shape::kUnknownDim, 5}}) {
    auto model = StateModel(declared);
    Tensor h = ge::test::RandomTensor({4, 5}, 6);
    std::vector<Tensor> expected = model->Run({h.Clone()});
    ge::IoBinding binding(model);
    binding.BindInput("h", h);
    binding.BindOutput("a", h);  // the same buffer
    binding.Run();
    CHECK(binding.output("a").data() == h.data());
    RequireEqual(h, expected[0]);
    RequireEqual(binding.output("b"), expected[1]);  // read h before it was overwritten
  }
}

TEST_CASE("io binding: a KV-cache decode writes its caches into the caller's buffers", "[io_binding][dynamic]") {
  AttentionCacheModel attention;
  auto model = ge::CompiledModel::Compile(attention.Build());
  REQUIRE(model->memory().dynamic);
  constexpr int64_t kPrompt = 3, kSteps = 12, kDim = AttentionCacheModel::kDim;
  // Two allocations per cache of the longest length, borrowed at each step's
  // shape: a step reads one and writes the other.
  std::vector<float> storage[2][2];
  for (auto& pair : storage) {
    for (auto& buffer : pair) buffer.resize((kPrompt + kSteps) * kDim);
  }
  ge::IoBinding binding(model);
  Tensor past_k(DataType::kFloat, {1, 0, kDim}), past_v = past_k;
  Tensor x = ge::test::RandomTensor({1, kPrompt, kDim}, 80);
  for (int step = 0; step < kSteps; ++step) {
    const int64_t length = past_k.shape().dim(1) + x.shape().dim(1);
    Tensor next_k = Tensor::Borrow(DataType::kFloat, {1, length, kDim}, storage[step % 2][0].data());
    Tensor next_v = Tensor::Borrow(DataType::kFloat, {1, length, kDim}, storage[step % 2][1].data());
    binding.BindInput("x", x);
    binding.BindInput("past_k", past_k);
    binding.BindInput("past_v", past_v);
    binding.BindOutput("keys", next_k);
    binding.BindOutput("values", next_v);
    binding.Run();
    std::vector<Tensor> expected = attention.Reference(x, past_k, past_v);
    RequireClose(binding.outputs()[0], expected[0]);
    RequireClose(next_k, expected[1]);
    RequireClose(next_v, expected[2]);
    CHECK(binding.output("keys").data() == next_k.data());
    past_k = next_k;
    past_v = next_v;
    x = ge::test::RandomTensor({1, 1, kDim}, 81 + static_cast<uint32_t>(step));
  }
  CHECK(past_k.shape() == Shape{1, kPrompt + kSteps - 1, kDim});
}

TEST_CASE("io binding: a dynamic model's repeated signature runs its static plan into the bound buffers",
          "[io_binding][dynamic]") {
  auto model = StateModel({ge::Shape::kUnknownDim, 5});
  Tensor h = ge::test::RandomTensor({3, 5}, 7);
  std::vector<Tensor> expected = model->Run({h});
  ge::IoBinding binding(model);
  Tensor a(DataType::kFloat, {3, 5}), b(DataType::kFloat, {3, 5});
  binding.BindInput("h", h);
  binding.BindOutput("a", a);
  binding.BindOutput("b", b);
  for (int run = 0; run < 3; ++run) {
    binding.Run();
    RequireEqual(a, expected[0]);
    RequireEqual(b, expected[1]);
  }
  CHECK(model->run_stats().planned_runs >= 1);
}

TEST_CASE("io binding: bad names, dtypes, shapes and buffers are refused with the output named",
          "[io_binding][errors]") {
  auto model = StateModel({ge::Shape::kUnknownDim, 5});
  ge::IoBinding binding(model);
  CHECK(ErrorOf([&] { binding.BindInput("x", Tensor(DataType::kFloat, {1, 5})); }) ==
        "IoBinding: the model has no input 'x'; its inputs are 'h'");
  CHECK(ErrorOf([&] { binding.BindOutput("c", Tensor(DataType::kFloat, {1, 5})); }) ==
        "IoBinding: the model has no output 'c'; its outputs are 'a', 'b'");
  CHECK_THAT(ErrorOf([&] { binding.BindInput("h", Tensor(DataType::kInt32, {1, 5})); }),
             Catch::Contains("input 'h' is float32") && Catch::Contains("int32 [1,5]"));
  CHECK_THAT(ErrorOf([&] { binding.BindOutput("a", Tensor(DataType::kFloat, {1, 6})); }),
             Catch::Contains("output 'a'") && Catch::Contains("[1,6]"));
  CHECK_THAT(ErrorOf([&] { binding.Run(); }), Catch::Contains("input 'h' is not bound"));
  CHECK_THAT(ErrorOf([&] { binding.output("a"); }), Catch::Contains("not available"));

  binding.BindInput("h", ge::test::RandomTensor({2, 5}, 8));
  Tensor wrong_rows(DataType::kFloat, {3, 5});
  binding.BindOutput("a", wrong_rows);
  CHECK_THAT(ErrorOf([&] { binding.Run(); }), Catch::Contains("output 'a'") && Catch::Contains("[2,5]") &&
                                                  Catch::Contains("[3,5]"));
  CHECK(binding.outputs().empty());

  Tensor shared(DataType::kFloat, {2, 5});
  binding.BindOutput("a", shared);
  binding.BindOutput("b", shared);
  CHECK_THAT(ErrorOf([&] { binding.Run(); }), Catch::Contains("overlapping"));
  binding.UnbindOutput("b");
  binding.Run();
  CHECK(binding.output("a").data() == shared.data());
}
