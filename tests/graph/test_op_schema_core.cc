// OpSchema attribute normalization, arity and dtype checks, and the registry.
#include <algorithm>
#include <catch2/catch.hpp>
#include <thread>

#include "op_tester.h"

using ge::AttrType;
using ge::DataType;
using ge::Shape;
using Ints = std::vector<int64_t>;

namespace {

const ge::OpSchema& Schema(const char* op_type) {
  const ge::OpSchema* schema = ge::OpRegistry::Global().Find(op_type);
  REQUIRE(schema != nullptr);
  return *schema;
}

std::string ErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const ge::Error& e) {
    return e.what();
  }
  FAIL("expected a ge::Error");
  return {};
}

}  // namespace

TEST_CASE("Every op of docs/op-set.md is registered") {
  const char* ops[] = {"Data",
                       "Const",
                       "Identity",
                       "Conv2D",
                       "Conv2DTranspose",
                       "MatMulV2",
                       "BatchMatMulV2",
                       "BatchNorm",
                       "LayerNorm",
                       "Relu",
                       "Sigmoid",
                       "Tanh",
                       "Erf",
                       "Sqrt",
                       "Exp",
                       "Log",
                       "Abs",
                       "Neg",
                       "Reciprocal",
                       "Gelu",
                       "ClipByValue",
                       "Add",
                       "Sub",
                       "Mul",
                       "Div",
                       "Pow",
                       "Maximum",
                       "Minimum",
                       "SoftmaxV2",
                       "ReduceMeanD",
                       "ReduceSumD",
                       "ReduceMaxD",
                       "ReduceMinD",
                       "ReduceProdD",
                       "MaxPoolV3",
                       "AvgPoolV2",
                       "Flatten",
                       "Reshape",
                       "Squeeze",
                       "Unsqueeze",
                       "TransposeD",
                       "ConcatD",
                       "SplitVD",
                       "StridedSliceV2",
                       "GatherV2D",
                       "Shape",
                       "Cast",
                       "Sign",
                       "Ceil",
                       "Floor",
                       "Round",
                       "Sin",
                       "Cos",
                       "Tan",
                       "Asin",
                       "Acos",
                       "Atan",
                       "Sinh",
                       "Cosh",
                       "Asinh",
                       "Acosh",
                       "Atanh",
                       "Mod",
                       "FloorMod",
                       "Equal",
                       "Greater",
                       "Less",
                       "GreaterEqual",
                       "LessEqual",
                       "LogicalAnd",
                       "LogicalOr",
                       "LogicalXor",
                       "LogicalNot",
                       "BitwiseAnd",
                       "BitwiseOr",
                       "BitwiseXor",
                       "LeftShift",
                       "RightShift",
                       "Invert",
                       "IsNan",
                       "IsInf",
                       "Select",
                       "LeakyRelu",
                       "Elu",
                       "Selu",
                       "Celu",
                       "ThresholdedRelu",
                       "HardSigmoid",
                       "HardSwish",
                       "Mish",
                       "Softplus",
                       "Softsign",
                       "Shrink",
                       "PRelu",
                       "LogSoftmaxV2",
                       "Hardmax",
                       "QuantizeLinear",
                       "DequantizeLinear",
                       "DynamicQuantizeLinear",
                       "MatMulInteger",
                       "QLinearMatMul",
                       "ConvInteger",
                       "QLinearConv",
                       "AscendQuant",
                       "AscendDequant",
                       "AscendRequant",
                       "AscendAntiQuant",
                       "WeightQuantBatchMatmulV2",
                       "FFN",
                       "CommonRNN",
                       "CommonGRU",
                       "CommonLSTM",
                       "Conv3D",
                       "Conv3DTranspose",
                       "MaxPool3D",
                       "AvgPool3D",
                       "MaxPoolWithArgmax",
                       "MaxUnpool",
                       "ReduceL1D",
                       "ReduceL2D",
                       "ReduceSumSquareD",
                       "ReduceLogSumD",
                       "ReduceLogSumExpD",
                       "ReduceSum",
                       "InstanceNorm",
                       "LRN",
                       "Resize",
                       "Einsum",
                       "MatrixDeterminant",
                       "Tile",
                       "Expand",
                       "PadV3",
                       "DepthToSpace",
                       "SpaceToDepth",
                       "Tril",
                       "Triu",
                       "Fill",
                       "Range",
                       "OneHot",
                       "EyeLike",
                       "Size",
                       "GatherElements",
                       "GatherNd",
                       "ScatterElements",
                       "ScatterNdUpdate",
                       "TopKV2",
                       "ArgMaxV2",
                       "ArgMinV2",
                       "Cumsum",
                       "NonZero",
                       "ReverseSequence",
                       "Unique",
                       "NLLLoss",
                       "NonMaxSuppressionV6",
                       "ROIAlign",
                       "GridSampler2D",
                       "HannWindow",
                       "HammingWindow",
                       "BlackmanWindow",
                       "DFT",
                       "STFT",
                       "MelWeightMatrix",
                       "If",
                       "Loop",
                       "Scan",
                       "PartitionedCall",
                       "SequenceEmpty",
                       "SequenceConstruct",
                       "SequenceInsert",
                       "SequenceErase",
                       "SequenceAt",
                       "SequenceLength",
                       "SplitToSequence",
                       "ConcatFromSequence",
                       "SequenceMap",
                       "Optional",
                       "OptionalHasElement",
                       "OptionalGetElement",
                       "QuantConv2D"};
  for (const char* op : ops) {
    INFO(op);
    CHECK(ge::OpRegistry::Global().Find(op) != nullptr);
  }
  CHECK(ge::OpRegistry::Global().OpTypes().size() == std::size(ops));
}

