#include "passes/pattern_fusion.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <utility>

#include "graph/half_float_bits.h"
#include "passes/graph_rewrite.h"
#include "passes/impl_mode_selection.h"

namespace ge::passes {

PatternMatcher::PatternMatcher(const Graph& graph)
    : graph_(graph), control_dependents_(NodesWithControlDependents(graph)) {}

bool PatternMatcher::Absorbable(const Node* node, const std::string& op_type) const {
  return node != nullptr && node->op_type() == op_type && node->num_outputs() == 1 && node->control_inputs().empty() &&
         control_dependents_.count(node) == 0;
}

std::vector<Node*> PatternMatcher::Users(const Value* value) const {
  std::vector<Node*> users;
  if (IsGraphOutput(graph_, value)) return users;
  for (const Use& use : value->uses()) {
    if (std::find(users.begin(), users.end(), use.node) == users.end()) users.push_back(use.node);
  }
  return users;
}

Node* PatternMatcher::SoleUser(const Value* value, const std::string& op_type) const {
  std::vector<Node*> users = Users(value);
  return users.size() == 1 && Absorbable(users[0], op_type) ? users[0] : nullptr;
}

Value* OtherInput(const Node& node, const Value* known) {
  if (node.num_inputs() != 2) return nullptr;
  if (node.input(1) == known) return node.input(0);
  if (node.input(0) == known) return node.input(1);
  return nullptr;
}

bool IsFusableFloat(DataType dtype) {
  return dtype == DataType::kFloat || dtype == DataType::kFloat16 || dtype == DataType::kBFloat16;
}

namespace {

// Element i of a float32/float16/bfloat16 tensor.
double ElementAsDouble(const Tensor& tensor, int64_t i) {
  switch (tensor.dtype()) {
    case DataType::kFloat: return tensor.data_as<float>()[i];
    case DataType::kFloat16: return static_cast<double>(tensor.data_as<_Float16>()[i]);
    default: return BFloat16BitsToFloat(tensor.data_as<uint16_t>()[i]);  // bfloat16
  }
}

double MachineEpsilon(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat: return 0x1p-23;
    case DataType::kFloat16: return 0x1p-10;
    default: return 0x1p-7;  // bfloat16
  }
}

}  // namespace

std::optional<double> UniformConstantValue(const Value* value) {
  const Tensor* tensor = value != nullptr ? value->constant() : nullptr;
  if (tensor == nullptr || !IsFusableFloat(tensor->dtype()) || tensor->num_elements() < 1) return std::nullopt;
  const double first = ElementAsDouble(*tensor, 0);
  for (int64_t i = 1; i < tensor->num_elements(); ++i) {
    if (ElementAsDouble(*tensor, i) != first) return std::nullopt;
  }
  return first;
}

bool IsUniformConstant(const Value* value, double expected) {
  std::optional<double> actual = UniformConstantValue(value);
  return actual && std::abs(*actual - expected) <= std::abs(expected) * MachineEpsilon(value->dtype());
}

Tensor FilledTensor(DataType dtype, Shape shape, float value) {
  Tensor tensor(dtype, std::move(shape));
  for (int64_t i = 0; i < tensor.num_elements(); ++i) {
    switch (dtype) {
      case DataType::kFloat: tensor.data_as<float>()[i] = value; break;
      case DataType::kFloat16: tensor.data_as<_Float16>()[i] = static_cast<_Float16>(value); break;
      default: tensor.data_as<uint16_t>()[i] = FloatToBFloat16Bits(value);  // bfloat16
    }
  }
  return tensor;
}

bool DeviceHasKernel(const PassContext& ctx, const std::string& op_type, DataType dtype) {
  return !ctx.has_kernel || ctx.has_kernel(op_type, dtype);
}

namespace {

// "/layers.0/norm1/" for "/layers.0/norm1/Add_1": the exporter's module scope.
std::string Scope(const std::string& node_name) {
  size_t slash = node_name.rfind('/');
  return slash == std::string::npos ? "" : node_name.substr(0, slash + 1);
}

// See ApplyFusion: the fused node's mode follows the modes of the nodes it replaces.
void CarryImplMode(const PassContext& ctx, const Fusion& fusion, Node& fused) {
  std::vector<std::string> replaced_modes;
  for (const Node* node : fusion.pattern) {
    if (const std::optional<std::string_view> mode = AppliedImplMode(*node)) replaced_modes.emplace_back(*mode);
  }
  if (replaced_modes.empty() || !ctx.kernel_impl_modes) return;  // nothing chose a mode: kernel defaults throughout
  std::vector<std::string> offered = ctx.kernel_impl_modes(fused);
  if (offered.size() <= 1) return;
  const std::string fast(kHighPerformance);
  bool all_fast = std::all_of(replaced_modes.begin(), replaced_modes.end(), [&](const auto& m) { return m == fast; });
  bool fast_offered = std::find(offered.begin(), offered.end(), fast) != offered.end();
  const std::string applied = all_fast && fast_offered ? fast : offered.front();
  fused.attrs().Set(kImplModeAttr, applied);
  fused.attrs().Set(kRequestedImplModeAttr, std::string());
  fused.attrs().Set(kImplModeReasonAttr, all_fast
                                             ? fusion.pass_name + ": the nodes it replaces all ran " + fast
                                             : fusion.pass_name + ": keeps the precision of the nodes it replaces");
}

}  // namespace

void ReplaceKeepingName(Graph& graph, Value* from, Value* to) {
  // Swapping keeps value names unique.
  std::string name = from->name();
  from->set_name(to->name());
  to->set_name(std::move(name));
  graph.ReplaceAllUsesWith(from, to);
}

Node* ApplyFusion(Graph& graph, const PassContext& ctx, Fusion fusion) {
  Value* old_output = fusion.output;
  Node* fused = graph.AddNode(fusion.op_type, graph.UniqueName(Scope(fusion.pattern.back()->name()) + fusion.op_type),
                              fusion.inputs);
  fused->attrs() = std::move(fusion.attrs);
  Value* output = fused->output(0);
  output->set_dtype(old_output->dtype());
  output->set_shape(old_output->shape());
  CarryImplMode(ctx, fusion, *fused);
  ReplaceKeepingName(graph, old_output, output);
  for (auto it = fusion.pattern.rbegin(); it != fusion.pattern.rend(); ++it) graph.RemoveNode(*it);
  return fused;
}

bool FuseAll(Graph& graph, const PassContext& ctx, const std::string& anchor_op_type,
             const std::function<std::optional<Fusion>(Node*)>& match) {
  std::unordered_set<const Node*> removed;  // the order below was taken before fusions removed them
  bool changed = false;
  for (Node* node : graph.TopologicalOrder()) {
    if (removed.count(node) != 0 || node->op_type() != anchor_op_type) continue;
    std::optional<Fusion> fusion = match(node);
    if (!fusion) continue;
    removed.insert(fusion->pattern.begin(), fusion->pattern.end());
    ApplyFusion(graph, ctx, std::move(*fusion));
    changed = true;
  }
  return changed;
}

}  // namespace ge::passes
