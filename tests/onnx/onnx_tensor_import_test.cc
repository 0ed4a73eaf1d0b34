// Initializers, their storage forms, and graph inputs.
#include <catch2/catch.hpp>

#include "ge/error.h"
#include "ge/onnx_importer.h"
#include "onnx_model_builder.h"

namespace ge::test {

TEST_CASE("Initializers become Const nodes from raw_data and typed fields") {
  OnnxModelBuilder b(13);
  b.Input("x", {3}).Output("y", {3});
  b.Initializer(OnnxFloatTensor("raw", {3}, {1.0f, -2.0f, 0.5f}));
  onnx::TensorProto typed;
  typed.set_name("typed");
  typed.set_data_type(onnx::TensorProto::FLOAT);
  typed.add_dims(3);
  for (float v : {4.0f, 5.0f, 6.0f}) typed.add_float_data(v);
  b.Initializer(typed);
  onnx::TensorProto int8;
  int8.set_name("int8");
  int8.set_data_type(onnx::TensorProto::INT8);
  int8.add_dims(2);
  int8.add_int32_data(-7);
  int8.add_int32_data(100);
  b.Initializer(int8);
  onnx::TensorProto half;
  half.set_name("half");
  half.set_data_type(onnx::TensorProto::FLOAT16);
  half.add_int32_data(0x3c00);  // 1.0
  b.Initializer(half);
  onnx::TensorProto dbl;
  dbl.set_name("dbl");
  dbl.set_data_type(onnx::TensorProto::DOUBLE);
  dbl.add_dims(1);
  dbl.add_double_data(0.125);
  b.Initializer(dbl);
  b.Initializer(OnnxInt64Tensor("i64", {2}, {-5, 1LL << 40}));
  b.Node("Add", {"x", "raw"}, {"s"}, "add1");
  b.Node("Add", {"s", "typed"}, {"y"}, "add2");
  auto graph = b.Import();

  const Tensor* raw = graph->FindNode("raw")->output(0)->constant();
  REQUIRE(raw);
  CHECK(raw->values<float>()[1] == -2.0f);
  CHECK(graph->FindNode("raw")->output(0)->name() == "raw");
  CHECK(graph->FindNode("typed")->output(0)->constant()->values<float>()[2] == 6.0f);
  const Tensor* i8 = graph->FindNode("int8")->output(0)->constant();
  CHECK(i8->dtype() == DataType::kInt8);
  CHECK(i8->values<int8_t>()[0] == -7);
  CHECK(i8->values<int8_t>()[1] == 100);
  const Tensor* f16 = graph->FindNode("half")->output(0)->constant();
  CHECK(f16->dtype() == DataType::kFloat16);
  CHECK(f16->shape().rank() == 0);
  CHECK(f16->values<uint16_t>()[0] == 0x3c00);
  CHECK(graph->FindNode("dbl")->output(0)->constant()->values<double>()[0] == 0.125);
  CHECK(graph->FindNode("i64")->output(0)->constant()->ToInt64Vector() == std::vector<int64_t>{-5, 1LL << 40});
}

TEST_CASE("raw_data of the wrong size is refused naming the initializer") {
  OnnxModelBuilder b(13);
  b.Input("x", {3}).Output("y", {3});
  onnx::TensorProto bad = OnnxFloatTensor("w", {3}, {1.0f, 2.0f, 3.0f});
  bad.mutable_raw_data()->resize(8);
  b.Initializer(bad);
  b.Node("Add", {"x", "w"}, {"y"}, "add");
  const std::string bytes = b.Serialize();
  CHECK_THROWS_WITH(ImportOnnxBuffer(bytes.data(), bytes.size(), "", "m.onnx"),
                    Catch::Contains("initializer 'w'") && Catch::Contains("raw_data"));
}

TEST_CASE("Huge dims with little data are refused before anything is allocated") {
  OnnxModelBuilder b(13);
  b.Input("x", {-1}).Output("y", {-1});
  onnx::TensorProto huge = OnnxFloatTensor("w", {1LL << 20, 1LL << 20, 1LL << 10}, {1.0f});
  b.Initializer(huge);
  b.Node("Add", {"x", "w"}, {"y"}, "add");
  const std::string bytes = b.Serialize();
  CHECK_THROWS_WITH(ImportOnnxBuffer(bytes.data(), bytes.size(), "", "m.onnx"),
                    Catch::Contains("initializer 'w'") && Catch::Contains("4 bytes"));
}

TEST_CASE("Graph inputs with initializers are constants and symbolic dims are unknown") {
  OnnxModelBuilder b(9);
  b.Input("x", {-1, 3}).Input("w", {3}).Output("y", {-1, 3});
  b.Initializer(OnnxFloatTensor("w", {3}, {1.0f, 2.0f, 3.0f}));
  b.Node("Mul", {"x", "w"}, {"y"}, "mul");
  auto graph = b.Import();
  const std::vector<Value*> inputs = graph->inputs();
  REQUIRE(inputs.size() == 1);
  CHECK(inputs[0]->name() == "x");
  CHECK(inputs[0]->dtype() == DataType::kFloat);
  CHECK(inputs[0]->shape() == Shape{Shape::kUnknownDim, 3});
  CHECK(graph->FindNode("mul")->input(1)->constant() != nullptr);
  CHECK(NodesOfType(*graph, "Data").size() == 1);
}

}  // namespace ge::test
