// How the CPU's NHWC regions (the nhwc_layout pass) show in a compiled graph:
// a value the pass moved to NHWC is renamed "<its name>/nhwc" and its 4-D
// shape permuted. Tools that look values up by name (ge compare) use these to
// find the value's NCHW counterpart and bring the tensor back to it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ge/tensor.h"

namespace ge {

inline constexpr char kNhwcSuffix[] = "/nhwc";
// perm of a TransposeD from NCHW to NHWC; also the NCHW axis at each NHWC position.
inline const std::vector<int64_t> kNchwToNhwc = {0, 2, 3, 1};
// perm of a TransposeD from NHWC back to NCHW; also the NHWC position of each NCHW axis.
inline const std::vector<int64_t> kNhwcToNchw = {0, 3, 1, 2};

// The NCHW value's name for a name the pass gave an NHWC value, else nullopt.
std::optional<std::string> NchwNameOf(const std::string& nhwc_name);

// `shape` with its dims reordered: dim k of the result is dim perm[k].
Shape PermutedShape(const Shape& shape, const std::vector<int64_t>& perm);

// A 4-D tensor with its axes reordered by `perm` (a new buffer, any dtype with a size).
Tensor PermutedTensor(const Tensor& tensor, const std::vector<int64_t>& perm);

}  // namespace ge
