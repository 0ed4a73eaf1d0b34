// Serializes a CompiledModel::Impl into a .gem file (gem.fbs).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/core.h>

#include "gem_generated.h"
#include "ge/error.h"
#include "runtime/model_file/gem_checksum.h"
#include "runtime/model_file/gem_file.h"
#include "runtime/compile/packed_constants.h"

namespace ge::runtime {
namespace {

namespace fb = flatbuffers;

// Instruction set of the host, recorded in the header for `ge info`.
std::string HostIsa() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  std::string isa = "x86_64";
  // __builtin_cpu_supports takes only literals, hence no loop.
  if (__builtin_cpu_supports("avx2")) isa += "+avx2";
  if (__builtin_cpu_supports("fma")) isa += "+fma";
  if (__builtin_cpu_supports("avx512f")) isa += "+avx512f";
  if (__builtin_cpu_supports("avx512bw")) isa += "+avx512bw";
  if (__builtin_cpu_supports("avx512vnni")) isa += "+avx512vnni";
  return isa;
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "unknown";
#endif
}

size_t AlignUp(size_t bytes) { return (bytes + Tensor::kAlignment - 1) / Tensor::kAlignment * Tensor::kAlignment; }

// The nodes of a graph in the order a .gem file stores them, with its values
// numbered by position: the outputs of the nodes, in node order.
struct GraphNumbering {
  std::vector<const Node*> nodes;
  std::unordered_map<const Node*, uint32_t> node_index;
  std::unordered_map<const Value*, int32_t> value_id;
  std::vector<const Value*> values;

  explicit GraphNumbering(std::vector<const Node*> order) : nodes(std::move(order)) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      node_index[nodes[i]] = static_cast<uint32_t>(i);
      for (const Value* output : nodes[i]->outputs()) {
        value_id[output] = static_cast<int32_t>(values.size());
        values.push_back(output);
      }
    }
  }
  static GraphNumbering Of(const Graph& graph) {
    std::vector<Node*> order = graph.TopologicalOrder();
    return GraphNumbering(std::vector<const Node*>(order.begin(), order.end()));
  }
};

// Where each tensor attribute's bytes go in the weights blob, subgraphs'
// included. Tensors sharing a buffer (constants cloned with their graph) are
// stored once, at the place of their first Add.
class WeightsLayout {
 public:
  using Key = std::pair<const void*, size_t>;  // a tensor's buffer and size

  // The tensors of `nodes` (and of their subgraphs) whose key `skip` does not hold.
  void AddTensors(const std::vector<const Node*>& nodes, const std::set<Key>& skip) {
    for (const Node* node : nodes) {
      for (const auto& [name, value] : node->attrs().entries()) {
        if (const auto* subgraph = std::get_if<std::shared_ptr<const Graph>>(&value); subgraph && *subgraph) {
          AddTensors(GraphNumbering::Of(**subgraph).nodes, skip);
        }
        const Tensor* tensor = std::get_if<Tensor>(&value);
        if (tensor == nullptr || skip.count(KeyOf(*tensor)) != 0) continue;
        if (DataTypeSize(tensor->dtype()) == 0) {
          throw Error(ErrorCode::kUnsupported, fmt::format("{}: attribute '{}' is a {} tensor, which a .gem file cannot "
                                                           "hold", node->Describe(), name, DataTypeName(tensor->dtype())));
        }
        Store(*tensor);
      }
    }
  }

  // Raw bytes stored next to the tensors (a kernel's packed constant).
  void AddBytes(const void* data, size_t bytes) {
    Store(Tensor::Borrow(DataType::kUInt8, Shape{static_cast<int64_t>(bytes)}, const_cast<void*>(data)));
  }

  static Key KeyOf(const Tensor& tensor) { return Key{tensor.data(), tensor.nbytes()}; }
  size_t size() const { return size_; }
  size_t OffsetOf(const Tensor& tensor) const { return offsets_.at(KeyOf(tensor)); }
  size_t OffsetOfBytes(const void* data, size_t bytes) const { return offsets_.at(Key{data, bytes}); }
  void CopyInto(uint8_t* blob) const {
    std::memset(blob, 0, size_);
    for (const Tensor& tensor : tensors_) {
      if (tensor.nbytes() > 0) std::memcpy(blob + OffsetOf(tensor), tensor.data(), tensor.nbytes());
    }
  }

