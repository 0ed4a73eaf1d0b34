// CommonRNN, CommonGRU and CommonLSTM against a float64 transcription of the
// ONNX equations.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

#include "ge/error.h"
#include "graph/op_schema.h"
#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

struct RecurrentCase {
  std::string op;  // CommonRNN, CommonGRU, CommonLSTM
  int64_t seq = 4, batch = 3, input = 5, hidden = 3;
  std::string direction = "forward";
  bool bias = true, seq_lens = false, initial = false, peepholes = false;
  int64_t layout = 0;
  int64_t linear_before_reset = 0, input_forget = 0;
  float clip = 0.0f;
  std::vector<std::string> activations;  // empty: the op's defaults
  std::vector<float> alpha, beta;
  DataType dtype = DataType::kFloat;

  int64_t gates() const { return op == "CommonRNN" ? 1 : op == "CommonGRU" ? 3 : 4; }
  int64_t dirs() const { return direction == "bidirectional" ? 2 : 1; }
  bool lstm() const { return op == "CommonLSTM"; }
};

using Fn = std::function<double(double)>;

// The ONNX activation functions, alpha/beta taken in order by those that have them.
std::vector<Fn> Activations(const RecurrentCase& c) {
  std::vector<std::string> names = c.activations;
  if (names.empty()) {
    const std::vector<std::string> defaults = c.op == "CommonRNN"   ? std::vector<std::string>{"Tanh"}
                                              : c.op == "CommonGRU" ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                                    : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
    for (int64_t d = 0; d < c.dirs(); ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  }
  size_t ai = 0, bi = 0;
  auto next_alpha = [&](double fallback) { return ai < c.alpha.size() ? double(c.alpha[ai++]) : fallback; };
  auto next_beta = [&](double fallback) { return bi < c.beta.size() ? double(c.beta[bi++]) : fallback; };
  std::vector<Fn> fns;
  for (const std::string& n : names) {
    if (n == "Tanh") fns.push_back([](double x) { return std::tanh(x); });
    else if (n == "Sigmoid") fns.push_back([](double x) { return 1 / (1 + std::exp(-x)); });
    else if (n == "Relu") fns.push_back([](double x) { return std::max(0.0, x); });
    else if (n == "LeakyRelu") { double a = next_alpha(0.01); fns.push_back([a](double x) { return x < 0 ? a * x : x; }); }
    else if (n == "HardSigmoid") {
      double a = next_alpha(0.2), b = next_beta(0.5);
      fns.push_back([a, b](double x) { return std::clamp(a * x + b, 0.0, 1.0); });
    } else if (n == "ScaledTanh") {
      double a = next_alpha(1.0), b = next_beta(1.0);
      fns.push_back([a, b](double x) { return a * std::tanh(b * x); });
    } else if (n == "Affine") {
      double a = next_alpha(1.0), b = next_beta(0.0);
      fns.push_back([a, b](double x) { return a * x + b; });
    } else if (n == "Elu") { double a = next_alpha(1.0); fns.push_back([a](double x) { return x < 0 ? a * (std::exp(x) - 1) : x; }); }
    else if (n == "Softsign") fns.push_back([](double x) { return x / (1 + std::abs(x)); });
    else if (n == "Softplus") fns.push_back([](double x) { return std::log(1 + std::exp(x)); });
    else if (n == "ThresholdedRelu") { double a = next_alpha(1.0); fns.push_back([a](double x) { return x > a ? x : 0.0; }); }
    else FAIL("unknown activation " << n);
  }
  return fns;
}

struct Expected {
  std::vector<double> y, y_h, y_c;  // layout 0
};

// Inputs in layout 0 (as doubles): x [seq, batch, input], w, r, b, lens, h0, c0 [dirs, batch, hidden], p.
Expected Reference(const RecurrentCase& c, const std::vector<double>& x, const std::vector<double>& w,
                   const std::vector<double>& r, const std::vector<double>& b, const std::vector<double>& lens,
                   const std::vector<double>& h0, const std::vector<double>& c0, const std::vector<double>& p) {
  const int64_t H = c.hidden, I = c.input, G = c.gates(), D = c.dirs();
  const auto fns = Activations(c);
  const size_t per_dir = fns.size() / D;
  auto clip = [&](double v) { return c.clip > 0 ? std::clamp(v, -double(c.clip), double(c.clip)) : v; };
  Expected e;
  e.y.assign(c.seq * D * c.batch * H, 0.0);
  e.y_h.assign(D * c.batch * H, 0.0);
  e.y_c.assign(D * c.batch * H, 0.0);
  for (int64_t d = 0; d < D; ++d) {
    const Fn& f = fns[d * per_dir];
    const Fn& g = per_dir > 1 ? fns[d * per_dir + 1] : f;
    const Fn& hf = per_dir > 2 ? fns[d * per_dir + 2] : f;
    // W row (gate, unit) times x_t, R row times h, the two biases.
    auto wx = [&](int64_t gate, int64_t u, const double* xt) {
      double s = b.empty() ? 0 : b[d * 2 * G * H + gate * H + u];
      for (int64_t i = 0; i < I; ++i) s += w[(d * G * H + gate * H + u) * I + i] * xt[i];
      return s;
    };
    auto rh = [&](int64_t gate, int64_t u, const std::vector<double>& h) {
      double s = b.empty() ? 0 : b[d * 2 * G * H + G * H + gate * H + u];
      for (int64_t j = 0; j < H; ++j) s += r[(d * G * H + gate * H + u) * H + j] * h[j];
      return s;
    };
    auto rh_nobias = [&](int64_t gate, int64_t u, const std::vector<double>& h) {
      double s = 0;
      for (int64_t j = 0; j < H; ++j) s += r[(d * G * H + gate * H + u) * H + j] * h[j];
      return s;
    };
    const bool reverse = c.direction == "reverse" || d == 1;
    for (int64_t bt = 0; bt < c.batch; ++bt) {
      std::vector<double> h(H, 0.0), cs(H, 0.0);
      for (int64_t u = 0; u < H; ++u) {
        if (!h0.empty()) h[u] = h0[(d * c.batch + bt) * H + u];
        if (!c0.empty()) cs[u] = c0[(d * c.batch + bt) * H + u];
      }
      const int64_t len = lens.empty() ? c.seq : int64_t(lens[bt]);
      for (int64_t s = 0; s < len; ++s) {
        const int64_t t = reverse ? len - 1 - s : s;
        const double* xt = &x[(t * c.batch + bt) * I];
        std::vector<double> nh(H), nc(H);
        for (int64_t u = 0; u < H; ++u) {
          if (c.op == "CommonRNN") {
            nh[u] = f(clip(wx(0, u, xt) + rh(0, u, h)));
          } else if (c.op == "CommonGRU") {
            const double z = f(clip(wx(0, u, xt) + rh(0, u, h)));
            std::vector<double> rg(H);
            for (int64_t v = 0; v < H; ++v) rg[v] = f(clip(wx(1, v, xt) + rh(1, v, h)));
            double pre;
            const double rbh = b.empty() ? 0 : b[d * 2 * G * H + G * H + 2 * H + u];
            if (c.linear_before_reset) {
              pre = wx(2, u, xt) + rg[u] * (rh_nobias(2, u, h) + rbh);
            } else {
              std::vector<double> rhv(H);
              for (int64_t v = 0; v < H; ++v) rhv[v] = rg[v] * h[v];
              pre = wx(2, u, xt) + rh_nobias(2, u, rhv) + rbh;
            }
            const double hh = g(clip(pre));
            nh[u] = (1 - z) * hh + z * h[u];
          } else {
            const double pi = p.empty() ? 0 : p[d * 3 * H + u], po = p.empty() ? 0 : p[d * 3 * H + H + u],
                         pf = p.empty() ? 0 : p[d * 3 * H + 2 * H + u];
            const double i = f(clip(wx(0, u, xt) + rh(0, u, h) + pi * cs[u]));
            const double fg = c.input_forget ? 1 - i : f(clip(wx(2, u, xt) + rh(2, u, h) + pf * cs[u]));
            const double ct = g(clip(wx(3, u, xt) + rh(3, u, h)));
            nc[u] = fg * cs[u] + i * ct;
            const double o = f(clip(wx(1, u, xt) + rh(1, u, h) + po * nc[u]));
            nh[u] = o * hf(nc[u]);
          }
        }
        h = nh;
        if (c.lstm()) cs = nc;
        for (int64_t u = 0; u < H; ++u) e.y[((t * D + d) * c.batch + bt) * H + u] = h[u];
      }
      for (int64_t u = 0; u < H; ++u) {
        e.y_h[(d * c.batch + bt) * H + u] = h[u];
        e.y_c[(d * c.batch + bt) * H + u] = cs[u];
      }
    }
  }
  return e;
}

// Swaps the first two dims of a row-major [a, b, rest] array.
std::vector<double> SwapLeading(const std::vector<double>& v, int64_t a, int64_t b, int64_t rest) {
  std::vector<double> out(v.size());
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      for (int64_t k = 0; k < rest; ++k) out[(j * a + i) * rest + k] = v[(i * b + j) * rest + k];
  return out;
}

void CheckRecurrent(const RecurrentCase& c, std::mt19937& rng) {
  const int64_t D = c.dirs(), G = c.gates(), H = c.hidden;
  const bool l1 = c.layout == 1;
  const Shape x_shape = l1 ? Shape{c.batch, c.seq, c.input} : Shape{c.seq, c.batch, c.input};
  const Shape state_shape = l1 ? Shape{c.batch, D, H} : Shape{D, c.batch, H};
  Tensor x = RandomTensor(c.dtype, x_shape, rng);
  Tensor w = RandomTensor(c.dtype, {D, G * H, c.input}, rng, -0.7, 0.7);
  Tensor r = RandomTensor(c.dtype, {D, G * H, H}, rng, -0.7, 0.7);
  Tensor b = RandomTensor(c.dtype, {D, 2 * G * H}, rng, -0.5, 0.5);
  std::vector<int32_t> len_values;
  for (int64_t i = 0; i < c.batch; ++i) len_values.push_back(static_cast<int32_t>((c.seq - i) > 0 ? c.seq - i : 0));
  Tensor lens = Tensor::FromVector(DataType::kInt32, {c.batch}, len_values);
  Tensor h0 = RandomTensor(c.dtype, state_shape, rng);
  Tensor c0 = RandomTensor(c.dtype, state_shape, rng);
  Tensor p = RandomTensor(c.dtype, {D, 3 * H}, rng, -0.5, 0.5);

  auto to_layout0 = [&](const Tensor& t, int64_t a, int64_t bdim, int64_t rest) {
    return l1 ? SwapLeading(ToDoubles(t), a, bdim, rest) : ToDoubles(t);
  };
  const Expected e = Reference(c, to_layout0(x, c.batch, c.seq, c.input), ToDoubles(w), ToDoubles(r),
                               c.bias ? ToDoubles(b) : std::vector<double>{},
                               c.seq_lens ? ToDoubles(lens) : std::vector<double>{},
                               c.initial ? to_layout0(h0, c.batch, D, H) : std::vector<double>{},
                               c.initial && c.lstm() ? to_layout0(c0, c.batch, D, H) : std::vector<double>{},
                               c.peepholes ? ToDoubles(p) : std::vector<double>{});

  Graph g;
  std::vector<Value*> inputs = {g.AddInput("x", c.dtype, x_shape), g.AddConstant("w", w), g.AddConstant("r", r),
                                c.bias ? g.AddConstant("b", b) : nullptr,
                                c.seq_lens ? g.AddInput("lens", DataType::kInt32, {c.batch}) : nullptr,
                                c.initial ? g.AddInput("h0", c.dtype, state_shape) : nullptr};
  if (c.lstm()) {
    inputs.push_back(c.initial ? g.AddConstant("c0", c0) : nullptr);
    inputs.push_back(c.peepholes ? g.AddConstant("p", p) : nullptr);
  }
  Node* node = g.AddNode(c.op, "cell", inputs, c.lstm() ? 3 : 2);
  node->attrs().Set("hidden_size", H);
  node->attrs().Set("direction", c.direction);
  node->attrs().Set("layout", c.layout);
  node->attrs().Set("clip", c.clip);
  node->attrs().Set("activations", c.activations);
  node->attrs().Set("activation_alpha", c.alpha);
  node->attrs().Set("activation_beta", c.beta);
  if (c.op == "CommonGRU") node->attrs().Set("linear_before_reset", c.linear_before_reset);
  if (c.lstm()) node->attrs().Set("input_forget", c.input_forget);
  OpRegistry::Global().Find(c.op)->NormalizeAttrs(*node);
  SetOutput(node, 0, c.dtype, l1 ? Shape{c.batch, c.seq, D, H} : Shape{c.seq, D, c.batch, H});
  SetOutput(node, 1, c.dtype, state_shape);
  if (c.lstm()) SetOutput(node, 2, c.dtype, state_shape);

  const std::vector<Tensor> out = RunCpuKernel(*node, {x, Tensor(), Tensor(), Tensor(), lens, h0});
  INFO(c.op << " " << c.direction << " layout " << c.layout << " seq_lens " << c.seq_lens << " initial "
            << c.initial << " " << DataTypeName(c.dtype));
  // Y is [seq, dirs, batch, H] in layout 0 and [batch, seq, dirs, H] in layout 1.
  std::vector<double> y_expected = e.y;
  if (l1) {
    y_expected.clear();
    for (int64_t bt = 0; bt < c.batch; ++bt)
      for (int64_t t = 0; t < c.seq; ++t)
        for (int64_t d = 0; d < D; ++d)
          for (int64_t u = 0; u < H; ++u) y_expected.push_back(e.y[((t * D + d) * c.batch + bt) * H + u]);
  }
  const double tol = c.dtype == DataType::kFloat ? 1e-5 : 1e-12;
  CheckClose(out[0], y_expected, tol, tol);
  CheckClose(out[1], l1 ? SwapLeading(e.y_h, D, c.batch, H) : e.y_h, tol, tol);
  if (c.lstm()) CheckClose(out[2], l1 ? SwapLeading(e.y_c, D, c.batch, H) : e.y_c, tol, tol);
}

}  // namespace

