// MaxPool3D, AvgPool3D and Conv3D (NCDHW), and MaxPoolV3 on non-float32
// dtypes, against float64 loops.
#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include "ge/error.h"
#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

using Ints = std::vector<int64_t>;

// Odometer over a box of dims; returns false after the last index.
bool Next(Ints& index, const Ints& dims) {
  for (size_t d = dims.size(); d-- > 0;) {
    if (++index[d] < dims[d]) return true;
    index[d] = 0;
  }
  return false;
}

struct Pool3D {
  Ints in, kernel, strides, pads;  // in = D, H, W; pads = (begin, end) per axis
  bool max;
  bool include_pad;
};

void CheckPool3D(const Pool3D& p, std::mt19937& rng) {
  const int64_t n = 2, c = 3;
  Ints out(3);
  for (size_t a = 0; a < 3; ++a) out[a] = (p.in[a] + p.pads[2 * a] + p.pads[2 * a + 1] - p.kernel[a]) / p.strides[a] + 1;
  Tensor x = RandomTensor(DataType::kFloat, {n, c, p.in[0], p.in[1], p.in[2]}, rng, -3, 3);
  Graph g;
  Node* node = g.AddNode(p.max ? "MaxPool3D" : "AvgPool3D", "pool3d", {g.AddInput("x", DataType::kFloat, x.shape())});
  node->attrs().Set("ksize", Ints{1, 1, p.kernel[0], p.kernel[1], p.kernel[2]});
  node->attrs().Set("strides", Ints{1, 1, p.strides[0], p.strides[1], p.strides[2]});
  node->attrs().Set("pads", p.pads);
  node->attrs().Set("ceil_mode", false);
  node->attrs().Set("data_format", std::string("NCDHW"));
  if (p.max) {
    node->attrs().Set("dilations", Ints{1, 1, 1, 1, 1});
  } else {
    node->attrs().Set("count_include_pad", p.include_pad);
  }
  SetOutput(node, 0, DataType::kFloat, {n, c, out[0], out[1], out[2]});
  const auto xd = ToDoubles(x);
  std::vector<double> expected;
  for (int64_t plane = 0; plane < n * c; ++plane) {
    Ints o(3, 0);
    do {
      double best = -std::numeric_limits<double>::infinity(), sum = 0;
      int64_t real = 0, padded = 0;
      Ints k(3, 0);
      do {
        Ints at(3);
        bool inside = true;
        for (size_t a = 0; a < 3; ++a) {
          at[a] = o[a] * p.strides[a] - p.pads[2 * a] + k[a];
          inside = inside && at[a] >= 0 && at[a] < p.in[a];
        }
        ++padded;
        if (!inside) continue;
        const double v = xd[plane * p.in[0] * p.in[1] * p.in[2] + Ravel(at, p.in)];
        best = std::max(best, v);
        sum += v;
        ++real;
      } while (Next(k, p.kernel));
      expected.push_back(p.max ? best : sum / static_cast<double>(p.include_pad ? padded : real));
    } while (Next(o, out));
  }
  INFO((p.max ? "max" : "avg") << " include_pad " << p.include_pad);
  CheckClose(RunCpuKernel(*node, {x})[0], expected, 1e-5, 1e-6);
}

// [1, 1, d, h, w] from the spatial values.
Ints AscendOf(const Ints& spatial) {
  Ints values = {1, 1};
  values.insert(values.end(), spatial.begin(), spatial.end());
  return values;
}

}  // namespace

TEST_CASE("MaxPool3D and AvgPool3D with strides and pads", "[device][pool]") {
  std::mt19937 rng(50);
  for (bool max : {true, false}) {
    for (bool include_pad : {false, true}) {
      CheckPool3D({{4, 5, 6}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0, 0, 0, 0}, max, include_pad}, rng);
      CheckPool3D({{5, 4, 7}, {3, 2, 3}, {1, 2, 2}, {1, 1, 0, 1, 1, 0}, max, include_pad}, rng);
    }
  }
}

