#include "runtime/dynamic/dynamic_executor.h"
#include "runtime/dynamic/sequence_ops.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "device/prepacked_weights.h"
#include "ge/error.h"
#include "graph/byte_size.h"
#include "graph/op_schema.h"
#include "graph/shapes_at_run.h"
#include "runtime/compile/compiler.h"
#include "runtime/compile/kernel_selection.h"
#include "runtime/compile/tensor_size_cap.h"
#include "runtime/dynamic/static_regions.h"
#include "runtime/execute/output_binding.h"
#include "runtime/execute/run_model.h"
#include "runtime/execute/run_profiler.h"

namespace ge::runtime {
namespace {

bool IsSource(const Node& node) { return node.op_type() == "Data" || node.op_type() == "Const"; }

// A step's inputs and outputs as inference sees them: the frame's. The
// inputs inference reads as values are noted in `read`.
class StepValues final : public InferValues {
 public:
  StepValues(RunFrame& frame, const std::vector<int>& inputs, const std::vector<int>& outputs, std::vector<int>& read)
      : frame_(frame), inputs_(inputs), outputs_(outputs), read_(read) {}

  DataType input_dtype(size_t i) const override { return frame_.values[inputs_[i]].dtype; }
  const Shape& input_shape(size_t i) const override { return frame_.values[inputs_[i]].shape; }
  const Tensor* input_constant(size_t i) const override {
    if (std::find(read_.begin(), read_.end(), static_cast<int>(i)) == read_.end()) read_.push_back(static_cast<int>(i));
    return &frame_.TensorOf(inputs_[i]);
  }
  void set_output(size_t i, DataType dtype, Shape shape) override {
    FrameValue& value = frame_.values[outputs_[i]];
    value.dtype = dtype;
    value.shape = std::move(shape);
  }

