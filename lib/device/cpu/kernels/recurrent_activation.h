// The activation functions of ONNX's recurrent ops (RNN, GRU, LSTM), chosen
// by name from the 'activations' attribute with their alpha/beta parameters.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "device/cpu/kernels/wide_math.h"
#include "ge/graph.h"

namespace ge::device::cpu {

struct RecurrentActivation {
  enum class Kind {
    kRelu, kTanh, kSigmoid, kAffine, kLeakyRelu, kThresholdedRelu, kScaledTanh, kHardSigmoid, kElu, kSoftsign,
    kSoftplus
  };
  Kind kind = Kind::kTanh;
  double alpha = 0.0;
  double beta = 0.0;

  template <typename T>
  T operator()(T x) const {
    const T a = static_cast<T>(alpha), b = static_cast<T>(beta);
    switch (kind) {
      case Kind::kRelu: return x > T(0) ? x : T(0);
      case Kind::kTanh: return std::tanh(x);
      case Kind::kSigmoid: return T(1) / (T(1) + std::exp(-x));
      case Kind::kAffine: return a * x + b;
      case Kind::kLeakyRelu: return x >= T(0) ? x : a * x;
      case Kind::kThresholdedRelu: return x > a ? x : T(0);
      case Kind::kScaledTanh: return a * std::tanh(b * x);
      case Kind::kHardSigmoid: return std::max(T(0), std::min(T(1), a * x + b));
      case Kind::kElu: return x >= T(0) ? x : a * (std::exp(x) - T(1));
      case Kind::kSoftsign: return x / (T(1) + std::abs(x));
      case Kind::kSoftplus: return std::log1p(std::exp(x));
    }
    return x;
  }

  // values[k] = f(values[k]) for k < n. On float, Sigmoid and Tanh (the
  // recurrent ops' defaults) take the vectorizable double forms of
  // wide_math.h, rounded once from double: a gate is a few hundred values per
  // time step, and a libm call per value took longer than the gate's matrix
  // product. The kind is tested once, outside the loop, so the loop
  // vectorizes in the caller's PerCpu clone.
  template <typename T>
  void Apply(T* values, int64_t n) const {
    if constexpr (std::is_same_v<T, float>) {
      if (kind == Kind::kSigmoid) {
#pragma omp simd
        for (int64_t k = 0; k < n; ++k) values[k] = static_cast<float>(WideSigmoid(values[k]));
        return;
      }
      if (kind == Kind::kTanh) {
#pragma omp simd
        for (int64_t k = 0; k < n; ++k) values[k] = static_cast<float>(WideTanh(values[k]));
        return;
      }
    }
    for (int64_t k = 0; k < n; ++k) values[k] = (*this)(values[k]);
  }
};

// The node's activations: `per_direction` functions for each of `directions`.
// Without an 'activations' attribute, `defaults` (one direction's list) is
// used for every direction. Names match case-insensitively; alpha and beta
// values are taken in order by the functions that have the parameter, and a
// function left without one gets the ONNX default of the matching op.
std::vector<RecurrentActivation> ReadRecurrentActivations(const Node& node, const std::vector<std::string>& defaults,
                                                          int64_t directions);

}  // namespace ge::device::cpu
