// Parsing and shape resolution of an Einsum equation ("ij,jk->ik",
// "...ii->...i", implicit outputs), shared by the Einsum schema and kernel.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ge/shape.h"

namespace ge {

struct EinsumEquation {
  // Per operand, one label per dim; labels are letter indices 0..51 ('a'..'z',
  // 'A'..'Z'), and 52 + k for the k-th broadcast dim of the ellipsis
  // (right-aligned across operands, like NumPy).
  std::vector<std::vector<int>> inputs;
  std::vector<int> output;
  int num_labels = 0;  // labels are < num_labels
};

// Parses `equation` for operands of the given ranks; throws ge::Error
// (kInvalidArgument) naming what is wrong. Without "->" the output is the
// ellipsis dims followed by the labels used once, alphabetically.
EinsumEquation ParseEinsum(const std::string& equation, const std::vector<size_t>& ranks);

// The size of every label from the operand shapes (size 1 broadcasts for
// ellipsis dims); kUnknownDim where unknown. Throws on a mismatch.
std::vector<int64_t> EinsumLabelSizes(const EinsumEquation& eq, const std::vector<Shape>& shapes);

}  // namespace ge
