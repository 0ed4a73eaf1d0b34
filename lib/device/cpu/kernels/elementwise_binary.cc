// Broadcasting binary ops: arithmetic (Add, Sub, Mul, Div, Pow, Maximum,
// Minimum, Mod, FloorMod, PRelu), bitwise (BitwiseAnd/Or/Xor, LeftShift,
// RightShift), comparisons (Equal, Greater, Less, GreaterEqual, LessEqual,
// bool output) and LogicalAnd/Or/Xor. One kernel template walks the
// broadcast layout; each op is a functor on the compute type.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include <fmt/core.h>

#include "device/cpu/kernels/broadcast_layout.h"
#include "device/cpu/kernels/cpu_clones.h"
#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/dual_mode.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/elementwise_unary.h"
#include "device/cpu/kernels/fast_math.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

// Declares a functor Name computing `expr` from a and b of type C.
#define GE_BINARY_OP(Name, expr)      \
  struct Name {                       \
    template <typename C>             \
    auto operator()(C a, C b) const { \
      return expr;                    \
    }                                 \
  };

GE_BINARY_OP(AddOp, C(a + b))
GE_BINARY_OP(SubOp, C(a - b))
GE_BINARY_OP(MulOp, C(a * b))
GE_BINARY_OP(MaximumOp, std::max(a, b))
GE_BINARY_OP(MinimumOp, std::min(a, b))
GE_BINARY_OP(PReluOp, a < C(0) ? C(a * b) : a)
GE_BINARY_OP(BitwiseAndOp, C(a & b))
GE_BINARY_OP(BitwiseOrOp, C(a | b))
GE_BINARY_OP(BitwiseXorOp, C(a ^ b))
GE_BINARY_OP(EqualOp, a == b)
GE_BINARY_OP(GreaterOp, a > b)
GE_BINARY_OP(LessOp, a < b)
GE_BINARY_OP(GreaterEqualOp, a >= b)
GE_BINARY_OP(LessEqualOp, a <= b)
GE_BINARY_OP(LogicalAndOp, a && b)
GE_BINARY_OP(LogicalOrOp, a || b)
GE_BINARY_OP(LogicalXorOp, a != b)
#undef GE_BINARY_OP

// Ops that divide integers: the kernel rejects zero divisors before the loop.
// MIN / -1 and MIN % -1 wrap instead of trapping.
struct DivOp {
  static constexpr bool kDividesIntegers = true;
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      if (std::is_signed_v<C> && b == C(-1)) return static_cast<C>(-static_cast<std::make_unsigned_t<C>>(a));
    }
    return C(a / b);
  }
};
// Truncated remainder (C fmod): the sign of the dividend.
struct ModOp {
  static constexpr bool kDividesIntegers = true;
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      return std::fmod(a, b);
    } else {
      if (std::is_signed_v<C> && b == C(-1)) return C(0);
      return C(a % b);
    }
  }
};
// Floored remainder (Python %): the sign of the divisor.
struct FloorModOp {
  static constexpr bool kDividesIntegers = true;
  template <typename C>
  C operator()(C a, C b) const {
    const C r = ModOp{}(a, b);
    if constexpr (std::is_unsigned_v<C>) {
      return r;
    } else {
      return r != C(0) && ((r < C(0)) != (b < C(0))) ? C(r + b) : r;
    }
  }
};
struct PowOp {
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      return std::pow(a, b);
    } else {
      // Exact integer power by squaring; a negative exponent truncates 1/a^|b|
      // toward zero like the integer division does.
      if constexpr (std::is_signed_v<C>) {
        if (b < 0) return a == 1 ? C(1) : a == -1 ? ((b & 1) ? C(-1) : C(1)) : C(0);
      }
      using U = std::make_unsigned_t<C>;
      U result = 1, base = static_cast<U>(a);
      for (C e = b; e > 0; e >>= 1) {
        if (e & 1) result = static_cast<U>(result * base);
        base = static_cast<U>(base * base);
      }
      return static_cast<C>(result);
    }
  }
};
// The high_performance forms of Div and Pow (fast_math.h), computed in float
// and inlined into the kernel loop, which then vectorizes.
struct FastDivOp {
  [[gnu::always_inline]] float operator()(float a, float b) const { return a * FastReciprocal(b); }
};
struct FastPowOp {
  [[gnu::always_inline]] float operator()(float a, float b) const { return FastPow(a, b); }
};
// Shifts by a negative amount or by the bit width or more give what shifting
// one bit at a time would: 0 (or -1 for a negative value shifted right).
struct LeftShiftOp {
  template <typename C>
  C operator()(C a, C b) const {
    using U = std::make_unsigned_t<C>;
    if (b < C(0) || static_cast<U>(b) >= std::numeric_limits<U>::digits) return C(0);
    return static_cast<C>(static_cast<U>(static_cast<U>(a) << b));
  }
};
struct RightShiftOp {
  template <typename C>
  C operator()(C a, C b) const {
    using U = std::make_unsigned_t<C>;
    if (b < C(0) || static_cast<U>(b) >= std::numeric_limits<U>::digits) return a < C(0) ? C(-1) : C(0);
    return C(a >> b);
  }
};

