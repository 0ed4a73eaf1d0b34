// MatMulInteger and QLinearMatMul: numpy matmul of zero-point-shifted 8-bit
// operands with exact int32 accumulation; QLinearMatMul then requantizes the
// sums to its output scale and zero point. A zero point (and a scale) is per
// tensor, per row of a ([M]) or per column of b ([N]).
#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "device/cpu/kernels/quantize_math.h"

namespace ge::device::cpu {

namespace {

// The output as batches of [m, n] matrices, each the product of one [m, k]
// matrix of a and one [k, n] matrix of b (batch dims broadcast).
struct MatMulPlan {
  int64_t m = 1, k = 1, n = 1;
  std::vector<int64_t> a_offsets, b_offsets;  // element offset of each batch's operand matrices

  int64_t output_elements() const { return static_cast<int64_t>(a_offsets.size()) * m * n; }
};

MatMulPlan PlanMatMul(const Node& node, const Shape& a_shape, const Shape& b_shape) {
  std::vector<int64_t> ad = a_shape.dims(), bd = b_shape.dims();
  if (ad.empty() || bd.empty()) Fail(node, ErrorCode::kInvalidArgument, "operands must have rank >= 1");
  if (ad.size() == 1) ad.insert(ad.begin(), 1);
  if (bd.size() == 1) bd.push_back(1);
  MatMulPlan plan;
  plan.m = ad[ad.size() - 2];
  plan.k = ad.back();
  plan.n = bd.back();
  if (bd[bd.size() - 2] != plan.k) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("contracted dims of {} and {} differ", a_shape.ToString(), b_shape.ToString()));
  }
  // Batch dims right-aligned; a broadcast dim (1 or missing) has stride 0.
  const size_t rank = std::max(ad.size(), bd.size()) - 2;
  auto batch_strides = [&](const std::vector<int64_t>& dims, int64_t matrix, std::vector<int64_t>& sizes) {
    std::vector<int64_t> strides(rank, 0);
    int64_t stride = matrix;
    for (size_t i = 0; i + 2 < dims.size(); ++i) {
      const size_t d = dims.size() - 3 - i, o = rank - 1 - i;
      if (dims[d] != 1) {
        if (sizes[o] != 1 && sizes[o] != dims[d]) {
          Fail(node, ErrorCode::kInvalidArgument,
               fmt::format("batch dims of {} and {} do not broadcast", a_shape.ToString(), b_shape.ToString()));
        }
        sizes[o] = dims[d];
        strides[o] = stride;
      }
      stride *= dims[d];
    }
    return strides;
  };
  std::vector<int64_t> sizes(rank, 1);
  const std::vector<int64_t> a_strides = batch_strides(ad, plan.m * plan.k, sizes);
  const std::vector<int64_t> b_strides = batch_strides(bd, plan.k * plan.n, sizes);
  const int64_t batches = Product(sizes);
  for (int64_t t = 0; t < batches; ++t) {
    int64_t rest = t, a_offset = 0, b_offset = 0;
    for (size_t i = rank; i-- > 0;) {
      const int64_t index = rest % sizes[i];
      rest /= sizes[i];
      a_offset += index * a_strides[i];
      b_offset += index * b_strides[i];
    }
    plan.a_offsets.push_back(a_offset);
    plan.b_offsets.push_back(b_offset);
  }
  return plan;
}

int64_t Pick(size_t size, int64_t index) { return size == 1 ? 0 : index; }

// y[b, i, j] = sum_p (a[b, i, p] - a_zp[i]) * (b[b, p, j] - b_zp[j]).
template <typename A, typename B>
void AccumulateMatMul(const MatMulPlan& plan, const A* a, const B* b, const std::vector<int32_t>& a_zp,
                      const std::vector<int32_t>& b_zp, int32_t* y) {
  const int64_t m = plan.m, k = plan.k, n = plan.n;
  const int64_t rows = static_cast<int64_t>(plan.a_offsets.size()) * m;
#pragma omp parallel for if (rows * n * k > kParallelGrain)
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t batch = row / m, i = row % m;
    const A* a_row = a + plan.a_offsets[batch] + i * k;
    const B* b_matrix = b + plan.b_offsets[batch];
    const int32_t a_zero = a_zp[Pick(a_zp.size(), i)];
    int32_t* out = y + row * n;
    std::fill(out, out + n, 0);
    for (int64_t p = 0; p < k; ++p) {
      const int32_t av = static_cast<int32_t>(a_row[p]) - a_zero;
      const B* b_row = b_matrix + p * n;
      for (int64_t j = 0; j < n; ++j) out[j] += av * (static_cast<int32_t>(b_row[j]) - b_zp[Pick(b_zp.size(), j)]);
    }
  }
}

