// The TensorFlow import on trained TensorFlow.js graph models (the npm
// package @vladmandic/human), against TensorFlow.js's own CPU backend:
// scripts/fetch_tf_models.sh puts the models and tf-ref's inputs and
// outputs in a cache; each model is imported with tf-ref's outputs as its
// outputs, run on tf-ref's inputs, and must match every output within 1e-4
// of the output's largest magnitude (at least 1). Skips, saying so, without
// the cache. Each model also goes through the .pb path: written as a frozen
// GraphDef (tf_freeze.h, what tools/tfjs_to_pb does) and imported from there.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "ge/compiled_model.h"
#include "ge/error.h"
#include "ge/quantize.h"
#include "ge/tf_importer.h"
#include "graph/npy.h"
#include "graph/tf/tf_freeze.h"
#include "test_support.h"

using namespace ge;
namespace fs = std::filesystem;

namespace {

fs::path Cache() {
  if (const char* given = std::getenv("GE_MODEL_CACHE")) return given;
  const char* home = std::getenv("HOME");
  return fs::path(home != nullptr ? home : "/nonexistent") / ".cache" / "ge-models";
}

std::vector<std::string> Lines(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

// tf-ref's file name for a tensor: characters outside [A-Za-z0-9._-] become '_'.
std::string FileName(std::string name) {
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  }
  return name;
}

double MaxAbs(const Tensor& t) {
  double m = 0;
  for (int64_t i = 0; i < t.shape().NumElements(); ++i) m = std::max(m, std::abs(double(static_cast<const float*>(t.data())[i])));
  return m;
}

// TensorFlow.js keeps the result of some int32-to-float32 casts (handtrack's
// detection count and anchor indices) in integer storage, and tf-ref writes
// those bytes under the float32 dtype. Every value of such a file then has
// the bit pattern of a small integer (a subnormal float or zero), which no
// float output of a real model has; it is read back as the integers it holds.
Tensor IntegersAsFloats(const Tensor& expected) {
  if (expected.dtype() != DataType::kFloat) return expected;
  const auto* bits = static_cast<const uint32_t*>(expected.data());
  bool integers = false;
  for (int64_t k = 0; k < expected.num_elements(); ++k) {
    if ((bits[k] & 0x7f800000u) != 0) return expected;  // a normal float (or inf/NaN): real float data
    integers = integers || bits[k] != 0;
  }
  if (!integers) return expected;
  Tensor floats(DataType::kFloat, expected.shape());
  for (int64_t k = 0; k < expected.num_elements(); ++k) {
    floats.data_as<float>()[k] = static_cast<float>(static_cast<int32_t>(bits[k]));
  }
  return floats;
}

}  // namespace

TEST_CASE("trained TensorFlow.js models match TensorFlow.js, as model.json and as a frozen .pb", "[tf][models]") {
  const std::string model = GENERATE(as<std::string>{}, "antispoof", "emotion", "liveness", "blazeface", "iris",
                                     "facemesh", "faceres", "handlandmark-lite", "centernet", "movenet-lightning",
                                     "handtrack");
  const bool frozen = GENERATE(false, true);
  const fs::path json = Cache() / "human" / "package" / "models" / (model + ".json");
  const fs::path ref = Cache() / "human-ref" / model;
  if (!fs::exists(json) || !fs::exists(ref / "outputs.txt")) {
    WARN("skipped: " << model << " and its references are not in " << Cache().string()
                     << " (bash scripts/fetch_tf_models.sh fetches them)");
    return;
  }
  INFO(model << (frozen ? " as .pb" : " as model.json"));
  fs::path path = json;
  if (frozen) {
    // The .pb the tfjs_to_pb tool writes: the weights in the Const nodes.
    path = fs::temp_directory_path() / ("ge_tf_models_" + model + ".pb");
    std::ofstream(path, std::ios::binary) << tf_import::FreezeWeights(tf_import::ReadTfModel(json.string())).SerializeAsString();
  }
  const std::vector<std::string> outputs = Lines(ref / "outputs.txt");
  TfImportOptions options;
  options.output_nodes = outputs;
  const auto compiled = CompiledModel::Compile(ImportTensorFlowFile(path.string(), options));
  std::vector<Tensor> inputs;
  for (const std::string& name : Lines(ref / "inputs.txt")) {
    inputs.push_back(ReadNpy((ref / ("input." + FileName(name) + ".npy")).string()));
  }
  // TensorFlow.js has no uint8 tensors: tf-ref feeds handtrack's uint8 image as int32.
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (compiled->inputs()[i].dtype == DataType::kUInt8 && inputs[i].dtype() == DataType::kInt32) {
      Tensor bytes(DataType::kUInt8, inputs[i].shape());
      for (int64_t k = 0; k < bytes.num_elements(); ++k) {
        bytes.data_as<uint8_t>()[k] = static_cast<uint8_t>(inputs[i].data_as<int32_t>()[k]);
      }
      inputs[i] = bytes;
    }
  }
  const std::vector<Tensor> got = compiled->Run(inputs);
  REQUIRE(got.size() == outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    INFO("output " << outputs[i]);
    const Tensor expected = IntegersAsFloats(ReadNpy((ref / (FileName(outputs[i]) + ".npy")).string()));
    REQUIRE(got[i].shape() == expected.shape());
    REQUIRE(got[i].dtype() == DataType::kFloat);
    const double tolerance = 1e-4 * std::max(1.0, MaxAbs(expected));
    double worst = 0;
    for (int64_t k = 0; k < expected.shape().NumElements(); ++k) {
      worst = std::max(worst, std::abs(double(static_cast<const float*>(got[i].data())[k]) -
                                       double(static_cast<const float*>(expected.data())[k])));
    }
    CHECK(worst <= tolerance);
  }
}

