// Whole models imported, compiled and run end to end against outputs computed
// by other frameworks, and written to and read back from .gem: the demo model
// of this repository, and the models in ../shared/models (exported from
// PyTorch, with the outputs PyTorch computed).
#include <cstring>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "file_bytes.h"
#include "ge/compiled_model.h"
#include "ge/onnx_importer.h"
#include "test_support.h"

namespace ge::test {
namespace {

constexpr double kTolerance = 1e-4;

struct SharedModel {
  std::filesystem::path onnx;
  Tensor input;
  Tensor expected;
};

// nullopt when ../shared is absent (the caller skips).
std::optional<SharedModel> LoadSharedModel(const std::string& name) {
  const auto shared = SharedDir();
  if (!shared) return std::nullopt;
  const std::filesystem::path dir = *shared / "models";
  return SharedModel{dir / (name + ".onnx"), ReadNpy(dir / (name + ".input.npy")),
                     ReadNpy(dir / (name + ".expected.npy"))};
}

void CheckMatchesReference(const std::string& name) {
  const auto model = LoadSharedModel(name);
  if (!model) GE_SKIP("../shared/models is absent");
  const auto compiled = CompiledModel::Compile(ImportOnnxFile(model->onnx.string()));
  REQUIRE(compiled->inputs().size() == 1);
  REQUIRE(compiled->outputs().size() == 1);
  const std::vector<Tensor> outputs = compiled->Run({model->input});
  REQUIRE(outputs.size() == 1);
  REQUIRE(outputs[0].shape() == model->expected.shape());
  const double error = MaxAbsDiff(outputs[0], model->expected);
  INFO(name << ": max abs error vs PyTorch " << error);
  CHECK(error <= kTolerance);
}

// Save -> Load must lose nothing: the loaded model computes bit-identical
// outputs, and saving it again reproduces the file byte for byte.
void CheckGemRoundTrip(const std::string& name) {
  const auto model = LoadSharedModel(name);
  if (!model) GE_SKIP("../shared/models is absent");
  const std::filesystem::path dir = TempDir("e2e_gem_round_trip_" + name);
  const auto compiled = CompiledModel::Compile(ImportOnnxFile(model->onnx.string()));
  const std::filesystem::path first = dir / "first.gem";
  const std::filesystem::path second = dir / "second.gem";
  compiled->Save(first.string());
  const auto loaded = CompiledModel::Load(first.string());
  loaded->Save(second.string());
  CHECK(ReadFileBytes(first) == ReadFileBytes(second));

  const std::vector<Tensor> direct = compiled->Run({model->input});
  const std::vector<Tensor> reloaded = loaded->Run({model->input});
  REQUIRE(direct.size() == reloaded.size());
  for (size_t i = 0; i < direct.size(); ++i) {
    REQUIRE(direct[i].dtype() == reloaded[i].dtype());
    REQUIRE(direct[i].shape() == reloaded[i].shape());
    CHECK(std::memcmp(direct[i].data(), reloaded[i].data(), direct[i].nbytes()) == 0);
  }
  CHECK(MaxAbsDiff(reloaded[0], model->expected) <= kTolerance);
}

}  // namespace

// The repository's own demo model against ONNX Runtime's output (models/README.md);
// runs without ../shared.
TEST_CASE("demo_cnn matches ONNX Runtime") {
  const std::filesystem::path dir = ge::test::SourceDir() / "models";
  const auto compiled = CompiledModel::Compile(ImportOnnxFile((dir / "demo_cnn.onnx").string()));
  const std::vector<Tensor> outputs = compiled->Run({ReadNpy(dir / "demo_cnn.input.npy")});
  REQUIRE(outputs.size() == 1);
  const Tensor expected = ReadNpy(dir / "demo_cnn.expected.npy");
  REQUIRE(outputs[0].shape() == expected.shape());
  CHECK(MaxAbsDiff(outputs[0], expected) <= kTolerance);
}

TEST_CASE("tiny_cnn matches PyTorch") { CheckMatchesReference("tiny_cnn"); }
TEST_CASE("tiny_transformer matches PyTorch") { CheckMatchesReference("tiny_transformer"); }
TEST_CASE("squeezenet1_1 matches PyTorch") { CheckMatchesReference("squeezenet1_1"); }

TEST_CASE("tiny_cnn .gem round trip is bit-identical") { CheckGemRoundTrip("tiny_cnn"); }
TEST_CASE("tiny_transformer .gem round trip is bit-identical") { CheckGemRoundTrip("tiny_transformer"); }
TEST_CASE("squeezenet1_1 .gem round trip is bit-identical") { CheckGemRoundTrip("squeezenet1_1"); }

}  // namespace ge::test