TEST_CASE("Schemas declare the documented ports and defaults") {
  const ge::OpSchema& conv = Schema("Conv2D");
  REQUIRE(conv.inputs().size() == 5);
  CHECK(conv.inputs()[2].name == "bias");
  CHECK(conv.inputs()[2].arity == ge::Arity::kOptional);
  CHECK(conv.inputs()[4].name == "fused_addend");  // CPU-internal (conv_post_op_fusion)
  CHECK(conv.inputs()[4].arity == ge::Arity::kOptional);
  REQUIRE(conv.FindAttr("strides") != nullptr);
  CHECK(conv.FindAttr("strides")->required);
  CHECK(conv.FindAttr("strides")->type == AttrType::kInts);
  CHECK(std::get<Ints>(conv.FindAttr("dilations")->default_value) == Ints{1, 1, 1, 1});
  CHECK(std::get<int64_t>(conv.FindAttr("groups")->default_value) == 1);
  CHECK(std::get<std::string>(conv.FindAttr("data_format")->default_value) == "NCHW");
  CHECK(conv.FindAttr("no_such_attr") == nullptr);
  CHECK(std::get<float>(Schema("BatchNorm").FindAttr("epsilon")->default_value) == Approx(1e-4f));
  CHECK(std::get<float>(Schema("LayerNorm").FindAttr("epsilon")->default_value) == Approx(1e-7f));
  CHECK(std::get<bool>(Schema("AvgPoolV2").FindAttr("exclusive")->default_value));
  CHECK(Schema("ConcatD").inputs()[0].arity == ge::Arity::kDynamic);
  CHECK(Schema("SplitVD").outputs()[0].arity == ge::Arity::kDynamic);
  REQUIRE(Schema("Add").FindTypeConstraint("T") != nullptr);
  CHECK(Schema("Add").FindTypeConstraint("T")->allowed == ge::types::Numeric());
}

TEST_CASE("NormalizeAttrs fills defaults and keeps given values") {
  ge::test::OpTester t;
  ge::Node* conv = t.graph.AddNode("Conv2D", "conv1", {t.Input({1, 3, 8, 8}), t.Input({4, 3, 3, 3})});
  conv->attrs().Set("strides", Ints{1, 1, 1, 1});
  conv->attrs().Set("pads", Ints{0, 0, 0, 0});
  conv->attrs().Set("groups", int64_t{1});
  Schema("Conv2D").NormalizeAttrs(*conv);
  CHECK(conv->attrs().GetInts("dilations") == Ints{1, 1, 1, 1});
  CHECK(conv->attrs().GetString("data_format") == "NCHW");
  CHECK(conv->attrs().GetInt("offset_x") == 0);
  CHECK(conv->attrs().GetInts("strides") == Ints{1, 1, 1, 1});
}

