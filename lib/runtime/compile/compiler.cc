#include "runtime/compile/compiler.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "device/device.h"
#include "runtime/compile/device_selection.h"
#include "ge/error.h"
#include "graph/symbolic_shapes.h"
#include "graph/verifier.h"
#include "passes/impl_mode_selection.h"
#include "passes/pass.h"
#include "passes/precision_lists.h"
#include "passes/precision_mode.h"
#include "runtime/compile/constant_evaluator.h"
#include "runtime/dynamic/control_flow.h"
#include "runtime/dynamic/dynamic_executor.h"
#include "runtime/dynamic/sequence_ops.h"
#include "runtime/execute/intra_op_threads.h"
#include "runtime/compile/kernel_selection.h"
#include "runtime/compile/model_layout.h"
#include "runtime/compile/packed_constants.h"
#include "runtime/compile/packed_weights.h"
#include "runtime/compile/storage_plan.h"
#include "runtime/compile/stream_assignment.h"
#include "runtime/execute/stream_workers.h"
#include "runtime/compile/tensor_size_cap.h"

namespace ge::runtime {
namespace {

// Kernels are chosen by dtype, so every dtype must be known after inference.
void RequireDtypes(const Graph& graph) {
  for (const Node* node : graph.nodes()) {
    for (const Value* output : node->outputs()) {
      if (output->dtype() == DataType::kUndefined) {
        throw Error(ErrorCode::kInvalidModel,
                    fmt::format("{}: output '{}' has no dtype after shape inference", node->Describe(), output->name()));
      }
    }
  }
}

// The planner needs every dimension fixed, and kernels for every node;
// otherwise the model runs dynamically. Control-flow nodes' outputs are what
// their subgraphs produce, known only once they ran.
// Sequences and optionals have no kernels: a graph holding one (even as an
// input, whose element count a signature makes known) runs node by node.
bool Plannable(const Graph& graph) {
  for (const Node* node : graph.nodes()) {
    if (ControlFlowOp::Handles(node->op_type()) || IsSequenceOp(*node)) return false;
    for (const Value* output : node->outputs()) {
      if (!output->shape().IsStatic() || IsContainer(output->dtype())) return false;
    }
  }
  return true;
}

// The PassManager checks the names too; this says which option they came from.
void CheckDisabledPasses(const PassManager& passes, const std::set<std::string>& disabled) {
  std::vector<std::string> known = passes.PassNames();
  for (const std::string& name : disabled) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      throw Error(ErrorCode::kInvalidArgument, fmt::format("option ge.disablePasses: unknown pass '{}'; valid passes: {}",
                                                           name, fmt::join(known, ", ")));
    }
  }
}

// keep_dtype and modify_mixlist only matter to precision modes that change
// dtypes; their files are read at every compile so that mistakes surface
// early. Errors say which option named the file.
passes::PrecisionPolicy LoadPrecisionPolicy(const RuntimeOptions& settings) {
  auto load = [](const std::string& option, const std::string& path, auto loader) {
    using List = decltype(loader(path));
    if (path.empty()) return List{};
    try {
      return loader(path);
    } catch (const Error& error) {
      throw Error(error.code(), fmt::format("option {}: {}", option, error.what()));
    }
  };
  passes::KeepDtypeList keep = load("ge.keepDtype", settings.keep_dtype, passes::LoadKeepDtype);
  passes::MixlistEdits edits = load("ge.exec.modify_mixlist", settings.modify_mixlist, passes::LoadMixlist);
  return passes::MakePrecisionPolicy(settings.precision_mode, settings.precision_mode_v2, std::move(keep), edits);
}

// A node without a kernel has no modes; selection reports that later.
std::vector<std::string> KernelImplModes(const device::Device& device, const Node& node) {
  const device::KernelDef* def = device.kernels().Find(node.op_type(), KernelSelectionDtype(node));
  return def == nullptr ? std::vector<std::string>{} : def->impl_modes;
}

}  // namespace

void MakeDynamic(CompiledModel::Impl& impl, const device::Device& device, std::vector<const Node*> nodes) {
  if (impl.settings.release_packed_constants) KeepWeightsOnlyPacked(impl, device);
  NumberValues(impl, device, std::move(nodes));
  // Outputs report their dims as expressions, and the constant dims only
  // symbolic inference proved (a logits' batch of 1 after shape arithmetic).
  impl.symbolic_shapes = SymbolicShapes::Infer(*impl.graph);
  for (size_t i = 0; i < impl.outputs.size(); ++i) {
    const Value* output = impl.graph->outputs()[i];
    TensorInfo& info = impl.outputs[i];
    info.dim_names = impl.symbolic_shapes->DimNames(output);
    const SymbolicDims* dims = impl.symbolic_shapes->dims(output);
    if (dims == nullptr || info.shape.unknown_rank()) continue;
    for (size_t axis = 0; axis < dims->size(); ++axis) {
      if (std::optional<int64_t> c = (*dims)[axis].constant()) info.shape.dim(axis) = *c;
    }
  }
  impl.memory = MemorySummary{};
  for (const Tensor& constant : impl.constants) impl.memory.const_bytes += constant.nbytes();
  impl.memory.dynamic = true;
  impl.dynamic = std::make_shared<const DynamicExecutor>(impl, device);
}

