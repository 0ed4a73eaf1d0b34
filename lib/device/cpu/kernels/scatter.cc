// ScatterElements and ScatterNdUpdate (ONNX ScatterElements / ScatterND):
// y starts as a copy of the data input; updates are then written, or
// combined by `reduction`, at the addressed elements or slices, in the order
// of the updates (so duplicate indices are deterministic).
#include <algorithm>
#include <cstring>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/index_utils.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

Reduction ReductionOf(const Node& node) {
  const std::string& name = node.attrs().GetString("reduction");
  if (name == "none") return Reduction::kNone;
  if (name == "add") return Reduction::kAdd;
  if (name == "mul") return Reduction::kMul;
  if (name == "max") return Reduction::kMax;
  if (name == "min") return Reduction::kMin;
  Fail(node, ErrorCode::kUnsupported,
       fmt::format("attribute 'reduction' = '{}'; supported: none, add, mul, max, min", name));
}

// Reductions compute on Load()ed values (float16/bfloat16 in float) and
// round the result back to T.
template <typename T>
void Combine(Reduction reduction, T& dst, T src) {
  if constexpr (std::is_same_v<T, bool>) {
    dst = src;  // only reachable with kNone: reductions dispatch over NumericTypes
  } else {
    const Compute<T> a = Load(dst), b = Load(src);
    switch (reduction) {
      case Reduction::kNone: dst = src; break;
      case Reduction::kAdd: dst = Store<T>(a + b); break;
      case Reduction::kMul: dst = Store<T>(a * b); break;
      case Reduction::kMax: dst = Store<T>(std::max(a, b)); break;
      case Reduction::kMin: dst = Store<T>(std::min(a, b)); break;
    }
  }
}

template <typename T>
class ScatterElementsKernel final : public Kernel {
 public:
  ScatterElementsKernel(const Node& node, int64_t axis, Reduction reduction)
      : label_(node.Describe()),
        axis_(axis),
        reduction_(reduction),
        dims_(InputShape(node, 0).dims()),
        index_dims_(InputShape(node, 1).dims()) {}

  void Run(const KernelContext& ctx) const override {
    const std::vector<int64_t> indices = WrappedIndices(label_, ctx.inputs[1], dims_[axis_], "index");
    const std::vector<int64_t> strides = RowMajorStrides(dims_);
    const auto* updates = ctx.inputs[2].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    if (y != ctx.inputs[0].data) std::memcpy(y, ctx.inputs[0].data, Product(dims_) * sizeof(T));
    for (size_t i = 0; i < indices.size(); ++i) {
      int64_t offset = 0;
      auto rest = static_cast<int64_t>(i);
      for (size_t d = index_dims_.size(); d-- > 0;) {
        const int64_t position = static_cast<int64_t>(d) == axis_ ? indices[i] : rest % index_dims_[d];
        offset += position * strides[d];
        rest /= index_dims_[d];
      }
      Combine(reduction_, y[offset], updates[i]);
    }
  }

 private:
  std::string label_;
  int64_t axis_;
  Reduction reduction_;
  std::vector<int64_t> dims_;
  std::vector<int64_t> index_dims_;
};

// Dispatches over every dtype without a reduction, over the numeric ones with.
template <template <typename> class KernelT, typename... Args>
std::unique_ptr<Kernel> MakeScatterKernel(const Node& node, Reduction reduction, const Args&... args) {
  auto make = [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<KernelT<typename decltype(tag)::type>>(node, args..., reduction);
  };
  if (reduction == Reduction::kNone) return DispatchDtype(node, InputDtype(node, 0), AllTypes{}, make);
  return DispatchDtype(node, InputDtype(node, 0), NumericTypes{}, make);
}

std::unique_ptr<Kernel> MakeScatterElements(const Node& node) {
  const Shape& x = InputShape(node, 0);
  const Shape& indices = InputShape(node, 1);
  const int64_t axis = NormalizeAxisOf(node, node.attrs().GetInt("axis"), x.rank(), "axis");
  bool fits = indices.rank() == x.rank() && InputShape(node, 2) == indices;
  for (size_t d = 0; fits && d < x.rank(); ++d) fits = static_cast<int64_t>(d) == axis || indices.dim(d) <= x.dim(d);
  if (!fits) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("indices {} and updates {} must have x's rank and fit x {}", indices.ToString(),
                     InputShape(node, 2).ToString(), x.ToString()));
  }
  return MakeScatterKernel<ScatterElementsKernel>(node, ReductionOf(node), axis);
}

// var viewed as [addressed..., slice], indices as [count, k], updates as [count, slice].
template <typename T>
class ScatterNdKernel final : public Kernel {
 public:
  ScatterNdKernel(const Node& node, Reduction reduction)
      : label_(node.Describe()), reduction_(reduction), dims_(InputShape(node, 0).dims()) {
    const auto& index_dims = InputShape(node, 1).dims();
    k_ = index_dims.back();
    count_ = Product(std::span(index_dims).first(index_dims.size() - 1));
    slice_ = Product(std::span(dims_).subspan(k_));
  }

  void Run(const KernelContext& ctx) const override {
    const std::vector<int64_t> indices = ReadIndexTensor(label_, ctx.inputs[1], "indices");
    const int64_t count = count_;
    std::vector<int64_t> offsets(static_cast<size_t>(count));
    for (int64_t c = 0; c < count; ++c) {
      int64_t offset = 0;
      for (int64_t j = 0; j < k_; ++j) {
        offset = offset * dims_[j] + WrapIndex(label_, indices[c * k_ + j], dims_[j], "index");
      }
      offsets[c] = offset * slice_;
    }
    const auto* updates = ctx.inputs[2].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    if (y != ctx.inputs[0].data) std::memcpy(y, ctx.inputs[0].data, Product(dims_) * sizeof(T));
    for (int64_t c = 0; c < count; ++c) {
      for (int64_t e = 0; e < slice_; ++e) Combine(reduction_, y[offsets[c] + e], updates[c * slice_ + e]);
    }
  }

 private:
  std::string label_;
  Reduction reduction_;
  std::vector<int64_t> dims_;
  int64_t k_ = 0;
  int64_t count_ = 1;
  int64_t slice_ = 1;
};

std::unique_ptr<Kernel> MakeScatterNd(const Node& node) {
  const Shape& x = InputShape(node, 0);
  const Shape& indices = InputShape(node, 1);
  const Shape& updates = InputShape(node, 2);
  // updates = indices.shape[:-1] + x.shape[k:].
  bool fits = indices.rank() >= 1 && indices.dims().back() <= static_cast<int64_t>(x.rank());
  if (fits) {
    std::vector<int64_t> expected(indices.dims().begin(), indices.dims().end() - 1);
    expected.insert(expected.end(), x.dims().begin() + indices.dims().back(), x.dims().end());
    fits = updates.dims() == expected;
  }
  if (!fits) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("indices {} and updates {} do not fit var {}", indices.ToString(), updates.ToString(),
                     x.ToString()));
  }
  return MakeScatterKernel<ScatterNdKernel>(node, ReductionOf(node));
}

}  // namespace

void RegisterScatterKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "ScatterElements", DataTypesOf(AllTypes{}), MakeScatterElements);
  RegisterKernel(registry, "ScatterNdUpdate", DataTypesOf(AllTypes{}), MakeScatterNd);
}

}  // namespace ge::device::cpu
