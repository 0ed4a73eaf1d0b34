// NLLLoss over x [N, C, d1..dk] viewed as [N, C, D] and target [N, D].
// Sums accumulate in double so mean/sum over many elements keep float32's
// precision; float16/bfloat16 are loaded and stored through float.
#include <string>
#include <vector>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "graph/ops/loss_ops.h"

namespace ge::device::cpu {

namespace {

enum class Reduction { kNone, kSum, kMean };

struct NllLayout {
  int64_t batch = 0;    // N
  int64_t classes = 0;  // C
  int64_t inner = 0;    // D = d1 * ... * dk
};

template <typename T>
class NllLossKernel final : public Kernel {
 public:
  NllLossKernel(const Node& node, NllLayout layout, Reduction reduction, int64_t ignore_index)
      : label_(node.Describe()), layout_(layout), reduction_(reduction), ignore_index_(ignore_index) {}

  void Run(const KernelContext& ctx) const override {
    const std::vector<int64_t> target = ReadIndexTensor(label_, ctx.inputs[1], "target");
    // Validated up front so a bad class fails cleanly before any output is written.
    for (size_t i = 0; i < target.size(); ++i) {
      if (target[i] != ignore_index_ && (target[i] < 0 || target[i] >= layout_.classes)) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("{}: target {} at position {} is out of range [0, {})", label_, target[i], i,
                                layout_.classes));
      }
    }
    const T* x = ctx.inputs[0].as<const T>();
    const T* weight = ctx.inputs.size() > 2 ? ctx.inputs[2].as<const T>() : nullptr;
    T* y = ctx.outputs[0].as<T>();
    double total = 0;
    double total_weight = 0;
    for (int64_t n = 0; n < layout_.batch; ++n) {
      for (int64_t d = 0; d < layout_.inner; ++d) {
        const int64_t t = target[n * layout_.inner + d];
        double loss = 0;
        double w = 0;
        if (t != ignore_index_) {
          w = weight ? static_cast<double>(Load(weight[t])) : 1.0;
          loss = -w * static_cast<double>(Load(x[(n * layout_.classes + t) * layout_.inner + d]));
        }
        if (reduction_ == Reduction::kNone) {
          y[n * layout_.inner + d] = Store<T>(static_cast<Compute<T>>(loss));
        } else {
          total += loss;
          total_weight += w;
        }
      }
    }
    // ONNX divides by the total weight even when it is 0 (every target
    // ignored): the mean is then NaN, as in its reference.
    if (reduction_ == Reduction::kSum) y[0] = Store<T>(static_cast<Compute<T>>(total));
    if (reduction_ == Reduction::kMean) y[0] = Store<T>(static_cast<Compute<T>>(total / total_weight));
  }

 private:
  std::string label_;
  NllLayout layout_;
  Reduction reduction_;
  int64_t ignore_index_;
};

Reduction ReductionAttr(const Node& node) {
  const std::string& reduction = node.attrs().GetString("reduction");
  if (reduction == "none") return Reduction::kNone;
  if (reduction == "sum") return Reduction::kSum;
  if (reduction == "mean") return Reduction::kMean;
  Fail(node, ErrorCode::kInvalidArgument,
       fmt::format("attribute 'reduction' is '{}'; valid: none, sum, mean", reduction));
}

std::unique_ptr<Kernel> MakeNllLoss(const Node& node) {
  const Shape& x = InputShape(node, 0);
  if (x.rank() < 2) Fail(node, ErrorCode::kInvalidArgument, fmt::format("x must have rank >= 2, got {}", x.ToString()));
  const auto& dims = x.dims();
  const NllLayout layout{dims[0], dims[1], Product(std::span(dims).subspan(2))};
  if (HasInput(node, 2) && InputShape(node, 2).NumElements() != layout.classes) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("weight {} must have one element per class ({})", InputShape(node, 2).ToString(),
                     layout.classes));
  }
  const Reduction reduction = ReductionAttr(node);
  const int64_t ignore_index = node.attrs().GetInt("ignore_index");
  return DispatchDtype(node, InputDtype(node, 0), HalfFloatTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<NllLossKernel<typename decltype(tag)::type>>(node, layout, reduction, ignore_index);
  });
}

}  // namespace

void RegisterLossKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "NLLLoss", DataTypesOf(HalfFloatTypes{}), MakeNllLoss);
}

}  // namespace ge::device::cpu
