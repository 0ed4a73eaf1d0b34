// Symbolic shape inference (graph/symbolic_shapes.h) against the schemas'
// own inference: a graph of the shape arithmetic decoders and encoders do
// (Shape -> Gather -> Concat -> Reshape, a KV-cache Concat, attention
// products, slices, Range, a -1 in a Reshape) is inferred once with
// symbols; then a node-by-node run at several input shapes, which infers
// every node with the schemas and the values it computed, reports each
// step's output shapes (RunProfile), and every dim the symbols determine
// must evaluate to what that run saw.
#include <catch2/catch.hpp>

#include <algorithm>
#include <climits>
#include <cstring>
#include <map>

#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "ge/error.h"
#include "ge/profile.h"
#include "graph/dim_names.h"
#include "graph/symbolic_shapes.h"
#include "test_models.h"

using namespace ge;
using namespace ge::test;

namespace {

constexpr int64_t kAny = Shape::kUnknownDim;

Value* NamedInput(GraphBuilder& b, const std::string& name, Shape shape, std::vector<std::string> names) {
  Value* value = b.Input(name, DataType::kFloat, std::move(shape));
  value->producer()->attrs().Set(kDimNamesAttr, std::move(names));
  return value;
}

Value* Ints(GraphBuilder& b, const std::string& name, std::vector<int64_t> values) {
  const auto n = static_cast<int64_t>(values.size());
  return b.Constant(name, Tensor::FromVector(DataType::kInt64, Shape({n}), values));
}

Value* Scalar(GraphBuilder& b, const std::string& name, int64_t value) {
  return b.Constant(name, Tensor::FromVector(DataType::kInt64, Shape(), std::vector<int64_t>{value}));
}

// x [batch, seq, 8] and a cache past [batch, past, 8].
std::unique_ptr<Graph> ShapeArithmeticGraph() {
  GraphBuilder b("symbolic");
  Value* x = NamedInput(b, "x", {kAny, kAny, 8}, {"batch", "seq", ""});
  Value* past = NamedInput(b, "past", {kAny, kAny, 8}, {"batch", "past", ""});
  // Reshape x to [batch, seq, 2, 4] through its own shape, as exporters write it.
  Value* shape = b.Op("Shape", {x}, {}, 1, "shape")[0];
  Value* batch = b.Op("GatherV2D", {shape, Scalar(b, "zero", 0)}, {{"axis", int64_t{0}}}, 1, "batch")[0];
  Value* seq = b.Op("GatherV2D", {shape, Scalar(b, "one", 1)}, {{"axis", int64_t{0}}}, 1, "seq")[0];
  auto unsqueeze = [&](Value* v, const std::string& name) {
    return b.Op("Unsqueeze", {v}, {{"axes", std::vector<int64_t>{0}}}, 1, name)[0];
  };
  Value* heads = b.Op("ConcatD", {unsqueeze(batch, "b1"), unsqueeze(seq, "s1"), Ints(b, "split", {2, 4})},
                      {{"concat_dim", int64_t{0}}, {"N", int64_t{3}}}, 1, "heads_shape")[0];
  Value* split = b.Op("Reshape", {x, heads}, {}, 1, "split_heads")[0];
  Value* per_head = b.Transpose(split, {0, 2, 1, 3}, "per_head");
  // Twice the sequence: [batch, 2*seq, 4].
  Value* doubled = b.Op("Mul", {seq, Scalar(b, "two", 2)}, {}, 1, "doubled")[0];
  Value* pairs_shape = b.Op("ConcatD", {unsqueeze(batch, "b2"), unsqueeze(doubled, "d1"), Ints(b, "four", {4})},
                            {{"concat_dim", int64_t{0}}, {"N", int64_t{3}}}, 1, "pairs_shape")[0];
  Value* pairs = b.Op("Reshape", {x, pairs_shape}, {}, 1, "pairs")[0];
  // The cache grows by the new rows; attention scores over it.
  Value* keys = b.Concat({past, x}, 1, "keys");
  Value* scores = b.BatchMatMul(x, keys, false, true, "scores");
  Value* weights = b.Softmax(scores, -1, "weights");
  Value* attended = b.BatchMatMul(weights, keys, false, false, "attended");
  // All but the oldest row of the cache; the cache flattened with a -1.
  Value* recent = b.Op("StridedSliceV2", {keys, Ints(b, "begin", {1}), Ints(b, "end", {INT64_MAX}), Ints(b, "axes", {1})},
                       {}, 1, "recent")[0];
  Value* flat = b.Op("Reshape", {keys, Ints(b, "flat_shape", {0, -1})}, {}, 1, "flat")[0];
  // Positions 0 .. seq - 1, every second one.
  Value* positions = b.Op("Range", {Scalar(b, "start", 0), seq, Scalar(b, "step", 2)}, {}, 1, "positions")[0];
  // Rows of x as a matrix product, and a mean over the features.
  Value* rows = b.Op("Reshape", {x, Ints(b, "rows_shape", {-1, 8})}, {}, 1, "rows")[0];
  Value* projected = b.MatMul(rows, b.Constant("w", RandomTensor({8, 4}, 5)), nullptr, false, false, "projected");
  Value* mean = b.Op("ReduceMeanD", {x}, {{"axes", std::vector<int64_t>{-1}}, {"keep_dims", true}}, 1, "mean")[0];
  // Which entries are positive: a count only the data decides.
  Value* positive = b.Op("NonZero", {b.Relu(x, "relu")}, {}, 1, "positive")[0];
  // The shape vectors as data: a kernel reads what the shape arithmetic wrote.
  Value* shape_values = b.Cast(pairs_shape, DataType::kFloat, "shape_values");
  b.Outputs({per_head, pairs, keys, attended, recent, flat, positions, projected, mean, positive, shape_values});
  return b.Build();
}

std::vector<Tensor> Inputs(int64_t batch, int64_t seq, int64_t past) {
  return {RandomTensor({batch, seq, 8}, 1), RandomTensor({batch, past, 8}, 2)};
}

}  // namespace

