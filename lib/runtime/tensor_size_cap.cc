#include "runtime/tensor_size_cap.h"

#include <fmt/format.h>

#include "ge/error.h"
#include "graph/byte_size.h"

namespace ge::runtime {

void CheckTensorSizes(const Graph& graph, uint64_t max_bytes) {
  for (const Node* node : graph.nodes()) {
    for (const Value* output : node->outputs()) {
      if (!output->shape().IsStatic()) continue;
      const std::optional<int64_t> bytes = CheckedByteSize(output->shape(), output->dtype());
      if (bytes && static_cast<uint64_t>(*bytes) <= max_bytes) continue;
      const std::string size = bytes ? fmt::format("{} bytes", *bytes) : "more bytes than int64 can count";
      throw Error(ErrorCode::kInvalidModel,
                  fmt::format("{}: value '{}' of shape {} ({}) needs {}; the cap (ge.maxTensorBytes) is {} bytes",
                              node->Describe(), output->name(), output->shape().ToString(),
                              DataTypeName(output->dtype()), size, max_bytes));
    }
  }
}

}  // namespace ge::runtime
