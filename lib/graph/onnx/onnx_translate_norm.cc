#include <fmt/core.h>

#include "graph/onnx/onnx_scalar.h"
#include "graph/byte_size.h"
#include "graph/onnx/onnx_translators.h"

namespace ge::onnx_import {
namespace {

// Only the first output of these ops is translated; the statistics outputs
// exist for training.
void RequireOnlyFirstOutput(const NodeTranslation& node) {
  for (size_t i = 1; i < node.num_outputs(); ++i) {
    if (node.HasOutput(i)) {
      node.Fail(ErrorCode::kUnsupported,
                fmt::format("output {} ('{}') is not supported; only the normalized output Y is (inference)", i,
                            node.proto().output(static_cast<int>(i))));
    }
  }
}

}  // namespace

namespace {

// BatchNormalization with training_mode = 1 (opset 14+): normalizes with the
// batch's own statistics over every axis but the channel axis 1 (mean and
// biased variance, as ONNX's reference), and gives the updated running
// statistics `running * momentum + batch * (1 - momentum)`.
void TranslateBatchNormalizationTraining(NodeTranslation& node) {
  const std::optional<size_t> rank = node.InputRank(0);
  if (!rank || *rank < 2) {
    node.Fail(ErrorCode::kUnsupported, "training mode needs X of known rank >= 2 to know the reduced axes");
  }
  std::vector<int64_t> axes{0};
  for (int64_t d = 2; d < static_cast<int64_t>(*rank); ++d) axes.push_back(d);
  Value* x = node.RequiredInput(0);
  auto reduce_mean = [&](const std::string& suffix, Value* input) {
    Node* mean = node.AddHelperNode("ReduceMeanD", suffix, {input});
    mean->attrs().Set("axes", axes);
    mean->attrs().Set("keep_dims", true);
    return mean->output(0);
  };
  auto per_channel = [&](const std::string& suffix, Value* kept) {
    Node* squeeze = node.AddHelperNode("Squeeze", suffix, {kept});
    squeeze->attrs().Set("axis", axes);
    return squeeze->output(0);
  };
  Value* mean_kept = reduce_mean("batch_mean_kept", x);
  Value* centered = node.AddHelperNode("Sub", "centered", {x, mean_kept})->output(0);
  Value* squares = node.AddHelperNode("Mul", "squares", {centered, centered})->output(0);
  Value* mean = per_channel("batch_mean", mean_kept);
  Value* variance = per_channel("batch_var", reduce_mean("batch_var_kept", squares));

  Node* bn = node.AddMainNode({x, node.RequiredInput(1), node.RequiredInput(2), mean, variance});
  bn->attrs().Set("epsilon", node.attrs().Float("epsilon", 1e-5f));
  bn->attrs().Set("data_format", std::string("NCHW"));
  bn->attrs().Set("is_training", false);
  node.BindOutput(0, bn->output(0));

  const double momentum = node.attrs().Float("momentum", 0.9f);
  const DataType dtype = node.InputDType(3);
  std::optional<Tensor> keep = MakeScalar(dtype, momentum);
  std::optional<Tensor> take = MakeScalar(dtype, 1.0 - momentum);
  if (!keep || !take) {
    node.Fail(ErrorCode::kUnsupported, fmt::format("running statistics of dtype {}", DataTypeName(dtype)));
  }
  auto update = [&](size_t output, size_t running_input, Value* batch, const std::string& name) {
    if (!node.HasOutput(output)) return;
    Value* kept = node.AddHelperNode("Mul", name + "_kept", {node.RequiredInput(running_input),
                                                            node.AddHelperConstant(name + "_momentum", *keep)})
                      ->output(0);
    Value* taken =
        node.AddHelperNode("Mul", name + "_taken", {batch, node.AddHelperConstant(name + "_1_minus_momentum", *take)})
            ->output(0);
    node.BindOutput(output, node.AddHelperNode("Add", name, {kept, taken})->output(0));
  };
  update(1, 3, mean, "running_mean");
  update(2, 4, variance, "running_var");
}

}  // namespace

void TranslateBatchNormalization(NodeTranslation& node) {
  if (node.attrs().Int("spatial", 1) != 1) {
    node.Fail(ErrorCode::kUnsupported, "attribute 'spatial' = 0 (per-activation statistics) is not supported");
  }
  if (node.attrs().Int("training_mode", 0) != 0) {
    TranslateBatchNormalizationTraining(node);
    return;
  }
  // Before opset 7 the attributes 'is_test' and 'consumed_inputs' only
  // described training bookkeeping; with Y as the only output the node
  // normalizes with the given mean and variance, as ONNX Runtime does.
  RequireOnlyFirstOutput(node);
  Node* bn = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1), node.RequiredInput(2),
                               node.RequiredInput(3), node.RequiredInput(4)});
  bn->attrs().Set("epsilon", node.attrs().Float("epsilon", 1e-5f));
  bn->attrs().Set("data_format", std::string("NCHW"));
  bn->attrs().Set("is_training", false);
  node.BindOutputs(bn);
}

