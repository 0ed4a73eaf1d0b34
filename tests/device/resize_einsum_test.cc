// Resize (nearest, linear, cubic under each coordinate rule) and Einsum
// against float64 loops.
#include <cmath>

#include <catch2/catch.hpp>

#include "ge/error.h"
#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

// The 1-D ONNX reference: the input coordinate of output x, then its
// neighbours weighted by the mode, edges repeated.
double SourceX(const std::string& transform, double x, double scale, int64_t in, double out_len) {
  if (transform == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (transform == "pytorch_half_pixel") return out_len == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  if (transform == "align_corners") return out_len == 1 ? 0 : x * (in - 1) / (out_len - 1);
  if (transform == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  return x / scale;  // asymmetric
}

std::vector<std::pair<int64_t, double>> Weights(const std::string& mode, double xo, int64_t in, double a,
                                                bool exclude_outside) {
  const double f = std::floor(xo), r = xo - f;
  const int64_t i0 = static_cast<int64_t>(f);
  std::vector<std::pair<int64_t, double>> taps;
  if (mode == "nearest") {
    taps = {{r > 0.5 ? i0 + 1 : i0, 1.0}};  // round_prefer_floor
  } else if (mode == "linear") {
    taps = {{i0, 1 - r}, {i0 + 1, r}};
  } else {
    auto w = [a](double d) {
      d = std::fabs(d);
      return d <= 1 ? ((a + 2) * d - (a + 3)) * d * d + 1 : d < 2 ? ((a * d - 5 * a) * d + 8 * a) * d - 4 * a : 0.0;
    };
    for (int64_t k = -1; k <= 2; ++k) taps.push_back({i0 + k, w(xo - static_cast<double>(i0 + k))});
  }
  if (exclude_outside) {
    double total = 0;
    for (auto& [i, wt] : taps) {
      if (i < 0 || i >= in) wt = 0;
      total += wt;
    }
    for (auto& tap : taps) tap.second /= total;
  }
  for (auto& tap : taps) tap.first = std::min<int64_t>(std::max<int64_t>(tap.first, 0), in - 1);
  return taps;
}

}  // namespace

TEST_CASE("Resize of the two inner axes under every mode and coordinate rule", "[device][resize]") {
  std::mt19937 rng(60);
  const int64_t h = 4, w = 5;
  Tensor x = RandomTensor(DataType::kFloat, {1, 2, h, w}, rng, -2, 2);
  const auto xd = ToDoubles(x);
  struct Size {
    int64_t oh, ow;
    bool by_sizes;
  };
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    for (const char* transform : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"}) {
      for (const Size& size : {Size{8, 7, true}, Size{2, 3, true}, Size{6, 10, false}}) {
        for (bool exclude : {false, true}) {
          if (exclude && std::string(mode) != "cubic") continue;
          Graph g;
          std::vector<Value*> inputs = {g.AddInput("x", DataType::kFloat, x.shape()), nullptr};
          Tensor scales, sizes;
          const double sh = size.by_sizes ? double(size.oh) / h : 1.5, sw = size.by_sizes ? double(size.ow) / w : 2.0;
          if (size.by_sizes) {
            sizes = Tensor::FromVector(DataType::kInt64, Shape{4}, std::vector<int64_t>{1, 2, size.oh, size.ow});
            inputs.push_back(nullptr);
            inputs.push_back(g.AddConstant("sizes", sizes));
          } else {
            scales = Tensor::FromVector(DataType::kFloat, Shape{4}, std::vector<float>{1, 1, 1.5f, 2.0f});
            inputs.push_back(g.AddConstant("scales", scales));
          }
          Node* node = g.AddNode("Resize", "resize", inputs);
          node->attrs().Set("mode", std::string(mode));
          node->attrs().Set("coordinate_transformation_mode", std::string(transform));
          node->attrs().Set("nearest_mode", std::string("round_prefer_floor"));
          node->attrs().Set("cubic_coeff_a", -0.75f);
          node->attrs().Set("exclude_outside", int64_t{exclude ? 1 : 0});
          node->attrs().Set("extrapolation_value", 0.0f);
          SetOutput(node, 0, DataType::kFloat, {1, 2, size.oh, size.ow});
          std::vector<double> expected;
          for (int64_t c = 0; c < 2; ++c)
            for (int64_t oy = 0; oy < size.oh; ++oy)
              for (int64_t ox = 0; ox < size.ow; ++ox) {
                const auto ty = Weights(mode, SourceX(transform, oy, sh, h, size.by_sizes ? size.oh : sh * h), h,
                                        -0.75, exclude);
                const auto tx = Weights(mode, SourceX(transform, ox, sw, w, size.by_sizes ? size.ow : sw * w), w,
                                        -0.75, exclude);
                double sum = 0;
                for (auto [iy, wy] : ty)
                  for (auto [ix, wx] : tx) sum += wy * wx * xd[(c * h + iy) * w + ix];
                expected.push_back(sum);
              }
          INFO(mode << " " << transform << " " << size.oh << "x" << size.ow << " exclude " << exclude);
          CheckClose(RunCpuKernel(*node, {x, Tensor(), scales, sizes})[0], expected, 1e-5, 1e-5);
        }
      }
    }
  }
}

