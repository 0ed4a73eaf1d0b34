// CommonRNN, CommonGRU and CommonLSTM with ONNX semantics: directions,
// per-direction activations, clip, sequence_lens, initial states, layout,
// GRU's linear_before_reset, LSTM's peepholes and input_forget.
//
// One kernel walks the sequence of each (direction, batch row) pair — rows
// are independent, so they run in parallel — and a cell type computes one
// time step from the input projection W x + Wb and the recurrent projection
// R h + Rb. Steps at or past a row's sequence length leave Y zero and the
// state unchanged. float16/bfloat16 run the float32 kernel on widened copies.
#include <fmt/core.h>

#include "device/cpu/kernels/cpu_clones.h"
#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "device/cpu/kernels/recurrent_activation.h"

namespace ge::device::cpu {

namespace {

enum Input : size_t { kX, kW, kR, kB, kSequenceLens, kInitialH, kInitialC, kPeepholes };

struct RecurrentPlan {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, directions = 1;
  bool batch_major = false;  // layout 1
  bool reverse = false;      // direction "reverse" (bidirectional: direction 1 only)
  double clip = 0.0;         // > 0: pre-activations are clipped to [-clip, clip]
  std::vector<RecurrentActivation> activations;  // per direction, the cell's functions in order

  int64_t XOffset(int64_t t, int64_t b) const { return (batch_major ? b * seq + t : t * batch + b) * input; }
  int64_t YOffset(int64_t t, int64_t d, int64_t b) const {
    return (batch_major ? (b * seq + t) * directions + d : (t * directions + d) * batch + b) * hidden;
  }
  int64_t StateOffset(int64_t d, int64_t b) const {
    return (batch_major ? b * directions + d : d * batch + b) * hidden;
  }
};

// out[r] = bias[r] + sum_c m[r, c] v[c] for the rows of one gate block. The
// sum runs in vector lanes (reassociated): a streaming model's LSTM spends
// most of its time here, one short product per gate row and time step.
// Four rows at a time share the loads of v and the lanes' final reductions.
template <typename T>
void MatVecLoop(const T* m, const T* v, const T* bias, int64_t rows, int64_t cols, T* out) {
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    const T *m0 = m + r * cols, *m1 = m0 + cols, *m2 = m1 + cols, *m3 = m2 + cols;
    T a0 = T(0), a1 = T(0), a2 = T(0), a3 = T(0);
#pragma omp simd reduction(+ : a0, a1, a2, a3)
    for (int64_t c = 0; c < cols; ++c) {
      a0 += m0[c] * v[c];
      a1 += m1[c] * v[c];
      a2 += m2[c] * v[c];
      a3 += m3[c] * v[c];
    }
    out[r] = (bias ? bias[r] : T(0)) + a0;
    out[r + 1] = (bias ? bias[r + 1] : T(0)) + a1;
    out[r + 2] = (bias ? bias[r + 2] : T(0)) + a2;
    out[r + 3] = (bias ? bias[r + 3] : T(0)) + a3;
  }
  for (; r < rows; ++r) {
    const T* row = m + r * cols;
    T acc = T(0);
#pragma omp simd reduction(+ : acc)
    for (int64_t c = 0; c < cols; ++c) acc += row[c] * v[c];
    out[r] = (bias ? bias[r] : T(0)) + acc;
  }
}

template <typename T>
void MatVec(const T* m, const T* v, const T* bias, int64_t rows, int64_t cols, T* out) {
  PerCpu<kClonesPay<T>>([&] { MatVecLoop(m, v, bias, rows, cols, out); });
}

// A pre-activation value, clipped when the node has a clip threshold.
template <typename T>
T Clip(const RecurrentPlan& plan, T v) {
  if (plan.clip <= 0) return v;
  const T c = static_cast<T>(plan.clip);
  return std::min(c, std::max(-c, v));
}

// What a cell sees of one direction: its weights and activation functions.
template <typename T>
struct DirectionWeights {
  const T* w;   // [gates * hidden, input]
  const T* r;   // [gates * hidden, hidden]
  const T* wb;  // [gates * hidden] or nullptr
  const T* rb;  // [gates * hidden] or nullptr
  const T* p;   // LSTM peepholes [3 * hidden] or nullptr
  const RecurrentActivation* act;
};

// H = f(xw + R h + Rb).
struct RnnCell {
  static constexpr int64_t kGates = 1;
  static constexpr bool kCellState = false;
  static const std::vector<std::string>& Defaults() {
    static const std::vector<std::string> d = {"Tanh"};
    return d;
  }
  explicit RnnCell(const Node&) {}

