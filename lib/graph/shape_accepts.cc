#include "graph/shape_accepts.h"

namespace ge {

bool ShapeAccepts(const Shape& declared, const Shape& actual) {
  if (declared.unknown_rank()) return true;
  if (declared.rank() != actual.rank()) return false;
  for (size_t i = 0; i < declared.rank(); ++i) {
    if (declared.dim(i) != Shape::kUnknownDim && declared.dim(i) != actual.dim(i)) return false;
  }
  return true;
}

}  // namespace ge
