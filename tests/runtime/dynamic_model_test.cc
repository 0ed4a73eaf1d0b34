// Dynamic models: graphs whose shapes are only known at run time (unknown
// input dims, a Reshape to a shape given as an input). Results against naive
// float64 loops.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "device/device.h"
#include "gem_generated.h"
#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "ge/error.h"
#include "graph/op_schema.h"
#include "runtime/dynamic/dynamic_executor.h"
#include "runtime/model_file/gem_file.h"
#include "runtime/compile/model_layout.h"
#include "test_models.h"
#include "test_support.h"

using ge::DataType;
using ge::ErrorCode;
using ge::Shape;
using ge::Tensor;
using ge::test::RandomTensor;
using ge::test::ExecutorOf;

namespace {

constexpr int64_t kU = Shape::kUnknownDim;

// y = Relu(MatMulV2(x, w) + b) with x "x" [?, 3], w [3, 4], b [4].
struct BatchMlp {
  Tensor weight = RandomTensor({3, 4}, 31);
  Tensor bias = RandomTensor({4}, 32);

  std::unique_ptr<ge::Graph> Build() const {
    ge::GraphBuilder b("batch_mlp");
    ge::Value* x = b.Input("x", DataType::kFloat, {kU, 3});
    ge::Value* product = b.MatMul(x, b.Constant("w", weight), nullptr, false, false, "matmul");
    b.Output(b.Relu(b.Add(product, b.Constant("b", bias), "add"), "relu"));
    return b.Build();
  }

  Tensor Reference(const Tensor& x) const {
    const int64_t batch = x.shape().dim(0);
    Tensor y(DataType::kFloat, {batch, 4});
    for (int64_t m = 0; m < batch; ++m) {
      for (int64_t n = 0; n < 4; ++n) {
        double sum = bias.data_as<float>()[n];
        for (int64_t k = 0; k < 3; ++k) {
          sum += double{x.data_as<float>()[m * 3 + k]} * weight.data_as<float>()[k * 4 + n];
        }
        y.data_as<float>()[m * 4 + n] = static_cast<float>(std::max(sum, 0.0));
      }
    }
    return y;
  }
};

ge::Error ErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const ge::Error& error) {
    return error;
  }
  FAIL("no error");
  return ge::Error(ErrorCode::kOk, "");
}

}  // namespace

TEST_CASE("dynamic: an unknown batch dim runs at batch 1 and 3", "[dynamic]") {
  BatchMlp mlp;
  auto model = ge::CompiledModel::Compile(mlp.Build());
  CHECK(model->memory().dynamic);
  CHECK(model->memory().arena_bytes == 0);
  CHECK(model->memory().const_bytes == mlp.weight.nbytes() + mlp.bias.nbytes());
  CHECK(model->inputs()[0].shape == Shape{kU, 3});
  CHECK(model->outputs()[0].shape == Shape{kU, 4});
  for (int64_t batch : {1, 3}) {
    Tensor x = RandomTensor({batch, 3}, static_cast<uint32_t>(40 + batch));
    std::vector<Tensor> y = model->Run({x});
    REQUIRE(y.size() == 1);
    REQUIRE(y[0].shape() == Shape{batch, 4});
    CHECK(ge::test::MaxAbsDiff(y[0], mlp.Reference(x)) < 1e-5);
  }
}

TEST_CASE("dynamic: runs at other batch sizes reuse kernels that take their shapes at run time", "[dynamic]") {
  BatchMlp mlp;
  // Node by node: no static plans per input shape.
  auto model = ge::CompiledModel::Compile(mlp.Build(), {{"ge.exec.dynamicPlanCacheBytes", "0"}});
  model->Run({RandomTensor({2, 3}, 1)});
  const uint64_t after_first = ExecutorOf(*model).kernels_built();
  CHECK(after_first > 0);
  model->Run({RandomTensor({2, 3}, 2)});
  CHECK(ExecutorOf(*model).kernels_built() == after_first);
  // The matmul with its bias (fused), Relu: each kernel reads the batch at run time.
  Tensor x = RandomTensor({5, 3}, 3);
  CHECK(ge::test::MaxAbsDiff(model->Run({x})[0], mlp.Reference(x)) < 1e-5);
  CHECK(ExecutorOf(*model).kernels_built() == after_first);
}

