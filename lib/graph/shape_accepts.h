// Whether data of one shape can feed a value declared with another: the rule
// of CompiledModel::Run, shared with the `ge` tool, which checks each .npy
// input before a run so that its error can name the file.
#pragma once

#include "ge/shape.h"

namespace ge {

// True when `actual` fits `declared`: the same rank and dims, where an unknown
// dim (or an unknown rank) of `declared` accepts any size. For a static
// declaration this is ==.
bool ShapeAccepts(const Shape& declared, const Shape& actual);

}  // namespace ge
