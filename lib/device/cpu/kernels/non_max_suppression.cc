// NonMaxSuppressionV6 (ONNX NonMaxSuppression) through the selection the
// schema's inference runs (graph/non_max_suppression.h). The number of
// selected boxes is the output's row count, which the runtime infers from the
// input values; the kernel checks that they agree.
#include <algorithm>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "graph/non_max_suppression.h"

namespace ge::device::cpu {

namespace {

// A one-element float32/float64 input as a double (the schema constrains the dtype).
double ScalarOf(const TensorView& v) {
  return v.dtype == DataType::kDouble ? v.as<const double>()[0] : static_cast<double>(v.as<const float>()[0]);
}

template <typename T>
class NonMaxSuppressionKernel final : public Kernel {
 public:
  explicit NonMaxSuppressionKernel(const Node& node)
      : label_(node.Describe()), expected_(OutputShape(node, 0).dim(0)) {
    const Shape& scores = InputShape(node, 1);
    params_.batches = scores.dim(0);
    params_.classes = scores.dim(1);
    params_.spatial = scores.dim(2);
    params_.center_point_box = node.attrs().GetInt("center_point_box") != 0;
  }

  void Run(const KernelContext& ctx) const override {
    NmsParams p = params_;
    const auto present = [&](size_t i) { return ctx.inputs.size() > i && ctx.inputs[i].data != nullptr; };
    for (size_t i = 2; i < 5; ++i) {
      if (present(i) && ctx.inputs[i].num_elements() != 1) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("{}: input {} must hold one value, got shape {}", label_, i,
                                ctx.inputs[i].shape->ToString()));
      }
    }
    if (present(2)) p.max_per_class = ReadIndexTensor(label_, ctx.inputs[2], "max_output_size")[0];
    if (present(3)) p.iou_threshold = ScalarOf(ctx.inputs[3]);
    if (present(4)) p.score_threshold = ScalarOf(ctx.inputs[4]);
    const auto selected = SelectBoxes(ctx.inputs[0].as<const T>(), ctx.inputs[1].as<const T>(), p);
    if (static_cast<int64_t>(selected.size()) != expected_) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("{}: {} boxes were selected but the output was shaped for {}", label_, selected.size(),
                              expected_));
    }
    auto* y = ctx.outputs[0].as<int64_t>();
    for (const auto& row : selected) y = std::copy(row.begin(), row.end(), y);
  }

 private:
  std::string label_;
  int64_t expected_;
  NmsParams params_;
};

std::unique_ptr<Kernel> MakeNonMaxSuppression(const Node& node) {
  const Shape& boxes = InputShape(node, 0);
  const Shape& scores = InputShape(node, 1);
  const Shape& y = OutputShape(node, 0);
  if (boxes.rank() != 3 || boxes.dim(2) != 4 || scores.rank() != 3 || scores.dim(0) != boxes.dim(0) ||
      scores.dim(2) != boxes.dim(1)) {
    Fail(node, ErrorCode::kInvalidModel,
         fmt::format("boxes {} must be [batches, boxes, 4] and scores {} [batches, classes, boxes]", boxes.ToString(),
                     scores.ToString()));
  }
  if (const int64_t center = node.attrs().GetInt("center_point_box"); center != 0 && center != 1) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("attribute 'center_point_box' is {}; valid: 0 (corners), 1 (centre and size)", center));
  }
  if (y.rank() != 2 || y.dim(1) != 3 || node.output(0)->dtype() != DataType::kInt64) {
    Fail(node, ErrorCode::kInvalidModel, fmt::format("output {} must be int64 [count, 3]", y.ToString()));
  }
  return DispatchDtype(node, InputDtype(node, 0), FloatTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<NonMaxSuppressionKernel<typename decltype(tag)::type>>(node);
  });
}

}  // namespace

void RegisterNonMaxSuppressionKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "NonMaxSuppressionV6", DataTypesOf(FloatTypes{}), MakeNonMaxSuppression);
}

}  // namespace ge::device::cpu