// The largest zero bias LayerNormalization without B makes (16M values).
constexpr int64_t kMaxZeroBiasElements = int64_t{1} << 24;

// LayerNormalization (opset 17) -> LayerNorm normalizing and scaling from
// `axis` on. LayerNorm needs beta: a missing B becomes zeros shaped like Scale.
// LayerNorm's statistics are mean and variance; ONNX's InvStdDev output is
// 1 / sqrt(variance + epsilon), computed by helper nodes when it is used.
void TranslateLayerNormalization(NodeTranslation& node) {
  const int64_t axis = node.NormalizeAxis(node.attrs().Int("axis", -1), node.InputRank(0), "attribute 'axis'");
  Value* beta = node.Input(2);
  if (!beta) {
    const Shape scale_shape = node.InputShape(1);
    if (!scale_shape.IsStatic() || node.InputDType(1) == DataType::kUndefined) {
      node.Fail(ErrorCode::kUnsupported,
                fmt::format("without input B the Scale's shape must be known to make a zero bias; it is {}",
                            scale_shape.ToString()));
    }
    // A real Scale is a few thousand values; a declared shape of billions
    // would make the import allocate them before any cap applies.
    const std::optional<int64_t> elements = CheckedNumElements(scale_shape);
    if (!elements || *elements > kMaxZeroBiasElements) {
      node.Fail(ErrorCode::kUnsupported,
                fmt::format("without input B the zero bias takes the Scale's shape {}, more than {} values; give B",
                            scale_shape.ToString(), kMaxZeroBiasElements));
    }
    beta = node.AddHelperConstant("zero_bias", Tensor(node.InputDType(1), scale_shape));
  }
  const bool statistics = node.HasOutput(1) || node.HasOutput(2);
  const float epsilon = node.attrs().Float("epsilon", 1e-5f);
  Node* norm = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1), beta}, statistics ? 3 : 1);
  norm->attrs().Set("begin_norm_axis", axis);
  norm->attrs().Set("begin_params_axis", axis);
  norm->attrs().Set("epsilon", epsilon);
  node.BindOutput(0, norm->output(0));
  if (node.HasOutput(1)) node.BindOutput(1, norm->output(1));
  if (node.HasOutput(2)) {
    std::optional<Tensor> eps = MakeScalar(node.InputDType(0), epsilon);
    if (!eps) {
      node.Fail(ErrorCode::kUnsupported, fmt::format("output InvStdDev needs a float input X, got {}",
                                                     DataTypeName(node.InputDType(0))));
    }
    Node* shifted = node.AddHelperNode("Add", "variance_plus_epsilon",
                                       {norm->output(2), node.AddHelperConstant("epsilon", std::move(*eps))});
    Node* std_dev = node.AddHelperNode("Sqrt", "std_dev", {shifted->output(0)});
    node.BindOutput(2, node.AddHelperNode("Reciprocal", "inv_std_dev", {std_dev->output(0)})->output(0));
  }
}

// InstanceNormalization -> InstanceNorm (x, scale, B; ONNX's epsilon default 1e-5).
void TranslateInstanceNormalization(NodeTranslation& node) {
  Node* norm = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1), node.RequiredInput(2)});
  norm->attrs().Set("epsilon", node.attrs().Float("epsilon", 1e-5f));
  norm->attrs().Set("data_format", std::string("NCHW"));
  node.BindOutputs(norm);
}

