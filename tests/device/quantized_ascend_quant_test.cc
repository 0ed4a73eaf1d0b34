// AscendQuant, AscendDequant, AscendRequant and AscendAntiQuant against
// hand-computed values and float64 references of the documented formulas.
#include <catch2/catch.hpp>

#include <cmath>

#include "ge/error.h"
#include "quantized_test_support.h"

using namespace ge;
using namespace ge::test;

namespace {

double Saturate(double v, double lo, double hi) { return std::clamp(v, lo, hi); }

// y of the documented AscendDequant / AscendRequant formula for one word.
double ScaledReference(int64_t x, float scale, int shift) {
  if (shift == 0) return static_cast<double>(x) * scale;
  const double t = Saturate(std::floor(static_cast<double>(x) / std::pow(2.0, shift)), -32768, 32767);
  return t * scale * std::pow(2.0, shift);
}

Tensor Words(const std::vector<uint64_t>& words) {
  return Tensor::FromVector(DataType::kUInt64, Shape{static_cast<int64_t>(words.size())}, words);
}

}  // namespace

TEST_CASE("AscendQuant rounds half to even and saturates to int8 and int16", "[device][ascend_quant]") {
  const std::vector<float> values = {5.0f, 7.0f, -5.0f, -7.0f, 1000.0f, -1000.0f, 0.3f, 123456.0f, -123456.0f};
  Tensor x = Tensor::FromVector(DataType::kFloat, Shape{9}, values);
  SECTION("int8, scale 0.5: 2.5 -> 2, 3.5 -> 4, -2.5 -> -2, -3.5 -> -4, saturation") {
    Graph g;
    Node* node =
        AddQuantOp(g, "AscendQuant", {g.AddInput("x", DataType::kFloat, {9})}, DataType::kInt8, {9}, {{"scale", 0.5f}});
    CheckClose(RunCpuKernel(*node, {x})[0], {2, 4, -2, -4, 127, -128, 0, 127, -128}, 0, 0);
  }
  SECTION("int16 with offset and sqrt_mode: s = 0.25, +1.5") {
    Graph g;
    Node* node = AddQuantOp(g, "AscendQuant", {g.AddInput("x", DataType::kFloat, {9})}, DataType::kInt16, {9},
                            {{"scale", 0.5f}, {"offset", 1.5f}, {"sqrt_mode", true}, {"dst_type", int64_t{6}}});
    // 1.25+1.5=2.75, 1.75+1.5=3.25, -1.25+1.5=0.25, -1.75+1.5=-0.25, 251.5 -> 252 (even), -248.5 -> -248,
    // 1.575 -> 2, 30865.5 -> 30866, -30862.5 -> -30862.
    CheckClose(RunCpuKernel(*node, {x})[0], {3, 3, 0, -0.0, 252, -248, 2, 30866, -30862}, 0, 0);
    Tensor big = Tensor::FromVector(DataType::kFloat, Shape{9}, std::vector<float>(9, 1e6f));
    CheckClose(RunCpuKernel(*node, {big})[0], std::vector<double>(9, 32767), 0, 0);
  }
  SECTION("float16 x against the float64 formula on random data") {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-300.0f, 300.0f);
    Tensor half(DataType::kFloat16, Shape{64});
    std::vector<double> expected;
    for (int i = 0; i < 64; ++i) {
      const _Float16 v = static_cast<_Float16>(dist(rng));
      half.data_as<_Float16>()[i] = v;
      expected.push_back(Saturate(std::nearbyint(static_cast<double>(v) * 0.37f + -2.0f), -128, 127));
    }
    Graph g;
    Node* node = AddQuantOp(g, "AscendQuant", {g.AddInput("x", DataType::kFloat16, {64})}, DataType::kInt8, {64},
                            {{"scale", 0.37f}, {"offset", -2.0f}});
    CheckClose(RunCpuKernel(*node, {half})[0], expected, 0, 0);
  }
}

TEST_CASE("AscendQuant refuses other round modes and dst types listing the valid ones", "[device][ascend_quant]") {
  Graph g;
  Node* floor = AddQuantOp(g, "AscendQuant", {g.AddInput("x", DataType::kFloat, {2})}, DataType::kInt8, {2},
                           {{"scale", 1.0f}, {"round_mode", std::string("Floor")}});
  REQUIRE_THROWS_WITH(CreateCpuKernel(*floor),
                      Catch::Contains("AscendQuant_node") && Catch::Contains("round_mode") && Catch::Contains("Round"));
  Graph g2;
  Node* int32 = AddQuantOp(g2, "AscendQuant", {g2.AddInput("x", DataType::kFloat, {2})}, DataType::kInt32, {2},
                           {{"scale", 1.0f}, {"dst_type", int64_t{3}}});
  REQUIRE_THROWS_WITH(CreateCpuKernel(*int32),
                      Catch::Contains("dst_type") && Catch::Contains("2 (int8)") && Catch::Contains("6 (int16)"));
}