  template <typename T>
  void Step(const RecurrentPlan& plan, const DirectionWeights<T>& dw, const T* xw, T* h, T*, T* scratch) const {
    const int64_t hs = plan.hidden;
    MatVec(dw.r, h, dw.rb, hs, hs, scratch);
    for (int64_t u = 0; u < hs; ++u) h[u] = dw.act[0](Clip(plan, xw[u] + scratch[u]));
  }

};

// Gates z, r, h: z = f(.), r = f(.), h~ = g(xw_h + R_h (r * h) + Rb_h), or with
// linear_before_reset g(xw_h + r * (R_h h + Rb_h)); H = (1 - z) h~ + z H.
struct GruCell {
  static constexpr int64_t kGates = 3;
  static constexpr bool kCellState = false;
  static const std::vector<std::string>& Defaults() {
    static const std::vector<std::string> d = {"Sigmoid", "Tanh"};
    return d;
  }
  explicit GruCell(const Node& node) : linear_before_reset(node.attrs().GetInt("linear_before_reset") != 0) {}
  bool linear_before_reset;

  template <typename T>
  void Step(const RecurrentPlan& plan, const DirectionWeights<T>& dw, const T* xw, T* h, T*, T* scratch) const {
    const int64_t hs = plan.hidden;
    T* hr = scratch;             // R h + Rb for z and r (and h with linear_before_reset): 3 * hs
    T* reset_h = scratch + 3 * hs;  // r * h: hs
    const T* rb = dw.rb;
    MatVec(dw.r, h, rb, 2 * hs, hs, hr);
    for (int64_t u = 0; u < hs; ++u) {
      hr[u] = dw.act[0](Clip(plan, xw[u] + hr[u]));                 // z
      hr[hs + u] = dw.act[0](Clip(plan, xw[hs + u] + hr[hs + u]));  // r
    }
    const T* rh = dw.r + 2 * hs * hs;
    const T* rbh = rb ? rb + 2 * hs : nullptr;
    if (linear_before_reset) {
      MatVec(rh, h, rbh, hs, hs, hr + 2 * hs);
      for (int64_t u = 0; u < hs; ++u) hr[2 * hs + u] *= hr[hs + u];
    } else {
      for (int64_t u = 0; u < hs; ++u) reset_h[u] = hr[hs + u] * h[u];
      MatVec(rh, reset_h, rbh, hs, hs, hr + 2 * hs);
    }
    for (int64_t u = 0; u < hs; ++u) {
      const T candidate = dw.act[1](Clip(plan, xw[2 * hs + u] + hr[2 * hs + u]));
      const T z = hr[u];
      h[u] = (T(1) - z) * candidate + z * h[u];
    }
  }
};

// Gates i, o, f, c with peepholes P = [Pi, Po, Pf]:
// i = f(. + Pi C), f = f(. + Pf C) (or 1 - i with input_forget), c~ = g(.),
// C = f C + i c~, o = f(. + Po C), H = o h(C).
struct LstmCell {
  static constexpr int64_t kGates = 4;
  static constexpr bool kCellState = true;  // initial_c, p inputs; y_c output
  static const std::vector<std::string>& Defaults() {
    static const std::vector<std::string> d = {"Sigmoid", "Tanh", "Tanh"};
    return d;
  }
  explicit LstmCell(const Node& node) : input_forget(node.attrs().GetInt("input_forget") != 0) {}
  bool input_forget;

