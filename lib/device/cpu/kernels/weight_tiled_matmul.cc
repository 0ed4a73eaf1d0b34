#include "device/cpu/kernels/weight_tiled_matmul.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <dnnl.hpp>
#include <omp.h>

#include "device/cpu/kernels/cpu_clones.h"
#include "device/cpu/kernels/element_types.h"
#include "ge/error.h"

// The hot loops (ExpandTile, AccumulateRows) run through PerCpu: compiled for
// AVX-512 and AVX2 too, picked per call for the CPU at hand as capped by
// GE_MAX_CPU_ISA (the library's baseline is plain x86-64).

namespace ge::device::cpu {

namespace {

// Rows that share one read of W in the direct path.
constexpr int64_t kDirectRows = 16;
// Up to this many rows the direct path wins; beyond, the product is compute
// bound and the expanded tiles go to oneDNN's sgemm.
constexpr int64_t kDirectMaxRows = 16;
// Accumulators of one task of the direct path (rows x columns), 64 KiB: wide
// enough that each row of W is read in long contiguous runs (narrow column
// blocks walk W with a large stride and miss the TLB on every row), small
// enough to stay in L2.
constexpr int64_t kDirectAccumulators = 16384;

// Columns per task: as many as the accumulators allow, but at least one task per thread.
int64_t DirectColumns(int64_t rows, int64_t n, int threads) {
  const int64_t per_thread = (n + threads - 1) / threads;
  const int64_t width = std::min(kDirectAccumulators / std::min(rows, kDirectRows), (per_thread + 63) / 64 * 64);
  return std::max<int64_t>(width, 64);
}

// The stored weight as float32: float16 widened, int8 left as its code (the
// column's offset and scale are applied by the caller, once per column).
template <typename W>
inline float Widen(W stored) {
  if constexpr (std::is_same_v<W, int8_t>) {
    return static_cast<float>(stored);
  } else {
    return static_cast<float>(Load(stored));
  }
}

// Per-column dequantization: (code + offset) * scale; identity for float weights.
struct ColumnDequant {
  const float* scale = nullptr;   // nullptr: float weights
  const float* offset = nullptr;  // nullptr: symmetric
  bool per_column = false;
  float Scale(int64_t column) const { return scale[per_column ? column : 0]; }
  float Offset(int64_t column) const { return offset != nullptr ? offset[per_column ? column : 0] : 0.0f; }
};

ColumnDequant DequantOf(const TiledWeight& w) {
  if (w.dtype != DataType::kInt8) return {};
  return {w.scale, w.offset, w.per_column};
}

// Columns [first, first + width) of W as float32: tile[k * width + j] (or
// tile[j * k + l] for a transposed W, so the reads stay contiguous).
template <typename W>
void ExpandTile(const TiledWeight& w, int64_t first, int64_t width, float* tile) {
  const W* data = static_cast<const W*>(w.data);
  const ColumnDequant dq = DequantOf(w);
  float scale[kWeightTileColumns], offset[kWeightTileColumns];
  for (int64_t j = 0; j < width; ++j) {
    scale[j] = dq.scale != nullptr ? dq.Scale(first + j) : 1.0f;
    offset[j] = dq.Offset(first + j);
  }
  if (w.transposed) {
    for (int64_t j = 0; j < width; ++j) {
      const W* row = data + (first + j) * w.k;
      float* out = tile + j * w.k;
      for (int64_t l = 0; l < w.k; ++l) out[l] = (Widen(row[l]) + offset[j]) * scale[j];
    }
  } else {
    for (int64_t l = 0; l < w.k; ++l) {
      const W* row = data + l * w.n + first;
      float* out = tile + l * width;
      for (int64_t j = 0; j < width; ++j) out[j] = (Widen(row[j]) + offset[j]) * scale[j];
    }
  }
}

// Few rows (a decoder's tokens): the product is bound by reading W, so W is
// read once, straight from its stored type, and every row accumulates from
// it: acc[r][j] = sum_l x[r][l] * code[l][j]. The column's dequantization
// follows from linearity, y = (acc + offset * sum_l x[r][l]) * scale, so no
// float copy of W is ever made.
template <typename W>
void AccumulateRows(const float* x, int64_t rows, const TiledWeight& w, int64_t first, int64_t width, float* acc) {
  const W* data = static_cast<const W*>(w.data);
  std::fill(acc, acc + rows * width, 0.0f);
  if (w.transposed) {
    for (int64_t j = 0; j < width; ++j) {
      const W* column = data + (first + j) * w.k;
      for (int64_t r = 0; r < rows; ++r) {
        const float* xr = x + r * w.k;
        float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
        for (int64_t l = 0; l < w.k; ++l) sum += xr[l] * Widen(column[l]);
        acc[r * width + j] = sum;
      }
    }
    return;
  }
  for (int64_t l = 0; l < w.k; ++l) {
    const W* row = data + l * w.n + first;
    for (int64_t r = 0; r < rows; ++r) {
      const float xv = x[r * w.k + l];
      float* out = acc + r * width;
#pragma omp simd
      for (int64_t j = 0; j < width; ++j) out[j] += xv * Widen(row[j]);
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
  const size_t floats = std::max(static_cast<size_t>(k) * kWeightTileColumns, size_t{kDirectAccumulators});
  const size_t per_thread = (floats * sizeof(float) + 63) / 64 * 64;
  return per_thread * static_cast<size_t>(threads);
}

namespace {

void DirectMatMul(const float* x, int64_t rows, const TiledWeight& w, const float* bias, TileActivation act, float* y,
                  void* workspace, int threads) {
  const ColumnDequant dq = DequantOf(w);
  std::vector<float> row_sums(static_cast<size_t>(rows), 0.0f);  // only offsets need them
  if (dq.offset != nullptr) {
    for (int64_t r = 0; r < rows; ++r) {
      double sum = 0;
      for (int64_t l = 0; l < w.k; ++l) sum += x[r * w.k + l];
      row_sums[r] = static_cast<float>(sum);
    }
  }
  const int64_t columns = DirectColumns(rows, w.n, threads);
  const int64_t blocks = (w.n + columns - 1) / columns;
  const size_t per_thread = WeightTileWorkspaceBytes(w.k, 1);
  const bool parallel = blocks > 1 && rows * w.k * w.n > (int64_t{1} << 15);
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
  for (int64_t block = 0; block < blocks; ++block) {
    const int64_t first = block * columns, width = std::min(columns, w.n - first);
    float* acc = reinterpret_cast<float*>(static_cast<char*>(workspace) + per_thread * omp_get_thread_num());
    // Rows in groups of kDirectRows, each group reading the column block of W once.
    for (int64_t row0 = 0; row0 < rows; row0 += kDirectRows) {
      const int64_t count = std::min(kDirectRows, rows - row0);
      const float* xs = x + row0 * w.k;
      switch (w.dtype) {
        case DataType::kInt8:
          PerCpu([&] { AccumulateRows<int8_t>(xs, count, w, first, width, acc); });
          break;
        case DataType::kFloat16:
          PerCpu([&] { AccumulateRows<_Float16>(xs, count, w, first, width, acc); });
          break;
        default:
          PerCpu([&] { AccumulateRows<float>(xs, count, w, first, width, acc); });
          break;
      }
      for (int64_t r = 0; r < count; ++r) {
        float* out = y + (row0 + r) * w.n + first;
        for (int64_t j = 0; j < width; ++j) {
          float v = acc[r * width + j];
          if (dq.scale != nullptr) v = (v + dq.Offset(first + j) * row_sums[row0 + r]) * dq.Scale(first + j);
          out[j] = Activate(act, v + (bias != nullptr ? bias[first + j] : 0.0f));
        }
      }
    }
  }
}

}  // namespace

void WeightTiledMatMul(const std::string& node_label, const float* x, int64_t rows, const TiledWeight& w,
                       const float* bias, TileActivation act, float* y, void* workspace, int threads) {
  if (rows == 0 || w.n == 0) return;
  if (rows <= kDirectMaxRows) {
    DirectMatMul(x, rows, w, bias, act, y, workspace, threads);
    return;
  }
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
    // A float32 weight (without dequantization) is multiplied where it is;
    // the other types are expanded to float32 first, one tile at a time.
    const float* columns = nullptr;
    int64_t columns_stride = w.transposed ? w.k : width;
    if (w.dtype == DataType::kFloat && w.scale == nullptr) {
      columns = static_cast<const float*>(w.data) + (w.transposed ? first * w.k : first);
      columns_stride = w.transposed ? w.k : w.n;
    } else {
      float* expanded = reinterpret_cast<float*>(static_cast<char*>(workspace) + per_thread * omp_get_thread_num());
      switch (w.dtype) {
        case DataType::kInt8:
          PerCpu([&] { ExpandTile<int8_t>(w, first, width, expanded); });
          break;
        case DataType::kFloat16:
          PerCpu([&] { ExpandTile<_Float16>(w, first, width, expanded); });
          break;
        default:
          PerCpu([&] { ExpandTile<float>(w, first, width, expanded); });
          break;
      }
      columns = expanded;
    }
    float* out = y + row0 * w.n + first;
    const dnnl::status status = dnnl::sgemm('N', w.transposed ? 'T' : 'N', count, width, w.k, 1.0f, x + row0 * w.k, w.k,
                                            columns, columns_stride, 0.0f, out, w.n);
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
