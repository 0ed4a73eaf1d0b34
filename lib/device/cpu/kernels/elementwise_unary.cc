// Elementwise unary math (Abs, Neg, Sign, rounding, roots, exponentials,
// trigonometric and hyperbolic functions, Erf, Gelu), the IsNan/IsInf
// predicates, LogicalNot, Invert, and ClipByValue. Activations with
// attributes are in activation.cc.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/elementwise_unary.h"
#include "device/cpu/kernels/fast_math.h"
#include "device/cpu/kernels/wide_math.h"

namespace ge::device::cpu {

namespace {

// Declares a functor Name whose call computes `expr` on the value x of type C.
#define GE_UNARY_OP(Name, expr)        \
  struct Name {                        \
    template <typename C>              \
    C operator()(C x) const {          \
      return expr;                     \
    }                                  \
  };

// Sign-only ops run on every numeric type (unsigned x < 0 is simply false).
GE_UNARY_OP(ReluOp, x > C(0) ? x : C(0))
GE_UNARY_OP(AbsOp, x < C(0) ? C(-x) : x)
GE_UNARY_OP(NegOp, C(-x))
GE_UNARY_OP(SignOp, C((x > C(0)) - (x < C(0))))
// Float ops. Round is half to even: nearbyint in the default rounding mode.
GE_UNARY_OP(CeilOp, std::ceil(x))
GE_UNARY_OP(FloorOp, std::floor(x))
GE_UNARY_OP(RoundOp, std::nearbyint(x))
GE_UNARY_OP(SqrtOp, std::sqrt(x))
GE_UNARY_OP(LogOp, std::log(x))
GE_UNARY_OP(ReciprocalOp, C(1) / x)
GE_UNARY_OP(SinOp, std::sin(x))
GE_UNARY_OP(CosOp, std::cos(x))
GE_UNARY_OP(TanOp, std::tan(x))
GE_UNARY_OP(AsinOp, std::asin(x))
GE_UNARY_OP(AcosOp, std::acos(x))
GE_UNARY_OP(AtanOp, std::atan(x))
GE_UNARY_OP(SinhOp, std::sinh(x))
GE_UNARY_OP(CoshOp, std::cosh(x))
GE_UNARY_OP(AsinhOp, std::asinh(x))
GE_UNARY_OP(AcoshOp, std::acosh(x))
GE_UNARY_OP(AtanhOp, std::atanh(x))
// Integer ops.
GE_UNARY_OP(InvertOp, C(~x))
#undef GE_UNARY_OP

// high_precision ops computed in double and rounded once: float through the
// vectorizable wide_math.h function `wide`, float64 through libm (`expr` on
// w = x; composed as in wide_math.h). Always inlined: the kernel loop only
// vectorizes (in the clone for each CPU) with the call gone.
#define GE_WIDE_UNARY_OP(Name, wide, expr)           \
  struct Name {                                      \
    template <typename C>                            \
    [[gnu::always_inline]] C operator()(C x) const { \
      if constexpr (std::is_same_v<C, float>) {      \
        return static_cast<float>(wide(x));          \
      } else {                                       \
        const double w = x;                          \
        return static_cast<C>(expr);                 \
      }                                              \
    }                                                \
  };
GE_WIDE_UNARY_OP(ExpOp, WideExp, std::exp(w))
GE_WIDE_UNARY_OP(ErfOp, WideErf, std::erf(w))
GE_WIDE_UNARY_OP(SigmoidOp, WideSigmoid, 1.0 / (1.0 + std::exp(-w)))
GE_WIDE_UNARY_OP(TanhOp, WideTanh, std::tanh(w))
// The exact form x * Phi(x), through erfc so the negative tail (where
// 1 + erf(x/sqrt 2) would cancel) keeps its relative accuracy.
GE_WIDE_UNARY_OP(GeluOp, WideGelu, 0.5 * w * std::erfc(w * -0.70710678118654752440))
#undef GE_WIDE_UNARY_OP

// The high_performance forms (fast_math.h), computed in float; inlined into
// the kernel loop, which then vectorizes.
#define GE_FAST_OP(Name, fn)                                                   \
  struct Name {                                                                \
    [[gnu::always_inline]] float operator()(float x) const { return fn(x); }   \
  };
GE_FAST_OP(FastExpOp, FastExp)
GE_FAST_OP(FastLogOp, FastLog)
GE_FAST_OP(FastTanhOp, FastTanh)
GE_FAST_OP(FastSigmoidOp, FastSigmoid)
GE_FAST_OP(FastErfOp, FastErf)
GE_FAST_OP(FastGeluOp, FastGelu)
GE_FAST_OP(FastSqrtOp, FastSqrt)
GE_FAST_OP(FastReciprocalOp, FastReciprocal)
#undef GE_FAST_OP

struct LogicalNotOp {
  bool operator()(bool x) const { return !x; }
};
struct IsNanOp {
  template <typename C>
  bool operator()(C x) const { return std::isnan(x); }
};
// ONNX IsInf: which signs of infinity count.
struct IsInfOp {
  explicit IsInfOp(const Node& node)
      : negative(node.attrs().GetInt("detect_negative") != 0), positive(node.attrs().GetInt("detect_positive") != 0) {}
  template <typename C>
  bool operator()(C x) const { return std::isinf(x) && (x > 0 ? positive : negative); }
  bool negative, positive;
};

// min(max(x, lo), hi): a NaN x stays NaN.
template <typename C>
struct ClipOp {
  [[gnu::always_inline]] C operator()(C x) const { return std::min(std::max(x, lo), hi); }
  C lo, hi;
};

// ClipOp with lo and hi read from their (scalar) inputs at run time.
template <typename T>
class ClipByValueKernel final : public Kernel {
 public:
  void Run(const KernelContext& ctx) const override {
    const T* x = ctx.inputs[0].as<const T>();
    const ClipOp<Compute<T>> clip{Load(*ctx.inputs[1].as<const T>()), Load(*ctx.inputs[2].as<const T>())};
    T* y = ctx.outputs[0].as<T>();
    ForEachChunk(ctx.outputs[0].num_elements(), [&](int64_t begin, int64_t end) {
      PerCpu<kClonesPay<T>>([&] { UnarySpan(x + begin, y + begin, end - begin, clip); });
    });
  }
};

std::unique_ptr<Kernel> MakeClipByValue(const Node& node) {
  for (size_t i : {1, 2}) {
    if (InputShape(node, i).NumElements() != 1) {
      Fail(node, ErrorCode::kUnsupported,
           fmt::format("input {} ({}) must hold one value, got shape {}", i,
                       i == 1 ? "clip_value_min" : "clip_value_max", InputShape(node, i).ToString()));
    }
    if (InputDtype(node, i) != InputDtype(node, 0)) {
      Fail(node, ErrorCode::kInvalidModel, fmt::format("input {} has dtype {}, x has {}", i,
                                                       DataTypeName(InputDtype(node, i)),
                                                       DataTypeName(InputDtype(node, 0))));
    }
  }
  return DispatchDtype(node, InputDtype(node, 0), NumericTypes{}, [](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<ClipByValueKernel<typename decltype(tag)::type>>();
  });
}

}  // namespace

void RegisterUnaryKernels(KernelRegistry& registry) {
  RegisterUnary<ReluOp>(registry, "Relu", NumericTypes{});
  RegisterUnary<AbsOp>(registry, "Abs", NumericTypes{});
  RegisterUnary<NegOp>(registry, "Neg", NumericTypes{});
  RegisterUnary<SignOp>(registry, "Sign", NumericTypes{});
  RegisterUnary<CeilOp>(registry, "Ceil", HalfFloatTypes{});
  RegisterUnary<FloorOp>(registry, "Floor", HalfFloatTypes{});
  RegisterUnary<RoundOp>(registry, "Round", HalfFloatTypes{});
  RegisterDualUnary<SigmoidOp, FastSigmoidOp>(registry, "Sigmoid", HalfFloatTypes{});
  RegisterDualUnary<TanhOp, FastTanhOp>(registry, "Tanh", HalfFloatTypes{});
  RegisterDualUnary<ErfOp, FastErfOp>(registry, "Erf", HalfFloatTypes{});
  RegisterDualUnary<SqrtOp, FastSqrtOp>(registry, "Sqrt", HalfFloatTypes{});
  RegisterDualUnary<ExpOp, FastExpOp>(registry, "Exp", HalfFloatTypes{});
  RegisterDualUnary<LogOp, FastLogOp>(registry, "Log", HalfFloatTypes{});
  RegisterDualUnary<ReciprocalOp, FastReciprocalOp>(registry, "Reciprocal", HalfFloatTypes{});
  RegisterUnary<SinOp>(registry, "Sin", HalfFloatTypes{});
  RegisterUnary<CosOp>(registry, "Cos", HalfFloatTypes{});
  RegisterUnary<TanOp>(registry, "Tan", HalfFloatTypes{});
  RegisterUnary<AsinOp>(registry, "Asin", HalfFloatTypes{});
  RegisterUnary<AcosOp>(registry, "Acos", HalfFloatTypes{});
  RegisterUnary<AtanOp>(registry, "Atan", HalfFloatTypes{});
  RegisterUnary<SinhOp>(registry, "Sinh", HalfFloatTypes{});
  RegisterUnary<CoshOp>(registry, "Cosh", HalfFloatTypes{});
  RegisterUnary<AsinhOp>(registry, "Asinh", HalfFloatTypes{});
  RegisterUnary<AcoshOp>(registry, "Acosh", HalfFloatTypes{});
  RegisterUnary<AtanhOp>(registry, "Atanh", HalfFloatTypes{});
  RegisterDualUnary<GeluOp, FastGeluOp>(registry, "Gelu", HalfFloatTypes{});
  RegisterUnary<InvertOp>(registry, "Invert", IntegerTypes{});
  RegisterUnary<LogicalNotOp>(registry, "LogicalNot", BoolTypes{});
  RegisterUnary<IsNanOp, /*kBoolOutput=*/true>(registry, "IsNan", HalfFloatTypes{});
  RegisterUnary<IsInfOp, /*kBoolOutput=*/true>(registry, "IsInf", HalfFloatTypes{});
  RegisterKernel(registry, "ClipByValue", DataTypesOf(NumericTypes{}), MakeClipByValue);
}

}  // namespace ge::device::cpu
