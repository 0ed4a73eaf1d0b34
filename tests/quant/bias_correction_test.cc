// Bias correction against its definition: on the calibration batch itself,
// a quantized product's per-channel output mean equals the float layer's
// (the correction is that very difference, E[W x] - E[Wq xq]), up to the
// int32 bias's rounding; without it the means differ by the quantization's
// mean shift. And the config switch, the record round trip and the report note.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "ge/quantize.h"
#include "quant/quant_record.h"
#include "test_support.h"

using namespace ge;

namespace {

constexpr int64_t kRows = 64, kK = 16, kN = 4;

// y = x W + b, x of a non-zero mean (so that a shifted weight shifts the output).
std::unique_ptr<Graph> Product() {
  GraphBuilder b("product");
  Value* x = b.Input("x", DataType::kFloat, {kRows, kK});
  Tensor w = test::RandomFloats(Shape({kK, kN}), 3, -1.0f, 1.0f);
  Tensor bias = test::RandomFloats(Shape({kN}), 4, -0.5f, 0.5f);
  b.Output(b.MatMul(x, b.Constant("w", w), b.Constant("b", bias), false, false, "fc"));
  return b.Build();
}

// The largest per-channel |mean(quantized) - mean(float)| on `x`.
double MeanShift(const Graph& quantized, const Graph& float_graph, const Tensor& x) {
  const Tensor q = CompiledModel::Compile(quantized.Clone())->Run({x}).at(0);
  const Tensor f = CompiledModel::Compile(float_graph.Clone())->Run({x}).at(0);
  double worst = 0;
  for (int64_t n = 0; n < kN; ++n) {
    double shift = 0;
    for (int64_t r = 0; r < kRows; ++r) shift += q.data_as<float>()[r * kN + n] - f.data_as<float>()[r * kN + n];
    worst = std::max(worst, std::fabs(shift / kRows));
  }
  return worst;
}

}  // namespace

TEST_CASE("bias correction keeps a quantized layer's output mean", "[quant][bias_correction]") {
  const std::unique_ptr<Graph> graph = Product();
  const Tensor x = test::RandomFloats(Shape({kRows, kK}), 5, -0.2f, 1.0f);
  const auto dir = test::TempDir("bias_correction");
  QuantizeOptions options;
  options.calibration_batches = {{x}};
  options.config_path = (dir / "plain.txt").string();
  std::ofstream(options.config_path) << "common_config { }\n";
  const QuantizeResult plain = Quantize(*graph, options);
  options.config_path = (dir / "corrected.txt").string();
  std::ofstream(options.config_path) << "common_config { bias_correction: true }\n";
  options.record_out = (dir / "record.txt").string();
  const QuantizeResult corrected = Quantize(*graph, options);

  const double before = MeanShift(*plain.graph, *graph, x), after = MeanShift(*corrected.graph, *graph, x);
  INFO("mean shift without correction " << before << ", with " << after);
  CHECK(before > 1e-5);
  CHECK(after < before / 10);
  CHECK(plain.layers.at(0).notes.empty() == false);  // the Gemm's one-scale note
  bool noted = false;
  for (const std::string& note : corrected.layers.at(0).notes) noted |= note.rfind("bias correction:", 0) == 0;
  CHECK(noted);
  // The correction travels in the record and replays from it.
  const quant::QuantRecord record = quant::ReadQuantRecord(options.record_out);
  REQUIRE(record.count("fc") == 1);
  CHECK(record.at("fc").bias_correction.size() == static_cast<size_t>(kN));
  QuantizeOptions replay;
  replay.record_in = options.record_out;
  replay.config_path = options.config_path;
  CHECK(MeanShift(*Quantize(*graph, replay).graph, *graph, x) == Approx(after).margin(1e-7));
}

TEST_CASE("bias correction on a grouped convolution keeps each output channel's mean", "[quant][bias_correction]") {
  // 1x1 (no padding, where the estimate is exact), 2 groups: output channel o reads its group's inputs.
  GraphBuilder b("conv");
  Value* x = b.Input("x", DataType::kFloat, {2, 4, 5, 5});
  Conv2DOptions conv;
  conv.groups = 2;
  b.Output(b.Conv2D(x, b.Constant("f", test::RandomFloats(Shape({6, 2, 1, 1}), 6, -1.0f, 1.0f)), nullptr, conv,
                    "conv"));
  const std::unique_ptr<Graph> graph = b.Build();
  const Tensor input = test::RandomFloats(Shape({2, 4, 5, 5}), 7, -0.1f, 1.0f);
  const auto dir = test::TempDir("bias_correction_conv");
  QuantizeOptions options;
  options.calibration_batches = {{input}};
  options.config_path = (dir / "corrected.txt").string();
  std::ofstream(options.config_path) << "common_config { bias_correction: true }\n";
  const QuantizeResult corrected = Quantize(*graph, options);
  options.config_path.clear();
  const QuantizeResult plain = Quantize(*graph, options);
  auto shift = [&](const Graph& quantized) {
    const Tensor q = CompiledModel::Compile(quantized.Clone())->Run({input}).at(0);
    const Tensor f = CompiledModel::Compile(graph->Clone())->Run({input}).at(0);
    double worst = 0;
    for (int64_t o = 0; o < 6; ++o) {
      double sum = 0;
      for (int64_t n = 0; n < 2; ++n)
        for (int64_t p = 0; p < 25; ++p) {
          const int64_t i = (n * 6 + o) * 25 + p;
          sum += q.data_as<float>()[i] - f.data_as<float>()[i];
        }
      worst = std::max(worst, std::fabs(sum / 50));
    }
    return worst;
  };
  const double before = shift(*plain.graph), after = shift(*corrected.graph);
  INFO("mean shift without correction " << before << ", with " << after);
  CHECK(before > 1e-5);
  CHECK(after < before / 10);
}
