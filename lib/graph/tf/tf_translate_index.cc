// Indexing, selection and layout: StridedSlice (with its five masks), Slice,
// GatherV2, GatherNd, TopKV2, ArgMax, ExpandDims, Squeeze, Pack, Unpack,
// Split, Transpose, Tile, Cast, Shape, Fill, Range, Where, comparisons and
// logic, Select, reductions other than Mean.
#include <climits>
#include <numeric>

#include <fmt/format.h>

#include "ge/error.h"

#include "graph/tf/tf_tensor.h"
#include "graph/tf/tf_translation.h"

namespace ge::tf_import {
namespace {

int64_t ScalarInt(TfNodeContext& ctx, size_t input, const std::string& what) {
  const std::vector<int64_t> values = ctx.ConstantInts(input, what);
  if (values.size() != 1) ctx.Fail(fmt::format("{} must be one value", what));
  return values[0];
}

size_t RankOf(TfNodeContext& ctx, const Value* x) {
  if (x->shape().unknown_rank()) ctx.Fail("needs an input of known rank", /*unsupported=*/true);
  return x->shape().rank();
}

Value* Ints1D(TfNodeContext& ctx, const std::string& suffix, const std::vector<int64_t>& values) {
  return ctx.Constant(suffix, Tensor::FromVector(DataType::kInt64, Shape({static_cast<int64_t>(values.size())}), values));
}

// TensorFlow's StridedSlice: per slice spec i (bit i of each mask), begin_mask
// and end_mask take the whole extent, ellipsis_mask stands for every dim the
// other specs leave, new_axis_mask inserts a dim of 1, shrink_axis_mask takes
// the one element at begin and drops the dim. Becomes StridedSliceV2 over the
// sliced axes, then Squeeze of the shrunk ones, then Unsqueeze of the new ones.
std::vector<Value*> StridedSlice(TfNodeContext& ctx) {
  Value* x = ctx.input(0);
  const auto rank = static_cast<int64_t>(RankOf(ctx, x));
  const std::vector<int64_t> begin = ctx.ConstantInts(1, "begin");
  const std::vector<int64_t> end = ctx.ConstantInts(2, "end");
  const std::vector<int64_t> strides = ctx.ConstantInts(3, "strides");
  if (begin.size() != end.size() || begin.size() != strides.size()) ctx.Fail("begin, end and strides differ in length");
  const auto bit = [&](const char* mask, size_t i) { return ((ctx.Int(mask, 0) >> i) & 1) != 0; };
  int64_t consuming = 0;
  for (size_t i = 0; i < begin.size(); ++i) consuming += !bit("ellipsis_mask", i) && !bit("new_axis_mask", i);
  std::vector<int64_t> starts, ends, axes, steps, shrunk, inserted;
  int64_t axis = 0, out_position = 0;
  for (size_t i = 0; i < begin.size(); ++i) {
    if (bit("ellipsis_mask", i)) {
      const int64_t covered = rank - consuming;
      axis += covered;
      out_position += covered;
      continue;
    }
    if (bit("new_axis_mask", i)) {
      inserted.push_back(out_position++);
      continue;
    }
    if (axis >= rank) ctx.Fail(fmt::format("slice spec {} is past x's rank {}", i, rank));
    const int64_t step = strides[i];
    if (step == 0) ctx.Fail("a stride is 0");
    if (bit("shrink_axis_mask", i)) {
      starts.push_back(begin[i]);
      ends.push_back(begin[i] == -1 ? INT64_MAX : begin[i] + 1);
      steps.push_back(1);
      shrunk.push_back(axis);
    } else {
      starts.push_back(bit("begin_mask", i) ? (step > 0 ? 0 : INT64_MAX) : begin[i]);
      ends.push_back(bit("end_mask", i) ? (step > 0 ? INT64_MAX : INT64_MIN) : end[i]);
      steps.push_back(step);
      ++out_position;
    }
    axes.push_back(axis++);
  }
  Value* y = x;
  const std::string name = ctx.node().name();
  const bool squeeze = !shrunk.empty(), unsqueeze = !inserted.empty();
  if (!axes.empty()) {
    y = ctx.Op("StridedSliceV2", {y, Ints1D(ctx, "begin", starts), Ints1D(ctx, "end", ends), Ints1D(ctx, "axes", axes),
                                  Ints1D(ctx, "strides", steps)},
               {}, squeeze || unsqueeze ? ctx.Name("slice") : name);
  }
  if (squeeze) y = ctx.Op("Squeeze", {y}, {{"axis", shrunk}}, unsqueeze ? ctx.Name("squeeze") : name);
  if (unsqueeze) y = ctx.Op("Unsqueeze", {y}, {{"axes", inserted}}, name);
  if (y == x) y = ctx.Op("Identity", {x}, {}, name);
  return {y};
}

// Slice(x, begin, size): size -1 runs to the end.
// Slice with begin or size computed at run time: end = begin + size, or to
// the end of the axis where size is -1.
std::vector<Value*> SliceAtRunTime(TfNodeContext& ctx) {
  auto int64 = [&](size_t input, const std::string& suffix) {
    return ctx.Op("Cast", {ctx.input(input)}, {{"dst_type", static_cast<int64_t>(DataType::kInt64)}}, ctx.Name(suffix));
  };
  Value* begin = int64(1, "begin");
  Value* size = int64(2, "size");
  Value* to_end = ctx.Op("Less", {size, Ints1D(ctx, "zero", {0})}, {}, ctx.Name("to_end"));
  Value* end = ctx.Op("Select", {to_end, Ints1D(ctx, "axis_end", {INT64_MAX}), ctx.Op("Add", {begin, size}, {}, ctx.Name("sum"))},
                      {}, ctx.Name("end"));
  const Shape& begin_shape = ctx.input(1)->shape();
  if (begin_shape.unknown_rank() || begin_shape.rank() != 1 || begin_shape.dim(0) < 0) {
    ctx.Fail("begin must be a vector of known length", /*unsupported=*/true);
  }
  std::vector<int64_t> axes(static_cast<size_t>(begin_shape.dim(0)));
  std::iota(axes.begin(), axes.end(), 0);
  return {ctx.Op("StridedSliceV2", {ctx.input(0), begin, end, Ints1D(ctx, "axes", axes)}, {}, ctx.node().name())};
}

std::vector<Value*> Slice(TfNodeContext& ctx) {
  if (ctx.constant(1) == nullptr || ctx.constant(2) == nullptr) return SliceAtRunTime(ctx);
  const std::vector<int64_t> begin = ctx.ConstantInts(1, "begin");
  const std::vector<int64_t> size = ctx.ConstantInts(2, "size");
  if (begin.size() != size.size()) ctx.Fail("begin and size differ in length");
  std::vector<int64_t> ends, axes;
  for (size_t i = 0; i < begin.size(); ++i) {
    ends.push_back(size[i] < 0 ? INT64_MAX : begin[i] + size[i]);
    axes.push_back(static_cast<int64_t>(i));
  }
  return {ctx.Op("StridedSliceV2", {ctx.input(0), Ints1D(ctx, "begin", begin), Ints1D(ctx, "end", ends),
                                    Ints1D(ctx, "axes", axes)},
                 {}, ctx.node().name())};
}

std::vector<Value*> GatherV2(TfNodeContext& ctx) {
  return {ctx.Op("GatherV2D", {ctx.input(0), ctx.input(1)},
                 {{"axis", ScalarInt(ctx, 2, "axis")}, {"batch_dims", ctx.Int("batch_dims", 0)}}, ctx.node().name())};
}

std::vector<Value*> GatherNd(TfNodeContext& ctx) {
  return {ctx.Op("GatherNd", {ctx.input(0), ctx.input(1)}, {}, ctx.node().name())};
}

// TopKV2 along the last axis; ge's indices are int64, TensorFlow's int32.
std::vector<Value*> TopK(TfNodeContext& ctx) {
  std::vector<Value*> outputs;
  try {
    outputs = ctx.builder().Op("TopKV2", {ctx.input(0), ctx.input(1)}, {{"sorted", ctx.Bool("sorted", true)}}, 2,
                               ctx.Name("topk"));
  } catch (const Error& e) {
    ctx.Fail(fmt::format("as ge TopKV2: {}", e.what()));
  }
  Value* values = ctx.Op("Identity", {outputs[0]}, {}, ctx.node().name());
  Value* indices = ctx.Op("Cast", {outputs[1]}, {{"dst_type", static_cast<int64_t>(DataType::kInt32)}}, ctx.Name("indices"));
  return {values, indices};
}

std::vector<Value*> ArgMax(TfNodeContext& ctx) {
  const DataType dtype = ctx.Dtype("output_type", DataType::kInt64);
  return {ctx.Op(ctx.node().op() == "ArgMax" ? "ArgMaxV2" : "ArgMinV2", {ctx.input(0), ctx.input(1)},
                 {{"dtype", static_cast<int64_t>(dtype)}}, ctx.node().name())};
}

std::vector<Value*> ExpandDims(TfNodeContext& ctx) {
  return {ctx.Op("Unsqueeze", {ctx.input(0)}, {{"axes", std::vector<int64_t>{ScalarInt(ctx, 1, "axis")}}},
                 ctx.node().name())};
}

std::vector<Value*> Squeeze(TfNodeContext& ctx) {
  return {ctx.Op("Squeeze", {ctx.input(0)}, {{"axis", ctx.Ints("squeeze_dims")}}, ctx.node().name())};
}

// Pack: each value gets a new axis, then they are concatenated along it.
std::vector<Value*> Pack(TfNodeContext& ctx) {
  if (ctx.num_inputs() == 0) ctx.Fail("Pack needs at least one value");
  const auto rank = static_cast<int64_t>(RankOf(ctx, ctx.input(0)));
  int64_t axis = ctx.Int("axis", 0);
  if (axis < -rank - 1 || axis > rank) ctx.Fail(fmt::format("axis {} is out of range for values of rank {}", axis, rank));
  if (axis < 0) axis += rank + 1;
  std::vector<Value*> expanded;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    expanded.push_back(ctx.Op("Unsqueeze", {ctx.input(i)}, {{"axes", std::vector<int64_t>{axis}}},
                              ctx.Name(fmt::format("expand_{}", i))));
  }
  const auto n = static_cast<int64_t>(expanded.size());
  return {ctx.Op("ConcatD", expanded, {{"concat_dim", axis}, {"N", n}}, ctx.node().name())};
}

// Splits x into pieces along `axis` (sizes summing to its length) as outputs.
std::vector<Value*> SplitInto(TfNodeContext& ctx, Value* x, int64_t axis, const std::vector<int64_t>& sizes,
                              const std::string& name) {
  const auto n = static_cast<int64_t>(sizes.size());
  try {
    return ctx.builder().Op("SplitVD", {x}, {{"size_splits", sizes}, {"split_dim", axis}, {"num_split", n}},
                            sizes.size(), name);
  } catch (const Error& e) {
    ctx.Fail(fmt::format("as ge SplitVD: {}", e.what()));
  }
}

int64_t DimAlong(TfNodeContext& ctx, const Value* x, int64_t axis) {
  const auto rank = static_cast<int64_t>(RankOf(ctx, x));
  if (axis < -rank || axis >= rank) ctx.Fail(fmt::format("axis {} is out of range for rank {}", axis, rank));
  const int64_t dim = x->shape().dim(axis < 0 ? axis + rank : axis);
  if (dim < 0) ctx.Fail("needs the length along the axis, which is known only at run time", /*unsupported=*/true);
  return dim;
}

std::vector<Value*> Unpack(TfNodeContext& ctx) {
  Value* x = ctx.input(0);
  const int64_t axis = ctx.Int("axis", 0);
  const int64_t num = DimAlong(ctx, x, axis);
  std::vector<Value*> pieces = SplitInto(ctx, x, axis, std::vector<int64_t>(num, 1), ctx.Name("split"));
  std::vector<Value*> outputs;
  for (int64_t i = 0; i < num; ++i) {
    outputs.push_back(ctx.Op("Squeeze", {pieces[i]}, {{"axis", std::vector<int64_t>{axis}}},
                             i == 0 ? ctx.node().name() : ctx.Name(fmt::format("{}", i))));
  }
  return outputs;
}

// Split(axis, value) into num_split equal pieces.
std::vector<Value*> Split(TfNodeContext& ctx) {
  Value* x = ctx.input(1);
  const int64_t axis = ScalarInt(ctx, 0, "axis");
  const int64_t num = ctx.Int("num_split", 1);
  const int64_t dim = DimAlong(ctx, x, axis);
  if (num < 1 || dim % num != 0) ctx.Fail(fmt::format("cannot split {} into {} equal pieces", dim, num));
  return SplitInto(ctx, x, axis, std::vector<int64_t>(num, dim / num), ctx.node().name());
}

std::vector<Value*> Transpose(TfNodeContext& ctx) {
  return {ctx.Op("TransposeD", {ctx.input(0)}, {{"perm", ctx.ConstantInts(1, "perm")}}, ctx.node().name())};
}

std::vector<Value*> Tile(TfNodeContext& ctx) {
  return {ctx.Op("Tile", {ctx.input(0), ctx.input(1)}, {}, ctx.node().name())};
}

std::vector<Value*> Cast(TfNodeContext& ctx) {
  const DataType dtype = ctx.Dtype("DstT", DataType::kFloat);
  return {ctx.Op("Cast", {ctx.input(0)}, {{"dst_type", static_cast<int64_t>(dtype)}}, ctx.node().name())};
}

std::vector<Value*> ShapeOp(TfNodeContext& ctx) {
  const DataType dtype = ctx.Dtype("out_type", DataType::kInt32);
  return {ctx.Op("Shape", {ctx.input(0)}, {{"dtype", static_cast<int64_t>(dtype)}}, ctx.node().name())};
}

std::vector<Value*> Fill(TfNodeContext& ctx) {
  return {ctx.Op("Fill", {ctx.input(0), ctx.input(1)}, {}, ctx.node().name())};
}

std::vector<Value*> Range(TfNodeContext& ctx) {
  return {ctx.Op("Range", {ctx.input(0), ctx.input(1), ctx.input(2)}, {}, ctx.node().name())};
}

// Where(x): the coordinates of x's true (nonzero) elements, [count, rank] int64.
std::vector<Value*> Where(TfNodeContext& ctx) {
  Value* coordinates = ctx.Op("NonZero", {ctx.input(0)}, {}, ctx.Name("nonzero"));
  return {ctx.Op("TransposeD", {coordinates}, {{"perm", std::vector<int64_t>{1, 0}}}, ctx.node().name())};
}

TfTranslator Reduce(const std::string& ge_op) {
  return [ge_op](TfNodeContext& ctx) {
    return std::vector<Value*>{ctx.Op(ge_op, {ctx.input(0)},
                                      {{"axes", ctx.ConstantInts(1, "reduction_indices")},
                                       {"keep_dims", ctx.Bool("keep_dims", false)}},
                                      ctx.node().name())};
  };
}

TfTranslator Same(const std::string& ge_op, size_t inputs) {
  return [ge_op, inputs](TfNodeContext& ctx) {
    std::vector<Value*> values;
    for (size_t i = 0; i < inputs; ++i) values.push_back(ctx.input(i));
    return std::vector<Value*>{ctx.Op(ge_op, values, {}, ctx.node().name())};
  };
}

}  // namespace

