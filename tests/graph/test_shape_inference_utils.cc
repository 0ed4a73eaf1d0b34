// Shape arithmetic against hand-computed values and a brute-force window count.
#include <catch2/catch.hpp>

#include "ge/error.h"
#include "graph/shape_inference_utils.h"

using ge::Shape;
constexpr int64_t kU = Shape::kUnknownDim;

namespace {

// Counts sliding-window positions directly: a window starts every `stride`
// positions from -pad_begin. In floor mode it must end inside the padded input;
// in ceil mode a window may also overhang the padded end by less than a stride,
// provided it starts in the begin padding or the input (PyTorch's documented rule).
int64_t CountWindows(int64_t input, int64_t kernel, int64_t stride, int64_t pad_begin, int64_t pad_end,
                     int64_t dilation, bool ceil_mode) {
  const int64_t extent = dilation * (kernel - 1) + 1;
  int64_t count = 0;
  for (int64_t start = -pad_begin;; start += stride) {
    const int64_t overhang = start + extent - (input + pad_end);
    const bool fits = overhang <= 0;
    const bool partial_ok = ceil_mode && start < input && overhang < stride;
    if (!fits && !partial_ok) break;
    ++count;
  }
  return count;
}

}  // namespace

TEST_CASE("BroadcastShapes follows numpy rules") {
  CHECK(ge::BroadcastShapes(Shape{2, 1, 4}, Shape{3, 1}) == Shape{2, 3, 4});
  CHECK(ge::BroadcastShapes(Shape{5}, Shape{}) == Shape{5});
  CHECK(ge::BroadcastShapes(Shape{}, Shape{}) == Shape{});
  CHECK(ge::BroadcastShapes(Shape{1, 0}, Shape{3, 1}) == Shape{3, 0});
  CHECK(ge::BroadcastShapes(Shape{kU, 3}, Shape{4, 1}) == Shape{4, 3});
  CHECK(ge::BroadcastShapes(Shape{kU}, Shape{1}) == Shape{kU});
  CHECK(ge::BroadcastShapes(Shape{kU}, Shape{kU}) == Shape{kU});
  CHECK(ge::BroadcastShapes(Shape::UnknownRank(), Shape{3}).unknown_rank());
}

TEST_CASE("BroadcastShapes rejects incompatible shapes naming both") {
  try {
    ge::BroadcastShapes(Shape{2, 3}, Shape{4});
    FAIL("expected an error");
  } catch (const ge::Error& e) {
    CHECK(e.code() == ge::ErrorCode::kInvalidArgument);
    CHECK_THAT(e.what(), Catch::Contains("[2,3]") && Catch::Contains("[4]"));
  }
}

TEST_CASE("NormalizeAxis maps negative axes and rejects out-of-range ones") {
  CHECK(ge::NormalizeAxis(-1, 4) == 3);
  CHECK(ge::NormalizeAxis(-4, 4) == 0);
  CHECK(ge::NormalizeAxis(3, 4) == 3);
  CHECK_THROWS_AS(ge::NormalizeAxis(4, 4), ge::Error);
  CHECK_THROWS_AS(ge::NormalizeAxis(-5, 4), ge::Error);
  CHECK_THROWS_WITH(ge::NormalizeAxis(0, 0), Catch::Contains("rank 0"));
}

TEST_CASE("ConvOutputDim matches hand-computed sizes") {
  CHECK(ge::ConvOutputDim(224, 7, 2, 3, 3, 1) == 112);  // ResNet stem
  CHECK(ge::ConvOutputDim(10, 3, 1, 0, 0, 2) == 6);     // dilated extent 5
  CHECK(ge::ConvOutputDim(9, 3, 2, 2, 1, 1) == 5);      // asymmetric pads
  CHECK(ge::ConvOutputDim(kU, 3, 1, 1, 1, 1) == kU);
  CHECK_THROWS_AS(ge::ConvOutputDim(2, 5, 1, 0, 0, 1), ge::Error);
  CHECK_THROWS_AS(ge::ConvOutputDim(8, 3, 0, 0, 0, 1), ge::Error);
}

TEST_CASE("PoolOutputDim ceil_mode drops a window that starts in the end padding") {
  CHECK(ge::PoolOutputDim(5, 2, 2, 0, 0, 1, false) == 2);
  CHECK(ge::PoolOutputDim(5, 2, 2, 0, 0, 1, true) == 3);
  CHECK(ge::PoolOutputDim(6, 3, 2, 1, 1, 1, true) == 4);
  // ceil((5+2-2)/3)+1 = 3, but the third window starts at 5 = past the input: dropped.
  CHECK(ge::PoolOutputDim(5, 2, 3, 1, 1, 1, true) == 2);
  CHECK(ge::PoolOutputDim(112, 3, 2, 1, 1, 1, false) == 56);
}

TEST_CASE("Conv and pool output sizes agree with a brute-force window count") {
  for (int64_t input = 1; input <= 12; ++input) {
    for (int64_t kernel = 1; kernel <= 4; ++kernel) {
      for (int64_t stride = 1; stride <= 3; ++stride) {
        for (int64_t pad_begin = 0; pad_begin <= 2; ++pad_begin) {
          for (int64_t pad_end = 0; pad_end <= 2; ++pad_end) {
            for (int64_t dilation = 1; dilation <= 2; ++dilation) {
              const int64_t extent = dilation * (kernel - 1) + 1;
              if (extent > input + pad_begin + pad_end) continue;
              INFO("input " << input << " kernel " << kernel << " stride " << stride << " pads " << pad_begin << ","
                            << pad_end << " dilation " << dilation);
              CHECK(ge::ConvOutputDim(input, kernel, stride, pad_begin, pad_end, dilation) ==
                    CountWindows(input, kernel, stride, pad_begin, pad_end, dilation, false));
              CHECK(ge::PoolOutputDim(input, kernel, stride, pad_begin, pad_end, dilation, true) ==
                    CountWindows(input, kernel, stride, pad_begin, pad_end, dilation, true));
            }
          }
        }
      }
    }
  }
}

TEST_CASE("ConvTransposeOutputDim inverts the convolution size") {
  // stride*(in-1) + output_padding + dilation*(k-1) + 1 - pads
  CHECK(ge::ConvTransposeOutputDim(4, 3, 2, 1, 1, 1, 1) == 8);
  CHECK(ge::ConvTransposeOutputDim(7, 4, 2, 1, 1, 1, 0) == 14);
  CHECK(ge::ConvOutputDim(14, 4, 2, 1, 1, 1) == 7);
  CHECK(ge::ConvTransposeOutputDim(kU, 3, 2, 1, 1, 1, 0) == kU);
  CHECK_THROWS_AS(ge::ConvTransposeOutputDim(1, 1, 1, 1, 1, 1, 0), ge::Error);
}