 private:
  void Store(const Tensor& tensor) {
    Key key = KeyOf(tensor);
    if (offsets_.count(key) != 0) return;
    offsets_[key] = size_;
    tensors_.push_back(tensor);
    size_ = AlignUp(size_ + tensor.nbytes());
  }

  std::map<Key, size_t> offsets_;
  std::vector<Tensor> tensors_;
  size_t size_ = 0;
};

class GemBuilder {
 public:
  // impl.values are numbered as GraphNumbering numbers them.
  // The weights blob holds what a run reads first (tensors no kernel packed,
  // then the kernels' packed copies) and the packed-away originals last: the
  // pages a run touches are contiguous, so a loaded model's resident set does
  // not grow by the originals where the kernel maps file pages 2 MiB at a time.
  explicit GemBuilder(const CompiledModel::Impl& impl) : impl_(impl), numbering_(impl.nodes) {
    std::set<WeightsLayout::Key> packed_away;
    for (const Value* constant : PackedAwayConstants(impl)) packed_away.insert(WeightsLayout::KeyOf(*constant->constant()));
    weights_.AddTensors(impl.nodes, packed_away);
    for (const Step& step : impl.steps) {
      for (device::Kernel::PackedInput& packed : step.kernel->PackedInputs()) {
        weights_.AddBytes(packed.data, packed.bytes);
        packed_.push_back({numbering_.node_index.at(step.node), std::move(packed)});
      }
    }
    weights_.AddTensors(impl.nodes, {});
  }

  fb::DetachedBuffer Build() {
    // FlatBuffers addresses at most 2 GiB; leave room for the graph itself.
    constexpr size_t kMaxWeights = FLATBUFFERS_MAX_BUFFER_SIZE - (size_t{256} << 20);
    if (weights_.size() > kMaxWeights) {
      throw Error(ErrorCode::kUnsupported, fmt::format("model '{}' has {} bytes of weights; a .gem file holds at most {}",
                                                       impl_.graph->name(), weights_.size(), kMaxWeights));
    }
    // The weights first, so the padding that aligns them is in one place.
    // PreAlign is what ForceVectorAlignment does, minus its check against
    // FLATBUFFERS_MAX_ALIGNMENT (32 in FlatBuffers 2.0.8). It also raises the
    // buffer's minimum alignment to 64, so Finish pads the whole buffer to a
    // multiple of 64 and the blob stays 64-byte aligned from the file start.
    builder_.PreAlign(weights_.size(), Tensor::kAlignment);
    uint8_t* blob = nullptr;
    auto weights = builder_.CreateUninitializedVector(weights_.size(), sizeof(uint8_t), &blob);
    weights_.CopyInto(blob);

    // The checksum is filled in after Finish.
    gem::Stamp stamp(0, kGemFormatVersion);
    auto header = gem::CreateHeader(builder_, &stamp, builder_.CreateString(fmt::format("ge {}", GE_VERSION_STRING)),
                                    builder_.CreateString(impl_.device_name), builder_.CreateString(HostIsa()));
    auto graph = BuildGraph(*impl_.graph, numbering_);
    auto plan = BuildPlan();
    std::vector<fb::Offset<gem::OptionDef>> options;
    for (const auto& [key, value] : impl_.options) {
      options.push_back(gem::CreateOptionDef(builder_, builder_.CreateString(key), builder_.CreateString(value)));
    }
    std::vector<fb::Offset<gem::PackedInput>> packed_inputs;
    for (const auto& [node, packed] : packed_) {
      const auto* layout = reinterpret_cast<const uint8_t*>(packed.layout.data());
      packed_inputs.push_back(gem::CreatePackedInput(
          builder_, node, static_cast<uint32_t>(packed.input), builder_.CreateVector(layout, packed.layout.size()),
          weights_.OffsetOfBytes(packed.data, packed.bytes), packed.bytes));
    }
    auto model = gem::CreateModel(builder_, header, graph, plan, builder_.CreateVector(options), weights,
                                  builder_.CreateVector(packed_inputs));
    gem::FinishModelBuffer(builder_, model);
    SealChecksum();
    return builder_.Release();
  }

 private:
  fb::Offset<fb::Vector<int64_t>> Dims(const Shape& shape) { return builder_.CreateVector(shape.dims()); }