template <typename Op>
constexpr bool DividesIntegers() {
  if constexpr (requires { Op::kDividesIntegers; }) {
    return Op::kDividesIntegers;
  } else {
    return false;
  }
}

// One inner run of `count` outputs; kA/kB: the operand advances (stride 1)
// or stays (broadcast, stride 0). Compile-time strides let the loop vectorize.
template <typename In, typename Out, typename Op, bool kA, bool kB>
[[gnu::always_inline]] inline void InnerRunLoop(const In* a, const In* b, Out* y, int64_t count) {
  Op op;
  // y may be a or b (in-place), which is safe element by element but keeps
  // the compiler from vectorizing on its own.
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) y[i] = Store<Out>(op(Load(a[kA ? i : 0]), Load(b[kB ? i : 0])));
}

// The loop, run per CPU where that pays (cpu_clones.h), else the baseline one.
template <typename In, typename Out, typename Op, bool kA, bool kB>
void InnerRun(const In* a, const In* b, Out* y, int64_t count) {
  PerCpu<kClonesPay<In>>([&] { InnerRunLoop<In, Out, Op, kA, kB>(a, b, y, count); });
}

template <typename In, typename Out>
using InnerRunFn = void (*)(const In*, const In*, Out*, int64_t);

// The broadcast layout is computed for the shapes the kernel is built for;
// a run at other shapes (a dynamic model's) computes its own.
template <typename In, typename Out, typename Op>
class BinaryKernel final : public Kernel {
 public:
  explicit BinaryKernel(const Node& node)
      : label_(node.Describe()),
        layout_(MakeLayout(node)),
        a_shape_(InputShape(node, 0)),
        b_shape_(InputShape(node, 1)),
        y_shape_(OutputShape(node, 0)) {}

  bool TakesShapesAtRun() const override { return true; }

  void Run(const KernelContext& ctx) const override {
    const Shape& a_shape = *ctx.inputs[0].shape;
    const Shape& b_shape = *ctx.inputs[1].shape;
    const Shape& y_shape = *ctx.outputs[0].shape;
    if (a_shape == a_shape_ && b_shape == b_shape_ && y_shape == y_shape_) return Apply(ctx, layout_);
    const Shape* shapes[] = {&a_shape, &b_shape};
    try {
      Apply(ctx, BroadcastLayout(y_shape, shapes));
    } catch (const Error& e) {
      throw Error(e.code(), fmt::format("{}: {}", label_, e.what()));
    }
  }

 private:
  void Apply(const KernelContext& ctx, const BroadcastLayout& layout) const {
    const In* a = ctx.inputs[0].as<const In>();
    const In* b = ctx.inputs[1].as<const In>();
    Out* y = ctx.outputs[0].as<Out>();
    if constexpr (DividesIntegers<Op>() && std::is_integral_v<In>) {
      const int64_t nb = ctx.inputs[1].num_elements();
      if (std::find(b, b + nb, In(0)) != b + nb) {
        throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: integer division by zero", label_));
      }
    }
    static constexpr InnerRunFn<In, Out> kRuns[2][2] = {
        {InnerRun<In, Out, Op, false, false>, InnerRun<In, Out, Op, false, true>},
        {InnerRun<In, Out, Op, true, false>, InnerRun<In, Out, Op, true, true>}};
    const int64_t sa = layout.inner_stride(0), sb = layout.inner_stride(1);
    const InnerRunFn<In, Out> run = kRuns[sa][sb];
    const int64_t inner = layout.inner();
    layout.ParallelForRuns([&](int64_t row, int64_t begin, int64_t count) {
      run(a + layout.RowOffset(0, row) + begin * sa, b + layout.RowOffset(1, row) + begin * sb,
          y + row * inner + begin, count);
    });
  }

  static BroadcastLayout MakeLayout(const Node& node) {
    const Shape* shapes[] = {&InputShape(node, 0), &InputShape(node, 1)};
    if (InputDtype(node, 1) != InputDtype(node, 0)) {
      Fail(node, ErrorCode::kInvalidModel,
           fmt::format("inputs have different dtypes {} and {}", DataTypeName(InputDtype(node, 0)),
                       DataTypeName(InputDtype(node, 1))));
    }
    try {
      return BroadcastLayout(OutputShape(node, 0), shapes);
    } catch (const Error& e) {
      Fail(node, e.code(), e.what());
    }
  }

