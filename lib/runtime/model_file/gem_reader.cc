// Loads a .gem file: checks it (magic, FlatBuffers verifier, format version,
// checksum), rebuilds the graph and the kernels, and takes the stored
// execution order and memory plan as they are. Constants point into the file's
// bytes, which the model keeps (memory-mapped when loaded from a path).

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>

#include <fmt/core.h>

#include "device/device.h"
#include "device/prepacked_weights.h"
#include "runtime/compile/device_selection.h"
#include "gem_generated.h"
#include "ge/error.h"
#include "graph/mapped_file.h"
#include "graph/verifier.h"
#include "runtime/compile/compiler.h"
#include "runtime/model_file/gem_checksum.h"
#include "runtime/model_file/gem_file.h"
#include "runtime/model_file/gem_validation.h"
#include "runtime/execute/intra_op_threads.h"
#include "runtime/compile/model_layout.h"
#include "runtime/compile/storage_plan.h"
#include "runtime/execute/stream_workers.h"

namespace ge::runtime {
namespace {

namespace fb = flatbuffers;

// Root offset and file identifier.
constexpr size_t kMinimalFileSize = 8;
// Products of dims above this are not real tensors (and would overflow byte counts).
constexpr int64_t kMaxElements = int64_t{1} << 48;

[[noreturn]] void Corrupted(const std::string& detail) {
  throw Error(ErrorCode::kInvalidModel, "corrupted or truncated model file" + detail);
}

DataType ReadDataType(int32_t code, const std::string& what) {
  auto dtype = static_cast<DataType>(code);
  if (IsContainer(dtype)) return dtype;  // a sequence or optional value (no tensor is one)
  std::optional<DataType> known = ParseDataType(DataTypeName(dtype));
  if (!known || *known != dtype) Corrupted(fmt::format(" ({} has unknown dtype code {})", what, code));
  return dtype;
}

// FlatBuffers' verifier checks a vector's length field for 4-byte alignment
// only, while a writer aligns 8-byte elements to 8: a vector that is not was
// edited, and reading its elements would be misaligned loads. (An empty one
// has nothing to load, and FlatBuffers writes those 4-byte aligned.)
template <typename Vector>
void CheckElementsAligned(const Vector* vector, size_t alignment, const std::string& what) {
  if (vector != nullptr && vector->size() != 0 && reinterpret_cast<uintptr_t>(vector->Data()) % alignment != 0) {
    Corrupted(fmt::format(" ({} is not aligned to its elements)", what));
  }
}

// `allow_unknown`: unknown dims (-1) are valid, as in the values of a dynamic model.
Shape ReadShape(const fb::Vector<int64_t>* dims, const std::string& what, bool allow_unknown = false) {
  CheckElementsAligned(dims, alignof(int64_t), "the shape of " + what);
  std::vector<int64_t> result;
  int64_t elements = 1;
  if (dims != nullptr) {
    for (int64_t dim : *dims) {
      if (allow_unknown && dim == Shape::kUnknownDim) {
        result.push_back(dim);
        continue;
      }
      if (dim < 0 || (dim > 0 && elements > kMaxElements / dim)) {
        Corrupted(fmt::format(" ({} has an invalid shape)", what));
      }
      elements *= dim;
      result.push_back(dim);
    }
  }
  return Shape(std::move(result));
}

// Builds ge objects from the verified FlatBuffers tables.
class GemLoader {
 public:
  GemLoader(const gem::Model& model, std::shared_ptr<const void> backing, const uint8_t* weights, size_t weights_size,
            const Options& overrides, std::shared_ptr<const MappedFile> file)
      : model_(model),
        backing_(std::move(backing)),
        file_(std::move(file)),
        weights_(weights),
        weights_size_(weights_size),
        overrides_(overrides),
        dynamic_(model.plan()->dynamic()) {
    if (dynamic_ && model.header()->stamp()->format_version() < 2) Corrupted(" (a dynamic model in a version 1 file)");
  }

