// NonMaxSuppressionV3/V4/V5 without soft suppression. TensorFlow's greedy
// selection is ge's NonMaxSuppressionV6 (ONNX's) on one batch and one class:
// boxes [N, 4] as two corners in either order, scores kept when strictly
// above score_threshold, a box dropped when its IoU with a kept one exceeds
// iou_threshold, equal scores taken lower index first. The [K, 3] rows it
// selects give TensorFlow's int32 box indices (their third column), V5's
// scores of the kept boxes and V4/V5's valid_outputs (K), padded to
// max_output_size when pad_to_max_output_size asks.
#include <fmt/format.h>

#include "graph/tf/tf_translation.h"

namespace ge::tf_import {
namespace {

Value* Int64Constant(TfNodeContext& ctx, const std::string& suffix, std::vector<int64_t> values, Shape shape) {
  return ctx.Constant(suffix, Tensor::FromVector(DataType::kInt64, std::move(shape), values));
}

Value* CastTo(TfNodeContext& ctx, Value* x, DataType dtype, const std::string& name) {
  return ctx.Op("Cast", {x}, {{"dst_type", static_cast<int64_t>(dtype)}}, name);
}

// `x` [K] padded with zeros to [max_output_size].
Value* PadToMax(TfNodeContext& ctx, Value* x, Value* k, Value* max_output_size, const std::string& name) {
  Value* missing = ctx.Op("Sub", {max_output_size, k}, {}, ctx.Name(name + "_missing"));
  Value* paddings = ctx.Op("ConcatD", {Int64Constant(ctx, name + "_before", {0}, Shape({1})), missing},
                           {{"concat_dim", int64_t{0}}, {"N", int64_t{2}}}, ctx.Name(name + "_paddings"));
  return ctx.Op("PadV3", {x, paddings}, {}, ctx.Name(name + "_padded"));
}

std::vector<Value*> NonMaxSuppression(TfNodeContext& ctx) {
  const std::string& op = ctx.node().op();
  const bool v5 = op == "NonMaxSuppressionV5";
  const bool reports_count = v5 || op == "NonMaxSuppressionV4";
  if (v5) {
    const Tensor* sigma = ctx.constant(5);
    const bool zero = sigma != nullptr && sigma->num_elements() == 1 &&
                      ((sigma->dtype() == DataType::kFloat && sigma->data_as<float>()[0] == 0) ||
                       (sigma->dtype() == DataType::kDouble && sigma->data_as<double>()[0] == 0));
    if (!zero) {
      ctx.Fail("soft_nms_sigma must be a constant 0 (soft suppression is not supported)", /*unsupported=*/true);
    }
  }
  Value* boxes = ctx.Op("Unsqueeze", {ctx.input(0)}, {{"axes", std::vector<int64_t>{0}}}, ctx.Name("boxes"));
  Value* scores = ctx.Op("Unsqueeze", {ctx.input(1)}, {{"axes", std::vector<int64_t>{0, 1}}}, ctx.Name("scores"));
  Value* max_output_size = CastTo(ctx, ctx.input(2), DataType::kInt64, ctx.Name("max_output_size"));
  Value* rows = ctx.Op("NonMaxSuppressionV6", {boxes, scores, max_output_size, ctx.input(3), ctx.input(4)},
                       {{"center_point_box", int64_t{0}}}, ctx.Name("selected"));
  Value* box_index = ctx.Op("GatherV2D", {rows, Int64Constant(ctx, "column", {2}, Shape())}, {{"axis", int64_t{1}}},
                            ctx.Name("box_index"));
  Value* count = ctx.Op("Shape", {box_index}, {{"dtype", static_cast<int64_t>(DataType::kInt64)}}, ctx.Name("count"));
  // TensorFlow pads with box 0 and score 0.
  const bool pad = reports_count && ctx.Bool("pad_to_max_output_size", false);
  Value* max_as_vector =
      pad ? ctx.Op("Unsqueeze", {max_output_size}, {{"axes", std::vector<int64_t>{0}}}, ctx.Name("max")) : nullptr;
  auto padded = [&](Value* x, const std::string& name) {
    return pad ? PadToMax(ctx, x, count, max_as_vector, name) : x;
  };
  std::vector<Value*> outputs = {CastTo(ctx, padded(box_index, "indices"), DataType::kInt32, ctx.node().name())};
  if (v5) {
    Value* kept = ctx.Op("GatherV2D", {ctx.input(1), box_index}, {{"axis", int64_t{0}}}, ctx.Name("kept_scores"));
    outputs.push_back(padded(kept, "scores"));
  }
  if (reports_count) {
    Value* scalar = ctx.Op("Squeeze", {count}, {{"axis", std::vector<int64_t>{0}}}, ctx.Name("count_scalar"));
    outputs.push_back(CastTo(ctx, scalar, DataType::kInt32, ctx.Name("valid_outputs")));
  }
  return outputs;
}

}  // namespace

void AddDetectionTranslators(TfTranslators& table) {
  for (const char* op : {"NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5"}) {
    table[op] = NonMaxSuppression;
  }
}

}  // namespace ge::tf_import
