#include "device/cpu/kernels/few_rows_product.h"

#include <algorithm>

#include "device/cpu/kernels/cpu_clones.h"

namespace ge::device::cpu {
namespace {

// b is [n, k]: each output is a dot product of two contiguous rows.
void DotProducts(int64_t m, int64_t n, int64_t k, const float* a, const float* b, const float* bias, float* c) {
  for (int64_t j = 0; j < n; ++j) {
    const float* column = b + j * k;
    for (int64_t r = 0; r < m; ++r) {
      const float* row = a + r * k;
      float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
      for (int64_t l = 0; l < k; ++l) sum += row[l] * column[l];
      c[r * n + j] = sum + (bias != nullptr ? bias[j] : 0.0f);
    }
  }
}

// b is [k, n]: each row of c accumulates the rows of b, scaled.
void ScaledRowSums(int64_t m, int64_t n, int64_t k, const float* a, const float* b, const float* bias, float* c) {
  for (int64_t r = 0; r < m; ++r) {
    float* out = c + r * n;
    if (bias != nullptr) {
      std::copy(bias, bias + n, out);
    } else {
      std::fill(out, out + n, 0.0f);
    }
    for (int64_t l = 0; l < k; ++l) {
      const float scale = a[r * k + l];
      const float* row = b + l * n;
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) out[j] += scale * row[j];
    }
  }
}

}  // namespace

void FewRowsProduct(int64_t m, int64_t n, int64_t k, const float* a, const float* b, bool transpose_b,
                    const float* bias, float* c) {
  if (transpose_b) {
    PerCpu([&] { DotProducts(m, n, k, a, b, bias, c); });
  } else {
    PerCpu([&] { ScaledRowSums(m, n, k, a, b, bias, c); });
  }
}

}  // namespace ge::device::cpu
