// QuantizeLinear, DequantizeLinear, MatMulInteger, QLinearMatMul, ConvInteger
// and QLinearConv against float64 reference loops.
#include <catch2/catch.hpp>

#include <cmath>

#include "ge/error.h"
#include "graph/op_schema.h"
#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

using Attrs = std::vector<std::pair<std::string, AttrValue>>;

Node* AddOp(Graph& g, const std::string& op, const std::vector<Value*>& inputs, DataType out, Shape shape,
            const Attrs& attrs = {}) {
  Node* node = g.AddNode(op, op + "_node", inputs);
  for (const auto& [name, value] : attrs) node->attrs().Set(name, value);
  OpRegistry::Global().Find(op)->NormalizeAttrs(*node);
  SetOutput(node, 0, out, std::move(shape));
  return node;
}

double Saturate(double v, DataType dtype) {
  return dtype == DataType::kUInt8 ? std::clamp(v, 0.0, 255.0) : std::clamp(v, -128.0, 127.0);
}

// x [2, 3, 4] quantized along `axis` with per-channel scales/zero points (or per tensor).
void CheckQuantize(DataType out, int64_t axis, bool per_axis, std::mt19937& rng) {
  const Shape shape{2, 3, 4};
  const int64_t channels = per_axis ? shape.dim(axis < 0 ? axis + 3 : axis) : 1;
  Tensor x = RandomTensor(DataType::kFloat, shape, rng, -60.0, 60.0);
  // Exact ties (x / scale = k + 0.5) and saturation.
  x.data_as<float>()[0] = 2.5f * 0.5f;
  x.data_as<float>()[1] = -3.5f * 0.5f;
  x.data_as<float>()[2] = 1000.0f;
  std::vector<float> scales;
  std::vector<uint8_t> zp_bytes;
  for (int64_t c = 0; c < channels; ++c) {
    scales.push_back(c == 0 ? 0.5f : 0.37f + 0.1f * c);
    zp_bytes.push_back(out == DataType::kUInt8 ? static_cast<uint8_t>(100 + c) : static_cast<uint8_t>(-3 - c));
  }
  const Shape param_shape = per_axis ? Shape{channels} : Shape{};
  Tensor scale = Tensor::FromVector(DataType::kFloat, param_shape, scales);
  Tensor zp = Tensor::FromVector(out, param_shape, zp_bytes);
  const auto zpd = ToDoubles(zp);
  std::vector<double> expected;
  const auto xv = ToDoubles(x);
  for (int64_t i = 0; i < shape.NumElements(); ++i) {
    const int64_t c = per_axis ? Unravel(i, shape.dims())[axis < 0 ? axis + 3 : axis] : 0;
    const double q = std::nearbyint(static_cast<double>(static_cast<float>(xv[i]) / scales[c]));
    expected.push_back(Saturate(q + zpd[c], out));
  }
  Graph g;
  Node* node = AddOp(g, "QuantizeLinear",
                     {g.AddInput("x", DataType::kFloat, shape), g.AddConstant("s", scale), g.AddConstant("zp", zp)},
                     out, shape, {{"axis", axis}});
  INFO("QuantizeLinear to " << DataTypeName(out) << " axis " << axis << " per axis " << per_axis);
  CheckClose(RunCpuKernel(*node, {x})[0], expected, 0, 0);
}

}  // namespace

TEST_CASE("QuantizeLinear rounds half to even and saturates, per tensor and per axis", "[device][quant]") {
  std::mt19937 rng(41);
  for (DataType out : {DataType::kUInt8, DataType::kInt8}) {
    CheckQuantize(out, 1, false, rng);
    CheckQuantize(out, 1, true, rng);
    CheckQuantize(out, 2, true, rng);
    CheckQuantize(out, -3, true, rng);
  }
}

TEST_CASE("QuantizeLinear without a zero point gives uint8", "[device][quant]") {
  Graph g;
  Tensor x = Tensor::FromVector<float>(DataType::kFloat, {5}, {0.0f, 1.0f, 3.0f, -2.0f, 700.0f});
  Node* node = AddOp(g, "QuantizeLinear",
                     {g.AddInput("x", DataType::kFloat, {5}), g.AddConstant("s", Tensor::FromVector<float>(
                                                                                      DataType::kFloat, {}, {2.0f}))},
                     DataType::kUInt8, {5});
  CheckClose(RunCpuKernel(*node, {x})[0], {0, 0, 2, 0, 255}, 0, 0);
}

