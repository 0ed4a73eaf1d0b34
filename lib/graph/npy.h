// Reading and writing NumPy .npy files (format versions 1-3, little-endian,
// C order), the exchange format of `ge run` and the tests.
#pragma once

#include <string>

#include "ge/tensor.h"

namespace ge {

// Throws ge::Error naming the file: kNotFound, kIoError (also for what is not
// a regular file: RegularFile::Open), or kInvalidArgument for a malformed
// header (a shape that is not a tuple of non-negative integers, say),
// big-endian or Fortran-ordered data, an unsupported dtype, a shape whose
// size overflows, or a file shorter or longer than its header says.
Tensor ReadNpy(const std::string& path);

// Writes the whole file or nothing (a temporary file is renamed into place).
void WriteNpy(const std::string& path, const Tensor& tensor);

}  // namespace ge