  std::string label_;
  BroadcastLayout layout_;
  Shape a_shape_, b_shape_, y_shape_;  // what layout_ is for
};

// Registers op_type for the dtypes of `types`; the output has the inputs'
// dtype, or bool when kBoolOutput (comparisons).
template <typename Op, bool kBoolOutput = false, typename... Ts>
void RegisterBinary(KernelRegistry& registry, const std::string& op_type, TypeList<Ts...> types) {
  RegisterKernel(registry, op_type, DataTypesOf(types), [](const Node& node) {
    return DispatchDtype(node, InputDtype(node, 0), TypeList<Ts...>{}, [&](auto tag) -> std::unique_ptr<Kernel> {
      using In = typename decltype(tag)::type;
      return std::make_unique<BinaryKernel<In, std::conditional_t<kBoolOutput, bool, In>, Op>>(node);
    });
  });
}

// Makes a BinaryKernel computing Op on T (for RegisterDualMode).
struct BinaryKernelBuild {
  template <typename Op, typename T>
  static std::unique_ptr<Kernel> Make(const Node& node) {
    return std::make_unique<BinaryKernel<T, T, Op>>(node);
  }
};

// Registers op_type with a precise and a fast implementation (dual_mode.h).
template <typename Precise, typename Fast, typename... Ts>
void RegisterDualBinary(KernelRegistry& registry, const std::string& op_type, TypeList<Ts...> types) {
  RegisterDualMode<BinaryKernelBuild, Precise, Fast>(registry, op_type, types);
}

// Pow with a constant scalar exponent (the x^2 of a decomposed variance, the
// x^0.5 of a norm) is read when the kernel is built, and these exponents run
// as arithmetic, which vectorizes where pow is a libm call per element. Each
// keeps pow's special cases (pow(x, 0) = 1 even for NaN, pow(-0, 0.5) = +0,
// pow(-inf, 0.5) = +inf). Float operands are evaluated in double, where x^2
// is exact and the others are rounded once or twice at double precision, so
// the float result is pow's correctly rounded one but for double-rounding
// ties; float64 operands get only the exponents computed in one correctly
// rounded operation.
enum class PowExponent { kZero, kOne, kTwo, kThree, kMinusOne, kMinusTwo, kHalf, kMinusHalf };

template <PowExponent kE>
struct ConstantPowOp {
  template <typename C>
  [[gnu::always_inline]] C operator()(C x) const {
    const double w = x;  // float or double: C's pow results in double
    switch (kE) {
      case PowExponent::kZero: return C(1);
      case PowExponent::kOne: return x;
      case PowExponent::kTwo: return C(w * w);
      case PowExponent::kThree: return C(w * w * w);
      case PowExponent::kMinusOne: return C(1.0 / w);
      case PowExponent::kMinusTwo: return C(1.0 / (w * w));
      case PowExponent::kHalf: return C(NaNIfNegativeFinite(w, SqrtOfMagnitude(w)));
      case PowExponent::kMinusHalf: return C(NaNIfNegativeFinite(w, 1.0 / SqrtOfMagnitude(w)));
    }
  }

  // sqrt |w| is pow's w^0.5 at -0 (+0) and -inf (+inf). (Under the default
  // -fmath-errno, GCC keeps a branch to the errno-setting sqrt call, so these
  // two exponents run scalar, still well ahead of pow.)
  [[gnu::always_inline]] static double SqrtOfMagnitude(double w) { return std::sqrt(std::abs(w)); }
  // A negative finite nonzero base has no real root: NaN. Tested on the bits
  // (an ordered comparison would keep a branch: see fast_math.h).
  [[gnu::always_inline]] static double NaNIfNegativeFinite(double w, double root) {
    const uint64_t bits = std::bit_cast<uint64_t>(w);
    const bool negative_finite = (bits > 0x8000'0000'0000'0000ull) & (bits < 0xFFF0'0000'0000'0000ull);
    return negative_finite ? std::numeric_limits<double>::quiet_NaN() : root;
  }
};

// The exponents ConstantPowOp computes on C (whose pow results it keeps).
template <typename C>
std::optional<PowExponent> ConstantPowExponent(double e) {
  if (e == 0) return PowExponent::kZero;
  if (e == 1) return PowExponent::kOne;
  if (e == 2) return PowExponent::kTwo;
  if (e == -1) return PowExponent::kMinusOne;
  if (e == 0.5) return PowExponent::kHalf;
  if (std::is_same_v<C, float> && e == 3) return PowExponent::kThree;
  if (std::is_same_v<C, float> && e == -2) return PowExponent::kMinusTwo;
  if (std::is_same_v<C, float> && e == -0.5) return PowExponent::kMinusHalf;
  return std::nullopt;
}