  template <typename T>
  void Step(const RecurrentPlan& plan, const DirectionWeights<T>& dw, const T* xw, T* h, T* c, T* scratch) const {
    const int64_t hs = plan.hidden;
    MatVec(dw.r, h, dw.rb, 4 * hs, hs, scratch);
    const T* p = dw.p;
    for (int64_t u = 0; u < hs; ++u) {
      auto pre = [&](int64_t gate) { return xw[gate * hs + u] + scratch[gate * hs + u]; };
      const T c_prev = c[u];
      const T i = dw.act[0](Clip(plan, pre(0) + (p ? p[u] * c_prev : T(0))));
      const T f = input_forget ? T(1) - i
                               : dw.act[0](Clip(plan, pre(2) + (p ? p[2 * hs + u] * c_prev : T(0))));
      const T candidate = dw.act[1](Clip(plan, pre(3)));
      c[u] = f * c_prev + i * candidate;
      const T o = dw.act[0](Clip(plan, pre(1) + (p ? p[hs + u] * c[u] : T(0))));
      h[u] = o * dw.act[2](c[u]);
    }
  }
};

template <typename T, typename Cell>
class RecurrentKernel final : public Kernel {
 public:
  RecurrentKernel(const Node& node, RecurrentPlan plan)
      : label_(node.Describe()), plan_(std::move(plan)), cell_(node) {}

  void Run(const KernelContext& ctx) const override {
    const RecurrentPlan& p = plan_;
    const std::vector<int64_t> lengths = SequenceLengths(ctx);
    const int64_t gh = Cell::kGates * p.hidden;
    auto input = [&](size_t i) -> const T* {
      return i < ctx.inputs.size() ? static_cast<const T*>(ctx.inputs[i].data) : nullptr;
    };
    auto output = [&](size_t i) -> T* { return i < ctx.outputs.size() ? ctx.outputs[i].as<T>() : nullptr; };
    const T *x = input(kX), *bias = input(kB), *initial_h = input(kInitialH);
    const T* initial_c = Cell::kCellState ? input(kInitialC) : nullptr;
    const T* peepholes = Cell::kCellState ? input(kPeepholes) : nullptr;
    T *y = output(0), *y_h = output(1), *y_c = Cell::kCellState ? output(2) : nullptr;
    const int64_t acts_per_direction = static_cast<int64_t>(Cell::Defaults().size());
    const int64_t pairs = p.directions * p.batch;
#pragma omp parallel for if (pairs * p.seq * gh * (p.input + p.hidden) > kParallelGrain)
    for (int64_t pair = 0; pair < pairs; ++pair) {
      const int64_t d = pair / p.batch, b = pair % p.batch;
      const DirectionWeights<T> dw{input(kW) + d * gh * p.input, input(kR) + d * gh * p.hidden,
                                   bias ? bias + d * 2 * gh : nullptr, bias ? bias + d * 2 * gh + gh : nullptr,
                                   peepholes ? peepholes + d * 3 * p.hidden : nullptr,
                                   p.activations.data() + d * acts_per_direction};
      std::vector<T> h(p.hidden, T(0)), c(p.hidden, T(0)), xw(gh), scratch(4 * p.hidden);
      const int64_t state = p.StateOffset(d, b);
      if (initial_h) std::copy(initial_h + state, initial_h + state + p.hidden, h.begin());
      if (initial_c) std::copy(initial_c + state, initial_c + state + p.hidden, c.begin());
      const bool reverse = p.reverse || d == 1;
      const int64_t length = lengths.empty() ? p.seq : lengths[b];
      for (int64_t s = 0; s < length; ++s) {
        const int64_t t = reverse ? length - 1 - s : s;
        MatVec(dw.w, x + p.XOffset(t, b), dw.wb, gh, p.input, xw.data());
        cell_.Step(p, dw, xw.data(), h.data(), c.data(), scratch.data());
        if (y) std::copy(h.begin(), h.end(), y + p.YOffset(t, d, b));
      }
      if (y) {
        for (int64_t t = length; t < p.seq; ++t) std::fill_n(y + p.YOffset(t, d, b), p.hidden, T(0));
      }
      if (y_h) std::copy(h.begin(), h.end(), y_h + state);
      if (y_c) std::copy(c.begin(), c.end(), y_c + state);
    }
  }

