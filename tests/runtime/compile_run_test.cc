// Compile and run small graphs; results against naive float64 loops.
#include <catch2/catch.hpp>

#include <omp.h>

#include <atomic>
#include <cmath>
#include <thread>

#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "ge/error.h"
#include "runtime/execution_plan.h"
#include "test_models.h"
#include "test_support.h"

using ge::DataType;
using ge::ErrorCode;
using ge::Tensor;
using ge::test::MaxAbsDiff;
using ge::test::RandomTensor;

namespace {

ge::ErrorCode RunError(const ge::CompiledModel& model, const std::vector<Tensor>& inputs, std::string* message) {
  try {
    model.Run(inputs);
  } catch (const ge::Error& error) {
    *message = error.what();
    return error.code();
  }
  return ErrorCode::kOk;
}

}  // namespace

TEST_CASE("compile: Conv2D + Relu matches naive loops", "[compile]") {
  ge::test::ConvReluModel reference;
  auto model = ge::CompiledModel::Compile(reference.Build());
  REQUIRE(model->inputs().size() == 1);
  CHECK(model->inputs()[0].shape == ge::test::ConvReluModel::InputShape());
  REQUIRE(model->outputs().size() == 1);
  CHECK(model->outputs()[0].shape == ge::Shape{1, 3, 5, 5});
  CHECK(model->device_name() == "cpu");
  CHECK(model->memory().const_bytes >= reference.filter.nbytes() + reference.bias.nbytes());

  for (uint32_t seed : {1u, 2u, 3u}) {
    Tensor x = RandomTensor(ge::test::ConvReluModel::InputShape(), seed);
    std::vector<Tensor> y = model->Run({x});
    REQUIRE(y.size() == 1);
    CHECK(MaxAbsDiff(y[0], reference.Reference(x)) < 1e-5);
  }
}

TEST_CASE("compile: MatMulV2 + Add + Relu + Reshape matches naive loops", "[compile]") {
  ge::test::MlpModel reference;
  auto model = ge::CompiledModel::Compile(reference.Build());
  Tensor x = RandomTensor(ge::test::MlpModel::InputShape(), 5);
  std::vector<Tensor> y = model->Run({x});
  REQUIRE(y.size() == 1);
  CHECK(y[0].shape() == ge::Shape{4, 2});
  CHECK(MaxAbsDiff(y[0], reference.Reference(x)) < 1e-5);
}

TEST_CASE("compile: outputs that are inputs, constants, repeats or views come out right", "[compile]") {
  ge::GraphBuilder b("odd_outputs");
  ge::Value* x = b.Input("x", DataType::kFloat, {2, 3});
  Tensor c_value = Tensor::FromVector<float>(DataType::kFloat, {2, 3}, {1, -2, 3, -4, 5, -6});
  ge::Value* c = b.Constant("c", c_value);
  ge::Value* r = b.Relu(x, "relu");
  ge::Value* v = b.Reshape(r, {3, 2}, "view");
  ge::Value* s = b.Add(x, c, "sum");
  b.Outputs({x, c, r, r, v, s, b.Reshape(x, {6}, "input_view")});
  // Without folding, the Reshapes stay views of an arena value and of an input.
  auto model = ge::CompiledModel::Compile(b.Build(), {{"ge.disablePasses", "constant_folding"}});
  size_t views = 0;
  for (const ge::runtime::Step& step : model->impl().steps) views += step.is_view;
  CHECK(views == 2);  // both Reshapes share bytes instead of copying

  Tensor input = Tensor::FromVector<float>(DataType::kFloat, {2, 3}, {-1, 2, -3, 4, -5, 6});
  std::vector<Tensor> y = model->Run({input});
  REQUIRE(y.size() == 7);
  const std::vector<float> relu = {0, 2, 0, 4, 0, 6};
  std::vector<float> sum(6);
  for (int i = 0; i < 6; ++i) sum[i] = input.data_as<float>()[i] + c_value.data_as<float>()[i];
  auto values = [](const Tensor& t) { return std::vector<float>(t.values<float>().begin(), t.values<float>().end()); };
  CHECK(values(y[0]) == values(input));
  CHECK(values(y[1]) == values(c_value));
  CHECK(values(y[2]) == relu);
  CHECK(values(y[3]) == relu);
  CHECK(y[4].shape() == ge::Shape{3, 2});
  CHECK(values(y[4]) == relu);
  CHECK(values(y[5]) == sum);
  CHECK(y[6].shape() == ge::Shape{6});
  CHECK(values(y[6]) == values(input));

  // Every output is a buffer of its own: writing one changes no other, nor the model.
  CHECK(y[0].data() != input.data());
  y[2].data_as<float>()[1] = 100;
  y[1].data_as<float>()[0] = 100;
  CHECK(y[3].data_as<float>()[1] == 2);
  CHECK(y[4].data_as<float>()[1] == 2);
  std::vector<Tensor> again = model->Run({input});
  CHECK(values(again[1]) == values(c_value));
}

