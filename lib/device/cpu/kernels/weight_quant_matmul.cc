// WeightQuantBatchMatmulV2, the weight-only int8 matmul: y [..., M, N] =
// x [..., M, K] @ ((weight + antiquant_offset) * antiquant_scale) + bias,
// scale/offset per output column. The int8 weight is expanded tile by tile
// (weight_tiled_matmul.h); float16 x and y pass through float32 copies.
#include <fmt/core.h>
#include <omp.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "device/cpu/kernels/weight_tiled_matmul.h"

namespace ge::device::cpu {

namespace {

enum Input : size_t { kX, kWeight, kScale, kOffset, kQuantScale, kQuantOffset, kBias };

struct Geometry {
  int64_t batch = 1, m = 0, k = 0, n = 0;
  bool transpose_x = false, transpose_weight = false, per_column = false, has_offset = false, has_bias = false;
};

// Bytes rounded up to the 64-byte alignment of workspace regions.
size_t Aligned(size_t bytes) { return (bytes + 63) / 64 * 64; }

template <typename X>
class WeightQuantMatMulKernel final : public Kernel {
 public:
  WeightQuantMatMulKernel(const Node& node, Geometry g)
      : label_(node.Describe()), g_(g), threads_(omp_get_max_threads()) {}

  size_t WorkspaceBytes() const override {
    return WeightTileWorkspaceBytes(g_.k, threads_) + Aligned(XCopyFloats() * sizeof(float)) +
           Aligned(YCopyFloats() * sizeof(float));
  }

  void Run(const KernelContext& ctx) const override {
    char* workspace = static_cast<char*>(ctx.workspace);
    float* x_copy = reinterpret_cast<float*>(workspace + WeightTileWorkspaceBytes(g_.k, threads_));
    float* y_copy = x_copy + Aligned(XCopyFloats() * sizeof(float)) / sizeof(float);
    const X* x = ctx.inputs[kX].as<const X>();
    const int64_t rows = g_.batch * g_.m;
    const float* x_rows = reinterpret_cast<const float*>(x);
    if (XCopyFloats() > 0) {
      // [rows, K] float32, un-transposed.
#pragma omp parallel for if (rows * g_.k > kParallelGrain)
      for (int64_t r = 0; r < rows; ++r) {
        const X* matrix = x + (r / g_.m) * g_.m * g_.k;
        const int64_t i = r % g_.m;
        for (int64_t l = 0; l < g_.k; ++l) {
          x_copy[r * g_.k + l] = Load(g_.transpose_x ? matrix[l * g_.m + i] : matrix[i * g_.k + l]);
        }
      }
      x_rows = x_copy;
    }
    TiledWeight w{ctx.inputs[kWeight].data,
                  DataType::kInt8,
                  g_.k,
                  g_.n,
                  g_.transpose_weight,
                  ctx.inputs[kScale].as<const float>(),
                  g_.has_offset ? ctx.inputs[kOffset].as<const float>() : nullptr,
                  g_.per_column};
    const float* bias = g_.has_bias ? ctx.inputs[kBias].as<const float>() : nullptr;
    float* y = YCopyFloats() > 0 ? y_copy : ctx.outputs[0].as<float>();
    WeightTiledMatMul(label_, x_rows, rows, w, bias, TileActivation::kNone, y, workspace, threads_);
    if (YCopyFloats() > 0) {
      X* out = ctx.outputs[0].as<X>();
      for (int64_t i = 0; i < rows * g_.n; ++i) out[i] = Store<X>(y[i]);
    }
  }

 private:
  // float32 copies are needed for float16 x (and y), or a transposed x.
  int64_t XCopyFloats() const { return std::is_same_v<X, float> && !g_.transpose_x ? 0 : g_.batch * g_.m * g_.k; }
  int64_t YCopyFloats() const { return std::is_same_v<X, float> ? 0 : g_.batch * g_.m * g_.n; }

  std::string label_;
  Geometry g_;
  int threads_;
};

void RequireParamShape(const Node& node, size_t input, const char* name, int64_t n, bool allow_one) {
  RequireInputDtype(node, input, {DataType::kFloat});
  const Shape& shape = InputShape(node, input);
  if (shape.rank() != 1 || !(shape.dim(0) == n || (allow_one && shape.dim(0) == 1))) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("input '{}' {} must be [{}]{}", name, shape.ToString(), n, allow_one ? " or [1]" : ""));
  }
}

std::unique_ptr<Kernel> MakeWeightQuantMatMul(const Node& node) {
  for (size_t input : {kQuantScale, kQuantOffset}) {
    if (HasInput(node, input)) {
      Fail(node, ErrorCode::kUnsupported,
           fmt::format("input '{}' (quantized output) is not supported",
                       input == kQuantScale ? "quant_scale" : "quant_offset"));
    }
  }
  if (node.attrs().GetInt("antiquant_group_size") != 0) {
    Fail(node, ErrorCode::kUnsupported,
         fmt::format("attribute 'antiquant_group_size' is {}; valid: 0", node.attrs().GetInt("antiquant_group_size")));
  }
  RequireInputDtype(node, kWeight, {DataType::kInt8});
  const Shape& x = InputShape(node, kX);
  const Shape& weight = InputShape(node, kWeight);
  if (x.rank() < 2 || weight.rank() != 2) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("x {} must be [..., M, K] and weight {} 2-D", x.ToString(), weight.ToString()));
  }
  Geometry g;
  g.transpose_x = node.attrs().GetBool("transpose_x");
  g.transpose_weight = node.attrs().GetBool("transpose_weight");
  const size_t rank = x.rank();
  g.batch = Product(std::span(x.dims()).first(rank - 2));
  g.m = x.dim(g.transpose_x ? rank - 1 : rank - 2);
  g.k = x.dim(g.transpose_x ? rank - 2 : rank - 1);
  g.n = weight.dim(g.transpose_weight ? 0 : 1);
  if (weight.dim(g.transpose_weight ? 1 : 0) != g.k || OutputShape(node, 0).NumElements() != g.batch * g.m * g.n ||
      node.output(0)->dtype() != InputDtype(node, kX)) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("x {} (transpose_x {}) and weight {} (transpose_weight {}) do not give y {} of x's dtype",
                     x.ToString(), g.transpose_x, weight.ToString(), g.transpose_weight,
                     OutputShape(node, 0).ToString()));
  }
  RequireParamShape(node, kScale, "antiquant_scale", g.n, true);
  g.per_column = InputShape(node, kScale).dim(0) == g.n && g.n != 1;
  g.has_offset = HasInput(node, kOffset);
  if (g.has_offset) {
    RequireParamShape(node, kOffset, "antiquant_offset", InputShape(node, kScale).dim(0), false);
  }
  g.has_bias = HasInput(node, kBias);
  if (g.has_bias) RequireParamShape(node, kBias, "bias", g.n, false);
  return DispatchDtype(node, InputDtype(node, kX), TypeList<float, _Float16>{},
                       [&](auto tag) -> std::unique_ptr<Kernel> {
                         return std::make_unique<WeightQuantMatMulKernel<typename decltype(tag)::type>>(node, g);
                       });
}

}  // namespace

void RegisterWeightQuantMatMulKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "WeightQuantBatchMatmulV2", {DataType::kFloat, DataType::kFloat16}, MakeWeightQuantMatMul);
}

}  // namespace ge::device::cpu
