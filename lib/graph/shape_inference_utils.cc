#include "graph/shape_inference_utils.h"

#include <fmt/core.h>

#include <algorithm>

#include "ge/error.h"

namespace ge {
namespace {

constexpr int64_t kUnknown = Shape::kUnknownDim;

// Broadcasts one aligned pair of dims into `out`; false when they conflict.
bool BroadcastDim(int64_t a, int64_t b, int64_t& out) {
  if (a == kUnknown && b == kUnknown) {
    out = kUnknown;
  } else if (a == kUnknown) {
    out = b == 1 ? kUnknown : b;
  } else if (b == kUnknown) {
    out = a == 1 ? kUnknown : a;
  } else if (a == b || b == 1) {
    out = a;
  } else if (a == 1) {
    out = b;
  } else {
    return false;
  }
  return true;
}

void CheckWindowParams(int64_t kernel, int64_t stride, int64_t dilation) {
  if (kernel <= 0 || stride <= 0 || dilation <= 0) {
    throw Error(
        ErrorCode::kInvalidArgument,
        fmt::format("kernel ({}), stride ({}) and dilation ({}) must all be positive", kernel, stride, dilation));
  }
}

// Dilated kernel extent and padded input length, checked so that at least one
// window fits.
int64_t SlidingSpan(int64_t input, int64_t kernel, int64_t pad_begin, int64_t pad_end, int64_t dilation) {
  // Attribute values come from model files; a product or sum that wraps would pass the fit test below.
  int64_t extent = 0, span = 0;
  if (__builtin_mul_overflow(dilation, kernel - 1, &extent) || __builtin_add_overflow(extent, 1, &extent) ||
      __builtin_add_overflow(input, pad_begin, &span) || __builtin_add_overflow(span, pad_end, &span) ||
      __builtin_sub_overflow(span, extent, &span)) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("window (kernel {}, dilation {}) over input length {} padded by {}+{} overflows int64",
                            kernel, dilation, input, pad_begin, pad_end));
  }
  if (span < 0) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("window of extent {} (kernel {}, dilation {}) does not fit in input length {} padded by "
                            "{}+{}",
                            extent, kernel, dilation, input, pad_begin, pad_end));
  }
  return span;
}

}  // namespace

Shape BroadcastShapes(const Shape& a, const Shape& b) {
  if (a.unknown_rank() || b.unknown_rank()) return Shape::UnknownRank();
  const size_t rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Align from the trailing dimension; a missing leading dim acts as 1.
    const int64_t da = i < rank - a.rank() ? 1 : a.dim(i - (rank - a.rank()));
    const int64_t db = i < rank - b.rank() ? 1 : b.dim(i - (rank - b.rank()));
    if (!BroadcastDim(da, db, dims[i])) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("shapes {} and {} are not broadcastable (dimension {} of the result: {} vs {})",
                              a.ToString(), b.ToString(), i, da, db));
    }
  }
  return Shape(std::move(dims));
}

int64_t NormalizeAxis(int64_t axis, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("axis {} is out of range for rank {} (valid: [{}, {}])", axis, rank, -r, r - 1));
  }
  return axis < 0 ? axis + r : axis;
}

int64_t ConvOutputDim(int64_t input, int64_t kernel, int64_t stride, int64_t pad_begin, int64_t pad_end,
                      int64_t dilation) {
  CheckWindowParams(kernel, stride, dilation);
  if (input == kUnknown) return kUnknown;
  return SlidingSpan(input, kernel, pad_begin, pad_end, dilation) / stride + 1;
}

int64_t PoolOutputDim(int64_t input, int64_t kernel, int64_t stride, int64_t pad_begin, int64_t pad_end,
                      int64_t dilation, bool ceil_mode) {
  CheckWindowParams(kernel, stride, dilation);
  if (input == kUnknown) return kUnknown;
  const int64_t span = SlidingSpan(input, kernel, pad_begin, pad_end, dilation);
  const int64_t floor_out = span / stride + 1;
  if (!ceil_mode) return floor_out;
  const int64_t ceil_out = floor_out + (span % stride != 0 ? 1 : 0);
  // The partial window added by rounding up is dropped when it would start
  // past the input, i.e. cover only end padding. Its start (ceil_out - 1) *
  // stride can pass int64 for an input near it, and is then past the input
  // (input + pad_begin fits: SlidingSpan checked it).
  int64_t last_start = 0;
  if (ceil_out > floor_out && (__builtin_mul_overflow(ceil_out - 1, stride, &last_start) ||
                               last_start >= input + pad_begin)) {
    return floor_out;
  }
  return ceil_out;
}

int64_t ConvTransposeOutputDim(int64_t input, int64_t kernel, int64_t stride, int64_t pad_begin, int64_t pad_end,
                               int64_t dilation, int64_t output_padding) {
  CheckWindowParams(kernel, stride, dilation);
  if (input == kUnknown) return kUnknown;
  int64_t out = 0, extent = 0;
  if (__builtin_mul_overflow(stride, input - 1, &out) || __builtin_mul_overflow(dilation, kernel - 1, &extent) ||
      __builtin_add_overflow(extent, 1, &extent) || __builtin_add_overflow(out, extent, &out) ||
      __builtin_add_overflow(out, output_padding, &out) ||
      __builtin_sub_overflow(out, pad_begin, &out) || __builtin_sub_overflow(out, pad_end, &out)) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("transposed convolution output length overflows int64 (input {}, kernel {}, stride {}, "
                            "pads {}+{}, dilation {}, output_padding {})",
                            input, kernel, stride, pad_begin, pad_end, dilation, output_padding));
  }
  if (out <= 0) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("transposed convolution output length {} is not positive (input {}, kernel {}, stride "
                            "{}, pads {}+{}, dilation {}, output_padding {})",
                            out, input, kernel, stride, pad_begin, pad_end, dilation, output_padding));
  }
  return out;
}

}  // namespace ge
