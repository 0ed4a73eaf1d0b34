// If, Loop and Scan: subgraphs become closed graph attributes, and values a
// subgraph reads from enclosing graphs (at any depth) become explicit inputs.
#include <catch2/catch.hpp>

#include "ge/error.h"
#include "onnx_model_builder.h"

namespace ge::test {
namespace {

// A graph computing `op`(a, b) into `out`, all float [2].
onnx::GraphProto Branch(const std::string& op, const std::string& a, const std::string& b, const std::string& out) {
  OnnxModelBuilder branch;
  branch.Output(out, {2});
  branch.Node(op, {a, b}, {out});
  return branch.model().graph();
}

std::vector<std::string> InputNames(const Graph& graph) {
  std::vector<std::string> names;
  for (const Value* value : graph.inputs()) names.push_back(value->name());
  return names;
}

}  // namespace

TEST_CASE("If branches read outer values through explicit inputs after cond", "[onnx][control_flow]") {
  OnnxModelBuilder b(13);
  b.Input("flag", {}, kOnnxBool).Input("x", {2}).Input("w", {2}).Output("y", {2});
  auto& node = b.Node("If", {"flag"}, {"y"}, "choose");
  SetAttr(node, "then_branch", Branch("Add", "x", "w", "t"));
  SetAttr(node, "else_branch", Branch("Mul", "x", "x", "e"));
  auto graph = b.Import();
  Node* choose = graph->FindNode("choose");
  REQUIRE(choose->op_type() == "If");
  REQUIRE(choose->num_inputs() == 3);
  CHECK(choose->input(0)->name() == "flag");
  CHECK(choose->input(1)->name() == "x");
  CHECK(choose->input(2)->name() == "w");
  // Both branches take the union of what either reads, in the node's order.
  CHECK(InputNames(choose->attrs().GetGraph("then_branch")) == std::vector<std::string>{"x", "w"});
  CHECK(InputNames(choose->attrs().GetGraph("else_branch")) == std::vector<std::string>{"x", "w"});
  CHECK(choose->output(0)->shape() == Shape{2});
}

TEST_CASE("A value two levels up reaches a nested If through the Loop body's inputs", "[onnx][control_flow]") {
  OnnxModelBuilder body;
  body.Input("i", {}, kOnnxInt64).Input("c", {}, kOnnxBool).Input("s", {2});
  body.Output("c_out", {}, kOnnxBool).Output("s_out", {2});
  body.Node("Identity", {"c"}, {"c_out"});
  auto& inner = body.Node("If", {"flag"}, {"s_out"}, "inner");
  SetAttr(inner, "then_branch", Branch("Add", "s", "w", "t"));
  SetAttr(inner, "else_branch", Branch("Sub", "s", "w", "e"));

  OnnxModelBuilder b(13);
  b.Input("flag", {}, kOnnxBool).Input("x", {2}).Input("w", {2}).Output("y", {2});
  b.Initializer(OnnxInt64Tensor("m", {}, {3}));
  SetAttr(b.Node("Loop", {"m", "", "x"}, {"y"}, "loop"), "body", body.model().graph());
  auto graph = b.Import();

  Node* loop = graph->FindNode("loop");
  REQUIRE(loop->op_type() == "Loop");
  REQUIRE(loop->num_inputs() == 5);
  CHECK(loop->input(0)->name() == "m");
  CHECK(loop->input(1) == nullptr);  // cond absent
  CHECK(loop->input(2)->name() == "x");
  CHECK(loop->attrs().GetInt("num_implicit_inputs") == 2);
  const Graph& loop_body = loop->attrs().GetGraph("body");
  CHECK(InputNames(loop_body) == std::vector<std::string>{"i", "c", "s", "w", "flag"});
  CHECK(loop->input(3)->name() == "w");
  CHECK(loop->input(4)->name() == "flag");
  Node* nested = loop_body.FindNode("inner");
  REQUIRE(nested != nullptr);
  CHECK(nested->input(0)->name() == "flag");
  CHECK(nested->input(0)->producer()->graph() == &loop_body);
}

TEST_CASE("Scan fills in its axes and directions and slices the body's input types", "[onnx][control_flow]") {
  OnnxModelBuilder body;
  body.Input("acc", {2}).Input("row", {2}).Output("acc_out", {2}).Output("row_out", {2});
  body.Node("Add", {"acc", "row"}, {"acc_out"});
  body.Node("Identity", {"acc_out"}, {"row_out"});
  OnnxModelBuilder b(11);
  b.Input("init", {2}).Input("rows", {5, 2}).Output("final", {2}).Output("sums", {5, 2});
  auto& scan = b.Node("Scan", {"init", "rows"}, {"final", "sums"}, "scan");
  SetAttr(scan, "num_scan_inputs", int64_t{1});
  SetAttr(scan, "body", body.model().graph());
  auto graph = b.Import();
  Node* node = graph->FindNode("scan");
  CHECK(node->attrs().GetInts("scan_input_axes") == std::vector<int64_t>{0});
  CHECK(node->attrs().GetInts("scan_output_directions") == std::vector<int64_t>{0});
  CHECK(node->attrs().GetInt("num_implicit_inputs") == 0);
  CHECK(node->output(1)->shape() == Shape{5, 2});
}

TEST_CASE("Unsupported ops inside subgraphs are reported with the others", "[onnx][control_flow]") {
  OnnxModelBuilder then_branch;
  then_branch.Output("t", {2});
  then_branch.Node("NoSuchOp", {"x"}, {"t"}, "deep");
  OnnxModelBuilder b(13);
  b.Input("flag", {}, kOnnxBool).Input("x", {2}).Output("y", {2});
  auto& node = b.Node("If", {"flag"}, {"y"}, "choose");
  SetAttr(node, "then_branch", then_branch.model().graph());
  SetAttr(node, "else_branch", Branch("Add", "x", "x", "e"));
  CHECK_THROWS_WITH(b.Import(), Catch::Contains("NoSuchOp (nodes: deep)"));
}

}  // namespace ge::test