// The seed's TensorFlow table on trained models, calibrated on tf-ref's input:
// handlandmark-lite holds AddN (not in the table), grappler's _FusedMatMul
// (judged as MatMul), plain Conv2D and DepthwiseConv2dNative, and AddV2 both
// as a bias (one tensor input) and as a residual sum (two); iris, quantized
// whole, stays within cosine 0.999 of its float model.
TEST_CASE("quantization judges trained TensorFlow.js models by TensorFlow's table", "[tf][models][quant]") {
  const std::string model = GENERATE(as<std::string>{}, "handlandmark-lite", "iris");
  const fs::path json = Cache() / "human" / "package" / "models" / (model + ".json");
  const fs::path ref = Cache() / "human-ref" / model;
  if (!fs::exists(json) || !fs::exists(ref / "inputs.txt")) {
    WARN("skipped: " << model << " and its references are not in " << Cache().string()
                     << " (bash scripts/fetch_tf_models.sh fetches them)");
    return;
  }
  INFO(model);
  const std::string input = Lines(ref / "inputs.txt").at(0);
  const Tensor image = ReadNpy((ref / ("input." + FileName(input) + ".npy")).string());
  TfImportOptions import;
  import.input_shapes[input] = image.shape();
  const std::unique_ptr<Graph> graph = ImportTensorFlowFile(json.string(), import);
  QuantizeOptions options;
  options.calibration_batches = {{image}};
  const QuantizeResult result = Quantize(*graph, options);

  std::map<std::string, std::map<std::string, int>> decisions;  // framework op -> decision -> layers
  for (const QuantizedLayer& layer : result.layers) {
    INFO(layer.layer << ": " << layer.decision);
    CHECK(layer.framework == "TensorFlow");
    const bool skipped = layer.decision.rfind("skipped", 0) == 0;
    ++decisions[layer.framework_op][skipped ? layer.decision : "quantized"];
    if (layer.framework_op == "AddN") {
      CHECK_THAT(layer.decision, Catch::StartsWith("skipped: TensorFlow AddN is not a quantizable layer"));
    } else if (layer.framework_op == "_FusedMatMul") {
      CHECK_THAT(layer.rule, Catch::StartsWith("TensorFlow MatMul: transpose_a, transpose_b"));
    } else if (layer.framework_op == "AddV2") {
      CHECK_THAT(layer.rule, Catch::StartsWith("TensorFlow Add: "));
      if (skipped) CHECK_THAT(layer.decision, Catch::Contains("both inputs are variable tensors"));
    } else {
      CHECK(!skipped);  // the convolutions and pools keep their rows
    }
  }
  if (model == "handlandmark-lite") {
    CHECK(decisions["AddN"].size() == 1);
    CHECK(decisions["AddN"].begin()->second == 9);
    CHECK(decisions["_FusedMatMul"]["quantized"] == 4);
    CHECK(decisions["Conv2D"]["quantized"] == 31);
    CHECK(decisions["DepthwiseConv2dNative"]["quantized"] == 16);
    CHECK(decisions["AddV2"]["quantized"] > 0);
  } else {
    const Tensor q = CompiledModel::Compile(result.graph->Clone())->Run({image}).at(0);
    const Tensor f = CompiledModel::Compile(graph->Clone())->Run({image}).at(0);
    CHECK(test::Cosine({q}, {f}) > 0.999);
  }
}
