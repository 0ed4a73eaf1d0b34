// Shape arithmetic shared by the op schemas' inference functions and the CPU
// kernels, so that what a schema promises and what a kernel computes agree.
//
// Unknown dimensions (Shape::kUnknownDim) propagate: the result is as precise
// as the inputs allow. Contradictions throw ge::Error(kInvalidArgument); the
// message names the shapes or the axis but not the node, so callers that know
// the node add it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ge/shape.h"

namespace ge {

// Numpy (ONNX multidirectional) broadcasting of two shapes. An unknown rank on
// either side gives an unknown rank; an unknown dim against 1 or another
// unknown dim stays unknown, against d > 1 it becomes d.
Shape BroadcastShapes(const Shape& a, const Shape& b);

// Maps axis in [-rank, rank) to [0, rank); throws when it lies outside.
int64_t NormalizeAxis(int64_t axis, size_t rank);

// Output length of a convolution along one spatial axis:
//   floor((input + pad_begin + pad_end - dilation*(kernel-1) - 1) / stride) + 1.
// Returns kUnknownDim when input is unknown; throws when the (dilated) kernel
// does not fit in the padded input or stride/dilation/kernel are not positive.
int64_t ConvOutputDim(int64_t input, int64_t kernel, int64_t stride, int64_t pad_begin, int64_t pad_end,
                      int64_t dilation);

// Output length of a pooling window along one spatial axis. Like ConvOutputDim,
// but with ceil_mode the division rounds up; the extra partial window this
// adds is dropped when it would start inside the end padding (PyTorch's rule).
int64_t PoolOutputDim(int64_t input, int64_t kernel, int64_t stride, int64_t pad_begin, int64_t pad_end,
                      int64_t dilation, bool ceil_mode);

// Output length of a transposed convolution along one spatial axis:
//   stride*(input-1) + output_padding + dilation*(kernel-1) + 1 - pad_begin - pad_end.
// Returns kUnknownDim when input is unknown.
int64_t ConvTransposeOutputDim(int64_t input, int64_t kernel, int64_t stride, int64_t pad_begin, int64_t pad_end,
                               int64_t dilation, int64_t output_padding);

}  // namespace ge
