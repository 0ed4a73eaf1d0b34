// The TensorFlow import on GraphDefs written here: a small NHWC network
// (a SAME-padded strided _FusedConv2D with BiasAdd and Relu6, a depthwise
// convolution, a SAME max pool, Mean over the spatial axes, a _FusedMatMul
// with BiasAdd, Softmax) against a float64 reference computed in loops, in
// all three forms (.pb, .pbtxt, TensorFlow.js model.json with a uint8- and a
// float16-quantized weight, and that model frozen into a .pb); and the errors
// for what it cannot read.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>

#include "ge/compiled_model.h"
#include "ge/error.h"
#include "ge/tf_importer.h"
#include "graph/half_float_bits.h"
#include "graph/tf/proto/tf_graph.pb.h"
#include "graph/tf/tf_freeze.h"
#include "test_support.h"
#include "tf_graph_writer.h"

using namespace ge;
using ge::test::TempDir;
using namespace ge::test::tf_writer;
namespace fs = std::filesystem;

namespace {

// Weights of the network, in TensorFlow's layouts.
struct Net {
  static constexpr int64_t kH = 9, kW = 7, kC = 3, kF = 4, kM = 2, kClasses = 5;
  std::vector<float> filter = test::RandomVector(3 * 3 * kC * kF, 1);  // [3, 3, C, F]
  std::vector<float> bias = test::RandomVector(kF, 2);
  std::vector<float> depthwise = test::RandomVector(3 * 3 * kF * kM, 3);  // [3, 3, F, M]
  std::vector<float> weights = test::RandomVector(kF * kM * kClasses, 4);  // [F*M, classes]
  std::vector<float> dense_bias = test::RandomVector(kClasses, 5);

  tf::GraphDef Graph() const {
    tf::GraphDef g;
    tf::NodeDef& x = Add(g, "x", "Placeholder", {});
    (*x.mutable_attr())["dtype"].set_type(tf::DT_FLOAT);
    for (int64_t d : {int64_t{-1}, kH, kW, kC}) (*x.mutable_attr())["shape"].mutable_shape()->add_dim()->set_size(d);
    Const(g, "conv/filter", FloatTensor({3, 3, kC, kF}, filter));
    Const(g, "conv/bias", FloatTensor({kF}, bias));
    tf::NodeDef& conv = Add(g, "conv", "_FusedConv2D", {"x", "conv/filter", "conv/bias"});
    Ints(conv, "strides", {1, 2, 2, 1});
    (*conv.mutable_attr())["padding"].set_s("SAME");
    for (const char* op : {"BiasAdd", "Relu6"}) (*conv.mutable_attr())["fused_ops"].mutable_list()->add_s(op);
    Const(g, "dw/filter", FloatTensor({3, 3, kF, kM}, depthwise));
    tf::NodeDef& dw = Add(g, "dw", "DepthwiseConv2dNative", {"conv", "dw/filter"});
    Ints(dw, "strides", {1, 1, 1, 1});
    (*dw.mutable_attr())["padding"].set_s("SAME");
    tf::NodeDef& pool = Add(g, "pool", "MaxPool", {"dw"});
    Ints(pool, "ksize", {1, 2, 2, 1});
    Ints(pool, "strides", {1, 2, 2, 1});
    (*pool.mutable_attr())["padding"].set_s("SAME");
    Const(g, "mean/axes", IntTensor({2}, {1, 2}));
    Add(g, "mean", "Mean", {"pool", "mean/axes"});
    Const(g, "dense/weights", FloatTensor({kF * kM, kClasses}, weights));
    Const(g, "dense/bias", FloatTensor({kClasses}, dense_bias));
    tf::NodeDef& dense = Add(g, "dense", "_FusedMatMul", {"mean", "dense/weights", "dense/bias"});
    (*dense.mutable_attr())["fused_ops"].mutable_list()->add_s("BiasAdd");
    Add(g, "probabilities", "Softmax", {"dense"});
    Add(g, "Identity", "Identity", {"probabilities"});
    return g;
  }

