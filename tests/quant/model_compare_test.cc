// ActivationCapture (lib/quant/activation_capture.h) and ge::CompareModels /
// ge::ComparisonCsv (include/ge/compare.h) on small builder graphs whose
// values are worked out in double here.
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <vector>

#include <catch2/catch.hpp>

#include "ge/builder.h"
#include "ge/compare.h"
#include "ge/compiled_model.h"
#include "ge/quantize.h"
#include "quant/activation_capture.h"
#include "test_support.h"

namespace ge {
namespace {

using Catch::Matchers::Contains;

// x [1, 2, 3, 3] -> conv1 (1x1, 2 -> 3, bias) -> bn1 -> relu1 -> [scale: Mul by 1] -> conv2 (1x1, 3 -> 2) -> relu2.
constexpr int64_t kIn = 2, kMid = 3, kOut = 2, kSide = 3, kPixels = kSide * kSide;
constexpr float kBnEpsilon = 1e-3f;

const std::vector<float> kW1 = {0.5f, -1.0f, 1.5f, 0.25f, -0.75f, 2.0f};  // [3, 2]
const std::vector<float> kB1 = {0.1f, -0.2f, 0.3f};
const std::vector<float> kBnScale = {1.5f, 0.5f, 2.0f}, kBnOffset = {0.2f, -0.1f, 0.0f};
const std::vector<float> kBnMean = {0.3f, -0.4f, 0.1f}, kBnVariance = {0.8f, 1.2f, 0.5f};
const std::vector<float> kW2 = {1.0f, -0.5f, 0.75f, -0.25f, 1.25f, 0.5f};  // [2, 3]

struct GraphSpec {
  std::vector<float> w2 = kW2;
  bool with_extra_mul = false;  // a value the reference does not have
  std::string conv2_quant_layer;
  Shape input_shape{1, kIn, kSide, kSide};
};

Tensor Vec(std::vector<float> values, Shape shape) { return Tensor::FromVector(DataType::kFloat, shape, values); }

std::unique_ptr<Graph> MakeGraph(const GraphSpec& spec = {}) {
  GraphBuilder b("convbn");
  Value* x = b.Input("x", DataType::kFloat, spec.input_shape);
  Value* conv1 = b.Conv2D(x, b.Constant("w1", Vec(kW1, {kMid, kIn, 1, 1})), b.Constant("b1", Vec(kB1, {kMid})), {},
                          "conv1");
  Value* bn = b.Op("BatchNorm", {conv1, b.Constant("bn_scale", Vec(kBnScale, {kMid})),
                                 b.Constant("bn_offset", Vec(kBnOffset, {kMid})),
                                 b.Constant("bn_mean", Vec(kBnMean, {kMid})),
                                 b.Constant("bn_variance", Vec(kBnVariance, {kMid}))},
                   {{"epsilon", kBnEpsilon}}, 1, "bn1")[0];
  Value* hidden = b.Relu(bn, "relu1");
  if (spec.with_extra_mul) hidden = b.Mul(hidden, b.Constant("one", Vec({1.0f}, {1})), "extra");
  Value* conv2 = b.Conv2D(hidden, b.Constant("w2", Vec(spec.w2, {kOut, kMid, 1, 1})), nullptr, {}, "conv2");
  b.Output(b.Relu(conv2, "relu2"));
  std::unique_ptr<Graph> graph = b.Build();
  if (!spec.conv2_quant_layer.empty()) graph->FindNode("conv2")->attrs().Set("_quant_layer", spec.conv2_quant_layer);
  return graph;
}

Tensor Input() {
  std::vector<float> values(kIn * kPixels);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(std::sin(0.7 * static_cast<double>(i) + 0.3));
  return Vec(values, {1, kIn, kSide, kSide});
}

// The BatchNorm output by its formula, in double: [kMid][kPixels].
std::vector<double> ConvBnReference(const Tensor& input) {
  const float* x = input.data_as<float>();
  std::vector<double> out(kMid * kPixels);
  for (int64_t c = 0; c < kMid; ++c) {
    for (int64_t p = 0; p < kPixels; ++p) {
      double conv = kB1[c];
      for (int64_t ci = 0; ci < kIn; ++ci) conv += double{kW1[c * kIn + ci]} * x[ci * kPixels + p];
      out[c * kPixels + p] =
          (conv - kBnMean[c]) / std::sqrt(double{kBnVariance[c]} + kBnEpsilon) * kBnScale[c] + kBnOffset[c];
    }
  }
  return out;
}

std::vector<double> Doubles(const Tensor& t) {
  REQUIRE(t.dtype() == DataType::kFloat);
  return {t.data_as<float>(), t.data_as<float>() + t.num_elements()};
}

// A captured graph output against the plain run's: a capture keeps its
// values in the plain layout, so a convolution may run a different oneDNN
// kernel than in the plain run (on AVX2 it does), whose summation order
// differs in the last bits.
void CheckSameOutput(const Tensor& captured, const Tensor& plain) {
  const std::vector<double> got = Doubles(captured), want = Doubles(plain);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).epsilon(1e-6).margin(1e-7));
}

