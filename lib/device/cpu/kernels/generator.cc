// Ops that make their output from scalars or a shape: Fill, Range, OneHot,
// EyeLike, Size. Output shapes are static when the kernel is built (the
// runtime infers them from the constant or run-time inputs).
#include <cstring>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/index_utils.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

// Fill: every output element is the bytes of `value`.
template <typename Element>
class FillKernel final : public Kernel {
 public:
  void Run(const KernelContext& ctx) const override {
    Element value;
    std::memcpy(&value, ctx.inputs[1].data, sizeof value);
    std::fill_n(ctx.outputs[0].as<Element>(), ctx.outputs[0].num_elements(), value);
  }
  bool TakesShapesAtRun() const override { return true; }
};

std::unique_ptr<Kernel> MakeFill(const Node& node) {
  if (InputShape(node, 1).NumElements() != 1) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("value must hold one element, got shape {}", InputShape(node, 1).ToString()));
  }
  return DispatchElementSize(node, InputDtype(node, 1), [](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<FillKernel<typename decltype(tag)::type>>();
  });
}

// Range: y[i] = start + i * delta, computed in T like ONNX's reference.
template <typename T>
class RangeKernel final : public Kernel {
 public:
  void Run(const KernelContext& ctx) const override {
    const Compute<T> start = Load(*ctx.inputs[0].as<const T>());
    const Compute<T> delta = Load(*ctx.inputs[2].as<const T>());
    T* y = ctx.outputs[0].as<T>();
    const int64_t n = ctx.outputs[0].num_elements();
    for (int64_t i = 0; i < n; ++i) {
      y[i] = Store<T>(static_cast<Compute<T>>(start + static_cast<Compute<T>>(i) * delta));
    }
  }
};

using RangeTypes = TypeList<float, double, _Float16, BFloat16, int16_t, int32_t, int64_t>;

std::unique_ptr<Kernel> MakeRange(const Node& node) {
  for (size_t i = 0; i < 3; ++i) {
    if (InputShape(node, i).NumElements() != 1) {
      Fail(node, ErrorCode::kInvalidArgument, fmt::format("input {} must be a scalar", i));
    }
  }
  return DispatchDtype(node, InputDtype(node, 0), RangeTypes{}, [](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<RangeKernel<typename decltype(tag)::type>>();
  });
}

// OneHot: the depth is the output's dim at axis; indices of any ordered dtype
// are truncated to integers, negative ones count from depth, and ones
// outside [-depth, depth) give an all-off row (as ONNX specifies).
template <typename Index, typename Element>
class OneHotKernel final : public Kernel {
 public:
  OneHotKernel(int64_t outer, int64_t depth, int64_t inner) : outer_(outer), depth_(depth), inner_(inner) {}

  void Run(const KernelContext& ctx) const override {
    const auto* indices = ctx.inputs[0].as<const Index>();
    Element on, off;
    std::memcpy(&on, ctx.inputs[2].data, sizeof on);
    std::memcpy(&off, ctx.inputs[3].data, sizeof off);
    auto* y = ctx.outputs[0].as<Element>();
    std::fill_n(y, outer_ * depth_ * inner_, off);
    for (int64_t o = 0; o < outer_; ++o) {
      for (int64_t i = 0; i < inner_; ++i) {
        auto index = static_cast<int64_t>(Load(indices[o * inner_ + i]));
        if (index < 0) index += depth_;
        if (index >= 0 && index < depth_) y[(o * depth_ + index) * inner_ + i] = on;
      }
    }
  }

 private:
  int64_t outer_, depth_, inner_;
};

std::unique_ptr<Kernel> MakeOneHot(const Node& node) {
  const Shape& y = OutputShape(node, 0);
  const int64_t axis = NormalizeAxisOf(node, node.attrs().GetInt("axis"), y.rank(), "axis");
  const int64_t outer = Product(std::span(y.dims()).first(axis));
  const int64_t inner = Product(std::span(y.dims()).subspan(axis + 1));
  if (outer * inner != InputShape(node, 0).NumElements()) {
    Fail(node, ErrorCode::kInvalidModel,
         fmt::format("output {} does not fit indices {}", y.ToString(), InputShape(node, 0).ToString()));
  }
  if (InputShape(node, 2).NumElements() != 1 || InputShape(node, 3).NumElements() != 1) {
    Fail(node, ErrorCode::kInvalidArgument, "on_value and off_value must be scalars");
  }
  return DispatchDtype(node, InputDtype(node, 0), NumericTypes{}, [&](auto index_tag) -> std::unique_ptr<Kernel> {
    return DispatchElementSize(node, InputDtype(node, 2), [&](auto tag) -> std::unique_ptr<Kernel> {
      return std::make_unique<OneHotKernel<typename decltype(index_tag)::type, typename decltype(tag)::type>>(
          outer, y.dim(axis), inner);
    });
  });
}

template <typename T>
T One() {
  if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16{0x3F80};
  } else {
    return T(1);
  }
}

// EyeLike: ones where col - row == k.
template <typename T>
class EyeKernel final : public Kernel {
 public:
  EyeKernel(int64_t rows, int64_t cols, int64_t k) : rows_(rows), cols_(cols), k_(k) {}
  void Run(const KernelContext& ctx) const override {
    T* y = ctx.outputs[0].as<T>();
    std::fill_n(y, rows_ * cols_, T{});
    for (int64_t r = 0; r < rows_; ++r) {
      const int64_t c = r + k_;
      if (c >= 0 && c < cols_) y[r * cols_ + c] = One<T>();
    }
  }

 private:
  int64_t rows_, cols_, k_;
};

std::unique_ptr<Kernel> MakeEyeLike(const Node& node) {
  const Shape& y = OutputShape(node, 0);
  if (y.rank() != 2) Fail(node, ErrorCode::kInvalidArgument, fmt::format("output {} must be 2-D", y.ToString()));
  const int64_t k = node.attrs().GetInt("k");
  return DispatchDtype(node, node.output(0)->dtype(), AllTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<EyeKernel<typename decltype(tag)::type>>(y.dim(0), y.dim(1), k);
  });
}

template <typename Index>
class SizeKernel final : public Kernel {
 public:
  explicit SizeKernel(int64_t size) : size_(size) {}
  void Run(const KernelContext& ctx) const override { *ctx.outputs[0].as<Index>() = static_cast<Index>(size_); }

 private:
  int64_t size_;
};

std::unique_ptr<Kernel> MakeSize(const Node& node) {
  const int64_t size = InputShape(node, 0).NumElements();
  switch (node.output(0)->dtype()) {
    case DataType::kInt32: return std::make_unique<SizeKernel<int32_t>>(size);
    case DataType::kInt64: return std::make_unique<SizeKernel<int64_t>>(size);
    default:
      Fail(node, ErrorCode::kUnsupported,
           fmt::format("output dtype {} is not supported; supported: int32, int64",
                       DataTypeName(node.output(0)->dtype())));
  }
}

}  // namespace

void RegisterGeneratorKernels(KernelRegistry& registry) {
  const std::vector<DataType> all = DataTypesOf(AllTypes{});
  RegisterKernel(registry, "Fill", DataTypesOf(TypeList<int32_t, int64_t>{}), MakeFill);
  RegisterKernel(registry, "Range", DataTypesOf(RangeTypes{}), MakeRange);
  RegisterKernel(registry, "OneHot", DataTypesOf(NumericTypes{}), MakeOneHot);
  RegisterKernel(registry, "EyeLike", all, MakeEyeLike);
  RegisterKernel(registry, "Size", all, MakeSize);
}

}  // namespace ge::device::cpu
