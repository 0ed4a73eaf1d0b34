// Pooling, BatchNorm, LayerNorm and SoftmaxV2 against float64 loops.
#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include "ge/error.h"
#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

struct PoolCase {
  std::string op;
  int64_t n, c, h, w, kh, kw, sh, sw, pt, pb, pl, pr, dh, dw;
  bool ceil_mode, exclusive, global;
};

// Output length with the ONNX/PyTorch rule: with ceil_mode, a last window
// that starts in the end padding is dropped.
int64_t PoolOut(int64_t in, int64_t k, int64_t s, int64_t pb, int64_t pe, int64_t d, bool ceil_mode) {
  const int64_t span = in + pb + pe - d * (k - 1) - 1;
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + pb) --out;
  return out;
}

void CheckPool(const PoolCase& p, std::mt19937& rng) {
  Tensor x = RandomTensor(DataType::kFloat, {p.n, p.c, p.h, p.w}, rng, -3, 3);
  const bool max = p.op == "MaxPoolV3";
  int64_t kh = p.kh, kw = p.kw, sh = p.sh, sw = p.sw, pt = p.pt, pb = p.pb, pl = p.pl, pr = p.pr;
  if (p.global) {
    kh = p.h, kw = p.w, sh = sw = 1, pt = pb = pl = pr = 0;
  }
  const int64_t dh = max ? p.dh : 1, dw = max ? p.dw : 1;
  const int64_t oh = PoolOut(p.h, kh, sh, pt, pb, dh, p.ceil_mode);
  const int64_t ow = PoolOut(p.w, kw, sw, pl, pr, dw, p.ceil_mode);

  Graph g;
  Node* node = g.AddNode(p.op, "pool", {g.AddInput("x", DataType::kFloat, x.shape())});
  node->attrs().Set("ksize", std::vector<int64_t>{1, 1, p.kh, p.kw});
  node->attrs().Set("strides", std::vector<int64_t>{1, 1, p.sh, p.sw});
  node->attrs().Set("pads", std::vector<int64_t>{p.pt, p.pb, p.pl, p.pr});
  if (max) node->attrs().Set("dilations", std::vector<int64_t>{1, 1, p.dh, p.dw});
  if (!max) node->attrs().Set("exclusive", p.exclusive);
  node->attrs().Set("ceil_mode", p.ceil_mode);
  node->attrs().Set("global_pooling", p.global);
  node->attrs().Set("data_format", std::string("NCHW"));
  SetOutput(node, 0, DataType::kFloat, {p.n, p.c, oh, ow});

  const auto xd = ToDoubles(x);
  std::vector<double> expected;
  for (int64_t plane = 0; plane < p.n * p.c; ++plane)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t z = 0; z < ow; ++z) {
        double best = -std::numeric_limits<double>::infinity(), sum = 0;
        int64_t real = 0, padded = 0;
        for (int64_t i = 0; i < kh; ++i)
          for (int64_t j = 0; j < kw; ++j) {
            const int64_t ih = y * sh - pt + i * dh, iw = z * sw - pl + j * dw;
            // Cells inside the padded input count for inclusive averaging.
            if (ih < p.h + pb && iw < p.w + pr) ++padded;
            if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
            const double v = xd[(plane * p.h + ih) * p.w + iw];
            best = std::max(best, v);
            sum += v;
            ++real;
          }
        expected.push_back(max ? best : sum / static_cast<double>(p.exclusive ? real : padded));
      }
  INFO(p.op << " k " << kh << "x" << kw << " s " << sh << " pads " << pt << pb << pl << pr << " ceil "
            << p.ceil_mode << " exclusive " << p.exclusive << " global " << p.global);
  CheckClose(RunCpuKernel(*node, {x})[0], expected, 1e-5, 1e-6);
}

}  // namespace

TEST_CASE("MaxPoolV3 with pads, dilations, ceil_mode and global pooling", "[device][pool]") {
  std::mt19937 rng(30);
  for (const PoolCase& p : std::vector<PoolCase>{
           {"MaxPoolV3", 2, 3, 8, 8, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, false, false, false},
           {"MaxPoolV3", 1, 2, 7, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false, false, false},
           {"MaxPoolV3", 1, 2, 7, 8, 3, 2, 2, 3, 1, 0, 0, 1, 1, 1, true, false, false},   // ceil, asymmetric
           {"MaxPoolV3", 1, 1, 10, 10, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, false, false, false},  // dilation
           {"MaxPoolV3", 2, 4, 5, 6, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, false, false, true},    // global
       }) {
    CheckPool(p, rng);
  }
}

TEST_CASE("AvgPoolV2 exclusive vs inclusive, ceil_mode, global", "[device][pool]") {
  std::mt19937 rng(31);
  for (bool exclusive : {true, false}) {
    for (const PoolCase& p : std::vector<PoolCase>{
             {"AvgPoolV2", 2, 3, 8, 8, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, false, exclusive, false},
             {"AvgPoolV2", 1, 2, 7, 7, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false, exclusive, false},
             {"AvgPoolV2", 1, 2, 6, 7, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true, exclusive, false},  // ceil + pads
             {"AvgPoolV2", 1, 1, 5, 5, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, true, exclusive, false},  // ceil, no pads
             {"AvgPoolV2", 2, 3, 4, 5, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, false, exclusive, true},
         }) {
      CheckPool(p, rng);
    }
  }
}

