// ATC's spelling of what a TensorFlow or Caffe import takes besides the model
// file (--framework, --input_shape, --out_nodes, --weight), shared by
// `ge compile` and `ge quantize`.
#pragma once

#include <string>
#include <vector>

#include "args.h"
#include "model_loader.h"

namespace ge::cli {

// The flags, in the order the help lists them.
std::vector<FlagSpec> ImportFlags();

// Checks the flags against MODEL's format (--framework must name it; each
// other flag applies to one framework) and returns what the import takes.
ImportChoices ImportChoicesFromArgs(const ParsedArgs& args, ModelFormat format, const std::string& model_path);

// "ONNX", "TensorFlow", "Caffe" (".gem" for a compiled model).
const char* FrameworkName(ModelFormat format);

}  // namespace ge::cli
