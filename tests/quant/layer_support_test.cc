// The support table against the seed's rows, and PlanQuantLayers' decisions:
// one small graph per rule, each checking that the reason names the rule.
#include "quant/layer_support.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>

#include "ge/builder.h"
#include "plan_support.h"
#include "quant/quant_config.h"

using ge::DataType;
using ge::Shape;
using ge::Tensor;
using ge::Value;
using ge::quant::QuantLayer;
using ge::quant::QuantLayerKind;
using ge::test::Layer;
using ge::test::Ramp;

namespace {

std::vector<QuantLayer> Plan(ge::GraphBuilder& b, const std::string& config_text = "") {
  std::unique_ptr<ge::Graph> graph = b.Build();
  return ge::quant::PlanQuantLayers(*graph, ge::quant::ParseQuantConfig(config_text, "test.cfg"));
}


Value* Conv(ge::GraphBuilder& b, Value* x, Value* w, const std::string& name) {
  return b.Conv2D(x, w, nullptr, {}, name);
}

}  // namespace

TEST_CASE("layer support: the table has every row of the seed", "[layer_support]") {
  const std::vector<std::tuple<std::string, std::string, std::string>> seed_rows = {
      {"ONNX", "Conv", "Conv2D, Conv3D"},
      {"ONNX", "Gemm", "MatMulV2"},
      {"ONNX", "ConvTranspose", "Conv2DTranspose"},
      {"ONNX", "MatMul", "BatchMatMulV2"},
      {"ONNX", "AveragePool", "AvgPoolV2"},
      {"ONNX", "MaxPool", "MaxPool, MaxPoolV3"},
      {"ONNX", "Add", "Add"},
      {"TensorFlow", "MatMul", "MatMulV2"},
      {"TensorFlow", "Conv2D", "Conv2D"},
      {"TensorFlow", "DepthwiseConv2dNative", "DepthwiseConv2D"},
      {"TensorFlow", "Conv2DBackpropInput", "Conv2DBackpropInput"},
      {"TensorFlow", "BatchMatMulV2", "BatchMatMulV2"},
      {"TensorFlow", "AvgPool", "AvgPool"},
      {"TensorFlow", "Conv3D", "Conv3D"},
      {"TensorFlow", "MaxPool", "MaxPool, MaxPoolV3"},
      {"TensorFlow", "Add", "Add"},
      {"Caffe", "InnerProduct", "FullyConnection"},
      {"Caffe", "Convolution", "Conv2D"},
      {"Caffe", "Deconvolution", "Deconvolution"},
      {"Caffe", "Pooling", "Pooling"},
      {"Caffe", "Eltwise", "Eltwise"},
  };
  const auto& table = ge::quant::LayerSupportTable();
  CHECK(table.size() == seed_rows.size());
  for (const auto& [framework, op, ascend] : seed_rows) {
    INFO(framework << " " << op);
    auto row = std::find_if(table.begin(), table.end(), [&](const ge::quant::LayerSupportRow& r) {
      return r.framework == framework && r.framework_op == op;
    });
    REQUIRE(row != table.end());
    CHECK(row->ascend_ops == ascend);
    CHECK_FALSE(row->constraint.empty());
  }
  // Spot checks of the constraint texts against the seed.
  auto constraint = [&](const std::string& framework, const std::string& op) {
    for (const auto& r : table) {
      if (r.framework == framework && r.framework_op == op) return r.constraint;
    }
    return std::string();
  };
  CHECK_THAT(constraint("ONNX", "Gemm"), Catch::Contains("transA = false"));
  CHECK_THAT(constraint("ONNX", "MatMul"), Catch::Contains("INT8 symmetric"));
  CHECK_THAT(constraint("TensorFlow", "Conv3D"), Catch::Contains("dilation_d = 1"));
  CHECK_THAT(constraint("Caffe", "Eltwise"), Catch::Contains("operation = 1"));

  const auto& weight_only = ge::quant::WeightOnlySupportTable();
  REQUIRE(weight_only.size() == 3);
  CHECK(weight_only[0].ascend_op == "MatMulV2");
  CHECK(weight_only[1].ascend_op == "BatchMatMulV2");
  CHECK(weight_only[2].ascend_op == "FFN");
  CHECK(weight_only[2].asymmetric == "true or false");
  CHECK_THAT(weight_only[2].constraint, Catch::Contains("expert_tokens"));
}

