#include "runtime/dynamic/dynamic_executor.h"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ge/error.h"
#include "graph/op_schema.h"
#include "runtime/compile/compiler.h"
#include "runtime/execute/host_kernel.h"
#include "runtime/execute/run_profiler.h"
#include "runtime/compile/kernel_selection.h"
#include "runtime/compile/tensor_size_cap.h"

namespace ge::runtime {
namespace {

bool IsSource(const Node& node) { return node.op_type() == "Data" || node.op_type() == "Const"; }

// The node alone, with the shapes it has now: Const inputs stay constants (a
// kernel may pack weights from them), every other input becomes a graph input.
std::unique_ptr<Graph> IsolateNode(const Node& node) {
  auto graph = std::make_unique<Graph>(node.name());
  Node* copy = graph->AddNode(node.op_type(), node.name(), {}, node.num_outputs());
  copy->attrs() = node.attrs();
  for (size_t i = 0; i < node.num_inputs(); ++i) {
    const Value* input = node.input(i);
    Value* source = nullptr;
    if (input != nullptr) {
      source = input->constant() != nullptr ? graph->AddConstant(input->name(), *input->constant())
                                            : graph->AddInput(input->name(), input->dtype(), input->shape());
    }
    copy->SetInput(i, source);
  }
  for (size_t i = 0; i < node.num_outputs(); ++i) {
    copy->output(i)->set_name(node.output(i)->name());
    copy->output(i)->set_dtype(node.output(i)->dtype());
    copy->output(i)->set_shape(node.output(i)->shape());
  }
  return graph;
}

void AppendSignature(const Value* value, KernelCache::Key& key) {
  if (value == nullptr) {
    key.push_back(-1);  // absent optional input
    return;
  }
  key.push_back(static_cast<int64_t>(value->dtype()));
  key.push_back(static_cast<int64_t>(value->shape().rank()));
  key.insert(key.end(), value->shape().dims().begin(), value->shape().dims().end());
}

// After inference with every input known, anything still unknown cannot be run.
void RequireRunnableOutputs(const Node& node) {
  for (const Value* output : node.outputs()) {
    if (output->shape().IsStatic() && output->dtype() != DataType::kUndefined) continue;
    std::vector<std::string> input_shapes;
    for (const Value* input : node.inputs()) input_shapes.push_back(input ? input->shape().ToString() : "absent");
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("{}: the shape of output '{}' could not be determined (inferred {}, dtype {}, from input "
                            "shapes {})",
                            node.Describe(), output->name(), output->shape().ToString(),
                            DataTypeName(output->dtype()), fmt::join(input_shapes, ", ")));
  }
}

}  // namespace

DynamicExecutor::DynamicExecutor(const CompiledModel::Impl& impl, const device::Device& device)
    : impl_(impl), device_(device), plans_(impl.settings.dynamic_plan_cache_bytes) {
  std::unordered_map<const Node*, size_t> graph_index;
  std::vector<Node*> graph_nodes = impl.graph->nodes();
  for (size_t i = 0; i < graph_nodes.size(); ++i) graph_index[graph_nodes[i]] = i;
  std::unordered_map<const Value*, int> id_of;
  for (size_t id = 0; id < impl.values.size(); ++id) {
    const Value* value = impl.values[id];
    id_of[value] = static_cast<int>(id);
    origins_.push_back({graph_index.at(value->producer()), static_cast<size_t>(value->producer_output())});
  }
  readers_.assign(impl.values.size(), 0);
  is_output_.assign(impl.values.size(), false);
  for (int id : impl.output_values) is_output_[id] = true;

  for (const Node* node : impl.nodes) {
    if (node->op_type() == "Const") constant_values_.push_back(id_of.at(node->output(0)));
    if (IsSource(*node)) continue;
    NodeStep step;
    if (ControlFlowOp::Handles(node->op_type())) {
      step.control_flow = ControlFlowOp::Create(*node, impl.options);
    } else {
      FindKernelDef(device, *node);  // a missing kernel fails the compile, not the first run
    }
    step.node = node;
    step.graph_index = graph_index.at(node);
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
    for (const Value* output : node->outputs()) step.outputs.push_back(id_of.at(output));
    steps_.push_back(std::move(step));
  }
  for (const Tensor& constant : impl.constants) constant_data_.insert(constant.data());
  bool control_flow = std::any_of(steps_.begin(), steps_.end(), [](const NodeStep& step) { return step.control_flow; });
  // Plans are compiled by CompileGraph, which targets the CPU device.
  bool compiles_for_device = &device == &device::CpuDevice();
  plannable_ = impl.settings.dynamic_plan_cache_bytes > 0 && !control_flow && compiles_for_device;
}