TEST_CASE("NormalizeAttrs rejects a missing required attribute or a wrong type") {
  ge::test::OpTester t;
  ge::Node* conv = t.graph.AddNode("Conv2D", "conv1", {t.Input({1, 3, 8, 8}), t.Input({4, 3, 3, 3})});
  conv->attrs().Set("pads", Ints{0, 0, 0, 0});
  std::string message = ErrorOf([&] { Schema("Conv2D").NormalizeAttrs(*conv); });
  CHECK_THAT(message, Catch::Contains("node 'conv1' (Conv2D)") && Catch::Contains("'strides'") &&
                          Catch::Contains("list of int"));

  conv->attrs().Set("strides", Ints{1, 1, 1, 1});
  conv->attrs().Set("groups", 2.0f);
  message = ErrorOf([&] { Schema("Conv2D").NormalizeAttrs(*conv); });
  CHECK_THAT(message, Catch::Contains("node 'conv1' (Conv2D)") && Catch::Contains("'groups'") &&
                          Catch::Contains("must be int") && Catch::Contains("is float"));
  CHECK_FALSE(conv->attrs().Has("dilations"));  // nothing filled in on failure
}

TEST_CASE("CheckArity counts required, optional and dynamic ports") {
  ge::test::OpTester t;
  ge::Value* x = t.Input({1, 3, 8, 8});
  ge::Value* w = t.Input({4, 3, 3, 3});
  ge::Value* offset = t.Input({4}, DataType::kInt8);
  CHECK_NOTHROW(Schema("Conv2D").CheckArity(*t.graph.AddNode("Conv2D", "ok2", {x, w})));
  CHECK_NOTHROW(Schema("Conv2D").CheckArity(*t.graph.AddNode("Conv2D", "ok4", {x, w, nullptr, offset})));
  CHECK_THAT(ErrorOf([&] { Schema("Conv2D").CheckArity(*t.graph.AddNode("Conv2D", "one", {x})); }),
             Catch::Contains("node 'one' (Conv2D)") && Catch::Contains("'filter'"));
  CHECK_THAT(ErrorOf([&] {
               Schema("Conv2D").CheckArity(*t.graph.AddNode("Conv2D", "six", {x, w, w, w, w, w}));
             }),
             Catch::Contains("node 'six' (Conv2D)") && Catch::Contains("has 6 inputs"));
  CHECK_THAT(ErrorOf([&] {
               Schema("Conv2D").CheckArity(*t.graph.AddNode("Conv2D", "hole", {x, nullptr}));
             }),
             Catch::Contains("'filter' is missing"));
  CHECK_NOTHROW(Schema("ConcatD").CheckArity(*t.graph.AddNode("ConcatD", "cat", {x, x, x, x, x})));
  CHECK_THAT(ErrorOf([&] { Schema("ConcatD").CheckArity(*t.graph.AddNode("ConcatD", "empty", {})); }),
             Catch::Contains("at least 1"));
  CHECK_NOTHROW(Schema("LayerNorm").CheckArity(*t.graph.AddNode("LayerNorm", "ln3", {x, x, x}, 3)));
  CHECK_THAT(ErrorOf([&] {
               Schema("LayerNorm").CheckArity(*t.graph.AddNode("LayerNorm", "ln4", {x, x, x}, 4));
             }),
             Catch::Contains("has 4 outputs") && Catch::Contains("1 to 3"));
}

