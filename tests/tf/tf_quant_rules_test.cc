// The seed's TensorFlow table applied by quantization to imported GraphDefs:
// each rule on a layer that keeps it and one that breaks it, the report
// naming the framework and the row, config entries spelled with TensorFlow's
// op types; and a quantized NHWC network (convolution, depthwise, pools, a
// product) that runs and stays close to the float model on fresh inputs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "ge/compiled_model.h"
#include "ge/quantize.h"
#include "ge/tf_importer.h"
#include "quant/layer_support.h"
#include "quant/quant_config.h"
#include "test_support.h"
#include "tf_graph_writer.h"

using namespace ge;
using namespace ge::test::tf_writer;
using ge::quant::QuantLayer;

namespace {

void Conv(tf::GraphDef& g, const std::string& name, const std::string& op, const std::string& x,
          const std::vector<int64_t>& filter_shape) {
  const size_t count = static_cast<size_t>(filter_shape[0] * filter_shape[1] * filter_shape[2] * filter_shape[3]);
  Const(g, name + "/filter", FloatTensor(filter_shape, test::RandomVector(count, 11)));
  tf::NodeDef& conv = Add(g, name, op, {x, name + "/filter"});
  Ints(conv, "strides", {1, 1, 1, 1});
  (*conv.mutable_attr())["padding"].set_s("SAME");
}

void Pool(tf::GraphDef& g, const std::string& name, const std::string& op, const std::string& x) {
  tf::NodeDef& pool = Add(g, name, op, {x});
  Ints(pool, "ksize", {1, 2, 2, 1});
  Ints(pool, "strides", {1, 2, 2, 1});
  (*pool.mutable_attr())["padding"].set_s("VALID");
}

tf::NodeDef& MatMul(tf::GraphDef& g, const std::string& name, const std::string& x, const std::string& w) {
  return Add(g, name, "MatMul", {x, w});
}

// Image [1, 8, 8, 3] -> Conv2D -> DepthwiseConv2dNative -> AvgPool -> MaxPool;
// features [1, 8] -> products under each MatMul rule, AddV2 with a constant
// (one tensor input), AddN, BatchMatMulV2 with adj_x.
tf::GraphDef RulesGraph() {
  tf::GraphDef g;
  Placeholder(g, "image", {1, 8, 8, 3});
  Conv(g, "conv", "Conv2D", "image", {3, 3, 3, 4});
  Conv(g, "depthwise", "DepthwiseConv2dNative", "conv", {3, 3, 4, 1});
  Pool(g, "avg", "AvgPool", "depthwise");
  Pool(g, "max", "MaxPool", "avg");

  Placeholder(g, "features", {1, 8});
  Placeholder(g, "fed_weight", {8, 4});
  Const(g, "w", FloatTensor({8, 4}, test::RandomVector(32, 12)));
  Const(g, "w_t", FloatTensor({4, 8}, test::RandomVector(32, 13)));
  MatMul(g, "dense", "features", "w");
  (*MatMul(g, "dense_tb", "features", "w_t").mutable_attr())["transpose_b"].set_b(true);
  MatMul(g, "dense_fed", "features", "fed_weight");
  Const(g, "shift", FloatTensor({4}, {0.5f, -0.25f, 0.125f, 1}));
  Add(g, "shifted", "AddV2", {"dense", "shift"});
  Add(g, "sum", "AddN", {"shifted", "dense_tb", "dense_fed"});
  // Conv2DBackpropInput of the image back to [1, 8, 8, 3], plain and dilated.
  Const(g, "sizes", IntTensor({4}, {1, 8, 8, 3}));
  for (const auto& [name, dilation] : {std::pair{"backprop", 1}, std::pair{"backprop_dilated", 2}}) {
    Const(g, std::string(name) + "/filter", FloatTensor({3, 3, 3, 4}, test::RandomVector(108, 15)));
    tf::NodeDef& backprop = Add(g, name, "Conv2DBackpropInput", {"sizes", std::string(name) + "/filter", "conv"});
    Ints(backprop, "strides", {1, 1, 1, 1});
    Ints(backprop, "dilations", {1, dilation, dilation, 1});
    (*backprop.mutable_attr())["padding"].set_s("SAME");
  }
  // Conv3D over a volume, plain and dilated in depth.
  Placeholder(g, "volume", {1, 4, 6, 6, 2});
  for (const auto& [name, dilation] : {std::pair{"conv3d", 1}, std::pair{"conv3d_dilated", 2}}) {
    Const(g, std::string(name) + "/filter", FloatTensor({2, 3, 3, 2, 4}, test::RandomVector(144, 16)));
    tf::NodeDef& conv3d = Add(g, name, "Conv3D", {"volume", std::string(name) + "/filter"});
    Ints(conv3d, "strides", {1, 1, 1, 1, 1});
    Ints(conv3d, "dilations", {1, dilation, 1, 1, 1});
    (*conv3d.mutable_attr())["padding"].set_s("VALID");
  }
  Placeholder(g, "a", {2, 3, 4});
  Placeholder(g, "b", {2, 3, 5});
  (*Add(g, "bmm", "BatchMatMulV2", {"a", "b"}).mutable_attr())["adj_x"].set_b(true);
  return g;
}

std::string WriteGraph(const tf::GraphDef& g, const std::string& name) {
  const std::filesystem::path path = test::TempDir(name) / "model.pb";
  std::ofstream(path, std::ios::binary) << g.SerializeAsString();
  return path.string();
}

const QuantLayer& Layer(const std::vector<QuantLayer>& layers, const std::string& name) {
  auto it = std::find_if(layers.begin(), layers.end(), [&](const QuantLayer& l) { return l.name == name; });
  REQUIRE(it != layers.end());
  return *it;
}

std::vector<QuantLayer> Plan(const std::string& config_text = "") {
  const std::unique_ptr<Graph> graph = ImportTensorFlowFile(WriteGraph(RulesGraph(), "tf_quant_rules"));
  return quant::PlanQuantLayers(*graph, quant::ParseQuantConfig(config_text, "test.cfg"));
}

}  // namespace