TEST_CASE("plan: Conv2D with a constant filter is quantized INT8", "[layer_support]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {1, 2, 5, 5});
  b.Output(b.Relu(Conv(b, x, b.Constant("w", Ramp({3, 2, 3, 3})), "conv")));
  const auto layers = Plan(b);
  REQUIRE(layers.size() == 1);
  const QuantLayer& conv = layers[0];
  CHECK(conv.name == "conv");
  CHECK(conv.type_names == std::vector<std::string>{"Conv2D", "Conv"});
  CHECK(conv.kind == QuantLayerKind::kWeighted);
  CHECK(conv.quantize);
  CHECK(conv.reason.empty());
  CHECK(conv.activation_values == std::vector<std::string>{"x"});
  CHECK(conv.weight_input == 1);
  CHECK(conv.weight_channel_axis == 0);
  CHECK(conv.Decision() == "INT8");
}

TEST_CASE("plan: a weight from a graph input is not quantized", "[layer_support]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {1, 2, 5, 5});
  Value* w = b.Input("w", DataType::kFloat, {3, 2, 3, 3});
  b.Output(Conv(b, x, w, "conv"));
  const QuantLayer conv = Plan(b)[0];
  CHECK_FALSE(conv.quantize);
  CHECK_THAT(conv.reason, Catch::Contains("comes from graph input 'w', not a constant"));
  CHECK_THAT(conv.Decision(), Catch::StartsWith("skipped: weight input 'filter'"));
}

TEST_CASE("plan: Gemm with transA is not quantized", "[layer_support]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {4, 3});
  b.Output(b.MatMul(x, b.Constant("w", Ramp({4, 5})), nullptr, /*transpose_a=*/true, false, "gemm"));
  const QuantLayer gemm = Plan(b)[0];
  CHECK(gemm.type_names == std::vector<std::string>{"MatMulV2", "Gemm"});
  CHECK_FALSE(gemm.quantize);
  CHECK(gemm.reason == "Gemm transA must be false (MatMulV2 transpose_x1 = true)");
}

TEST_CASE("plan: full-quantization products take one weight scale, as the seed requires", "[layer_support]") {
  // The seed's table marks MatMulV2/BatchMatMulV2 full quantization with channel_wise true as failing.
  auto plan = [](const std::string& config) {
    ge::GraphBuilder b;
    Value* x = b.Input("x", DataType::kFloat, {2, 4, 3});
    b.Output(b.MatMul(b.Reshape(x, {8, 3}), b.Constant("w", Ramp({3, 5})), nullptr, false, false, "gemm"));
    b.Output(b.Conv2D(b.Input("image", DataType::kFloat, {1, 3, 8, 8}), b.Constant("f", Ramp({4, 3, 3, 3})),
                      nullptr, {}, "conv"));
    b.Output(b.BatchMatMul(x, b.Constant("w2", Ramp({3, 6})), false, false, "bmm"));
    return Plan(b, config);
  };
  const auto layers = plan("");
  for (const char* name : {"gemm", "bmm"}) {
    const QuantLayer& layer = Layer(layers, name);
    INFO(name);
    CHECK(layer.quantize);
    CHECK_FALSE(layer.config.arq.channel_wise);
    REQUIRE(layer.notes.size() == 1);
    CHECK_THAT(layer.notes[0], Catch::StartsWith("ARQ channel_wise turned off: the seed marks full quantization of"));
  }
  CHECK(Layer(layers, "conv").config.arq.channel_wise);  // convolutions keep one scale per output channel
  CHECK(Layer(layers, "conv").notes.empty());
  // Weight-only products keep channel_wise (the seed's √).
  const auto weight_only = plan("common_config { weight_compress_only: true }\n");
  CHECK(Layer(weight_only, "gemm").config.arq.channel_wise);
  CHECK(Layer(weight_only, "gemm").notes.empty());
}