TEST_CASE("DequantizeLinear per tensor and per axis for int8, uint8 and int32", "[device][quant]") {
  std::mt19937 rng(42);
  const Shape shape{3, 2, 5};
  for (DataType dtype : {DataType::kInt8, DataType::kUInt8, DataType::kInt32}) {
    for (bool per_axis : {false, true}) {
      Tensor x = RandomTensor(dtype, shape, rng, dtype == DataType::kUInt8 ? 0 : -100, 100);
      const int64_t channels = per_axis ? 2 : 1;
      Tensor scale = RandomTensor(DataType::kFloat, per_axis ? Shape{2} : Shape{}, rng, 0.01, 2.0);
      Tensor zp = RandomTensor(dtype, per_axis ? Shape{2} : Shape{}, rng, dtype == DataType::kUInt8 ? 0 : -20, 20);
      if (dtype == DataType::kInt32) zp = Tensor::FromVector<int32_t>(dtype, zp.shape(), std::vector<int32_t>(2, 0));
      const auto xv = ToDoubles(x), sv = ToDoubles(scale), zv = ToDoubles(zp);
      std::vector<double> expected;
      for (int64_t i = 0; i < shape.NumElements(); ++i) {
        const int64_t c = channels == 1 ? 0 : Unravel(i, shape.dims())[1];
        expected.push_back((xv[i] - zv[c]) * sv[c]);
      }
      Graph g;
      Node* node = AddOp(g, "DequantizeLinear",
                         {g.AddInput("x", dtype, shape), g.AddConstant("s", scale), g.AddConstant("zp", zp)},
                         DataType::kFloat, shape, {{"axis", int64_t{1}}});
      INFO(DataTypeName(dtype) << " per axis " << per_axis);
      CheckClose(RunCpuKernel(*node, {x})[0], expected, 1e-6, 1e-6);
    }
  }
}

TEST_CASE("quantization with a zero scale or mismatched per-axis counts fails naming the node", "[device][quant]") {
  Graph g;
  Tensor zero = Tensor::FromVector<float>(DataType::kFloat, {}, {0.0f});
  Node* node = AddOp(g, "QuantizeLinear", {g.AddInput("x", DataType::kFloat, {2}), g.AddConstant("s", zero)},
                     DataType::kUInt8, {2});
  Tensor x = Tensor::FromVector<float>(DataType::kFloat, {2}, {1.0f, 2.0f});
  REQUIRE_THROWS_WITH(RunCpuKernel(*node, {x}), Catch::Contains("QuantizeLinear_node") && Catch::Contains("y_scale"));

  Graph g2;
  Tensor scales = Tensor::FromVector<float>(DataType::kFloat, {3}, {1.0f, 2.0f, 3.0f});
  Node* bad = AddOp(g2, "DequantizeLinear", {g2.AddInput("x", DataType::kInt8, {2, 4}), g2.AddConstant("s", scales)},
                    DataType::kFloat, {2, 4});
  REQUIRE_THROWS_WITH(CreateCpuKernel(*bad), Catch::Contains("DequantizeLinear_node"));
}

namespace {

// numpy matmul of (a - a_zp[row]) and (b - b_zp[col]) for a [.., M, K], b [.., K, N].
std::vector<double> ReferenceIntegerMatMul(const Tensor& a, const Tensor& b, const std::vector<double>& a_zp,
                                           const std::vector<double>& b_zp, const std::vector<int64_t>& out_dims) {
  const auto& ad = a.shape().dims();
  const auto& bd = b.shape().dims();
  const int64_t m = ad[ad.size() - 2], k = ad.back(), n = bd.back();
  const auto av = ToDoubles(a), bv = ToDoubles(b);
  std::vector<double> out;
  for (int64_t e = 0; e < Shape(out_dims).NumElements(); ++e) {
    const auto index = Unravel(e, out_dims);
    const int64_t i = index[index.size() - 2], j = index.back();
    auto matrix_start = [&](const std::vector<int64_t>& dims) {
      std::vector<int64_t> idx(dims.size(), 0);
      for (size_t d = 0; d + 2 < dims.size(); ++d) {
        idx[d] = dims[d] == 1 ? 0 : index[d + out_dims.size() - dims.size()];
      }
      return Ravel(idx, dims);
    };
    const int64_t ao = matrix_start(ad), bo = matrix_start(bd);
    double acc = 0;
    for (int64_t p = 0; p < k; ++p) {
      acc += (av[ao + i * k + p] - a_zp[a_zp.size() == 1 ? 0 : i]) * (bv[bo + p * n + j] - b_zp[b_zp.size() == 1 ? 0 : j]);
    }
    out.push_back(acc);
  }
  return out;
}

}  // namespace

