#include "device/cpu/kernels/kernel_utils.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "graph/shape_inference_utils.h"

namespace ge::device::cpu {

std::string NodeLabel(const Node& node) { return fmt::format("node '{}' ({})", node.name(), node.op_type()); }

void Fail(const Node& node, ErrorCode code, std::string_view message) {
  throw Error(code, fmt::format("{}: {}", node.Describe(), message));
}

namespace {

const Shape& RequireStatic(const Node& node, const Value* value, std::string_view role, size_t i) {
  if (value == nullptr) Fail(node, ErrorCode::kInvalidModel, fmt::format("{} {} is missing", role, i));
  if (!value->shape().IsStatic()) {
    Fail(node, ErrorCode::kInvalidModel,
         fmt::format("{} {} has shape {}; the cpu kernels need static shapes", role, i, value->shape().ToString()));
  }
  return value->shape();
}

}  // namespace

const Shape& InputShape(const Node& node, size_t i) { return RequireStatic(node, node.input(i), "input", i); }

const Shape& OutputShape(const Node& node, size_t i) {
  if (i >= node.num_outputs()) Fail(node, ErrorCode::kInvalidModel, fmt::format("output {} is missing", i));
  return RequireStatic(node, node.output(i), "output", i);
}

DataType InputDtype(const Node& node, size_t i) {
  if (node.input(i) == nullptr) Fail(node, ErrorCode::kInvalidModel, fmt::format("input {} is missing", i));
  return node.input(i)->dtype();
}

bool HasInput(const Node& node, size_t i) { return node.input(i) != nullptr; }

void RequireInputDtype(const Node& node, size_t i, const std::vector<DataType>& allowed) {
  const DataType dtype = InputDtype(node, i);
  if (std::find(allowed.begin(), allowed.end(), dtype) == allowed.end()) {
    Fail(node, ErrorCode::kUnsupported, fmt::format("input {} has dtype {}; supported: {}", i, DataTypeName(dtype),
                                                    DataTypeNames(allowed)));
  }
}

int64_t NormalizeAxisOf(const Node& node, int64_t axis, size_t rank, std::string_view attr) {
  try {
    return NormalizeAxis(axis, rank);
  } catch (const Error& e) {
    Fail(node, e.code(), fmt::format("attribute '{}': {}", attr, e.what()));
  }
}

std::vector<int64_t> NormalizeAxesOf(const Node& node, const std::vector<int64_t>& axes, size_t rank,
                                     std::string_view attr) {
  std::vector<int64_t> normalized;
  normalized.reserve(axes.size());
  for (int64_t axis : axes) {
    int64_t a = NormalizeAxisOf(node, axis, rank, attr);
    if (std::find(normalized.begin(), normalized.end(), a) != normalized.end()) {
      Fail(node, ErrorCode::kInvalidArgument, fmt::format("attribute '{}' lists axis {} twice", attr, a));
    }
    normalized.push_back(a);
  }
  return normalized;
}

size_t ChoiceIndex(const Node& node, std::string_view attr, std::initializer_list<std::string_view> valid) {
  const std::string& value = node.attrs().GetString(std::string(attr));
  const auto* found = std::find(valid.begin(), valid.end(), value);
  if (found == valid.end()) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("attribute '{}' is '{}'; valid: {}", attr, value, fmt::join(valid, ", ")));
  }
  return static_cast<size_t>(found - valid.begin());
}

void RequireNchw(const Node& node) {
  const std::string& format = node.attrs().GetString("data_format");
  if (format != "NCHW") {
    Fail(node, ErrorCode::kUnsupported,
         fmt::format("attribute 'data_format' is \"{}\"; the cpu kernels support only \"NCHW\"", format));
  }
}

HW SpatialAttr(const Node& node, const std::string& attr) {
  const std::vector<int64_t>& values = node.attrs().GetInts(attr);
  if (values.size() != 4) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("attribute '{}' must have 4 entries in NCHW order [1, 1, h, w], got {}", attr, values.size()));
  }
  if (values[2] <= 0 || values[3] <= 0) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("attribute '{}' must have positive h and w, got [{}]", attr, fmt::join(values, ", ")));
  }
  return {values[2], values[3]};
}

Pads2D PadsAttr(const Node& node) {
  const std::vector<int64_t>& pads = node.attrs().GetInts("pads");
  if (pads.size() != 4 || std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p < 0; })) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("attribute 'pads' must be 4 non-negative values [top, bottom, left, right], got [{}]",
                     fmt::join(pads, ", ")));
  }
  return {pads[0], pads[1], pads[2], pads[3]};
}

int64_t Product(std::span<const int64_t> dims) {
  int64_t product = 1;
  for (int64_t d : dims) product *= d;
  return product;
}

std::vector<int64_t> RowMajorStrides(std::span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

std::vector<int64_t> ReadIndexTensor(const std::string& node_label, const TensorView& view, std::string_view what) {
  int64_t n = view.num_elements();
  std::vector<int64_t> values(static_cast<size_t>(n));
  if (view.dtype == DataType::kInt32) {
    std::copy_n(view.as<const int32_t>(), n, values.begin());
  } else if (view.dtype == DataType::kInt64) {
    std::copy_n(view.as<const int64_t>(), n, values.begin());
  } else {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: input '{}' must be int32 or int64, got {}", node_label,
                                                         what, DataTypeName(view.dtype)));
  }
  return values;
}

std::string DataTypeNames(const std::vector<DataType>& dtypes) {
  std::vector<std::string_view> names;
  for (DataType d : dtypes) names.push_back(DataTypeName(d));
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace ge::device::cpu