TEST_CASE("AscendDequant applies the packed scale with shifts per tensor and per channel", "[device][ascend_quant]") {
  SECTION("hand-computed: shift 3 floors before scaling, the int16 clip, relu") {
    Tensor x = Tensor::FromVector<int32_t>(DataType::kInt32, Shape{5}, {1000, -1001, 1 << 20, 7, -(1 << 20)});
    Graph g;
    Node* node = AddQuantOp(g, "AscendDequant",
                            {g.AddInput("x", DataType::kInt32, {5}), g.AddConstant("s", Words({PackScale(0.5f, 3)}))},
                            DataType::kFloat, {5});
    // floor(1000/8)=125 -> 500; floor(-1001/8)=-126 -> -504; 131072 -> 32767 -> 131068; 0; -32768 -> -131072.
    CheckClose(RunCpuKernel(*node, {x})[0], {500, -504, 131068, 0, -131072}, 0, 0);
    Graph g2;
    Node* relu =
        AddQuantOp(g2, "AscendDequant",
                   {g2.AddInput("x", DataType::kInt32, {5}), g2.AddConstant("s", Words({PackScale(0.25f, 0)}))},
                   DataType::kFloat, {5}, {{"relu_flag", true}});
    CheckClose(RunCpuKernel(*relu, {x})[0], {250, 0, 262144, 1.75, 0}, 0, 0);
  }
  SECTION("random per-channel words along axis 1 and along channel_axis -1, float32 and float16") {
    std::mt19937 rng(8);
    const Shape shape{2, 3, 4};
    Tensor x = RandomInts<int32_t>(DataType::kInt32, shape, rng, -3000000, 3000000);
    for (int64_t axis : {int64_t{1}, int64_t{-1}}) {
      const int64_t channels = axis == 1 ? 3 : 4;
      std::vector<uint64_t> words;
      std::vector<float> scales;
      std::vector<int> shifts;
      for (int64_t c = 0; c < channels; ++c) {
        scales.push_back(0.001f * static_cast<float>(c + 1) + 0.0003f);
        shifts.push_back(c % 2 == 0 ? 0 : static_cast<int>(c + 4));
        words.push_back(PackScale(scales.back(), shifts.back()));
      }
      std::vector<double> expected;
      for (int64_t i = 0; i < shape.NumElements(); ++i) {
        const int64_t c = Unravel(i, shape.dims())[axis == 1 ? 1 : 2];
        expected.push_back(static_cast<float>(ScaledReference(x.data_as<int32_t>()[i], scales[c], shifts[c])));
      }
      for (DataType out : {DataType::kFloat, DataType::kFloat16}) {
        Graph g;
        Node* node =
            AddQuantOp(g, "AscendDequant", {g.AddInput("x", DataType::kInt32, shape), g.AddConstant("s", Words(words))},
                       out, shape, {{"channel_axis", axis}, {"dtype", int64_t(out == DataType::kFloat ? 0 : 1)}});
        INFO("channel_axis " << axis << " " << DataTypeName(out));
        CheckClose(RunCpuKernel(*node, {x})[0], expected, out == DataType::kFloat ? 0 : 1e-3, 0);
      }
    }
  }
  SECTION("sqrt_mode squares the scale") {
    Tensor x = Tensor::FromVector<int32_t>(DataType::kInt32, Shape{2}, {100, -3});
    Graph g;
    Node* node = AddQuantOp(g, "AscendDequant",
                            {g.AddInput("x", DataType::kInt32, {2}), g.AddConstant("s", Words({PackScale(0.5f, 0)}))},
                            DataType::kFloat, {2}, {{"sqrt_mode", true}});
    CheckClose(RunCpuKernel(*node, {x})[0], {25, -0.75}, 0, 0);
  }
}

TEST_CASE("AscendDequant and AscendRequant refuse a deq_scale that is neither 1 nor C long", "[device][ascend_quant]") {
  for (const char* op : {"AscendDequant", "AscendRequant"}) {
    Graph g;
    Node* node = AddQuantOp(g, op, {g.AddInput("x", DataType::kInt32, {2, 3}), g.AddConstant("s", Words({1, 2}))},
                            std::string(op) == "AscendDequant" ? DataType::kFloat : DataType::kInt8, {2, 3});
    INFO(op);
    REQUIRE_THROWS_WITH(CreateCpuKernel(*node),
                        Catch::Contains(std::string(op) + "_node") && Catch::Contains("1 or C = 3"));
  }
}