  fb::Offset<void> AttrData(const AttrValue& value) {
    switch (TypeOf(value)) {
      case AttrType::kInt: return gem::CreateIntAttr(builder_, std::get<int64_t>(value)).Union();
      case AttrType::kFloat: return gem::CreateFloatAttr(builder_, std::get<float>(value)).Union();
      case AttrType::kString:
        return gem::CreateStringAttr(builder_, builder_.CreateString(std::get<std::string>(value))).Union();
      case AttrType::kBool: return gem::CreateBoolAttr(builder_, std::get<bool>(value)).Union();
      case AttrType::kInts:
        return gem::CreateIntsAttr(builder_, builder_.CreateVector(std::get<std::vector<int64_t>>(value))).Union();
      case AttrType::kFloats:
        return gem::CreateFloatsAttr(builder_, builder_.CreateVector(std::get<std::vector<float>>(value))).Union();
      case AttrType::kStrings:
        return gem::CreateStringsAttr(builder_,
                                      builder_.CreateVectorOfStrings(std::get<std::vector<std::string>>(value)))
            .Union();
      case AttrType::kTensor: {
        const Tensor& tensor = std::get<Tensor>(value);
        return gem::CreateTensorData(builder_, static_cast<int32_t>(tensor.dtype()), Dims(tensor.shape()),
                                     weights_.OffsetOf(tensor), tensor.nbytes())
            .Union();
      }
      case AttrType::kDataType:
        return gem::CreateDataTypeAttr(builder_, static_cast<int32_t>(std::get<DataType>(value))).Union();
      case AttrType::kGraph: {
        const Graph& subgraph = *std::get<std::shared_ptr<const Graph>>(value);
        return gem::CreateGraphAttr(builder_, BuildGraph(subgraph, GraphNumbering::Of(subgraph))).Union();
      }
    }
    throw Error(ErrorCode::kInternal, "unknown attribute type");
  }

  // AttrData's union tags are AttrType + 1 (0 is NONE).
  static_assert(static_cast<int>(gem::AttrData::IntAttr) == static_cast<int>(AttrType::kInt) + 1);
  static_assert(static_cast<int>(gem::AttrData::TensorData) == static_cast<int>(AttrType::kTensor) + 1);
  static_assert(static_cast<int>(gem::AttrData::DataTypeAttr) == static_cast<int>(AttrType::kDataType) + 1);
  static_assert(static_cast<int>(gem::AttrData::GraphAttr) == static_cast<int>(AttrType::kGraph) + 1);
  static gem::AttrData AttrTag(const AttrValue& value) {
    return static_cast<gem::AttrData>(static_cast<int>(TypeOf(value)) + 1);
  }

  fb::Offset<gem::NodeDef> BuildNode(const Node& node, const GraphNumbering& numbering) {
    std::vector<int32_t> inputs;
    for (const Value* input : node.inputs()) inputs.push_back(input != nullptr ? numbering.value_id.at(input) : -1);
    std::vector<uint32_t> outputs;
    for (const Value* output : node.outputs()) outputs.push_back(static_cast<uint32_t>(numbering.value_id.at(output)));
    std::vector<fb::Offset<gem::Attr>> attrs;
    for (const auto& [name, value] : node.attrs().entries()) {
      if (const auto* subgraph = std::get_if<std::shared_ptr<const Graph>>(&value); subgraph && !*subgraph) {
        throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: graph attribute '{}' is null", node.Describe(), name));
      }
      attrs.push_back(gem::CreateAttr(builder_, builder_.CreateString(name), AttrTag(value), AttrData(value)));
    }
    std::vector<uint32_t> controls;
    for (const Node* control : node.control_inputs()) controls.push_back(numbering.node_index.at(control));
    return gem::CreateNodeDef(builder_, builder_.CreateString(node.name()), builder_.CreateString(node.op_type()),
                              builder_.CreateVector(inputs), builder_.CreateVector(outputs),
                              builder_.CreateVector(attrs), builder_.CreateVector(controls));
  }

