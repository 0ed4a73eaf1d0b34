// Detection and sampling ops: NonMaxSuppressionV6, ROIAlign, GridSampler2D.
#include <fmt/core.h>

#include "graph/non_max_suppression.h"
#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"

namespace ge {
namespace {

constexpr int64_t kUnknown = Shape::kUnknownDim;

// A one-element float input (a threshold) as a double.
double ScalarValue(InferContext& ctx, const Tensor& t, const char* what) {
  if (t.num_elements() != 1) ctx.Fail(fmt::format("{} must hold one value, got shape {}", what, t.shape().ToString()));
  if (t.dtype() == DataType::kDouble) return t.data_as<double>()[0];
  if (t.dtype() == DataType::kFloat) return t.data_as<float>()[0];
  ctx.Fail(fmt::format("{} must be float32 or float64, got {}", what, DataTypeName(t.dtype())));
}

// The number of boxes NonMaxSuppression selects, when every input it reads is
// constant; kUnknown otherwise.
int64_t ConstantSelectionCount(InferContext& ctx, int64_t batches, int64_t classes, int64_t spatial) {
  const Tensor* boxes = ctx.input_constant(0);
  const Tensor* scores = ctx.input_constant(1);
  if (boxes == nullptr || scores == nullptr) return kUnknown;
  NmsParams p;
  p.batches = batches;
  p.classes = classes;
  p.spatial = spatial;
  p.center_point_box = infer::Attr<int64_t>(ctx, "center_point_box") != 0;
  if (ctx.has_input(2)) {
    auto max_out = infer::ConstantInts(ctx, 2);
    if (!max_out) return kUnknown;
    if (max_out->size() != 1) ctx.Fail(fmt::format("max_output_size must hold one value, got {}", max_out->size()));
    p.max_per_class = (*max_out)[0];
  }
  for (size_t input : {size_t{3}, size_t{4}}) {
    if (!ctx.has_input(input)) continue;
    const Tensor* t = ctx.input_constant(input);
    if (t == nullptr) return kUnknown;
    const double v = ScalarValue(ctx, *t, input == 3 ? "iou_threshold" : "score_threshold");
    if (input == 3) p.iou_threshold = v; else p.score_threshold = v;
  }
  if (boxes->dtype() == DataType::kDouble) {
    return static_cast<int64_t>(SelectBoxes(boxes->data_as<double>(), scores->data_as<double>(), p).size());
  }
  if (boxes->dtype() == DataType::kFloat) {
    return static_cast<int64_t>(SelectBoxes(boxes->data_as<float>(), scores->data_as<float>(), p).size());
  }
  ctx.Fail(fmt::format("boxes must be float32 or float64, got {}", DataTypeName(boxes->dtype())));
}

// boxes [batches, spatial, 4], scores [batches, classes, spatial] ->
// selected_indices int64 [count, 3]; count is known when the inputs are.
void InferNonMaxSuppression(InferContext& ctx) {
  if (const int64_t center = infer::Attr<int64_t>(ctx, "center_point_box"); center != 0 && center != 1) {
    ctx.Fail(fmt::format("attribute 'center_point_box' is {}; valid: 0 (corners), 1 (centre and size)", center));
  }
  const Shape boxes = infer::WithRank(ctx.input_shape(0), 3);
  const Shape scores = infer::WithRank(ctx.input_shape(1), 3);
  infer::RequireRank(ctx, boxes, 3, "boxes");
  infer::RequireRank(ctx, scores, 3, "scores");
  if (boxes.dim(2) != kUnknown && boxes.dim(2) != 4) {
    ctx.Fail(fmt::format("boxes {} must have 4 coordinates in its last dim", boxes.ToString()));
  }
  const int64_t batches = infer::MergeDim(ctx, boxes.dim(0), scores.dim(0), "the batch dims of boxes and scores");
  const int64_t spatial = infer::MergeDim(ctx, boxes.dim(1), scores.dim(2), "the box counts of boxes and scores");
  int64_t count = kUnknown;
  if (batches != kUnknown && spatial != kUnknown && scores.dim(1) != kUnknown) {
    count = ConstantSelectionCount(ctx, batches, scores.dim(1), spatial);
  }
  ctx.set_output(0, DataType::kInt64, Shape({count, 3}));
}

// x [N, C, H, W], rois [R, 4], batch_indices [R] -> y [R, C, pooled_height, pooled_width].
void InferRoiAlign(InferContext& ctx) {
  infer::Choice(ctx, "mode", {"avg", "max"});
  infer::Choice(ctx, "coordinate_transformation_mode", {"half_pixel", "output_half_pixel"});
  const int64_t pooled_h = infer::Attr<int64_t>(ctx, "pooled_height");
  const int64_t pooled_w = infer::Attr<int64_t>(ctx, "pooled_width");
  if (pooled_h <= 0 || pooled_w <= 0) {
    ctx.Fail(fmt::format("pooled_height {} and pooled_width {} must be positive", pooled_h, pooled_w));
  }
  if (infer::Attr<int64_t>(ctx, "sample_num") < 0) ctx.Fail("attribute 'sample_num' must not be negative");
  const Shape x = infer::WithRank(ctx.input_shape(0), 4);
  const Shape rois = infer::WithRank(ctx.input_shape(1), 2);
  const Shape indices = infer::WithRank(ctx.input_shape(2), 1);
  infer::RequireRank(ctx, x, 4, "x");
  infer::RequireRank(ctx, rois, 2, "rois");
  infer::RequireRank(ctx, indices, 1, "batch_indices");
  if (rois.dim(1) != kUnknown && rois.dim(1) != 4) {
    ctx.Fail(fmt::format("rois {} must hold 4 coordinates per roi", rois.ToString()));
  }
  const int64_t num_rois =
      infer::MergeDim(ctx, rois.dim(0), indices.dim(0), "the roi counts of rois and batch_indices");
  ctx.set_output(0, ctx.input_dtype(0), Shape({num_rois, x.dim(1), pooled_h, pooled_w}));
}

// x [N, C, H, W], grid [N, Hout, Wout, 2] -> y [N, C, Hout, Wout].
void InferGridSampler2D(InferContext& ctx) {
  infer::Choice(ctx, "interpolation_mode", {"bilinear", "nearest", "bicubic"});
  infer::Choice(ctx, "padding_mode", {"zeros", "border", "reflection"});
  const Shape x = infer::WithRank(ctx.input_shape(0), 4);
  const Shape grid = infer::WithRank(ctx.input_shape(1), 4);
  infer::RequireRank(ctx, x, 4, "x");
  infer::RequireRank(ctx, grid, 4, "grid");
  if (grid.dim(3) != kUnknown && grid.dim(3) != 2) {
    ctx.Fail(fmt::format("grid {} must hold (x, y) pairs in its last dim", grid.ToString()));
  }
  const int64_t n = infer::MergeDim(ctx, x.dim(0), grid.dim(0), "the batch dims of x and grid");
  ctx.set_output(0, ctx.input_dtype(0), Shape({n, x.dim(1), grid.dim(1), grid.dim(2)}));
}

}  // namespace

void RegisterDetectionOps(OpRegistry& registry) {
  registry.Register(OpSchema("NonMaxSuppressionV6")
                        .Input("boxes")
                        .Input("scores")
                        .OptionalInput("max_output_size", "TIndex")
                        .OptionalInput("iou_threshold", "TThreshold")
                        .OptionalInput("score_threshold", "TThreshold")
                        .Output("selected_indices", "TOut")
                        .Attr("center_point_box", int64_t{0})
                        .TypeConstraint("T", {DataType::kFloat, DataType::kDouble})
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .TypeConstraint("TThreshold", {DataType::kFloat, DataType::kDouble})
                        .TypeConstraint("TOut", {DataType::kInt64})
                        .Infer(InferNonMaxSuppression)
                        .Doc("ONNX NonMaxSuppression: per batch and class, boxes by decreasing score unless they "
                             "overlap a kept one by more than iou_threshold; rows [batch, class, box]."));
  registry.Register(OpSchema("ROIAlign")
                        .Input("x")
                        .Input("rois")
                        .Input("batch_indices", "TIndex")
                        .Output("y")
                        .Attr("spatial_scale", 1.0f)
                        .Attr("pooled_height", int64_t{1})
                        .Attr("pooled_width", int64_t{1})
                        .Attr("sample_num", int64_t{0})
                        .Attr("mode", std::string("avg"))
                        .Attr("coordinate_transformation_mode", std::string("half_pixel"))
                        .TypeConstraint("T", {DataType::kFloat, DataType::kDouble})
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .Infer(InferRoiAlign)
                        .Doc("ONNX RoiAlign: each roi [x1, y1, x2, y2] of image batch_indices[r], scaled by "
                             "spatial_scale, pooled to pooled_height x pooled_width bins of bilinear samples."));
  registry.Register(OpSchema("GridSampler2D")
                        .Input("x")
                        .Input("grid", "TGrid")
                        .Output("y")
                        .Attr("interpolation_mode", std::string("bilinear"))
                        .Attr("padding_mode", std::string("zeros"))
                        .Attr("align_corners", false)
                        .TypeConstraint("T", {DataType::kFloat, DataType::kDouble})
                        .TypeConstraint("TGrid", {DataType::kFloat, DataType::kDouble})
                        .Infer(InferGridSampler2D)
                        .Doc("ONNX GridSample (opset 16): x sampled at the normalized (x, y) positions of grid."));
}

}  // namespace ge