std::shared_ptr<const CompiledModel> DynamicExecutor::PlanFor(const std::vector<Tensor>& inputs,
                                                              const PlanCache::Signature& signature) const {
  if (std::shared_ptr<const CompiledModel> cached = plans_.Find(signature)) return cached;
  std::unique_ptr<Graph> graph = impl_.graph->Clone();
  std::vector<Node*> nodes = graph->nodes();
  for (size_t position = 0; position < inputs.size(); ++position) {
    const ValueOrigin& origin = origins_[impl_.input_values[position]];
    nodes[origin.graph_index]->output(origin.output)->set_shape(inputs[position].shape());
  }
  Options options = impl_.options;
  options.erase("ge.dumpGraphDir");  // dumped once, when the model was compiled
  std::unique_ptr<CompiledModel::Impl> compiled = CompileGraph(std::move(graph), options);
  if (compiled->dynamic) {
    plannable_ = false;
    return nullptr;
  }
  size_t own_bytes = 0;  // constants folded for these shapes; the others are the model's
  for (const Tensor& constant : compiled->constants) {
    if (!constant_data_.count(constant.data())) own_bytes += constant.nbytes();
  }
  return plans_.Insert(signature, std::make_shared<const CompiledModel>(std::move(compiled)), own_bytes);
}

std::vector<Tensor> DynamicExecutor::Run(const std::vector<Tensor>& inputs, RunProfile* profile) const {
  if (plannable_.load()) {
    PlanCache::Signature signature;
    for (const Tensor& input : inputs) {
      signature.push_back(static_cast<int64_t>(input.shape().rank()));
      signature.insert(signature.end(), input.shape().dims().begin(), input.shape().dims().end());
    }
    if (std::shared_ptr<const CompiledModel> plan = PlanFor(inputs, signature)) {
      std::vector<Tensor> outputs = plan->Run(inputs, profile);
      plans_.Recharge(signature);
      return outputs;
    }
  }
  return RunNodeByNode(inputs, profile);
}

std::shared_ptr<const ShapedKernel> DynamicExecutor::KernelFor(size_t step_index, const Node& node) const {
  KernelCache::Key key{static_cast<int64_t>(step_index)};
  for (const Value* input : node.inputs()) AppendSignature(input, key);
  for (const Value* output : node.outputs()) AppendSignature(output, key);
  if (std::shared_ptr<const ShapedKernel> cached = kernels_.Find(key)) return cached;

  // Built outside the cache's lock: two runs may build the same kernel, and
  // the second one's is dropped.
  auto built = std::make_shared<ShapedKernel>();
  built->graph = IsolateNode(node);
  built->node = built->graph->FindNode(node.name());
  built->kernel = SelectKernel(device_, *built->node).kernel;
  return kernels_.Insert(key, std::move(built));
}

std::vector<Tensor> DynamicExecutor::RunStep(size_t step_index, Node& node, const std::vector<Tensor>& inputs,
                                             const InferContext::InputConstants& known) const {
  const NodeStep& step = steps_[step_index];
  if (step.control_flow) {
    std::vector<Tensor> results = step.control_flow->Run(inputs);
    for (size_t i = 0; i < results.size(); ++i) {
      Value* output = node.output(i);
      if (output->dtype() != DataType::kUndefined && output->dtype() != results[i].dtype()) {
        throw Error(ErrorCode::kInvalidModel, fmt::format("{}: output {} should be {} but its subgraph gave {}",
                                                          node.Describe(), i, DataTypeName(output->dtype()),
                                                          DataTypeName(results[i].dtype())));
      }
      output->set_dtype(results[i].dtype());
      output->set_shape(results[i].shape());
    }
    return results;
  }
  InferContext infer(node, known);
  step.schema->infer()(infer);
  RequireRunnableOutputs(node);
  // Shapes that follow from data are known only now: the cap applies here,
  // before the kernel allocates them, as the compiler applies it to static ones.
  for (const Value* output : node.outputs()) CheckTensorSize(node, *output, impl_.settings.max_tensor_bytes);
  std::shared_ptr<const ShapedKernel> kernel = KernelFor(step_index, node);
  return RunKernelOnHost(*kernel->kernel, *kernel->node, inputs);
}

