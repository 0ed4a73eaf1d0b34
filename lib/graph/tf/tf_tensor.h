// TensorFlow's dtypes and TensorProto values as ge's.
#pragma once

#include <optional>
#include <string>

#include "ge/shape.h"
#include "ge/tensor.h"
#include "graph/tf/proto/tf_graph.pb.h"

namespace ge::tf_import {

// ge's dtype for a TensorFlow one; nullopt for those ge has no tensor of (strings, resources, ...).
std::optional<DataType> DtypeFromTf(ge::tf::DataType dtype);
// -1 for an unknown dim; nullopt for an unknown rank.
std::optional<Shape> ShapeFromTf(const ge::tf::TensorShapeProto& shape);
// The tensor a TensorProto holds: tensor_content, or a typed value list
// whose last value repeats to fill the shape (TensorFlow's convention).
// Throws kInvalidModel naming `what`.
Tensor TensorFromTf(const ge::tf::TensorProto& proto, const std::string& what);

}  // namespace ge::tf_import
