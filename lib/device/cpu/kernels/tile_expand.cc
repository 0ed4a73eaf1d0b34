// Tile and Expand: every output element copies the input element whose index
// is the output index modulo the input dims (x's shape left-padded with 1s to
// the output rank). For Expand the input dim is 1 or the output dim, for Tile
// the output dim is a multiple of it, so one kernel serves both.
#include <cstring>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

template <typename Element>
class RepeatKernel final : public Kernel {
 public:
  RepeatKernel(std::vector<int64_t> in_dims, std::vector<int64_t> out_dims)
      : in_dims_(std::move(in_dims)), out_dims_(std::move(out_dims)), in_strides_(RowMajorStrides(in_dims_)) {}

  void Run(const KernelContext& ctx) const override {
    const auto* x = ctx.inputs[0].as<const Element>();
    auto* y = ctx.outputs[0].as<Element>();
    if (Product(out_dims_) == 0) return;
    if (out_dims_.empty()) {
      *y = *x;
      return;
    }
    const size_t rank = out_dims_.size();
    const int64_t inner = out_dims_.back();
    const int64_t in_inner = in_dims_.back();
    const int64_t rows = Product(out_dims_) / inner;
    ParallelFor(rows, rows * inner > kParallelGrain, [&](int64_t row) {
      int64_t offset = 0;
      int64_t rest = row;
      for (size_t d = rank - 1; d-- > 0;) {
        offset += (rest % out_dims_[d]) % in_dims_[d] * in_strides_[d];
        rest /= out_dims_[d];
      }
      const Element* in_row = x + offset;
      Element* out_row = y + row * inner;
      // Copy whole input rows, then the tail of a partial repeat.
      for (int64_t j = 0; j < inner; j += in_inner) {
        std::memcpy(out_row + j, in_row, static_cast<size_t>(std::min(in_inner, inner - j)) * sizeof(Element));
      }
    });
  }

 private:
  std::vector<int64_t> in_dims_;
  std::vector<int64_t> out_dims_;
  std::vector<int64_t> in_strides_;
};

std::unique_ptr<Kernel> MakeRepeat(const Node& node) {
  const Shape& x = InputShape(node, 0);
  const Shape& y = OutputShape(node, 0);
  if (x.rank() > y.rank()) {
    Fail(node, ErrorCode::kInvalidModel, fmt::format("output {} has lower rank than x {}", y.ToString(), x.ToString()));
  }
  std::vector<int64_t> in_dims(y.rank() - x.rank(), 1);
  in_dims.insert(in_dims.end(), x.dims().begin(), x.dims().end());
  for (size_t d = 0; d < in_dims.size(); ++d) {
    const bool repeats = in_dims[d] == 0 ? y.dim(d) == 0 : y.dim(d) % in_dims[d] == 0;
    if (!repeats) {
      Fail(node, ErrorCode::kInvalidModel,
           fmt::format("output {} does not repeat x {} along dim {}", y.ToString(), x.ToString(), d));
    }
  }
  return DispatchElementSize(node, InputDtype(node, 0), [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<RepeatKernel<typename decltype(tag)::type>>(std::move(in_dims), y.dims());
  });
}

}  // namespace

void RegisterTileExpandKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "Tile", DataTypesOf(AllTypes{}), MakeRepeat);
  RegisterKernel(registry, "Expand", DataTypesOf(AllTypes{}), MakeRepeat);
}

}  // namespace ge::device::cpu
