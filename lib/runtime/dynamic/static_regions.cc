#include "runtime/dynamic/static_regions.h"

#include <algorithm>
#include <map>
#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "runtime/dynamic/control_flow.h"
#include "runtime/dynamic/sequence_ops.h"

namespace ge::runtime {
namespace {

// A region of fewer nodes stays node by node: its compile and call would cost more than they save.
constexpr size_t kMinRegionNodes = 2;

bool IsKnown(const Value* value) {
  return value->shape().IsStatic() && value->dtype() != DataType::kUndefined && !IsContainer(value->dtype());
}

bool IsSource(const Node& node) { return node.op_type() == "Data" || node.op_type() == "Const"; }

// Whether `node` can run inside a static region: it computes with a kernel,
// every shape it reads or writes is known, and no control edge ties it to
// another step (the split graph keeps data edges only).
bool IsStatic(const Node& node) {
  if (ControlFlowOp::Handles(node.op_type()) || IsSequenceOp(node) || !node.control_inputs().empty()) return false;
  for (const Value* input : node.inputs()) {
    if (input != nullptr && !IsKnown(input)) return false;
  }
  for (const Value* output : node.outputs()) {
    if (!IsKnown(output)) return false;
  }
  return true;
}

// Copies `node` into `graph` reading the values `mapped` gives for its
// inputs, and maps its outputs to the copies.
void CopyNode(const Node& node, Graph& graph, std::unordered_map<const Value*, Value*>& mapped) {
  std::vector<Value*> inputs;
  for (const Value* input : node.inputs()) inputs.push_back(input != nullptr ? mapped.at(input) : nullptr);
  Node* copy = graph.AddNode(node.op_type(), node.name(), inputs, node.num_outputs());
  copy->attrs() = node.attrs();
  for (size_t i = 0; i < node.num_outputs(); ++i) {
    Value* output = copy->output(i);
    output->set_name(node.output(i)->name());
    output->set_dtype(node.output(i)->dtype());
    output->set_shape(node.output(i)->shape());
    mapped[node.output(i)] = output;
  }
}

// The value a Data or Const node gives, added to `graph` once.
Value* SourceIn(Graph& graph, const Value* source, std::unordered_map<const Value*, Value*>& mapped) {
  if (auto found = mapped.find(source); found != mapped.end()) return found->second;
  const Node& producer = *source->producer();
  Value* copy = producer.op_type() == "Const"
                    ? graph.AddConstant(source->name(), producer.attrs().GetTensor("value"))
                    : graph.AddInput(source->name(), source->dtype(), source->shape());
  mapped[source] = copy;
  return copy;
}

// One step of the split graph: a static region, or a node that runs alone.
struct Unit {
  std::vector<const Node*> nodes;  // in topological order
  bool region = false;
  int64_t level = 0;
  size_t first = 0;  // the topological position of its first node
};

// `unit` as a graph of its own: its inputs are the values it reads from
// other steps and graph inputs, its outputs the values other steps or the
// graph's outputs read. Returns the subgraph, and fills `reads` and `gives`.
std::shared_ptr<Graph> RegionGraph(const Graph& specialized, const Unit& unit, const std::string& name,
                                   std::vector<const Value*>& reads, std::vector<const Value*>& gives) {
  const std::unordered_set<const Node*> inside(unit.nodes.begin(), unit.nodes.end());
  auto graph = std::make_shared<Graph>(name);
  std::unordered_map<const Value*, Value*> mapped;
  for (const Node* node : unit.nodes) {
    for (const Value* input : node->inputs()) {
      if (input == nullptr || inside.count(input->producer()) || mapped.count(input)) continue;
      if (input->producer()->op_type() == "Const") {
        SourceIn(*graph, input, mapped);
      } else {
        reads.push_back(input);
        mapped[input] = graph->AddInput(input->name(), input->dtype(), input->shape());
      }
    }
    CopyNode(*node, *graph, mapped);
  }
  const std::vector<Value*>& outputs = specialized.outputs();
  std::vector<Value*> results;
  for (const Node* node : unit.nodes) {
    for (const Value* value : node->outputs()) {
      const bool read_outside = std::any_of(value->uses().begin(), value->uses().end(),
                                            [&](const Use& use) { return !inside.count(use.node); });
      if (read_outside || std::find(outputs.begin(), outputs.end(), value) != outputs.end()) {
        gives.push_back(value);
        results.push_back(mapped.at(value));
      }
    }
  }
  graph->SetOutputs(results);
  return graph;
}

// The units in an order that runs every producer first (the regions are
// convex, so one exists), ties by the original topological order.
std::vector<const Unit*> RunOrder(const std::vector<Unit>& units,
                                  const std::unordered_map<const Node*, size_t>& unit_of) {
  std::vector<std::unordered_set<size_t>> successors(units.size());
  std::vector<size_t> waiting(units.size(), 0);
  for (size_t u = 0; u < units.size(); ++u) {
    for (const Node* node : units[u].nodes) {
      for (const Value* input : node->inputs()) {
        if (input == nullptr || IsSource(*input->producer())) continue;
        const size_t from = unit_of.at(input->producer());
        if (from != u && successors[from].insert(u).second) ++waiting[u];
      }
    }
  }
  auto later = [&](size_t a, size_t b) { return units[a].first > units[b].first; };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> ready(later);
  for (size_t u = 0; u < units.size(); ++u) {
    if (waiting[u] == 0) ready.push(u);
  }
  std::vector<const Unit*> order;
  while (!ready.empty()) {
    const size_t u = ready.top();
    ready.pop();
    order.push_back(&units[u]);
    for (size_t next : successors[u]) {
      if (--waiting[next] == 0) ready.push(next);
    }
  }
  return order;
}

}  // namespace

std::unique_ptr<Graph> SplitStaticRegions(const Graph& specialized) {
  const std::vector<Node*> order = specialized.TopologicalOrder();
  // Levels: a static node's is the most dynamic nodes on a path to it.
  std::unordered_map<const Node*, int64_t> level;
  std::unordered_map<const Node*, bool> is_static;
  std::map<int64_t, std::vector<const Node*>> by_level;
  std::vector<const Node*> alone;
  std::unordered_map<const Node*, size_t> position;
  for (const Node* node : order) {
    position[node] = position.size();
    if (IsSource(*node)) continue;
    const bool fixed = IsStatic(*node);
    int64_t own = 0;
    for (const Value* input : node->inputs()) {
      if (input == nullptr || IsSource(*input->producer())) continue;
      const Node* producer = input->producer();
      own = std::max(own, level.at(producer) + (fixed && !is_static.at(producer) ? 1 : 0));
    }
    for (const Node* control : node->control_inputs()) {
      if (!IsSource(*control)) own = std::max(own, level.at(control));
    }
    level[node] = own;
    is_static[node] = fixed;
    if (fixed) {
      by_level[own].push_back(node);
    } else {
      alone.push_back(node);
    }
  }
  std::vector<Unit> units;
  size_t in_regions = 0;
  for (auto& [region_level, nodes] : by_level) {
    if (nodes.size() < kMinRegionNodes) {
      alone.insert(alone.end(), nodes.begin(), nodes.end());
      continue;
    }
    in_regions += nodes.size();
    units.push_back({nodes, true, region_level, position.at(nodes.front())});
  }
  // Regions smaller than the dynamic rest (control flow or data-dependent
  // shapes early, nothing static after) save too little to be worth compiles.
  if (alone.empty() || in_regions < alone.size()) return nullptr;
  for (const Node* node : alone) units.push_back({{node}, false, level.at(node), position.at(node)});
  std::unordered_map<const Node*, size_t> unit_of;
  for (size_t u = 0; u < units.size(); ++u) {
    for (const Node* node : units[u].nodes) unit_of[node] = u;
  }

  // The graph again: its inputs, then each step in turn.
  auto split = std::make_unique<Graph>(specialized.name());
  std::unordered_map<const Value*, Value*> in_split;
  for (const Value* input : specialized.inputs()) SourceIn(*split, input, in_split);
  auto reach = [&](const Value* value) {
    if (!in_split.count(value)) SourceIn(*split, value, in_split);
    return in_split.at(value);
  };
  for (const Unit* unit : RunOrder(units, unit_of)) {
    if (!unit->region) {
      for (const Value* input : unit->nodes.front()->inputs()) {
        if (input != nullptr) reach(input);
      }
      CopyNode(*unit->nodes.front(), *split, in_split);
      continue;
    }
    const std::string name = fmt::format("{}_static_region_{}", specialized.name(), unit->level);
    std::vector<const Value*> reads, gives;
    std::shared_ptr<Graph> region = RegionGraph(specialized, *unit, name, reads, gives);
    std::vector<Value*> call_inputs;
    for (const Value* value : reads) call_inputs.push_back(reach(value));
    Node* call = split->AddNode("PartitionedCall", name, call_inputs, gives.size());
    call->attrs().Set("f", std::shared_ptr<const Graph>(std::move(region)));
    for (size_t i = 0; i < gives.size(); ++i) {
      Value* output = call->output(i);
      output->set_name(gives[i]->name());
      output->set_dtype(gives[i]->dtype());
      output->set_shape(gives[i]->shape());
      in_split[gives[i]] = output;
    }
  }
  std::vector<Value*> outputs;
  for (const Value* output : specialized.outputs()) outputs.push_back(reach(output));
  split->SetOutputs(outputs);
  return split;
}

}  // namespace ge::runtime
