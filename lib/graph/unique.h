// The Unique algorithm, shared by the Unique schema (which computes the exact
// output shapes when x is constant) and the CPU kernel, so both agree.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace ge {

// x viewed as [outer, n, inner]: the n slices x[:, i, :] are compared.
struct UniqueResult {
  std::vector<int64_t> first;    // per unique slice, in output order: index of its first occurrence
  std::vector<int64_t> inverse;  // per slice i: its unique slice's output position
  std::vector<int64_t> counts;   // per unique slice: how often it occurs
};

// ONNX Unique: unique slices in order of first occurrence, or ascending
// (lexicographically over the slice's elements) when `sorted`.
template <typename T>
UniqueResult FindUnique(const T* x, int64_t outer, int64_t n, int64_t inner, bool sorted) {
  auto less = [&](int64_t a, int64_t b) {
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const T va = x[(o * n + a) * inner + i], vb = x[(o * n + b) * inner + i];
        if (va < vb) return true;
        if (vb < va) return false;
      }
    }
    return false;
  };
  // Slices sorted by value, ties by position: each run of equal slices starts at its first occurrence.
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), less);
  std::vector<int64_t> group_of(static_cast<size_t>(n));  // slice -> run index in sorted order
  std::vector<int64_t> run_first, run_count;
  for (size_t k = 0; k < order.size(); ++k) {
    if (k == 0 || less(order[k - 1], order[k])) {
      run_first.push_back(order[k]);
      run_count.push_back(0);
    }
    group_of[order[k]] = static_cast<int64_t>(run_first.size()) - 1;
    ++run_count.back();
  }
  // Output order of the runs: sorted, or by first occurrence.
  std::vector<int64_t> runs(run_first.size());
  std::iota(runs.begin(), runs.end(), 0);
  if (!sorted) std::sort(runs.begin(), runs.end(), [&](int64_t a, int64_t b) { return run_first[a] < run_first[b]; });
  UniqueResult result;
  std::vector<int64_t> position(runs.size());
  for (size_t p = 0; p < runs.size(); ++p) {
    position[runs[p]] = static_cast<int64_t>(p);
    result.first.push_back(run_first[runs[p]]);
    result.counts.push_back(run_count[runs[p]]);
  }
  for (int64_t i = 0; i < n; ++i) result.inverse.push_back(position[group_of[i]]);
  return result;
}

}  // namespace ge
