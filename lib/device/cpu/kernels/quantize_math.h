// Arithmetic shared by the linear-quantization kernels (quantize.cc,
// integer_matmul.cc, integer_conv.cc): ONNX rounding and saturation, reading
// scales and zero points, and per-axis layouts.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "device/cpu/kernels/kernel_utils.h"
#include "graph/axis_view.h"

namespace ge::device::cpu {

// Round half to even (the default floating-point rounding mode, which ge never
// changes), then clamp to Q's range: ONNX's saturate(round(v)). NaN gives 0
// (converting it would be undefined behaviour).
template <typename Q, typename F>
Q SaturateRound(F value) {
  if (std::isnan(value)) return Q(0);
  const F rounded = std::nearbyint(value);
  const F lo = static_cast<F>(std::numeric_limits<Q>::lowest());
  const F hi = static_cast<F>(std::numeric_limits<Q>::max());
  return static_cast<Q>(std::clamp(rounded, lo, hi));
}

// Input i of the context, or an absent view when the node has fewer inputs.
inline TensorView OptionalInput(const KernelContext& ctx, size_t i) {
  return i < ctx.inputs.size() ? ctx.inputs[i] : TensorView{};
}

// Elements of an int8/uint8/int32 tensor (zero points, biases) as int32; an
// absent optional input reads as the single value 0. Errors start with
// `node_label` (Node::Describe(), kept by the kernel).
std::vector<int32_t> ReadInt32s(const std::string& node_label, const TensorView& view, std::string_view what);
// Elements of a float32 tensor (scales). A scale must be finite and nonzero
// when `nonzero` (divisors); fails naming the node and `what` otherwise.
std::vector<float> ReadScales(const std::string& node_label, const TensorView& view, std::string_view what,
                              bool nonzero);

// Input 0 viewed around its channel axis for parameters of `count` entries
// (`what`): per tensor (count 1) a single channel of all elements; otherwise
// the axis named by attribute `axis_attr`, whose dim must be count.
AxisView ChannelView(const Node& node, int64_t count, std::string_view axis_attr, std::string_view what);

// The per-entry parameter count of input i: 1 when it is absent or holds one
// element, else its length.
int64_t ParamCount(const Node& node, size_t input);
// Fails unless ParamCount(node, input) is 1 or `length` (per row, column or channel).
void CheckParamCount(const Node& node, size_t input, int64_t length, std::string_view what);

// Calls make(TypeTag<A>{}, TypeTag<B>{}) for the 8-bit dtypes (uint8, int8)
// of inputs a_input and b_input.
template <typename Make>
std::unique_ptr<Kernel> DispatchInt8Pair(const Node& node, size_t a_input, size_t b_input, Make&& make) {
  using Bytes = TypeList<uint8_t, int8_t>;
  return DispatchDtype(node, InputDtype(node, a_input), Bytes{}, [&](auto a_tag) {
    return DispatchDtype(node, InputDtype(node, b_input), Bytes{},
                         [&](auto b_tag) -> std::unique_ptr<Kernel> { return make(a_tag, b_tag); });
  });
}

// KernelT<A, B>(node, plan) for the 8-bit dtypes A and B of inputs a_input
// and b_input (ConvInteger, MatMulInteger).
template <template <typename, typename> class KernelT, typename Plan>
std::unique_ptr<Kernel> MakeInt8PairKernel(const Node& node, size_t a_input, size_t b_input, const Plan& plan) {
  return DispatchInt8Pair(node, a_input, b_input, [&](auto a_tag, auto b_tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<KernelT<typename decltype(a_tag)::type, typename decltype(b_tag)::type>>(node, plan);
  });
}

// KernelT<A, B, Q>(node, plan) for a QLinear op: A and B as above, Q the
// 8-bit dtype of output 0 (QLinearConv, QLinearMatMul).
template <template <typename, typename, typename> class KernelT, typename Plan>
std::unique_ptr<Kernel> MakeQLinearKernel(const Node& node, size_t a_input, size_t b_input, const Plan& plan) {
  return DispatchInt8Pair(node, a_input, b_input, [&](auto a_tag, auto b_tag) {
    using A = typename decltype(a_tag)::type;
    using B = typename decltype(b_tag)::type;
    return DispatchDtype(node, node.output(0)->dtype(), TypeList<uint8_t, int8_t>{},
                         [&](auto q_tag) -> std::unique_ptr<Kernel> {
                           return std::make_unique<KernelT<A, B, typename decltype(q_tag)::type>>(node, plan);
                         });
  });
}

}  // namespace ge::device::cpu