TEST_CASE("MatMulInteger accumulates exactly with per-tensor and per-row/column zero points", "[device][quant]") {
  std::mt19937 rng(43);
  struct Case {
    Shape a, b;
    std::vector<int64_t> out;
    bool per_row;
  };
  for (const Case& c : {Case{{4, 3}, {3, 2}, {4, 2}, false}, Case{{2, 1, 5, 7}, {3, 7, 6}, {2, 3, 5, 6}, false},
                        Case{{5, 9}, {9, 4}, {5, 4}, true}}) {
    for (DataType at : {DataType::kUInt8, DataType::kInt8}) {
      for (DataType bt : {DataType::kUInt8, DataType::kInt8}) {
        const double alo = at == DataType::kUInt8 ? 0 : -128, ahi = at == DataType::kUInt8 ? 256 : 128;
        const double blo = bt == DataType::kUInt8 ? 0 : -128, bhi = bt == DataType::kUInt8 ? 256 : 128;
        Tensor a = RandomTensor(at, c.a, rng, alo, ahi);
        Tensor b = RandomTensor(bt, c.b, rng, blo, bhi);
        const int64_t m = c.a.dim(c.a.rank() - 2), n = c.b.dim(c.b.rank() - 1);
        Tensor azp = RandomTensor(at, c.per_row ? Shape{m} : Shape{}, rng, alo, ahi);
        Tensor bzp = RandomTensor(bt, c.per_row ? Shape{n} : Shape{}, rng, blo, bhi);
        const auto expected = ReferenceIntegerMatMul(a, b, ToDoubles(azp), ToDoubles(bzp), c.out);
        Graph g;
        Node* node = AddOp(g, "MatMulInteger",
                           {g.AddInput("a", at, c.a), g.AddConstant("b", b), g.AddConstant("azp", azp),
                            g.AddInput("bzp", bt, bzp.shape())},
                           DataType::kInt32, Shape(c.out));
        INFO(c.a.ToString() << " x " << c.b.ToString() << " " << DataTypeName(at) << " " << DataTypeName(bt));
        CheckClose(RunCpuKernel(*node, {a, Tensor(), Tensor(), bzp})[0], expected, 0, 0);
      }
    }
  }
}

TEST_CASE("QLinearMatMul requantizes the exact sums", "[device][quant]") {
  std::mt19937 rng(44);
  for (DataType t : {DataType::kUInt8, DataType::kInt8}) {
    const double lo = t == DataType::kUInt8 ? 0 : -128, hi = t == DataType::kUInt8 ? 256 : 128;
    const Shape as{2, 4, 6}, bs{2, 6, 3};
    Tensor a = RandomTensor(t, as, rng, lo, hi), b = RandomTensor(t, bs, rng, lo, hi);
    Tensor azp = RandomTensor(t, {}, rng, lo, hi), bzp = RandomTensor(t, {}, rng, lo, hi);
    Tensor yzp = RandomTensor(t, {}, rng, lo, hi);
    const float sa = 0.02f, sb = 0.013f, sy = 0.9f;
    const auto acc = ReferenceIntegerMatMul(a, b, ToDoubles(azp), ToDoubles(bzp), {2, 4, 3});
    std::vector<double> expected;
    for (double v : acc) expected.push_back(Saturate(std::nearbyint(v * sa * sb / sy) + ToDoubles(yzp)[0], t));
    auto scalar = [&](float v) { return Tensor::FromVector<float>(DataType::kFloat, {}, {v}); };
    Graph g;
    Node* node = AddOp(g, "QLinearMatMul",
                       {g.AddInput("a", t, as), g.AddConstant("sa", scalar(sa)), g.AddConstant("azp", azp),
                        g.AddInput("b", t, bs), g.AddConstant("sb", scalar(sb)), g.AddConstant("bzp", bzp),
                        g.AddConstant("sy", scalar(sy)), g.AddConstant("yzp", yzp)},
                       t, {2, 4, 3});
    // float32 and float64 multipliers may round a tie differently: allow one step.
    CheckClose(RunCpuKernel(*node, {a, Tensor(), Tensor(), b})[0], expected, 0, 1.0);
  }
}