TEST_CASE("quantization applies TensorFlow's table to an imported GraphDef", "[tf][quant]") {
  const std::vector<QuantLayer> layers = Plan();
  for (const QuantLayer& layer : layers) {
    INFO(layer.name);
    CHECK(layer.framework == "TensorFlow");
  }
  SECTION("convolutions and pools keep their rows") {
    for (const auto& [name, op] : {std::pair{"conv", "Conv2D"}, std::pair{"depthwise", "DepthwiseConv2dNative"},
                                   std::pair{"avg", "AvgPool"}, std::pair{"max", "MaxPool"}}) {
      const QuantLayer& layer = Layer(layers, name);
      INFO(name << ": " << layer.Decision());
      CHECK(layer.quantize);
      CHECK(layer.framework_op == op);
      CHECK_THAT(layer.rule, Catch::StartsWith(std::string("TensorFlow ") + op + ": "));
    }
    CHECK(Layer(layers, "depthwise").op_type == "Conv2D");  // ge's grouped Conv2D is the Ascend DepthwiseConv2D
  }
  SECTION("MatMul: transpose_b true and a fed weight are refused") {
    CHECK(Layer(layers, "dense").quantize);
    CHECK(Layer(layers, "dense").rule ==
          "TensorFlow MatMul: transpose_a, transpose_b, adjoint_a and adjoint_b = False; the weight input must not "
          "come from a placeholder or another dynamically changing node");
    CHECK(Layer(layers, "dense_tb").reason ==
          "TensorFlow MatMul transpose_a and transpose_b must be False (transpose_b = True)");
    CHECK_THAT(Layer(layers, "dense_fed").reason, Catch::Contains("comes from graph input 'fed_weight'"));
  }
  SECTION("Add: one tensor input; AddN is not in the table") {
    const QuantLayer& shifted = Layer(layers, "shifted");
    CHECK(shifted.quantize);
    CHECK(shifted.framework_op == "AddV2");
    CHECK_THAT(shifted.rule, Catch::StartsWith("TensorFlow Add: tensor quantization only"));
    const QuantLayer& sum = Layer(layers, "sum");
    CHECK(!sum.quantize);
    CHECK_THAT(sum.reason, Catch::StartsWith("TensorFlow AddN is not a quantizable layer (TensorFlow's table: MatMul, "));
  }
  SECTION("Conv2DBackpropInput: dilation 1") {
    // ge's NCHW Conv2DTranspose, between transposes, named after the node.
    const QuantLayer& plain = Layer(layers, "backprop#nchw");
    CHECK(plain.quantize);
    CHECK(plain.op_type == "Conv2DTranspose");
    CHECK(plain.framework_op == "Conv2DBackpropInput");
    CHECK(Layer(layers, "backprop_dilated#nchw").reason ==
          "TensorFlow Conv2DBackpropInput dilation must be 1 (dilations = [1, 1, 2, 2])");
  }
  SECTION("Conv3D: dilation_d 1") {
    CHECK(Layer(layers, "conv3d#ncdhw").quantize);
    CHECK(Layer(layers, "conv3d#ncdhw").framework_op == "Conv3D");
    CHECK(Layer(layers, "conv3d_dilated#ncdhw").reason ==
          "TensorFlow Conv3D needs dilation_d 1 (Conv3D dilations = [1, 1, 2, 1, 1])");
  }
  SECTION("BatchMatMulV2: adj_x must be False") {
    CHECK(Layer(layers, "bmm").reason == "TensorFlow BatchMatMulV2 adj_x must be False (adj_x = True)");
  }
}

