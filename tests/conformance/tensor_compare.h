// numpy.testing.assert_allclose-style comparison of a computed tensor with the
// expected one, as the ONNX backend test runner does it.
#pragma once

#include <optional>
#include <string>

#include "ge/tensor.h"

namespace ge::conformance {

struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-7;
};

// nullopt when `got` matches `expected`: same dtype, same shape, and every
// element within atol + rtol * |expected| for floating-point dtypes (NaN
// matches NaN, an infinity matches the same infinity), equal for integers and
// bools. Otherwise one line saying what differs, e.g. "element 3 (flat index):
// got 1.5, expected 1.25 (|diff| 0.25 > tolerance 0.00125); 7 of 24 elements differ".
// Sequences and optionals match when they hold the same element dtype and
// number of elements, and their elements match pairwise; the line then says
// where, e.g. "element 2 of the sequence: element 3 (flat index): got ...".
std::optional<std::string> CompareTensors(const Tensor& got, const Tensor& expected, const Tolerance& tolerance);

}  // namespace ge::conformance