TEST_CASE("CommonRNN: directions, activations with alpha, sequence lengths, layouts", "[device][rnn]") {
  std::mt19937 rng(51);
  RecurrentCase c{.op = "CommonRNN"};
  CheckRecurrent(c, rng);
  c.direction = "bidirectional";
  c.seq_lens = c.initial = true;
  c.activations = {"LeakyRelu", "ScaledTanh"};
  c.alpha = {0.2f, 0.8f};
  c.beta = {1.5f};
  CheckRecurrent(c, rng);
  c.direction = "reverse";
  c.activations = {"Relu"};
  c.alpha = c.beta = {};
  c.layout = 1;
  c.dtype = DataType::kDouble;
  c.bias = false;
  CheckRecurrent(c, rng);
}

TEST_CASE("CommonGRU: linear_before_reset, clip, reverse and bidirectional", "[device][rnn]") {
  std::mt19937 rng(52);
  for (int64_t lbr : {0, 1}) {
    RecurrentCase c{.op = "CommonGRU"};
    c.linear_before_reset = lbr;
    CheckRecurrent(c, rng);
    c.direction = "bidirectional";
    c.seq_lens = c.initial = true;
    c.clip = 0.6f;
    CheckRecurrent(c, rng);
    c.direction = "reverse";
    c.layout = 1;
    c.dtype = DataType::kDouble;
    c.activations = {"HardSigmoid", "Softsign"};
    c.alpha = {0.3f};
    CheckRecurrent(c, rng);
  }
}

