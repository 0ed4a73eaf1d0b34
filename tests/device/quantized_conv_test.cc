// The quantized Conv2D / Conv3D / Conv2DTranspose (int8/int16 x, int8
// filter, int32 bias and y) against an int64 reference loop, bit for bit;
// plus a timing print of the int8 against the float32 convolution.
#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>

#include "ge/error.h"
#include "quantized_test_support.h"

using namespace ge;
using namespace ge::test;

namespace {

struct ConvCase {
  std::string name;
  DataType x_dtype = DataType::kInt8;
  std::vector<int64_t> x, filter;  // [N, C, spatial...], [Cout, Cin/groups, k...] (transposed: [Cin, Cout/g, k...])
  int64_t groups = 1;
  std::vector<int64_t> stride, dilation, pads;  // per spatial axis; pads (begin, end) pairs
  int64_t offset_x = 0;
  bool bias = true;
  bool constant_filter = true;
  bool transposed = false;
};

// Output dims of the case.
std::vector<int64_t> OutputDims(const ConvCase& c) {
  const size_t spatial = c.x.size() - 2;
  std::vector<int64_t> y = {c.x[0], c.transposed ? c.filter[1] * c.groups : c.filter[0]};
  for (size_t a = 0; a < spatial; ++a) {
    const int64_t k = (c.filter[2 + a] - 1) * c.dilation[a] + 1;
    y.push_back(c.transposed ? (c.x[2 + a] - 1) * c.stride[a] + k - c.pads[2 * a] - c.pads[2 * a + 1]
                             : (c.x[2 + a] + c.pads[2 * a] + c.pads[2 * a + 1] - k) / c.stride[a] + 1);
  }
  return y;
}

// y[n, oc, o...] = bias[oc] + sum over the taps inside x of (x - offset_x) * w, in int64.
std::vector<double> Reference(const ConvCase& c, const Tensor& x, const Tensor& w, const Tensor* bias) {
  const std::vector<int64_t> y = OutputDims(c);
  const size_t spatial = c.x.size() - 2;
  const auto xv = ToDoubles(x), wv = ToDoubles(w);
  const int64_t cin_g = c.x[1] / c.groups, cout_g = y[1] / c.groups;
  std::vector<int64_t> taps(c.filter.begin() + 2, c.filter.end());
  std::vector<double> out;
  for (int64_t e = 0; e < Shape(y).NumElements(); ++e) {
    const auto yi = Unravel(e, y);
    const int64_t n = yi[0], oc = yi[1], g = oc / cout_g;
    int64_t acc = bias != nullptr ? bias->data_as<int32_t>()[oc] : 0;
    for (int64_t i = 0; i < cin_g; ++i) {
      const int64_t ic = g * cin_g + i;
      for (int64_t t = 0; t < Shape(taps).NumElements(); ++t) {
        const auto k = Unravel(t, taps);
        std::vector<int64_t> xi = {n, ic};
        bool inside = true;
        for (size_t a = 0; a < spatial; ++a) {
          int64_t pos;
          if (c.transposed) {
            const int64_t num = yi[2 + a] + c.pads[2 * a] - k[a] * c.dilation[a];
            inside = inside && num % c.stride[a] == 0;
            pos = num / c.stride[a];
          } else {
            pos = yi[2 + a] * c.stride[a] - c.pads[2 * a] + k[a] * c.dilation[a];
          }
          inside = inside && pos >= 0 && pos < c.x[2 + a];
          xi.push_back(pos);
        }
        if (!inside) continue;
        std::vector<int64_t> wi = c.transposed ? std::vector<int64_t>{ic, oc % cout_g} : std::vector<int64_t>{oc, i};
        wi.insert(wi.end(), k.begin(), k.end());
        acc += (static_cast<int64_t>(xv[Ravel(xi, c.x)]) - c.offset_x) * static_cast<int64_t>(wv[Ravel(wi, c.filter)]);
      }
    }
    out.push_back(static_cast<double>(acc));
  }
  return out;
}

Tensor RandomActivation(DataType dtype, const Shape& shape, std::mt19937& rng) {
  return dtype == DataType::kInt8 ? RandomInts<int8_t>(dtype, shape, rng, -128, 127)
                                  : RandomInts<int16_t>(dtype, shape, rng, -32768, 32767);
}

void CheckConv(const ConvCase& c, std::mt19937& rng) {
  const size_t spatial = c.x.size() - 2;
  Tensor x = RandomActivation(c.x_dtype, Shape(c.x), rng);
  Tensor w = RandomInts<int8_t>(DataType::kInt8, Shape(c.filter), rng, -128, 127);
  const std::vector<int64_t> y = OutputDims(c);
  Tensor bias = RandomInts<int32_t>(DataType::kInt32, Shape{y[1]}, rng, -100000, 100000);
  Graph g;
  std::vector<Value*> inputs;
  if (c.transposed) inputs.push_back(g.AddConstant("size", Tensor::FromVector(DataType::kInt64, Shape{4}, y)));
  inputs.push_back(g.AddInput("x", c.x_dtype, Shape(c.x)));
  inputs.push_back(c.constant_filter ? g.AddConstant("w", w) : g.AddInput("w", DataType::kInt8, Shape(c.filter)));
  inputs.push_back(c.bias ? g.AddConstant("b", bias) : nullptr);
  std::vector<int64_t> window_stride = {1, 1}, window_dilation = {1, 1};
  window_stride.insert(window_stride.end(), c.stride.begin(), c.stride.end());
  window_dilation.insert(window_dilation.end(), c.dilation.begin(), c.dilation.end());
  const char* op = c.transposed ? "Conv2DTranspose" : spatial == 3 ? "Conv3D" : "Conv2D";
  Node* node = AddQuantOp(g, op, inputs, DataType::kInt32, Shape(y),
                          {{"strides", window_stride},
                           {"dilations", window_dilation},
                           {"pads", c.pads},
                           {"groups", c.groups},
                           {"offset_x", c.offset_x}});
  std::vector<Tensor> run_inputs(inputs.size());
  run_inputs[c.transposed ? 1 : 0] = x;
  if (!c.constant_filter) run_inputs[c.transposed ? 2 : 1] = w;
  INFO(c.name);
  CheckClose(RunCpuKernel(*node, run_inputs)[0], Reference(c, x, w, c.bias ? &bias : nullptr), 0, 0);
}

}  // namespace