std::vector<std::string> Names(const std::vector<TensorInfo>& infos) {
  std::vector<std::string> names;
  for (const TensorInfo& info : infos) names.push_back(info.name);
  return names;
}

TEST_CASE("activation capture: Conv+BatchNorm+Relu captures the folded values under their names") {
  const std::unique_ptr<Graph> graph = MakeGraph();
  const quant::ActivationCapture capture(*graph);
  // BatchNorm folding leaves one Conv2D "conv1_bn"; nothing is captured twice and no Const appears.
  const std::vector<std::string> names = Names(capture.values());
  CHECK(names == std::vector<std::string>{"x", "conv1_bn", "relu1", "conv2", "relu2"});
  for (const Node* node : capture.graph().nodes()) CHECK(node->op_type() != "BatchNorm");

  const Tensor input = Input();
  const std::vector<Tensor> values = capture.Run({input});
  REQUIRE(values.size() == names.size());
  CHECK(Doubles(values[0]) == Doubles(input));
  const std::vector<double> bn = ConvBnReference(input);
  const std::vector<double> got_bn = Doubles(values[1]);
  REQUIRE(got_bn.size() == bn.size());
  for (size_t i = 0; i < bn.size(); ++i) CHECK(got_bn[i] == Approx(bn[i]).margin(1e-5));
  const std::vector<double> relu = Doubles(values[2]);
  for (size_t i = 0; i < bn.size(); ++i) CHECK(relu[i] == Approx(std::max(bn[i], 0.0)).margin(1e-5));
  // The last value is the graph output, the plain run's to rounding.
  const std::vector<Tensor> plain = CompiledModel::Compile(graph->Clone())->Run({input});
  CheckSameOutput(values[4], plain[0]);
  const quant::ActivationCapture::Captured both = capture.RunWithOutputs({input});
  REQUIRE(both.outputs.size() == 1);
  CheckSameOutput(both.outputs[0], plain[0]);
}

TEST_CASE("activation capture: named values only, in the order asked") {
  const std::unique_ptr<Graph> graph = MakeGraph();
  const quant::ActivationCapture capture(*graph, std::vector<std::string>{"relu1", "x"});
  CHECK(Names(capture.values()) == std::vector<std::string>{"relu1", "x"});
  const Tensor input = Input();
  const std::vector<Tensor> values = capture.Run({input});
  REQUIRE(values.size() == 2);
  const std::vector<double> bn = ConvBnReference(input);
  const std::vector<double> relu = Doubles(values[0]);
  for (size_t i = 0; i < bn.size(); ++i) CHECK(relu[i] == Approx(std::max(bn[i], 0.0)).margin(1e-5));
  CHECK(Doubles(values[1]) == Doubles(input));

  // A graph output, asked for twice, comes back twice from the output's own slot.
  const quant::ActivationCapture outputs(*graph, std::vector<std::string>{"relu2", "relu1", "relu2"});
  const std::vector<Tensor> output_values = outputs.Run({input});
  const std::vector<Tensor> plain = CompiledModel::Compile(graph->Clone())->Run({input});
  REQUIRE(output_values.size() == 3);
  CheckSameOutput(output_values[0], plain[0]);
  CheckSameOutput(output_values[2], plain[0]);

  const auto [code, message] =
      test::ErrorOf([&] { quant::ActivationCapture(*graph, std::vector<std::string>{"bn1"}); });
  CHECK(code == ErrorCode::kNotFound);
  CHECK_THAT(message, Contains("'bn1'") && Contains("conv1_bn") && Contains("relu1"));
  // Constants are not capturable values.
  CHECK(test::ErrorCodeOf([&] { quant::ActivationCapture(*graph, std::vector<std::string>{"w2"}); }) ==
        ErrorCode::kNotFound);
}