  std::unique_ptr<CompiledModel::Impl> Load() {
    const gem::GraphDef& graph_def = *model_.graph();
    auto impl = std::make_unique<CompiledModel::Impl>();
    if (model_.options() != nullptr) {
      for (const gem::OptionDef* option : *model_.options()) impl->options[option->key()->str()] = option->value()->str();
    }
    impl->options = MergeOptions(impl->options, overrides_);
    impl->settings = ParseOptions(impl->options);
    // The tensor cap is the loader's (its option or the default), never the
    // file's: a tampered file could raise its own cap.
    impl->settings.max_tensor_bytes = ParseOptions(overrides_).max_tensor_bytes;
    ScopedIntraOpThreads threads(impl->settings.intra_op_threads);  // kernels size their scratch by it
    // Kernels of a multi-stream plan run on their stream's share of the threads.
    ScopedIntraOpThreads team(StreamTeamSize(impl->settings.intra_op_threads,
                                             static_cast<int>(std::min<uint32_t>(model_.plan()->stream_count(), 64))));
    impl->weights_file = file_;
    impl->graph = BuildGraph(graph_def);
    // Kernels trust normalized attributes, consistent dtypes and the stored
    // shapes; a file from elsewhere gets the same checks as a graph handed to
    // the compiler, and its shapes must follow from its inputs and attributes.
    VerifyGraph(*impl->graph);
    ValidateLoadedGraph(*impl->graph, impl->settings.max_tensor_bytes);

    impl->device = SelectDevice(impl->settings);
    device::Device& device = *impl->device;
    std::string target = model_.header()->target_device() ? model_.header()->target_device()->str() : "";
    if (target != device.name()) {
      throw Error(ErrorCode::kUnsupported,
                  fmt::format("the model was compiled for device '{}'; this ge runs it on '{}'", target, device.name()));
    }
    std::vector<Node*> nodes = impl->graph->nodes();  // file order: a topological order
    if (dynamic_) {
      MakeDynamic(*impl, device, std::vector<const Node*>(nodes.begin(), nodes.end()));
      CheckGraphIo(*impl, graph_def);
      return impl;
    }
    const gem::Plan& plan = *model_.plan();
    std::vector<size_t> step_nodes;
    if (plan.steps() != nullptr) {
      for (const gem::StepDef* step : *plan.steps()) step_nodes.push_back(step->node());
    }
    const device::PrepackedWeights prepacked = ReadPackedInputs(nodes);
    {
      const device::ScopedPrepackedWeights offer(prepacked);
      LayOutModel(*impl, device, std::vector<const Node*>(nodes.begin(), nodes.end()), step_nodes);
    }
    CheckGraphIo(*impl, graph_def);
    TakePlan(*impl, plan);
    ValidateLoadedPlan(*impl, impl->settings.max_tensor_bytes);
    GrowWorkspaces(*impl);
    impl->arenas = std::make_unique<ArenaPool>(device.allocator(), impl->memory.arena_bytes, impl->settings.max_arenas);
    if (!device.host_memory()) impl->device_constants = std::make_unique<DeviceConstants>(device, impl->constants);
    return impl;
  }

