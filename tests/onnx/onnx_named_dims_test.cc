// The ONNX importer keeps dim_param names on the graph inputs' Data nodes
// (graph/dim_names.h); what a run does with them is tested in
// tests/runtime/named_dims_test.cc.
#include <catch2/catch.hpp>

#include "graph/dim_names.h"
#include "onnx_model_builder.h"

using namespace ge;
using namespace ge::test;

TEST_CASE("onnx import: dim_param names stay on the graph inputs", "[onnx][named_dims]") {
  OnnxModelBuilder builder;
  builder.Input("ids", {1, -1}).Input("past", {-1, 4, -1, 64}).Input("fixed", {2, 3});
  builder.Node("Relu", {"past"}, {"y"});
  builder.Node("Neg", {"fixed"}, {"z"});
  builder.Node("Identity", {"ids"}, {"w"});
  builder.Output("y", {-1, 4, -1, 64}).Output("z", {2, 3}).Output("w", {1, -1});
  auto* graph = builder.model().mutable_graph();
  graph->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_param("seq");
  auto* past = graph->mutable_input(1)->mutable_type()->mutable_tensor_type()->mutable_shape();
  past->mutable_dim(0)->set_dim_param("batch");
  past->mutable_dim(2)->clear_dim_param();  // a dim with neither a size nor a name
  std::unique_ptr<Graph> imported = builder.Import();
  const std::vector<Value*> inputs = imported->inputs();
  REQUIRE(inputs.size() == 3);
  CHECK(DimNamesOf(*inputs[0]) == std::vector<std::string>{"", "seq"});
  CHECK(DimNamesOf(*inputs[1]) == std::vector<std::string>{"batch", "", "", ""});
  CHECK(DimNamesOf(*inputs[2]).empty());
  CHECK_FALSE(inputs[2]->producer()->attrs().Has(kDimNamesAttr));
}