const LayerComparison& Row(const ModelComparison& comparison, const std::string& value_name) {
  for (const LayerComparison& row : comparison.layers) {
    if (row.value_name == value_name) return row;
  }
  FAIL("no row for " << value_name);
  throw std::logic_error("unreachable");
}

std::vector<std::string> RowNames(const ModelComparison& comparison) {
  std::vector<std::string> names;
  for (const LayerComparison& row : comparison.layers) names.push_back(row.value_name);
  return names;
}

TEST_CASE("compare models: a model against itself") {
  const std::unique_ptr<Graph> graph = MakeGraph();
  const ModelComparison comparison = CompareModels(*graph, *graph, {Input()});
  CHECK(RowNames(comparison) == std::vector<std::string>{"conv1_bn", "relu1", "conv2", "relu2"});
  for (const LayerComparison& row : comparison.layers) {
    CAPTURE(row.value_name);
    CHECK(row.metrics.cosine == Approx(1.0).epsilon(1e-12));
    CHECK(row.metrics.max_abs_error == 0);
    CHECK(row.metrics.relative_euclidean_distance == 0);
    CHECK(row.metrics.kl_divergence == 0);
    CHECK_FALSE(row.below_threshold);
    CHECK(row.op_name == row.ground_truth);
    CHECK(row.dtype == DataType::kFloat);
  }
  CHECK(Row(comparison, "conv2").op_type == "Conv2D");
  CHECK(Row(comparison, "conv2").shape == Shape{1, kOut, kSide, kSide});
  // Rows follow the execution order.
  CHECK(Row(comparison, "relu1").op_sequence < Row(comparison, "conv2").op_sequence);
  REQUIRE(comparison.outputs.size() == 1);
  CHECK(comparison.outputs[0].name == "relu2");
  CHECK(comparison.output_cosine == Approx(1.0).epsilon(1e-12));
  CHECK(comparison.layers_below_threshold == 0);
}

TEST_CASE("compare models: a compiled graph's NHWC values are compared in NCHW under their names") {
  const std::unique_ptr<Graph> graph = MakeGraph();
  // On the CPU the convolutions run in NHWC: their values are renamed "<name>/nhwc" and permuted.
  const auto compiled = CompiledModel::Compile(graph->Clone());
  bool renamed = false;
  for (const Node* node : compiled->graph().nodes()) {
    for (const Value* output : node->outputs()) renamed = renamed || output->name().ends_with("/nhwc");
  }
  REQUIRE(renamed);
  const ModelComparison comparison = CompareModels(*graph, compiled->graph(), {Input()});
  // relu1 is the fused conv1 + bn1 + relu1 in NHWC; relu2 (conv2 + relu2) is the output, back in NCHW.
  const LayerComparison& relu1 = Row(comparison, "relu1/nhwc");
  CHECK(relu1.ground_truth == "relu1");
  CHECK(relu1.shape == Shape{1, kMid, kSide, kSide});
  for (const LayerComparison& row : comparison.layers) {
    CAPTURE(row.value_name);
    CHECK(row.metrics.cosine == Approx(1.0).epsilon(1e-6));
    CHECK(row.metrics.max_abs_error < 1e-5);
    CHECK(row.value_name != "x/nhwc");  // the input's transpose: the same tensor on both sides
  }
  CHECK(comparison.output_cosine == Approx(1.0).epsilon(1e-6));
}

