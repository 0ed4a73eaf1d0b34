// Helpers of the quantized-op kernel tests (quantized_*_test.cc): one node
// with normalized attributes, integer tensors of any width, and bit packing.
#pragma once

#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ge/graph.h"
#include "graph/op_schema.h"
#include "kernel_harness.h"

namespace ge::test {

using QuantAttrs = std::vector<std::pair<std::string, AttrValue>>;

// A node of `op` over `inputs` (nullptr: an absent optional input) with the
// attributes set and normalized, and output 0 planned as `out` / `shape`.
inline Node* AddQuantOp(Graph& g, const std::string& op, const std::vector<Value*>& inputs, DataType out, Shape shape,
                        const QuantAttrs& attrs = {}) {
  Node* node = g.AddNode(op, op + "_node", inputs);
  for (const auto& [name, value] : attrs) node->attrs().Set(name, value);
  OpRegistry::Global().Find(op)->NormalizeAttrs(*node);
  SetOutput(node, 0, out, std::move(shape));
  return node;
}

// Uniform integers in [lo, hi] stored as T (int8, int16, int32, int64).
template <typename T>
Tensor RandomInts(DataType dtype, Shape shape, std::mt19937& rng, int64_t lo, int64_t hi) {
  Tensor t(dtype, std::move(shape));
  std::uniform_int_distribution<int64_t> dist(lo, hi);
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data_as<T>()[i] = static_cast<T>(dist(rng));
  return t;
}

// A deq_scale / req_scale word: fp32 scale bits, shift N at bit 32, 9-bit offset at bit 40.
inline uint64_t PackScale(float scale, int shift, int offset = 0) {
  return uint64_t{std::bit_cast<uint32_t>(scale)} | (uint64_t(shift & 0xFF) << 32) | (uint64_t(offset & 0x1FF) << 40);
}

}  // namespace ge::test