TEST_CASE("compile: a run's outputs survive the next run", "[compile]") {
  ge::test::MlpModel reference;
  auto model = ge::CompiledModel::Compile(reference.Build());
  Tensor x1 = RandomTensor(ge::test::MlpModel::InputShape(), 7);
  Tensor x2 = RandomTensor(ge::test::MlpModel::InputShape(), 8);
  Tensor y1 = model->Run({x1})[0];
  Tensor y1_copy = y1.Clone();
  model->Run({x2});
  CHECK(ge::test::BitIdentical(y1, y1_copy));
}

TEST_CASE("compile: input count, dtype and shape mismatches name the input", "[compile]") {
  auto model = ge::CompiledModel::Compile(ge::test::MlpModel().Build());
  std::string message;
  CHECK(RunError(*model, {}, &message) == ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("1 input") && Catch::Contains("got 0"));

  Tensor good = RandomTensor({2, 3}, 1);
  CHECK(RunError(*model, {good, good}, &message) == ErrorCode::kInvalidArgument);

  CHECK(RunError(*model, {Tensor(DataType::kInt32, {2, 3})}, &message) == ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("'x'") && Catch::Contains("float32") && Catch::Contains("int32"));

  CHECK(RunError(*model, {RandomTensor({3, 2}, 1)}, &message) == ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("'x'") && Catch::Contains("[2,3]") && Catch::Contains("[3,2]"));

  CHECK(RunError(*model, {good}, &message) == ErrorCode::kOk);
}

TEST_CASE("compile: memory is reused along a chain, and not with disableReuseMemory", "[compile]") {
  auto build = [] {
    ge::GraphBuilder b("chain");
    ge::Value* v = b.Input("x", DataType::kFloat, {4, 256});
    v = b.Relu(b.Sigmoid(b.Tanh(b.Sigmoid(b.Tanh(v)))));
    b.Output(v);
    return b.Build();
  };
  auto reusing = ge::CompiledModel::Compile(build());
  auto separate = ge::CompiledModel::Compile(build(), {{"ge.exec.disableReuseMemory", "1"}});
  ge::MemorySummary with_reuse = reusing->memory();
  ge::MemorySummary without = separate->memory();
  // Four 4 KiB intermediates (the fifth result is the graph output, not in the arena).
  CHECK(with_reuse.no_reuse_bytes >= 4 * 4096);
  CHECK(with_reuse.arena_bytes < with_reuse.no_reuse_bytes);
  CHECK(with_reuse.arena_bytes >= with_reuse.lower_bound_bytes);
  CHECK(without.arena_bytes == without.no_reuse_bytes);
  CHECK(without.no_reuse_bytes == with_reuse.no_reuse_bytes);

  Tensor x = RandomTensor({4, 256}, 3);
  Tensor a = reusing->Run({x})[0];
  Tensor b = separate->Run({x})[0];
  CHECK(ge::test::BitIdentical(a, b));
  double worst = 0;
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    double v = x.data_as<float>()[i];
    for (int k = 0; k < 2; ++k) v = 1 / (1 + std::exp(-std::tanh(v)));
    worst = std::max(worst, std::fabs(std::max(v, 0.0) - a.data_as<float>()[i]));
  }
  CHECK(worst < 1e-5);
}