 private:
  std::unique_ptr<Graph> BuildGraph(const gem::GraphDef& graph_def) {
    auto graph = std::make_unique<Graph>(graph_def.name() ? graph_def.name()->str() : "graph");
    size_t num_values = graph_def.values() ? graph_def.values()->size() : 0;
    std::vector<Value*> values(num_values, nullptr);
    std::vector<Node*> nodes;
    uint32_t next_value = 0;  // values are the node outputs in node order
    if (graph_def.nodes() != nullptr) {
      for (const gem::NodeDef* def : *graph_def.nodes()) {
        std::string name = def->name()->str();
        std::vector<Value*> inputs;
        if (def->inputs() != nullptr) {
          for (int32_t id : *def->inputs()) {
            if (id < -1 || (id >= 0 && static_cast<size_t>(id) >= num_values)) {
              Corrupted(fmt::format(" (node '{}' reads value #{}, which does not exist)", name, id));
            }
            if (id >= 0 && values[id] == nullptr) {
              Corrupted(fmt::format(" (node '{}' reads value #{} before it is produced)", name, id));
            }
            inputs.push_back(id >= 0 ? values[id] : nullptr);
          }
        }
        size_t num_outputs = def->outputs() ? def->outputs()->size() : 0;
        Node* node = graph->AddNode(def->op_type()->str(), name, inputs, num_outputs);
        if (node->name() != name) Corrupted(fmt::format(" (two nodes are named '{}')", name));
        for (size_t i = 0; i < num_outputs; ++i) {
          uint32_t id = def->outputs()->Get(i);
          if (id != next_value++ || id >= num_values) Corrupted(fmt::format(" (node '{}' has misnumbered outputs)", name));
          const gem::ValueDef& value_def = *graph_def.values()->Get(id);
          Value* value = node->output(i);
          value->set_name(value_def.name()->str());
          // A dynamic model's value may be untyped until a run infers it (an
          // ONNX branch whose intermediate values the model does not annotate).
          value->set_dtype(dynamic_ && value_def.dtype() == static_cast<int32_t>(DataType::kUndefined)
                               ? DataType::kUndefined
                               : ReadDataType(value_def.dtype(), "value '" + value->name() + "'"));
          if (dynamic_ && value_def.unknown_rank()) {
            value->set_shape(Shape::UnknownRank());
          } else {
            value->set_shape(ReadShape(value_def.dims(), "value '" + value->name() + "'", dynamic_));
          }
          values[id] = value;
        }
        if (def->attrs() != nullptr) {
          for (const gem::Attr* attr : *def->attrs()) {
            node->attrs().Set(attr->name()->str(), ReadAttr(*attr, name));
          }
        }
        if (def->control_inputs() != nullptr) {
          for (uint32_t control : *def->control_inputs()) {
            if (control >= nodes.size()) Corrupted(fmt::format(" (node '{}' has a bad control input)", name));
            node->AddControlInput(nodes[control]);
          }
        }
        nodes.push_back(node);
      }
    }
    if (next_value != num_values) Corrupted(" (values not produced by any node)");
    std::vector<Value*> outputs;
    if (graph_def.outputs() != nullptr) {
      for (uint32_t id : *graph_def.outputs()) {
        if (id >= num_values) Corrupted(" (a graph output is not a value)");
        outputs.push_back(values[id]);
      }
    }
    graph->SetOutputs(std::move(outputs));
    return graph;
  }

  AttrValue ReadAttr(const gem::Attr& attr, const std::string& node) {
    std::string what = fmt::format("attribute '{}' of node '{}'", attr.name()->str(), node);
    // The verifier accepts a union whose type is set but whose table is absent.
    if (attr.data() == nullptr) Corrupted(fmt::format(" ({} has no value)", what));
    switch (attr.data_type()) {
      case gem::AttrData::IntAttr: return attr.data_as_IntAttr()->value();
      case gem::AttrData::FloatAttr: return attr.data_as_FloatAttr()->value();
      case gem::AttrData::StringAttr: {
        auto* value = attr.data_as_StringAttr()->value();
        return value ? value->str() : std::string();
      }
      case gem::AttrData::BoolAttr: return attr.data_as_BoolAttr()->value();
      case gem::AttrData::IntsAttr: {
        auto* values = attr.data_as_IntsAttr()->values();
        CheckElementsAligned(values, alignof(int64_t), what);
        return values ? std::vector<int64_t>(values->begin(), values->end()) : std::vector<int64_t>();
      }
      case gem::AttrData::FloatsAttr: {
        auto* values = attr.data_as_FloatsAttr()->values();
        return values ? std::vector<float>(values->begin(), values->end()) : std::vector<float>();
      }
      case gem::AttrData::StringsAttr: {
        std::vector<std::string> strings;
        if (auto* values = attr.data_as_StringsAttr()->values()) {
          for (const fb::String* value : *values) strings.push_back(value->str());
        }
        return strings;
      }
      case gem::AttrData::TensorData: return ReadTensor(*attr.data_as_TensorData(), what);
      case gem::AttrData::DataTypeAttr: return ReadDataType(attr.data_as_DataTypeAttr()->value(), what);
      case gem::AttrData::GraphAttr: {
        // Only dynamic models hold subgraphs; the verifier's depth limit bounds the nesting.
        if (!dynamic_) Corrupted(fmt::format(" ({} is a subgraph in a planned model)", what));
        return std::shared_ptr<const Graph>(BuildGraph(*attr.data_as_GraphAttr()->graph()));
      }
      default: Corrupted(fmt::format(" ({} has no value)", what));
    }
  }

  // A view of the weights that keeps the file's bytes alive, so graphs cloned
  // from the model's graph stay valid after the model is gone.
  Tensor ReadTensor(const gem::TensorData& data, const std::string& what) {
    DataType dtype = ReadDataType(data.dtype(), what);
    Shape shape = ReadShape(data.dims(), what);
    uint64_t bytes = static_cast<uint64_t>(shape.NumElements()) * DataTypeSize(dtype);
    if (data.size() != bytes || data.offset() > weights_size_ || bytes > weights_size_ - data.offset() ||
        data.offset() % Tensor::kAlignment != 0) {
      Corrupted(fmt::format(" ({}: tensor bytes outside the weights)", what));
    }
    return Tensor::View(dtype, std::move(shape), weights_ + data.offset(), backing_);
  }