namespace {

struct ConvCase {
  Shape x, w;
  std::vector<int64_t> strides, pads, dilations;  // NCHW-ordered strides/dilations, pads [t, b, l, r]
  int64_t groups;
};

std::vector<int64_t> ConvOut(const ConvCase& c) {
  auto dim = [&](int64_t in, int64_t k, int64_t s, int64_t p0, int64_t p1, int64_t d) {
    return (in + p0 + p1 - d * (k - 1) - 1) / s + 1;
  };
  return {c.x.dim(0), c.w.dim(0), dim(c.x.dim(2), c.w.dim(2), c.strides[2], c.pads[0], c.pads[1], c.dilations[2]),
          dim(c.x.dim(3), c.w.dim(3), c.strides[3], c.pads[2], c.pads[3], c.dilations[3])};
}

// Zero-padded convolution of (x - x_zp) and (w - w_zp[oc]).
std::vector<double> ReferenceIntegerConv(const ConvCase& c, const Tensor& x, const Tensor& w, double x_zp,
                                         const std::vector<double>& w_zp) {
  const auto out = ConvOut(c);
  const auto xv = ToDoubles(x), wv = ToDoubles(w);
  const int64_t cin_g = c.w.dim(1), cout_g = c.w.dim(0) / c.groups;
  std::vector<double> y;
  for (int64_t e = 0; e < Shape(out).NumElements(); ++e) {
    const auto idx = Unravel(e, out);
    const int64_t n = idx[0], oc = idx[1], g = oc / cout_g;
    double acc = 0;
    for (int64_t ic = 0; ic < cin_g; ++ic)
      for (int64_t kh = 0; kh < c.w.dim(2); ++kh)
        for (int64_t kw = 0; kw < c.w.dim(3); ++kw) {
          const int64_t ih = idx[2] * c.strides[2] - c.pads[0] + kh * c.dilations[2];
          const int64_t iw = idx[3] * c.strides[3] - c.pads[2] + kw * c.dilations[3];
          if (ih < 0 || iw < 0 || ih >= c.x.dim(2) || iw >= c.x.dim(3)) continue;
          acc += (xv[Ravel({n, g * cin_g + ic, ih, iw}, c.x.dims())] - x_zp) *
                 (wv[Ravel({oc, ic, kh, kw}, c.w.dims())] - w_zp[w_zp.size() == 1 ? 0 : oc]);
        }
    y.push_back(acc);
  }
  return y;
}

Attrs ConvAttrs(const ConvCase& c) {
  return {{"strides", c.strides}, {"pads", c.pads}, {"dilations", c.dilations}, {"groups", c.groups}};
}

const std::vector<ConvCase>& ConvCases() {
  static const std::vector<ConvCase> cases = {
      {{1, 1, 3, 3}, {1, 1, 2, 2}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, 1},
      {{2, 4, 7, 6}, {6, 2, 3, 3}, {1, 1, 2, 1}, {1, 0, 2, 1}, {1, 1, 1, 2}, 2},
      {{1, 3, 5, 5}, {4, 3, 1, 1}, {1, 1, 1, 1}, {0, 0, 0, 0}, {1, 1, 1, 1}, 1},
  };
  return cases;
}

}  // namespace

TEST_CASE("ConvInteger with padding, strides, dilations, groups and per-channel w zero points",
          "[device][quant]") {
  std::mt19937 rng(45);
  for (const ConvCase& c : ConvCases()) {
    for (bool per_channel : {false, true}) {
      Tensor x = RandomTensor(DataType::kUInt8, c.x, rng, 0, 256);
      Tensor w = RandomTensor(DataType::kInt8, c.w, rng, -128, 128);
      Tensor xzp = RandomTensor(DataType::kUInt8, {}, rng, 0, 256);
      Tensor wzp = RandomTensor(DataType::kInt8, per_channel ? Shape{c.w.dim(0)} : Shape{}, rng, -10, 10);
      const auto expected = ReferenceIntegerConv(c, x, w, ToDoubles(xzp)[0], ToDoubles(wzp));
      Graph g;
      Node* node = AddOp(g, "ConvInteger",
                         {g.AddInput("x", DataType::kUInt8, c.x), g.AddConstant("w", w), g.AddConstant("xzp", xzp),
                          g.AddConstant("wzp", wzp)},
                         DataType::kInt32, Shape(ConvOut(c)), ConvAttrs(c));
      INFO(c.x.ToString() << " * " << c.w.ToString() << " per channel " << per_channel);
      CheckClose(RunCpuKernel(*node, {x})[0], expected, 0, 0);
    }
  }
}

