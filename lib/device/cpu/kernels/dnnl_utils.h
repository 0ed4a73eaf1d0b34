// Shared plumbing of the oneDNN-backed kernels (convolution, matmul): one CPU
// engine for the process, primitives built at kernel-build time with a
// user-managed scratchpad (so Run() is thread-safe and the scratchpad is
// planned like any workspace), and oneDNN errors turned into ge::Error.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <dnnl.hpp>

#include "device/kernel.h"
#include "ge/error.h"
#include "ge/graph.h"

namespace ge::device::cpu {

const dnnl::engine& CpuEngine();

// The ISA oneDNN's kernels use (a dnnl_cpu_isa_t bit set), under
// ONEDNN_MAX_CPU_ISA and GE_MAX_CPU_ISA.
unsigned DnnlIsa();

// Attributes every primitive is built with (user scratchpad).
dnnl::primitive_attr DnnlAttributes();

dnnl::memory::dims ToDnnlDims(const std::vector<int64_t>& dims);

// A plain float32 memory descriptor with the given dims and element strides.
dnnl::memory::desc F32Desc(const dnnl::memory::dims& dims, const dnnl::memory::dims& strides);
// A float32 memory descriptor in the given format (format_tag::any lets the primitive choose).
dnnl::memory::desc F32Desc(const dnnl::memory::dims& dims, dnnl::memory::format_tag tag);

// A constant packed into the layout a primitive wants, and what keeps its
// bytes alive; kernels hold it and hand `memory` to oneDNN.
struct PackedConstant {
  dnnl::memory memory;
  std::shared_ptr<const Tensor> storage;  // null when the bytes are a loaded model's (prepacked_weights.h)

  operator const dnnl::memory&() const { return memory; }  // NOLINT: used where oneDNN takes memory
};

// A constant tensor reordered once into the layout the primitive wants. One
// packed copy serves every kernel that packs the same bytes into the same
// layout while any of them lives (the plans a dynamic model compiles per
// input shape, its node-by-node kernels); when this thread is offered a copy
// already packed in that layout (prepacked_weights.h), that copy in place
// (oneDNN only reads weights).
PackedConstant PackConstant(const Tensor& tensor, const dnnl::memory::desc& user_desc,
                            const dnnl::memory::desc& packed_desc);
// The same for a constant the kernel rewrote (user_data, in user_desc's
// layout); `tensor` is the constant it came from, which names a prepacked copy.
PackedConstant PackConstant(const Tensor& tensor, const void* user_data, const dnnl::memory::desc& user_desc,
                            const dnnl::memory::desc& packed_desc);

// Names a memory layout for PrepackedWeights: the descriptor's bytes, which
// oneDNN fills completely (dims, blocking, padding), so equal names mean the
// same layout on this build of the library.
std::string LayoutName(const dnnl::memory::desc& desc);
// The descriptor a LayoutName names.
dnnl::memory::desc DescOfLayout(const std::string& layout);

// The Kernel::PackedInput of a constant input packed by PackConstant.
Kernel::PackedInput DescribePacked(size_t input, const dnnl::memory& packed);

// Runs make() and reports a dnnl::error (an unsupported shape or attribute
// combination) as ge::Error(kUnsupported) naming the node.
template <typename Make>
auto BuildDnnl(const Node& node, Make&& make) -> decltype(make()) {
  try {
    return make();
  } catch (const dnnl::error& e) {
    throw Error(ErrorCode::kUnsupported, node.Describe() + ": oneDNN refused the primitive: " + e.what());
  }
}

// Executes the primitive on a fresh stream and waits. `scratchpad` is the
// kernel's workspace (may be null when the primitive needs none).
void ExecuteDnnl(const std::string& node_label, const dnnl::primitive& primitive,
                 std::unordered_map<int, dnnl::memory> args, const dnnl::memory::desc& scratchpad_desc,
                 void* scratchpad);

// A dnnl::memory over a kernel's buffer (oneDNN takes non-const pointers;
// inputs are only read).
inline dnnl::memory WrapBuffer(const dnnl::memory::desc& desc, const void* data) {
  return dnnl::memory(desc, CpuEngine(), const_cast<void*>(data));
}

}  // namespace ge::device::cpu