TEST_CASE("compile: a null graph or a graph without outputs is an invalid argument", "[compile]") {
  CHECK_THROWS_MATCHES(ge::CompiledModel::Compile(nullptr), ge::Error,
                       Catch::Predicate<ge::Error>([](const ge::Error& e) {
                         return e.code() == ErrorCode::kInvalidArgument;
                       }));
}

TEST_CASE("compile: runs from 4 threads at once give identical results", "[compile][concurrency]") {
  ge::test::ConvReluModel reference;
  auto model = ge::CompiledModel::Compile(reference.Build(), {{"ge.exec.intraOpThreads", "1"}});
  std::vector<Tensor> inputs, expected;
  for (uint32_t seed = 0; seed < 8; ++seed) {
    inputs.push_back(RandomTensor(ge::test::ConvReluModel::InputShape(), 100 + seed));
    expected.push_back(model->Run({inputs.back()})[0]);
    CHECK(MaxAbsDiff(expected.back(), reference.Reference(inputs.back())) < 1e-5);
  }
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 25; ++round) {
        size_t i = static_cast<size_t>(t * 3 + round) % inputs.size();
        if (!ge::test::BitIdentical(model->Run({inputs[i]})[0], expected[i])) ++mismatches;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(mismatches == 0);
}

TEST_CASE("compile: compile and run leave the caller's OpenMP team size as it was", "[compile]") {
  omp_set_num_threads(1);
  ge::test::ConvReluModel reference;
  auto model = ge::CompiledModel::Compile(reference.Build(), {{"ge.exec.intraOpThreads", "2"}});
  CHECK(omp_get_max_threads() == 1);
  Tensor x = RandomTensor(ge::test::ConvReluModel::InputShape(), 77);
  CHECK(MaxAbsDiff(model->Run({x})[0], reference.Reference(x)) < 1e-5);
  CHECK(omp_get_max_threads() == 1);
  omp_set_num_threads(omp_get_num_procs());
}

TEST_CASE("compile: releasePackedConstants frees the weights the kernels packed, runs the same, refuses Save",
          "[compile]") {
  const ge::test::ConvReluModel conv;
  auto kept = ge::CompiledModel::Compile(conv.Build());
  for (const char* single_stream : {"true", "false"}) {
    INFO("ge.enableSingleStream=" << single_stream);
    auto released = ge::CompiledModel::Compile(
        conv.Build(), {{"ge.exec.releasePackedConstants", "1"}, {"ge.enableSingleStream", single_stream}});
    // The filter is packed by the convolution; the bias is read as it is.
    CHECK(released->impl().released_constants == 1);
    size_t without_bytes = 0;
    for (const ge::Node* node : released->graph().nodes()) {
      if (node->op_type() != "Const") continue;
      const ge::Tensor* value = node->output(0)->constant();
      REQUIRE(value != nullptr);
      if (value->data() == nullptr) {
        ++without_bytes;
        CHECK(value->shape() == conv.filter.shape());
      }
    }
    CHECK(without_bytes == 1);

    ge::Tensor x = ge::test::RandomTensor(ge::test::ConvReluModel::InputShape(), 3);
    std::vector<ge::Tensor> expected = kept->Run({x});
    std::vector<ge::Tensor> got = released->Run({x});
    REQUIRE(got.size() == 1);
    CHECK(ge::test::BitIdentical(got[0], expected[0]));

    std::filesystem::path dir = ge::test::TempDir("compile-release-packed");
    const std::string path = (dir / "conv.gem").string();
    auto [code, message] = ge::test::ErrorOf([&] { released->Save(path); });
    CHECK(code == ge::ErrorCode::kUnsupported);
    CHECK_THAT(message, Catch::Contains("ge.exec.releasePackedConstants=1") && Catch::Contains("conv.gem"));
    CHECK_FALSE(std::filesystem::exists(path));
    std::filesystem::remove_all(dir);
  }
}
