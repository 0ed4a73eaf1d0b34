// Resize: ONNX-style interpolation (CANN's Resize op) over any axes, with the
// output shape from a constant `sizes` or from floor(input * scales).
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"

namespace ge {
namespace {

constexpr size_t kScales = 2, kSizes = 3;

// Reads a constant float input (scales) as doubles; nullopt when absent, not
// constant or empty (an empty tensor stands for "not given" in ONNX).
std::optional<std::vector<double>> ConstantScales(InferContext& ctx) {
  if (!ctx.has_input(kScales)) return std::nullopt;
  const Tensor* scales = ctx.input_constant(kScales);
  if (scales == nullptr || scales->shape().NumElements() == 0) return std::nullopt;
  std::vector<double> values;
  for (int64_t i = 0; i < scales->shape().NumElements(); ++i) {
    values.push_back(scales->dtype() == DataType::kDouble ? scales->data_as<double>()[i] : scales->data_as<float>()[i]);
  }
  return values;
}

void InferResize(InferContext& ctx) {
  infer::Choice(ctx, "mode", {"nearest", "linear", "cubic"});
  infer::Choice(ctx, "coordinate_transformation_mode",
                {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn",
                 "tf_crop_and_resize"});
  infer::Choice(ctx, "nearest_mode", {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"});
  const Shape& x = ctx.input_shape(0);
  const DataType dtype = ctx.input_dtype(0);
  if (x.unknown_rank()) {
    ctx.set_output(0, dtype, Shape::UnknownRank());
    return;
  }
  std::vector<int64_t> dims(x.rank(), Shape::kUnknownDim);
  const bool has_sizes = ctx.has_input(kSizes);
  if (has_sizes) {
    if (auto sizes = infer::ConstantInts(ctx, kSizes)) {
      if (sizes->size() != x.rank()) {
        ctx.Fail(fmt::format("sizes has {} values; x {} has rank {}", sizes->size(), x.ToString(), x.rank()));
      }
      for (size_t d = 0; d < dims.size(); ++d) {
        if ((*sizes)[d] < 0) ctx.Fail(fmt::format("sizes [{}] has a negative value", fmt::join(*sizes, ", ")));
        dims[d] = (*sizes)[d];
      }
    }
  } else if (auto scales = ConstantScales(ctx)) {
    if (scales->size() != x.rank()) {
      ctx.Fail(fmt::format("scales has {} values; x {} has rank {}", scales->size(), x.ToString(), x.rank()));
    }
    for (size_t d = 0; d < dims.size(); ++d) {
      if (!((*scales)[d] > 0)) ctx.Fail(fmt::format("scales [{}] must be positive", fmt::join(*scales, ", ")));
      if (x.dim(d) != Shape::kUnknownDim) {
        dims[d] = infer::CheckedDimFromDouble(ctx, std::floor(static_cast<double>(x.dim(d)) * (*scales)[d]),
                                              fmt::format("dim {} of x {} times scale {}", d, x.ToString(),
                                                          (*scales)[d]));
      }
    }
  } else if (!ctx.has_input(kScales)) {
    ctx.Fail("one of scales (input 2) and sizes (input 3) must be given");
  }
  ctx.set_output(0, dtype, Shape(std::move(dims)));
}

}  // namespace

void RegisterResizeOps(OpRegistry& registry) {
  registry.Register(OpSchema("Resize")
                        .Input("x")
                        .OptionalInput("roi", "TFloat")
                        .OptionalInput("scales", "TFloat")
                        .OptionalInput("sizes", "TSize")
                        .Output("y")
                        .Attr("mode", std::string("nearest"))
                        .Attr("coordinate_transformation_mode", std::string("half_pixel"))
                        .Attr("nearest_mode", std::string("round_prefer_floor"))
                        .Attr("cubic_coeff_a", -0.75f)
                        .Attr("exclude_outside", int64_t{0})
                        .Attr("extrapolation_value", 0.0f)
                        .TypeConstraint("T", types::Numeric())
                        .TypeConstraint("TFloat", {DataType::kFloat, DataType::kDouble})
                        .TypeConstraint("TSize", {DataType::kInt64})
                        .Infer(InferResize)
                        .Doc("ONNX Resize (opset 11-13 semantics): nearest/linear/cubic over every axis; sizes, "
                             "else scales, gives the output shape."));
}

}  // namespace ge
