// Attribute values and dims that ONNX shape inference would trust are refused
// before it runs: strides 0 used to end in SIGFPE inside onnx::shape_inference.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "ge/error.h"
#include "ge/onnx_importer.h"
#include "onnx_model_builder.h"

namespace ge::test {
namespace {

using Catch::Matchers::Contains;

// A ge::Error of kInvalidModel from importing `builder`'s model; its message.
std::string ImportError(const OnnxModelBuilder& builder) {
  const std::string bytes = builder.Serialize();
  try {
    ImportOnnxBuffer(bytes.data(), bytes.size(), "", "bad.onnx");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidModel);
    return e.what();
  }
  FAIL("the model was imported");
  return "";
}

OnnxModelBuilder ConvModel(const std::string& attribute, const std::vector<int64_t>& values) {
  OnnxModelBuilder b(13);
  b.Input("x", {1, 1, 4, 4}).Output("y", {-1, -1, -1, -1});
  b.Initializer(OnnxFloatTensor("w", {1, 1, 1, 1}, {1.0f}));
  SetAttr(b.Node("Conv", {"x", "w"}, {"y"}, "conv"), attribute, values);
  return b;
}

}  // namespace

TEST_CASE("Conv strides 0 is refused before ONNX shape inference divides by it") {
  const std::string message = ImportError(ConvModel("strides", {0, 0}));
  CHECK_THAT(message, Contains("bad.onnx") && Contains("node 'conv' (Conv)") && Contains("'strides'") &&
                          Contains("value 0") && Contains("[1, 2147483647]"));
}

TEST_CASE("Window attributes out of range are refused with the valid range") {
  CHECK_THAT(ImportError(ConvModel("dilations", {1, -1})), Contains("'dilations' has value -1"));
  CHECK_THAT(ImportError(ConvModel("pads", {0, 0, -2, 0})), Contains("'pads' has value -2; valid range [0,"));
  CHECK_THAT(ImportError(ConvModel("kernel_shape", {1, 0})), Contains("'kernel_shape' has value 0"));
  CHECK_THAT(ImportError(ConvModel("strides", {1, INT64_C(1) << 40})),
             Contains("'strides' has value 1099511627776; valid range [1, 2147483647]"));
  OnnxModelBuilder group = ConvModel("strides", {1, 1});
  SetAttr(group.model().mutable_graph()->mutable_node(0)[0], "group", int64_t{0});
  CHECK_THAT(ImportError(group), Contains("'group' has value 0"));
}

TEST_CASE("Pooling and block sizes are checked in the same table") {
  OnnxModelBuilder pool(13);
  pool.Input("x", {1, 1, 4, 4}).Output("y", {-1, -1, -1, -1});
  auto& max_pool = pool.Node("MaxPool", {"x"}, {"y"}, "pool");
  SetAttr(max_pool, "kernel_shape", std::vector<int64_t>{2, 2});
  SetAttr(max_pool, "strides", std::vector<int64_t>{0, 1});
  CHECK_THAT(ImportError(pool), Contains("node 'pool' (MaxPool): attribute 'strides' has value 0"));

  OnnxModelBuilder space(13);
  space.Input("x", {1, 1, 4, 4}).Output("y", {-1, -1, -1, -1});
  SetAttr(space.Node("SpaceToDepth", {"x"}, {"y"}), "blocksize", int64_t{0});
  CHECK_THAT(ImportError(space), Contains("node 'SpaceToDepth_0' (SpaceToDepth): attribute 'blocksize' has value 0"));
}

TEST_CASE("Negative dims in graph inputs, value_info and initializers are refused") {
  OnnxModelBuilder input = ConvModel("strides", {1, 1});
  input.model().mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(
      2)->set_dim_value(-3);
  CHECK_THAT(ImportError(input), Contains("graph input 'x' has dim -3"));

  OnnxModelBuilder info = ConvModel("strides", {1, 1});
  auto* value_info = info.model().mutable_graph()->add_value_info();
  value_info->set_name("y");
  auto* type = value_info->mutable_type()->mutable_tensor_type();
  type->set_elem_type(kOnnxFloat);
  type->mutable_shape()->add_dim()->set_dim_value(-1);
  CHECK_THAT(ImportError(info), Contains("value 'y' has dim -1"));
}

TEST_CASE("A valid Conv with explicit window attributes still imports") {
  OnnxModelBuilder b = ConvModel("strides", {2, 2});
  SetAttr(b.model().mutable_graph()->mutable_node(0)[0], "group", int64_t{1});
  CHECK_NOTHROW(b.Import());
}

}  // namespace ge::test
