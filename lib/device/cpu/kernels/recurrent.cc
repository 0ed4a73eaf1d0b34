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

// A dot product's partial sums, one per vector lane: 32 bytes, one AVX2
// register (two SSE ones). Not a full AVX-512 register: on rows as short as
// a gate's (a few hundred values) the final reductions cost as much as the
// multiply-adds, and 32-byte lanes cut one step off each (the LSTM of
// benchmarks/export_streaming.py ran 0.037 -> 0.030 ms).
template <typename T>
struct Lanes {
  static constexpr int64_t kCount = 32 / sizeof(T);
  T v[kCount] = {};

  // += a[l] * b[l] for the kCount values at a and b.
  [[gnu::always_inline]] void MultiplyAdd(const T* a, const T* b) {
#pragma omp simd
    for (int64_t l = 0; l < kCount; ++l) v[l] += a[l] * b[l];
  }
  // The sum of the lanes, halving them in turn (the order a vector
  // reduction takes; a scalar sum in lane order would be a chain of kCount
  // dependent adds).
  [[gnu::always_inline]] T Sum() {
#pragma GCC unroll 8
    for (int64_t width = kCount / 2; width > 0; width /= 2) {
#pragma omp simd
      for (int64_t l = 0; l < width; ++l) v[l] += v[l + width];
    }
    return v[0];
  }
};

// out[j * out_stride + r] = bias[r] + sum_c m[r, c] v[j * v_stride + c] for
// `count` vectors v_j: the rows of one gate block times one or more time
// steps. The sums run in vector lanes (reassociated): a streaming model's
// LSTM spends most of its time here, one short product per gate row and
// time step. Four rows at a time share the loads of v; the vectors are the
// inner loop, so each group of rows is read from memory once for all of
// them and then from L1 (the input projection of several steps reads W once
// instead of once per step).
template <typename T>
void MatVecs(const T* m, const T* v, int64_t v_stride, int64_t count, const T* bias, int64_t rows, int64_t cols,
             T* out, int64_t out_stride) {
  constexpr int64_t kLanes = Lanes<T>::kCount;
  const int64_t body = cols - cols % kLanes;
  for (int64_t r = 0; r < rows; r += 4) {
    const int64_t group = std::min<int64_t>(4, rows - r);
    const T* mr[4];  // a short last group repeats its last row
    for (int64_t k = 0; k < 4; ++k) mr[k] = m + (r + std::min(k, group - 1)) * cols;
    for (int64_t j = 0; j < count; ++j) {
      const T* vj = v + j * v_stride;
      Lanes<T> a0, a1, a2, a3;
      for (int64_t c = 0; c < body; c += kLanes) {
        a0.MultiplyAdd(mr[0] + c, vj + c);
        a1.MultiplyAdd(mr[1] + c, vj + c);
        a2.MultiplyAdd(mr[2] + c, vj + c);
        a3.MultiplyAdd(mr[3] + c, vj + c);
      }
      T sums[4] = {a0.Sum(), a1.Sum(), a2.Sum(), a3.Sum()};
      for (int64_t c = body; c < cols; ++c) {
        for (int64_t k = 0; k < 4; ++k) sums[k] += mr[k][c] * vj[c];
      }
      T* o = out + j * out_stride + r;
      for (int64_t k = 0; k < group; ++k) o[k] = (bias ? bias[r + k] : T(0)) + sums[k];
    }
  }
}

template <typename T>
void MatVec(const T* m, const T* v, const T* bias, int64_t rows, int64_t cols, T* out) {
  MatVecs(m, v, 0, 1, bias, rows, cols, out, 0);
}

// out[k] += in[k].
template <typename T>
void AddTo(const T* in, int64_t n, T* out) {
#pragma omp simd
  for (int64_t k = 0; k < n; ++k) out[k] = in[k] + out[k];
}