TEST_CASE("BatchNorm inference normalizes per channel", "[device][norm]") {
  std::mt19937 rng(32);
  const Shape shape{2, 5, 4, 3};
  Tensor x = RandomTensor(DataType::kFloat, shape, rng, -2, 2);
  Tensor scale = RandomTensor(DataType::kFloat, {5}, rng), offset = RandomTensor(DataType::kFloat, {5}, rng);
  Tensor mean = RandomTensor(DataType::kFloat, {5}, rng), var = RandomTensor(DataType::kFloat, {5}, rng, 0.1, 2);
  Graph g;
  Node* node = g.AddNode("BatchNorm", "bn",
                         {g.AddInput("x", DataType::kFloat, shape), g.AddConstant("scale", scale),
                          g.AddConstant("offset", offset), g.AddConstant("mean", mean), g.AddConstant("var", var)});
  node->attrs().Set("epsilon", 1e-3f);
  node->attrs().Set("data_format", std::string("NCHW"));
  node->attrs().Set("is_training", false);
  SetOutput(node, 0, DataType::kFloat, shape);
  const auto xd = ToDoubles(x), sd = ToDoubles(scale), od = ToDoubles(offset), md = ToDoubles(mean),
             vd = ToDoubles(var);
  std::vector<double> expected;
  for (int64_t i = 0; i < shape.NumElements(); ++i) {
    const int64_t c = Unravel(i, shape.dims())[1];
    expected.push_back((xd[i] - md[c]) / std::sqrt(vd[c] + double(1e-3f)) * sd[c] + od[c]);
  }
  CheckClose(RunCpuKernel(*node, {x})[0], expected);
}

TEST_CASE("LayerNorm over trailing axes, with mean and variance outputs", "[device][norm]") {
  std::mt19937 rng(33);
  const Shape shape{3, 4, 16};
  for (int64_t axis : {-1, 1}) {
    const int64_t rows = axis == -1 ? 12 : 3, cols = axis == -1 ? 16 : 64;
    const Shape param_shape = axis == -1 ? Shape{16} : Shape{4, 16};
    Tensor x = RandomTensor(DataType::kFloat, shape, rng, -2, 3);
    Tensor gamma = RandomTensor(DataType::kFloat, param_shape, rng), beta = RandomTensor(DataType::kFloat, param_shape, rng);
    Graph g;
    Node* node = g.AddNode("LayerNorm", "ln",
                           {g.AddInput("x", DataType::kFloat, shape), g.AddConstant("gamma", gamma),
                            g.AddConstant("beta", beta)},
                           3);
    node->attrs().Set("begin_norm_axis", axis);
    node->attrs().Set("begin_params_axis", axis);
    node->attrs().Set("epsilon", 1e-5f);
    SetOutput(node, 0, DataType::kFloat, shape);
    const Shape stat_shape = axis == -1 ? Shape{3, 4, 1} : Shape{3, 1, 1};
    SetOutput(node, 1, DataType::kFloat, stat_shape);
    SetOutput(node, 2, DataType::kFloat, stat_shape);
    const auto xd = ToDoubles(x), gd = ToDoubles(gamma), bd = ToDoubles(beta);
    std::vector<double> expected, means, vars;
    for (int64_t r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (int64_t c = 0; c < cols; ++c) mean += xd[r * cols + c] / cols;
      for (int64_t c = 0; c < cols; ++c) var += (xd[r * cols + c] - mean) * (xd[r * cols + c] - mean) / cols;
      for (int64_t c = 0; c < cols; ++c) {
        expected.push_back((xd[r * cols + c] - mean) / std::sqrt(var + double(1e-5f)) * gd[c] + bd[c]);
      }
      means.push_back(mean);
      vars.push_back(var);
    }
    INFO("begin_norm_axis " << axis);
    auto outputs = RunCpuKernel(*node, {x});
    CheckClose(outputs[0], expected, 1e-5, 1e-5);
    CheckClose(outputs[1], means, 1e-5, 1e-6);
    CheckClose(outputs[2], vars, 1e-5, 1e-6);
  }
}

TEST_CASE("SoftmaxV2 on the last and on inner axes", "[device][softmax]") {
  std::mt19937 rng(34);
  const Shape shape{3, 5, 7};
  Tensor x = RandomTensor(DataType::kFloat, shape, rng, -10, 10);
  const auto xd = ToDoubles(x);
  for (int64_t axis : {-1, 1, 0}) {
    Graph g;
    Node* node = g.AddNode("SoftmaxV2", "sm", {g.AddInput("x", DataType::kFloat, shape)});
    node->attrs().Set("axes", std::vector<int64_t>{axis});
    SetOutput(node, 0, DataType::kFloat, shape);
    const size_t a = axis < 0 ? 2 : static_cast<size_t>(axis);
    std::vector<double> expected(xd.size());
    for (int64_t i = 0; i < shape.NumElements(); ++i) {
      auto index = Unravel(i, shape.dims());
      double max = -1e300, sum = 0;
      for (int64_t k = 0; k < shape.dim(a); ++k) {
        index[a] = k;
        max = std::max(max, xd[Ravel(index, shape.dims())]);
      }
      for (int64_t k = 0; k < shape.dim(a); ++k) {
        index[a] = k;
        sum += std::exp(xd[Ravel(index, shape.dims())] - max);
      }
      expected[i] = std::exp(xd[i] - max) / sum;
    }
    INFO("axis " << axis);
    CheckClose(RunCpuKernel(*node, {x})[0], expected, 1e-5, 1e-7);
  }
}
