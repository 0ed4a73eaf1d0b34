// The seed's Caffe table applied by quantization to imported nets: each rule
// on a layer that keeps it and one that breaks it (InnerProduct's transpose
// and axis, Deconvolution's dilation, Pooling's modes and global pooling,
// Eltwise's operation), the report naming the framework and the row; and a
// quantized net that runs close to its float model on a fresh input.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "caffe_net_writer.h"
#include "ge/caffe_importer.h"
#include "ge/compiled_model.h"
#include "ge/quantize.h"
#include "quant/layer_support.h"
#include "quant/quant_config.h"
#include "test_support.h"

using namespace ge;
using namespace ge::test::caffe_writer;
using ge::quant::QuantLayer;

namespace {

void Convolution(caffe::NetParameter& net, const std::string& name, const std::string& type, const std::string& bottom,
                 int64_t in, int64_t out, int64_t dilation) {
  caffe::LayerParameter& layer = Layer(net, name, type, {bottom}, name);
  caffe::ConvolutionParameter& p = *layer.mutable_convolution_param();
  p.set_num_output(static_cast<uint32_t>(out));
  p.add_kernel_size(3);
  p.add_pad(1);
  p.add_dilation(static_cast<uint32_t>(dilation));
  p.set_bias_term(false);
  const bool deconvolution = type == "Deconvolution";
  SetBlob(layer, {deconvolution ? in : out, deconvolution ? out : in, 3, 3}, test::RandomVector(in * out * 9, 31));
}

void Pooling(caffe::NetParameter& net, const std::string& name, const std::string& bottom,
             caffe::PoolingParameter::PoolMethod method, bool global) {
  caffe::PoolingParameter& p = *Layer(net, name, "Pooling", {bottom}, name).mutable_pooling_param();
  p.set_pool(method);
  p.set_global_pooling(global);
  if (!global) p.set_kernel_size(2), p.set_stride(2);
}

void InnerProduct(caffe::NetParameter& net, const std::string& name, const std::string& bottom, int64_t k,
                  bool transpose, int32_t axis) {
  caffe::LayerParameter& layer = Layer(net, name, "InnerProduct", {bottom}, name);
  caffe::InnerProductParameter& p = *layer.mutable_inner_product_param();
  p.set_num_output(3);
  p.set_transpose(transpose);
  p.set_axis(axis);
  SetBlob(layer, transpose ? std::vector<int64_t>{k, 3} : std::vector<int64_t>{3, k}, test::RandomVector(3 * k, 32));
  SetBlob(layer, {3}, {0.1f, -0.2f, 0.3f});
}

void Eltwise(caffe::NetParameter& net, const std::string& name, caffe::EltwiseParameter::EltwiseOp operation) {
  Layer(net, name, "Eltwise", {"conv", "conv"}, name).mutable_eltwise_param()->set_operation(operation);
}

// data [1, 3, 8, 8] -> conv [1, 4, 8, 8] -> deconv (dilation 2), global AVE,
// AVE 2x2 -> MAX 2x2 [1, 4, 2, 2] -> InnerProducts; Eltwise PROD, MAX, SUM of conv with itself.
caffe::NetParameter RulesNet() {
  caffe::NetParameter net;
  AddInput(net, {1, 3, 8, 8});
  Convolution(net, "conv", "Convolution", "data", 3, 4, 1);
  Convolution(net, "deconv", "Deconvolution", "conv", 4, 2, 2);
  Pooling(net, "global_ave", "conv", caffe::PoolingParameter::AVE, true);
  Pooling(net, "ave", "conv", caffe::PoolingParameter::AVE, false);
  Pooling(net, "max", "ave", caffe::PoolingParameter::MAX, false);
  InnerProduct(net, "ip", "max", 16, false, 1);
  InnerProduct(net, "ip_transposed", "max", 16, true, 1);
  InnerProduct(net, "ip_axis2", "max", 4, false, 2);
  Eltwise(net, "prod", caffe::EltwiseParameter::PROD);
  Eltwise(net, "emax", caffe::EltwiseParameter::MAX);
  Eltwise(net, "esum", caffe::EltwiseParameter::SUM);
  return net;
}

const QuantLayer& Find(const std::vector<QuantLayer>& layers, const std::string& name) {
  auto it = std::find_if(layers.begin(), layers.end(), [&](const QuantLayer& l) { return l.name == name; });
  REQUIRE(it != layers.end());
  return *it;
}

}  // namespace

