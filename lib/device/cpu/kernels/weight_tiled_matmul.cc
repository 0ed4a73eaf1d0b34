#include "device/cpu/kernels/weight_tiled_matmul.h"

#include <algorithm>
#include <cmath>

#include <dnnl.hpp>
#include <omp.h>

#include "device/cpu/kernels/element_types.h"
#include "ge/error.h"

namespace ge::device::cpu {

namespace {

// Columns [first, first + width) of W as float32: tile[k * width + j] (or
// tile[j * k + l] for a transposed W, so the reads stay contiguous).
template <typename W>
void ExpandTile(const TiledWeight& w, int64_t first, int64_t width, float* tile) {
  const W* data = static_cast<const W*>(w.data);
  auto value = [&](W stored, int64_t column) {
    if constexpr (std::is_same_v<W, int8_t>) {
      const int64_t p = w.per_column ? column : 0;
      const float offset = w.offset != nullptr ? w.offset[p] : 0.0f;
      return (static_cast<float>(stored) + offset) * w.scale[p];
    } else {
      return static_cast<float>(Load(stored));
    }
  };
  if (w.transposed) {
    for (int64_t j = 0; j < width; ++j) {
      const W* row = data + (first + j) * w.k;
      for (int64_t l = 0; l < w.k; ++l) tile[j * w.k + l] = value(row[l], first + j);
    }
  } else {
    for (int64_t l = 0; l < w.k; ++l) {
      const W* row = data + l * w.n + first;
      for (int64_t j = 0; j < width; ++j) tile[l * width + j] = value(row[j], first + j);
    }
  }
}

float Activate(TileActivation act, float v) {
  switch (act) {
    case TileActivation::kNone:
      return v;
    case TileActivation::kFastGelu:
      return v / (1.0f + std::exp(-1.702f * v));
    case TileActivation::kGelu:
      return 0.5f * v * (1.0f + std::erf(v * static_cast<float>(M_SQRT1_2)));
    case TileActivation::kRelu:
      return std::max(v, 0.0f);
    case TileActivation::kSilu:
      return v / (1.0f + std::exp(-v));
  }
  return v;
}

}  // namespace

TileActivation ParseTileActivation(std::string_view name, bool* known) {
  *known = true;
  if (name == "fastgelu") return TileActivation::kFastGelu;
  if (name == "gelu") return TileActivation::kGelu;
  if (name == "relu") return TileActivation::kRelu;
  if (name == "silu") return TileActivation::kSilu;
  *known = false;
  return TileActivation::kNone;
}

size_t WeightTileWorkspaceBytes(int64_t k, int threads) {
  const size_t per_thread = (static_cast<size_t>(k) * kWeightTileColumns * sizeof(float) + 63) / 64 * 64;
  return per_thread * static_cast<size_t>(threads);
}

void WeightTiledMatMul(const std::string& node_label, const float* x, int64_t rows, const TiledWeight& w,
                       const float* bias, TileActivation act, float* y, void* workspace, int threads) {
  if (rows == 0 || w.n == 0) return;
  const int64_t tiles = (w.n + kWeightTileColumns - 1) / kWeightTileColumns;
  // Enough row blocks to give every thread work when there are few tiles; each block expands its tile anew.
  const int64_t row_blocks = std::clamp<int64_t>((2 * threads + tiles - 1) / tiles, 1, (rows + 15) / 16);
  const int64_t block_rows = (rows + row_blocks - 1) / row_blocks;
  const size_t per_thread = WeightTileWorkspaceBytes(w.k, 1);
  bool failed = false;
  const bool parallel = tiles * row_blocks > 1 && rows * w.k * w.n > (int64_t{1} << 15);
#pragma omp parallel for schedule(dynamic) num_threads(threads) if (parallel)
  for (int64_t task = 0; task < tiles * row_blocks; ++task) {
    const int64_t tile = task / row_blocks, block = task % row_blocks;
    const int64_t first = tile * kWeightTileColumns, width = std::min(kWeightTileColumns, w.n - first);
    const int64_t row0 = block * block_rows, count = std::min(block_rows, rows - row0);
    if (count <= 0) continue;
    float* expanded = reinterpret_cast<float*>(static_cast<char*>(workspace) + per_thread * omp_get_thread_num());
    switch (w.dtype) {
      case DataType::kInt8:
        ExpandTile<int8_t>(w, first, width, expanded);
        break;
      case DataType::kFloat16:
        ExpandTile<_Float16>(w, first, width, expanded);
        break;
      default:
        ExpandTile<float>(w, first, width, expanded);
        break;
    }
    float* out = y + row0 * w.n + first;
    const dnnl::status status = dnnl::sgemm('N', w.transposed ? 'T' : 'N', count, width, w.k, 1.0f, x + row0 * w.k, w.k,
                                            expanded, w.transposed ? w.k : width, 0.0f, out, w.n);
    if (status != dnnl::status::success) {
#pragma omp atomic write
      failed = true;
      continue;
    }
    for (int64_t r = 0; r < count; ++r) {
      float* row = out + r * w.n;
      for (int64_t j = 0; j < width; ++j) row[j] = Activate(act, row[j] + (bias != nullptr ? bias[first + j] : 0.0f));
    }
  }
  if (failed) throw Error(ErrorCode::kInternal, node_label + ": oneDNN sgemm failed on a weight tile");
}

}  // namespace ge::device::cpu