TEST_CASE("compare models: a perturbed weight changes only the rows downstream of it") {
  const std::unique_ptr<Graph> reference = MakeGraph();
  GraphSpec doubled;
  for (float& w : doubled.w2) w *= 2;
  const ModelComparison comparison = CompareModels(*reference, *MakeGraph(doubled), {Input()});
  for (const char* name : {"conv1_bn", "relu1"}) {
    CAPTURE(name);
    CHECK(Row(comparison, name).metrics.max_abs_error == 0);
  }
  // Doubling w2 doubles conv2 (x = 2y): cosine 1, RED = ‖2y − y‖/‖y‖ = 1, every |x/y − 1| = 1, mean doubles.
  for (const char* name : {"conv2", "relu2"}) {
    CAPTURE(name);
    const CompareMetrics& m = Row(comparison, name).metrics;
    CHECK(m.cosine == Approx(1.0).epsilon(1e-12));
    CHECK(m.relative_euclidean_distance == Approx(1.0).epsilon(1e-12));
    CHECK(m.max_relative_error == Approx(1.0).epsilon(1e-12));
    CHECK(m.mean_mine == Approx(2 * m.mean_truth).epsilon(1e-12));
    CHECK(m.max_abs_error > 0);
  }
  // conv2 has no zero elements, so the mean relative error is 1 as well.
  CHECK(Row(comparison, "conv2").metrics.mean_relative_error == Approx(1.0).epsilon(1e-12));

  GraphSpec negated;
  for (float& w : negated.w2) w = -w;
  const ModelComparison flipped = CompareModels(*reference, *MakeGraph(negated), {Input()});
  const LayerComparison& conv2 = Row(flipped, "conv2");
  CHECK(conv2.metrics.cosine == Approx(-1.0).epsilon(1e-12));
  CHECK(conv2.below_threshold);
  CHECK_FALSE(Row(flipped, "relu1").below_threshold);
  CHECK(flipped.layers_below_threshold >= 1);
  CHECK(flipped.output_cosine < 0.99);
}

TEST_CASE("compare models: values without a counterpart are skipped and quant layers are named") {
  GraphSpec spec;
  spec.with_extra_mul = true;
  spec.conv2_quant_layer = "conv2";
  const ModelComparison comparison = CompareModels(*MakeGraph(), *MakeGraph(spec), {Input()});
  CHECK(RowNames(comparison) == std::vector<std::string>{"conv1_bn", "relu1", "conv2", "relu2"});
  CHECK(Row(comparison, "conv2").quant_layer == "conv2");
  CHECK(Row(comparison, "relu2").quant_layer.empty());
  CHECK(Row(comparison, "conv2").metrics.max_abs_error == 0);  // multiplying by one changes nothing
}

TEST_CASE("compare models: mismatched inputs are errors naming the input") {
  const std::unique_ptr<Graph> reference = MakeGraph();
  GraphSpec bigger;
  bigger.input_shape = Shape{2, kIn, kSide, kSide};
  const auto [code, message] = test::ErrorOf([&] { CompareModels(*reference, *MakeGraph(bigger), {Input()}); });
  CHECK(code == ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Contains("'x'") && Contains("[1,2,3,3]") && Contains("[2,2,3,3]"));

  GraphBuilder b("two_inputs");
  Value* x = b.Input("x", DataType::kFloat, {1, kIn, kSide, kSide});
  b.Output(b.Add(x, b.Input("y", DataType::kFloat, {1, kIn, kSide, kSide})));
  const auto [count_code, count_message] = test::ErrorOf([&] { CompareModels(*reference, *b.Build(), {Input()}); });
  CHECK(count_code == ErrorCode::kInvalidArgument);
  CHECK_THAT(count_message, Contains("1 inputs") && Contains("2"));

  CHECK(test::ErrorCodeOf([&] { CompareModels(*reference, *reference, {}); }) == ErrorCode::kInvalidArgument);
}