void AddIndexTranslators(TfTranslators& table) {
  table["StridedSlice"] = StridedSlice;
  table["Slice"] = Slice;
  table["GatherV2"] = GatherV2;
  table["GatherNd"] = GatherNd;
  table["TopKV2"] = TopK;
  table["ArgMax"] = ArgMax;
  table["ArgMin"] = ArgMax;
  table["ExpandDims"] = ExpandDims;
  table["Squeeze"] = Squeeze;
  table["Pack"] = Pack;
  table["Unpack"] = Unpack;
  table["Split"] = Split;
  table["Transpose"] = Transpose;
  table["Tile"] = Tile;
  table["Cast"] = Cast;
  table["Shape"] = ShapeOp;
  table["Fill"] = Fill;
  table["Range"] = Range;
  table["Where"] = Where;
  table["Sum"] = Reduce("ReduceSumD");
  table["Max"] = Reduce("ReduceMaxD");
  table["Min"] = Reduce("ReduceMinD");
  table["Prod"] = Reduce("ReduceProdD");
  for (const char* op : {"Equal", "Greater", "GreaterEqual", "Less", "LessEqual", "LogicalAnd", "LogicalOr"}) {
    table[op] = Same(op, 2);
  }
  table["LogicalNot"] = Same("LogicalNot", 1);
  table["Select"] = Same("Select", 3);
  table["SelectV2"] = Same("Select", 3);
}

}  // namespace ge::tf_import