template <typename A, typename B>
class MatMulIntegerKernel final : public Kernel {
 public:
  MatMulIntegerKernel(const Node& node, MatMulPlan plan) : label_(node.Describe()), plan_(std::move(plan)) {}

  void Run(const KernelContext& ctx) const override {
    AccumulateMatMul(plan_, ctx.inputs[0].as<const A>(), ctx.inputs[1].as<const B>(),
                     ReadInt32s(label_, OptionalInput(ctx, 2), "a_zero_point"),
                     ReadInt32s(label_, OptionalInput(ctx, 3), "b_zero_point"), ctx.outputs[0].as<int32_t>());
  }

 private:
  std::string label_;
  MatMulPlan plan_;
};

// Inputs a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
// y_zero_point. y = saturate(round(acc * a_scale * b_scale / y_scale) + y_zp),
// the multiplier computed in float32 as ONNX Runtime does.
template <typename A, typename B, typename Q>
class QLinearMatMulKernel final : public Kernel {
 public:
  QLinearMatMulKernel(const Node& node, MatMulPlan plan) : label_(node.Describe()), plan_(std::move(plan)) {}

  size_t WorkspaceBytes() const override { return plan_.output_elements() * sizeof(int32_t); }

  void Run(const KernelContext& ctx) const override {
    int32_t* acc = static_cast<int32_t*>(ctx.workspace);
    AccumulateMatMul(plan_, ctx.inputs[0].as<const A>(), ctx.inputs[3].as<const B>(),
                     ReadInt32s(label_, ctx.inputs[2], "a_zero_point"),
                     ReadInt32s(label_, ctx.inputs[5], "b_zero_point"), acc);
    const std::vector<float> a_scale = ReadScales(label_, ctx.inputs[1], "a_scale", false);
    const std::vector<float> b_scale = ReadScales(label_, ctx.inputs[4], "b_scale", false);
    const float y_scale = ReadScales(label_, ctx.inputs[6], "y_scale", true)[0];
    const int32_t y_zero = ReadInt32s(label_, ctx.inputs[7], "y_zero_point")[0];
    Q* y = ctx.outputs[0].as<Q>();
    const int64_t m = plan_.m, n = plan_.n, total = plan_.output_elements();
#pragma omp parallel for if (total > kParallelGrain)
    for (int64_t e = 0; e < total; ++e) {
      const int64_t i = (e / n) % m, j = e % n;
      const float multiplier = a_scale[Pick(a_scale.size(), i)] * b_scale[Pick(b_scale.size(), j)] / y_scale;
      y[e] = SaturateRound<Q>(std::nearbyint(static_cast<float>(acc[e]) * multiplier) + static_cast<float>(y_zero));
    }
  }

 private:
  std::string label_;
  MatMulPlan plan_;
};

std::unique_ptr<Kernel> MakeMatMulInteger(const Node& node) {
  MatMulPlan plan = PlanMatMul(node, InputShape(node, 0), InputShape(node, 1));
  CheckParamCount(node, 2, plan.m, "a_zero_point");
  CheckParamCount(node, 3, plan.n, "b_zero_point");
  return MakeInt8PairKernel<MatMulIntegerKernel>(node, 0, 1, plan);
}

std::unique_ptr<Kernel> MakeQLinearMatMul(const Node& node) {
  MatMulPlan plan = PlanMatMul(node, InputShape(node, 0), InputShape(node, 3));
  CheckParamCount(node, 1, plan.m, "a_scale");
  CheckParamCount(node, 2, plan.m, "a_zero_point");
  CheckParamCount(node, 4, plan.n, "b_scale");
  CheckParamCount(node, 5, plan.n, "b_zero_point");
  CheckParamCount(node, 6, 1, "y_scale");
  CheckParamCount(node, 7, 1, "y_zero_point");
  return MakeQLinearKernel<QLinearMatMulKernel>(node, 0, 3, plan);
}

}  // namespace

void RegisterIntegerMatMulKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "MatMulInteger", {DataType::kUInt8, DataType::kInt8}, MakeMatMulInteger);
  RegisterKernel(registry, "QLinearMatMul", {DataType::kUInt8, DataType::kInt8}, MakeQLinearMatMul);
}

}  // namespace ge::device::cpu