TEST_CASE("quantization applies Caffe's table to an imported net", "[caffe][quant]") {
  const auto files = Save(RulesNet(), "caffe_quant_rules");
  const std::unique_ptr<Graph> graph = ImportCaffeFiles(files.first, files.second);
  const std::vector<QuantLayer> layers = quant::PlanQuantLayers(*graph, quant::QuantConfig());
  for (const QuantLayer& layer : layers) {
    INFO(layer.name);
    CHECK(layer.framework == "Caffe");
  }
  SECTION("Convolution, AVE and MAX pooling, InnerProduct keep their rows") {
    for (const auto& [name, op] : {std::pair{"conv", "Convolution"}, std::pair{"ave", "Pooling"},
                                   std::pair{"max", "Pooling"}, std::pair{"ip", "InnerProduct"}}) {
      const QuantLayer& layer = Find(layers, name);
      INFO(name << ": " << layer.Decision());
      CHECK(layer.quantize);
      CHECK(layer.framework_op == op);
      CHECK_THAT(layer.rule, Catch::StartsWith(std::string("Caffe ") + op + ": "));
    }
    CHECK(Find(layers, "max").kind == quant::QuantLayerKind::kTensorOnly);  // mode 0: tensor quantization only
  }
  SECTION("InnerProduct: transpose false and axis 1") {
    CHECK(Find(layers, "ip_transposed").reason == "Caffe InnerProduct transpose must be false (transpose = true)");
    CHECK(Find(layers, "ip_axis2#matmul").reason == "Caffe InnerProduct axis must be 1 (axis = 2)");
  }
  SECTION("Deconvolution: dilation 1") {
    CHECK(Find(layers, "deconv").reason == "Caffe Deconvolution dilation must be 1 (dilations = [1, 1, 2, 2])");
  }
  SECTION("Pooling mode 1 (AVE): not global") {
    CHECK(Find(layers, "global_ave").reason ==
          "Caffe Pooling mode 1 (AVE) needs global_pooling false (global_pooling = true)");
  }
  SECTION("Eltwise: operation 1 (SUM) only; PROD and MAX are listed, skipped") {
    CHECK(Find(layers, "prod").reason == "Caffe Eltwise operation must be 1 (SUM) (operation = 0, PROD)");
    CHECK(Find(layers, "emax").reason == "Caffe Eltwise operation must be 1 (SUM) (operation = 2, MAX)");
    CHECK(Find(layers, "prod").op_type == "Mul");
    // SUM keeps Caffe's row; ge quantizes one tensor input of an addition, as for Add.
    CHECK_THAT(Find(layers, "esum").reason, Catch::StartsWith("Add quantizes one tensor input only"));
  }
}

TEST_CASE("a quantized Caffe net runs close to its float model", "[caffe][quant]") {
  caffe::NetParameter net;
  AddInput(net, {1, 3, 8, 8});
  Convolution(net, "conv", "Convolution", "data", 3, 4, 1);
  Pooling(net, "ave", "conv", caffe::PoolingParameter::AVE, false);
  Pooling(net, "max", "ave", caffe::PoolingParameter::MAX, false);
  InnerProduct(net, "ip", "max", 16, false, 1);
  const auto files = Save(net, "caffe_quant_net");
  const std::unique_ptr<Graph> graph = ImportCaffeFiles(files.first, files.second);

  auto image = [](uint32_t seed) {
    return Tensor::FromVector(DataType::kFloat, Shape({1, 3, 8, 8}), test::RandomVector(192, seed));
  };
  QuantizeOptions options;
  for (uint32_t seed = 40; seed < 44; ++seed) options.calibration_batches.push_back({image(seed)});
  options.config_path = (test::TempDir("caffe_quant_config") / "config.txt").string();
  std::ofstream(options.config_path) << "batch_num: 4\n";
  const QuantizeResult result = Quantize(*graph, options);
  REQUIRE(result.layers.size() == 4);
  for (const QuantizedLayer& layer : result.layers) {
    INFO(layer.layer << ": " << layer.decision);
    CHECK(layer.decision == "INT8");
    CHECK(layer.framework == "Caffe");
  }
  CHECK(result.warnings.empty());
  // On Atlas A2 (as on A3 and IPV350) Caffe is no longer maintained: quantized all the same, with a warning.
  options.soc_version = "Ascend910B1";
  const QuantizeResult on_a2 = Quantize(*graph, options);
  REQUIRE(on_a2.warnings.size() == 1);
  CHECK_THAT(on_a2.warnings[0], Catch::StartsWith("Caffe is no longer maintained on Atlas A2"));
  // On inputs calibration never saw: the quantized net against the float one, over all their outputs.
  const auto quantized = CompiledModel::Compile(result.graph->Clone());
  const auto float_net = CompiledModel::Compile(graph->Clone());
  std::vector<Tensor> q, f;
  for (uint32_t seed = 50; seed < 54; ++seed) {
    q.push_back(quantized->Run({image(seed)}).at(0));
    f.push_back(float_net->Run({image(seed)}).at(0));
  }
  CHECK(test::Cosine(q, f) > 0.99);
}
