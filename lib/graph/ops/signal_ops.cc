// Signal ops: the window generators HannWindow, HammingWindow, BlackmanWindow,
// DFT, STFT and MelWeightMatrix.
#include <fmt/core.h>

#include <algorithm>

#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"

namespace ge {
namespace {

// The numeric output dtype of the generators (attribute dtype).
DataType OutputDtype(InferContext& ctx) {
  const auto dtype = static_cast<DataType>(infer::Attr<int64_t>(ctx, "dtype"));
  const auto& allowed = types::Numeric();
  if (std::find(allowed.begin(), allowed.end(), dtype) == allowed.end()) {
    ctx.Fail(fmt::format("attribute 'dtype' = {} is not a numeric dtype", static_cast<int64_t>(dtype)));
  }
  return dtype;
}

// size (a scalar) -> y [size] of dtype `dtype`; the length is known when size is constant.
void InferWindow(InferContext& ctx) {
  const DataType dtype = OutputDtype(ctx);
  int64_t length = Shape::kUnknownDim;
  if (auto size = infer::ConstantInts(ctx, 0)) {
    if (size->size() != 1) ctx.Fail(fmt::format("size must hold one value, got {}", size->size()));
    length = (*size)[0];
    if (length < 0) ctx.Fail(fmt::format("size {} must not be negative", length));
  }
  ctx.set_output(0, dtype, Shape({length}));
}

// x [..., n, ..., 1 or 2] (real or complex) -> y [..., m, ..., 2] along axis, with m = dft_length (when
// constant; else x's n when it is absent), floor(m / 2) + 1 when onesided.
void InferDft(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const DataType dtype = ctx.input_dtype(0);
  if (x.unknown_rank()) {
    ctx.set_output(0, dtype, Shape::UnknownRank());
    return;
  }
  const auto rank = static_cast<int64_t>(x.rank());
  if (rank < 2) {
    ctx.Fail(fmt::format("x {} needs a signal axis and a last dim of 1 (real) or 2 (complex)", x.ToString()));
  }
  if (x.dims().back() != Shape::kUnknownDim && x.dims().back() != 1 && x.dims().back() != 2) {
    ctx.Fail(fmt::format("the last dim of x {} must be 1 (real) or 2 (complex)", x.ToString()));
  }
  const int64_t axis = infer::Axis(ctx, infer::Attr<int64_t>(ctx, "axis"), x.rank(), "attribute 'axis'");
  if (axis == rank - 1) {
    ctx.Fail(fmt::format("attribute 'axis' must not be the last (complex) dim of x {}", x.ToString()));
  }
  int64_t length = ctx.has_input(1) ? Shape::kUnknownDim : x.dim(axis);
  if (ctx.has_input(1)) {
    if (auto dft_length = infer::ConstantInts(ctx, 1)) {
      if (dft_length->size() != 1 || (*dft_length)[0] <= 0) ctx.Fail("dft_length must be one positive value");
      length = (*dft_length)[0];
    }
  }
  if (length != Shape::kUnknownDim && infer::Attr<bool>(ctx, "onesided")) length = length / 2 + 1;
  std::vector<int64_t> dims = x.dims();
  dims[axis] = length;
  dims.back() = 2;
  ctx.set_output(0, dtype, Shape(std::move(dims)));
}

// A constant one-value integer input, or kUnknownDim.
int64_t ConstantScalar(InferContext& ctx, size_t input, const char* what) {
  auto values = infer::ConstantInts(ctx, input);
  if (!values) return Shape::kUnknownDim;
  if (values->size() != 1 || (*values)[0] <= 0) ctx.Fail(fmt::format("{} must be one positive value", what));
  return (*values)[0];
}

// signal [batch, length, 1 or 2] -> y [batch, frames, bins, 2]: frames = (length - frame_length) / frame_step
// + 1, bins = frame_length (onesided: frame_length / 2 + 1); frame_length defaults to the window's length.
void InferStft(InferContext& ctx) {
  const Shape signal = infer::WithRank(ctx.input_shape(0), 3);
  infer::RequireRank(ctx, signal, 3, "signal");
  if (signal.dim(2) != Shape::kUnknownDim && signal.dim(2) != 1 && signal.dim(2) != 2) {
    ctx.Fail(fmt::format("the last dim of signal {} must be 1 (real) or 2 (complex)", signal.ToString()));
  }
  const int64_t step = ConstantScalar(ctx, 1, "frame_step");
  int64_t frame_length = Shape::kUnknownDim;
  if (ctx.has_input(2)) {
    const Shape window = infer::WithRank(ctx.input_shape(2), 1);
    infer::RequireRank(ctx, window, 1, "window");
    frame_length = window.dim(0);
  }
  if (ctx.has_input(3)) {
    frame_length = infer::MergeDim(ctx, frame_length, ConstantScalar(ctx, 3, "frame_length"),
                                   "the window length and frame_length");
  } else if (!ctx.has_input(2)) {
    ctx.Fail("one of window (input 2) and frame_length (input 3) must be given");
  }
  int64_t frames = Shape::kUnknownDim, bins = Shape::kUnknownDim;
  if (frame_length != Shape::kUnknownDim) {
    bins = infer::Attr<bool>(ctx, "onesided") ? frame_length / 2 + 1 : frame_length;
    if (signal.dim(1) != Shape::kUnknownDim && frame_length > signal.dim(1)) {
      ctx.Fail(fmt::format("frame_length {} is longer than signal {}", frame_length, signal.ToString()));
    }
    if (signal.dim(1) != Shape::kUnknownDim && step != Shape::kUnknownDim) {
      frames = (signal.dim(1) - frame_length) / step + 1;
    }
  }
  ctx.set_output(0, ctx.input_dtype(0), Shape({signal.dim(0), frames, bins, 2}));
}

// y [dft_length / 2 + 1, num_mel_bins] of dtype `dtype`, known when both are constant.
void InferMelWeightMatrix(InferContext& ctx) {
  const DataType dtype = OutputDtype(ctx);
  const int64_t mel_bins = ConstantScalar(ctx, 0, "num_mel_bins");
  const int64_t dft_length = ConstantScalar(ctx, 1, "dft_length");
  ctx.set_output(0, dtype, Shape({dft_length == Shape::kUnknownDim ? dft_length : dft_length / 2 + 1, mel_bins}));
}

}  // namespace

void RegisterSignalOps(OpRegistry& registry) {
  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"}) {
    registry.Register(OpSchema(op)
                          .Input("size", "TIndex")
                          .Output("y", "TOut")
                          .Attr("periodic", true)
                          .Attr("dtype", static_cast<int64_t>(DataType::kFloat))
                          .TypeConstraint("TIndex", types::IndexTypes())
                          .TypeConstraint("TOut", types::Numeric())
                          .Infer(InferWindow)
                          .Doc("A window of `size` samples (ONNX opset 17): periodic windows have period size, "
                               "symmetric ones size - 1."));
  }
  registry.Register(OpSchema("DFT")
                        .Input("x")
                        .OptionalInput("dft_length", "TIndex")
                        .Output("y")
                        .Attr("axis", int64_t{1})
                        .Attr("inverse", false)
                        .Attr("onesided", false)
                        .TypeConstraint("T", {DataType::kFloat, DataType::kDouble})
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .Infer(InferDft)
                        .Doc("ONNX DFT (opset 17): the discrete Fourier transform (inverse: scaled by 1/n) of x "
                             "along axis, zero-padded or cut to dft_length; complex results in the last dim."));
  registry.Register(OpSchema("STFT")
                        .Input("signal")
                        .Input("frame_step", "TIndex")
                        .OptionalInput("window")
                        .OptionalInput("frame_length", "TIndex")
                        .Output("y")
                        .Attr("onesided", true)
                        .TypeConstraint("T", {DataType::kFloat, DataType::kDouble})
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .Infer(InferStft)
                        .Doc("ONNX STFT (opset 17): the DFT of each windowed frame of the signal."));
  registry.Register(OpSchema("MelWeightMatrix")
                        .Input("num_mel_bins", "TIndex")
                        .Input("dft_length", "TIndex")
                        .Input("sample_rate", "TIndex")
                        .Input("lower_edge_hertz", "TFloat")
                        .Input("upper_edge_hertz", "TFloat")
                        .Output("y", "TOut")
                        .Attr("dtype", static_cast<int64_t>(DataType::kFloat))
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .TypeConstraint("TFloat", {DataType::kFloat, DataType::kDouble})
                        .TypeConstraint("TOut", types::Numeric())
                        .Infer(InferMelWeightMatrix)
                        .Doc("ONNX MelWeightMatrix (opset 17): triangular mel filters over the dft_length / 2 + 1 "
                             "spectrogram bins."));
}

}  // namespace ge
