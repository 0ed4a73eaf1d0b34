// Identity, Reshape, Pad and ConcatV2.
#include <fmt/format.h>

#include "graph/tf/tf_translation.h"

namespace ge::tf_import {
namespace {

std::vector<Value*> Identity(TfNodeContext& ctx) { return {ctx.Op("Identity", {ctx.input(0)}, {}, ctx.node().name())}; }

std::vector<Value*> Reshape(TfNodeContext& ctx) {
  return {ctx.Op("Reshape", {ctx.input(0), ctx.input(1)}, {}, ctx.node().name())};
}

// TensorFlow's paddings [rank, 2] (before, after per dim), flattened for PadV3.
// TensorFlow's paddings [rank, 2] read row by row are PadV3's contiguous
// [begin_0, end_0, begin_1, ...]; computed ones are flattened at run time.
std::vector<Value*> Pad(TfNodeContext& ctx) {
  Value* flat = nullptr;
  if (ctx.constant(1) != nullptr) {
    const std::vector<int64_t> paddings = ctx.ConstantInts(1, "paddings");
    const auto count = static_cast<int64_t>(paddings.size());
    flat = ctx.Constant("paddings", Tensor::FromVector(DataType::kInt64, Shape({count}), paddings));
  } else {
    Value* shape = ctx.Constant("flat_shape", Tensor::FromVector(DataType::kInt64, Shape({1}), std::vector<int64_t>{-1}));
    flat = ctx.Op("Reshape", {ctx.input(1), shape}, {}, ctx.Name("paddings"));
  }
  std::vector<Value*> inputs = {ctx.input(0), flat};
  if (ctx.node().op() == "PadV2") inputs.push_back(ctx.input(2));
  return {ctx.Op("PadV3", inputs, {{"mode", std::string("constant")}, {"paddings_contiguous", true}},
                 ctx.node().name())};
}

std::vector<Value*> ConcatV2(TfNodeContext& ctx) {
  if (ctx.num_inputs() < 2) ctx.Fail("ConcatV2 needs values and an axis");
  const std::vector<int64_t> axis = ctx.ConstantInts(ctx.num_inputs() - 1, "axis");
  if (axis.size() != 1) ctx.Fail("axis must be one value");
  std::vector<Value*> values;
  for (size_t i = 0; i + 1 < ctx.num_inputs(); ++i) values.push_back(ctx.input(i));
  const auto n = static_cast<int64_t>(values.size());
  return {ctx.Op("ConcatD", values, {{"concat_dim", axis[0]}, {"N", n}}, ctx.node().name())};
}

}  // namespace

void AddShapeTranslators(TfTranslators& table) {
  table["Identity"] = Identity;
  table["Reshape"] = Reshape;
  table["Pad"] = Pad;
  table["PadV2"] = Pad;
  table["ConcatV2"] = ConcatV2;
}

}  // namespace ge::tf_import
