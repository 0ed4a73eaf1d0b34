// Whole models compiled for ge.exec.device=ascend and run through the ACL
// backend (the emulator in CI): the demo model of this repository and the
// models in ../shared/models, single- and multi-stream, against PyTorch's
// outputs and against the same model on the CPU device; and runs that fail
// inside ACL give a clean error and leave no device memory behind.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "ge/compiled_model.h"
#include "ge/onnx_importer.h"
#include "test_support.h"
#ifdef GE_ACL_EMULATOR
#include "device/acl/emulator/fault_injection.h"
#endif

namespace ge::test {
namespace {

const Options kAscend = {{"ge.exec.device", "ascend"}};

// Device memory still allocated (the emulator counts it; on hardware, 0).
size_t LiveDeviceAllocations() {
#ifdef GE_ACL_EMULATOR
  return acl_emulator::LiveDeviceAllocations();
#else
  return 0;
#endif
}

Options WithStreams(Options options) {
  options["ge.enableSingleStream"] = "false";
  return options;
}

std::vector<Tensor> RandomInputs(const CompiledModel& model, uint32_t seed) {
  std::vector<Tensor> inputs;
  for (const TensorInfo& info : model.inputs()) {
    Tensor tensor(info.dtype, info.shape);
    if (info.dtype == DataType::kFloat) {
      uint32_t state = seed * 2654435761u + 1;
      for (int64_t i = 0; i < tensor.num_elements(); ++i) {
        state = state * 1664525u + 1013904223u;
        tensor.data_as<float>()[i] = static_cast<float>(state >> 8) / static_cast<float>(1u << 24) * 2.0f - 1.0f;
      }
    }
    inputs.push_back(std::move(tensor));
  }
  return inputs;
}

// The model on the Ascend device computes what it computes on the CPU.
void CheckSameAsCpu(const std::filesystem::path& onnx, const Options& ascend_options) {
  const auto cpu = CompiledModel::Compile(ImportOnnxFile(onnx.string()));
  const auto ascend = CompiledModel::Compile(ImportOnnxFile(onnx.string()), ascend_options);
  CHECK(ascend->device_name().rfind("ascend", 0) == 0);
  for (uint32_t seed : {1u, 2u}) {
    const std::vector<Tensor> inputs = RandomInputs(*cpu, seed);
    const std::vector<Tensor> expected = cpu->Run(inputs);
    const std::vector<Tensor> got = ascend->Run(inputs);
    REQUIRE(got.size() == expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      INFO(onnx.filename().string() << " output " << i);
      CHECK(got[i].shape() == expected[i].shape());
      CHECK(MaxAbsDiff(got[i], expected[i]) <= 1e-5);
    }
  }
}

std::filesystem::path DemoModel() { return ge::test::SourceDir() / "models" / "demo_cnn.onnx"; }

TEST_CASE("ascend: the demo model runs on the Ascend device as on the CPU", "[acl][e2e]") {
  CheckSameAsCpu(DemoModel(), kAscend);
  CheckSameAsCpu(DemoModel(), WithStreams(kAscend));
  CHECK(LiveDeviceAllocations() == 0);
}

TEST_CASE("ascend: a .gem compiled for the Ascend device loads and runs there", "[acl][e2e]") {
  const std::filesystem::path dir = TempDir("acl_gem");
  const std::filesystem::path path = dir / "demo.gem";
  const auto compiled = CompiledModel::Compile(ImportOnnxFile(DemoModel().string()), kAscend);
  compiled->Save(path.string());
  const auto loaded = CompiledModel::Load(path.string());
  CHECK(loaded->device_name() == compiled->device_name());
  const std::vector<Tensor> inputs = RandomInputs(*compiled, 5);
  const std::vector<Tensor> expected = compiled->Run(inputs);
  const std::vector<Tensor> got = loaded->Run(inputs);
  REQUIRE(got.size() == expected.size());
  CHECK(MaxAbsDiff(got[0], expected[0]) == 0.0);
}

TEST_CASE("ascend: the shared models match PyTorch on the Ascend device", "[acl][e2e]") {
  const auto shared = SharedDir();
  if (!shared) GE_SKIP("../shared/models is absent");
  for (const char* name : {"tiny_cnn", "tiny_transformer", "squeezenet1_1"}) {
    INFO(name);
    const std::filesystem::path dir = *shared / "models";
    const auto model = CompiledModel::Compile(ImportOnnxFile((dir / (std::string(name) + ".onnx")).string()),
                                              WithStreams(kAscend));
    const std::vector<Tensor> outputs = model->Run({ReadNpy(dir / (std::string(name) + ".input.npy"))});
    REQUIRE(outputs.size() == 1);
    CHECK(MaxAbsDiff(outputs[0], ReadNpy(dir / (std::string(name) + ".expected.npy"))) <= 1e-4);
  }
  CHECK(LiveDeviceAllocations() == 0);
}

#ifdef GE_ACL_EMULATOR
TEST_CASE("ascend: failures inside ACL are clean errors and leak no device memory", "[acl][faults]") {
  acl_emulator::Reset();
  {
    const auto model = CompiledModel::Compile(ImportOnnxFile(DemoModel().string()), kAscend);
    const std::vector<Tensor> inputs = RandomInputs(*model, 3);

    acl_emulator::FailNextOp("Conv2D");
    auto [code, message] = ErrorOf([&] { model->Run(inputs); });
    CHECK(code != ErrorCode::kOk);
    CHECK_THAT(message, Catch::Contains("Conv2D"));

    acl_emulator::FailNextMalloc(1);
    std::tie(code, message) = ErrorOf([&] { model->Run(inputs); });
    CHECK(code != ErrorCode::kOk);

    CHECK(model->Run(inputs).size() == 1);  // the device is still usable
  }
  acl_emulator::FailNextMalloc(1);
  auto [code, message] = ErrorOf([] { CompiledModel::Compile(ImportOnnxFile(DemoModel().string()), kAscend); });
  CHECK(code != ErrorCode::kOk);
  acl_emulator::Reset();
  CHECK(LiveDeviceAllocations() == 0);
}
#endif

}  // namespace
}  // namespace ge::test
