// The transpose kernel for the ops that are a permutation of a reshaped view
// of their input (TransposeD, DepthToSpace, SpaceToDepth).
#pragma once

#include <memory>
#include <vector>

#include "device/kernel.h"

namespace ge::device::cpu {

// A kernel copying input 0 of `node`, read as a row-major tensor of in_dims
// (same element count), to its output permuted by perm (output axis i is
// input axis perm[i]). Any dtype of 1, 2, 4 or 8 bytes.
std::unique_ptr<Kernel> MakeTransposeKernel(const Node& node, const std::vector<int64_t>& in_dims,
                                            const std::vector<int64_t>& perm);

}  // namespace ge::device::cpu