std::vector<Tensor> DynamicExecutor::RunNodeByNode(const std::vector<Tensor>& inputs, RunProfile* profile) const {
  const auto run_start = ProfileClock::now();
  if (profile != nullptr) profile->steps.clear();
  // The run's own copy of the graph carries the run's shapes.
  std::unique_ptr<Graph> graph = impl_.graph->Clone();
  std::vector<Node*> nodes = graph->nodes();
  auto value_in_copy = [&](int id) { return nodes[origins_[id].graph_index]->output(origins_[id].output); };

  std::vector<Tensor> tensors(impl_.values.size());
  std::vector<bool> owned(impl_.values.size(), false);  // a buffer of this run's own, not a view
  std::vector<int> readers_left = readers_;
  for (size_t position = 0; position < inputs.size(); ++position) {
    int id = impl_.input_values[position];
    tensors[id] = inputs[position];
    value_in_copy(id)->set_shape(inputs[position].shape());
  }
  for (size_t i = 0; i < constant_values_.size(); ++i) tensors[constant_values_[i]] = impl_.constants[i];
  auto release = [&](int id) {
    if (readers_left[id] == 0 && !is_output_[id]) tensors[id] = Tensor();
  };

  std::vector<Tensor> step_inputs;
  for (size_t s = 0; s < steps_.size(); ++s) {
    const NodeStep& step = steps_[s];
    Node& node = *nodes[step.graph_index];
    step_inputs.clear();
    for (int id : step.inputs) step_inputs.push_back(id >= 0 ? tensors[id] : Tensor());
    const auto step_start = ProfileClock::now();
    std::vector<Tensor> results = RunStep(s, node, step_inputs, [&](size_t i) -> const Tensor* {
      return i < step_inputs.size() && !step_inputs[i].empty() ? &step_inputs[i] : nullptr;
    });
    if (profile != nullptr) {
      size_t live_bytes = 0;  // this run's own buffers, this step's outputs included
      for (size_t id = 0; id < tensors.size(); ++id) live_bytes += owned[id] ? tensors[id].nbytes() : 0;
      for (const Tensor& result : results) live_bytes += result.nbytes();
      std::string kernel = step.control_flow ? "control_flow/" + node.op_type() : KernelName(*KernelFor(s, node)->kernel);
      profile->steps.push_back(ProfileStep(node, std::move(kernel), 0, run_start, step_start, live_bytes));
    }
    for (size_t i = 0; i < results.size(); ++i) {
      int id = step.outputs[i];
      // A result sharing an input's buffer is that input's tensor (a view).
      owned[id] = std::none_of(step_inputs.begin(), step_inputs.end(),
                               [&](const Tensor& input) { return !input.empty() && input.data() == results[i].data(); });
      tensors[id] = std::move(results[i]);
      release(id);  // an output nothing reads
    }
    step_inputs.clear();  // drops this step's references before its inputs are released
    for (int id : step.inputs) {
      if (id < 0) continue;
      --readers_left[id];
      release(id);
    }
  }

  // Every output is a buffer of its own: graph inputs, constants, views and
  // repeated values are copied.
  std::vector<Tensor> outputs;
  std::vector<bool> handed_out(impl_.values.size(), false);
  for (int id : impl_.output_values) {
    bool movable = owned[id] && !handed_out[id];
    handed_out[id] = true;
    outputs.push_back(movable ? tensors[id] : tensors[id].Clone());
  }
  return outputs;
}

}  // namespace ge::runtime
