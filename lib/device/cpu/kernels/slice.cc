// StridedSliceV2 with ONNX Slice semantics: begin/end/axes/strides come from
// int32/int64 input tensors read at run time; negative indices count from the
// end, out-of-range ones are clamped, negative strides walk backwards.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

// Per input dim: first index read and step between reads.
struct SliceWindow {
  std::vector<int64_t> start;
  std::vector<int64_t> step;
  std::vector<int64_t> count;
};

// Clamps one axis like ONNX Slice: the first index read and how many are read.
void ClampAxis(int64_t dim, int64_t begin, int64_t end, int64_t step, int64_t& start_out, int64_t& count_out) {
  if (dim == 0) {
    start_out = 0;
    count_out = 0;
    return;
  }
  auto wrap = [dim](int64_t i) { return i < 0 ? i + dim : i; };
  begin = wrap(begin);
  end = wrap(end);
  if (step > 0) {
    begin = std::clamp<int64_t>(begin, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    count_out = end > begin ? (end - begin - 1) / step + 1 : 0;
  } else {
    begin = std::clamp<int64_t>(begin, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    count_out = begin > end ? (begin - end - 1) / -step + 1 : 0;
  }
  start_out = begin;
}

template <typename Element>
class StridedSliceKernel final : public Kernel {
 public:
  StridedSliceKernel(const Node& node)
      : label_(node.Describe()), in_dims_(InputShape(node, 0).dims()), out_dims_(OutputShape(node, 0).dims()) {}

  void Run(const KernelContext& ctx) const override {
    const SliceWindow window = ResolveWindow(ctx);
    const size_t rank = in_dims_.size();
    const auto* x = ctx.inputs[0].as<const Element>();
    auto* y = ctx.outputs[0].as<Element>();
    if (Product(out_dims_) == 0) return;
    if (rank == 0) {
      *y = *x;
      return;
    }
    const std::vector<int64_t> in_strides = RowMajorStrides(in_dims_);
    const int64_t inner = out_dims_.back();
    const int64_t inner_step = window.step.back();
    int64_t rows = 1;
    for (size_t d = 0; d + 1 < rank; ++d) rows *= out_dims_[d];
    ParallelFor(rows, rows * inner > kParallelGrain, [&](int64_t row) {
      int64_t offset = window.start.back();
      int64_t rest = row;
      for (size_t d = rank - 1; d-- > 0;) {
        offset += (window.start[d] + (rest % out_dims_[d]) * window.step[d]) * in_strides[d];
        rest /= out_dims_[d];
      }
      Element* out_row = y + row * inner;
      if (inner_step == 1) {
        std::memcpy(out_row, x + offset, static_cast<size_t>(inner) * sizeof(Element));
      } else {
        for (int64_t j = 0; j < inner; ++j) out_row[j] = x[offset + j * inner_step];
      }
    });
  }

 private:
  SliceWindow ResolveWindow(const KernelContext& ctx) const {
    const size_t rank = in_dims_.size();
    const std::vector<int64_t> begin = ReadIndexTensor(label_, ctx.inputs[1], "begin");
    const std::vector<int64_t> end = ReadIndexTensor(label_, ctx.inputs[2], "end");
    std::vector<int64_t> axes(begin.size());
    if (ctx.inputs.size() > 3 && ctx.inputs[3].data != nullptr) {
      axes = ReadIndexTensor(label_, ctx.inputs[3], "axes");
    } else {
      for (size_t i = 0; i < axes.size(); ++i) axes[i] = static_cast<int64_t>(i);
    }
    std::vector<int64_t> steps(begin.size(), 1);
    if (ctx.inputs.size() > 4 && ctx.inputs[4].data != nullptr) {
      steps = ReadIndexTensor(label_, ctx.inputs[4], "strides");
    }
    if (end.size() != begin.size() || axes.size() != begin.size() || steps.size() != begin.size()) {
      Throw(fmt::format("begin, end, axes and strides must have the same length, got {}, {}, {}, {}", begin.size(),
                        end.size(), axes.size(), steps.size()));
    }

    SliceWindow window{std::vector<int64_t>(rank, 0), std::vector<int64_t>(rank, 1), in_dims_};
    std::vector<bool> seen(rank, false);
    for (size_t i = 0; i < begin.size(); ++i) {
      int64_t axis = axes[i] < 0 ? axes[i] + static_cast<int64_t>(rank) : axes[i];
      if (axis < 0 || axis >= static_cast<int64_t>(rank) || seen[axis]) {
        Throw(fmt::format("axes entry {} is out of range or repeated for rank {}", axes[i], rank));
      }
      if (steps[i] == 0) Throw(fmt::format("strides entry {} is 0", i));
      seen[axis] = true;
      // A step longer than the axis reads one element either way; capping it
      // keeps the index arithmetic far from overflow.
      const int64_t bound = std::max<int64_t>(in_dims_[axis], 1);
      window.step[axis] = std::clamp(steps[i], -bound, bound);
      ClampAxis(in_dims_[axis], begin[i], end[i], window.step[axis], window.start[axis], window.count[axis]);
    }
    if (window.count != out_dims_) {
      Throw(fmt::format("the slice selects shape [{}] but the output is [{}]", fmt::join(window.count, ","),
                        fmt::join(out_dims_, ",")));
    }
    return window;
  }

  [[noreturn]] void Throw(const std::string& message) const {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: {}", label_, message));
  }

  std::string label_;
  std::vector<int64_t> in_dims_;
  std::vector<int64_t> out_dims_;
};

std::unique_ptr<Kernel> MakeStridedSlice(const Node& node) {
  if (InputShape(node, 0).rank() != OutputShape(node, 0).rank()) {
    Fail(node, ErrorCode::kInvalidModel,
         fmt::format("input rank {} and output rank {} differ", InputShape(node, 0).rank(),
                     OutputShape(node, 0).rank()));
  }
  return DispatchElementSize(node, InputDtype(node, 0), [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<StridedSliceKernel<typename decltype(tag)::type>>(node);
  });
}

}  // namespace

void RegisterSliceKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "StridedSliceV2", DataTypesOf(AllTypes{}), MakeStridedSlice);
}

}  // namespace ge::device::cpu