TEST_CASE("dynamic: a Reshape to a shape given as a graph input", "[dynamic]") {
  ge::GraphBuilder b("reshape_by_input");
  ge::Value* x = b.Input("x", DataType::kFloat, {2, 6});
  ge::Value* shape = b.Input("shape", DataType::kInt64, {2});
  ge::Value* reshaped = b.Op("Reshape", {x, shape}, {}, 1, "reshape")[0];
  b.Outputs({b.Relu(reshaped, "relu"), reshaped});
  auto model = ge::CompiledModel::Compile(b.Build());
  CHECK(model->memory().dynamic);

  Tensor input = RandomTensor({2, 6}, 7);
  // Each target twice in a row: a step given the same shape values again
  // skips inference (run_frame.h FrameInference); new values infer again.
  for (std::vector<int64_t> target : {std::vector<int64_t>{3, 4}, {3, 4}, {4, -1}, {4, -1}, {12, 1}, {3, 4}}) {
    std::vector<Tensor> y = model->Run({input, Tensor::FromVector(DataType::kInt64, {2}, target)});
    Shape expected = target[1] == -1 ? Shape{target[0], 12 / target[0]} : Shape(target);
    REQUIRE(y[0].shape() == expected);
    REQUIRE(y[1].shape() == expected);
    for (int64_t i = 0; i < 12; ++i) {
      CHECK(y[0].data_as<float>()[i] == std::max(input.data_as<float>()[i], 0.0f));
      CHECK(y[1].data_as<float>()[i] == input.data_as<float>()[i]);
    }
    // An output that is a view of an input is a buffer of its own.
    CHECK(y[1].data() != input.data());
  }
  Tensor wrong_size = Tensor::FromVector(DataType::kInt64, {2}, std::vector<int64_t>{5, 5});
  ge::Error bad = ErrorOf([&] { model->Run({input, wrong_size}); });
  CHECK_THAT(bad.what(), Catch::Contains("reshape"));
}

TEST_CASE("dynamic: concurrent runs at different shapes", "[dynamic][concurrency]") {
  BatchMlp mlp;
  auto model = ge::CompiledModel::Compile(mlp.Build(), {{"ge.exec.intraOpThreads", "1"}});
  std::vector<double> worst(4, 0.0);
  std::vector<bool> shapes_ok(4, true);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < worst.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        int64_t batch = 1 + static_cast<int64_t>((t + round) % 4);
        Tensor x = RandomTensor({batch, 3}, static_cast<uint32_t>(100 * t + round));
        Tensor y = model->Run({x})[0];
        if (y.shape() != Shape{batch, 4}) {
          shapes_ok[t] = false;
          continue;
        }
        worst[t] = std::max(worst[t], ge::test::MaxAbsDiff(y, mlp.Reference(x)));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (size_t t = 0; t < worst.size(); ++t) {
    CHECK(shapes_ok[t]);
    CHECK(worst[t] < 1e-5);
  }
}

TEST_CASE("dynamic: .gem round trip keeps the graph and no plan", "[dynamic][gem]") {
  BatchMlp mlp;
  std::filesystem::path dir = ge::test::TempDir("runtime-dynamic-gem");
  std::filesystem::path path = dir / "mlp.gem";
  auto model = ge::CompiledModel::Compile(mlp.Build());
  model->Save(path.string());
  auto loaded = ge::CompiledModel::Load(path.string());
  CHECK(loaded->memory().dynamic);
  CHECK(loaded->memory().arena_bytes == 0);
  CHECK(loaded->memory().const_bytes == model->memory().const_bytes);
  CHECK(loaded->inputs()[0].shape == Shape{kU, 3});
  Tensor x = RandomTensor({3, 3}, 5);
  CHECK(ge::test::BitIdentical(loaded->Run({x})[0], model->Run({x})[0]));

  // Older readers refuse the file by its version instead of misreading it.
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const ge::gem::Model* file = ge::gem::GetModel(bytes.data());
  CHECK(file->header()->stamp()->format_version() == ge::runtime::kGemFormatVersion);
  CHECK(file->plan()->dynamic());
  CHECK(ge::test::BitIdentical(ge::CompiledModel::LoadFromMemory(bytes.data(), bytes.size())->Run({x})[0],
                               model->Run({x})[0]));
}

