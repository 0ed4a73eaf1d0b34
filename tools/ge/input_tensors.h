// The input tensors of `ge run` and `ge compare`: read from .npy files or generated.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ge/compiled_model.h"

namespace ge::cli {

// The values of --input NAME=FILE.npy as name -> file. Throws UsageError for
// a value without '=' and for a name given twice.
std::map<std::string, std::string> InputFiles(const std::vector<std::string>& values);

// One tensor per model input, in model order. `files` maps input names to .npy
// paths; inputs without a file get seeded random values (floats uniform in
// [-1, 1], integers in [0, 3], bools 0/1), so repeated runs see the same data.
// Throws ge::Error for an unknown input name (listing the valid ones), for a
// file that cannot be read or whose dtype or shape does not fit the input
// (naming the input and the file), and for an input that cannot be generated
// (dynamic shape, dtype without random fill).
std::vector<Tensor> MakeInputs(const std::vector<TensorInfo>& inputs, const std::map<std::string, std::string>& files,
                               uint32_t seed);

}  // namespace ge::cli