 private:
  RunFrame& frame_;
  const std::vector<int>& inputs_;
  const std::vector<int>& outputs_;
  std::vector<int>& read_;
};

// Up to this many bytes of inputs read as values (shape vectors, slice
// bounds) are kept to recognise a step given the same again; a step that
// reads more (NonZero of a large mask) is inferred every run.
constexpr size_t kRememberedValueBytes = 4096;

// A container's or an unsized value's bytes count as too many to keep.
size_t ValueBytes(const FrameValue& value) {
  const std::optional<int64_t> bytes = IsContainer(value.dtype) ? std::nullopt : CheckedByteSize(value.shape, value.dtype);
  return bytes ? static_cast<size_t>(*bytes) : kRememberedValueBytes + 1;
}

// The inputs' dtypes and shapes as FrameInference::input_key lists them.
void InputKey(const RunFrame& frame, const std::vector<int>& inputs, std::vector<int64_t>& key) {
  key.clear();
  for (int id : inputs) {
    if (id < 0) {
      key.push_back(-1);
      continue;
    }
    const FrameValue& value = frame.values[id];
    key.push_back(static_cast<int64_t>(value.dtype));
    key.push_back(static_cast<int64_t>(value.shape.rank()));
    key.insert(key.end(), value.shape.dims().begin(), value.shape.dims().end());
  }
}

// Whether the step's inputs are what `last` was inferred from: dtypes,
// shapes, and the bytes of the inputs it read. `key` is scratch.
bool SameInputs(const FrameInference& last, const RunFrame& frame, const std::vector<int>& inputs,
                std::vector<int64_t>& key) {
  if (!last.valid) return false;
  InputKey(frame, inputs, key);
  if (key != last.input_key) return false;
  size_t offset = 0;
  for (int i : last.read_inputs) {
    const FrameValue& value = frame.values[inputs[i]];
    const size_t bytes = ValueBytes(value);
    if (bytes > 0 && std::memcmp(value.data, last.read_bytes.data() + offset, bytes) != 0) return false;
    offset += bytes;
  }
  return true;
}

// Notes what inference gave the step and what it read (FrameInference).
void RememberInference(FrameInference& memo, const RunFrame& frame, const std::vector<int>& inputs,
                       const std::vector<int>& outputs) {
  memo.valid = false;
  size_t read_bytes = 0;
  for (int i : memo.read_inputs) read_bytes += ValueBytes(frame.values[inputs[i]]);
  if (read_bytes > kRememberedValueBytes) return;
  InputKey(frame, inputs, memo.input_key);
  memo.read_bytes.resize(read_bytes);
  size_t offset = 0;
  for (int i : memo.read_inputs) {
    const FrameValue& value = frame.values[inputs[i]];
    const size_t bytes = ValueBytes(value);
    if (bytes > 0) std::memcpy(memo.read_bytes.data() + offset, value.data, bytes);
    offset += bytes;
  }
  memo.output_dtypes.resize(outputs.size());
  memo.output_shapes.resize(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    memo.output_dtypes[i] = frame.values[outputs[i]].dtype;
    memo.output_shapes[i] = frame.values[outputs[i]].shape;
  }
  memo.valid = true;
}

// The node alone with the run's shapes, marked for a kernel that takes its
// shapes at run time where one exists, and that packs its weights when
// `pack_weights` (graph/shapes_at_run.h): Const inputs stay constants (a
// kernel may pack weights from them), every other input becomes a graph input.
std::unique_ptr<Graph> IsolateNode(const Node& node, const RunFrame& frame, const std::vector<int>& inputs,
                                   const std::vector<int>& outputs, bool pack_weights) {
  auto graph = std::make_unique<Graph>(node.name());
  Node* copy = graph->AddNode(node.op_type(), node.name(), {}, node.num_outputs());
  copy->attrs() = node.attrs();
  copy->attrs().Set(kShapesAtRunAttr, true);  // the kernel serves other shapes too
  if (pack_weights) copy->attrs().Set(kPackWeightsAttr, true);
  for (size_t i = 0; i < node.num_inputs(); ++i) {
    const Value* input = node.input(i);
    Value* source = nullptr;
    if (input != nullptr) {
      const FrameValue& value = frame.values[inputs[i]];
      source = input->constant() != nullptr ? graph->AddConstant(input->name(), *input->constant())
                                            : graph->AddInput(input->name(), value.dtype, value.shape);
    }
    copy->SetInput(i, source);
  }
  for (size_t i = 0; i < node.num_outputs(); ++i) {
    const FrameValue& value = frame.values[outputs[i]];
    copy->output(i)->set_name(node.output(i)->name());
    copy->output(i)->set_dtype(value.dtype);
    copy->output(i)->set_shape(value.shape);
  }
  return graph;
}

// After inference with every input known, anything still unknown cannot be
// run; the size cap applies to shapes known only now, as the compiler
// applies it to static ones.
void CheckOutputs(const Node& node, const RunFrame& frame, const std::vector<int>& inputs,
                  const std::vector<int>& outputs, uint64_t max_tensor_bytes) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const FrameValue& output = frame.values[outputs[i]];
    if (output.shape.IsStatic() && output.dtype != DataType::kUndefined) {
      CheckTensorSize(node, node.output(i)->name(), output.shape, output.dtype, max_tensor_bytes);
      continue;
    }
    std::vector<std::string> input_shapes;
    for (int id : inputs) input_shapes.push_back(id >= 0 ? frame.values[id].shape.ToString() : "absent");
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("{}: the shape of output '{}' could not be determined (inferred {}, dtype {}, from input "
                            "shapes {})",
                            node.Describe(), node.output(i)->name(), output.shape.ToString(),
                            DataTypeName(output.dtype), fmt::join(input_shapes, ", ")));
  }
}

