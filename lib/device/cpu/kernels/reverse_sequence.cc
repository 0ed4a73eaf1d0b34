// ReverseSequence: for each batch entry b, reverses the first seq_lengths[b]
// elements along seq_dim; the rest is copied.
#include <cstring>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

template <typename Element>
class ReverseSequenceKernel final : public Kernel {
 public:
  ReverseSequenceKernel(const Node& node, int64_t seq_dim, int64_t batch_dim)
      : label_(node.Describe()), dims_(InputShape(node, 0).dims()), seq_dim_(seq_dim), batch_dim_(batch_dim) {}

  void Run(const KernelContext& ctx) const override {
    const std::vector<int64_t> lengths = ReadIndexTensor(label_, ctx.inputs[1], "seq_lengths");
    if (static_cast<int64_t>(lengths.size()) != dims_[batch_dim_]) {
      throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: seq_lengths has {} entries for a batch of {}", label_,
                                                           lengths.size(), dims_[batch_dim_]));
    }
    for (int64_t length : lengths) {
      if (length < 0 || length > dims_[seq_dim_]) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("{}: sequence length {} is outside [0, {}]", label_, length, dims_[seq_dim_]));
      }
    }
    const auto* x = ctx.inputs[0].as<const Element>();
    auto* y = ctx.outputs[0].as<Element>();
    const std::vector<int64_t> strides = RowMajorStrides(dims_);
    const int64_t n = Product(dims_);
    ParallelFor(n, n > kParallelGrain, [&](int64_t i) {
      const int64_t t = i / strides[seq_dim_] % dims_[seq_dim_];
      const int64_t b = i / strides[batch_dim_] % dims_[batch_dim_];
      const int64_t source = t < lengths[b] ? i + (lengths[b] - 1 - 2 * t) * strides[seq_dim_] : i;
      y[i] = x[source];
    });
  }

 private:
  std::string label_;
  std::vector<int64_t> dims_;
  int64_t seq_dim_;
  int64_t batch_dim_;
};

std::unique_ptr<Kernel> MakeReverseSequence(const Node& node) {
  const size_t rank = InputShape(node, 0).rank();
  const int64_t seq_dim = NormalizeAxisOf(node, node.attrs().GetInt("seq_dim"), rank, "seq_dim");
  const int64_t batch_dim = NormalizeAxisOf(node, node.attrs().GetInt("batch_dim"), rank, "batch_dim");
  if (seq_dim == batch_dim) Fail(node, ErrorCode::kInvalidArgument, "seq_dim and batch_dim must differ");
  return DispatchElementSize(node, InputDtype(node, 0), [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<ReverseSequenceKernel<typename decltype(tag)::type>>(node, seq_dim, batch_dim);
  });
}

}  // namespace

void RegisterReverseSequenceKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "ReverseSequence", DataTypesOf(AllTypes{}), MakeReverseSequence);
}

}  // namespace ge::device::cpu
