// FFN's inputs in schema order (CANN's), shared by its schema, its CPU kernel
// and the weight-only quantization that fills the antiquant inputs.
#pragma once

#include <cstddef>

namespace ge::ffn {

enum Input : size_t {
  kX,
  kWeight1,
  kWeight2,
  kExpertTokens,
  kBias1,
  kBias2,
  kScale,
  kOffset,
  kDeqScale1,
  kDeqScale2,
  kAntiquantScale1,
  kAntiquantScale2,
  kAntiquantOffset1,
  kAntiquantOffset2,
};

}  // namespace ge::ffn