// The kernel key: the step, whether every output is empty, then the dtype
// and rank of every input and output (the part a kernel that takes its
// shapes at run time must match), then their dims.
size_t BuildKernelKey(size_t step_index, const RunFrame& frame, const std::vector<int>& inputs,
                      const std::vector<int>& outputs, KernelCache::Key& key) {
  key.clear();
  key.push_back(static_cast<int64_t>(step_index));
  bool all_empty = !outputs.empty();
  for (int id : outputs) all_empty = all_empty && frame.values[id].shape.NumElements() == 0;
  key.push_back(all_empty ? 1 : 0);
  auto add_type = [&](int id) {
    if (id < 0) return key.push_back(-1);  // absent optional input
    key.push_back(static_cast<int64_t>(frame.values[id].dtype));
    key.push_back(static_cast<int64_t>(frame.values[id].shape.rank()));
  };
  for (int id : inputs) add_type(id);
  for (int id : outputs) add_type(id);
  const size_t type_length = key.size();
  auto add_dims = [&](int id) {
    if (id >= 0) key.insert(key.end(), frame.values[id].shape.dims().begin(), frame.values[id].shape.dims().end());
  };
  for (int id : inputs) add_dims(id);
  for (int id : outputs) add_dims(id);
  return type_length;
}

}  // namespace

DynamicExecutor::DynamicExecutor(const CompiledModel::Impl& impl, const device::Device& device)
    : impl_(impl),
      device_(device),
      symbolic_(impl.symbolic_shapes.get()),
      frames_(impl.values.size(), static_cast<size_t>(std::count_if(impl.nodes.begin(), impl.nodes.end(),
                                                                    [](const Node* node) { return !IsSource(*node); }))),
      plans_(impl.settings.dynamic_plan_cache_bytes) {
  std::unordered_map<const Value*, int> id_of;
  for (size_t id = 0; id < impl.values.size(); ++id) id_of[impl.values[id]] = static_cast<int>(id);
  readers_.assign(impl.values.size(), 0);
  output_position_.assign(impl.values.size(), -1);
  for (size_t position = impl.output_values.size(); position-- > 0;) {
    output_position_[impl.output_values[position]] = static_cast<int>(position);
  }

  for (const Node* node : impl.nodes) {
    if (node->op_type() == "Const") constant_values_.push_back(id_of.at(node->output(0)));
    if (IsSource(*node)) continue;
    NodeStep step;
    if (ControlFlowOp::Handles(node->op_type())) {
      step.control_flow = ControlFlowOp::Create(*node, impl.options);
    } else if (IsSequenceOp(*node)) {
      step.control_flow = CreateSequenceOp(*node, impl.options);
    } else {
      FindKernelDef(device, *node);  // a missing kernel fails the compile, not the first run
    }
    step.node = node;
    step.schema = OpRegistry::Global().Find(node->op_type());
    if (step.schema == nullptr || !step.schema->infer()) {
      throw Error(ErrorCode::kUnsupported,
                  fmt::format("{}: no shape inference for op type '{}', which a dynamic model needs at run time",
                              node->Describe(), node->op_type()));
    }
    for (const Value* input : node->inputs()) {
      int id = input != nullptr ? id_of.at(input) : -1;
      step.inputs.push_back(id);
      if (id >= 0) ++readers_[id];
    }
    for (const Value* output : node->outputs()) {
      step.outputs.push_back(id_of.at(output));
      step.output_dtypes.push_back(output->dtype());
    }
    if (!step.control_flow) {
      step.symbolic_dims = symbolic_.ProvenDims(*node);
      const bool graph_output = std::any_of(step.outputs.begin(), step.outputs.end(),
                                            [&](int id) { return output_position_[id] >= 0; });
      if (!step.symbolic_dims.empty() && !graph_output) step.symbolic_contents = symbolic_.KnownContents(*node);
    }
    steps_.push_back(std::move(step));
  }
  for (const Tensor& constant : impl.constants) constant_data_.insert(constant.data());
  // Plans are compiled by CompileGraph, which targets the CPU device.
  bool compiles_for_device = &device == &device::CpuDevice();
  plannable_ = impl.settings.dynamic_plan_cache_bytes > 0 && compiles_for_device;
}

bool DynamicExecutor::CountRun(const PlanCache::Signature& signature) const {
  std::lock_guard lock(counts_mutex_);
  if (run_counts_.size() >= kCountedSignatures && !run_counts_.count(signature)) run_counts_.clear();
  return ++run_counts_[signature] >= impl_.settings.dynamic_plan_after_runs;
}