TEST_CASE("CommonLSTM: peepholes, initial states, input_forget, sequence lengths", "[device][rnn]") {
  std::mt19937 rng(53);
  RecurrentCase c{.op = "CommonLSTM"};
  CheckRecurrent(c, rng);
  c.peepholes = c.initial = c.seq_lens = true;
  c.direction = "bidirectional";
  CheckRecurrent(c, rng);
  c.input_forget = 1;
  c.layout = 1;
  c.dtype = DataType::kDouble;
  c.activations = {"Sigmoid", "Elu", "Softplus", "HardSigmoid", "Tanh", "Affine"};
  c.alpha = {1.1f, 0.25f, 0.5f};
  c.beta = {0.4f, 0.1f};
  c.clip = 2.0f;
  CheckRecurrent(c, rng);
}

TEST_CASE("recurrent ops reject bad activations and sequence lengths naming the node", "[device][rnn]") {
  Graph g;
  Node* node = g.AddNode("CommonRNN", "rnn1",
                         {g.AddInput("x", DataType::kFloat, {2, 1, 3}), g.AddInput("w", DataType::kFloat, {1, 4, 3}),
                          g.AddInput("r", DataType::kFloat, {1, 4, 4}), nullptr,
                          g.AddInput("lens", DataType::kInt32, {1})},
                         2);
  node->attrs().Set("hidden_size", int64_t{4});
  node->attrs().Set("activations", std::vector<std::string>{"Swish"});
  OpRegistry::Global().Find("CommonRNN")->NormalizeAttrs(*node);
  SetOutput(node, 0, DataType::kFloat, {2, 1, 1, 4});
  SetOutput(node, 1, DataType::kFloat, {1, 1, 4});
  REQUIRE_THROWS_WITH(CreateCpuKernel(*node), Catch::Contains("rnn1") && Catch::Contains("Swish"));
  node->attrs().Set("activations", std::vector<std::string>{"Tanh"});
  std::mt19937 rng(1);
  Tensor lens = Tensor::FromVector<int32_t>(DataType::kInt32, {1}, {3});
  REQUIRE_THROWS_WITH(RunCpuKernel(*node, {RandomTensor(DataType::kFloat, {2, 1, 3}, rng),
                                           RandomTensor(DataType::kFloat, {1, 4, 3}, rng),
                                           RandomTensor(DataType::kFloat, {1, 4, 4}, rng), Tensor(), lens}),
                      Catch::Contains("rnn1") && Catch::Contains("sequence length 3"));
}
