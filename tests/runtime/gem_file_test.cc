// The .gem model file: round trips, alignment, and the errors of bad files.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "gem_generated.h"
#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "ge/error.h"
#include "runtime/model_file/gem_checksum.h"
#include "runtime/model_file/gem_file.h"
#include "test_models.h"
#include "test_support.h"

using ge::CompiledModel;
using ge::DataType;
using ge::ErrorCode;
using ge::Tensor;

namespace {

std::string ReadBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteBytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::pair<ErrorCode, std::string> LoadError(const std::filesystem::path& path) {
  try {
    CompiledModel::Load(path.string());
  } catch (const ge::Error& error) {
    return {error.code(), error.what()};
  }
  return {ErrorCode::kOk, ""};
}

ErrorCode LoadFromMemoryError(const std::string& bytes) {
  try {
    CompiledModel::LoadFromMemory(bytes.data(), bytes.size());
  } catch (const ge::Error& error) {
    return error.code();
  }
  return ErrorCode::kOk;
}

// Graph outputs that are an input, a constant, a repeat and views of an
// input, a constant and an arena value; folding off so the views stay.
std::unique_ptr<ge::Graph> ViewsGraph() {
  ge::GraphBuilder b("views");
  ge::Value* x = b.Input("x", DataType::kFloat, {2, 3});
  ge::Value* c = b.Constant("c", ge::test::RandomTensor({3, 2}, 31));
  ge::Value* r = b.Relu(x, "relu");
  ge::Value* sum = b.Add(b.Reshape(r, {3, 2}, "relu_view"), b.Reshape(c, {3, 2}, "const_view"), "sum");
  b.Outputs({x, c, sum, sum, b.Flatten(x, 1, "input_view")});
  return b.Build();
}

struct NamedModel {
  std::string name;
  std::shared_ptr<const CompiledModel> model;
};

std::vector<NamedModel> Models() {
  return {
      {"conv_relu", CompiledModel::Compile(ge::test::ConvReluModel().Build())},
      {"mlp", CompiledModel::Compile(ge::test::MlpModel().Build(), {{"ge.exec.disableReuseMemory", "1"}})},
      {"views", CompiledModel::Compile(ViewsGraph(), {{"ge.disablePasses", "constant_folding"}})},
  };
}

std::vector<Tensor> RandomInputs(const CompiledModel& model, uint32_t seed) {
  std::vector<Tensor> inputs;
  for (const ge::TensorInfo& info : model.inputs()) inputs.push_back(ge::test::RandomTensor(info.shape, seed++));
  return inputs;
}

bool SameAttr(const ge::AttrValue& a, const ge::AttrValue& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&b](const auto& value) {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, Tensor>) {
          return ge::test::BitIdentical(value, std::get<Tensor>(b));
        } else {
          return value == std::get<T>(b);
        }
      },
      a);
}

void CheckSameGraph(const ge::Graph& a, const ge::Graph& b) {
  CHECK(a.name() == b.name());
  std::vector<ge::Node*> nodes_a = a.TopologicalOrder(), nodes_b = b.TopologicalOrder();
  REQUIRE(nodes_a.size() == nodes_b.size());
  for (size_t i = 0; i < nodes_a.size(); ++i) {
    const ge::Node& na = *nodes_a[i];
    const ge::Node& nb = *nodes_b[i];
    INFO(na.Describe());
    CHECK(na.name() == nb.name());
    CHECK(na.op_type() == nb.op_type());
    REQUIRE(na.attrs().entries().size() == nb.attrs().entries().size());
    for (const auto& [key, value] : na.attrs().entries()) {
      REQUIRE(nb.attrs().Find(key) != nullptr);
      CHECK(SameAttr(value, *nb.attrs().Find(key)));
    }
    REQUIRE(na.num_outputs() == nb.num_outputs());
    for (size_t o = 0; o < na.num_outputs(); ++o) {
      CHECK(na.output(o)->name() == nb.output(o)->name());
      CHECK(na.output(o)->dtype() == nb.output(o)->dtype());
      CHECK(na.output(o)->shape() == nb.output(o)->shape());
    }
  }
}

}  // namespace