TEST_CASE("AscendRequant rounds then adds the 9-bit offset and saturates to int8", "[device][ascend_quant]") {
  SECTION("hand-computed") {
    Tensor x = Tensor::FromVector<int32_t>(DataType::kInt32, Shape{6}, {5, 7, -5, 1000, -1000, -7});
    Graph g;
    Node* node =
        AddQuantOp(g, "AscendRequant",
                   {g.AddInput("x", DataType::kInt32, {6}), g.AddConstant("s", Words({PackScale(0.5f, 0, -5)}))},
                   DataType::kInt8, {6});
    // 2.5->2, 3.5->4, -2.5->-2, 500, -500, -3.5->-4; then -5 and saturation.
    CheckClose(RunCpuKernel(*node, {x})[0], {-3, -1, -7, 127, -128, -9}, 0, 0);
    Graph g2;
    Node* relu =
        AddQuantOp(g2, "AscendRequant",
                   {g2.AddInput("x", DataType::kInt32, {6}), g2.AddConstant("s", Words({PackScale(0.5f, 0, 255)}))},
                   DataType::kInt8, {6}, {{"relu_flag", true}});
    // Offset 255 as 9 bits is +255: relu(x*s) rounds then + 255 saturates.
    CheckClose(RunCpuKernel(*relu, {x})[0], {127, 127, 127, 127, 127, 127}, 0, 0);
    Graph g3;
    Node* relu_low =
        AddQuantOp(g3, "AscendRequant",
                   {g3.AddInput("x", DataType::kInt32, {6}), g3.AddConstant("s", Words({PackScale(0.5f, 0, -256)}))},
                   DataType::kInt8, {6}, {{"relu_flag", true}});
    CheckClose(RunCpuKernel(*relu_low, {x})[0], {-128, -128, -128, 127, -128, -128}, 0, 0);
  }
  SECTION("random per-channel words with shifts and offsets") {
    std::mt19937 rng(9);
    const Shape shape{3, 4, 5};
    Tensor x = RandomInts<int32_t>(DataType::kInt32, shape, rng, -200000, 200000);
    std::vector<uint64_t> words;
    std::vector<float> scales;
    std::vector<int> shifts, offsets;
    for (int c = 0; c < 4; ++c) {
      scales.push_back(0.0007f * static_cast<float>(c + 1));
      shifts.push_back(c == 3 ? 4 : 0);
      offsets.push_back(c * 37 - 60);
      words.push_back(PackScale(scales[c], shifts[c], offsets[c]));
    }
    for (bool relu : {false, true}) {
      std::vector<double> expected;
      for (int64_t i = 0; i < shape.NumElements(); ++i) {
        const int64_t c = Unravel(i, shape.dims())[1];
        double v = ScaledReference(x.data_as<int32_t>()[i], scales[c], shifts[c]);
        if (relu) v = std::max(v, 0.0);
        expected.push_back(Saturate(std::nearbyint(v) + offsets[c], -128, 127));
      }
      Graph g;
      Node* node =
          AddQuantOp(g, "AscendRequant", {g.AddInput("x", DataType::kInt32, shape), g.AddConstant("s", Words(words))},
                     DataType::kInt8, shape, {{"relu_flag", relu}});
      INFO("relu " << relu);
      CheckClose(RunCpuKernel(*node, {x})[0], expected, 0, 0);
    }
  }
}

TEST_CASE("AscendAntiQuant computes (x + offset) * scale from int8 and int16", "[device][ascend_quant]") {
  Tensor x8 = Tensor::FromVector<int8_t>(DataType::kInt8, Shape{4}, {-128, -1, 0, 127});
  Graph g;
  Node* node = AddQuantOp(g, "AscendAntiQuant", {g.AddInput("x", DataType::kInt8, {4})}, DataType::kFloat, {4},
                          {{"scale", 0.5f}, {"offset", 3.0f}});
  CheckClose(RunCpuKernel(*node, {x8})[0], {-62.5, 1, 1.5, 65}, 0, 0);
  Tensor x16 = Tensor::FromVector<int16_t>(DataType::kInt16, Shape{3}, {-32768, 5, 32767});
  Graph g2;
  Node* wide = AddQuantOp(g2, "AscendAntiQuant", {g2.AddInput("x", DataType::kInt16, {3})}, DataType::kFloat16, {3},
                          {{"scale", 0.5f}, {"sqrt_mode", true}, {"dtype", int64_t{1}}});
  CheckClose(RunCpuKernel(*wide, {x16})[0], {-8192, 1.25, 8191.75}, 1e-3, 0);
}
