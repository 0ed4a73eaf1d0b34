// y [rows, N] = x [rows, K] @ W + bias for a constant float32 weight W at any
// number of rows, through oneDNN matmul primitives made per row count as runs
// bring them, all reading one copy of W packed in the layout oneDNN prefers.
// oneDNN's AVX-512 kernels pack a [K, N] weight the same way whatever M is,
// and PackConstant shares that copy with every other kernel packing the same
// constant (the static plans of a dynamic model). A dynamic model's
// node-by-node runs use it when the model keeps its weights only packed
// (runtime/compile/packed_weights.h) or with ge.exec.dynamicPackWeights=1
// (graph/shapes_at_run.h).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "device/cpu/kernels/dnnl_utils.h"
#include "device/device.h"
#include "ge/tensor.h"

namespace ge::device::cpu {

class PackedRowsProduct {
 public:
  // weight: [K, N], or [N, K] when transposed.
  PackedRowsProduct(Tensor weight, int64_t k, int64_t n, bool transposed, bool has_bias);

  // Thread-safe; the first call at a row count makes its primitive.
  void Run(const std::string& node_label, const float* x, int64_t rows, const float* bias, float* y) const;

  // The weight's packed copy, once a run has made one.
  std::vector<Kernel::PackedInput> PackedInputs() const;

 private:
  struct AtRows;
  std::shared_ptr<const AtRows> PrimitiveFor(int64_t rows) const;

  // Primitives kept, the most recently made last: a model sees a few row
  // counts at a time (batch times length), and remaking one costs about as
  // much as one run of it.
  static constexpr size_t kKeptRowCounts = 8;

  Tensor weight_;
  int64_t k_, n_;
  bool has_bias_;
  dnnl::memory::desc user_weight_;
  mutable std::mutex mutex_;
  mutable std::vector<std::shared_ptr<const AtRows>> by_rows_;
};

// Device::PackForEveryShape on the CPU: a 2-D float32 weight every use of
// which is the weight of a float32 MatMulV2 or BatchMatMulV2 (x1 not
// transposed, no reduced precision), packed once as those kernels want it at
// every row count (PackedRowsProduct; the plans' MatMul kernels).
std::optional<Device::PackedWeight> PackProductWeight(const Value& weight);

}  // namespace ge::device::cpu