TEST_CASE("compare models: mismatched outputs are errors naming the output") {
  auto make = [](bool pooled, bool two_outputs) {
    GraphBuilder b("outputs");
    Value* x = b.Input("x", DataType::kFloat, {1, kIn, kSide, kSide});
    Value* relu = b.Relu(x, "relu");
    std::vector<Value*> outputs = {pooled ? b.MaxPool(relu, {{kSide, kSide}, {1, 1}}, "pool") : relu};
    if (two_outputs) outputs.push_back(b.Sigmoid(x, "sigmoid"));
    b.Outputs(outputs);
    return b.Build();
  };
  const std::unique_ptr<Graph> reference = make(false, false);
  const auto [code, message] = test::ErrorOf([&] { CompareModels(*reference, *make(true, false), {Input()}); });
  CHECK(code == ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Contains("'pool'") && Contains("[1,2,1,1]") && Contains("'relu'"));
  const auto [count_code, count_message] =
      test::ErrorOf([&] { CompareModels(*reference, *make(false, true), {Input()}); });
  CHECK(count_code == ErrorCode::kInvalidArgument);
  CHECK_THAT(count_message, Contains("1 outputs") && Contains("has 2"));
}

TEST_CASE("compare models: the float output of a quantized layer pairs with the float layer") {
  const std::unique_ptr<Graph> float_graph = MakeGraph();
  QuantizeOptions options;
  options.calibration_batches = {{Input()}};
  options.requant_fusion = false;  // keep every quantized layer's float output visible
  const QuantizeResult quantized = Quantize(*float_graph, options);
  const ModelComparison comparison = CompareModels(*float_graph, *quantized.graph, {Input()});
  CHECK(RowNames(comparison) == std::vector<std::string>{"conv1_bn", "relu1", "conv2", "relu2"});
  for (const LayerComparison& row : comparison.layers) {
    CAPTURE(row.value_name, row.op_type, row.quant_layer);
    CHECK(row.dtype == DataType::kFloat);  // integer intermediates have no float counterpart
    CHECK(row.metrics.cosine > 0.9);
  }
  const LayerComparison& conv2 = Row(comparison, "conv2");
  CHECK(conv2.op_type == "AscendDequant");
  CHECK(conv2.quant_layer == "conv2");
  CHECK(conv2.ground_truth == "conv2");
  CHECK(conv2.metrics.max_abs_error > 0);  // int8 arithmetic is not exact
}

std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

TEST_CASE("compare models: CSV in msaccucmp's column order") {
  GraphSpec doubled;
  for (float& w : doubled.w2) w *= 2;
  const ModelComparison comparison = CompareModels(*MakeGraph(), *MakeGraph(doubled), {Input()});
  std::istringstream csv(ComparisonCsv(comparison));
  std::string line;
  std::getline(csv, line);
  CHECK(line ==
        "Index,OpSequence,OpType,NPUDump,DataType,Address,GroundTruth,DataType,TensorIndex,Shape,CosineSimilarity,"
        "MaxAbsoluteError,AccumulatedRelativeError,RelativeEuclideanDistance,KullbackLeiblerDivergence,"
        "StandardDeviation,MeanAbsoluteError,RootMeanSquareError,MaxRelativeError,MeanRelativeError,"
        "CompareFailReason");
  std::vector<std::vector<std::string>> rows;
  while (std::getline(csv, line)) rows.push_back(SplitCsvLine(line));
  REQUIRE(rows.size() == comparison.layers.size());
  const std::vector<std::string>& conv2 = rows[2];
  REQUIRE(conv2.size() == 21);
  CHECK(conv2[0] == "2");
  CHECK(conv2[2] == "Conv2D");
  CHECK(conv2[3] == "conv2");
  CHECK(conv2[4] == "float32");
  CHECK(conv2[5] == "NaN");
  CHECK(conv2[6] == "conv2");
  CHECK(conv2[8] == "0");
  CHECK(conv2[9] == "[1,2,3,3]");
  CHECK(std::stod(conv2[13]) == Approx(1.0).epsilon(1e-12));  // RelativeEuclideanDistance
  CHECK(std::stod(conv2[13]) == comparison.layers[2].metrics.relative_euclidean_distance);
  CHECK(conv2[15].front() == '(');  // "(mean;std),(mean;std)", quoted for its comma
  CHECK(conv2[20].empty());
}

}  // namespace
}  // namespace ge
