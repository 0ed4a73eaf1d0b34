// FFN (mixture-of-experts feed-forward): the rows of x are grouped by
// expert, expert_tokens[e] rows for expert e, and each group runs
// h = act(x_e @ W1_e + b1_e), y_e = h @ W2_e + b2_e. Float weights and int8
// weights (per-column antiquant_scale/offset) are both expanded tile by tile
// (weight_tiled_matmul.h); h lives in the workspace as float32, as do the
// float32 copies of float16 x and y.
#include <fmt/format.h>
#include <omp.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "graph/ops/ffn_inputs.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "device/cpu/kernels/weight_tiled_matmul.h"

namespace ge::device::cpu {

namespace {

using namespace ffn;  // the input positions

// One of the two layers: which inputs it reads and its per-expert sizes.
struct Layer {
  size_t weight, bias, scale, offset;
  DataType dtype = DataType::kUndefined;
  int64_t k = 0, n = 0;
  bool has_bias = false, has_offset = false;

  // Expert e's weight, dequantized by its own scale/offset row.
  TiledWeight ForExpert(const KernelContext& ctx, int64_t e) const {
    const char* data = ctx.inputs[weight].as<const char>() + e * k * n * DataTypeSize(dtype);
    TiledWeight w{data, dtype, k, n, /*transposed=*/false};
    if (dtype == DataType::kInt8) {
      w.scale = ctx.inputs[scale].as<const float>() + e * n;
      w.offset = has_offset ? ctx.inputs[offset].as<const float>() + e * n : nullptr;
      w.per_column = true;
    }
    return w;
  }
  const float* BiasForExpert(const KernelContext& ctx, int64_t e) const {
    return has_bias ? ctx.inputs[bias].as<const float>() + e * n : nullptr;
  }
};

size_t Aligned(size_t bytes) { return (bytes + 63) / 64 * 64; }

template <typename X>
class FfnKernel final : public Kernel {
 public:
  FfnKernel(const Node& node, Layer first, Layer second, int64_t rows, int64_t experts, TileActivation act)
      : label_(node.Describe()),
        first_(first),
        second_(second),
        rows_(rows),
        experts_(experts),
        act_(act),
        threads_(omp_get_max_threads()),
        has_tokens_(HasInput(node, kExpertTokens)) {}

  size_t WorkspaceBytes() const override {
    return TileBytes() + Aligned(HiddenFloats() * sizeof(float)) + Aligned(CopyFloats() * sizeof(float));
  }

  void Run(const KernelContext& ctx) const override {
    const std::vector<int64_t> counts = RowsPerExpert(ctx);
    char* workspace = static_cast<char*>(ctx.workspace);
    float* hidden = reinterpret_cast<float*>(workspace + TileBytes());
    float* copies = hidden + Aligned(HiddenFloats() * sizeof(float)) / sizeof(float);
    const X* x_in = ctx.inputs[kX].as<const X>();
    const float* x = reinterpret_cast<const float*>(x_in);
    float* y = ctx.outputs[0].as<float>();
    if constexpr (!std::is_same_v<X, float>) {
      // float32 copies of x and (below) of y, one after the other.
      for (int64_t i = 0; i < rows_ * first_.k; ++i) copies[i] = Load(x_in[i]);
      x = copies;
      y = copies + rows_ * first_.k;
    }
    int64_t row = 0;
    for (int64_t e = 0; e < experts_; ++e) {
      WeightTiledMatMul(label_, x + row * first_.k, counts[e], first_.ForExpert(ctx, e), first_.BiasForExpert(ctx, e),
                        act_, hidden + row * first_.n, workspace, threads_);
      WeightTiledMatMul(label_, hidden + row * first_.n, counts[e], second_.ForExpert(ctx, e),
                        second_.BiasForExpert(ctx, e), TileActivation::kNone, y + row * second_.n, workspace, threads_);
      row += counts[e];
    }
    if constexpr (!std::is_same_v<X, float>) {
      X* out = ctx.outputs[0].as<X>();
      for (int64_t i = 0; i < rows_ * second_.n; ++i) out[i] = Store<X>(y[i]);
    }
  }

 private:
  size_t TileBytes() const { return WeightTileWorkspaceBytes(std::max(first_.k, second_.k), threads_); }
  int64_t HiddenFloats() const { return rows_ * first_.n; }
  int64_t CopyFloats() const { return std::is_same_v<X, float> ? 0 : rows_ * (first_.k + second_.n); }

  // expert_tokens, checked: non-negative counts summing to the rows of x.
  std::vector<int64_t> RowsPerExpert(const KernelContext& ctx) const {
    if (!has_tokens_) return {rows_};
    const int64_t* tokens = ctx.inputs[kExpertTokens].as<const int64_t>();
    std::vector<int64_t> counts(tokens, tokens + experts_);
    int64_t total = 0;
    for (int64_t c : counts) {
      if (c < 0) throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: expert_tokens holds {}", label_, c));
      total += c;
    }
    if (total != rows_) {
      throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: expert_tokens [{}] sum to {}, but x has M = {} rows",
                                                           label_, fmt::join(counts, ", "), total, rows_));
    }
    return counts;
  }

  std::string label_;
  Layer first_, second_;
  int64_t rows_, experts_;
  TileActivation act_;
  int threads_;
  bool has_tokens_;
};