TEST_CASE("plan: Gemm weight channel axis follows transB", "[layer_support]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {2, 4});
  Value* plain = b.MatMul(x, b.Constant("w1", Ramp({4, 5})), nullptr, false, false, "plain");
  b.Output(b.MatMul(plain, b.Constant("w2", Ramp({3, 5})), nullptr, false, /*transpose_b=*/true, "transposed"));
  const auto layers = Plan(b);
  CHECK(Layer(layers, "plain").weight_channel_axis == 1);       // [K, N]
  CHECK(Layer(layers, "transposed").weight_channel_axis == 0);  // [N, K]
  CHECK(Layer(layers, "transposed").quantize);
}

TEST_CASE("plan: ConvTranspose with dilation 2 is not quantized", "[layer_support]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {1, 2, 4, 4});
  Value* size = b.Constant("size", Tensor::FromVector<int64_t>(DataType::kInt64, {4}, {1, 3, 8, 8}));
  auto deconv = [&](Value* in, const std::vector<int64_t>& dilations, const std::string& name) {
    return b.Op("Conv2DTranspose", {size, in, b.Constant(name + "_w", Ramp({2, 3, 3, 3}))},
                {{"strides", std::vector<int64_t>{1, 1, 1, 1}},
                 {"pads", std::vector<int64_t>{0, 0, 0, 0}},
                 {"dilations", dilations}},
                1, name)[0];
  };
  // Output sizes: (4 - 1) + dilation * (3 - 1) + 1 = 8 with dilation 2; 6 with dilation 1.
  Value* dilated = deconv(x, {1, 1, 2, 2}, "dilated");
  Value* size6 = b.Constant("size6", Tensor::FromVector<int64_t>(DataType::kInt64, {4}, {1, 3, 6, 6}));
  Value* plain =
      b.Op("Conv2DTranspose", {size6, x, b.Constant("plain_w", Ramp({2, 3, 3, 3}))},
           {{"strides", std::vector<int64_t>{1, 1, 1, 1}}, {"pads", std::vector<int64_t>{0, 0, 0, 0}}}, 1, "plain")[0];
  b.Outputs({dilated, plain});
  const auto layers = Plan(b);
  const QuantLayer& d = Layer(layers, "dilated");
  CHECK_FALSE(d.quantize);
  CHECK_THAT(d.reason, Catch::StartsWith("ConvTranspose dilation must be 1"));
  const QuantLayer& p = Layer(layers, "plain");
  CHECK(p.quantize);
  CHECK(p.type_names == std::vector<std::string>{"Conv2DTranspose", "ConvTranspose"});
  CHECK(p.weight_input == 2);
  CHECK(p.weight_channel_axis == 1);  // filter [Cin, Cout, kh, kw]
  CHECK(p.activation_values == std::vector<std::string>{"x"});
}

TEST_CASE("plan: Conv3D needs dilation_d 1", "[layer_support]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {1, 1, 5, 4, 4});
  b.Output(b.Op("Conv3D", {x, b.Constant("w", Ramp({2, 1, 2, 2, 2}))},
                {{"strides", std::vector<int64_t>{1, 1, 1, 1, 1}},
                 {"pads", std::vector<int64_t>{0, 0, 0, 0, 0, 0}},
                 {"dilations", std::vector<int64_t>{1, 1, 2, 1, 1}}},
                1, "conv3d")[0]);
  const QuantLayer conv = Plan(b)[0];
  CHECK(conv.type_names == std::vector<std::string>{"Conv3D", "Conv"});
  CHECK_FALSE(conv.quantize);
  CHECK_THAT(conv.reason, Catch::Contains("dilation_d 1"));
}

TEST_CASE("plan: MatMul constant input must be 2-D", "[layer_support]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {2, 3, 4});
  Value* three_d = b.BatchMatMul(x, b.Constant("w3", Ramp({2, 4, 5})), false, false, "three_d");
  b.Output(b.BatchMatMul(three_d, b.Constant("w2", Ramp({5, 6})), false, false, "two_d"));
  const auto layers = Plan(b);
  const QuantLayer& bad = Layer(layers, "three_d");
  CHECK_FALSE(bad.quantize);
  CHECK_THAT(bad.reason, Catch::StartsWith("MatMul constant input must be 2-D"));
  const QuantLayer& good = Layer(layers, "two_d");
  CHECK(good.quantize);
  CHECK(good.kind == QuantLayerKind::kWeighted);
  CHECK(good.type_names == std::vector<std::string>{"BatchMatMulV2", "MatMul"});
  CHECK(good.weight_channel_axis == 1);
}

