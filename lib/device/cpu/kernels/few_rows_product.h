// Products of a few rows with a matrix that changes every call (attention's
// q @ k^T and weights @ v while a decoder generates one token at a time).
// oneDNN's sgemm packs both operands on every call, several microseconds
// for such sizes, longer than the products themselves; these loops read the
// operands where they are.
#pragma once

#include <cstdint>

namespace ge::device::cpu {

// Up to this many rows of a go through FewRowsProduct.
inline constexpr int64_t kFewRows = 4;

// c[m, n] = a[m, k] @ op(b) (+ bias[n] on every row), all row-major: b is
// [k, n], or [n, k] when transpose_b. bias may be null.
void FewRowsProduct(int64_t m, int64_t n, int64_t k, const float* a, const float* b, bool transpose_b,
                    const float* bias, float* c);

}  // namespace ge::device::cpu