// f(clip(v)) in place over one gate's pre-activations: clipped when the node
// has a clip threshold.
template <typename T>
void Activate(const RecurrentPlan& plan, const RecurrentActivation& f, T* v, int64_t n) {
  if (plan.clip > 0) {
    const T c = static_cast<T>(plan.clip);
#pragma omp simd
    for (int64_t k = 0; k < n; ++k) v[k] = std::min(c, std::max(-c, v[k]));
  }
  f.Apply(v, n);
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

// Each cell's Step works gate by gate over whole arrays (a pass per gate
// rather than one per hidden unit) so its loops vectorize; `scratch` holds
// 4 * hidden values.

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
    AddTo(xw, hs, scratch);
    Activate(plan, dw.act[0], scratch, hs);
    std::copy(scratch, scratch + hs, h);
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
    T *z = scratch, *r = scratch + hs, *candidate = scratch + 2 * hs;
    T* reset_h = scratch + 3 * hs;  // r * h
    const T* rb = dw.rb;
    MatVec(dw.r, h, rb, 2 * hs, hs, z);  // z and r
    AddTo(xw, 2 * hs, z);
    Activate(plan, dw.act[0], z, 2 * hs);
    const T* rh = dw.r + 2 * hs * hs;
    const T* rbh = rb ? rb + 2 * hs : nullptr;
    if (linear_before_reset) {
      MatVec(rh, h, rbh, hs, hs, candidate);
#pragma omp simd
      for (int64_t u = 0; u < hs; ++u) candidate[u] *= r[u];
    } else {
#pragma omp simd
      for (int64_t u = 0; u < hs; ++u) reset_h[u] = r[u] * h[u];
      MatVec(rh, reset_h, rbh, hs, hs, candidate);
    }
    AddTo(xw + 2 * hs, hs, candidate);
    Activate(plan, dw.act[1], candidate, hs);
#pragma omp simd
    for (int64_t u = 0; u < hs; ++u) h[u] = (T(1) - z[u]) * candidate[u] + z[u] * h[u];
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
    T *i = scratch, *o = scratch + hs, *f = scratch + 2 * hs, *candidate = scratch + 3 * hs;
    MatVec(dw.r, h, dw.rb, 4 * hs, hs, scratch);
    AddTo(xw, 4 * hs, scratch);
    const T* p = dw.p;
    if (p) {
#pragma omp simd
      for (int64_t u = 0; u < hs; ++u) {
        i[u] += p[u] * c[u];
        f[u] += p[2 * hs + u] * c[u];
      }
    }
    Activate(plan, dw.act[0], i, hs);
    if (input_forget) {
#pragma omp simd
      for (int64_t u = 0; u < hs; ++u) f[u] = T(1) - i[u];
    } else {
      Activate(plan, dw.act[0], f, hs);
    }
    Activate(plan, dw.act[1], candidate, hs);
#pragma omp simd
    for (int64_t u = 0; u < hs; ++u) c[u] = f[u] * c[u] + i[u] * candidate[u];
    if (p) {
#pragma omp simd
      for (int64_t u = 0; u < hs; ++u) o[u] += p[hs + u] * c[u];
    }
    Activate(plan, dw.act[0], o, hs);
    T* cell_out = candidate;  // h(C), in the candidate's spent block
    std::copy(c, c + hs, cell_out);
    dw.act[2].Apply(cell_out, hs);
#pragma omp simd
    for (int64_t u = 0; u < hs; ++u) h[u] = o[u] * cell_out[u];
  }
};

// Steps whose input projections W x + Wb are computed together, reading W
// once for them all; the bound keeps that buffer small at any sequence length.
inline constexpr int64_t kProjectedSteps = 16;

// One (direction, batch row) pair's walk over its `length` steps, a block of
// up to kProjectedSteps at a time: their input projections into `xw`
// (room for min(kProjectedSteps, seq) steps of gates * hidden values), then
// the cell's steps through them.
template <typename T, typename Cell>
void RunSequence(const RecurrentPlan& p, const Cell& cell, const DirectionWeights<T>& dw, const T* x, int64_t d,
                 int64_t b, int64_t length, bool reverse, T* h, T* c, T* xw, T* scratch, T* y) {
  const int64_t gh = Cell::kGates * p.hidden;
  const int64_t x_stride = p.XOffset(1, b) - p.XOffset(0, b);  // between the rows of consecutive steps
  for (int64_t s0 = 0; s0 < length; s0 += kProjectedSteps) {
    const int64_t steps = std::min(kProjectedSteps, length - s0);
    // The block's time steps in ascending order start at t0 (from the end when reverse).
    const int64_t t0 = reverse ? length - s0 - steps : s0;
    MatVecs(dw.w, x + p.XOffset(t0, b), x_stride, steps, dw.wb, gh, p.input, xw, gh);
    for (int64_t s = 0; s < steps; ++s) {
      const int64_t k = reverse ? steps - 1 - s : s;  // the step's row in xw
      cell.Step(p, dw, xw + k * gh, h, c, scratch);
      if (y) std::copy(h, h + p.hidden, y + p.YOffset(t0 + k, d, b));
    }
  }
}

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
      // h, c, the cell's scratch and the block's input projections.
      std::vector<T> buffer((2 + 4) * p.hidden + std::min(kProjectedSteps, p.seq) * gh, T(0));
      T *h = buffer.data(), *c = h + p.hidden, *scratch = c + p.hidden, *xw = scratch + 4 * p.hidden;
      const int64_t state = p.StateOffset(d, b);
      if (initial_h) std::copy(initial_h + state, initial_h + state + p.hidden, h);
      if (initial_c) std::copy(initial_c + state, initial_c + state + p.hidden, c);
      const bool reverse = p.reverse || d == 1;
      const int64_t length = lengths.empty() ? p.seq : lengths[b];
      PerCpu<kClonesPay<T>>([&] { RunSequence(p, cell_, dw, x, d, b, length, reverse, h, c, xw, scratch, y); });
      if (y) {
        for (int64_t t = length; t < p.seq; ++t) std::fill_n(y + p.YOffset(t, d, b), p.hidden, T(0));
      }
      if (y_h) std::copy(h, h + p.hidden, y_h + state);
      if (y_c) std::copy(c, c + p.hidden, y_c + state);
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
