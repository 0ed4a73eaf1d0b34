// The reduced-precision products of the cube ops (MatMulV2, BatchMatMulV2,
// Conv2D/Conv3D) in their high_performance and enable_hi_float_32_execution
// modes: the operands are rounded to bfloat16 and a oneDNN primitive
// multiplies them with float32 accumulation into a float32 result (AVX512-BF16
// dot products where the CPU has them). This is the CPU's stand-in for the
// HF32 of Ascend's cube units. float16 and bfloat16 tensors are widened to
// float32 first, so one kernel serves the three float dtypes.
//
// Where oneDNN has no bfloat16 kernel (CPUs without AVX512-BF16, or capped
// below it) the product is emulated: the operands are rounded to bfloat16
// values kept in float32, and the float32 primitive multiplies them. A
// product of two bfloat16 values is exact in float32, so both paths compute
// the same products, summed in float32; only the summation order may differ.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "device/cpu/kernels/dnnl_utils.h"
#include "device/kernel.h"
#include "ge/graph.h"

namespace ge::device::cpu {

// `user`'s dims with the given element type, the layout left to the primitive.
dnnl::memory::desc AnyLayout(const dnnl::memory::desc& user, dnnl::memory::data_type type);

// One input of the product: its index among the node's inputs and its
// layout as stored, described as float32.
struct ProductOperand {
  size_t input = 0;
  dnnl::memory::desc user;
};

// Builds a product with build(operand type): bfloat16 where oneDNN can, else
// float32 (the emulation above). A refusal of both is an error naming the node.
template <typename Build>
std::unique_ptr<Kernel> BuildBf16Product(const Node& node, Build&& build) {
  try {
    return build(dnnl::memory::data_type::bf16);
  } catch (const dnnl::error&) {
    // No bfloat16 kernel on this CPU: emulate.
  }
  return BuildDnnl(node, [&] { return build(dnnl::memory::data_type::f32); });
}

// True when this CPU's oneDNN multiplies bfloat16 natively (AVX512-BF16, as
// capped by ONEDNN_MAX_CPU_ISA / GE_MAX_CPU_ISA); else products are emulated.
bool NativeBf16Products();

class Bf16ProductKernel final : public Kernel {
 public:
  // pd was built with bfloat16 (or, emulating, float32) src and weights (in
  // their stored layouts or AnyLayout), a float32 bias as stored (bias->user)
  // and a float32 dst. A constant weights input is rounded and packed once, here.
  template <typename PrimitiveDesc, typename Primitive>
  Bf16ProductKernel(const Node& node, const PrimitiveDesc& pd, Primitive primitive, ProductOperand src,
                    ProductOperand weights, std::optional<ProductOperand> bias, dnnl::memory::desc dst_user)
      : label_(node.Describe()),
        primitive_(std::move(primitive)),
        src_(std::move(src)),
        weights_(std::move(weights)),
        bias_(std::move(bias)),
        dst_user_(std::move(dst_user)),
        src_packed_(pd.src_desc()),
        weights_packed_(pd.weights_desc()),
        dst_(pd.dst_desc()),
        scratchpad_(pd.scratchpad_desc()) {
    Prepare(node);
  }

  void Run(const KernelContext& ctx) const override;
  // The primitive's scratchpad, then this run's bfloat16 operands and float32
  // result where they need buffers of their own.
  size_t WorkspaceBytes() const override { return workspace_bytes_; }

 private:
  // Packs constant weights, builds the reorders and lays out the workspace.
  void Prepare(const Node& node);

  std::string label_;
  dnnl::primitive primitive_;
  ProductOperand src_, weights_;
  std::optional<ProductOperand> bias_;
  dnnl::memory::desc dst_user_;
  dnnl::memory::desc src_packed_, weights_packed_, dst_, scratchpad_;
  std::optional<dnnl::memory> packed_weights_;
  // float32 operands hold bfloat16 values: the kernel rounds them after each reorder.
  bool emulated_ = false;
  // float32 (as stored) -> bfloat16 (as the primitive wants), and the result back.
  dnnl::reorder src_reorder_, weights_reorder_, dst_reorder_;
  size_t src_offset_ = 0, weights_offset_ = 0, dst_offset_ = 0, workspace_bytes_ = 0;
};

}  // namespace ge::device::cpu