std::shared_ptr<const CompiledModel> DynamicExecutor::PlanFor(const std::vector<Tensor>& inputs,
                                                              const PlanCache::Signature& signature) const {
  if (std::shared_ptr<const CompiledModel> cached = plans_.Find(signature)) return cached;
  if (!CountRun(signature)) return nullptr;
  std::unique_ptr<Graph> graph = impl_.graph->Clone();
  std::vector<Value*> graph_inputs = graph->inputs();
  for (size_t position = 0; position < inputs.size(); ++position) {
    graph_inputs[position]->set_shape(inputs[position].shape());
  }
  Options options = impl_.options;
  options.erase("ge.dumpGraphDir");  // dumped once, when the model was compiled
  // The plan's kernels read the weights this model keeps only packed, and so
  // do those of a model that runs the rest of a signature node by node.
  std::optional<device::ScopedPrepackedWeights> offer;
  if (impl_.kept_packed) offer.emplace(impl_.kept_packed);
  std::unique_ptr<CompiledModel::Impl> compiled = CompileGraph(std::move(graph), options);
  plans_compiled_.fetch_add(1, std::memory_order_relaxed);
  if (compiled->dynamic) {
    // Some shape depends on data or control flow: the static regions around
    // it are planned inside a model that runs the rest node by node, and
    // plans nothing of its own.
    std::unique_ptr<Graph> split = SplitStaticRegions(*compiled->graph);
    if (!split) {
      plannable_ = false;
      return nullptr;
    }
    options["ge.exec.dynamicPlanCacheBytes"] = "0";
    compiled = CompileGraph(std::move(split), options);
  }
  size_t own_bytes = 0;  // constants folded for these shapes; the others are the model's
  for (const Tensor& constant : compiled->constants) {
    if (!constant_data_.count(constant.data())) own_bytes += constant.nbytes();
  }
  return plans_.Insert(signature, std::make_shared<const CompiledModel>(std::move(compiled)), own_bytes);
}

std::vector<Tensor> DynamicExecutor::Run(const std::vector<Tensor>& inputs, const std::vector<Tensor>& direct,
                                         RunProfile* profile) const {
  if (plannable_.load()) {
    PlanCache::Signature signature;
    for (const Tensor& input : inputs) {
      signature.push_back(static_cast<int64_t>(input.shape().rank()));
      signature.insert(signature.end(), input.shape().dims().begin(), input.shape().dims().end());
    }
    if (std::shared_ptr<const CompiledModel> plan = PlanFor(inputs, signature)) {
      std::vector<Tensor> outputs = RunModel(*plan, inputs, direct, profile);
      planned_runs_.fetch_add(1, std::memory_order_relaxed);
      plans_.Recharge(signature);
      return outputs;
    }
  }
  node_by_node_runs_.fetch_add(1, std::memory_order_relaxed);
  return RunNodeByNode(inputs, direct, profile);
}

RunStats DynamicExecutor::stats() const {
  RunStats stats;
  stats.planned_runs = planned_runs_.load();
  stats.node_by_node_runs = node_by_node_runs_.load();
  stats.runs = stats.planned_runs + stats.node_by_node_runs;
  stats.plans_compiled = plans_compiled_.load();
  stats.kernels_built = kernels_built();
  stats.buffer_allocations = buffer_allocations();
  stats.shape_inferences = shape_inferences_.load();
  return stats;
}

