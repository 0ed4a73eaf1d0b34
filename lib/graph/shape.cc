#include "ge/shape.h"

#include <fmt/core.h>

#include "ge/error.h"
#include "graph/byte_size.h"

namespace ge {

Shape Shape::UnknownRank() {
  Shape shape;
  shape.unknown_rank_ = true;
  return shape;
}

bool Shape::IsStatic() const {
  if (unknown_rank_) return false;
  for (int64_t d : dims_) {
    if (d < 0) return false;
  }
  return true;
}

int64_t Shape::NumElements() const {
  if (!IsStatic()) return -1;
  const std::optional<int64_t> count = CheckedNumElements(*this);
  if (!count) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("shape {} has more elements than int64 can count", ToString()));
  }
  return *count;
}

std::string Shape::ToString() const {
  if (unknown_rank_) return "[*]";
  std::string out = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) out += ",";
    out += dims_[i] < 0 ? std::string("?") : fmt::format("{}", dims_[i]);
  }
  return out + "]";
}

}  // namespace ge