TEST_CASE("gem: a saved model loads and runs bit-identically", "[gem]") {
  std::filesystem::path dir = ge::test::TempDir("runtime-gem-roundtrip");
  for (const NamedModel& named : Models()) {
    INFO(named.name);
    std::filesystem::path path = dir / (named.name + ".gem");
    named.model->Save(path.string());
    CHECK_FALSE(std::filesystem::exists(path.string() + ".tmp"));
    auto loaded = CompiledModel::Load(path.string());

    CheckSameGraph(named.model->graph(), loaded->graph());
    ge::MemorySummary saved = named.model->memory(), restored = loaded->memory();
    CHECK(saved.const_bytes == restored.const_bytes);
    CHECK(saved.arena_bytes == restored.arena_bytes);
    CHECK(saved.no_reuse_bytes == restored.no_reuse_bytes);
    CHECK(saved.lower_bound_bytes == restored.lower_bound_bytes);
    REQUIRE(loaded->inputs().size() == named.model->inputs().size());
    REQUIRE(loaded->outputs().size() == named.model->outputs().size());
    for (size_t i = 0; i < loaded->outputs().size(); ++i) {
      CHECK(loaded->outputs()[i].name == named.model->outputs()[i].name);
      CHECK(loaded->outputs()[i].shape == named.model->outputs()[i].shape);
    }

    for (uint32_t seed : {1u, 50u}) {
      std::vector<Tensor> inputs = RandomInputs(*named.model, seed);
      std::vector<Tensor> expected = named.model->Run(inputs);
      std::vector<Tensor> got = loaded->Run(inputs);
      REQUIRE(got.size() == expected.size());
      for (size_t i = 0; i < got.size(); ++i) CHECK(ge::test::BitIdentical(got[i], expected[i]));
    }
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("gem: a graph cloned from a loaded model outlives the model", "[gem]") {
  // The weights are views of the mapped file; the clone must keep it mapped.
  std::filesystem::path dir = ge::test::TempDir("runtime-gem-clone");
  std::filesystem::path path = dir / "mlp.gem";
  auto original = CompiledModel::Compile(ge::test::MlpModel().Build());
  original->Save(path.string());
  std::unique_ptr<ge::Graph> clone = CompiledModel::Load(path.string())->graph().Clone();  // the model is gone
  std::filesystem::remove(path);
  std::vector<Tensor> inputs = RandomInputs(*original, 3);
  std::vector<Tensor> got = CompiledModel::Compile(std::move(clone))->Run(inputs);
  std::vector<Tensor> expected = original->Run(inputs);
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(ge::test::BitIdentical(got[i], expected[i]));
  std::filesystem::remove_all(dir);
}

TEST_CASE("gem: the loaded model keeps the plan and options it was saved with", "[gem]") {
  std::filesystem::path dir = ge::test::TempDir("runtime-gem-plan");
  std::filesystem::path path = dir / "mlp.gem";
  auto model = CompiledModel::Compile(ge::test::MlpModel().Build(), {{"ge.exec.disableReuseMemory", "1"}});
  model->Save(path.string());
  // Saving the loaded model again gives the same bytes: nothing was re-planned.
  auto loaded = CompiledModel::Load(path.string());
  loaded->Save((dir / "again.gem").string());
  CHECK(ReadBytes(path) == ReadBytes(dir / "again.gem"));
  CHECK(loaded->memory().arena_bytes == loaded->memory().no_reuse_bytes);
  std::filesystem::remove_all(dir);
}

TEST_CASE("gem: the thread count may change at load time, compile options may not", "[gem]") {
  std::filesystem::path dir = ge::test::TempDir("runtime-gem-load-options");
  std::filesystem::path path = dir / "mlp.gem";
  auto model = CompiledModel::Compile(ge::test::MlpModel().Build(), {{"ge.exec.intraOpThreads", "2"}});
  model->Save(path.string());
  auto one_thread = CompiledModel::Load(path.string(), {{"ge.exec.intraOpThreads", "1"}});
  std::vector<Tensor> inputs = RandomInputs(*model, 7);
  std::vector<Tensor> expected = model->Run(inputs);
  std::vector<Tensor> got = one_thread->Run(inputs);
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(ge::test::MaxAbsDiff(got[i], expected[i]) < 1e-5);

  try {
    CompiledModel::Load(path.string(), {{"ge.exec.disableReuseMemory", "1"}});
    FAIL("a compile option was accepted at load time");
  } catch (const ge::Error& error) {
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    CHECK_THAT(error.what(), Catch::Contains("ge.exec.disableReuseMemory") &&
                                 Catch::Contains("ge.exec.intraOpThreads") && Catch::Contains("mlp.gem"));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("gem: the weights kernels packed are stored, and a load runs on them", "[gem]") {
  std::filesystem::path dir = ge::test::TempDir("runtime-gem-packed");
  std::filesystem::path path = dir / "conv.gem";
  auto compiled = CompiledModel::Compile(ge::test::ConvReluModel().Build());
  compiled->Save(path.string());
  const std::string bytes = ReadBytes(path);
  const ge::gem::Model* model = ge::gem::GetModel(reinterpret_cast<const uint8_t*>(bytes.data()));
  REQUIRE(model->packed_inputs() != nullptr);
  REQUIRE(model->packed_inputs()->size() >= 1);
  for (const ge::gem::PackedInput* packed : *model->packed_inputs()) {
    const ge::gem::NodeDef* node = model->graph()->nodes()->Get(packed->node());
    CHECK(node->op_type()->str() == "Conv2D");
    CHECK(packed->input() == 1);
    CHECK(packed->size() > 0);
    CHECK(packed->offset() % 64 == 0);
    CHECK(packed->offset() + packed->size() <= model->weights()->size());
  }
  auto loaded = CompiledModel::Load(path.string());
  std::vector<Tensor> inputs = RandomInputs(*compiled, 5);
  std::vector<Tensor> expected = compiled->Run(inputs);
  std::vector<Tensor> got = loaded->Run(inputs);
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    REQUIRE(got[i].nbytes() == expected[i].nbytes());
    CHECK(std::memcmp(got[i].data(), expected[i].data(), got[i].nbytes()) == 0);
  }
  std::filesystem::remove_all(dir);
}

// The weights offset of the tensor attribute of the node producing value `value_id`.
uint64_t ConstOffset(const ge::gem::GraphDef& graph, int32_t value_id) {
  for (const ge::gem::NodeDef* node : *graph.nodes()) {
    if (node->outputs() == nullptr || node->outputs()->size() == 0 ||
        node->outputs()->Get(0) != static_cast<uint32_t>(value_id)) {
      continue;
    }
    for (const ge::gem::Attr* attr : *node->attrs()) {
      if (const ge::gem::TensorData* tensor = attr->data_as_TensorData()) return tensor->offset();
    }
  }
  FAIL("value " << value_id << " has no Const producer");
  return 0;
}

TEST_CASE("gem: what a run reads comes first in the weights, packed-away originals last", "[gem]") {
  std::filesystem::path dir = ge::test::TempDir("runtime-gem-weights-order");
  std::filesystem::path path = dir / "conv.gem";
  CompiledModel::Compile(ge::test::ConvReluModel().Build())->Save(path.string());
  const std::string bytes = ReadBytes(path);
  const ge::gem::Model* model = ge::gem::GetModel(reinterpret_cast<const uint8_t*>(bytes.data()));
  REQUIRE(model->packed_inputs() != nullptr);
  REQUIRE(model->packed_inputs()->size() == 1);
  const ge::gem::PackedInput* packed = model->packed_inputs()->Get(0);
  const ge::gem::NodeDef* conv = model->graph()->nodes()->Get(packed->node());
  REQUIRE(packed->input() == 1);
  REQUIRE(conv->inputs()->size() >= 3);
  const uint64_t filter = ConstOffset(*model->graph(), conv->inputs()->Get(1));
  const uint64_t bias = ConstOffset(*model->graph(), conv->inputs()->Get(2));
  // The bias is read by every run; the filter only by packing (when the CPU differs).
  CHECK(bias < packed->offset());
  CHECK(packed->offset() + packed->size() <= filter);
  std::filesystem::remove_all(dir);
}

TEST_CASE("gem: weights are 64-byte aligned in the file", "[gem]") {
  std::filesystem::path dir = ge::test::TempDir("runtime-gem-align");
  std::filesystem::path path = dir / "conv.gem";
  CompiledModel::Compile(ge::test::ConvReluModel().Build())->Save(path.string());
  std::string bytes = ReadBytes(path);
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const ge::gem::Model* model = ge::gem::GetModel(data);
  REQUIRE(model->weights() != nullptr);
  CHECK((model->weights()->data() - data) % 64 == 0);
  CHECK(model->header()->stamp()->format_version() == ge::runtime::kGemFormatVersion);
  CHECK(model->header()->target_device()->str() == "cpu");
  CHECK_THAT(model->header()->producer()->str(), Catch::StartsWith("ge "));
  size_t tensors = 0;
  for (const ge::gem::NodeDef* node : *model->graph()->nodes()) {
    if (node->attrs() == nullptr) continue;
    for (const ge::gem::Attr* attr : *node->attrs()) {
      if (const ge::gem::TensorData* tensor = attr->data_as_TensorData()) {
        CHECK(tensor->offset() % 64 == 0);
        ++tensors;
      }
    }
  }
  CHECK(tensors >= 2);  // filter and bias
  std::filesystem::remove_all(dir);
}

TEST_CASE("gem: LoadFromMemory accepts an unaligned buffer", "[gem]") {
  std::filesystem::path dir = ge::test::TempDir("runtime-gem-memory");
  std::filesystem::path path = dir / "mlp.gem";
  auto model = CompiledModel::Compile(ge::test::MlpModel().Build());
  model->Save(path.string());
  std::string bytes = " " + ReadBytes(path);  // the model starts at an odd address
  auto loaded = CompiledModel::LoadFromMemory(bytes.data() + 1, bytes.size() - 1, "buffer");
  bytes.assign(bytes.size(), '\0');  // the model has its own copy
  std::vector<Tensor> inputs = RandomInputs(*model, 3);
  CHECK(ge::test::BitIdentical(loaded->Run(inputs)[0], model->Run(inputs)[0]));
  std::filesystem::remove_all(dir);
}

TEST_CASE("gem: save and load errors name the path", "[gem]") {
  std::filesystem::path dir = ge::test::TempDir("runtime-gem-io");
  auto model = CompiledModel::Compile(ge::test::MlpModel().Build());
  std::string unwritable = (dir / "no" / "such" / "dir" / "m.gem").string();
  try {
    model->Save(unwritable);
    FAIL("saved into a missing directory");
  } catch (const ge::Error& error) {
    CHECK(error.code() == ErrorCode::kIoError);
    CHECK_THAT(error.what(), Catch::Contains(unwritable));
  }
  auto [code, message] = LoadError(dir / "missing.gem");
  CHECK(code == ErrorCode::kNotFound);
  CHECK_THAT(message, Catch::Contains("missing.gem"));
  auto [directory_code, directory_message] = LoadError(dir);
  CHECK(directory_code == ErrorCode::kIoError);
  CHECK_THAT(directory_message, Catch::Contains(dir.string()));
  std::filesystem::remove_all(dir);
}

TEST_CASE("gem: truncated files are corrupted", "[gem]") {
  std::filesystem::path dir = ge::test::TempDir("runtime-gem-truncated");
  std::filesystem::path path = dir / "conv.gem";
  CompiledModel::Compile(ge::test::ConvReluModel().Build())->Save(path.string());
  std::string bytes = ReadBytes(path);
  std::filesystem::path cut = dir / "cut.gem";
  for (size_t size : {size_t{0}, size_t{4}, size_t{8}, size_t{64}, bytes.size() / 2, bytes.size() - 1}) {
    INFO("size " << size);
    WriteBytes(cut, bytes.substr(0, size));
    auto [code, message] = LoadError(cut);
    CHECK(code == ErrorCode::kInvalidModel);
    CHECK_THAT(message, Catch::Contains(cut.string()) && Catch::Contains("corrupted or truncated model file"));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("gem: a file of another kind has a bad magic", "[gem]") {
  std::filesystem::path dir = ge::test::TempDir("runtime-gem-magic");
  std::filesystem::path path = dir / "conv.gem";
  CompiledModel::Compile(ge::test::ConvReluModel().Build())->Save(path.string());
  std::string bytes = ReadBytes(path);
  bytes.replace(4, 4, "ONNX");
  WriteBytes(path, bytes);
  auto [code, message] = LoadError(path);
  CHECK(code == ErrorCode::kInvalidModel);
  CHECK(message == path.string() + ": not a ge model file (bad magic)");

  WriteBytes(path, "this is a text file, not a model\n");
  CHECK(LoadError(path).second == path.string() + ": not a ge model file (bad magic)");
  std::filesystem::remove_all(dir);
}

TEST_CASE("gem: every flipped byte is detected", "[gem]") {
  std::filesystem::path dir = ge::test::TempDir("runtime-gem-flip");
  std::filesystem::path path = dir / "mlp.gem";
  CompiledModel::Compile(ge::test::MlpModel().Build())->Save(path.string());
  const std::string bytes = ReadBytes(path);
  REQUIRE(LoadFromMemoryError(bytes) == ErrorCode::kOk);

  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  size_t stamp = reinterpret_cast<const uint8_t*>(ge::gem::GetModel(data)->header()->stamp()) - data;
  size_t version_begin = stamp + 8, version_end = stamp + 12;  // Stamp: checksum, then format_version
  size_t undetected = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string flipped = bytes;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
    ErrorCode code = LoadFromMemoryError(flipped);
    bool in_version = i >= version_begin && i < version_end;
    if (code != ErrorCode::kInvalidModel && !(in_version && code == ErrorCode::kUnsupported)) {
      ++undetected;
      UNSCOPED_INFO("byte " << i << " flipped: code " << static_cast<int>(code));
    }
  }
  CHECK(undetected == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("gem: a newer format version is unsupported, naming both versions", "[gem]") {
  std::filesystem::path dir = ge::test::TempDir("runtime-gem-version");
  std::filesystem::path path = dir / "mlp.gem";
  CompiledModel::Compile(ge::test::MlpModel().Build())->Save(path.string());
  std::string bytes = ReadBytes(path);
  auto* data = reinterpret_cast<uint8_t*>(bytes.data());
  const ge::gem::Stamp* stamp = ge::gem::GetModel(data)->header()->stamp();
  ge::gem::Stamp newer(stamp->checksum(), ge::runtime::kGemFormatVersion + 1);
  std::memcpy(const_cast<ge::gem::Stamp*>(stamp), &newer, sizeof(newer));
  WriteBytes(path, bytes);
  auto [code, message] = LoadError(path);
  CHECK(code == ErrorCode::kUnsupported);
  CHECK_THAT(message, Catch::Contains(path.string()) && Catch::Contains("version 4") && Catch::Contains("version 3"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("gem: files of versions 1 and 2, sealed with the chained checksum, still load", "[gem]") {
  auto compiled = CompiledModel::Compile(ge::test::MlpModel().Build());
  std::filesystem::path dir = ge::test::TempDir("runtime-gem-old-versions");
  std::filesystem::path path = dir / "mlp.gem";
  compiled->Save(path.string());
  for (uint32_t version : {1u, 2u}) {
    std::string bytes = ReadBytes(path);
    auto* data = reinterpret_cast<uint8_t*>(bytes.data());
    const ge::gem::Stamp* stamp = ge::gem::GetModel(data)->header()->stamp();
    const size_t checksum_offset = reinterpret_cast<const uint8_t*>(stamp) - data;
    const ge::gem::Stamp unsealed(0, version);
    std::memcpy(const_cast<ge::gem::Stamp*>(stamp), &unsealed, sizeof(unsealed));
    const ge::gem::Stamp sealed(ge::runtime::GemChecksum(data, bytes.size(), checksum_offset, version), version);
    std::memcpy(const_cast<ge::gem::Stamp*>(stamp), &sealed, sizeof(sealed));
    INFO("format version " << version);
    CHECK(LoadFromMemoryError(bytes) == ErrorCode::kOk);
    // The version-3 checksum of the same bytes is another number: the version picks the algorithm.
    CHECK(ge::runtime::GemChecksum(data, bytes.size(), checksum_offset, 3) != sealed.checksum());
  }
  std::filesystem::remove_all(dir);
}
