// Folds a per-channel constant added after a Conv2D into the convolution's
// bias. TensorFlow graphs that grappler did not fuse write Conv2D, then
// BiasAdd or AddV2 with the bias (or a folded BatchNorm's shift):
//
//   y = Add(Conv2D(x, W[, b]), c)   (either operand order)
//   ==> Conv2D(x, W, b + c)
//
// One convolution then does the work of two ops, and quantization sees the
// layer whole: an Add quantized on its own would quantize the sums before
// the bias, whose range can be far wider than the biased output's. c must be
// a float32 constant of one value per output channel laid along the channel
// axis (NCHW: [C, 1, 1] or [1, C, 1, 1]; NHWC: [C] or [1, 1, 1, C]); the
// Conv2D float32 with a constant filter, at most a constant bias, no
// offset_w, and feeding only the Add. The sum runs in double.
#include "graph/data_format.h"
#include "passes/builtin_passes.h"
#include "passes/graph_rewrite.h"
#include "passes/pattern_fusion.h"

namespace ge::passes {
namespace {

enum ConvInput { kConvX = 0, kConvFilter, kConvBias, kConvOffsetW };

// c's values when it is one float32 value per output channel along the channel axis, else empty.
std::vector<float> ChannelShift(const Value* c, const Node& conv, int64_t channels) {
  if (c == nullptr || c->constant() == nullptr || c->dtype() != DataType::kFloat) return {};
  const std::vector<int64_t>& dims = c->shape().dims();
  if (c->constant()->num_elements() != channels || dims.empty() || dims.size() > 4) return {};
  // The axis, counted from the end, that must hold the channels.
  const size_t from_end = ChannelsLast(conv) ? 0 : 2;
  if (dims.size() <= from_end) return {};
  for (size_t i = 0; i < dims.size(); ++i) {
    const bool channel_axis = i == dims.size() - 1 - from_end;
    if (dims[i] != (channel_axis ? channels : 1)) return {};
  }
  const auto* values = c->constant()->data_as<float>();
  return std::vector<float>(values, values + channels);
}

class ConvBiasFoldPass : public Pass {
 public:
  std::string name() const override { return "conv_bias_fold"; }

  bool Run(Graph& graph, PassContext&) override {
    bool changed = false;
    for (Node* add : graph.TopologicalOrder()) {
      if (add->op_type() != "Add" || add->num_inputs() != 2) continue;
      for (int i : {0, 1}) {
        Value* y = add->input(static_cast<size_t>(i));
        Node* conv = y != nullptr ? y->producer() : nullptr;
        if (conv == nullptr || conv->op_type() != "Conv2D" || y->dtype() != DataType::kFloat ||
            IsGraphOutput(graph, y) || y->uses().size() != 1 || conv->input(kConvOffsetW) != nullptr ||
            conv->input(kConvFilter) == nullptr || conv->input(kConvFilter)->constant() == nullptr ||
            conv->input(kConvFilter)->shape().unknown_rank() || conv->input(kConvFilter)->shape().rank() != 4 ||
            add->output(0)->shape() != y->shape()) {
          continue;
        }
        const int64_t channels = conv->input(kConvFilter)->shape().dim(0);
        const std::vector<float> shift = ChannelShift(add->input(static_cast<size_t>(1 - i)), *conv, channels);
        const Value* bias = conv->input(kConvBias);
        if (shift.empty() || (bias != nullptr && (bias->constant() == nullptr || bias->dtype() != DataType::kFloat ||
                                                  bias->constant()->num_elements() != channels))) {
          continue;
        }
        std::vector<float> folded(static_cast<size_t>(channels));
        for (int64_t ch = 0; ch < channels; ++ch) {
          const double old = bias != nullptr ? bias->constant()->data_as<float>()[ch] : 0.0;
          folded[static_cast<size_t>(ch)] = static_cast<float>(old + shift[static_cast<size_t>(ch)]);
        }
        conv->SetInput(kConvBias, graph.AddConstant(graph.UniqueName(conv->name() + "_bias"),
                                                    Tensor::FromVector(DataType::kFloat, Shape({channels}), folded)));
        ReplaceKeepingName(graph, add->output(0), y);
        graph.RemoveNode(add);
        changed = true;
        break;
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> MakeConvBiasFoldPass() { return std::make_unique<ConvBiasFoldPass>(); }

}  // namespace ge::passes