TEST_CASE("plan: BatchMatMulV2 with a constant x2 takes INT8 symmetric activations", "[layer_support]") {
  auto build = [](ge::GraphBuilder& b) {
    Value* x = b.Input("x", DataType::kFloat, {2, 3, 4});
    Value* mm = b.BatchMatMul(x, b.Constant("w", Ramp({4, 5})), false, false, "mm");
    b.Output(b.BatchMatMul(b.Constant("c", Ramp({3, 3})), mm, false, false, "constant_x1"));
  };
  ge::GraphBuilder b1;
  build(b1);
  const auto layers = Plan(b1);  // the default asks for asymmetric activations
  CHECK(Layer(layers, "mm").quantize);
  CHECK_FALSE(Layer(layers, "mm").config.asymmetric_activations());
  CHECK(Layer(layers, "constant_x1").reason == "MatMul constant input must be the second input (x1 is a constant)");

  ge::GraphBuilder b2;
  build(b2);
  const QuantLayer int16 = Layer(Plan(b2, "common_config { hfmg_quantize { dst_type: INT16 } }"), "mm");
  CHECK_FALSE(int16.quantize);
  CHECK(int16.reason == "BatchMatMulV2 quantizes INT8 symmetric only (config asks INT16)");
}

TEST_CASE("plan: a computed weight or bias is not quantized", "[layer_support]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {1, 2, 5, 5});
  Value* scale = b.Input("scale", DataType::kFloat, {1});
  Value* computed_w = b.Mul(b.Constant("w", Ramp({3, 2, 3, 3})), scale, "scaled_w");
  Value* computed_bias = b.Mul(b.Constant("b", Ramp({3})), scale, "scaled_b");
  Value* c1 = b.Conv2D(x, computed_w, nullptr, {}, "computed_weight");
  Value* c2 = b.Conv2D(x, b.Constant("w2", Ramp({3, 2, 3, 3})), computed_bias, {}, "computed_bias");
  b.Outputs({c1, c2});
  const auto layers = Plan(b);
  CHECK(Layer(layers, "computed_weight").reason ==
        "weight input 'filter' is computed by node 'scaled_w' (Mul), not a constant");
  CHECK(Layer(layers, "computed_bias").reason == "bias 'scaled_b' must be a float constant to become int32");
}

TEST_CASE("plan: MatMul adj_x1 is not quantized", "[layer_support]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {4, 3});
  b.Output(b.BatchMatMul(x, b.Constant("w", Ramp({4, 5})), /*adjoint_a=*/true, false, "mm"));
  const QuantLayer mm = Plan(b)[0];
  CHECK_FALSE(mm.quantize);
  CHECK_THAT(mm.reason, Catch::Contains("adj_x1 must be false"));
}

TEST_CASE("plan: two tensor inputs are INT8 symmetric only", "[layer_support]") {
  auto build = [](ge::GraphBuilder& b) {
    Value* x = b.Input("x", DataType::kFloat, {2, 3, 4});
    Value* y = b.Input("y", DataType::kFloat, {2, 4, 5});
    b.Output(b.BatchMatMul(x, y, false, false, "mm"));
  };
  ge::GraphBuilder b1;
  build(b1);
  const QuantLayer mm = Plan(b1)[0];  // default config: asymmetric activations
  CHECK(mm.kind == QuantLayerKind::kTwoTensorMatMul);
  CHECK(mm.quantize);
  CHECK(mm.activation_values == std::vector<std::string>{"x", "y"});
  CHECK_FALSE(mm.config.asymmetric_activations());  // forced symmetric
  CHECK(mm.Decision() == "INT8");

  ge::GraphBuilder b2;
  build(b2);
  const QuantLayer int16 = Plan(b2, "common_config { ifmr_quantize { dst_type: INT16 } }")[0];
  CHECK_FALSE(int16.quantize);
  CHECK_THAT(int16.reason, Catch::StartsWith("two tensor inputs: INT8 symmetric only"));
}

