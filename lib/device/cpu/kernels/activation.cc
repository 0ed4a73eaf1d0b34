// Activations: LeakyRelu, Elu, Selu, Celu, ThresholdedRelu, HardSigmoid,
// HardSwish, Mish, Softplus, Softsign, Shrink. Their attributes are read once
// when the kernel is made; the loop is the shared unary one.
#include <cmath>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/elementwise_unary.h"

namespace ge::device::cpu {

namespace {

float FloatAttr(const Node& node, const char* name) { return node.attrs().GetFloat(name); }

// log(1 + exp(x)) without overflow for large x.
template <typename C>
C Softplus(C x) {
  return x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

struct LeakyReluOp {
  explicit LeakyReluOp(const Node& node) : slope(FloatAttr(node, "negative_slope")) {}
  template <typename C>
  C operator()(C x) const { return x < C(0) ? C(x * C(slope)) : x; }
  float slope;
};
struct EluOp {
  explicit EluOp(const Node& node) : alpha(FloatAttr(node, "alpha")) {}
  template <typename C>
  C operator()(C x) const { return x < C(0) ? C(alpha) * std::expm1(x) : x; }
  float alpha;
};
struct SeluOp {
  explicit SeluOp(const Node& node) : alpha(FloatAttr(node, "alpha")), gamma(FloatAttr(node, "gamma")) {}
  template <typename C>
  C operator()(C x) const { return C(gamma) * (x > C(0) ? x : C(alpha) * std::expm1(x)); }
  float alpha, gamma;
};
struct CeluOp {
  explicit CeluOp(const Node& node) : alpha(FloatAttr(node, "alpha")) {}
  template <typename C>
  C operator()(C x) const { return x > C(0) ? x : C(alpha) * std::expm1(x / C(alpha)); }
  float alpha;
};
struct ThresholdedReluOp {
  explicit ThresholdedReluOp(const Node& node) : alpha(FloatAttr(node, "alpha")) {}
  template <typename C>
  C operator()(C x) const { return x > C(alpha) ? x : C(0); }
  float alpha;
};
struct HardSigmoidOp {
  explicit HardSigmoidOp(const Node& node) : alpha(FloatAttr(node, "alpha")), beta(FloatAttr(node, "beta")) {}
  template <typename C>
  C operator()(C x) const { return std::fmin(C(1), std::fmax(C(0), C(alpha) * x + C(beta))); }
  float alpha, beta;
};
// x * relu6(x + 3) / 6, ONNX's x * max(0, min(1, x/6 + 1/2)).
struct HardSwishOp {
  template <typename C>
  C operator()(C x) const { return x * std::fmin(C(1), std::fmax(C(0), x / C(6) + C(0.5))); }
};
struct MishOp {
  template <typename C>
  C operator()(C x) const { return x * std::tanh(Softplus(x)); }
};
struct SoftplusOp {
  template <typename C>
  C operator()(C x) const { return Softplus(x); }
};
struct SoftsignOp {
  template <typename C>
  C operator()(C x) const { return x / (C(1) + std::fabs(x)); }
};
// ONNX Shrink: x + bias below -lambd, x - bias above lambd, else 0.
struct ShrinkOp {
  explicit ShrinkOp(const Node& node) : lambd(FloatAttr(node, "lambd")), bias(FloatAttr(node, "bias")) {}
  template <typename C>
  C operator()(C x) const {
    return x < C(-lambd) ? C(x + C(bias)) : x > C(lambd) ? C(x - C(bias)) : C(0);
  }
  float lambd, bias;
};

}  // namespace

void RegisterActivationKernels(KernelRegistry& registry) {
  RegisterUnary<LeakyReluOp>(registry, "LeakyRelu", HalfFloatTypes{});
  RegisterUnary<EluOp>(registry, "Elu", HalfFloatTypes{});
  RegisterUnary<SeluOp>(registry, "Selu", HalfFloatTypes{});
  RegisterUnary<CeluOp>(registry, "Celu", HalfFloatTypes{});
  RegisterUnary<ThresholdedReluOp>(registry, "ThresholdedRelu", HalfFloatTypes{});
  RegisterUnary<HardSigmoidOp>(registry, "HardSigmoid", HalfFloatTypes{});
  RegisterUnary<HardSwishOp>(registry, "HardSwish", HalfFloatTypes{});
  RegisterUnary<MishOp>(registry, "Mish", HalfFloatTypes{});
  RegisterUnary<SoftplusOp>(registry, "Softplus", HalfFloatTypes{});
  RegisterUnary<SoftsignOp>(registry, "Softsign", HalfFloatTypes{});
  RegisterUnary<ShrinkOp>(registry, "Shrink", HalfFloatTypes{});
}

}  // namespace ge::device::cpu