  // The constants the compiling kernels packed, to be offered to the kernels
  // built now; each is checked to name a constant input and to lie in the weights.
  device::PrepackedWeights ReadPackedInputs(const std::vector<Node*>& nodes) {
    device::PrepackedWeights prepacked;
    if (model_.packed_inputs() == nullptr) return prepacked;
    for (const gem::PackedInput* packed : *model_.packed_inputs()) {
      const std::string what = fmt::format("packed input {} of node #{}", packed->input(), packed->node());
      if (packed->node() >= nodes.size() || packed->input() >= nodes[packed->node()]->num_inputs()) {
        Corrupted(fmt::format(" ({}: no such node input)", what));
      }
      const Value* input = nodes[packed->node()]->input(packed->input());
      const Tensor* constant = input != nullptr ? input->constant() : nullptr;
      if (constant == nullptr) Corrupted(fmt::format(" ({}: the input is not a constant)", what));
      if (packed->layout() == nullptr || packed->offset() > weights_size_ ||
          packed->size() > weights_size_ - packed->offset() || packed->offset() % Tensor::kAlignment != 0) {
        Corrupted(fmt::format(" ({}: bytes outside the weights)", what));
      }
      prepacked.Offer(constant->data(),
                      std::string(reinterpret_cast<const char*>(packed->layout()->data()), packed->layout()->size()),
                      weights_ + packed->offset(), packed->size());
    }
    return prepacked;
  }

  void CheckGraphIo(const CompiledModel::Impl& impl, const gem::GraphDef& graph_def) {
    std::vector<int> stored;
    if (graph_def.inputs() != nullptr) stored.assign(graph_def.inputs()->begin(), graph_def.inputs()->end());
    if (stored != impl.input_values) Corrupted(" (graph inputs do not match the Data nodes)");
  }

  void TakePlan(CompiledModel::Impl& impl, const gem::Plan& plan) {
    for (size_t s = 0; s < impl.steps.size(); ++s) {
      const gem::StepDef& def = *plan.steps()->Get(s);
      Step& step = impl.steps[s];
      std::string stored_mode = def.impl_mode() ? def.impl_mode()->str() : "";
      if (stored_mode != step.impl_mode) {
        throw Error(ErrorCode::kUnsupported,
                    fmt::format("{}: compiled with implementation mode '{}', but this build's kernel runs '{}'",
                                step.node->Describe(), stored_mode, step.impl_mode));
      }
      step.workspace_offset = def.workspace_offset();
      step.workspace_bytes = def.workspace_bytes();
      step.stream = static_cast<int>(std::min<uint32_t>(def.stream(), std::numeric_limits<int>::max()));
      if (def.waits() != nullptr) {
        for (uint32_t producer : *def.waits()) {
          step.waits.push_back(static_cast<int>(std::min<uint32_t>(producer, std::numeric_limits<int>::max())));
        }
      }
    }
    impl.stream_count = static_cast<int>(std::clamp<uint32_t>(plan.stream_count(), 1, std::numeric_limits<int>::max()));
    CheckElementsAligned(plan.storage(), alignof(gem::ValueStorage), "the plan's storage");
    if (plan.storage() != nullptr) {
      for (const gem::ValueStorage* s : *plan.storage()) {
        impl.storage.push_back(Storage{static_cast<StorageKind>(s->kind()), s->index(), s->offset()});
      }
    }
    const gem::PlannedMemory& m = *plan.memory();
    impl.memory = MemorySummary{};
    impl.memory.const_bytes = m.const_bytes();
    impl.memory.arena_bytes = m.arena_bytes();
    impl.memory.no_reuse_bytes = m.no_reuse_bytes();
    impl.memory.lower_bound_bytes = m.lower_bound_bytes();
    if (plan.placement_strategy() != nullptr) impl.memory.placement_strategy = plan.placement_strategy()->str();
  }