TEST_CASE("plan: AveragePool global pooling is not quantizable", "[layer_support]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {1, 2, 4, 4});
  Value* global = b.Op("AvgPoolV2", {x},
                       {{"ksize", std::vector<int64_t>{1, 1, 4, 4}},
                        {"strides", std::vector<int64_t>{1, 1, 1, 1}},
                        {"global_pooling", true}},
                       1, "global")[0];
  Value* local = b.AvgPool(x, {}, true, "local");
  b.Outputs({global, local});
  const auto layers = Plan(b);
  CHECK_FALSE(Layer(layers, "global").quantize);
  CHECK_THAT(Layer(layers, "global").reason, Catch::StartsWith("AveragePool global pooling is not quantizable"));
  const QuantLayer& pool = Layer(layers, "local");
  CHECK(pool.quantize);
  CHECK(pool.kind == QuantLayerKind::kTensorOnly);
  CHECK(pool.type_names == std::vector<std::string>{"AvgPoolV2", "AveragePool"});
  CHECK(pool.weight_input == -1);
}

TEST_CASE("plan: Add quantizes one tensor input only", "[layer_support]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {2, 3});
  Value* y = b.Input("y", DataType::kFloat, {2, 3});
  Value* c = b.Constant("c", Ramp({2, 3}));
  Value* one = b.Add(x, c, "one_tensor");
  Value* two = b.Add(one, y, "two_tensors");
  Value* none = b.Add(c, b.Constant("d", Ramp({2, 3})), "constants");
  b.Outputs({two, none});
  const auto layers = Plan(b);
  CHECK(layers.size() == 3);
  const QuantLayer& add = Layer(layers, "one_tensor");
  CHECK(add.quantize);
  CHECK(add.kind == QuantLayerKind::kTensorOnly);
  CHECK(add.activation_values == std::vector<std::string>{"x"});
  CHECK_FALSE(Layer(layers, "two_tensors").quantize);
  CHECK(Layer(layers, "two_tensors").reason ==
        "Add quantizes one tensor input only (both inputs are variable tensors)");
  CHECK(Layer(layers, "constants").reason == "Add quantizes one tensor input only (both inputs are constants)");
}

TEST_CASE("plan: a float16 model disables pooling, Add and two-tensor MatMul", "[layer_support]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat16, {1, 2, 4, 4});
  Value* conv = Conv(b, x, b.Constant("w", Ramp({2, 2, 1, 1}, DataType::kFloat16)), "conv");
  Value* pool = b.MaxPool(conv, {}, "pool");
  Value* avg = b.AvgPool(conv, {}, true, "avg");
  Value* add = b.Add(pool, b.Constant("c", Ramp({1, 2, 2, 2}, DataType::kFloat16)), "add");
  Value* mm = b.BatchMatMul(add, avg, false, false, "mm");
  b.Output(mm);
  const auto layers = Plan(b);
  CHECK(Layer(layers, "conv").quantize);  // weighted layers stay quantizable
  CHECK(Layer(layers, "pool").reason == "float16 model: MaxPoolV3 quantization is disabled");
  CHECK(Layer(layers, "avg").reason == "float16 model: AvgPoolV2 quantization is disabled");
  CHECK(Layer(layers, "add").reason == "float16 model: Add quantization is disabled");
  CHECK(Layer(layers, "mm").reason == "float16 model: two-tensor BatchMatMulV2 quantization is disabled");
}

