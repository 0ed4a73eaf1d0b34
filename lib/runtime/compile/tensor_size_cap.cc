#include "runtime/compile/tensor_size_cap.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "ge/error.h"
#include "graph/byte_size.h"

namespace ge::runtime {

namespace {

// An empty tensor's other dims still size kernels' strides and loops: their
// product must fit int64 as if the tensor were full ([7, 2^63 - 1, 0] is not
// a tensor any kernel can index).
void CheckEmptyTensorExtent(const Node& node, std::string_view name, const Shape& shape, DataType dtype) {
  std::vector<int64_t> extent = shape.dims();
  std::replace(extent.begin(), extent.end(), int64_t{0}, int64_t{1});
  if (CheckedByteSize(Shape(std::move(extent)), dtype)) return;
  throw Error(ErrorCode::kInvalidModel,
              fmt::format("{}: value '{}' of shape {} ({}) is empty, but its other dims multiply past int64",
                          node.Describe(), name, shape.ToString(), DataTypeName(dtype)));
}

}  // namespace

void CheckTensorSize(const Node& node, std::string_view name, const Shape& shape, DataType dtype, uint64_t max_bytes) {
  if (!shape.IsStatic()) return;
  const std::optional<int64_t> bytes = CheckedByteSize(shape, dtype);
  if (bytes == 0) CheckEmptyTensorExtent(node, name, shape, dtype);
  if (bytes && static_cast<uint64_t>(*bytes) <= max_bytes) return;
  const std::string size = bytes ? fmt::format("{} bytes", *bytes) : "more bytes than int64 can count";
  throw Error(ErrorCode::kInvalidModel,
              fmt::format("{}: value '{}' of shape {} ({}) needs {}; the cap (ge.maxTensorBytes) is {} bytes",
                          node.Describe(), name, shape.ToString(), DataTypeName(dtype), size, max_bytes));
}

void CheckTensorSize(const Node& node, const Value& value, uint64_t max_bytes) {
  CheckTensorSize(node, value.name(), value.shape(), value.dtype(), max_bytes);
}

void CheckTensorSizes(const Graph& graph, uint64_t max_bytes) {
  for (const Node* node : graph.nodes()) {
    for (const Value* output : node->outputs()) CheckTensorSize(*node, *output, max_bytes);
  }
}

}  // namespace ge::runtime