// LRN -> LRN: ONNX's window of `size` channels centred on c is depth_radius =
// (size - 1) / 2 either side, and ONNX divides alpha by size where LRN does
// not. An even size makes an off-centre window, which LRN cannot express.
void TranslateLrn(NodeTranslation& node) {
  const int64_t size = node.attrs().Int("size", 0);
  if (size <= 0 || size % 2 == 0) {
    node.Fail(size <= 0 ? ErrorCode::kInvalidModel : ErrorCode::kUnsupported,
              fmt::format("attribute 'size' is {}; a positive odd size is supported", size));
  }
  Node* lrn = node.AddMainNode({node.RequiredInput(0)});
  lrn->attrs().Set("depth_radius", (size - 1) / 2);
  lrn->attrs().Set("bias", node.attrs().Float("bias", 1.0f));
  lrn->attrs().Set("alpha", node.attrs().Float("alpha", 1e-4f) / static_cast<float>(size));
  lrn->attrs().Set("beta", node.attrs().Float("beta", 0.75f));
  lrn->attrs().Set("norm_region", std::string("ACROSS_CHANNELS"));
  node.BindOutputs(lrn);
}

// MeanVarianceNormalization: (x - mean) / (sqrt(variance) + 1e-9) over `axes`
// (default [0, 2, 3]), as ONNX's function body defines it, from ReduceMeanD,
// Sub, Mul, Sqrt, Add and Div (the variance is taken of the centred values).
void TranslateMeanVarianceNormalization(NodeTranslation& node) {
  Value* x = node.RequiredInput(0);
  std::vector<int64_t> axes = node.attrs().Ints("axes", {0, 2, 3});
  for (int64_t& axis : axes) axis = node.NormalizeAxis(axis, node.InputRank(0), "an entry of 'axes'");
  auto mean_of = [&](Value* value, const std::string& suffix) {
    Node* mean = node.AddHelperNode("ReduceMeanD", suffix, {value});
    mean->attrs().Set("axes", axes);
    mean->attrs().Set("keep_dims", true);
    return mean->output(0);
  };
  Value* centred = node.AddHelperNode("Sub", "centred", {x, mean_of(x, "mean")})->output(0);
  Value* squares = node.AddHelperNode("Mul", "squares", {centred, centred})->output(0);
  Value* std_dev = node.AddHelperNode("Sqrt", "std_dev", {mean_of(squares, "variance")})->output(0);
  std::optional<Tensor> epsilon = MakeScalar(node.InputDType(0), 1e-9);
  if (!epsilon) {
    node.Fail(ErrorCode::kUnsupported, fmt::format("input X must be a float tensor, got {}",
                                                   DataTypeName(node.InputDType(0))));
  }
  Value* divisor =
      node.AddHelperNode("Add", "std_dev_plus_epsilon", {std_dev, node.AddHelperConstant("epsilon", *epsilon)})
          ->output(0);
  node.BindOutputs(node.AddMainNode({centred, divisor}));
}

// Softmax before opset 13 coerces the input to 2-D at `axis` (default 1) and
// normalizes each row of [prod(d < axis), prod(d >= axis)]. When axis is the
// last dim that is SoftmaxV2 over it; otherwise Flatten -> SoftmaxV2 over the
// rows -> Reshape back to the input's shape (taken at run time by Shape).
void TranslateSoftmax2D(NodeTranslation& node) {
  Value* x = node.RequiredInput(0);
  const std::optional<size_t> rank = node.InputRank(0);
  const int64_t axis = node.NormalizeAxis(node.attrs().Int("axis", 1), rank, "attribute 'axis'");
  if (rank && axis == static_cast<int64_t>(*rank) - 1) {
    Node* softmax = node.AddMainNode({x});
    softmax->attrs().Set("axes", std::vector<int64_t>{-1});
    node.BindOutputs(softmax);
    return;
  }
  Node* flatten = node.AddHelperNode("Flatten", "flatten", {x});
  flatten->attrs().Set("axis", axis);
  Node* softmax = node.AddMainNode({flatten->output(0)});
  softmax->attrs().Set("axes", std::vector<int64_t>{-1});
  Node* shape = node.AddHelperNode("Shape", "input_shape", {x});
  Node* reshape = node.AddHelperNode("Reshape", "reshape", {softmax->output(0), shape->output(0)});
  node.BindOutputs(reshape);
}

// Softmax from opset 13 normalizes along the single axis `axis` (default -1).
void TranslateSoftmaxAxis(NodeTranslation& node) {
  const int64_t axis = node.NormalizeAxis(node.attrs().Int("axis", -1), node.InputRank(0), "attribute 'axis'");
  Node* softmax = node.AddMainNode({node.RequiredInput(0)});
  softmax->attrs().Set("axes", std::vector<int64_t>{axis});
  node.BindOutputs(softmax);
}

}  // namespace ge::onnx_import