TEST_CASE("plan: skip_layers and skip_layer_types give the config's reason", "[layer_support]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {1, 2, 5, 5});
  Value* c1 = Conv(b, x, b.Constant("w1", Ramp({2, 2, 1, 1})), "conv1");
  Value* c2 = Conv(b, c1, b.Constant("w2", Ramp({2, 2, 1, 1})), "conv2");
  b.Output(b.MaxPool(c2, {}, "pool"));
  const auto by_name = [&] {
    ge::GraphBuilder copy;
    Value* in = copy.Input("x", DataType::kFloat, {1, 2, 5, 5});
    Value* a = Conv(copy, in, copy.Constant("w1", Ramp({2, 2, 1, 1})), "conv1");
    copy.Output(Conv(copy, a, copy.Constant("w2", Ramp({2, 2, 1, 1})), "conv2"));
    return Plan(copy, "skip_layers: \"conv2\"");
  }();
  CHECK(Layer(by_name, "conv1").quantize);
  CHECK_FALSE(Layer(by_name, "conv2").quantize);
  CHECK_THAT(Layer(by_name, "conv2").reason, Catch::Contains("skip_layers"));

  const auto by_type = Plan(b, "skip_layer_types: \"Conv\"");  // the ONNX name matches Conv2D layers
  CHECK_THAT(Layer(by_type, "conv1").reason, Catch::Contains("skip_layer_types"));
  CHECK_THAT(Layer(by_type, "conv2").reason, Catch::Contains("skip_layer_types"));
  CHECK(Layer(by_type, "pool").quantize);
}

TEST_CASE("plan: INT16 from the config and the Decision text", "[layer_support]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {1, 2, 4, 4});
  Value* conv = Conv(b, x, b.Constant("w", Ramp({2, 2, 1, 1})), "conv");
  b.Output(b.AvgPool(conv, {}, true, "avg"));
  const auto layers = Plan(b, "common_config { ifmr_quantize { dst_type: INT16 } }");
  CHECK(Layer(layers, "conv").Decision() == "INT16");
  CHECK_FALSE(Layer(layers, "avg").quantize);
  CHECK_THAT(Layer(layers, "avg").reason, Catch::Contains("INT8 kernel only"));
}

TEST_CASE("plan: weight_compress_only makes MatMul weight-only and skips other ops", "[layer_support]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {1, 2, 4, 4});
  Value* conv = Conv(b, x, b.Constant("w", Ramp({2, 2, 1, 1})), "conv");
  Value* flat = b.Reshape(conv, {2, 16});
  Value* gemm = b.MatMul(flat, b.Constant("w_gemm", Ramp({16, 3})), nullptr, false, false, "gemm");
  Value* mm = b.BatchMatMul(gemm, b.Constant("w_mm", Ramp({4, 3})), false, /*adjoint_b=*/true, "mm");
  b.Output(mm);
  const auto layers = Plan(b, "common_config { arq_quantize { asymmetric: true } weight_compress_only: true }");
  const QuantLayer& g = Layer(layers, "gemm");
  CHECK(g.quantize);
  CHECK(g.kind == QuantLayerKind::kWeightOnly);
  CHECK(g.Decision() == "weight-only INT8");
  CHECK(g.activation_values.empty());
  CHECK(g.weight_channel_axis == 1);
  const QuantLayer& m = Layer(layers, "mm");
  CHECK(m.quantize);
  CHECK(m.weight_channel_axis == 0);  // adj_x2: x2 is [N, K]
  const QuantLayer& c = Layer(layers, "conv");
  CHECK_FALSE(c.quantize);
  CHECK_THAT(c.reason, Catch::Contains("weight_compress_only applies to MatMulV2, BatchMatMulV2 and FFN only"));
}