  const gem::Model& model_;
  std::shared_ptr<const void> backing_;
  std::shared_ptr<const MappedFile> file_;
  const uint8_t* weights_;
  size_t weights_size_;
  const Options& overrides_;
  bool dynamic_;  // no plan: shapes are inferred at run time
};

// Everything about the bytes before any of them is trusted. Hashing a mapped
// file hands its pages back as it goes: the load then touches again only what
// it reads (the graph, and the weights kernels use in place), so the whole
// file is never resident at once.
const gem::Model& CheckFile(const uint8_t* data, size_t size, const MappedFile* file) {
  if (size < kMinimalFileSize) Corrupted(fmt::format(" ({} bytes)", size));
  if (size >= FLATBUFFERS_MAX_BUFFER_SIZE) Corrupted(fmt::format(" ({} bytes is more than a .gem file holds)", size));
  if (!gem::ModelBufferHasIdentifier(data)) {
    throw Error(ErrorCode::kInvalidModel, "not a ge model file (bad magic)");
  }
  fb::Verifier::Options options;
  options.max_tables = size_t{1} << 30;  // large graphs have many attribute tables
  fb::Verifier verifier(data, size, options);
  if (!gem::VerifyModelBuffer(verifier)) Corrupted("");
  const gem::Model& model = *gem::GetModel(data);
  const gem::Stamp& stamp = *model.header()->stamp();
  if (stamp.format_version() > kGemFormatVersion) {
    throw Error(ErrorCode::kUnsupported,
                fmt::format("model file format version {} is newer than this ge reads (version {}); "
                            "load it with a newer ge or recompile the model",
                            stamp.format_version(), kGemFormatVersion));
  }
  if (stamp.format_version() == 0) Corrupted(" (format version 0)");
  size_t checksum_offset = static_cast<size_t>(reinterpret_cast<const uint8_t*>(&stamp) - data);
  size_t released = 0;
  auto release = [&](size_t hashed) {
    if (file != nullptr) file->ReleasePages(data + released, hashed - released);
    released = hashed;
  };
  if (GemChecksum(data, size, checksum_offset, stamp.format_version(), release) != stamp.checksum()) {
    Corrupted(" (checksum mismatch)");
  }
  return model;
}

// `bytes` must be 64-byte aligned (mmap or an aligned copy) and stay alive.
std::unique_ptr<CompiledModel::Impl> LoadVerified(std::shared_ptr<const void> bytes, size_t size,
                                                  const std::string& origin, const Options& overrides,
                                                  std::shared_ptr<const MappedFile> file = nullptr) {
  try {
    CheckLoadOptions(overrides);
    const auto* data = static_cast<const uint8_t*>(bytes.get());
    const gem::Model& model = CheckFile(data, size, file.get());
    const fb::Vector<uint8_t>* weights = model.weights();
    auto impl = GemLoader(model, bytes, weights ? weights->data() : nullptr, weights ? weights->size() : 0, overrides,
                          std::move(file))
                    .Load();
    impl->backing = std::move(bytes);
    return impl;
  } catch (const Error& error) {
    throw Error(error.code(), fmt::format("{}: {}", origin, error.what()));
  }
}

}  // namespace

std::unique_ptr<CompiledModel::Impl> LoadGemFile(const std::string& path, const Options& overrides) {
  std::shared_ptr<const MappedFile> file = MappedFile::Open(path);
  if (file->size() < kMinimalFileSize) {
    throw Error(ErrorCode::kInvalidModel,
                fmt::format("{}: corrupted or truncated model file ({} bytes)", path, file->size()));
  }
  // Weights are paged in on demand and shared with other processes that load the same file.
  const size_t size = file->size();
  std::shared_ptr<const void> bytes(file, file->data());
  return LoadVerified(std::move(bytes), size, path, overrides, std::move(file));
}

std::unique_ptr<CompiledModel::Impl> LoadGemBuffer(const void* data, size_t size, const std::string& origin,
                                                   const Options& overrides) {
  // A private aligned copy: the caller's buffer may be unaligned or go away.
  std::shared_ptr<void> copy(std::aligned_alloc(Tensor::kAlignment, std::max<size_t>(
                                 (size + Tensor::kAlignment - 1) / Tensor::kAlignment * Tensor::kAlignment,
                                 Tensor::kAlignment)),
                             std::free);
  if (!copy) throw Error(ErrorCode::kInternal, fmt::format("{}: out of memory copying {} bytes", origin, size));
  if (size > 0) std::memcpy(copy.get(), data, size);
  return LoadVerified(std::move(copy), size, origin, overrides);
}

}  // namespace ge::runtime