TEST_CASE("MaxPoolV3 runs on uint8, int8 and double", "[device][pool]") {
  std::mt19937 rng(51);
  for (DataType dtype : {DataType::kUInt8, DataType::kInt8, DataType::kDouble}) {
    Tensor x = RandomTensor(dtype, {1, 2, 5, 5}, rng, dtype == DataType::kUInt8 ? 0 : -100, 100);
    Graph g;
    Node* node = g.AddNode("MaxPoolV3", "pool", {g.AddInput("x", dtype, x.shape())});
    node->attrs().Set("ksize", Ints{1, 1, 2, 2});
    node->attrs().Set("strides", Ints{1, 1, 1, 1});
    node->attrs().Set("pads", Ints{0, 1, 0, 1});
    node->attrs().Set("data_format", std::string("NCHW"));
    node->attrs().Set("dilations", Ints{1, 1, 1, 1});
    SetOutput(node, 0, dtype, {1, 2, 5, 5});
    const auto xd = ToDoubles(x);
    std::vector<double> expected;
    for (int64_t p = 0; p < 2; ++p)
      for (int64_t h = 0; h < 5; ++h)
        for (int64_t w = 0; w < 5; ++w) {
          double best = -1e300;
          for (int64_t i = h; i < std::min<int64_t>(h + 2, 5); ++i)
            for (int64_t j = w; j < std::min<int64_t>(w + 2, 5); ++j) best = std::max(best, xd[(p * 5 + i) * 5 + j]);
          expected.push_back(best);
        }
    INFO(DataTypeName(dtype));
    CheckClose(RunCpuKernel(*node, {x})[0], expected, 0, 0);
  }
}

TEST_CASE("Conv3D with groups, strides, dilations and pads", "[device][conv]") {
  std::mt19937 rng(52);
  struct Case {
    int64_t groups;
    Ints strides, dilations, pads;
  };
  for (const Case& k : {Case{1, {1, 1, 1}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}}, Case{2, {2, 1, 2}, {1, 2, 1}, {1, 0, 1, 1, 0, 2}}}) {
    const int64_t n = 2, cin = 4, cout = 6;
    const Ints in = {5, 6, 5}, kernel = {2, 3, 2};
    Ints out(3);
    for (size_t a = 0; a < 3; ++a) {
      out[a] = (in[a] + k.pads[2 * a] + k.pads[2 * a + 1] - k.dilations[a] * (kernel[a] - 1) - 1) / k.strides[a] + 1;
    }
    const int64_t cin_g = cin / k.groups, cout_g = cout / k.groups;
    Tensor x = RandomTensor(DataType::kFloat, {n, cin, in[0], in[1], in[2]}, rng);
    Tensor w = RandomTensor(DataType::kFloat, {cout, cin_g, kernel[0], kernel[1], kernel[2]}, rng);
    Tensor b = RandomTensor(DataType::kFloat, {cout}, rng);
    Graph g;
    Node* node = g.AddNode("Conv3D", "conv3d",
                           {g.AddInput("x", DataType::kFloat, x.shape()), g.AddConstant("w", w), g.AddConstant("b", b)});
    node->attrs().Set("strides", AscendOf(k.strides));
    node->attrs().Set("pads", k.pads);
    node->attrs().Set("dilations", AscendOf(k.dilations));
    node->attrs().Set("groups", k.groups);
    node->attrs().Set("data_format", std::string("NCDHW"));
    node->attrs().Set("offset_x", int64_t{0});
    SetOutput(node, 0, DataType::kFloat, {n, cout, out[0], out[1], out[2]});
    const auto xd = ToDoubles(x), wd = ToDoubles(w), bd = ToDoubles(b);
    std::vector<double> expected;
    for (int64_t b0 = 0; b0 < n; ++b0)
      for (int64_t oc = 0; oc < cout; ++oc) {
        Ints o(3, 0);
        do {
          double acc = bd[oc];
          const int64_t group = oc / cout_g;
          for (int64_t ic = 0; ic < cin_g; ++ic) {
            Ints kk(3, 0);
            do {
              Ints at(3);
              bool inside = true;
              for (size_t a = 0; a < 3; ++a) {
                at[a] = o[a] * k.strides[a] - k.pads[2 * a] + kk[a] * k.dilations[a];
                inside = inside && at[a] >= 0 && at[a] < in[a];
              }
              if (!inside) continue;
              acc += xd[Ravel({b0, group * cin_g + ic, at[0], at[1], at[2]}, {n, cin, in[0], in[1], in[2]})] *
                     wd[Ravel({oc, ic, kk[0], kk[1], kk[2]}, {cout, cin_g, kernel[0], kernel[1], kernel[2]})];
            } while (Next(kk, kernel));
          }
          expected.push_back(acc);
        } while (Next(o, out));
      }
    INFO("groups " << k.groups);
    CheckClose(RunCpuKernel(*node, {x})[0], expected, 1e-4, 1e-5);
  }
}