TEST_CASE("plan: FFN weight-only rules", "[layer_support]") {
  struct Variant {
    std::string name;
    bool tokens = true;
    DataType weight_type = DataType::kFloat16;
    bool shared = false;
    std::string reason;  // empty: quantized
  };
  const std::vector<Variant> variants = {
      {"ok"},
      {"no_tokens", false, DataType::kFloat16, false, "FFN expert_tokens input must be present"},
      {"float32", true, DataType::kFloat, false, "FFN weights must be float16 constants (weight1 is float32)"},
      {"shared", true, DataType::kFloat16, true, "weight sharing is not supported"},
  };
  for (const Variant& v : variants) {
    INFO(v.name);
    ge::GraphBuilder b;
    Value* x = b.Input("x", v.weight_type, {4, 8});
    Value* w1 = b.Constant("w1", Ramp({2, 8, 6}, v.weight_type));
    Value* w2 = b.Constant("w2", Ramp({2, 6, 8}, v.weight_type));
    Value* tokens =
        v.tokens ? b.Constant("tokens", Tensor::FromVector<int64_t>(DataType::kInt64, {2}, {1, 3})) : nullptr;
    std::vector<Value*> inputs = {x, w1, w2, tokens};
    if (!v.tokens) {  // one expert without expert_tokens
      inputs[1] = w1 = b.Constant("w1_single", Ramp({8, 6}, v.weight_type));
      inputs[2] = b.Constant("w2_single", Ramp({6, 8}, v.weight_type));
    }
    Value* y = b.Op("FFN", inputs, {{"activation", std::string("relu")}}, 1, "ffn")[0];
    if (v.shared) y = b.Add(y, b.Reshape(b.Op("ReduceSumD", {w2}, {{"axes", std::vector<int64_t>{0, 1}}})[0], {1, 8}));
    b.Output(y);
    const auto plain = Plan(b, "common_config { weight_compress_only: true }");
    const QuantLayer& ffn = Layer(plain, "ffn");
    CHECK(ffn.kind == QuantLayerKind::kWeightOnly);
    if (v.reason.empty()) {
      CHECK(ffn.quantize);
      CHECK(ffn.weight_input == 1);
      CHECK(ffn.weight_channel_axis == 2);
    } else {
      CHECK_FALSE(ffn.quantize);
      CHECK_THAT(ffn.reason, Catch::Contains(v.reason));
    }
  }
}

// The FFN schema refuses antiquant inputs next to float weights, so this
// graph is assembled without inference: the planner must still refuse it.
TEST_CASE("plan: FFN with antiquant inputs is not quantized again", "[layer_support]") {
  ge::Graph graph("ffn_antiquant");
  Value* x = graph.AddInput("x", DataType::kFloat16, {4, 8});
  std::vector<Value*> inputs = {x, graph.AddConstant("w1", Ramp({1, 8, 6}, DataType::kFloat16)),
                                graph.AddConstant("w2", Ramp({1, 6, 8}, DataType::kFloat16)),
                                graph.AddConstant("tokens", Tensor::FromVector<int64_t>(DataType::kInt64, {1}, {4}))};
  inputs.resize(14, nullptr);
  inputs[12] = graph.AddConstant("offset1", Ramp({1, 6}));
  ge::Node* ffn = graph.AddNode("FFN", "ffn", inputs);
  graph.SetOutputs({ffn->output(0)});
  const auto layers = ge::quant::PlanQuantLayers(
      graph, ge::quant::ParseQuantConfig("common_config { weight_compress_only: true }", "t"));
  REQUIRE(layers.size() == 1);
  CHECK_FALSE(layers[0].quantize);
  CHECK_THAT(layers[0].reason, Catch::Contains("antiquant_offset2 inputs must be empty"));
}

TEST_CASE("plan: FFN without weight_compress_only is listed as skipped", "[layer_support]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat16, {4, 8});
  Value* tokens = b.Constant("tokens", Tensor::FromVector<int64_t>(DataType::kInt64, {1}, {4}));
  b.Output(b.Op("FFN",
                {x, b.Constant("w1", Ramp({1, 8, 6}, DataType::kFloat16)),
                 b.Constant("w2", Ramp({1, 6, 8}, DataType::kFloat16)), tokens},
                {{"activation", std::string("relu")}}, 1, "ffn")[0]);
  const QuantLayer ffn = Plan(b)[0];
  CHECK_FALSE(ffn.quantize);
  CHECK_THAT(ffn.reason, Catch::Contains("weight_compress_only"));
}

TEST_CASE("plan: every candidate is listed once, in topological order", "[layer_support]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {1, 2, 4, 4});
  Value* conv = Conv(b, x, b.Constant("w", Ramp({2, 2, 1, 1})), "conv");
  Value* relu = b.Relu(conv, "relu");
  Value* pool = b.MaxPool(relu, {}, "pool");
  Value* bad = Conv(b, pool, b.Input("w_in", DataType::kFloat, {2, 2, 1, 1}), "bad");
  b.Output(b.Softmax(bad));
  const auto layers = Plan(b);
  std::vector<std::string> names;
  for (const QuantLayer& l : layers) names.push_back(l.name);
  CHECK(names == std::vector<std::string>{"conv", "pool", "bad"});
  CHECK(layers[2].Decision().rfind("skipped: ", 0) == 0);
}
