#include "graph/onnx/onnx_inference_guards.h"

#include <onnx/defs/shape_inference.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>

namespace ge::onnx_import {
namespace {

// The largest spatial dim a convolution or pooling input may have.
constexpr int64_t kMaxSpatialDim = 2147483647;
// More dims than any real tensor has; an axis attribute beyond it is refused
// even where the input's rank is not known yet.
constexpr int64_t kMaxAxis = 1024;

// The rank ONNX knows for a tensor input; none for a sequence or an unknown shape.
std::optional<int64_t> InputRank(const onnx::InferenceContext& ctx, size_t index) {
  if (index >= ctx.getNumInputs()) return std::nullopt;
  const onnx::TypeProto* type = ctx.getInputType(index);
  if (type == nullptr || !type->has_tensor_type() || !type->tensor_type().has_shape()) return std::nullopt;
  return type->tensor_type().shape().dim_size();
}

// axis / axes attributes: within the input's rank, [-rank, rank - 1], or
// the rank of the output where an op adds dims: Flatten's axis may be the
// rank, OneHot's counts against its one wider output, Unsqueeze's axes
// against the rank plus their count. libonnx indexes dims with them
// unchecked (LayerNormalization's axis -2 on a 1-D input crashed it).
void CheckAxes(const std::string& op_type, const onnx::InferenceContext& ctx) {
  const std::optional<int64_t> rank = InputRank(ctx, 0);
  auto check = [&](const char* name, int64_t value, int64_t lowest, int64_t highest) {
    if (rank ? (value < lowest || value > highest) : (value < -kMaxAxis || value > kMaxAxis)) {
      fail_shape_inference("attribute '", name, "' has value ", value, ", outside the input's rank");
    }
  };
  if (const onnx::AttributeProto* axis = ctx.getAttribute("axis"); axis != nullptr && axis->has_i()) {
    const int64_t r = rank.value_or(0);
    if (op_type == "OneHot") {
      check("axis", axis->i(), -(r + 1), r);
    } else {
      check("axis", axis->i(), -r, op_type == "Flatten" ? r : r - 1);
    }
  }
  if (const onnx::AttributeProto* axes = ctx.getAttribute("axes"); axes != nullptr) {
    const int64_t out_rank = rank.value_or(0) + (op_type == "Unsqueeze" ? axes->ints_size() : 0);
    for (int64_t value : axes->ints()) check("axes", value, -out_rank, out_rank - 1);
  }
}

// Where the data input and the weight input of a convolution or pooling op sit.
struct WindowInputs {
  size_t data = 0;
  std::optional<size_t> weight;
};

const std::map<std::string, WindowInputs>& WindowOps() {
  static const std::map<std::string, WindowInputs> ops = {
      {"Conv", {0, 1}},          {"ConvTranspose", {0, 1}}, {"ConvInteger", {0, 1}}, {"QLinearConv", {0, 3}},
      {"DeformConv", {0, 1}},    {"MaxPool", {0, {}}},      {"AveragePool", {0, {}}}, {"LpPool", {0, {}}},
      {"MaxUnpool", {0, {}}},    {"GlobalAveragePool", {0, {}}}, {"GlobalMaxPool", {0, {}}},
      {"GlobalLpPool", {0, {}}}, {"MaxRoiPool", {0, {}}}};
  return ops;
}

// Convolutions and pooling index the spatial dims by their attributes'
// lengths and the weight's dims by the data's rank: data of rank >= 3 (N, C,
// spatial), a weight of the same rank, and per-spatial-dim attributes of the
// matching length.
void CheckWindow(const onnx::InferenceContext& ctx, const WindowInputs& inputs) {
  const std::optional<int64_t> rank = InputRank(ctx, inputs.data);
  if (!rank) return;
  if (*rank < 3) fail_shape_inference("the data input has rank ", *rank, "; it needs N, C and spatial dims");
  if (inputs.weight) {
    const std::optional<int64_t> weight_rank = InputRank(ctx, *inputs.weight);
    if (weight_rank && *weight_rank != *rank) {
      fail_shape_inference("the weight has rank ", *weight_rank, ", the data ", *rank);
    }
  }
  // ONNX's same-padding arithmetic walks a spatial dim; ge's windows take int32 extents anyway.
  const onnx::TensorShapeProto& shape = ctx.getInputType(inputs.data)->tensor_type().shape();
  for (int axis = 2; axis < shape.dim_size(); ++axis) {
    if (shape.dim(axis).has_dim_value() && shape.dim(axis).dim_value() > kMaxSpatialDim) {
      fail_shape_inference("spatial dim ", axis, " is ", shape.dim(axis).dim_value());
    }
  }
  const int64_t spatial = *rank - 2;
  for (const char* name : {"kernel_shape", "strides", "dilations", "output_padding", "output_shape", "pads"}) {
    const onnx::AttributeProto* attribute = ctx.getAttribute(name);
    if (attribute == nullptr || attribute->ints_size() == 0) continue;
    const int64_t expected = std::string(name) == "pads" ? 2 * spatial : spatial;
    // output_shape may also carry N and C.
    const bool with_batch = std::string(name) == "output_shape" && attribute->ints_size() == *rank;
    if (attribute->ints_size() != expected && !with_batch) {
      fail_shape_inference("attribute '", name, "' has ", attribute->ints_size(), " values for ", spatial,
                           " spatial dims");
    }
  }
}

// Inputs whose rank an op's inference takes for granted, by index: Gemm's A
// and B are matrices; the recurrent ops' X, W, R, B, sequence_lens,
// initial_h, initial_c and P have fixed ranks (an R of rank 1 was read at dim 2).
const std::map<std::string, std::map<size_t, int64_t>>& FixedRankInputs() {
  static const std::map<size_t, int64_t> recurrent = {{0, 3}, {1, 3}, {2, 3}, {3, 2}, {4, 1}, {5, 3}, {6, 3}, {7, 2}};
  static const std::map<std::string, std::map<size_t, int64_t>> inputs = {
      {"Gemm", {{0, 2}, {1, 2}}}, {"RNN", recurrent}, {"GRU", recurrent}, {"LSTM", recurrent}};
  return inputs;
}

void CheckFixedRanks(const onnx::InferenceContext& ctx, const std::map<size_t, int64_t>& ranks) {
  for (const auto& [index, expected] : ranks) {
    const std::optional<int64_t> rank = InputRank(ctx, index);
    if (rank && *rank != expected) fail_shape_inference("input ", index, " has rank ", *rank, ", not ", expected);
  }
}

// Inputs that hold a shape, or one value per axis: their length is a rank,
// and ONNX makes an output of that many dims (Expand over a new_shape of
// 2^63 values asks for 2^63 dims).
const std::map<std::string, std::set<size_t>>& PerAxisInputs() {
  static const std::map<std::string, std::set<size_t>> inputs = {
      {"Expand", {1}},     {"Reshape", {1}},      {"ConstantOfShape", {0}}, {"Tile", {1}},
      {"Resize", {1, 2, 3}}, {"Upsample", {1}},   {"Pad", {1, 3}},          {"Slice", {1, 2, 3, 4}},
      {"Squeeze", {1}},    {"Unsqueeze", {1}},    {"CenterCropPad", {1, 2}}, {"Col2Im", {1, 2}},
      {"ReduceSum", {1}},  {"ReduceMean", {1}},   {"ReduceMax", {1}},       {"ReduceMin", {1}},
      {"ReduceProd", {1}}, {"ReduceL1", {1}},     {"ReduceL2", {1}},        {"ReduceLogSum", {1}},
      {"ReduceLogSumExp", {1}}, {"ReduceSumSquare", {1}}};
  return inputs;
}

void CheckPerAxisInputs(const onnx::InferenceContext& ctx, const std::set<size_t>& indices) {
  for (size_t index : indices) {
    if (InputRank(ctx, index) != 1) continue;
    const onnx::TensorShapeProto::Dimension& length = ctx.getInputType(index)->tensor_type().shape().dim(0);
    if (length.has_dim_value() && length.dim_value() > 2 * kMaxAxis) {
      fail_shape_inference("input ", index, " has ", length.dim_value(), " values, one per axis");
    }
  }
}

// Scan sizes its per-input vectors by num_scan_inputs before it compares it
// with the inputs there are (a value of 2^31 asks for gigabytes).
void CheckScanInputs(const onnx::InferenceContext& ctx) {
  const onnx::AttributeProto* count = ctx.getAttribute("num_scan_inputs");
  if (count == nullptr) return;
  const auto inputs = static_cast<int64_t>(ctx.getNumInputs());
  if (count->i() < 1 || count->i() > inputs) {
    fail_shape_inference("attribute 'num_scan_inputs' has value ", count->i(), " for ", inputs, " inputs");
  }
}

void CheckInferenceInputs(const std::string& op_type, const onnx::InferenceContext& ctx) {
  CheckAxes(op_type, ctx);
  if (op_type == "Scan") CheckScanInputs(ctx);
  const auto fixed = FixedRankInputs().find(op_type);
  if (fixed != FixedRankInputs().end()) CheckFixedRanks(ctx, fixed->second);
  const auto per_axis = PerAxisInputs().find(op_type);
  if (per_axis != PerAxisInputs().end()) CheckPerAxisInputs(ctx, per_axis->second);
  const auto window = WindowOps().find(op_type);
  if (window != WindowOps().end()) CheckWindow(ctx, window->second);
}

class Registry final : public onnx::ISchemaRegistry {
 public:
  const onnx::OpSchema* GetSchema(const std::string& key, const int max_inclusive_version,
                                  const std::string& domain) const override {
    const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(key, max_inclusive_version, domain);
    if (schema == nullptr || !schema->has_type_and_shape_inference_function()) return schema;
    const std::lock_guard lock(mutex_);
    std::unique_ptr<onnx::OpSchema>& guarded = guarded_[schema];
    if (!guarded) {
      guarded = std::make_unique<onnx::OpSchema>(*schema);
      onnx::InferenceFunction inner = schema->GetTypeAndShapeInferenceFunction();
      guarded->TypeAndShapeInferenceFunction([op_type = key, inner](onnx::InferenceContext& ctx) {
        CheckInferenceInputs(op_type, ctx);
        inner(ctx);
      });
    }
    return guarded.get();
  }

 private:
  mutable std::mutex mutex_;
  // One guarded copy per schema version, made on first use and kept: ONNX
  // holds the pointers while it infers.
  mutable std::map<const onnx::OpSchema*, std::unique_ptr<onnx::OpSchema>> guarded_;
};

}  // namespace

const onnx::ISchemaRegistry& GuardedSchemaRegistry() {
  static const Registry registry;
  return registry;
}

}  // namespace ge::onnx_import