TEST_CASE("symbolic shapes name a graph's dims by its input dims' symbols", "[symbolic][dynamic]") {
  std::unique_ptr<Graph> graph = ShapeArithmeticGraph();
  const auto shapes = SymbolicShapes::Infer(*graph);
  auto names = [&](const std::string& node) { return shapes->DimNames(graph->FindNode(node)->output(0)); };
  using Names = std::vector<std::string>;
  CHECK(names("split_heads") == Names{"batch", "seq", "", ""});
  CHECK(names("per_head") == Names{"batch", "", "seq", ""});
  CHECK(names("pairs") == Names{"batch", "2*seq", ""});
  CHECK(names("keys") == Names{"batch", "seq + past", ""});
  CHECK(names("scores") == Names{"batch", "seq", "seq + past"});
  CHECK(names("recent") == Names{"batch", "seq + past - 1", ""});
  CHECK(names("flat") == Names{"batch", "8*seq + 8*past"});
  CHECK(names("positions") == Names{"floor((seq + 1) / 2)"});
  CHECK(names("projected") == Names{"batch*seq", ""});
  CHECK(names("mean") == Names{"batch", "seq", ""});
  CHECK(names("positive") == Names{});  // [3, count]: the count depends on data
  // The compiled model reports its outputs' dims the same way.
  const auto model = CompiledModel::Compile(ShapeArithmeticGraph());
  REQUIRE(model->outputs().size() == 11);
  CHECK(model->outputs()[2].dim_names == Names{"batch", "seq + past", ""});
  CHECK(model->outputs()[9].dim_names.empty());
}

TEST_CASE("symbolic shapes evaluate to the shapes a node-by-node run infers", "[symbolic][dynamic]") {
  std::unique_ptr<Graph> graph = ShapeArithmeticGraph();
  const auto shapes = SymbolicShapes::Infer(*graph);
  std::map<std::string, const Node*> by_name;
  for (const Node* node : graph->nodes()) by_name[node->name()] = node;
  // Plans off: every run goes node by node and profiles each step; symbolic
  // shapes off: every step is inferred by its schema.
  const auto model = CompiledModel::Compile(ShapeArithmeticGraph(), {{"ge.exec.dynamicPlanCacheBytes", "0"},
                                                                     {"ge.exec.symbolicShapes", "0"}});
  for (const auto& [batch, seq, past] : std::vector<std::array<int64_t, 3>>{{1, 1, 1}, {2, 5, 3}, {3, 8, 11}}) {
    INFO("batch " << batch << ", seq " << seq << ", past " << past);
    std::vector<std::pair<int, int64_t>> bound;
    for (const SymbolicShapes::InputSymbol& symbol : shapes->input_symbols()) {
      const Shape input = symbol.input == 0 ? Shape({batch, seq, 8}) : Shape({batch, past, 8});
      bound.emplace_back(symbol.atom, input.dim(symbol.axis));
    }
    DimValues values;
    REQUIRE(values.Bind(shapes->table(), bound));
    RunProfile profile;
    model->Run(Inputs(batch, seq, past), &profile);
    size_t compared = 0;
    for (const StepProfile& step : profile.steps) {
      const auto found = by_name.find(step.node);
      if (found == by_name.end() || found->second->op_type() != step.op_type) continue;  // a fused or new node
      for (size_t i = 0; i < step.output_shapes.size(); ++i) {
        const SymbolicDims* dims = shapes->dims(found->second->output(i));
        REQUIRE(dims != nullptr);
        REQUIRE(dims->size() == step.output_shapes[i].rank());
        for (size_t axis = 0; axis < dims->size(); ++axis) {
          const std::optional<int64_t> expected = values.Evaluate((*dims)[axis]);
          if (!expected) continue;  // depends on data
          INFO(step.node << " output " << i << " dim " << axis << " = " << shapes->table().ToString((*dims)[axis]));
          CHECK(*expected == step.output_shapes[i].dim(axis));
          ++compared;
        }
      }
    }
    CHECK(compared >= 40);  // the graph's steps were found and compared, not skipped
  }
}

