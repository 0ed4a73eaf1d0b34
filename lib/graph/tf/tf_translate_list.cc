// TensorFlow's TensorList ops (what tf.map_fn and TensorArray become) as ge's
// sequences (graph/ops/sequence_ops.cc). A list of n reserved slots is a
// sequence of n empty placeholders ([0] each), so that TensorListSetItem can
// always be "erase the slot, insert the item there". The element_shape a
// list op declares travels as the sequence op's element_shape, so that what
// the model computes from an element (a resize, a convolution's padding)
// sees its rank and known dims.
#include <cstring>

#include <fmt/format.h>

#include "graph/tf/tf_translation.h"

namespace ge::tf_import {
namespace {

// The element_shape input (-1 or a list with -1 for unknown dims) as the
// sequence ops' attribute: empty when the rank is unknown.
std::vector<int64_t> ElementShape(TfNodeContext& ctx, size_t input) {
  const Tensor* shape = ctx.constant(input);
  if (shape == nullptr || shape->shape().rank() == 0) return {};  // a scalar -1: unknown rank
  return shape->ToInt64Vector();
}

Value* Int64Scalar(TfNodeContext& ctx, Value* x, const std::string& suffix) {
  return ctx.Op("Cast", {x}, {{"dst_type", static_cast<int64_t>(DataType::kInt64)}}, ctx.Name(suffix));
}

// TensorListReserve(element_shape, num_elements): num_elements empty slots.
std::vector<Value*> Reserve(TfNodeContext& ctx) {
  const DataType dtype = ctx.Dtype("element_dtype", DataType::kFloat);
  Value* count = ctx.Op("Unsqueeze", {Int64Scalar(ctx, ctx.input(1), "count")}, {{"axes", std::vector<int64_t>{0}}},
                        ctx.Name("count_1d"));
  Value* dims = ctx.Op("ConcatD",
                       {count, ctx.Constant("empty_dim", Tensor::FromVector(DataType::kInt64, Shape({1}),
                                                                            std::vector<int64_t>{0}))},
                       {{"concat_dim", int64_t{0}}, {"N", int64_t{2}}}, ctx.Name("dims"));
  Tensor zero(dtype, Shape());
  std::memset(zero.data(), 0, zero.nbytes());
  Value* slots = ctx.Op("Fill", {dims, ctx.Constant("zero", std::move(zero))}, {}, ctx.Name("slots"));
  return {ctx.Op("SplitToSequence", {slots}, {{"axis", int64_t{0}}, {"keepdims", int64_t{0}}}, ctx.node().name())};
}

// TensorListFromTensor(tensor, element_shape): its slices along axis 0.
std::vector<Value*> FromTensor(TfNodeContext& ctx) {
  return {ctx.Op("SplitToSequence", {ctx.input(0)}, {{"axis", int64_t{0}}, {"keepdims", int64_t{0}}},
                 ctx.node().name())};
}

// TensorListGetItem(list, index, element_shape).
std::vector<Value*> GetItem(TfNodeContext& ctx) {
  return {ctx.Op("SequenceAt", {ctx.input(0), ctx.input(1)},
                 {{"dtype", ctx.Dtype("element_dtype", DataType::kFloat)}, {"element_shape", ElementShape(ctx, 2)}},
                 ctx.node().name())};
}

// TensorListSetItem(list, index, item): the slot at index replaced.
std::vector<Value*> SetItem(TfNodeContext& ctx) {
  Value* without = ctx.Op("SequenceErase", {ctx.input(0), ctx.input(1)}, {}, ctx.Name("erased"));
  return {ctx.Op("SequenceInsert", {without, ctx.input(2), ctx.input(1)}, {}, ctx.node().name())};
}

// TensorListStack(list, element_shape): the elements stacked along a new axis 0.
std::vector<Value*> Stack(TfNodeContext& ctx) {
  return {ctx.Op("ConcatFromSequence", {ctx.input(0)},
                 {{"axis", int64_t{0}},
                  {"new_axis", int64_t{1}},
                  {"dtype", ctx.Dtype("element_dtype", DataType::kFloat)},
                  {"element_shape", ElementShape(ctx, 1)}},
                 ctx.node().name())};
}

// TensorListLength(list): int32, as TensorFlow gives it.
std::vector<Value*> Length(TfNodeContext& ctx) {
  Value* length = ctx.Op("SequenceLength", {ctx.input(0)}, {}, ctx.Name("length"));
  return {ctx.Op("Cast", {length}, {{"dst_type", static_cast<int64_t>(DataType::kInt32)}}, ctx.node().name())};
}

}  // namespace

void AddListTranslators(TfTranslators& table) {
  table["TensorListReserve"] = Reserve;
  table["TensorListFromTensor"] = FromTensor;
  table["TensorListGetItem"] = GetItem;
  table["TensorListSetItem"] = SetItem;
  table["TensorListStack"] = Stack;
  table["TensorListLength"] = Length;
}

}  // namespace ge::tf_import
