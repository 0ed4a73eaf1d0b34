#include <catch2/catch.hpp>

#include "fake_evaluator.h"
#include "ge/error.h"
#include "passes/builtin_passes.h"

namespace ge {
namespace {

Tensor Filled(Shape shape, float start) {
  Tensor tensor(DataType::kFloat, std::move(shape));
  for (int64_t i = 0; i < tensor.num_elements(); ++i) tensor.data_as<float>()[i] = start + static_cast<float>(i);
  return tensor;
}

// y = x * ((a + b) + a), with the sums on constants only; `sum2` is also a graph output.
struct ChainGraph {
  Graph graph;
  Value* x;
  Node* mul;
};

ChainGraph MakeChain(int64_t size) {
  ChainGraph g;
  g.x = g.graph.AddInput("x", DataType::kFloat, Shape{size});
  Value* a = g.graph.AddConstant("a", Filled(Shape{size}, 1.0f));
  Value* b = g.graph.AddConstant("b", Filled(Shape{size}, 10.0f));
  Node* sum1 = g.graph.AddNode("Add", "sum1", {a, b});
  Node* sum2 = g.graph.AddNode("Add", "sum2", {sum1->output(0), a});
  g.mul = g.graph.AddNode("Mul", "mul", {g.x, sum2->output(0)});
  g.graph.SetOutputs({g.mul->output(0), sum2->output(0)});
  return g;
}

}  // namespace

TEST_CASE("constant_folding folds constant chains of any size through the evaluator") {
  const int64_t size = 5000;  // larger than what infer_shape folds
  ChainGraph g = MakeChain(size);
  test::FakeEvaluator evaluator;
  PassContext ctx;
  ctx.evaluator = &evaluator;

  CHECK(passes::MakeConstantFoldingPass()->Run(g.graph, ctx));
  CHECK(evaluator.calls == std::map<std::string, int>{{"Add", 2}});  // never Data, never Mul (x is not constant)
  CHECK(g.graph.FindNode("sum1") == nullptr);
  CHECK(g.graph.FindNode("sum2") == nullptr);
  const Tensor* folded = g.mul->input(1)->constant();
  REQUIRE(folded != nullptr);
  REQUIRE(folded->num_elements() == size);
  for (int64_t i : {int64_t{0}, int64_t{1}, size - 1}) {
    // (a + b) + a with a[i] = 1 + i, b[i] = 10 + i
    CHECK(folded->data_as<float>()[i] == Approx(12.0 + 3.0 * static_cast<double>(i)));
  }
  // The folded graph output keeps its name and is the same value the Mul reads.
  REQUIRE(g.graph.outputs().size() == 2);
  CHECK(g.graph.outputs()[1]->name() == "sum2");
  CHECK(g.graph.outputs()[1] == g.mul->input(1));
}

TEST_CASE("constant_folding drops the constants that only fed folded nodes, as it goes") {
  const int64_t size = 5000;
  ChainGraph g = MakeChain(size);
  test::FakeEvaluator evaluator;
  PassContext ctx;
  ctx.evaluator = &evaluator;
  REQUIRE(passes::MakeConstantFoldingPass()->Run(g.graph, ctx));
  // a and b fed only sum1 and sum2, which folded: no dead-node pass needed.
  CHECK(g.graph.FindNode("a") == nullptr);
  CHECK(g.graph.FindNode("b") == nullptr);
  size_t consts = 0;
  for (const Node* node : g.graph.nodes()) consts += node->op_type() == "Const" ? 1 : 0;
  CHECK(consts == 1);  // sum2's folded value
}

TEST_CASE("constant_folding does nothing without an evaluator or a kernel") {
  ChainGraph g = MakeChain(4);
  PassContext no_evaluator;
  CHECK_FALSE(passes::MakeConstantFoldingPass()->Run(g.graph, no_evaluator));
  CHECK(g.graph.FindNode("sum1") != nullptr);

  Graph graph;
  Value* a = graph.AddConstant("a", Filled(Shape{4}, 0.0f));
  Node* sub = graph.AddNode("Sub", "sub", {a, a});
  graph.SetOutputs({sub->output(0)});
  test::FakeEvaluator evaluator;  // knows no Sub
  PassContext ctx;
  ctx.evaluator = &evaluator;
  CHECK_FALSE(passes::MakeConstantFoldingPass()->Run(graph, ctx));
  CHECK(evaluator.calls["Sub"] == 1);
  CHECK(graph.FindNode("sub") != nullptr);
}

TEST_CASE("constant_folding rejects an evaluator result that contradicts inference") {
  Graph graph;
  Value* a = graph.AddConstant("a", Filled(Shape{4}, 0.0f));
  Node* add = graph.AddNode("Add", "add", {a, a});
  add->output(0)->set_dtype(DataType::kFloat);
  add->output(0)->set_shape(Shape{2, 2});  // the evaluator will produce [4]
  graph.SetOutputs({add->output(0)});
  test::FakeEvaluator evaluator;
  PassContext ctx;
  ctx.evaluator = &evaluator;
  try {
    passes::MakeConstantFoldingPass()->Run(graph, ctx);
    FAIL("expected ge::Error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kInternal);
    CHECK_THAT(error.what(), Catch::Contains("node 'add' (Add)"));
  }
}

}  // namespace ge
