// The three malformed-ONNX crashes of issue 17, end to end (import, compile,
// run), each from the model the fuzzer's finding reduces to.
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>
#include <google/protobuf/text_format.h>
#include <onnx/onnx_pb.h>

#include "ge/compiled_model.h"
#include "ge/error.h"
#include "ge/onnx_importer.h"

namespace ge::test {
namespace {

using Catch::Matchers::Contains;

// One node over float input x of `x_dims` (TextFormat dims), output y of rank 2 or 4.
std::string Model(const std::string& node, const std::string& initializer, const std::string& x_dims, int y_rank) {
  std::string y_dims;
  for (int i = 0; i < y_rank; ++i) y_dims += "dim { dim_param: \"y" + std::to_string(i) + "\" } ";
  const std::string text = R"(ir_version: 7 opset_import { domain: "" version: 13 } graph { name: "g" )" + node +
                           initializer + R"( input { name: "x" type { tensor_type { elem_type: 1 shape { )" + x_dims +
                           R"( } } } } output { name: "y" type { tensor_type { elem_type: 1 shape { )" + y_dims +
                           " } } } } }";
  onnx::ModelProto model;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &model));
  std::string bytes;
  REQUIRE(model.SerializeToString(&bytes));
  return bytes;
}

std::shared_ptr<const CompiledModel> ImportAndCompile(const std::string& bytes) {
  return CompiledModel::Compile(ImportOnnxBuffer(bytes.data(), bytes.size(), "", "fuzzed.onnx"));
}

}  // namespace

TEST_CASE("ONNX Conv with strides 0 is refused before ONNX shape inference (was SIGFPE)") {
  const std::string bytes = Model(
      R"(node { name: "conv" op_type: "Conv" input: "x" input: "w" output: "y"
               attribute { name: "strides" type: INTS ints: 0 ints: 0 } })",
      R"(initializer { name: "w" data_type: 1 dims: 1 dims: 1 dims: 1 dims: 1 float_data: 1 })",
      "dim { dim_value: 1 } dim { dim_value: 1 } dim { dim_value: 4 } dim { dim_value: 4 }", 4);
  try {
    ImportAndCompile(bytes);
    FAIL("the model compiled");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidModel);
    CHECK_THAT(std::string(e.what()), Contains("fuzzed.onnx: node 'conv' (Conv): attribute 'strides' has value 0"));
  }
}

TEST_CASE("ONNX MatMul over an input with a 0 dim runs to an empty output (was SIGFPE in oneDNN)") {
  const std::string bytes = Model(
      R"(node { name: "mm" op_type: "MatMul" input: "x" input: "w" output: "y" })",
      R"(initializer { name: "w" data_type: 1 dims: 2 dims: 2 float_data: 1 float_data: 2 float_data: 3 float_data: 4 })",
      "dim { dim_value: 0 } dim { dim_value: 2 }", 2);
  const auto model = ImportAndCompile(bytes);
  const std::vector<Tensor> y = model->Run({Tensor(DataType::kFloat, {0, 2})});
  CHECK(y[0].shape() == Shape{0, 2});
}

TEST_CASE("ONNX input dim of 2^62 is refused at compile time (its byte size wrapped to 0, then SIGSEGV)") {
  const std::string bytes = Model(
      R"(node { name: "t" op_type: "Transpose" input: "x" output: "y"
               attribute { name: "perm" type: INTS ints: 1 ints: 0 } })",
      "", "dim { dim_value: 4611686018427387904 } dim { dim_value: 2 }", 2);
  try {
    ImportAndCompile(bytes);
    FAIL("the model compiled");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidModel);
    CHECK_THAT(std::string(e.what()), Contains("[4611686018427387904,2]") && Contains("ge.maxTensorBytes"));
  }
}

}  // namespace ge::test
