// Helpers shared by the CPU kernel families: error messages that name the
// node, reading normalized attributes, dtype dispatch and registration.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "device/kernel.h"
#include "ge/error.h"
#include "ge/graph.h"
#include "graph/impl_mode.h"

namespace ge::device::cpu {

// Loops with fewer elements than this run on one thread: below it, waking the
// OpenMP team costs more than the work.
inline constexpr int64_t kParallelGrain = 1 << 15;

// Calls body(i) for i in [0, count): on the OpenMP threads when `parallel`,
// else on the calling thread without entering OpenMP. An OpenMP region costs
// about a microsecond even when its if clause is false (libgomp sets up a
// team of one), as much as a small tensor's whole kernel: dynamic models run
// hundreds of those per run (shape arithmetic), so small work stays out.
template <typename Body>
void ParallelFor(int64_t count, bool parallel, Body&& body) {
  if (parallel && count > 1) {
#pragma omp parallel for
    for (int64_t i = 0; i < count; ++i) body(i);
    return;
  }
  for (int64_t i = 0; i < count; ++i) body(i);
}

// Calls span(begin, end) over [0, count) in chunks of kParallelGrain
// elements, on the OpenMP threads when there is more than one chunk.
template <typename Span>
void ForEachChunk(int64_t count, Span&& span) {
  const int64_t chunks = (count + kParallelGrain - 1) / kParallelGrain;
  ParallelFor(chunks, chunks > 1,
              [&](int64_t c) { span(c * kParallelGrain, std::min(count, (c + 1) * kParallelGrain)); });
}

// Throws ge::Error prefixed with node.Describe() ("node 'conv1' (Conv2D): ...").
[[noreturn]] void Fail(const Node& node, ErrorCode code, std::string_view message);

// Input i (which must be present) and output i with their static shapes.
const Shape& InputShape(const Node& node, size_t i);
const Shape& OutputShape(const Node& node, size_t i);
DataType InputDtype(const Node& node, size_t i);
bool HasInput(const Node& node, size_t i);
// Fails (kUnsupported, naming the node and the choices) unless input i has one of the dtypes.
void RequireInputDtype(const Node& node, size_t i, const std::vector<DataType>& allowed);

// Maps axes in [-rank, rank) to [0, rank); a bad or repeated axis fails naming
// the node and the attribute.
int64_t NormalizeAxisOf(const Node& node, int64_t axis, size_t rank, std::string_view attr);
std::vector<int64_t> NormalizeAxesOf(const Node& node, const std::vector<int64_t>& axes, size_t rank,
                                     std::string_view attr);

// The position of string attribute `attr` among `valid`; fails
// (kInvalidArgument) naming the node, the value and the valid choices.
size_t ChoiceIndex(const Node& node, std::string_view attr, std::initializer_list<std::string_view> valid);

// 4-D ops: data_format must be "NCHW" (the only layout of the first release).
void RequireNchw(const Node& node);
struct HW {
  int64_t h = 0;
  int64_t w = 0;
};
// The H and W entries of a 4-element NCHW-ordered attribute (strides, dilations, ksize).
HW SpatialAttr(const Node& node, const std::string& attr);
struct Pads2D {
  int64_t top = 0, bottom = 0, left = 0, right = 0;
};
// "pads" as [top, bottom, left, right], each non-negative.
Pads2D PadsAttr(const Node& node);

int64_t Product(std::span<const int64_t> dims);
// Row-major strides of dims (in elements).
std::vector<int64_t> RowMajorStrides(std::span<const int64_t> dims);

// Input i of a kernel's context as a vector of int64 (int32 or int64 tensors:
// Slice's starts, ...). Fails naming the node for other dtypes.
std::vector<int64_t> ReadIndexTensor(const std::string& node_label, const TensorView& view, std::string_view what);

// bfloat16 storage: the upper half of a float32.
struct BFloat16 {
  uint16_t bits;
};

template <typename T>
struct DataTypeOf;
#define GE_CPU_DTYPE(cpp_type, dtype) \
  template <>                         \
  struct DataTypeOf<cpp_type> {       \
    static constexpr DataType value = dtype; \
  };
GE_CPU_DTYPE(float, DataType::kFloat)
GE_CPU_DTYPE(double, DataType::kDouble)
GE_CPU_DTYPE(_Float16, DataType::kFloat16)
GE_CPU_DTYPE(BFloat16, DataType::kBFloat16)
GE_CPU_DTYPE(int8_t, DataType::kInt8)
GE_CPU_DTYPE(uint8_t, DataType::kUInt8)
GE_CPU_DTYPE(int16_t, DataType::kInt16)
GE_CPU_DTYPE(uint16_t, DataType::kUInt16)
GE_CPU_DTYPE(int32_t, DataType::kInt32)
GE_CPU_DTYPE(uint32_t, DataType::kUInt32)
GE_CPU_DTYPE(int64_t, DataType::kInt64)
GE_CPU_DTYPE(uint64_t, DataType::kUInt64)
GE_CPU_DTYPE(bool, DataType::kBool)
#undef GE_CPU_DTYPE

template <typename T>
struct TypeTag {
  using type = T;
};
template <typename... Ts>
struct TypeList {};

using FloatTypes = TypeList<float, double>;
// The types of arithmetic kernels: the float types plus the index types that
// shape arithmetic needs.
using ArithmeticTypes = TypeList<float, double, int32_t, int64_t>;
using AllTypes = TypeList<float, double, _Float16, BFloat16, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t,
                          int64_t, uint64_t, bool>;

template <typename... Ts>
std::vector<DataType> DataTypesOf(TypeList<Ts...>) {
  return {DataTypeOf<Ts>::value...};
}

std::string DataTypeNames(const std::vector<DataType>& dtypes);

// Calls make(TypeTag<T>{}) for the T of `dtype` among the list; fails naming
// the node and the supported dtypes when dtype is not in it.
template <typename First, typename... Ts, typename Make>
auto DispatchDtype(const Node& node, DataType dtype, TypeList<First, Ts...> types, Make&& make)
    -> decltype(make(TypeTag<First>{})) {
  decltype(make(TypeTag<First>{})) result{};
  bool found = dtype == DataTypeOf<First>::value ? (result = make(TypeTag<First>{}), true) : false;
  found = found || ((dtype == DataTypeOf<Ts>::value ? (result = make(TypeTag<Ts>{}), true) : false) || ...);
  if (!found) {
    Fail(node, ErrorCode::kUnsupported,
         std::string("dtype ") + std::string(DataTypeName(dtype)) + " is not supported; supported: " +
             DataTypeNames(DataTypesOf(types)));
  }
  return result;
}

// For kernels that only move elements: calls make(TypeTag<U>{}) with the
// unsigned integer U of the dtype's size (1, 2, 4 or 8 bytes).
template <typename Make>
auto DispatchElementSize(const Node& node, DataType dtype, Make&& make) -> decltype(make(TypeTag<uint8_t>{})) {
  switch (DataTypeSize(dtype)) {
    case 1: return make(TypeTag<uint8_t>{});
    case 2: return make(TypeTag<uint16_t>{});
    case 4: return make(TypeTag<uint32_t>{});
    case 8: return make(TypeTag<uint64_t>{});
    default:
      Fail(node, ErrorCode::kUnsupported, std::string("dtype ") + std::string(DataTypeName(dtype)) +
                                              " is not supported (elements of 1, 2, 4 or 8 bytes only)");
  }
}

// Implementation modes: graph/impl_mode.h (the names, the node attribute and
// ImplModeOf). high_performance uses the approximations of fast_math.h or a
// narrower accumulation.

// Kernels with a single implementation: they compute in the precision of
// their dtype, without approximations.
inline const std::vector<std::string>& CpuImplModes() {
  static const std::vector<std::string> modes = {std::string(kHighPrecision)};
  return modes;
}

// Kernels with a precise default and a fast alternative.
inline const std::vector<std::string>& DualImplModes() {
  static const std::vector<std::string> modes = {std::string(kHighPrecision), std::string(kHighPerformance)};
  return modes;
}

// Whether the node asks for the fast implementation of a DualImplModes kernel.
inline bool WantsHighPerformance(const Node& node) { return ImplModeOf(node, kHighPrecision) == kHighPerformance; }

// The cube ops (MatMulV2, BatchMatMulV2, Conv2D): the two fp32 execution
// modes besides the two precision modes.
inline const std::vector<std::string>& CubeImplModes() {
  static const std::vector<std::string> modes = {std::string(kHighPrecision), std::string(kHighPerformance),
                                                 std::string(kFloat32Execution), std::string(kHiFloat32Execution)};
  return modes;
}

// Whether a CubeImplModes kernel should multiply bfloat16-rounded operands
// (high_performance, enable_hi_float_32_execution) rather than exact ones.
inline bool WantsReducedPrecisionProducts(const Node& node) {
  const std::string_view mode = ImplModeOf(node, kHighPrecision);
  return mode == kHighPerformance || mode == kHiFloat32Execution;
}

// The dtypes whose kernels can have several implementations: the ones
// computed in float32. The others (float64, integers) have only the precise one.
inline bool OffersImplModes(DataType dtype) {
  return dtype == DataType::kFloat || dtype == DataType::kFloat16 || dtype == DataType::kBFloat16;
}

// Registers the factory for the dtypes. With impl_modes beyond the single
// precise one, the OffersImplModes dtypes get a KernelDef listing them and the
// others one listing only high_precision, so the registry reports per dtype
// what a node can get (the factory runs the precise form for those).
inline void RegisterKernel(KernelRegistry& registry, std::string op_type, std::vector<DataType> dtypes,
                           KernelFactory factory, std::vector<std::string> impl_modes = CpuImplModes()) {
  if (impl_modes != CpuImplModes()) {
    std::vector<DataType> single;
    std::erase_if(dtypes, [&](DataType dtype) {
      if (OffersImplModes(dtype)) return false;
      single.push_back(dtype);
      return true;
    });
    if (!single.empty()) registry.Register(KernelDef{op_type, std::move(single), CpuImplModes(), factory});
  }
  registry.Register(KernelDef{std::move(op_type), std::move(dtypes), std::move(impl_modes), std::move(factory)});
}

}  // namespace ge::device::cpu