TEST_CASE("Resize tf_crop_and_resize extrapolates outside the roi", "[device][resize]") {
  Tensor x = Tensor::FromVector(DataType::kFloat, Shape{1, 4}, std::vector<float>{0, 1, 2, 3});
  Tensor roi = Tensor::FromVector(DataType::kFloat, Shape{4}, std::vector<float>{0, 0.5f, 1, 1.5f});
  Tensor sizes = Tensor::FromVector(DataType::kInt64, Shape{2}, std::vector<int64_t>{1, 4});
  Graph g;
  Node* node = g.AddNode("Resize", "crop", {g.AddInput("x", DataType::kFloat, x.shape()), g.AddConstant("roi", roi),
                                            nullptr, g.AddConstant("sizes", sizes)});
  node->attrs().Set("mode", std::string("linear"));
  node->attrs().Set("coordinate_transformation_mode", std::string("tf_crop_and_resize"));
  node->attrs().Set("nearest_mode", std::string("round_prefer_floor"));
  node->attrs().Set("cubic_coeff_a", -0.75f);
  node->attrs().Set("exclude_outside", int64_t{0});
  node->attrs().Set("extrapolation_value", 9.0f);
  SetOutput(node, 0, DataType::kFloat, {1, 4});
  // Along the last axis the roi is [0.5, 1.5] of 3: source x = 1.5 + t * 1 for t = 0..3.
  CheckClose(RunCpuKernel(*node, {x, roi, Tensor(), sizes})[0], {1.5, 2.5, 9, 9}, 1e-6, 1e-6);
}

TEST_CASE("Einsum: matmul, batch, transpose, trace, diagonal, implicit output, ellipsis", "[device][einsum]") {
  std::mt19937 rng(61);
  Tensor a = RandomTensor(DataType::kDouble, {2, 3, 4}, rng);
  Tensor b = RandomTensor(DataType::kDouble, {2, 4, 5}, rng);
  Tensor sq = RandomTensor(DataType::kDouble, {3, 3}, rng);
  const auto ad = ToDoubles(a), bd = ToDoubles(b), sd = ToDoubles(sq);
  auto run = [](const std::string& equation, const std::vector<Tensor>& inputs, const Shape& out) {
    Graph g;
    std::vector<Value*> values;
    for (size_t i = 0; i < inputs.size(); ++i) {
      values.push_back(g.AddInput("x" + std::to_string(i), inputs[i].dtype(), inputs[i].shape()));
    }
    Node* node = g.AddNode("Einsum", "einsum", values);
    node->attrs().Set("equation", equation);
    SetOutput(node, 0, inputs[0].dtype(), out);
    return RunCpuKernel(*node, inputs)[0];
  };
  std::vector<double> bmm;
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 5; ++j) {
        double s = 0;
        for (int64_t k = 0; k < 4; ++k) s += ad[(n * 3 + i) * 4 + k] * bd[(n * 4 + k) * 5 + j];
        bmm.push_back(s);
      }
  CheckClose(run("bik,bkj->bij", {a, b}, {2, 3, 5}), bmm, 1e-12, 1e-12);
  CheckClose(run("...ik,...kj", {a, b}, {2, 3, 5}), bmm, 1e-12, 1e-12);
  std::vector<double> transposed;
  for (int64_t k = 0; k < 4; ++k)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t n = 0; n < 2; ++n) transposed.push_back(ad[(n * 3 + i) * 4 + k]);
  CheckClose(run("nik->kin", {a}, {4, 3, 2}), transposed, 0, 0);
  CheckClose(run("ii", {sq}, {}), {sd[0] + sd[4] + sd[8]}, 1e-12, 1e-12);
  CheckClose(run("ii->i", {sq}, {3}), {sd[0], sd[4], sd[8]}, 0, 0);
  double total = 0;
  for (double v : ad) total += v;
  CheckClose(run("nik->", {a}, {}), {total}, 1e-12, 1e-12);
  // Implicit output: labels used once, alphabetically ("ji" -> "ij" is a transpose).
  CheckClose(run("ji", {sq}, {3, 3}), {sd[0], sd[3], sd[6], sd[1], sd[4], sd[7], sd[2], sd[5], sd[8]}, 0, 0);
}

TEST_CASE("Einsum rejects a bad equation naming the node", "[device][einsum]") {
  Graph g;
  Node* node = g.AddNode("Einsum", "bad_einsum", {g.AddInput("x", DataType::kFloat, Shape{2, 3})});
  node->attrs().Set("equation", std::string("ijk->i"));
  SetOutput(node, 0, DataType::kFloat, {2});
  CHECK_THROWS_WITH(RunCpuKernel(*node, {}), Catch::Contains("bad_einsum") && Catch::Contains("rank"));
}
