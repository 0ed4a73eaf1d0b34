// Convolutions with their residual Add, Relu or Relu6 folded in by
// conv_post_op_fusion compute what the same graph computes without the pass
// (whose Add, Relu and ClipByValue kernels are tested on their own), on
// oneDNN's blocked and plain (GEMM) paths and small_conv.cc's, and again
// after a .gem round trip.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "graph/conv_post_ops.h"
#include "test_models.h"
#include "test_support.h"

using ge::CompiledModel;
using ge::DataType;
using ge::Tensor;
using ge::test::MaxAbsDiff;
using ge::test::RandomTensor;

namespace {

constexpr int64_t kSize = 10;

struct FusionCase {
  int64_t in_channels, out_channels, groups;
  bool bias;
  bool add;                // Add(conv, skip), skip = Sigmoid of the second input
  std::string activation;  // "", "relu" or "clip" (bounds 0 and 1.5, so both bind)

  std::string Describe() const {
    return fmt::format("{}->{} channels, groups {}, bias {}, add {}, activation '{}'", in_channels, out_channels,
                       groups, bias, add, activation);
  }
  ge::Shape XShape() const { return {1, in_channels, kSize, kSize}; }
  ge::Shape YShape() const { return {1, out_channels, kSize, kSize}; }
};

std::unique_ptr<ge::Graph> Build(const FusionCase& c) {
  ge::GraphBuilder b("fusion");
  ge::Value* x = b.Input("x", DataType::kFloat, c.XShape());
  ge::Value* skip_source = b.Input("skip_in", DataType::kFloat, c.YShape());
  ge::Value* filter = b.Constant("filter", RandomTensor({c.out_channels, c.in_channels / c.groups, 3, 3}, 7));
  ge::Value* bias = c.bias ? b.Constant("bias", RandomTensor({c.out_channels}, 8)) : nullptr;
  ge::Value* y = b.Conv2D(x, filter, bias, {{1, 1}, {1, 1, 1, 1}, {1, 1}, c.groups}, "conv");
  if (c.add) y = b.Add(y, b.Sigmoid(skip_source, "skip"), "add");
  if (c.activation == "relu") y = b.Relu(y, "relu");
  if (c.activation == "clip") {
    y = b.Op("ClipByValue",
             {y, b.Constant("lo", Tensor::FromVector<float>(DataType::kFloat, {}, {0.0f})),
              b.Constant("hi", Tensor::FromVector<float>(DataType::kFloat, {}, {1.5f}))},
             {}, 1, "clip")[0];
  }
  b.Outputs({y, b.Relu(skip_source, "skip_relu")});  // the skip input stays an input either way
  return b.Build();
}

size_t CountOps(const ge::Graph& graph, const std::string& op_type) {
  size_t count = 0;
  for (const ge::Node* node : graph.nodes()) count += node->op_type() == op_type;
  return count;
}

// The graph's one convolution (later passes may rename it).
const ge::Node* OnlyConv(const ge::Graph& graph) {
  const ge::Node* found = nullptr;
  for (const ge::Node* node : graph.nodes()) {
    if (node->op_type() != "Conv2D") continue;
    REQUIRE(found == nullptr);
    found = node;
  }
  REQUIRE(found != nullptr);
  return found;
}

void CheckSameResults(const CompiledModel& fused, const CompiledModel& unfused, const FusionCase& c) {
  for (uint32_t seed : {1u, 2u}) {
    const std::vector<Tensor> inputs = {ge::test::RandomTensor(c.XShape(), seed),
                                        ge::test::RandomTensor(c.YShape(), seed + 10)};
    const std::vector<Tensor> expected = unfused.Run(inputs);
    const std::vector<Tensor> actual = fused.Run(inputs);
    REQUIRE(actual.size() == expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
      CHECK(actual[i].shape() == expected[i].shape());
      // Fused and unfused convolutions may run different oneDNN kernels (per
      // ISA they block differently): sums of up to 288 float32 products near 1
      // then differ in the last bits, a few 1e-6.
      CHECK(MaxAbsDiff(actual[i], expected[i]) < 5e-5);
    }
  }
}

const std::vector<FusionCase>& Cases() {
  // 4 and 6 channels with groups 1 are small enough for small_conv.cc, which
  // applies the addend and activation itself; grouped 4 channels stay in
  // plain layouts (oneDNN's GEMM convolution), 32 channels are blocked
  // (conv.cc WorthBlocking): the addend is copied, or reordered into the
  // blocked y, and the activation runs inside or after.
  static const std::vector<FusionCase> cases = {
      {4, 6, 1, true, false, "relu"},   {4, 6, 2, false, false, "clip"}, {4, 4, 1, true, true, "relu"},
      {4, 4, 1, false, true, ""},       {32, 32, 1, true, false, "relu"}, {32, 32, 32, true, false, "clip"},
      {32, 32, 1, false, true, "relu"}, {32, 32, 1, true, true, ""},      {32, 32, 2, true, true, "clip"},
  };
  return cases;
}

TEST_CASE("Fused convolutions compute what the unfused graph computes", "[conv_post_op_fusion]") {
  // NCHW too: nhwc_layout would otherwise move every convolution to NHWC.
  for (const std::string& also_disabled : {"", "nhwc_layout,"}) {
    for (const FusionCase& c : Cases()) {
      INFO(c.Describe() << ", also disabled: " << also_disabled);
      auto fused = CompiledModel::Compile(Build(c), {{"ge.disablePasses", also_disabled}});
      auto unfused = CompiledModel::Compile(Build(c), {{"ge.disablePasses", also_disabled + "conv_post_op_fusion"}});
      CHECK(CountOps(fused->graph(), "Add") == 0);
      CHECK(CountOps(fused->graph(), "ClipByValue") == 0);
      CHECK(CountOps(fused->graph(), "Relu") == 1);  // skip_relu reads a graph input
      CHECK(CountOps(unfused->graph(), "Add") == (c.add ? 1 : 0));
      CheckSameResults(*fused, *unfused, c);
    }
  }
}

TEST_CASE("A fused convolution survives a .gem round trip", "[conv_post_op_fusion]") {
  const FusionCase c{32, 32, 1, true, true, "relu"};
  auto fused = CompiledModel::Compile(Build(c));
  auto unfused = CompiledModel::Compile(Build(c), {{"ge.disablePasses", "conv_post_op_fusion"}});
  const std::filesystem::path path = ge::test::TempDir("conv_post_op_fusion_gem") / "fused.gem";
  fused->Save(path.string());
  auto loaded = CompiledModel::Load(path.string());
  const ge::Node* conv = OnlyConv(loaded->graph());
  CHECK(conv->attrs().GetBool(ge::kFusedAddAttr));
  CHECK(conv->attrs().GetString(ge::kFusedActivationAttr) == ge::kFusedRelu);
  CHECK(conv->input(ge::kConvFusedAddend) != nullptr);
  CheckSameResults(*loaded, *unfused, c);
}

TEST_CASE("A Conv2D with a malformed fused post-op is refused, naming the node", "[conv_post_op_fusion]") {
  std::unique_ptr<ge::Graph> graph = Build({4, 6, 1, true, false, ""});
  graph->FindNode("conv")->attrs().Set(ge::kFusedActivationAttr, std::string("Tanh"));
  auto [code, message] = ge::test::ErrorOf([&] { CompiledModel::Compile(std::move(graph)); });
  CHECK(code == ge::ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("conv") && Catch::Contains("Tanh"));
}

}  // namespace
