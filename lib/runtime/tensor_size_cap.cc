#include "runtime/tensor_size_cap.h"

#include <fmt/format.h>

#include "ge/error.h"
#include "graph/byte_size.h"

namespace ge::runtime {

void CheckTensorSize(const Node& node, const Value& value, uint64_t max_bytes) {
  if (!value.shape().IsStatic()) return;
  const std::optional<int64_t> bytes = CheckedByteSize(value.shape(), value.dtype());
  if (bytes && static_cast<uint64_t>(*bytes) <= max_bytes) return;
  const std::string size = bytes ? fmt::format("{} bytes", *bytes) : "more bytes than int64 can count";
  throw Error(ErrorCode::kInvalidModel,
              fmt::format("{}: value '{}' of shape {} ({}) needs {}; the cap (ge.maxTensorBytes) is {} bytes",
                          node.Describe(), value.name(), value.shape().ToString(), DataTypeName(value.dtype()), size,
                          max_bytes));
}

void CheckTensorSizes(const Graph& graph, uint64_t max_bytes) {
  for (const Node* node : graph.nodes()) {
    for (const Value* output : node->outputs()) CheckTensorSize(*node, *output, max_bytes);
  }
}

}  // namespace ge::runtime