TEST_CASE("quantized Conv2D matches the int64 reference bit for bit", "[device][quantized_conv]") {
  std::mt19937 rng(11);
  const std::vector<ConvCase> cases = {
      {"int8 3x3 pad 1", DataType::kInt8, {2, 16, 9, 9}, {32, 16, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, 0},
      {"int8 stride 2, asymmetric pads, offset_x 37 (padding holds the zero point)",
       DataType::kInt8,
       {1, 8, 11, 10},
       {16, 8, 3, 3},
       1,
       {2, 2},
       {1, 1},
       {1, 2, 0, 1},
       37},
      {"int8 offset_x -128 (an input at the zero point contributes nothing)",
       DataType::kInt8,
       {1, 4, 6, 6},
       {8, 4, 3, 3},
       1,
       {1, 1},
       {1, 1},
       {2, 2, 2, 2},
       -128},
      {"int8 groups 4 with offset_x -9",
       DataType::kInt8,
       {1, 16, 8, 8},
       {8, 4, 3, 3},
       4,
       {1, 2},
       {1, 1},
       {1, 1, 1, 1},
       -9},
      {"int8 depthwise stride 2 with offset_x 5, no bias",
       DataType::kInt8,
       {2, 32, 10, 10},
       {32, 1, 3, 3},
       32,
       {2, 2},
       {1, 1},
       {1, 1, 1, 1},
       5,
       false},
      {"int8 dilation 2", DataType::kInt8, {1, 8, 12, 12}, {8, 8, 3, 3}, 1, {1, 1}, {2, 2}, {2, 2, 2, 2}, 3},
      {"int8 1x1 conv", DataType::kInt8, {1, 64, 7, 7}, {48, 64, 1, 1}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, -1},
      {"int8 runtime filter (direct kernel)",
       DataType::kInt8,
       {1, 6, 7, 7},
       {4, 3, 3, 3},
       2,
       {2, 1},
       {1, 1},
       {1, 1, 1, 1},
       11,
       true,
       false},
      {"int16 with offset_x 1000 at the int16 limits",
       DataType::kInt16,
       {1, 6, 7, 8},
       {6, 3, 3, 3},
       2,
       {2, 2},
       {1, 1},
       {1, 0, 1, 1},
       1000},
  };
  for (const ConvCase& c : cases) CheckConv(c, rng);
}

TEST_CASE("quantized Conv3D and Conv2DTranspose match the int64 reference", "[device][quantized_conv]") {
  std::mt19937 rng(12);
  CheckConv({"Conv3D int8 with offset_x 6",
             DataType::kInt8,
             {1, 8, 5, 6, 6},
             {16, 8, 3, 3, 3},
             1,
             {1, 2, 1},
             {1, 1, 1},
             {1, 1, 1, 1, 0, 1},
             6},
            rng);
  CheckConv({"Conv3D int16, groups 2",
             DataType::kInt16,
             {1, 4, 4, 5, 5},
             {4, 2, 2, 3, 3},
             2,
             {1, 1, 2},
             {1, 1, 1},
             {0, 1, 1, 1, 1, 1},
             -300},
            rng);
  ConvCase transposed{"Conv2DTranspose int8 stride 2 with offset_x 4",
                      DataType::kInt8,
                      {1, 6, 5, 5},
                      {6, 4, 3, 3},
                      2,
                      {2, 2},
                      {1, 1},
                      {1, 1, 1, 1},
                      4};
  transposed.transposed = true;
  CheckConv(transposed, rng);
}

TEST_CASE("quantized Conv2D refuses wrong operand dtypes and an out-of-range offset_x", "[device][quantized_conv]") {
  auto make = [](Graph& g, DataType filter, DataType bias, int64_t offset_x) {
    return AddQuantOp(g, "Conv2D",
                      {g.AddInput("x", DataType::kInt8, {1, 2, 4, 4}), g.AddInput("w", filter, {2, 2, 1, 1}),
                       g.AddInput("b", bias, {2})},
                      DataType::kInt32, {1, 2, 4, 4},
                      {{"strides", std::vector<int64_t>{1, 1, 1, 1}},
                       {"pads", std::vector<int64_t>{0, 0, 0, 0}},
                       {"offset_x", offset_x}});
  };
  Graph g1, g2, g3;
  REQUIRE_THROWS_WITH(CreateCpuKernel(*make(g1, DataType::kInt16, DataType::kInt32, 0)),
                      Catch::Contains("Conv2D_node") && Catch::Contains("int8"));
  REQUIRE_THROWS_WITH(CreateCpuKernel(*make(g2, DataType::kInt8, DataType::kFloat, 0)),
                      Catch::Contains("Conv2D_node") && Catch::Contains("int32"));
  REQUIRE_THROWS_WITH(CreateCpuKernel(*make(g3, DataType::kInt8, DataType::kInt32, 200)),
                      Catch::Contains("offset_x") && Catch::Contains("[-128, 127]"));
}

TEST_CASE("int8 against float32 Conv2D timing on 1x64x56x56 3x3 is printed and not asserted",
          "[device][quantized_conv][timing]") {
  std::mt19937 rng(13);
  const Shape xs{1, 64, 56, 56}, ws{64, 64, 3, 3}, ys{1, 64, 56, 56};
  const QuantAttrs attrs = {{"strides", std::vector<int64_t>{1, 1, 1, 1}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}};
  Graph gf, gq;
  Tensor xf = RandomTensor(DataType::kFloat, xs, rng), wf = RandomTensor(DataType::kFloat, ws, rng);
  Tensor xq = RandomInts<int8_t>(DataType::kInt8, xs, rng, -128, 127);
  Tensor wq = RandomInts<int8_t>(DataType::kInt8, ws, rng, -128, 127);
  Node* f = AddQuantOp(gf, "Conv2D", {gf.AddInput("x", DataType::kFloat, xs), gf.AddConstant("w", wf)},
                       DataType::kFloat, ys, attrs);
  QuantAttrs q_attrs = attrs;
  q_attrs.emplace_back("offset_x", int64_t{3});
  Node* q = AddQuantOp(gq, "Conv2D", {gq.AddInput("x", DataType::kInt8, xs), gq.AddConstant("w", wq)}, DataType::kInt32,
                       ys, q_attrs);
  auto time_ms = [](const Node& node, const Tensor& x) {
    const auto kernel = CreateCpuKernel(node);
    for (int i = 0; i < 3; ++i) RunKernel(*kernel, node, {x});
    constexpr int kRuns = 20;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kRuns; ++i) RunKernel(*kernel, node, {x});
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / kRuns;
  };
  const double float_ms = time_ms(*f, xf), int8_ms = time_ms(*q, xq);
  // The int8 layer's companions: AscendQuant of its input and AscendDequant of its int32 output.
  Node* quant = AddQuantOp(gq, "AscendQuant", {gq.AddInput("xf", DataType::kFloat, xs)}, DataType::kInt8, xs,
                           {{"scale", 20.0f}, {"offset", 3.0f}});
  Tensor words = Tensor::FromVector(DataType::kUInt64, Shape{64}, std::vector<uint64_t>(64, PackScale(1e-4f, 0)));
  Node* dequant =
      AddQuantOp(gq, "AscendDequant", {gq.AddInput("acc", DataType::kInt32, ys), gq.AddConstant("d", words)},
                 DataType::kFloat, ys);
  const double quant_ms = time_ms(*quant, xf);
  const double dequant_ms = time_ms(*dequant, RunCpuKernel(*q, {xq})[0]);
  std::cout << "Conv2D 1x64x56x56 3x3: float32 " << float_ms << " ms, int8 " << int8_ms << " ms, speed-up "
            << float_ms / int8_ms << "x; AscendQuant " << quant_ms << " ms, AscendDequant " << dequant_ms << " ms\n";
  SUCCEED();
}