std::unique_ptr<CompiledModel::Impl> CompileGraph(std::unique_ptr<Graph> graph, const Options& options,
                                                  DeviceRewrites device_rewrites) {
  if (!graph) throw Error(ErrorCode::kInvalidArgument, "CompiledModel::Compile: the graph is null");
  auto impl = std::make_unique<CompiledModel::Impl>();
  impl->options = options;
  impl->settings = ParseOptions(options);
  ScopedIntraOpThreads threads(impl->settings.intra_op_threads);  // kernels size their scratch by it
  if (graph->outputs().empty()) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("graph '{}' has no outputs", graph->name()));
  }

  impl->device = SelectDevice(impl->settings);
  impl->device_name = impl->device->name();
  device::Device& device = *impl->device;
  // Constant folding runs on the host whatever the target device.
  const RuntimeOptions& settings = impl->settings;
  KernelConstantEvaluator evaluator(device::CpuDevice(), settings.max_tensor_bytes);
  const passes::PrecisionPolicy precision = LoadPrecisionPolicy(settings);
  const passes::ImplModeSelection impl_modes = passes::MakeImplModeSelection(
      settings.impl_mode, settings.impl_mode_given, settings.optypelist_for_implmode, settings.op_precision_mode);
  PassContext context;
  context.options = &impl->options;
  context.evaluator = &evaluator;
  context.impl_modes = &impl_modes;
  context.kernel_impl_modes = [&device](const Node& node) { return KernelImplModes(device, node); };
  context.precision = &precision;
  context.has_kernel = [&device](const std::string& op_type, DataType dtype) {
    return device.kernels().Find(op_type, dtype) != nullptr;
  };
  // Before the passes, whose folding would allocate what the model claims; again after them for what they inferred.
  CheckTensorSizes(*graph, settings.max_tensor_bytes);
  PassManager passes = PassManager::WithBuiltinPasses();
  for (std::unique_ptr<Pass>& rewrite : device.RewritePasses()) passes.Register(PassStage::kDevice, std::move(rewrite));
  CheckDisabledPasses(passes, impl->settings.disabled_passes);
  PassManagerOptions pass_options{impl->settings.disabled_passes, impl->settings.dump_graph_dir,
                                  device_rewrites == DeviceRewrites::kSkip};
  impl->pass_timings = passes.Run(*graph, context, pass_options);
  VerifyGraph(*graph);
  RequireDtypes(*graph);
  CheckTensorSizes(*graph, settings.max_tensor_bytes);

  bool is_static = Plannable(*graph);
  impl->graph = std::move(graph);
  std::vector<Node*> order = impl->graph->TopologicalOrder();
  std::vector<const Node*> nodes(order.begin(), order.end());
  if (!is_static) {
    if (!device.host_memory()) {
      throw Error(ErrorCode::kUnsupported,
                  fmt::format("graph '{}': shapes known only at run time and control flow run on the CPU device "
                              "only, not on {} (ge.exec.device)",
                              impl->graph->name(), device.name()));
    }
    MakeDynamic(*impl, device, std::move(nodes));
    return impl;
  }
  std::vector<size_t> steps = DefaultStepNodes(nodes);
  // A multi-stream plan rebuilds the kernels once streams are known, from the
  // constants: those are freed only after that.
  const bool release_packed = settings.release_packed_constants;
  LayOutModel(*impl, device, std::move(nodes), steps, release_packed && settings.single_stream);
  AssignStreams(*impl);
  if (impl->stream_count > 1) {
    ScopedIntraOpThreads team(StreamTeamSize(impl->settings.intra_op_threads, impl->stream_count));
    RebuildKernels(*impl, device);
  }
  if (release_packed && !settings.single_stream) {
    for (const Value* constant : PackedAwayConstants(*impl)) ReleaseConstantBytes(*impl, *constant);
  }
  PlanStorage(*impl);
  impl->arenas = std::make_unique<ArenaPool>(device.allocator(), impl->memory.arena_bytes, impl->settings.max_arenas);
  if (!device.host_memory()) impl->device_constants = std::make_unique<DeviceConstants>(device, impl->constants);
  return impl;
}

}  // namespace ge::runtime
