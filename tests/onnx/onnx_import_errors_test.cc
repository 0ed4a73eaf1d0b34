// Files that are not ONNX models, unsupported ops and opsets.
#include <catch2/catch.hpp>

#include <fstream>

#include "ge/error.h"
#include "ge/onnx_importer.h"
#include "onnx_model_builder.h"
#include "test_support.h"

namespace ge::test {
namespace {

ErrorCode CodeOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.code();
  }
  return ErrorCode::kOk;
}

// A valid model with a weight, big enough that truncation cuts through data.
OnnxModelBuilder SmallConvModel() {
  OnnxModelBuilder b(13);
  b.Input("x", {1, 3, 8, 8}).Output("y", {1, 4, 6, 6});
  b.Initializer(OnnxFloatTensor("w", {4, 3, 3, 3}, std::vector<float>(108, 0.25f)));
  b.Node("Conv", {"x", "w"}, {"y"}, "conv");
  return b;
}

}  // namespace

TEST_CASE("A missing file is kNotFound naming the path") {
  const auto path = TempDir("onnx-missing") / "absent.onnx";
  CHECK(CodeOf([&] { ImportOnnxFile(path.string()); }) == ErrorCode::kNotFound);
  CHECK_THROWS_WITH(ImportOnnxFile(path.string()), Catch::Contains(path.string()));
}

TEST_CASE("A truncated model file is kInvalidModel naming the path") {
  const auto dir = TempDir("onnx-truncated");
  const auto path = dir / "model.onnx";
  const std::string bytes = SmallConvModel().Serialize();
  REQUIRE_NOTHROW(ImportOnnxBuffer(bytes.data(), bytes.size()));  // the whole model is fine
  {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size() * 2 / 3));
  }
  CHECK(CodeOf([&] { ImportOnnxFile(path.string()); }) == ErrorCode::kInvalidModel);
  CHECK_THROWS_WITH(ImportOnnxFile(path.string()),
                    Catch::Contains(path.string()) && Catch::Contains("not a valid ONNX model"));
}

TEST_CASE("Garbage bytes and empty files are not valid ONNX models") {
  const auto dir = TempDir("onnx-garbage");
  const auto garbage = dir / "garbage.onnx";
  {
    std::ofstream out(garbage, std::ios::binary);
    for (int i = 0; i < 4096; ++i) out.put(static_cast<char>((i * 7919 + 13) % 251));
  }
  CHECK(CodeOf([&] { ImportOnnxFile(garbage.string()); }) == ErrorCode::kInvalidModel);
  CHECK_THROWS_WITH(ImportOnnxFile(garbage.string()),
                    Catch::Contains(garbage.string()) && Catch::Contains("not a valid ONNX model"));
  const auto empty = dir / "empty.onnx";
  std::ofstream(empty).close();
  CHECK_THROWS_WITH(ImportOnnxFile(empty.string()), Catch::Contains("not a valid ONNX model"));
}

TEST_CASE("A model the ONNX checker rejects is kInvalidModel with the checker's message") {
  OnnxModelBuilder b = SmallConvModel();
  b.model().clear_ir_version();
  const std::string bytes = b.Serialize();
  CHECK(CodeOf([&] { ImportOnnxBuffer(bytes.data(), bytes.size(), "", "bad.onnx"); }) == ErrorCode::kInvalidModel);
  CHECK_THROWS_WITH(ImportOnnxBuffer(bytes.data(), bytes.size(), "", "bad.onnx"),
                    Catch::Contains("bad.onnx") && Catch::Contains("checker") && Catch::Contains("ir_version"));
}

TEST_CASE("All unsupported ops are listed at once with their nodes") {
  OnnxModelBuilder b(13);
  b.Input("x", {2, 3}).Output("y", {-1, -1});
  b.Node("FooOp", {"x"}, {"a"}, "a");
  b.Node("Relu", {"a"}, {"r"}, "relu");
  b.Node("FooOp", {"r"}, {"b"}, "b");
  b.Node("StringNormalizer", {"b"}, {"c"}, "c");  // string ops stay unsupported
  auto& custom = b.Node("FusedThing", {"c"}, {"y"}, "d");
  custom.set_domain("com.example");
  auto* import = b.model().add_opset_import();
  import->set_domain("com.example");
  import->set_version(1);
  const std::string bytes = b.Serialize();
  CHECK(CodeOf([&] { ImportOnnxBuffer(bytes.data(), bytes.size(), "", "model.onnx"); }) == ErrorCode::kUnsupported);
  CHECK_THROWS_WITH(ImportOnnxBuffer(bytes.data(), bytes.size(), "", "model.onnx"),
                    Catch::StartsWith("model.onnx: 4 nodes use unsupported ops") &&
                        Catch::Contains("FooOp (nodes: a, b)") && Catch::Contains("StringNormalizer (nodes: c)") &&
                        Catch::Contains("com.example:FusedThing (nodes: d)") && !Catch::Contains("relu"));
}

TEST_CASE("An op at an opset outside its table entries is unsupported with a hint") {
  OnnxModelBuilder b(13);
  b.Input("x", {2, 3}).Output("y", {2, 3});
  b.Node("LayerNormalization", {"x"}, {"y"}, "ln");
  const std::string bytes = b.Serialize();
  CHECK_THROWS_WITH(ImportOnnxBuffer(bytes.data(), bytes.size()),
                    Catch::Contains("LayerNormalization (nodes: ln; translated at opsets 17-17)"));
}

TEST_CASE("Opsets outside 1-17 are refused naming the range") {
  for (int opset : {0, 18}) {
    OnnxModelBuilder b(opset);
    b.Input("x", {2}).Output("y", {2});
    b.Node("Relu", {"x"}, {"y"}, "relu");
    const std::string bytes = b.Serialize();
    CHECK(CodeOf([&] { ImportOnnxBuffer(bytes.data(), bytes.size()); }) == ErrorCode::kUnsupported);
    CHECK_THROWS_WITH(ImportOnnxBuffer(bytes.data(), bytes.size()),
                      Catch::Contains("opset " + std::to_string(opset)) && Catch::Contains("1 to 17"));
  }
}

}  // namespace ge::test