const ShapedKernel& DynamicExecutor::KernelFor(size_t step_index, RunFrame& frame) const {
  const NodeStep& step = steps_[step_index];
  KernelCache::Key& key = frame.key;
  const size_t type_length = BuildKernelKey(step_index, frame, step.inputs, step.outputs, key);
  FrameKernel& last = frame.kernels[step_index];
  if (last.kernel && key.size() >= last.key_length &&
      std::equal(key.begin(), key.begin() + static_cast<std::ptrdiff_t>(last.key_length), last.key.begin())) {
    return *last.kernel;
  }
  const KernelCache::Key type_key(key.begin(), key.begin() + static_cast<std::ptrdiff_t>(type_length));
  std::shared_ptr<const ShapedKernel> kernel = kernels_.Find(type_key);
  size_t key_length = type_length;
  if (!kernel) {
    kernel = kernels_.Find(key);
    key_length = key.size();
  }
  if (!kernel) {
    // Built outside the cache's lock: two runs may build the same kernel,
    // and the second one's is dropped.
    auto built = std::make_shared<ShapedKernel>();
    // Weights kept only packed must be packed by every kernel that reads them.
    built->graph = IsolateNode(*step.node, frame, step.inputs, step.outputs,
                               impl_.settings.dynamic_pack_weights || impl_.kept_packed != nullptr);
    built->node = built->graph->FindNode(step.node->name());
    std::optional<device::ScopedPrepackedWeights> offer;
    if (impl_.kept_packed) offer.emplace(impl_.kept_packed);
    built->kernel = SelectKernel(device_, *built->node).kernel;
    ++kernels_built_;
    const bool any_shape = built->kernel->TakesShapesAtRun();
    key_length = any_shape ? type_length : key.size();
    kernel = kernels_.Insert(any_shape ? type_key : key, std::move(built));
  }
  last.kernel = std::move(kernel);
  last.key.assign(key.begin(), key.end());
  last.key_length = key_length;
  return *last.kernel;
}

bool DynamicExecutor::ShapesFromSymbols(const NodeStep& step, RunFrame& frame) const {
  // Checked before any is written, so a failure leaves the frame as it was.
  for (const SymbolicSizes& dims : step.symbolic_dims) {
    for (const SymbolicSize& d : dims) {
      const std::optional<int64_t> size = frame.symbolic.Value(d);
      if (!size || *size < 0) return false;
    }
  }
  for (size_t i = 0; i < step.outputs.size(); ++i) {
    FrameValue& value = frame.values[step.outputs[i]];
    value.dtype = step.output_dtypes[i];
    const SymbolicSizes& dims = step.symbolic_dims[i];
    if (value.shape.unknown_rank() || value.shape.rank() != dims.size()) {
      value.shape = Shape(std::vector<int64_t>(dims.size()));
    }
    for (size_t axis = 0; axis < dims.size(); ++axis) value.shape.dim(axis) = *frame.symbolic.Value(dims[axis]);
  }
  return true;
}

bool DynamicExecutor::ContentsFromSymbols(const NodeStep& step, RunFrame& frame) const {
  for (size_t i = 0; i < step.outputs.size(); ++i) {
    for (const SymbolicSize& entry : step.symbolic_contents[i]) {
      const std::optional<int64_t> v = frame.symbolic.Value(entry);
      const bool narrow = step.output_dtypes[i] == DataType::kInt32;
      if (!v || (narrow && (*v < INT32_MIN || *v > INT32_MAX))) return false;
    }
  }
  for (size_t i = 0; i < step.outputs.size(); ++i) {
    const int id = step.outputs[i];
    frame.SetPooled(id);
    void* data = frame.values[id].data;
    const SymbolicSizes& contents = step.symbolic_contents[i];
    for (size_t k = 0; k < contents.size(); ++k) {
      const int64_t v = *frame.symbolic.Value(contents[k]);
      if (step.output_dtypes[i] == DataType::kInt32) {
        static_cast<int32_t*>(data)[k] = static_cast<int32_t>(v);
      } else {
        static_cast<int64_t*>(data)[k] = v;
      }
    }
  }
  return true;
}