 private:
  // sequence_lens, each in [0, seq]; empty when absent (every row is full length).
  std::vector<int64_t> SequenceLengths(const KernelContext& ctx) const {
    if (kSequenceLens >= ctx.inputs.size() || ctx.inputs[kSequenceLens].data == nullptr) return {};
    std::vector<int64_t> lengths = ReadIndexTensor(label_, ctx.inputs[kSequenceLens], "sequence_lens");
    if (static_cast<int64_t>(lengths.size()) != plan_.batch) {
      throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: sequence_lens has {} entries for batch {}", label_,
                                                           lengths.size(), plan_.batch));
    }
    for (int64_t length : lengths) {
      if (length < 0 || length > plan_.seq) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("{}: sequence length {} is outside [0, {}]", label_, length, plan_.seq));
      }
    }
    return lengths;
  }

  std::string label_;
  RecurrentPlan plan_;
  Cell cell_;
};

template <typename Cell>
std::unique_ptr<Kernel> MakeRecurrent(const Node& node) {
  RecurrentPlan plan;
  const std::string& direction = node.attrs().GetString("direction");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("attribute 'direction' is '{}'; valid: forward, reverse, bidirectional", direction));
  }
  plan.directions = direction == "bidirectional" ? 2 : 1;
  plan.reverse = direction == "reverse";
  plan.batch_major = node.attrs().GetInt("layout") == 1;
  plan.clip = node.attrs().GetFloat("clip");
  plan.hidden = node.attrs().GetInt("hidden_size");
  const Shape& x = InputShape(node, kX);
  if (x.rank() != 3) Fail(node, ErrorCode::kInvalidArgument, fmt::format("x must be 3-D, got {}", x.ToString()));
  plan.seq = x.dim(plan.batch_major ? 1 : 0);
  plan.batch = x.dim(plan.batch_major ? 0 : 1);
  plan.input = x.dim(2);
  const int64_t gh = Cell::kGates * plan.hidden;
  auto require = [&](size_t i, std::vector<int64_t> dims, const char* what) {
    if (!HasInput(node, i)) return;
    if (InputShape(node, i).dims() != dims) {
      Fail(node, ErrorCode::kInvalidArgument, fmt::format("{} has shape {}, expected {}", what,
                                                          InputShape(node, i).ToString(), Shape(dims).ToString()));
    }
  };
  const std::vector<int64_t> state = plan.batch_major ? std::vector<int64_t>{plan.batch, plan.directions, plan.hidden}
                                                      : std::vector<int64_t>{plan.directions, plan.batch, plan.hidden};
  require(kW, {plan.directions, gh, plan.input}, "w");
  require(kR, {plan.directions, gh, plan.hidden}, "r");
  require(kB, {plan.directions, 2 * gh}, "b");
  require(kInitialH, state, "initial_h");
  if (Cell::kCellState) {
    require(kInitialC, state, "initial_c");
    require(kPeepholes, {plan.directions, 3 * plan.hidden}, "p");
  }
  plan.activations = ReadRecurrentActivations(node, Cell::Defaults(), plan.directions);
  return DispatchDtype(node, InputDtype(node, kX), HalfFloatTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    using T = typename decltype(tag)::type;
    if constexpr (kIsHalf<T>) {
      return std::make_unique<WidenedKernel<T>>(std::make_unique<RecurrentKernel<float, Cell>>(node, plan));
    } else {
      return std::make_unique<RecurrentKernel<T, Cell>>(node, plan);
    }
  });
}

}  // namespace

void RegisterRecurrentKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "CommonRNN", DataTypesOf(HalfFloatTypes{}), MakeRecurrent<RnnCell>);
  RegisterKernel(registry, "CommonGRU", DataTypesOf(HalfFloatTypes{}), MakeRecurrent<GruCell>);
  RegisterKernel(registry, "CommonLSTM", DataTypesOf(HalfFloatTypes{}), MakeRecurrent<LstmCell>);
}

}  // namespace ge::device::cpu
