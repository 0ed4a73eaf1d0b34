// The three reference models in shared/models import with the expected ops.
#include <catch2/catch.hpp>

#include <map>

#include "ge/onnx_importer.h"
#include "onnx_model_builder.h"
#include "test_support.h"

namespace ge::test {
namespace {

std::map<std::string, size_t> CountOps(const Graph& graph) {
  std::map<std::string, size_t> counts;
  for (Node* node : graph.nodes()) ++counts[node->op_type()];
  return counts;
}

std::unique_ptr<Graph> ImportShared(const std::string& file) {
  auto shared = SharedDir();
  if (!shared) return nullptr;
  return ImportOnnxFile((*shared / "models" / file).string());
}

void CheckIo(const Graph& graph, const Shape& input_shape) {
  REQUIRE(graph.inputs().size() == 1);
  CHECK(graph.inputs()[0]->name() == "input");
  CHECK(graph.inputs()[0]->shape() == input_shape);
  REQUIRE(graph.outputs().size() == 1);
  CHECK(graph.outputs()[0]->name() == "output");
}

}  // namespace

TEST_CASE("tiny_cnn imports as Conv2D BatchNorm MaxPoolV3 ReduceMeanD and MatMulV2") {
  auto graph = ImportShared("tiny_cnn.onnx");
  if (!graph) GE_SKIP("shared/models is not available");
  CheckIo(*graph, Shape{1, 3, 32, 32});
  auto ops = CountOps(*graph);
  CHECK(ops["Conv2D"] == 2);
  CHECK(ops["BatchNorm"] == 1);
  CHECK(ops["Relu"] == 2);
  CHECK(ops["MaxPoolV3"] == 2);
  CHECK(ops["ReduceMeanD"] == 1);
  CHECK(ops["Flatten"] == 1);
  CHECK(ops["MatMulV2"] == 1);
  CHECK(ops["Data"] == 1);
  // 10 ONNX nodes, one ge node each, plus Data and the Consts.
  CHECK(graph->num_nodes() == 10 + 1 + ops["Const"]);
}

TEST_CASE("tiny_transformer imports as BatchMatMulV2 SoftmaxV2 and the shape ops") {
  auto graph = ImportShared("tiny_transformer.onnx");
  if (!graph) GE_SKIP("shared/models is not available");
  CheckIo(*graph, Shape{1, 16, 64});
  auto ops = CountOps(*graph);
  CHECK(ops["BatchMatMulV2"] == 5);
  CHECK(ops["SoftmaxV2"] == 1);
  CHECK(ops["ReduceMeanD"] == 6);
  CHECK(ops["TransposeD"] == 6);
  CHECK(ops["Reshape"] == 5);
  CHECK(ops["StridedSliceV2"] == 3);
  CHECK(ops["GatherV2D"] == 1);
  CHECK(ops["Shape"] == 1);
  CHECK(ops["Add"] + ops["Sub"] + ops["Mul"] + ops["Div"] + ops["Pow"] + ops["Sqrt"] >= 12 + 3 + 6 + 5 + 3 + 3);
  CHECK(ops["Data"] == 1);
}

TEST_CASE("squeezenet1_1 imports with 26 Conv2D and 8 ConcatD") {
  auto graph = ImportShared("squeezenet1_1.onnx");
  if (!graph) GE_SKIP("shared/models is not available");
  CheckIo(*graph, Shape{1, 3, 224, 224});
  auto ops = CountOps(*graph);
  CHECK(ops["Conv2D"] == 26);
  CHECK(ops["Relu"] == 26);
  CHECK(ops["ConcatD"] == 8);
  CHECK(ops["MaxPoolV3"] == 3);
  CHECK(ops["Identity"] == 18);
  CHECK(ops["ReduceMeanD"] == 1);
  CHECK(ops["Flatten"] == 1);
  for (Node* concat : NodesOfType(*graph, "ConcatD")) CHECK(concat->attrs().GetInt("concat_dim") == 1);
}

}  // namespace ge::test