bool DynamicExecutor::RunStep(size_t step_index, RunFrame& frame, const std::vector<Tensor>& direct) const {
  const NodeStep& step = steps_[step_index];
  const Node& node = *step.node;
  if (step.control_flow) {
    std::vector<Tensor> arguments;
    for (int id : step.inputs) arguments.push_back(id >= 0 ? frame.TensorOf(id) : Tensor());
    std::vector<Tensor> results = step.control_flow->Run(arguments);
    arguments.clear();
    for (size_t i = 0; i < results.size(); ++i) {
      const Value* output = node.output(i);
      // A declared optional takes a present value as itself (as inputs do, executor.cc).
      const bool optional = output->dtype() == DataType::kOptional && !results[i].empty();
      if (output->dtype() != DataType::kUndefined && output->dtype() != results[i].dtype() && !optional) {
        throw Error(ErrorCode::kInvalidModel, fmt::format("{}: output {} should be {} but its subgraph gave {}",
                                                          node.Describe(), i, DataTypeName(output->dtype()),
                                                          DataTypeName(results[i].dtype())));
      }
      frame.SetTensor(step.outputs[i], std::move(results[i]), /*fresh=*/true);
    }
    return false;
  }

  FrameInference& memo = frame.inferences[step_index];
  if (frame.symbolic.bound() && !step.symbolic_dims.empty() && ShapesFromSymbols(step, frame)) {
    CheckOutputs(node, frame, step.inputs, step.outputs, impl_.settings.max_tensor_bytes);
    if (!step.symbolic_contents.empty() && ContentsFromSymbols(step, frame)) return true;
  } else if (SameInputs(memo, frame, step.inputs, frame.key)) {
    for (size_t i = 0; i < step.outputs.size(); ++i) {
      FrameValue& value = frame.values[step.outputs[i]];
      value.dtype = memo.output_dtypes[i];
      value.shape = memo.output_shapes[i];
    }
  } else {
    memo.valid = false;
    memo.read_inputs.clear();
    StepValues values(frame, step.inputs, step.outputs, memo.read_inputs);
    shape_inferences_.fetch_add(1, std::memory_order_relaxed);
    InferContext infer(node, values);
    step.schema->infer()(infer);
    CheckOutputs(node, frame, step.inputs, step.outputs, impl_.settings.max_tensor_bytes);
    RememberInference(memo, frame, step.inputs, step.outputs);
  }
  const ShapedKernel& shaped = KernelFor(step_index, frame);
  const device::Kernel& kernel = *shaped.kernel;

  bool computes = false;  // false when every output is a view of an input
  for (size_t i = 0; i < step.outputs.size(); ++i) {
    const int id = step.outputs[i];
    const int viewed = kernel.AliasedInput(i);
    if (viewed >= 0 && static_cast<size_t>(viewed) < step.inputs.size() && step.inputs[viewed] >= 0) {
      frame.SetView(id, step.inputs[viewed]);
    } else if (const int position = output_position_[id]; position >= 0) {
      FrameValue& value = frame.values[id];
      const Tensor* bound = static_cast<size_t>(position) < direct.size() && !direct[position].empty()
                                ? &direct[position]
                                : nullptr;
      if (bound != nullptr) CheckBoundShape(impl_.outputs[position], *bound, value.dtype, value.shape);
      frame.SetTensor(id, bound != nullptr ? *bound : outputs_.Allocate(value.dtype, value.shape), /*fresh=*/true);
      computes = true;
    } else {
      frame.SetPooled(id);
      computes = true;
    }
  }
  if (!computes) return false;

  frame.input_views.clear();
  frame.output_views.clear();
  for (int id : step.inputs) {
    if (id < 0) {
      frame.input_views.push_back(device::TensorView{});  // absent optional input
      continue;
    }
    const FrameValue& value = frame.values[id];
    frame.input_views.push_back(device::TensorView{value.dtype, &value.shape, value.data});
  }
  for (int id : step.outputs) {
    const FrameValue& value = frame.values[id];
    frame.output_views.push_back(device::TensorView{value.dtype, &value.shape, value.data});
  }
  const size_t workspace_bytes = kernel.WorkspaceBytes();
  std::byte* workspace = workspace_bytes > 0 ? frame.pool.Take(workspace_bytes) : nullptr;
  struct GiveBack {
    BufferPool& pool;
    std::byte* buffer;
    size_t bytes;
    ~GiveBack() {
      if (buffer != nullptr) pool.Give(buffer, bytes);
    }
  } give_back{frame.pool, workspace, workspace_bytes};
  device::KernelContext ctx;
  ctx.inputs = frame.input_views;
  ctx.outputs = frame.output_views;
  ctx.workspace = workspace;
  kernel.Run(ctx);
  return false;
}

