// Storage vs. arithmetic types of the elementwise kernels: float16 and
// bfloat16 elements are loaded into float, computed on, and rounded back to
// nearest even when stored; every other type computes in itself, so the
// float32/float64/integer loops stay plain (and vectorizable).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "device/cpu/kernels/kernel_utils.h"
#include "graph/half_float_bits.h"

namespace ge::device::cpu {

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, _Float16> || std::is_same_v<T, BFloat16>;

template <typename T>
using Compute = std::conditional_t<kIsHalf<T>, float, T>;

// The kernels' element types over graph/half_float_bits.h.
inline float BFloat16ToFloat(BFloat16 v) { return BFloat16BitsToFloat(v.bits); }
inline BFloat16 FloatToBFloat16(float f) { return {FloatToBFloat16Bits(f)}; }
inline float HalfToFloat(_Float16 v) { return HalfBitsToFloat(std::bit_cast<uint16_t>(v)); }
inline _Float16 FloatToHalf(float f) { return std::bit_cast<_Float16>(FloatToHalfBits(f)); }

template <typename T>
inline Compute<T> Load(T v) {
  if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16ToFloat(v);
  } else if constexpr (std::is_same_v<T, _Float16>) {
    return HalfToFloat(v);
  } else {
    return static_cast<Compute<T>>(v);
  }
}

// Stores a computed value as T. Bool results (comparisons) and values already
// of type T pass through. A double rounds to float16 directly (not through
// float, which could round twice).
template <typename T, typename C>
inline T Store(C v) {
  if constexpr (std::is_same_v<T, BFloat16>) {
    return FloatToBFloat16(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, _Float16> && std::is_same_v<C, float>) {
    return FloatToHalf(v);
  } else {
    return static_cast<T>(v);
  }
}

// n elements as their Compute type. Kernels that read each half element many
// times (convolution, matmul) widen it once: without hardware conversions a
// float16 load is a library call.
template <typename T>
std::vector<Compute<T>> Widened(const T* data, int64_t n) {
  std::vector<Compute<T>> out(static_cast<size_t>(n));
  for (size_t i = 0; i < out.size(); ++i) out[i] = Load(data[i]);
  return out;
}

// A float32 kernel run for float16/bfloat16 (T) storage: the T inputs are
// widened to float copies, the inner kernel fills float buffers for the T
// outputs, which are then rounded once. For kernels whose half-precision
// path needs nothing but float arithmetic (the recurrent ops).
template <typename T>
class WidenedKernel final : public Kernel {
 public:
  explicit WidenedKernel(std::unique_ptr<Kernel> inner) : inner_(std::move(inner)) {}

  void Run(const KernelContext& ctx) const override {
    constexpr DataType kHalf = DataTypeOf<T>::value;
    std::vector<std::vector<float>> buffers;
    auto widen = [&](TensorView& view, bool copy) {
      if (view.data == nullptr || view.dtype != kHalf) return;
      std::vector<float>& buffer =
          buffers.emplace_back(copy ? Widened(view.as<const T>(), view.num_elements())
                                    : std::vector<float>(static_cast<size_t>(view.num_elements())));
      view = {DataType::kFloat, view.shape, buffer.data()};
    };
    std::vector<TensorView> inputs(ctx.inputs.begin(), ctx.inputs.end());
    std::vector<TensorView> outputs(ctx.outputs.begin(), ctx.outputs.end());
    for (TensorView& view : inputs) widen(view, /*copy=*/true);
    for (TensorView& view : outputs) widen(view, /*copy=*/false);
    inner_->Run(KernelContext{inputs, outputs, ctx.workspace, ctx.stream});
    for (size_t o = 0; o < outputs.size(); ++o) {
      if (outputs[o].data == ctx.outputs[o].data) continue;  // not a T output
      const float* wide = outputs[o].as<const float>();
      T* narrow = ctx.outputs[o].as<T>();
      for (int64_t i = 0; i < outputs[o].num_elements(); ++i) narrow[i] = Store<T>(wide[i]);
    }
  }

  size_t WorkspaceBytes() const override { return inner_->WorkspaceBytes(); }

 private:
  std::unique_ptr<Kernel> inner_;
};

// The dtype lists of the elementwise kernels.
using HalfFloatTypes = TypeList<float, double, _Float16, BFloat16>;
using IntegerTypes = TypeList<int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t>;
using NumericTypes =
    TypeList<float, double, _Float16, BFloat16, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t>;
using BoolTypes = TypeList<bool>;

}  // namespace ge::device::cpu
