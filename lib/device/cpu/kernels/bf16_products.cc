#include "device/cpu/kernels/bf16_products.h"

#include <vector>

#include <fmt/format.h>

#include "device/cpu/kernels/element_types.h"

namespace ge::device::cpu {

namespace {

// A float32 copy of a float16/bfloat16 tensor's elements.
std::vector<float> WidenToFloat(DataType dtype, const void* data, int64_t n) {
  if (dtype == DataType::kFloat16) return Widened(static_cast<const _Float16*>(data), n);
  return Widened(static_cast<const BFloat16*>(data), n);
}

// The elements of a float tensor as float32: in place for float32, else a
// copy kept in `copies` for the rest of the run.
const void* AsFloat(DataType dtype, const void* data, int64_t n, std::vector<std::vector<float>>& copies) {
  if (dtype == DataType::kFloat) return data;
  return copies.emplace_back(WidenToFloat(dtype, data, n)).data();
}

void Reorder(dnnl::memory from, dnnl::memory to) {
  dnnl::stream stream(CpuEngine());
  dnnl::reorder(from, to).execute(stream, from, to);
  stream.wait();
}

}  // namespace

dnnl::memory::desc AnyLayout(const dnnl::memory::desc& user, dnnl::memory::data_type type) {
  return dnnl::memory::desc(user.dims(), type, dnnl::memory::format_tag::any);
}

void Bf16ProductKernel::PackConstantWeights(const Node& node) {
  const Tensor* constant = node.input(weights_.input)->constant();
  if (constant == nullptr) return;
  std::vector<std::vector<float>> copies;
  const void* data = AsFloat(constant->dtype(), constant->data(), constant->shape().NumElements(), copies);
  packed_weights_.emplace(weights_packed_, CpuEngine());
  BuildDnnl(node, [&] {
    Reorder(WrapBuffer(weights_.user, data), *packed_weights_);
    return 0;
  });
}

void Bf16ProductKernel::Run(const KernelContext& ctx) const {
  std::vector<std::vector<float>> copies;
  auto input = [&](const ProductOperand& operand) {
    const TensorView& view = ctx.inputs[operand.input];
    return WrapBuffer(operand.user, AsFloat(view.dtype, view.data, view.num_elements(), copies));
  };
  const TensorView& out = ctx.outputs[0];
  try {
    // The bfloat16 operands and the primitive's result live for this run only
    // (Run may be called from several threads at once).
    dnnl::memory src(src_packed_, CpuEngine());
    Reorder(input(src_), src);
    std::optional<dnnl::memory> weights = packed_weights_;
    if (!weights) {
      weights.emplace(weights_packed_, CpuEngine());
      Reorder(input(weights_), *weights);
    }
    // A float32 output in the primitive's own layout is written in place.
    const bool direct = out.dtype == DataType::kFloat && dst_ == dst_user_;
    dnnl::memory dst = direct ? WrapBuffer(dst_user_, out.data) : dnnl::memory(dst_, CpuEngine());
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, *weights}, {DNNL_ARG_DST, dst}};
    if (bias_) args.emplace(DNNL_ARG_BIAS, input(*bias_));
    ExecuteDnnl(label_, primitive_, std::move(args), scratchpad_, ctx.workspace);
    if (direct) return;
    if (out.dtype == DataType::kFloat) {
      Reorder(dst, WrapBuffer(dst_user_, out.data));
      return;
    }
    std::vector<float> result(static_cast<size_t>(out.num_elements()));
    Reorder(dst, WrapBuffer(dst_user_, result.data()));
    if (out.dtype == DataType::kFloat16) {
      for (int64_t i = 0; i < out.num_elements(); ++i) out.as<_Float16>()[i] = Store<_Float16>(result[i]);
    } else {
      for (int64_t i = 0; i < out.num_elements(); ++i) out.as<BFloat16>()[i] = Store<BFloat16>(result[i]);
    }
  } catch (const dnnl::error& e) {
    throw Error(ErrorCode::kInternal, fmt::format("{}: oneDNN bfloat16 product failed: {}", label_, e.what()));
  }
}

}  // namespace ge::device::cpu