TEST_CASE("runs compute their shapes from symbolic dims and infer only what the symbols do not determine",
          "[symbolic][dynamic]") {
  const Options node_by_node = {{"ge.exec.dynamicPlanCacheBytes", "0"}};
  Options inferring = node_by_node;
  inferring["ge.exec.symbolicShapes"] = "0";
  const auto computed = CompiledModel::Compile(ShapeArithmeticGraph(), node_by_node);
  const auto inferred = CompiledModel::Compile(ShapeArithmeticGraph(), inferring);
  // Every call is a new shape; past = 0 (a prefill) is left to the schemas.
  for (const auto& [batch, seq, past] :
       std::vector<std::array<int64_t, 3>>{{1, 3, 0}, {1, 1, 3}, {1, 1, 4}, {2, 6, 5}, {3, 2, 9}}) {
    INFO("batch " << batch << ", seq " << seq << ", past " << past);
    const uint64_t computed_before = computed->run_stats().shape_inferences;
    const uint64_t inferred_before = inferred->run_stats().shape_inferences;
    RunProfile profile;
    const std::vector<Tensor> a = computed->Run(Inputs(batch, seq, past), &profile);
    const std::vector<Tensor> b = inferred->Run(Inputs(batch, seq, past));
    const auto written = std::count_if(profile.steps.begin(), profile.steps.end(),
                                       [](const StepProfile& step) { return step.kernel == "symbolic"; });
    // Shape, two Gathers, four Unsqueezes, two ConcatDs and the Mul: no kernels.
    CHECK(written == (past == 0 ? 0 : 10));
    const float* shape_values = static_cast<const float*>(a.back().data());
    CHECK(std::vector<float>(shape_values, shape_values + 3) ==
          std::vector<float>{float(batch), float(2 * seq), 4.0f});
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      REQUIRE(a[i].shape() == b[i].shape());
      CHECK(std::memcmp(a[i].data(), b[i].data(), a[i].nbytes()) == 0);
    }
    const uint64_t computed_steps = computed->run_stats().shape_inferences - computed_before;
    const uint64_t inferred_steps = inferred->run_stats().shape_inferences - inferred_before;
    if (past == 0) {
      CHECK(computed_steps == inferred_steps);
    } else {
      // At most NonZero, whose count depends on data (not when x repeats);
      // the others are the steps whose shapes change with the inputs.
      CHECK(computed_steps <= 1);
      CHECK(inferred_steps >= computed_steps + 5);
    }
  }
}

TEST_CASE("the symbolic shapes option is a switch", "[symbolic][dynamic]") {
  for (const char* bad : {"2", "on", ""}) {
    CHECK_THROWS_AS(CompiledModel::Compile(ShapeArithmeticGraph(), {{"ge.exec.symbolicShapes", bad}}), Error);
  }
}

TEST_CASE("convolutions and pools pass a symbolic batch through", "[symbolic][dynamic]") {
  auto build = [] {
    GraphBuilder b("images");
    Value* x = NamedInput(b, "x", {kAny, 3, 8, 8}, {"batch", "", "", ""});
    Conv2DOptions conv;
    conv.pads = {1, 1, 1, 1};
    Value* y = b.Conv2D(x, b.Constant("filter", RandomTensor({4, 3, 3, 3}, 7)), nullptr, conv, "conv");
    Pool2DOptions pool;
    pool.kernel = {2, 2};
    pool.strides = {2, 2};
    b.Output(b.MaxPool(b.Relu(y, "relu"), pool, "pool"));
    return b.Build();
  };
  const auto model = CompiledModel::Compile(build(), {{"ge.exec.dynamicPlanCacheBytes", "0"}});
  CHECK(model->outputs()[0].dim_names == std::vector<std::string>{"batch", "", "", ""});
  CHECK(model->outputs()[0].shape == Shape({kAny, 4, 4, 4}));
  for (int64_t batch : {1, 3, 2}) {
    const uint64_t before = model->run_stats().shape_inferences;
    const std::vector<Tensor> out = model->Run({RandomTensor({batch, 3, 8, 8}, 8)});
    CHECK(out[0].shape() == Shape({batch, 4, 4, 4}));
    CHECK(model->run_stats().shape_inferences == before);  // every step's shape from the symbols
  }
}