TEST_CASE("skip_layer_types takes TensorFlow's op types", "[tf][quant]") {
  const std::vector<QuantLayer> layers = Plan("skip_layer_types: \"DepthwiseConv2dNative\"\n");
  CHECK_THAT(Layer(layers, "depthwise").reason, Catch::Contains("skip_layer_types"));
  CHECK(Layer(layers, "conv").quantize);
}

namespace {

std::unique_ptr<Graph> ConvReluConvGraph() {
  tf::GraphDef g;
  Placeholder(g, "image", {1, 8, 8, 3});
  Conv(g, "conv", "Conv2D", "image", {3, 3, 3, 4});
  Add(g, "relu", "Relu", {"conv"});
  Conv(g, "conv2", "Conv2D", "relu", {3, 3, 4, 2});
  return ImportTensorFlowFile(WriteGraph(g, "tf_conv_relu_conv"));
}

}  // namespace

// ge's int16 convolution is NCHW only: the ladder skips the INT16 rung for an
// NHWC Conv2D (it used to fail the compile), and a config asking INT16 of one
// keeps it float, saying why.
TEST_CASE("an NHWC Conv2D climbs the ladder without the INT16 rung", "[tf][quant]") {
  const std::unique_ptr<Graph> graph = ConvReluConvGraph();
  QuantizeOptions options;
  options.calibration_batches = {{Tensor::FromVector(DataType::kFloat, Shape({1, 8, 8, 3}), test::RandomVector(192, 5))}};
  options.layer_cosine = 0.9999999;  // no layer passes: each climbs every rung it has
  options.target_output_cosine = 0.9999999;
  const QuantizeResult result = Quantize(*graph, options);
  std::vector<std::string> conv;
  for (const FallbackStep& step : result.fallback) {
    if (step.layer == "conv") conv.push_back(step.from + " -> " + step.to);
  }
  CHECK(conv == std::vector<std::string>{"INT8 ifmr -> INT8 hfmg", "INT8 hfmg -> float"});

  const std::vector<QuantLayer> layers = quant::PlanQuantLayers(
      *graph, quant::ParseQuantConfig("common_config { ifmr_quantize { dst_type: INT16 } }\n", "test.cfg"));
  CHECK_FALSE(Layer(layers, "conv").quantize);
  CHECK_THAT(Layer(layers, "conv").reason, Catch::Contains("Conv2D data_format NHWC quantizes INT8 only"));
}

TEST_CASE("a quantized NHWC TensorFlow network runs close to its float model", "[tf][quant]") {
  tf::GraphDef g;
  Placeholder(g, "image", {1, 10, 10, 3});
  Conv(g, "conv", "Conv2D", "image", {3, 3, 3, 8});
  Add(g, "relu", "Relu", {"conv"});
  Conv(g, "depthwise", "DepthwiseConv2dNative", "relu", {3, 3, 8, 1});
  Pool(g, "avg", "AvgPool", "depthwise");
  Pool(g, "max", "MaxPool", "avg");
  Const(g, "flat/shape", IntTensor({2}, {1, 32}));
  Add(g, "flat", "Reshape", {"max", "flat/shape"});
  Const(g, "w", FloatTensor({32, 6}, test::RandomVector(32 * 6, 14)));
  MatMul(g, "logits", "flat", "w");
  const std::unique_ptr<Graph> graph = ImportTensorFlowFile(WriteGraph(g, "tf_quant_network"));

  auto image = [](uint32_t seed) {
    Tensor t = Tensor::FromVector(DataType::kFloat, Shape({1, 10, 10, 3}), test::RandomVector(300, seed));
    return t;
  };
  QuantizeOptions options;
  for (uint32_t seed = 20; seed < 24; ++seed) options.calibration_batches.push_back({image(seed)});
  options.config_path = (test::TempDir("tf_quant_config") / "config.txt").string();
  std::ofstream(options.config_path) << "batch_num: 4\n";
  const QuantizeResult result = Quantize(*graph, options);
  for (const QuantizedLayer& layer : result.layers) {
    INFO(layer.layer << ": " << layer.decision);
    CHECK(layer.decision == "INT8");
  }
  REQUIRE(result.layers.size() == 5);

  // The NHWC convolutions fold their dequant into the fused int8 convolution, as NCHW ones do.
  size_t fused = 0, dequants = 0;
  for (const Node* node : result.graph->nodes()) {
    fused += node->op_type() == "QuantConv2D";
    dequants += node->op_type() == "AscendDequant";
  }
  CHECK(fused == 2);
  CHECK(dequants == 1);  // the product's
  // On an input calibration never saw: the quantized model against the float one.
  const auto quantized = CompiledModel::Compile(result.graph->Clone());
  const auto float_model = CompiledModel::Compile(graph->Clone());
  const Tensor x = image(99);
  const Tensor q = quantized->Run({x}).at(0), f = float_model->Run({x}).at(0);
  REQUIRE(q.shape() == Shape({1, 6}));
  CHECK(test::Cosine({q}, {f}) > 0.99);
}