TEST_CASE("QLinearConv adds the bias and requantizes with per-channel weight scales", "[device][quant]") {
  std::mt19937 rng(46);
  for (const ConvCase& c : ConvCases()) {
    const int64_t m = c.w.dim(0);
    Tensor x = RandomTensor(DataType::kInt8, c.x, rng, -128, 128);
    Tensor w = RandomTensor(DataType::kInt8, c.w, rng, -128, 128);
    Tensor xzp = RandomTensor(DataType::kInt8, {}, rng, -5, 5);
    Tensor wzp = Tensor::FromVector<int8_t>(DataType::kInt8, {}, {0});
    Tensor ws = RandomTensor(DataType::kFloat, {m}, rng, 0.001, 0.01);
    Tensor bias = RandomTensor(DataType::kInt32, {m}, rng, -5000, 5000);
    Tensor yzp = Tensor::FromVector<uint8_t>(DataType::kUInt8, {}, {128});
    const float xs = 0.05f, ys = 0.2f;
    const auto acc = ReferenceIntegerConv(c, x, w, ToDoubles(xzp)[0], {0.0});
    const auto out = ConvOut(c);
    const auto wsv = ToDoubles(ws), bv = ToDoubles(bias);
    std::vector<double> expected;
    for (size_t e = 0; e < acc.size(); ++e) {
      const int64_t oc = Unravel(static_cast<int64_t>(e), out)[1];
      expected.push_back(Saturate(std::nearbyint((acc[e] + bv[oc]) * xs * wsv[oc] / ys) + 128, DataType::kUInt8));
    }
    auto scalar = [&](float v) { return Tensor::FromVector<float>(DataType::kFloat, {}, {v}); };
    Graph g;
    Node* node = AddOp(g, "QLinearConv",
                       {g.AddInput("x", DataType::kInt8, c.x), g.AddConstant("xs", scalar(xs)),
                        g.AddConstant("xzp", xzp), g.AddConstant("w", w), g.AddConstant("ws", ws),
                        g.AddConstant("wzp", wzp), g.AddConstant("ys", scalar(ys)), g.AddConstant("yzp", yzp),
                        g.AddConstant("bias", bias)},
                       DataType::kUInt8, Shape(out), ConvAttrs(c));
    INFO(c.x.ToString() << " * " << c.w.ToString());
    CheckClose(RunCpuKernel(*node, {x})[0], expected, 0, 1.0);
  }
}

TEST_CASE("DynamicQuantizeLinear maps the range including 0 onto uint8", "[device][quant]") {
  std::mt19937 rng(47);
  for (auto [lo, hi] : {std::pair{-3.0, 5.0}, std::pair{1.0, 4.0}, std::pair{-6.0, -2.0}}) {
    const Shape shape{3, 7};
    Tensor x = RandomTensor(DataType::kFloat, shape, rng, lo, hi);
    const auto xv = ToDoubles(x);
    const double x_min = std::min(0.0, *std::min_element(xv.begin(), xv.end()));
    const double x_max = std::max(0.0, *std::max_element(xv.begin(), xv.end()));
    const double scale = (x_max - x_min) / 255.0;
    const double zero_point = std::clamp(std::nearbyint(-x_min / scale), 0.0, 255.0);
    std::vector<double> expected;
    for (double v : xv) expected.push_back(std::clamp(std::nearbyint(v / scale) + zero_point, 0.0, 255.0));
    Graph g;
    Node* node = g.AddNode("DynamicQuantizeLinear", "dq", {g.AddInput("x", DataType::kFloat, shape)}, 3);
    SetOutput(node, 0, DataType::kUInt8, shape);
    SetOutput(node, 1, DataType::kFloat, Shape({}));
    SetOutput(node, 2, DataType::kUInt8, Shape({}));
    const auto out = RunCpuKernel(*node, {x});
    INFO("range [" << lo << ", " << hi << ")");
    CheckClose(out[1], {scale}, 1e-6, 0);
    CheckClose(out[2], {zero_point}, 0, 0);
    CheckClose(out[0], expected, 0, 1.0);  // a float32 scale may round a tie the other way
  }
}
