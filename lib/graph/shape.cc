#include "ge/shape.h"

#include <fmt/core.h>

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
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
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