// A UnaryKernel for a Pow node whose exponent is such a constant scalar, else null.
template <typename T>
std::unique_ptr<Kernel> MakeConstantExponentPow(const Node& node) {
  using C = Compute<T>;
  if constexpr (std::is_floating_point_v<C>) {
    const Tensor* exponent = node.input(1) != nullptr ? node.input(1)->constant() : nullptr;
    if (exponent == nullptr || exponent->num_elements() != 1 || exponent->dtype() != InputDtype(node, 0) ||
        OutputShape(node, 0) != InputShape(node, 0)) {
      return nullptr;
    }
    const std::optional<PowExponent> e = ConstantPowExponent<C>(static_cast<double>(Load(*exponent->data_as<T>())));
    if (!e) return nullptr;
    auto make = [&]<PowExponent kE>() -> std::unique_ptr<Kernel> {
      return std::make_unique<UnaryKernel<T, T, ConstantPowOp<kE>>>(ConstantPowOp<kE>{});
    };
    switch (*e) {
      case PowExponent::kZero: return make.template operator()<PowExponent::kZero>();
      case PowExponent::kOne: return make.template operator()<PowExponent::kOne>();
      case PowExponent::kTwo: return make.template operator()<PowExponent::kTwo>();
      case PowExponent::kThree: return make.template operator()<PowExponent::kThree>();
      case PowExponent::kMinusOne: return make.template operator()<PowExponent::kMinusOne>();
      case PowExponent::kMinusTwo: return make.template operator()<PowExponent::kMinusTwo>();
      case PowExponent::kHalf: return make.template operator()<PowExponent::kHalf>();
      case PowExponent::kMinusHalf: return make.template operator()<PowExponent::kMinusHalf>();
    }
  }
  return nullptr;
}

// Pow's kernels in either mode: a constant exponent first, else the broadcasting loop.
struct PowKernelBuild {
  template <typename Op, typename T>
  static std::unique_ptr<Kernel> Make(const Node& node) {
    if (std::unique_ptr<Kernel> kernel = MakeConstantExponentPow<T>(node)) return kernel;
    return BinaryKernelBuild::Make<Op, T>(node);
  }
};

}  // namespace

void RegisterBinaryKernels(KernelRegistry& registry) {
  RegisterBinary<AddOp>(registry, "Add", NumericTypes{});
  RegisterBinary<SubOp>(registry, "Sub", NumericTypes{});
  RegisterBinary<MulOp>(registry, "Mul", NumericTypes{});
  RegisterDualBinary<DivOp, FastDivOp>(registry, "Div", NumericTypes{});
  RegisterDualMode<PowKernelBuild, PowOp, FastPowOp>(registry, "Pow", NumericTypes{});
  RegisterBinary<MaximumOp>(registry, "Maximum", NumericTypes{});
  RegisterBinary<MinimumOp>(registry, "Minimum", NumericTypes{});
  RegisterBinary<ModOp>(registry, "Mod", NumericTypes{});
  RegisterBinary<FloorModOp>(registry, "FloorMod", NumericTypes{});
  RegisterBinary<PReluOp>(registry, "PRelu", NumericTypes{});
  RegisterBinary<BitwiseAndOp>(registry, "BitwiseAnd", IntegerTypes{});
  RegisterBinary<BitwiseOrOp>(registry, "BitwiseOr", IntegerTypes{});
  RegisterBinary<BitwiseXorOp>(registry, "BitwiseXor", IntegerTypes{});
  RegisterBinary<LeftShiftOp>(registry, "LeftShift", IntegerTypes{});
  RegisterBinary<RightShiftOp>(registry, "RightShift", IntegerTypes{});
  RegisterBinary<EqualOp, true>(registry, "Equal", AllTypes{});
  RegisterBinary<GreaterOp, true>(registry, "Greater", NumericTypes{});
  RegisterBinary<LessOp, true>(registry, "Less", NumericTypes{});
  RegisterBinary<GreaterEqualOp, true>(registry, "GreaterEqual", NumericTypes{});
  RegisterBinary<LessEqualOp, true>(registry, "LessEqual", NumericTypes{});
  RegisterBinary<LogicalAndOp>(registry, "LogicalAnd", BoolTypes{});
  RegisterBinary<LogicalOrOp>(registry, "LogicalOr", BoolTypes{});
  RegisterBinary<LogicalXorOp>(registry, "LogicalXor", BoolTypes{});
}

}  // namespace ge::device::cpu