TEST_CASE("CheckDtypes enforces one allowed dtype per type variable") {
  ge::test::OpTester t;
  ge::Node* mixed = t.graph.AddNode("Add", "add1", {t.Input({2}), t.Input({2}, DataType::kInt32)});
  CHECK_THAT(ErrorOf([&] { Schema("Add").Check(*mixed); }),
             Catch::Contains("node 'add1' (Add)") && Catch::Contains("int32") && Catch::Contains("float32") &&
                 Catch::Contains("'x1'") && Catch::Contains("'x2'"));

  ge::Node* int_conv = t.graph.AddNode(
      "Conv2D", "conv_int", {t.Input({1, 3, 8, 8}, DataType::kInt32), t.Input({4, 3, 3, 3}, DataType::kInt32)});
  const std::string message = ErrorOf([&] { Schema("Conv2D").Check(*int_conv); });
  CHECK_THAT(message, Catch::Contains("node 'conv_int' (Conv2D)") && Catch::Contains("int32") &&
                          Catch::Contains("float32, float16"));

  // An output of another dtype than its inputs is caught too; an undefined one is skipped.
  ge::Node* relu = t.graph.AddNode("Relu", "relu1", {t.Input({2})});
  CHECK_NOTHROW(Schema("Relu").Check(*relu));
  relu->output(0)->set_dtype(DataType::kDouble);
  CHECK_THAT(ErrorOf([&] { Schema("Relu").Check(*relu); }), Catch::Contains("output 0 'y'"));

  // Different type variables are independent.
  ge::Node* cast = t.graph.AddNode("Cast", "cast1", {t.Input({2})});
  cast->output(0)->set_dtype(DataType::kInt8);
  CHECK_NOTHROW(Schema("Cast").Check(*cast));
}

TEST_CASE("Inference falls back to schema defaults and names the node on failure") {
  ge::test::OpTester t;
  // groups, dilations and data_format are absent: their defaults apply.
  CHECK(t.Infer("Conv2D", {t.Input({1, 2, 5, 5}), t.Input({3, 2, 3, 3})},
                {{"strides", Ints{1, 1, 1, 1}}, {"pads", Ints{1, 1, 1, 1}}}) == Shape{1, 3, 5, 5});
  CHECK_THAT(t.Error("Conv2D", {t.Input({1, 2, 5, 5}), t.Input({3, 2, 3, 3})}, {{"pads", Ints{1, 1, 1, 1}}}),
             Catch::Contains("'strides'"));
  CHECK_THAT(t.Error("Conv2D", {t.Input({1, 2, 5, 5}), t.Input({3, 2, 3, 3})},
                     {{"strides", int64_t{1}}, {"pads", Ints{1, 1, 1, 1}}}),
             Catch::Contains("'strides' must be list of int"));
}

TEST_CASE("OpRegistry rejects duplicates and malformed schemas and serves lookups from many threads") {
  ge::OpRegistry registry;
  auto identity = [](ge::InferContext& ctx) { ctx.set_output(0, ctx.input_dtype(0), ctx.input_shape(0)); };
  registry.Register(ge::OpSchema("MyOp").Input("x").Output("y").TypeConstraint("T", ge::types::All()).Infer(identity));
  CHECK(registry.Find("MyOp") != nullptr);
  CHECK(registry.Find("Relu") == nullptr);
  CHECK_THROWS_WITH(
      registry.Register(
          ge::OpSchema("MyOp").Input("x").Output("y").TypeConstraint("T", ge::types::All()).Infer(identity)),
      Catch::Contains("already registered"));
  CHECK_THROWS_WITH(registry.Register(ge::OpSchema("NoConstraint").Input("x", "U").Output("y", "").Infer(identity)),
                    Catch::Contains("'U'"));
  CHECK_THROWS_WITH(registry.Register(ge::OpSchema("NoInfer").Input("x", "").Output("y", "")),
                    Catch::Contains("no inference function"));
  CHECK_THROWS_AS(ge::OpSchema("Bad").DynamicInput("xs").Input("y"), ge::Error);

  std::vector<std::thread> threads;
  std::vector<int> found(8, 0);
  for (size_t i = 0; i < found.size(); ++i) {
    threads.emplace_back([&found, i] {
      for (int k = 0; k < 200; ++k) found[i] += ge::OpRegistry::Global().Find("Conv2D") != nullptr;
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(std::all_of(found.begin(), found.end(), [](int n) { return n == 200; }));
}