TEST_CASE("MaxPoolWithArgmax gives flat indices in x, row- or column-major", "[device][pool]") {
  std::mt19937 rng(53);
  const int64_t n = 2, c = 2, h = 4, w = 5;
  Tensor x = RandomTensor(DataType::kFloat, {n, c, h, w}, rng, -3, 3);
  const auto xd = ToDoubles(x);
  for (int64_t storage_order : {0, 1}) {
    Graph g;
    Node* node = g.AddNode("MaxPoolWithArgmax", "argpool", {g.AddInput("x", DataType::kFloat, x.shape())}, 2);
    node->attrs().Set("ksize", Ints{1, 1, 2, 2});
    node->attrs().Set("strides", Ints{1, 1, 2, 2});
    node->attrs().Set("pads", Ints{0, 0, 0, 1});
    node->attrs().Set("storage_order", storage_order);
    node->attrs().Set("data_format", std::string("NCHW"));
    node->attrs().Set("dilations", Ints{1, 1, 1, 1});
    SetOutput(node, 0, DataType::kFloat, {n, c, 2, 3});
    SetOutput(node, 1, DataType::kInt64, {n, c, 2, 3});
    std::vector<double> values, indices;
    for (int64_t p = 0; p < n * c; ++p)
      for (int64_t oh = 0; oh < 2; ++oh)
        for (int64_t ow = 0; ow < 3; ++ow) {
          double best = -1e300;
          int64_t bh = 0, bw = 0;
          for (int64_t i = oh * 2; i < oh * 2 + 2; ++i)
            for (int64_t j = ow * 2; j < std::min<int64_t>(ow * 2 + 2, w); ++j)
              if (xd[(p * h + i) * w + j] > best) best = xd[(p * h + i) * w + j], bh = i, bw = j;
          values.push_back(best);
          indices.push_back(static_cast<double>(p * h * w + (storage_order == 0 ? bh * w + bw : bh + bw * h)));
        }
    const auto outputs = RunCpuKernel(*node, {x});
    INFO("storage_order " << storage_order);
    CheckClose(outputs[0], values, 0, 0);
    CheckClose(outputs[1], indices, 0, 0);
  }
}

TEST_CASE("MaxUnpool scatters x to its indices and refuses indices outside y", "[device][pool]") {
  Tensor x = Tensor::FromVector(DataType::kFloat, Shape{1, 1, 2, 2}, std::vector<float>{5, 6, 7, 8});
  Tensor indices = Tensor::FromVector(DataType::kInt64, Shape{1, 1, 2, 2}, std::vector<int64_t>{5, 7, 13, 15});
  auto make = [](Graph& g, const std::string& name) {
    Node* node = g.AddNode("MaxUnpool", name, {g.AddInput("x", DataType::kFloat, Shape{1, 1, 2, 2}),
                                               g.AddInput("i", DataType::kInt64, Shape{1, 1, 2, 2})});
    node->attrs().Set("ksize", Ints{1, 1, 2, 2});
    node->attrs().Set("strides", Ints{1, 1, 2, 2});
    node->attrs().Set("pads", Ints{0, 0, 0, 0});
    SetOutput(node, 0, DataType::kFloat, {1, 1, 4, 4});
    return node;
  };
  Graph g;
  CheckClose(RunCpuKernel(*make(g, "unpool"), {x, indices})[0], {0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0, 7, 0, 8}, 0, 0);
  Tensor bad = Tensor::FromVector(DataType::kInt64, Shape{1, 1, 2, 2}, std::vector<int64_t>{5, 7, 13, 16});
  Graph g2;
  CHECK_THROWS_WITH(RunCpuKernel(*make(g2, "bad_unpool"), {x, bad}),
                    Catch::Contains("bad_unpool") && Catch::Contains("index 16"));
}