  // The network in float64 loops, x [1, H, W, C] NHWC.
  std::vector<double> Reference(const std::vector<float>& x) const {
    // SAME, stride 2: out = ceil(in / 2), pad_total = max((out - 1) * 2 + 3 - in, 0), before = total / 2.
    auto conv_out = [](int64_t in, int64_t stride) { return (in + stride - 1) / stride; };
    const int64_t h1 = conv_out(kH, 2), w1 = conv_out(kW, 2);
    const int64_t ph = std::max<int64_t>((h1 - 1) * 2 + 3 - kH, 0) / 2, pw = std::max<int64_t>((w1 - 1) * 2 + 3 - kW, 0) / 2;
    std::vector<double> a(h1 * w1 * kF);
    for (int64_t y = 0; y < h1; ++y)
      for (int64_t xx = 0; xx < w1; ++xx)
        for (int64_t f = 0; f < kF; ++f) {
          double s = bias[f];
          for (int64_t ky = 0; ky < 3; ++ky)
            for (int64_t kx = 0; kx < 3; ++kx)
              for (int64_t c = 0; c < kC; ++c) {
                const int64_t iy = y * 2 + ky - ph, ix = xx * 2 + kx - pw;
                if (iy < 0 || iy >= kH || ix < 0 || ix >= kW) continue;
                s += double(x[(iy * kW + ix) * kC + c]) * filter[((ky * 3 + kx) * kC + c) * kF + f];
              }
          a[(y * w1 + xx) * kF + f] = std::min(std::max(s, 0.0), 6.0);
        }
    // Depthwise SAME stride 1: pad 1 on each side.
    std::vector<double> b(h1 * w1 * kF * kM);
    for (int64_t y = 0; y < h1; ++y)
      for (int64_t xx = 0; xx < w1; ++xx)
        for (int64_t c = 0; c < kF; ++c)
          for (int64_t m = 0; m < kM; ++m) {
            double s = 0;
            for (int64_t ky = 0; ky < 3; ++ky)
              for (int64_t kx = 0; kx < 3; ++kx) {
                const int64_t iy = y + ky - 1, ix = xx + kx - 1;
                if (iy < 0 || iy >= h1 || ix < 0 || ix >= w1) continue;
                s += a[(iy * w1 + ix) * kF + c] * depthwise[((ky * 3 + kx) * kF + c) * kM + m];
              }
            b[(y * w1 + xx) * kF * kM + c * kM + m] = s;
          }
    // Max pool 2x2 stride 2 SAME (padding never wins), then the mean over the pooled cells.
    const int64_t h2 = conv_out(h1, 2), w2 = conv_out(w1, 2);
    std::vector<double> mean(kF * kM, 0.0);
    for (int64_t y = 0; y < h2; ++y)
      for (int64_t xx = 0; xx < w2; ++xx)
        for (int64_t k = 0; k < kF * kM; ++k) {
          double best = -INFINITY;
          for (int64_t dy = 0; dy < 2; ++dy)
            for (int64_t dx = 0; dx < 2; ++dx) {
              const int64_t iy = y * 2 + dy, ix = xx * 2 + dx;  // SAME adds its padding after the last row
              if (iy < h1 && ix < w1) best = std::max(best, b[(iy * w1 + ix) * kF * kM + k]);
            }
          mean[k] += best / double(h2 * w2);
        }
    std::vector<double> logits(kClasses);
    double total = 0;
    for (int64_t j = 0; j < kClasses; ++j) {
      double s = dense_bias[j];
      for (int64_t k = 0; k < kF * kM; ++k) s += mean[k] * weights[k * kClasses + j];
      logits[j] = s;
    }
    const double top = *std::max_element(logits.begin(), logits.end());
    for (double& l : logits) total += (l = std::exp(l - top));
    for (double& l : logits) l /= total;
    return logits;
  }
};

void Write(const fs::path& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

// Runs the imported model on x [1, H, W, C] and checks it against the reference.
void CheckRuns(const std::string& path, const Net& net, double tolerance) {
  const auto model = CompiledModel::Compile(ImportTensorFlowFile(path));
  REQUIRE(model->outputs().size() == 1);
  CHECK(model->outputs()[0].name == "Identity");
  const std::vector<float> x = test::RandomVector(Net::kH * Net::kW * Net::kC, 9);
  Tensor input(DataType::kFloat, Shape({1, Net::kH, Net::kW, Net::kC}));
  std::copy(x.begin(), x.end(), static_cast<float*>(input.data()));
  const std::vector<Tensor> out = model->Run({input});
  const std::vector<double> expected = net.Reference(x);
  REQUIRE(out[0].shape() == Shape({1, Net::kClasses}));
  for (int64_t j = 0; j < Net::kClasses; ++j) {
    CHECK(static_cast<const float*>(out[0].data())[j] == Approx(expected[j]).margin(tolerance));
  }
}

}  // namespace

TEST_CASE("a frozen GraphDef (.pb and .pbtxt) imports and matches a float64 reference", "[tf]") {
  const Net net;
  const tf::GraphDef graph = net.Graph();
  const fs::path dir = TempDir("graphdef");
  Write(dir / "net.pb", graph.SerializeAsString());
  std::string text;
  google::protobuf::TextFormat::PrintToString(graph, &text);
  Write(dir / "net.pbtxt", text);
  CheckRuns((dir / "net.pb").string(), net, 1e-5);
  CheckRuns((dir / "net.pbtxt").string(), net, 1e-5);
}

TEST_CASE("a TensorFlow.js model.json imports with its weight shards, quantized ones dequantized", "[tf]") {
  Net net;
  // Quantized as TensorFlow.js stores them: the dense weights to uint8, the depthwise filter to float16.
  const float low = *std::min_element(net.weights.begin(), net.weights.end());
  const float high = *std::max_element(net.weights.begin(), net.weights.end());
  const float scale = (high - low) / 255.0f;
  std::string uint8_bytes, half_bytes;
  for (float& w : net.weights) {
    const auto q = static_cast<uint8_t>(std::lround((w - low) / scale));
    uint8_bytes.push_back(static_cast<char>(q));
    w = low + q * scale;  // the reference uses what the shard holds
  }
  for (float& w : net.depthwise) {
    const uint16_t h = FloatToHalfBits(w);
    half_bytes.append(reinterpret_cast<const char*>(&h), 2);
    w = HalfBitsToFloat(h);
  }
  tf::GraphDef graph = net.Graph();
  tf::TfjsModel model;
  tf::TfjsWeightGroup& group = *model.add_weights_manifest();
  std::string shard;
  for (tf::NodeDef& node : *graph.mutable_node()) {
    if (node.op() != "Const" || node.name() == "mean/axes") continue;
    tf::TfjsWeight& weight = *group.add_weights();
    weight.set_name(node.name());
    weight.set_dtype("float32");
    tf::TensorProto& value = *(*node.mutable_attr())["value"].mutable_tensor();
    for (const auto& dim : value.tensor_shape().dim()) weight.add_shape(dim.size());
    if (node.name() == "dense/weights") {
      weight.mutable_quantization()->set_dtype("uint8");
      weight.mutable_quantization()->set_scale(scale);
      weight.mutable_quantization()->set_min(low);
      shard += uint8_bytes;
    } else if (node.name() == "dw/filter") {
      weight.mutable_quantization()->set_dtype("float16");
      shard += half_bytes;
    } else {
      shard += value.tensor_content();
    }
    value.clear_tensor_content();  // TensorFlow.js keeps only dtype and shape in the topology
  }
  // Two shards, split inside a weight, read as one stream.
  const fs::path dir = TempDir("tfjs");
  group.add_paths("group1-shard1of2.bin");
  group.add_paths("group1-shard2of2.bin");
  Write(dir / "group1-shard1of2.bin", shard.substr(0, 100));
  Write(dir / "group1-shard2of2.bin", shard.substr(100));
  *model.mutable_model_topology() = graph;
  std::string json;
  REQUIRE(google::protobuf::util::MessageToJsonString(model, &json).ok());
  Write(dir / "model.json", json);
  CheckRuns((dir / "model.json").string(), net, 1e-5);
  // Frozen into a .pb (tools/tfjs_to_pb): the same network.
  Write(dir / "frozen.pb", tf_import::FreezeWeights(tf_import::ReadTfModel((dir / "model.json").string())).SerializeAsString());
  CheckRuns((dir / "frozen.pb").string(), net, 1e-5);

  SECTION("a missing shard is an error naming it") {
    fs::remove(dir / "group1-shard2of2.bin");
    CHECK_THROWS_WITH(ImportTensorFlowFile((dir / "model.json").string()),
                      Catch::Contains("group1-shard2of2.bin") && Catch::Contains("weight shard"));
  }
  SECTION("a short shard is an error naming the weight") {
    Write(dir / "group1-shard2of2.bin", shard.substr(100, 20));
    CHECK_THROWS_WITH(ImportTensorFlowFile((dir / "model.json").string()), Catch::Contains("needs"));
  }
  SECTION("a shard path leaving the model's folder is refused") {
    model.mutable_weights_manifest(0)->set_paths(1, "../elsewhere.bin");
    json.clear();
    REQUIRE(google::protobuf::util::MessageToJsonString(model, &json).ok());
    Write(dir / "model.json", json);
    CHECK_THROWS_WITH(ImportTensorFlowFile((dir / "model.json").string()), Catch::Contains("leaves the model's folder"));
  }
}

TEST_CASE("the TensorFlow import refuses what it cannot read with one clear error", "[tf]") {
  const fs::path dir = TempDir("errors");
  auto code_of = [](const std::string& path, const TfImportOptions& options = {}) {
    try {
      ImportTensorFlowFile(path, options);
    } catch (const Error& e) {
      return e.code();
    }
    return ErrorCode::kOk;
  };
  SECTION("unsupported ops are listed with their counts") {
    tf::GraphDef g = Net().Graph();
    Add(g, "a", "Cumprod", {"x"});
    Add(g, "b", "Cumprod", {"a"});
    Add(g, "c", "Erfinv", {"b"});
    Write(dir / "ops.pb", g.SerializeAsString());
    CHECK_THROWS_WITH(ImportTensorFlowFile((dir / "ops.pb").string()),
                      Catch::Contains("2 op types are not supported") && Catch::Contains("Cumprod (2), Erfinv (1)"));
  }
  SECTION("a truncated .pb") {
    const std::string bytes = Net().Graph().SerializeAsString();
    Write(dir / "cut.pb", bytes.substr(0, bytes.size() / 3));
    CHECK(code_of((dir / "cut.pb").string()) == ErrorCode::kInvalidModel);
  }
  SECTION("a model.json without a topology, or not JSON") {
    Write(dir / "empty.json", "{\"format\": \"graph-model\"}");
    CHECK_THROWS_WITH(ImportTensorFlowFile((dir / "empty.json").string()), Catch::Contains("no modelTopology"));
    Write(dir / "bad.json", "{\"modelTopology\": [1, 2");
    CHECK(code_of((dir / "bad.json").string()) == ErrorCode::kInvalidModel);
  }
  SECTION("a .pbtxt syntax error names the line") {
    Write(dir / "bad.pbtxt", "node {\n  name: \"x\"\n  op: Placeholder\n}\n");
    CHECK_THROWS_WITH(ImportTensorFlowFile((dir / "bad.pbtxt").string()), Catch::Contains("bad.pbtxt:3:"));
  }
  SECTION("an input no node makes, a missing file, a wrong input shape name") {
    tf::GraphDef g = Net().Graph();
    Add(g, "dangling", "Relu", {"nowhere:0"});
    Write(dir / "dangling.pb", g.SerializeAsString());
    CHECK_THROWS_WITH(ImportTensorFlowFile((dir / "dangling.pb").string()), Catch::Contains("'nowhere:0'"));
    CHECK(code_of((dir / "absent.pb").string()) == ErrorCode::kNotFound);
    Write(dir / "net.pb", Net().Graph().SerializeAsString());
    TfImportOptions options;
    options.input_shapes["images"] = Shape({1, 9, 7, 3});
    CHECK(code_of((dir / "net.pb").string(), options) == ErrorCode::kInvalidArgument);
  }
  SECTION("SAME padding over an unknown spatial dim asks for the input's shape") {
    tf::GraphDef g = Net().Graph();
    (*g.mutable_node(0)->mutable_attr())["shape"].mutable_shape()->mutable_dim(1)->set_size(-1);
    Write(dir / "unknown.pb", g.SerializeAsString());
    CHECK_THROWS_WITH(ImportTensorFlowFile((dir / "unknown.pb").string()), Catch::Contains("--input_shape"));
    TfImportOptions options;
    options.input_shapes["x"] = Shape({1, 9, 7, 3});
    CHECK(code_of((dir / "unknown.pb").string(), options) == ErrorCode::kOk);
  }
}

TEST_CASE("ResizeBilinear interpolates NHWC images as TensorFlow maps their coordinates", "[tf]") {
  const bool align_corners = GENERATE(false, true);
  constexpr int64_t kH = 3, kW = 4, kC = 5, kOutH = 5, kOutW = 7;
  tf::GraphDef g;
  tf::NodeDef& x = Add(g, "x", "Placeholder", {});
  (*x.mutable_attr())["dtype"].set_type(tf::DT_FLOAT);
  for (int64_t d : {int64_t{2}, kH, kW, kC}) (*x.mutable_attr())["shape"].mutable_shape()->add_dim()->set_size(d);
  Const(g, "size", IntTensor({2}, {kOutH, kOutW}));
  tf::NodeDef& resize = Add(g, "resize", "ResizeBilinear", {"x", "size"});
  (*resize.mutable_attr())[align_corners ? "align_corners" : "half_pixel_centers"].set_b(true);
  const fs::path dir = TempDir("resize");
  Write(dir / "resize.pb", g.SerializeAsString());
  const auto model = CompiledModel::Compile(ImportTensorFlowFile((dir / "resize.pb").string()));
  const std::vector<float> values = test::RandomVector(2 * kH * kW * kC, 11);
  Tensor input(DataType::kFloat, Shape({2, kH, kW, kC}));
  std::copy(values.begin(), values.end(), static_cast<float*>(input.data()));
  const Tensor out = model->Run({input})[0];
  REQUIRE(out.shape() == Shape({2, kOutH, kOutW, kC}));
  // TensorFlow's source coordinate, clamped neighbours, linear weights.
  auto source = [&](int64_t o, int64_t in, int64_t out_len) {
    return align_corners ? double(o) * double(in - 1) / double(out_len - 1)
                         : (double(o) + 0.5) * double(in) / double(out_len) - 0.5;
  };
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t oy = 0; oy < kOutH; ++oy)
      for (int64_t ox = 0; ox < kOutW; ++ox)
        for (int64_t c = 0; c < kC; ++c) {
          const double sy = std::max(source(oy, kH, kOutH), 0.0), sx = std::max(source(ox, kW, kOutW), 0.0);
          const int64_t y0 = int64_t(std::floor(sy)), x0 = int64_t(std::floor(sx));
          const int64_t y1 = std::min(y0 + 1, kH - 1), x1 = std::min(x0 + 1, kW - 1);
          const double fy = sy - double(y0), fx = sx - double(x0);
          auto at = [&](int64_t y, int64_t xx) { return double(values[((n * kH + y) * kW + xx) * kC + c]); };
          const double expected = (at(y0, x0) * (1 - fx) + at(y0, x1) * fx) * (1 - fy) +
                                  (at(y1, x0) * (1 - fx) + at(y1, x1) * fx) * fy;
          CHECK(static_cast<const float*>(out.data())[((n * kOutH + oy) * kOutW + ox) * kC + c] ==
                Approx(expected).margin(1e-6));
        }
}
