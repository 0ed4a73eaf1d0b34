#include "tensor_compare.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace ge::conformance {
namespace {

// Element i of a tensor of any dtype, widened to double for floats.
double FloatElement(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kFloat: return t.data_as<float>()[i];
    case DataType::kDouble: return t.data_as<double>()[i];
    case DataType::kFloat16: return static_cast<double>(t.data_as<_Float16>()[i]);
    case DataType::kBFloat16: {
      // bfloat16 is the upper half of a float32.
      const uint32_t bits = static_cast<uint32_t>(t.data_as<uint16_t>()[i]) << 16;
      return std::bit_cast<float>(bits);
    }
    default: return 0;  // CompareTensors only calls this for the float dtypes above
  }
}

std::optional<std::string> CompareFloats(const Tensor& got, const Tensor& expected, const Tolerance& tol) {
  int64_t mismatches = 0;
  std::string first;
  for (int64_t i = 0; i < expected.num_elements(); ++i) {
    const double g = FloatElement(got, i);
    const double e = FloatElement(expected, i);
    bool ok;
    if (std::isnan(e) || std::isnan(g)) {
      ok = std::isnan(e) && std::isnan(g);
    } else if (std::isinf(e) || std::isinf(g)) {
      ok = g == e;
    } else {
      ok = std::fabs(g - e) <= tol.atol + tol.rtol * std::fabs(e);
    }
    if (ok) continue;
    if (mismatches++ == 0) {
      first = fmt::format("element {} (flat index): got {}, expected {} (|diff| {:.3g} > tolerance {:.3g})", i, g, e,
                          std::fabs(g - e), tol.atol + tol.rtol * std::fabs(e));
    }
  }
  if (mismatches == 0) return std::nullopt;
  return fmt::format("{}; {} of {} elements differ", first, mismatches, expected.num_elements());
}

// Integers and bools compare exactly, so their bytes must be equal; the
// message shows the first differing element as an integer.
std::optional<std::string> CompareExact(const Tensor& got, const Tensor& expected) {
  const size_t size = DataTypeSize(expected.dtype());
  const auto* g = static_cast<const unsigned char*>(got.data());
  const auto* e = static_cast<const unsigned char*>(expected.data());
  auto element = [&](const unsigned char* p, int64_t i) -> int64_t {
    const unsigned char* at = p + i * size;
    const bool is_signed = expected.dtype() == DataType::kInt8 || expected.dtype() == DataType::kInt16 ||
                           expected.dtype() == DataType::kInt32 || expected.dtype() == DataType::kInt64;
    switch (size) {
      case 1: { uint8_t v; std::memcpy(&v, at, 1); return is_signed ? static_cast<int8_t>(v) : v; }
      case 2: { uint16_t v; std::memcpy(&v, at, 2); return is_signed ? static_cast<int16_t>(v) : v; }
      case 4: { uint32_t v; std::memcpy(&v, at, 4); return is_signed ? static_cast<int32_t>(v) : int64_t{v}; }
      default: { int64_t v; std::memcpy(&v, at, 8); return v; }
    }
  };
  int64_t mismatches = 0;
  std::string first;
  for (int64_t i = 0; i < expected.num_elements(); ++i) {
    if (std::memcmp(g + i * size, e + i * size, size) == 0) continue;
    if (mismatches++ == 0) {
      first = fmt::format("element {} (flat index): got {}, expected {}", i, element(g, i), element(e, i));
    }
  }
  if (mismatches == 0) return std::nullopt;
  return fmt::format("{}; {} of {} elements differ", first, mismatches, expected.num_elements());
}

// Sequences and optionals of the same kind (the caller checked): element by
// element, recursively.
std::optional<std::string> CompareContainers(const Tensor& got, const Tensor& expected, const Tolerance& tol) {
  const std::string_view kind = DataTypeName(expected.dtype());
  if (got.element_dtype() != expected.element_dtype()) {
    return fmt::format("{} of {}, expected {} of {}", kind, DataTypeName(got.element_dtype()), kind,
                       DataTypeName(expected.element_dtype()));
  }
  const bool optional = expected.dtype() == DataType::kOptional;
  const size_t count = expected.elements().size();
  if (got.elements().size() != count) {
    if (optional) return count == 0 ? "an optional with a value, expected none" : "an empty optional, expected a value";
    return fmt::format("a sequence of {} elements, expected {}", got.elements().size(), count);
  }
  for (size_t i = 0; i < count; ++i) {
    if (auto difference = CompareTensors(got.elements()[i], expected.elements()[i], tol)) {
      if (optional) return fmt::format("the optional's value: {}", *difference);
      return fmt::format("element {} of the sequence: {}", i, *difference);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> CompareTensors(const Tensor& got, const Tensor& expected, const Tolerance& tolerance) {
  if (got.dtype() != expected.dtype()) {
    return fmt::format("dtype {}, expected {}", DataTypeName(got.dtype()), DataTypeName(expected.dtype()));
  }
  if (expected.is_container()) return CompareContainers(got, expected, tolerance);
  if (got.shape() != expected.shape()) {
    return fmt::format("shape {}, expected {}", got.shape().ToString(), expected.shape().ToString());
  }
  if (IsFloatingPoint(expected.dtype())) return CompareFloats(got, expected, tolerance);
  return CompareExact(got, expected);
}

}  // namespace ge::conformance
