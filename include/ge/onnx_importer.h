// ONNX import: translates an ONNX model into a ge Graph of Ascend-IR ops.
#pragma once

#include <memory>
#include <string>

#include "ge/export.h"
#include "ge/graph.h"

namespace ge {

// Reads, checks (onnx::checker + shape inference) and translates the model.
// External data files are resolved only inside the model's folder. Throws
// ge::Error naming the file; unsupported ops are listed all at once with the
// names of the nodes that use them.
GE_API std::unique_ptr<Graph> ImportOnnxFile(const std::string& path);
// The same from a buffer; external data is resolved against base_dir, and
// refused when base_dir is empty.
GE_API std::unique_ptr<Graph> ImportOnnxBuffer(const void* data, size_t size, const std::string& base_dir = "",
                                        const std::string& origin = "<memory>");

}  // namespace ge
