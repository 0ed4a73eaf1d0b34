// Conventions of the loss ops shared by the schema, the CPU kernel and the importer.
#pragma once

#include <cstdint>
#include <limits>

namespace ge {

// NLLLoss's ignore_index when no class is ignored (ONNX's attribute is
// optional and every int64 is a valid value; INT64_MIN is never a class index,
// so it can stand for "absent").
inline constexpr int64_t kNllLossNoIgnoreIndex = std::numeric_limits<int64_t>::min();

}  // namespace ge
