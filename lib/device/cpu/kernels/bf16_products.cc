#include "device/cpu/kernels/bf16_products.h"

#include <vector>

#include <fmt/core.h>

#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/kernel_utils.h"

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

// Rounds a float32 operand, in whatever layout the primitive chose, to
// bfloat16 values (nearest even); padding zeros stay zero.
void RoundToBfloat16(const dnnl::memory& operand) {
  float* data = static_cast<float*>(operand.get_data_handle());
  const auto n = static_cast<int64_t>(operand.get_desc().get_size() / sizeof(float));
#pragma omp parallel for simd if (n > kParallelGrain)
  for (int64_t i = 0; i < n; ++i) data[i] = BFloat16ToFloat(FloatToBFloat16(data[i]));
}

}  // namespace

dnnl::memory::desc AnyLayout(const dnnl::memory::desc& user, dnnl::memory::data_type type) {
  return dnnl::memory::desc(user.dims(), type, dnnl::memory::format_tag::any);
}

namespace {

// Bytes rounded up to a 64-byte boundary (the workspace and its parts are 64-byte aligned).
size_t Aligned(size_t bytes) { return (bytes + 63) / 64 * 64; }

}  // namespace

bool NativeBf16Products() {
  const unsigned isa = DnnlIsa();
  return (isa & dnnl_cpu_isa_avx512_core_bf16) == dnnl_cpu_isa_avx512_core_bf16;
}

void Bf16ProductKernel::Prepare(const Node& node) {
  emulated_ = src_packed_.data_type() == dnnl::memory::data_type::f32;
  BuildDnnl(node, [&] {
    const dnnl::engine& engine = CpuEngine();
    src_reorder_ = dnnl::reorder(dnnl::reorder::primitive_desc(engine, src_.user, engine, src_packed_));
    weights_reorder_ = dnnl::reorder(dnnl::reorder::primitive_desc(engine, weights_.user, engine, weights_packed_));
    dst_reorder_ = dnnl::reorder(dnnl::reorder::primitive_desc(engine, dst_, engine, dst_user_));
    if (const Tensor* constant = node.input(weights_.input)->constant()) {
      std::vector<std::vector<float>> copies;
      const void* data = AsFloat(constant->dtype(), constant->data(), constant->shape().NumElements(), copies);
      packed_weights_.emplace(weights_packed_, engine);
      Reorder(WrapBuffer(weights_.user, data), *packed_weights_);
      if (emulated_) RoundToBfloat16(*packed_weights_);
    }
    return 0;
  });
  size_t offset = Aligned(scratchpad_.get_size());
  src_offset_ = offset;
  offset += Aligned(src_packed_.get_size());
  weights_offset_ = offset;
  if (!packed_weights_) offset += Aligned(weights_packed_.get_size());
  dst_offset_ = offset;
  workspace_bytes_ = offset + Aligned(dst_.get_size());
}

void Bf16ProductKernel::Run(const KernelContext& ctx) const {
  std::vector<std::vector<float>> copies;
  auto input = [&](const ProductOperand& operand) {
    const TensorView& view = ctx.inputs[operand.input];
    return WrapBuffer(operand.user, AsFloat(view.dtype, view.data, view.num_elements(), copies));
  };
  // This run's buffers are in the workspace (Run may be called from several
  // threads at once, each with its own workspace).
  char* workspace = static_cast<char*>(ctx.workspace);
  const TensorView& out = ctx.outputs[0];
  try {
    dnnl::stream stream(CpuEngine());
    dnnl::memory src = WrapBuffer(src_packed_, workspace + src_offset_);
    dnnl::memory src_user = input(src_);
    src_reorder_.execute(stream, src_user, src);
    dnnl::memory weights = packed_weights_ ? *packed_weights_ : WrapBuffer(weights_packed_, workspace + weights_offset_);
    if (!packed_weights_) {
      dnnl::memory weights_user = input(weights_);
      weights_reorder_.execute(stream, weights_user, weights);
    }
    stream.wait();
    if (emulated_) {
      RoundToBfloat16(src);
      if (!packed_weights_) RoundToBfloat16(weights);
    }
    // A float32 output in the primitive's own layout is written in place.
    const bool direct = out.dtype == DataType::kFloat && dst_ == dst_user_;
    dnnl::memory dst = WrapBuffer(dst_, direct ? out.data : workspace + dst_offset_);
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
    if (bias_) args.emplace(DNNL_ARG_BIAS, input(*bias_));
    ExecuteDnnl(label_, primitive_, std::move(args), scratchpad_, ctx.workspace);
    if (direct) return;
    std::vector<float> result(out.dtype == DataType::kFloat ? 0 : static_cast<size_t>(out.num_elements()));
    dnnl::memory result_user = WrapBuffer(dst_user_, out.dtype == DataType::kFloat ? out.data : result.data());
    dst_reorder_.execute(stream, dst, result_user);
    stream.wait();
    if (out.dtype == DataType::kFloat16) {
      for (int64_t i = 0; i < out.num_elements(); ++i) out.as<_Float16>()[i] = Store<_Float16>(result[i]);
    } else if (out.dtype == DataType::kBFloat16) {
      for (int64_t i = 0; i < out.num_elements(); ++i) out.as<BFloat16>()[i] = Store<BFloat16>(result[i]);
    }
  } catch (const dnnl::error& e) {
    throw Error(ErrorCode::kInternal, fmt::format("{}: oneDNN bfloat16 product failed: {}", label_, e.what()));
  }
}

}  // namespace ge::device::cpu
