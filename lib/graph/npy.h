// Reading and writing NumPy .npy files (format versions 1-3, little-endian,
// C order), the exchange format of `ge run` and the tests.
#pragma once

#include <string>

#include "ge/tensor.h"

namespace ge {

// Throws ge::Error naming the file: kNotFound, kIoError, or kInvalidArgument
// for a malformed header, big-endian or Fortran-ordered data, an unsupported
// dtype, or a file shorter than its header says.
Tensor ReadNpy(const std::string& path);

// Writes the whole file or nothing (a temporary file is renamed into place).
void WriteNpy(const std::string& path, const Tensor& tensor);

}  // namespace ge
