// The file `ge run --output-dir` writes an output to.
#pragma once

#include <string>

namespace ge::cli {

// "<name>.npy" with every character outside [A-Za-z0-9._-] replaced by '_', so
// that output names such as "logits:0" or "block/out" stay inside the directory.
std::string OutputFileName(const std::string& output_name);

}  // namespace ge::cli