TEST_CASE("dynamic: inputs are checked against the declared shapes", "[dynamic]") {
  auto model = ge::CompiledModel::Compile(BatchMlp().Build());
  ge::Error rank = ErrorOf([&] { model->Run({RandomTensor({3}, 1)}); });
  CHECK(rank.code() == ErrorCode::kInvalidArgument);
  CHECK_THAT(rank.what(), Catch::Contains("'x'") && Catch::Contains("[?,3]") && Catch::Contains("[3]"));
  ge::Error dim = ErrorOf([&] { model->Run({RandomTensor({2, 4}, 1)}); });
  CHECK(dim.code() == ErrorCode::kInvalidArgument);
  CHECK_THAT(dim.what(), Catch::Contains("[?,3]") && Catch::Contains("[2,4]"));
  ge::Error dtype = ErrorOf([&] { model->Run({Tensor(DataType::kInt32, {2, 3})}); });
  CHECK(dtype.code() == ErrorCode::kInvalidArgument);
  CHECK(ErrorOf([&] { model->Run({}); }).code() == ErrorCode::kInvalidArgument);
}

TEST_CASE("dynamic: static graphs keep their plan", "[dynamic]") {
  auto model = ge::CompiledModel::Compile(ge::test::ConvReluModel().Build());
  CHECK_FALSE(model->memory().dynamic);
  CHECK(model->impl().dynamic == nullptr);
  CHECK(model->memory().arena_bytes > 0);
}

namespace {

// A vendor op whose inference never knows its output shape, and a device
// that runs it: the runtime must name the node instead of running it.
constexpr const char* kOpaqueOp = "TestOpaqueShape";

class CopyKernel final : public ge::device::Kernel {
 public:
  void Run(const ge::device::KernelContext&) const override {}
};

class OpaqueDevice final : public ge::device::Device {
 public:
  OpaqueDevice() {
    registry_.Register({kOpaqueOp, {DataType::kFloat}, {}, [](const ge::Node&) {
                          return std::make_unique<CopyKernel>();
                        }});
  }
  std::string name() const override { return "opaque"; }
  bool host_memory() const override { return true; }
  ge::device::Allocator& allocator() override { return cpu().allocator(); }
  std::unique_ptr<ge::device::Stream> CreateStream() override { return cpu().CreateStream(); }
  std::unique_ptr<ge::device::Event> CreateEvent() override { return cpu().CreateEvent(); }
  void CopyToDevice(void* dst, const void* src, size_t bytes, ge::device::Stream& stream) override {
    cpu().CopyToDevice(dst, src, bytes, stream);
  }
  void CopyToHost(void* dst, const void* src, size_t bytes, ge::device::Stream& stream) override {
    cpu().CopyToHost(dst, src, bytes, stream);
  }
  const ge::device::KernelRegistry& kernels() const override { return registry_; }

 private:
  static ge::device::Device& cpu() { return ge::device::CpuDevice(); }
  ge::device::KernelRegistry registry_;
};

void RegisterOpaqueOp() {
  static bool registered = [] {
    ge::OpRegistry::Global().Register(ge::OpSchema(kOpaqueOp)
                                          .Input("x")
                                          .Output("y")
                                          .TypeConstraint("T", {DataType::kFloat})
                                          .Infer([](ge::InferContext& ctx) {
                                            ctx.set_output(0, ctx.input_dtype(0), Shape{kU});
                                          }));
    return true;
  }();
  (void)registered;
}

}  // namespace

TEST_CASE("dynamic: a node whose output shape cannot be determined is named", "[dynamic]") {
  RegisterOpaqueOp();
  OpaqueDevice device;
  ge::CompiledModel::Impl impl;
  impl.graph = std::make_unique<ge::Graph>("opaque");
  ge::Value* x = impl.graph->AddInput("x", DataType::kFloat, {kU});
  ge::Node* node = impl.graph->AddNode(kOpaqueOp, "mystery", {x});
  node->output(0)->set_dtype(DataType::kFloat);
  node->output(0)->set_shape(Shape{kU});
  impl.graph->SetOutputs({node->output(0)});
  std::vector<ge::Node*> order = impl.graph->TopologicalOrder();
  ge::runtime::NumberValues(impl, device, std::vector<const ge::Node*>(order.begin(), order.end()));
  ge::runtime::DynamicExecutor executor(impl, device);
  ge::Error error = ErrorOf([&] { executor.Run({RandomTensor({4}, 1)}); });
  CHECK(error.code() == ErrorCode::kInvalidArgument);
  CHECK_THAT(error.what(), Catch::Contains("mystery") && Catch::Contains(kOpaqueOp) &&
                               Catch::Contains("could not be determined"));
}