  fb::Offset<gem::GraphDef> BuildGraph(const Graph& graph, const GraphNumbering& numbering) {
    std::vector<fb::Offset<gem::NodeDef>> nodes;
    for (const Node* node : numbering.nodes) nodes.push_back(BuildNode(*node, numbering));
    std::vector<fb::Offset<gem::ValueDef>> values;
    for (const Value* value : numbering.values) {
      values.push_back(gem::CreateValueDef(builder_, builder_.CreateString(value->name()),
                                           static_cast<int32_t>(value->dtype()), Dims(value->shape()),
                                           value->shape().unknown_rank()));
    }
    std::vector<uint32_t> inputs;
    for (const Value* input : graph.inputs()) inputs.push_back(static_cast<uint32_t>(numbering.value_id.at(input)));
    std::vector<uint32_t> outputs;
    for (const Value* output : graph.outputs()) outputs.push_back(static_cast<uint32_t>(numbering.value_id.at(output)));
    return gem::CreateGraphDef(builder_, builder_.CreateString(graph.name()), builder_.CreateVector(nodes),
                               builder_.CreateVector(values), builder_.CreateVector(inputs),
                               builder_.CreateVector(outputs));
  }

  fb::Offset<gem::Plan> BuildPlan() {
    std::vector<fb::Offset<gem::StepDef>> steps;
    for (const Step& step : impl_.steps) {
      std::vector<uint32_t> waits(step.waits.begin(), step.waits.end());
      steps.push_back(gem::CreateStepDef(builder_, numbering_.node_index.at(step.node), builder_.CreateString(step.impl_mode),
                                         step.workspace_offset, step.workspace_bytes,
                                         static_cast<uint32_t>(step.stream), builder_.CreateVector(waits)));
    }
    std::vector<gem::ValueStorage> storage;
    for (const Storage& s : impl_.storage) {
      storage.emplace_back(s.offset, s.index, static_cast<gem::StorageKind>(s.kind));
    }
    const MemorySummary& m = impl_.memory;
    gem::PlannedMemory memory(m.const_bytes, m.arena_bytes, m.no_reuse_bytes, m.lower_bound_bytes);
    return gem::CreatePlan(builder_, builder_.CreateVector(steps), builder_.CreateVectorOfStructs(storage), &memory,
                           impl_.dynamic != nullptr, static_cast<uint32_t>(impl_.stream_count),
                           builder_.CreateString(m.placement_strategy));
  }

  void SealChecksum() {
    uint8_t* buffer = builder_.GetBufferPointer();
    const gem::Stamp* stamp = gem::GetModel(buffer)->header()->stamp();
    auto* stamp_bytes = reinterpret_cast<uint8_t*>(const_cast<gem::Stamp*>(stamp));
    size_t checksum_offset = static_cast<size_t>(stamp_bytes - buffer);  // the checksum is the Stamp's first field
    gem::Stamp sealed(GemChecksum(buffer, builder_.GetSize(), checksum_offset, stamp->format_version()),
                      stamp->format_version());
    std::memcpy(stamp_bytes, &sealed, sizeof(sealed));
  }

  const CompiledModel::Impl& impl_;
  WeightsLayout weights_;
  std::vector<std::pair<uint32_t, device::Kernel::PackedInput>> packed_;  // node index, what its kernel packed
  GraphNumbering numbering_;
  fb::FlatBufferBuilder builder_{1 << 16};
};

[[noreturn]] void WriteFailed(const std::string& path, const std::string& what) {
  throw Error(ErrorCode::kIoError, fmt::format("{}: cannot write model file: {}", path, what));
}

}  // namespace

void SaveGemFile(const CompiledModel::Impl& impl, const std::string& path) {
  if (impl.released_constants > 0) {
    throw Error(ErrorCode::kUnsupported,
                fmt::format("{}: cannot save graph '{}': it was compiled with ge.exec.releasePackedConstants=1, which "
                            "freed the original bytes of {} constants its kernels packed; compile it without that "
                            "option to save it",
                            path, impl.graph->name(), impl.released_constants));
  }
  fb::DetachedBuffer buffer = GemBuilder(impl).Build();
  std::string temp = path + ".tmp";
  std::FILE* file = std::fopen(temp.c_str(), "wb");
  if (file == nullptr) WriteFailed(path, std::strerror(errno));
  bool written = std::fwrite(buffer.data(), 1, buffer.size(), file) == buffer.size();
  int saved_errno = errno;
  written = std::fflush(file) == 0 && written;
  written = std::fclose(file) == 0 && written;
  if (!written) {
    std::remove(temp.c_str());
    WriteFailed(path, std::strerror(saved_errno != 0 ? saved_errno : errno));
  }
  std::error_code error;
  std::filesystem::rename(temp, path, error);
  if (error) {
    std::remove(temp.c_str());
    WriteFailed(path, error.message());
  }
}

}  // namespace ge::runtime
