// Names of graph input dims: the symbols a model gives its variable dims
// (ONNX dim_param: "batch", "sequence", "past_sequence"). The importer
// records them on the input's Data node; CompiledModel::inputs() reports
// them (TensorInfo::dim_names), and a run checks that every dim named alike
// has one size across the inputs, as ONNX means by a shared name.
#pragma once

#include <string>
#include <vector>

#include "ge/graph.h"

namespace ge {

// Data node attribute: one name per dim of the input, empty for a dim with
// no name. Absent when no dim is named.
inline constexpr const char* kDimNamesAttr = "dim_names";

// The names of graph input `input`'s dims, one per dim, or empty when it has
// none (or a list that does not fit its rank).
std::vector<std::string> DimNamesOf(const Value& input);

}  // namespace ge
