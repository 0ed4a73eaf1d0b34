// Helpers shared by the test folders.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ge/error.h"
#include "ge/tensor.h"

namespace ge::test {

// The code and message of the ge::Error `call` throws, or kOk and "" when it throws none.
template <typename Call>
std::pair<ErrorCode, std::string> ErrorOf(Call&& call) {
  try {
    call();
  } catch (const Error& error) {
    return {error.code(), error.what()};
  }
  return {ErrorCode::kOk, ""};
}

template <typename Call>
ErrorCode ErrorCodeOf(Call&& call) {
  return ErrorOf(std::forward<Call>(call)).first;
}

// ../shared next to the repository, or nullopt (then the caller SKIPs with a message).
std::optional<std::filesystem::path> SharedDir();

// The repository's root (models/, docs/, data/). Compiled into test_support.cc
// alone, so that the other test objects do not depend on where the checkout
// lies and stay in the compiler cache across clones.
std::filesystem::path SourceDir();

// Reads a .npy file (little-endian, C order; float32/float64/int8..int64/uint8..uint64/bool).
Tensor ReadNpy(const std::filesystem::path& path);

// max |a - b| over all elements; both must be float32 of the same shape.
double MaxAbsDiff(const Tensor& a, const Tensor& b);

// The cosine similarity of two float32 tensors of one shape, over all their
// elements taken together: a.b / (|a| |b|), in double.
double Cosine(const std::vector<Tensor>& a, const std::vector<Tensor>& b);

// Deterministic values in [lo, hi) of a float32 tensor (a linear congruential sequence from `seed`).
Tensor RandomFloats(Shape shape, uint32_t seed, float lo, float hi);

// `count` deterministic values in [lo, hi), as RandomFloats makes them.
std::vector<float> RandomVector(size_t count, uint32_t seed, float lo = -1.0f, float hi = 1.0f);

// A fresh empty directory under the system temp dir, named after the test.
std::filesystem::path TempDir(const std::string& name);

}  // namespace ge::test

// Skips the current test case with a visible message (Catch2 v2 has no SKIP).
#define GE_SKIP(message)                          \
  do {                                            \
    WARN("SKIPPED: " << message);                 \
    return;                                       \
  } while (0)