std::vector<Tensor> DynamicExecutor::TakeOutputs(RunFrame& frame, const std::vector<Tensor>& direct) const {
  // A buffer this run allocated for an output is handed out as it is, once;
  // graph inputs, constants, views, repeated values and control-flow results
  // are copied (into the bound buffer, when there is one).
  std::vector<Tensor> outputs;
  outputs.reserve(impl_.output_values.size());
  for (size_t position = 0; position < impl_.output_values.size(); ++position) {
    FrameValue& value = frame.values[impl_.output_values[position]];
    if (position < direct.size() && !direct[position].empty()) {
      Tensor buffer = direct[position];
      if (value.data != buffer.data()) {
        CheckBoundShape(impl_.outputs[position], buffer, value.dtype, value.shape);
        if (buffer.nbytes() > 0) std::memcpy(buffer.data(), value.data, buffer.nbytes());
      }
      outputs.push_back(std::move(buffer));
    } else if (value.tensor.is_container()) {  // never written: shared, unless it holds borrowed memory
      outputs.push_back(OwnedValue(value.tensor));
    } else if (value.fresh) {
      value.fresh = false;
      outputs.push_back(value.tensor);
    } else {
      Tensor copy = outputs_.Allocate(value.dtype, value.shape);
      if (copy.nbytes() > 0) std::memcpy(copy.data(), value.data, copy.nbytes());
      outputs.push_back(std::move(copy));
    }
  }
  outputs_.NoteRun(outputs);
  return outputs;
}

std::vector<Tensor> DynamicExecutor::RunNodeByNode(const std::vector<Tensor>& inputs, const std::vector<Tensor>& direct,
                                                   RunProfile* profile) const {
  const auto run_start = ProfileClock::now();
  if (profile != nullptr) profile->steps.clear();
  FramePool::Lease lease = frames_.Acquire();
  RunFrame& frame = lease.frame();
  frame.Reset();  // what a failed run left
  frame.readers_left = readers_;
  symbolic_.Bind(inputs, impl_.settings.symbolic_shapes, frame.symbolic);
  for (size_t position = 0; position < inputs.size(); ++position) {
    frame.SetTensor(impl_.input_values[position], inputs[position], /*fresh=*/false);
  }
  for (size_t i = 0; i < constant_values_.size(); ++i) {
    frame.SetTensor(constant_values_[i], impl_.constants[i], /*fresh=*/false);
  }
  auto release = [&](int id) {
    if (frame.readers_left[id] == 0 && output_position_[id] < 0) frame.Release(id);
  };

  for (size_t s = 0; s < steps_.size(); ++s) {
    const NodeStep& step = steps_[s];
    const auto step_start = ProfileClock::now();
    const bool from_symbols = RunStep(s, frame, direct);
    if (profile != nullptr) {
      const std::string kernel = step.control_flow ? "control_flow/" + step.node->op_type()
                                 : from_symbols    ? "symbolic"
                                                   : KernelName(*frame.kernels[s].kernel->kernel);
      StepProfile recorded = ProfileStep(*step.node, kernel, 0, run_start, step_start, frame.LiveBytes());
      recorded.input_shapes.clear();
      recorded.output_shapes.clear();
      for (int id : step.inputs) {
        if (id >= 0) recorded.input_shapes.push_back(frame.values[id].shape);
      }
      for (int id : step.outputs) recorded.output_shapes.push_back(frame.values[id].shape);
      profile->steps.push_back(std::move(recorded));
    }
    for (int id : step.outputs) release(id);  // an output nothing reads
    for (int id : step.inputs) {
      if (id < 0) continue;
      --frame.readers_left[id];
      release(id);
    }
  }
  std::vector<Tensor> outputs = TakeOutputs(frame, direct);
  frame.Reset();  // holds nothing of the caller's between runs
  return outputs;
}

}  // namespace ge::runtime
