// External data: read only from inside the model's folder.
#include <catch2/catch.hpp>

#include <fstream>

#include "ge/error.h"
#include "ge/onnx_importer.h"
#include "onnx_model_builder.h"
#include "test_support.h"

namespace ge::test {
namespace {

namespace fs = std::filesystem;

const std::vector<float> kWeights = {1.0f, 2.0f, 3.0f};

// A model y = x + w whose w lives in `location` at byte `offset`.
OnnxModelBuilder ExternalModel(const std::string& location, int64_t offset) {
  OnnxModelBuilder b(13);
  b.Input("x", {3}).Output("y", {3});
  onnx::TensorProto w;
  w.set_name("w");
  w.set_data_type(onnx::TensorProto::FLOAT);
  w.add_dims(3);
  w.set_data_location(onnx::TensorProto::EXTERNAL);
  auto add_key = [&](const std::string& key, const std::string& value) {
    auto* entry = w.add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  };
  add_key("location", location);
  add_key("offset", std::to_string(offset));
  add_key("length", std::to_string(kWeights.size() * sizeof(float)));
  b.Initializer(w);
  b.Node("Add", {"x", "w"}, {"y"}, "add");
  return b;
}

// Writes `padding` bytes and then the weights.
void WriteWeights(const fs::path& path, size_t padding) {
  std::ofstream out(path, std::ios::binary);
  out << std::string(padding, '\x7f');
  out.write(reinterpret_cast<const char*>(kWeights.data()), static_cast<std::streamsize>(kWeights.size() * 4));
}

ErrorCode CodeOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.code();
  }
  return ErrorCode::kOk;
}

}  // namespace

TEST_CASE("External data inside the model's folder is loaded") {
  const fs::path dir = TempDir("onnx-external-ok");
  fs::create_directories(dir / "data");
  WriteWeights(dir / "data" / "weights.bin", 16);
  ExternalModel("data/weights.bin", 16).Save(dir / "model.onnx");
  auto graph = ImportOnnxFile((dir / "model.onnx").string());
  const Tensor* w = graph->FindNode("w")->output(0)->constant();
  REQUIRE(w);
  CHECK(std::vector<float>(w->values<float>().begin(), w->values<float>().end()) == kWeights);

  // The same bytes through the buffer API with a base directory.
  const std::string bytes = ExternalModel("data/weights.bin", 16).Serialize();
  auto from_buffer = ImportOnnxBuffer(bytes.data(), bytes.size(), dir.string());
  CHECK(from_buffer->FindNode("w")->output(0)->constant()->values<float>()[2] == 3.0f);
}

TEST_CASE("External data escaping the folder through ../ is refused") {
  const fs::path root = TempDir("onnx-external-escape");
  fs::create_directories(root / "model");
  WriteWeights(root / "secret.bin", 0);
  ExternalModel("../secret.bin", 0).Save(root / "model" / "model.onnx");
  const std::string path = (root / "model" / "model.onnx").string();
  CHECK(CodeOf([&] { ImportOnnxFile(path); }) == ErrorCode::kInvalidModel);
  CHECK_THROWS_WITH(ImportOnnxFile(path), Catch::Contains("initializer 'w'") && Catch::Contains("'../secret.bin'") &&
                                              Catch::Contains("escapes"));

  // A path that wanders out and back in is fine lexically; one that only ends outside is not.
  ExternalModel("sub/../../secret.bin", 0).Save(root / "model" / "model.onnx");
  CHECK_THROWS_WITH(ImportOnnxFile(path), Catch::Contains("escapes"));
}

TEST_CASE("External data at an absolute path is refused") {
  const fs::path dir = TempDir("onnx-external-absolute");
  WriteWeights(dir / "weights.bin", 0);
  const std::string absolute = (dir / "weights.bin").string();
  ExternalModel(absolute, 0).Save(dir / "model.onnx");
  CHECK(CodeOf([&] { ImportOnnxFile((dir / "model.onnx").string()); }) == ErrorCode::kInvalidModel);
  CHECK_THROWS_WITH(ImportOnnxFile((dir / "model.onnx").string()),
                    Catch::Contains("initializer 'w'") && Catch::Contains(absolute) && Catch::Contains("absolute"));
}

TEST_CASE("External data through a symlink pointing outside is refused") {
  const fs::path root = TempDir("onnx-external-symlink");
  fs::create_directories(root / "model");
  WriteWeights(root / "outside.bin", 0);
  fs::create_symlink(root / "outside.bin", root / "model" / "link.bin");
  ExternalModel("link.bin", 0).Save(root / "model" / "model.onnx");
  CHECK_THROWS_WITH(ImportOnnxFile((root / "model" / "model.onnx").string()),
                    Catch::Contains("'link.bin'") && Catch::Contains("outside the model's folder"));
}

TEST_CASE("Missing external files and ranges beyond the file end are clear errors") {
  const fs::path dir = TempDir("onnx-external-range");
  ExternalModel("absent.bin", 0).Save(dir / "model.onnx");
  CHECK(CodeOf([&] { ImportOnnxFile((dir / "model.onnx").string()); }) == ErrorCode::kNotFound);
  CHECK_THROWS_WITH(ImportOnnxFile((dir / "model.onnx").string()), Catch::Contains("absent.bin"));

  WriteWeights(dir / "short.bin", 0);
  ExternalModel("short.bin", 4).Save(dir / "model.onnx");  // 4 + 12 bytes > 12
  CHECK(CodeOf([&] { ImportOnnxFile((dir / "model.onnx").string()); }) == ErrorCode::kInvalidModel);
  CHECK_THROWS_WITH(ImportOnnxFile((dir / "model.onnx").string()),
                    Catch::Contains("initializer 'w'") && Catch::Contains("beyond the end"));
}

TEST_CASE("A buffer without base_dir refuses external data") {
  const std::string bytes = ExternalModel("weights.bin", 0).Serialize();
  CHECK(CodeOf([&] { ImportOnnxBuffer(bytes.data(), bytes.size()); }) == ErrorCode::kInvalidModel);
  CHECK_THROWS_WITH(ImportOnnxBuffer(bytes.data(), bytes.size(), "", "mem.onnx"),
                    Catch::Contains("mem.onnx") && Catch::Contains("base_dir"));
}

}  // namespace ge::test
