#include "device/cpu/kernels/dnnl_utils.h"

#include "device/cpu/cpu_isa.h"
#include "device/prepacked_weights.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <mutex>

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

// What a packed copy was made from: the user bytes (address, length and
// a 64-bit hash of them, so that other bytes later at the same address do
// not match) and both layouts.
struct PackingKey {
  const void* data;
  size_t bytes;
  uint64_t hash;
  std::string user_layout, packed_layout;

  bool operator==(const PackingKey&) const = default;
};

// FNV-1a over 8-byte words, then the tail bytes.
uint64_t BytesHash(const void* data, size_t bytes) {
  constexpr uint64_t kPrime = 1099511628211ULL;
  uint64_t hash = 14695981039346656037ULL;
  const auto* p = static_cast<const unsigned char*>(data);
  size_t i = 0;
  for (; i + sizeof(uint64_t) <= bytes; i += sizeof(uint64_t)) {
    uint64_t word;
    std::memcpy(&word, p + i, sizeof(word));
    hash = (hash ^ word) * kPrime;
  }
  for (; i < bytes; ++i) hash = (hash ^ p[i]) * kPrime;
  return hash;
}

// The packed copies some kernel still holds, found again by what they were
// made from. Expired entries are dropped as new ones come.
class SharedPackingRegistry {
 public:
  std::shared_ptr<const Tensor> Find(const PackingKey& key) {
    std::lock_guard lock(mutex_);
    for (const Entry& entry : entries_) {
      if (entry.key == key) {
        if (std::shared_ptr<const Tensor> live = entry.storage.lock()) return live;
      }
    }
    return nullptr;
  }

  void Add(const PackingKey& key, const std::shared_ptr<const Tensor>& storage) {
    std::lock_guard lock(mutex_);
    std::erase_if(entries_, [](const Entry& entry) { return entry.storage.expired(); });
    entries_.push_back({key, storage});
  }

 private:
  struct Entry {
    PackingKey key;
    std::weak_ptr<const Tensor> storage;
  };
  std::mutex mutex_;
  std::vector<Entry> entries_;
};

SharedPackingRegistry& SharedPackings() {
  static SharedPackingRegistry registry;
  return registry;
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

dnnl::memory::desc DescOfLayout(const std::string& layout) {
  dnnl_memory_desc_t desc;
  if (layout.size() != sizeof(desc)) throw Error(ErrorCode::kInternal, "a packed layout's name has the wrong size");
  std::memcpy(&desc, layout.data(), sizeof(desc));
  return dnnl::memory::desc(desc);
}

Kernel::PackedInput DescribePacked(size_t input, const dnnl::memory& packed) {
  const dnnl::memory::desc desc = packed.get_desc();
  return {input, LayoutName(desc), packed.get_data_handle(), desc.get_size()};
}

PackedConstant PackConstant(const Tensor& tensor, const dnnl::memory::desc& user_desc,
                            const dnnl::memory::desc& packed_desc) {
  return PackConstant(tensor, tensor.data(), user_desc, packed_desc);
}

PackedConstant PackConstant(const Tensor& tensor, const void* user_data, const dnnl::memory::desc& user_desc,
                            const dnnl::memory::desc& packed_desc) {
  dnnl::memory::desc from = user_desc;
  if (const device::PrepackedWeights* offered = device::OfferedPrepackedWeights()) {
    if (const void* packed = offered->Find(tensor.data(), LayoutName(packed_desc), packed_desc.get_size())) {
      return {dnnl::memory(packed_desc, CpuEngine(), const_cast<void*>(packed)), nullptr};
    }
    // Kept only packed in another layout: reordered from there.
    const std::string* stored = offered->StoredLayout(tensor.data());
    if (stored != nullptr && user_data == tensor.data()) from = DescOfLayout(*stored);
  }
  const PackingKey key{user_data, from.get_size(), BytesHash(user_data, from.get_size()), LayoutName(from),
                       LayoutName(packed_desc)};
  if (std::shared_ptr<const Tensor> shared = SharedPackings().Find(key)) {
    return {WrapBuffer(packed_desc, shared->data()), std::move(shared)};
  }
  auto storage = std::make_shared<const Tensor>(DataType::kUInt8, Shape{static_cast<int64_t>(packed_desc.get_size())});
  AdviseHugePages(const_cast<void*>(storage->data()), packed_desc.get_size());
  dnnl::memory packed = WrapBuffer(packed_desc, storage->data());
  dnnl::memory user = WrapBuffer(from, user_data);
  dnnl::stream stream(CpuEngine());
  dnnl::reorder(user, packed).execute(stream, user, packed);
  stream.wait();
  SharedPackings().Add(key, storage);
  return {packed, std::move(storage)};
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
