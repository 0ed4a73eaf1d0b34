// MaxPoolV3 on 2-D planes of float32, float64, int8, uint8 and int16 over
// random shapes, windows, strides, pads and ceil_mode, bit for bit against a
// reference loop of the documented rule: only real input cells take part, the
// first one seeds the maximum and each later one replaces it when greater (so
// a NaN first in its window comes out, later NaNs are skipped, and of -0 and
// +0 the first stays); a window of padding only gives 0. These shapes cover
// both the row-vectorized common windows and the general path.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

#include "quantized_test_support.h"

using namespace ge;
using namespace ge::test;

namespace {

struct Window2D {
  int64_t kh, kw, sh, sw, pt, pb, pl, pr;
  bool ceil_mode;
};

// Output length with the ONNX/PyTorch rule: with ceil_mode, a last window
// that starts in the end padding is dropped.
int64_t PooledLength(int64_t in, int64_t k, int64_t s, int64_t pad_begin, int64_t pad_end, bool ceil_mode) {
  const int64_t span = in + pad_begin + pad_end - k;
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + pad_begin) --out;
  return out;
}

template <typename T>
std::vector<T> ReferenceMaxPool(const std::vector<T>& x, int64_t planes, int64_t h, int64_t w, const Window2D& win,
                                int64_t oh, int64_t ow) {
  std::vector<T> y;
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j) {
        bool seeded = false;
        T best{};
        for (int64_t a = 0; a < win.kh; ++a) {
          for (int64_t b = 0; b < win.kw; ++b) {
            const int64_t r = i * win.sh - win.pt + a, c = j * win.sw - win.pl + b;
            if (r < 0 || r >= h || c < 0 || c >= w) continue;
            const T v = x[(p * h + r) * w + c];
            if (!seeded || best < v) best = v;
            seeded = true;
          }
        }
        y.push_back(best);
      }
    }
  }
  return y;
}

// Random values of T; floats get NaNs and signed zeros mixed in.
template <typename T>
std::vector<T> RandomValues(int64_t count, std::mt19937& rng) {
  std::vector<T> values(count);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> dist(-4, 4);
    std::uniform_int_distribution<int> special(0, 19);
    for (T& v : values) {
      const int kind = special(rng);
      v = kind == 0 ? std::numeric_limits<T>::quiet_NaN() : kind == 1 ? T(-0.0) : kind == 2 ? T(0.0) : dist(rng);
    }
  } else {
    std::uniform_int_distribution<int64_t> dist(std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max());
    for (T& v : values) v = static_cast<T>(dist(rng));
  }
  return values;
}

template <typename T>
void CheckRandomWindows(DataType dtype, std::mt19937& rng) {
  std::uniform_int_distribution<int64_t> size(1, 19), kernel(1, 4), stride(1, 3), coin(0, 1);
  for (int trial = 0; trial < 300; ++trial) {
    Window2D win{kernel(rng), kernel(rng), stride(rng), stride(rng), 0, 0, 0, 0, coin(rng) == 1};
    // Mostly the common windows: 2x2 and 3x3, stride 1 or 2.
    if (trial % 3 != 0) {
      win.kh = win.kw = 2 + coin(rng);
      win.sh = win.sw = 1 + coin(rng);
    }
    std::uniform_int_distribution<int64_t> pad_h(0, win.kh - 1), pad_w(0, win.kw - 1);
    win.pt = pad_h(rng), win.pb = pad_h(rng), win.pl = pad_w(rng), win.pr = pad_w(rng);
    const int64_t n = 1 + coin(rng), c = 1 + coin(rng) * 2, h = size(rng), w = size(rng);
    if (h + win.pt + win.pb < win.kh || w + win.pl + win.pr < win.kw) continue;
    const int64_t oh = PooledLength(h, win.kh, win.sh, win.pt, win.pb, win.ceil_mode);
    const int64_t ow = PooledLength(w, win.kw, win.sw, win.pl, win.pr, win.ceil_mode);
    const std::vector<T> x = RandomValues<T>(n * c * h * w, rng);
    const std::vector<T> expected = ReferenceMaxPool(x, n * c, h, w, win, oh, ow);

    Graph g;
    Node* node = AddQuantOp(g, "MaxPoolV3", {g.AddInput("x", dtype, {n, c, h, w})}, dtype, {n, c, oh, ow},
                            {{"ksize", std::vector<int64_t>{1, 1, win.kh, win.kw}},
                             {"strides", std::vector<int64_t>{1, 1, win.sh, win.sw}},
                             {"pads", std::vector<int64_t>{win.pt, win.pb, win.pl, win.pr}},
                             {"ceil_mode", win.ceil_mode}});
    const Tensor y = RunCpuKernel(*node, {Tensor::FromVector(dtype, Shape{n, c, h, w}, x)})[0];
    INFO(DataTypeName(dtype) << " x [" << n << "," << c << "," << h << "," << w << "] k " << win.kh << "x" << win.kw
                             << " s " << win.sh << "x" << win.sw << " pads " << win.pt << "," << win.pb << "," << win.pl
                             << "," << win.pr << " ceil " << win.ceil_mode);
    REQUIRE(y.num_elements() == static_cast<int64_t>(expected.size()));
    // Bit patterns: NaNs compare equal to themselves here, and -0 differs from +0.
    REQUIRE(std::memcmp(y.data_as<T>(), expected.data(), expected.size() * sizeof(T)) == 0);
  }
}

}  // namespace

TEST_CASE("MaxPoolV3 2-D matches the reference bit for bit on random windows", "[device][pool][max_pool_2d]") {
  std::mt19937 rng(2026);
  CheckRandomWindows<float>(DataType::kFloat, rng);
  CheckRandomWindows<double>(DataType::kDouble, rng);
  CheckRandomWindows<int8_t>(DataType::kInt8, rng);
  CheckRandomWindows<uint8_t>(DataType::kUInt8, rng);
  CheckRandomWindows<int16_t>(DataType::kInt16, rng);
}

TEST_CASE("MaxPoolV3 2-D keeps a leading NaN and the first of equal zeros", "[device][pool][max_pool_2d]") {
  // A 1x3 window at stride 1 over one row of 6 columns: 4 outputs, each window inside the row.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {nan, 1.0f, nan, -0.0f, 0.0f, -1.0f};
  Graph g;
  Node* node =
      AddQuantOp(g, "MaxPoolV3", {g.AddInput("x", DataType::kFloat, {1, 1, 1, 6})}, DataType::kFloat, {1, 1, 1, 4},
                 {{"ksize", std::vector<int64_t>{1, 1, 1, 3}}, {"strides", std::vector<int64_t>{1, 1, 1, 1}}});
  const Tensor y = RunCpuKernel(*node, {Tensor::FromVector(DataType::kFloat, Shape{1, 1, 1, 6}, x)})[0];
  const float* v = y.data_as<float>();
  CHECK(std::isnan(v[0]));  // [NaN, 1, NaN]: the NaN seeds, nothing replaces it
  CHECK(v[1] == 1.0f);      // [1, NaN, -0]: the NaN is never greater
  CHECK(std::isnan(v[2]));  // [NaN, -0, 0]: the NaN seeds
  CHECK(v[3] == 0.0f);      // [-0, 0, -1]: +0 is not greater than -0, so -0 stays
  CHECK(std::signbit(v[3]));
}
