// Products with a weight matrix that is never materialised in float as a
// whole: WeightQuantBatchMatmulV2 and FFN. The weight is float32, float16, or
// int8 dequantized per output column as (w + offset) * scale.
// - Up to 16 rows (a decoder's tokens) the product is bound by reading W: W is
//   read once in its stored type, each row accumulates the raw codes, and the
//   column's offset and scale are applied to the finished sums.
// - More rows are compute bound: W is expanded to float32 one tile of
//   kWeightTileColumns columns at a time, in a per-thread workspace, and
//   multiplied there by oneDNN's sgemm.
// Bias and activation are applied to each finished output tile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ge/types.h"

namespace ge::device::cpu {

inline constexpr int64_t kWeightTileColumns = 256;

// W [K, N] as stored: [K, N], or [N, K] when transposed.
struct TiledWeight {
  const void* data = nullptr;
  DataType dtype = DataType::kUndefined;  // kFloat, kFloat16 or kInt8
  int64_t k = 0, n = 0;
  bool transposed = false;
  // int8 only: scale [N] or [1], offset (optional) of the same length.
  const float* scale = nullptr;
  const float* offset = nullptr;
  bool per_column = false;
};

enum class TileActivation { kNone, kFastGelu, kGelu, kRelu, kSilu };

// FFN's activation attribute ("fastgelu", "gelu", "relu", "silu").
TileActivation ParseTileActivation(std::string_view name, bool* known);

// Bytes of workspace WeightTiledMatMul needs for `threads` threads and K.
size_t WeightTileWorkspaceBytes(int64_t k, int threads);

// y [rows, N] (row stride N) = act(x [rows, K] (row stride K) @ W + bias),
// bias [N] optional. Runs on up to `threads` OpenMP threads; `workspace` has
// WeightTileWorkspaceBytes(w.k, threads) bytes, 64-byte aligned. Errors
// start with node_label.
void WeightTiledMatMul(const std::string& node_label, const float* x, int64_t rows, const TiledWeight& w,
                       const float* bias, TileActivation act, float* y, void* workspace, int threads);

}  // namespace ge::device::cpu
