#include "device/cpu/kernels/quantize_math.h"

#include <fmt/core.h>

namespace ge::device::cpu {

namespace {

template <typename T>
std::vector<int32_t> Widen(const TensorView& view) {
  const T* data = view.as<const T>();
  return std::vector<int32_t>(data, data + view.num_elements());
}

}  // namespace

std::vector<int32_t> ReadInt32s(const std::string& node_label, const TensorView& view, std::string_view what) {
  if (view.data == nullptr) return {0};
  switch (view.dtype) {
    case DataType::kInt8: return Widen<int8_t>(view);
    case DataType::kUInt8: return Widen<uint8_t>(view);
    case DataType::kInt32: return Widen<int32_t>(view);
    default:
      throw Error(ErrorCode::kUnsupported, fmt::format("{}: {} must be int8, uint8 or int32, got {}", node_label,
                                                       what, DataTypeName(view.dtype)));
  }
}

std::vector<float> ReadScales(const std::string& node_label, const TensorView& view, std::string_view what,
                              bool nonzero) {
  if (view.dtype != DataType::kFloat) {
    throw Error(ErrorCode::kUnsupported,
                fmt::format("{}: {} must be float32, got {}", node_label, what, DataTypeName(view.dtype)));
  }
  const float* data = view.as<const float>();
  std::vector<float> scales(data, data + view.num_elements());
  for (float s : scales) {
    if (nonzero && (!std::isfinite(s) || s == 0.0f)) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("{}: {} must be finite and nonzero, got {}", node_label, what, s));
    }
  }
  return scales;
}

int64_t ParamCount(const Node& node, size_t input) {
  if (!HasInput(node, input)) return 1;
  const int64_t count = InputShape(node, input).NumElements();
  return count == 0 ? 1 : count;
}

void CheckParamCount(const Node& node, size_t input, int64_t length, std::string_view what) {
  const int64_t count = ParamCount(node, input);
  if (count != 1 && count != length) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("{} has {} elements; it must have 1 or {}", what, count, length));
  }
}

AxisView ChannelView(const Node& node, int64_t count, std::string_view axis_attr, std::string_view what) {
  const auto& dims = InputShape(node, 0).dims();
  if (count == 1) return AxisView{1, 1, Product(dims)};
  const int64_t axis = NormalizeAxisOf(node, node.attrs().GetInt(std::string(axis_attr)), dims.size(), axis_attr);
  if (dims[axis] != count) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("{} has {} elements; it must have 1 or C = {} (dim {} of x, {})", what, count, dims[axis], axis,
                     axis_attr));
  }
  return ViewAround(dims, static_cast<size_t>(axis));
}

}  // namespace ge::device::cpu
