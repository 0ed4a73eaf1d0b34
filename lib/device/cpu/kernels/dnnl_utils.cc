#include "device/cpu/kernels/dnnl_utils.h"

#include "device/cpu/cpu_isa.h"
#include "device/prepacked_weights.h"

#include <sys/mman.h>

#include <cstdint>

#include <fmt/core.h>

namespace ge::device::cpu {
namespace {

// Packed weights are written once, right after allocation: on 2 MiB pages a
// model's weights cost a few dozen page faults instead of thousands, which is
// a good part of loading a .gem. Only the 2 MiB-aligned interior qualifies;
// where transparent huge pages are off the advice is ignored.
void AdviseHugePages(void* data, size_t bytes) {
  constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kHugePage - 1) / kHugePage * kHugePage;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) / kHugePage * kHugePage;
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace

const dnnl::engine& CpuEngine() {
  // GE_MAX_CPU_ISA is checked (a bad value fails every model's compile, the
  // engine not being made) and applied before oneDNN chooses its kernels.
  static const dnnl::engine engine = [] {
    CheckCpuIsaCap();
    CapDnnlIsa();
    return dnnl::engine(dnnl::engine::kind::cpu, 0);
  }();
  return engine;
}

unsigned DnnlIsa() {
  CpuEngine();
  return static_cast<unsigned>(dnnl::get_effective_cpu_isa());
}

dnnl::primitive_attr DnnlAttributes() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

dnnl::memory::dims ToDnnlDims(const std::vector<int64_t>& dims) { return dnnl::memory::dims(dims.begin(), dims.end()); }

dnnl::memory::desc F32Desc(const dnnl::memory::dims& dims, const dnnl::memory::dims& strides) {
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

dnnl::memory::desc F32Desc(const dnnl::memory::dims& dims, dnnl::memory::format_tag tag) {
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, tag);
}

std::string LayoutName(const dnnl::memory::desc& desc) {
  return std::string(reinterpret_cast<const char*>(&desc.data), sizeof(desc.data));
}

Kernel::PackedInput DescribePacked(size_t input, const dnnl::memory& packed) {
  const dnnl::memory::desc desc = packed.get_desc();
  return {input, LayoutName(desc), packed.get_data_handle(), desc.get_size()};
}

dnnl::memory PackConstant(const Tensor& tensor, const dnnl::memory::desc& user_desc,
                          const dnnl::memory::desc& packed_desc) {
  return PackConstant(tensor, tensor.data(), user_desc, packed_desc);
}

dnnl::memory PackConstant(const Tensor& tensor, const void* user_data, const dnnl::memory::desc& user_desc,
                          const dnnl::memory::desc& packed_desc) {
  if (const device::PrepackedWeights* offered = device::OfferedPrepackedWeights()) {
    if (const void* packed = offered->Find(tensor.data(), LayoutName(packed_desc), packed_desc.get_size())) {
      return dnnl::memory(packed_desc, CpuEngine(), const_cast<void*>(packed));
    }
  }
  dnnl::memory packed(packed_desc, CpuEngine());
  AdviseHugePages(packed.get_data_handle(), packed_desc.get_size());
  dnnl::memory user = WrapBuffer(user_desc, user_data);
  dnnl::stream stream(CpuEngine());
  dnnl::reorder(user, packed).execute(stream, user, packed);
  stream.wait();
  return packed;
}

void ExecuteDnnl(const std::string& node_label, const dnnl::primitive& primitive,
                 std::unordered_map<int, dnnl::memory> args, const dnnl::memory::desc& scratchpad_desc,
                 void* scratchpad) {
  if (scratchpad_desc.get_size() > 0) {
    if (scratchpad == nullptr) {
      throw Error(ErrorCode::kInternal, fmt::format("{}: run without the {} byte workspace the kernel asked for",
                                                    node_label, scratchpad_desc.get_size()));
    }
    args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(scratchpad_desc, CpuEngine(), scratchpad));
  }
  try {
    dnnl::stream stream(CpuEngine());
    primitive.execute(stream, args);
    stream.wait();
  } catch (const dnnl::error& e) {
    throw Error(ErrorCode::kInternal, fmt::format("{}: oneDNN execution failed: {}", node_label, e.what()));
  }
}

}  // namespace ge::device::cpu
