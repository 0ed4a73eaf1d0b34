// conv_bias_fold: Add(Conv2D, per-channel constant) becomes the convolution's
// bias, in NCHW and NHWC, with and without a bias already; the compiled model
// gives the same outputs with the pass on and off; constants that are not one
// value per output channel, and convolutions read elsewhere, are left alone.
#include <catch2/catch.hpp>

#include "ge/compiled_model.h"
#include "passes/builtin_passes.h"
#include "test_support.h"

namespace ge {
namespace {

constexpr int64_t kCin = 3, kCout = 4, kSize = 5;

struct Case {
  bool nhwc = false;
  bool with_bias = false;
  std::vector<int64_t> shift_dims;  // the added constant's shape
  bool conv_read_twice = false;
};

// x -> Conv2D 3x3 pad 1 [-> bias] -> Add(c) -> "y" (and the conv's output too when read twice).
std::unique_ptr<Graph> Build(const Case& c) {
  auto graph = std::make_unique<Graph>("conv_bias");
  const std::vector<int64_t> x_dims =
      c.nhwc ? std::vector<int64_t>{1, kSize, kSize, kCin} : std::vector<int64_t>{1, kCin, kSize, kSize};
  Value* x = graph->AddInput("x", DataType::kFloat, Shape(x_dims));
  std::vector<Value*> inputs = {x, graph->AddConstant("w", test::RandomFloats(Shape({kCout, kCin, 3, 3}), 1, -1, 1))};
  if (c.with_bias) inputs.push_back(graph->AddConstant("b", test::RandomFloats(Shape({kCout}), 2, -1, 1)));
  Node* conv = graph->AddNode("Conv2D", "conv", inputs);
  conv->attrs().Set("strides", std::vector<int64_t>{1, 1, 1, 1});
  conv->attrs().Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  conv->attrs().Set("data_format", std::string(c.nhwc ? "NHWC" : "NCHW"));
  int64_t count = 1;
  for (int64_t d : c.shift_dims) count *= d;
  Value* shift = graph->AddConstant("c", test::RandomFloats(Shape(c.shift_dims), 3, -1, 1));
  Node* add = graph->AddNode("Add", "y", {conv->output(0), shift});
  std::vector<Value*> outputs = {add->output(0)};
  if (c.conv_read_twice) outputs.push_back(conv->output(0));
  graph->SetOutputs(outputs);
  return graph;
}

size_t Adds(const Graph& graph) {
  size_t adds = 0;
  for (const Node* node : graph.nodes()) adds += node->op_type() == "Add";
  return adds;
}

}  // namespace

TEST_CASE("conv_bias_fold moves a per-channel Add into the convolution's bias", "[passes][conv_bias_fold]") {
  const std::vector<std::pair<Case, bool>> cases = {
      {{false, false, {kCout, 1, 1}}, true},      // NCHW, no bias
      {{false, true, {1, kCout, 1, 1}}, true},    // NCHW, bias summed
      {{true, false, {kCout}}, true},             // NHWC: the channels last
      {{true, true, {1, 1, 1, kCout}}, true},     // NHWC, bias summed
      {{false, false, {kCout, kSize, kSize}}, false},  // not one value per channel
      {{false, false, {kCout, 1, 1}, true}, false},    // the convolution is read elsewhere
  };
  for (const auto& [c, folds] : cases) {
    INFO("nhwc " << c.nhwc << " bias " << c.with_bias << " shift " << Shape(c.shift_dims).ToString() << " read twice "
                 << c.conv_read_twice);
    std::unique_ptr<Graph> graph = Build(c);
    PassContext ctx;
    passes::MakeInferShapePass()->Run(*graph, ctx);  // as the pipeline has before this stage
    CHECK(passes::MakeConvBiasFoldPass()->Run(*graph, ctx) == folds);
    CHECK(Adds(*graph) == (folds ? 0u : 1u));
    if (!folds) continue;
    CHECK(graph->outputs()[0]->name() == "y");  // the output keeps the Add's name
    // The same outputs as the model without the pass.
    const Tensor x = test::RandomFloats(Shape(c.nhwc ? std::vector<int64_t>{1, kSize, kSize, kCin}
                                                     : std::vector<int64_t>{1, kCin, kSize, kSize}),
                                        4, -1, 1);
    const Tensor folded = CompiledModel::Compile(Build(c))->Run({x}).at(0);
    const Tensor unfolded =
        CompiledModel::Compile(Build(c), {{"ge.disablePasses", "conv_bias_fold"}})->Run({x}).at(0);
    CHECK(test::MaxAbsDiff(folded, unfolded) < 1e-5);
  }
}

}  // namespace ge