// The weight [E, K, N] or [K, N] of a layer and its per-expert parameters ([E, N] or [N]).
Layer ReadLayer(const Node& node, Layer layer, const char* name, int64_t k, int64_t experts, DataType x_dtype) {
  const Shape& w = InputShape(node, layer.weight);
  const bool stacked = w.rank() == 3;
  if ((w.rank() != 2 && w.rank() != 3) || (stacked ? w.dim(0) : 1) != experts || w.dim(w.rank() - 2) != k) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("input '{}' {} must be [{}, {}, N] or (one expert) [{}, N]", name, w.ToString(), experts, k, k));
  }
  layer.dtype = InputDtype(node, layer.weight);
  if (layer.dtype != DataType::kInt8 && layer.dtype != x_dtype) {
    Fail(node, ErrorCode::kUnsupported,
         fmt::format("input '{}' is {}; valid: int8 or x's dtype {}", name, DataTypeName(layer.dtype),
                     DataTypeName(x_dtype)));
  }
  layer.k = k;
  layer.n = w.dim(w.rank() - 1);
  auto check_param = [&](size_t input, const char* what) {
    RequireInputDtype(node, input, {DataType::kFloat});
    const Shape& p = InputShape(node, input);
    const bool fits =
        stacked ? p.rank() == 2 && p.dim(0) == experts && p.dim(1) == layer.n : p.rank() == 1 && p.dim(0) == layer.n;
    if (!fits) {
      Fail(node, ErrorCode::kInvalidArgument,
           fmt::format("input '{}' {} must be {}", what, p.ToString(),
                       stacked ? fmt::format("[{}, {}]", experts, layer.n) : fmt::format("[{}]", layer.n)));
    }
  };
  layer.has_bias = HasInput(node, layer.bias);
  if (layer.has_bias) check_param(layer.bias, layer.bias == kBias1 ? "bias1" : "bias2");
  const char* scale_name = layer.scale == kAntiquantScale1 ? "antiquant_scale1" : "antiquant_scale2";
  const char* offset_name = layer.offset == kAntiquantOffset1 ? "antiquant_offset1" : "antiquant_offset2";
  layer.has_offset = HasInput(node, layer.offset);
  if (layer.dtype == DataType::kInt8) {
    if (!HasInput(node, layer.scale)) {
      Fail(node, ErrorCode::kInvalidArgument, fmt::format("int8 '{}' needs input '{}'", name, scale_name));
    }
    check_param(layer.scale, scale_name);
    if (layer.has_offset) check_param(layer.offset, offset_name);
  } else if (HasInput(node, layer.scale) || layer.has_offset) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("inputs '{}'/'{}' apply to int8 weights only; '{}' is {}", scale_name, offset_name, name,
                     DataTypeName(layer.dtype)));
  }
  return layer;
}

std::unique_ptr<Kernel> MakeFfn(const Node& node) {
  static constexpr std::pair<Input, const char*> kFullQuantization[] = {
      {kScale, "scale"}, {kOffset, "offset"}, {kDeqScale1, "deq_scale1"}, {kDeqScale2, "deq_scale2"}};
  for (const auto& [input, name] : kFullQuantization) {
    if (HasInput(node, input)) {
      Fail(node, ErrorCode::kUnsupported,
           fmt::format("input '{}' (full quantization) is not supported; use float weights or int8 weights with "
                       "antiquant_scale1/2",
                       name));
    }
  }
  bool known = false;
  const std::string& activation = node.attrs().GetString("activation");
  const TileActivation act = ParseTileActivation(activation, &known);
  if (!known) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("attribute 'activation' is '{}'; valid: fastgelu, gelu, relu, silu", activation));
  }
  const Shape& x = InputShape(node, kX);
  if (x.rank() != 2) Fail(node, ErrorCode::kInvalidArgument, fmt::format("x {} must be [M, K1]", x.ToString()));
  const Shape& w1 = InputShape(node, kWeight1);
  const int64_t experts = w1.rank() == 3 ? w1.dim(0) : 1;
  if (HasInput(node, kExpertTokens)) {
    RequireInputDtype(node, kExpertTokens, {DataType::kInt64});
    if (InputShape(node, kExpertTokens).NumElements() != experts) {
      Fail(node, ErrorCode::kInvalidArgument,
           fmt::format("expert_tokens {} must have one count per expert ({})",
                       InputShape(node, kExpertTokens).ToString(), experts));
    }
  } else if (experts != 1) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("weight1 {} holds {} experts; expert_tokens must say how many rows each takes", w1.ToString(),
                     experts));
  }
  const DataType x_dtype = InputDtype(node, kX);
  const Layer first = ReadLayer(node, Layer{kWeight1, kBias1, kAntiquantScale1, kAntiquantOffset1}, "weight1", x.dim(1),
                                experts, x_dtype);
  const Layer second = ReadLayer(node, Layer{kWeight2, kBias2, kAntiquantScale2, kAntiquantOffset2}, "weight2", first.n,
                                 experts, x_dtype);
  if (!(OutputShape(node, 0) == Shape({x.dim(0), second.n})) || node.output(0)->dtype() != x_dtype) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("y must be {} [{}, {}]", DataTypeName(x_dtype), x.dim(0), second.n));
  }
  return DispatchDtype(node, x_dtype, TypeList<float, _Float16>{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<FfnKernel<typename decltype(tag)::type>>(node, first, second, x.dim(0), experts, act);
  });
}

}  // namespace

void RegisterFfnKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "FFN", {DataType::kFloat, DataType::kFloat16}, MakeFfn);
}

}  // namespace ge::device::cpu
