#include "ge/graph.h"

#include <algorithm>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include <fmt/core.h>

#include "ge/error.h"

namespace ge {

// ---- Value ----------------------------------------------------------------

const Tensor* Value::constant() const {
  if (!producer_ || producer_->op_type() != "Const") return nullptr;
  const AttrValue* value = producer_->attrs().Find("value");
  return value ? std::get_if<Tensor>(value) : nullptr;
}

void Value::RemoveUse(const Use& use) {
  auto it = std::find(uses_.begin(), uses_.end(), use);
  if (it != uses_.end()) uses_.erase(it);
}

// ---- Node -----------------------------------------------------------------

void Node::SetInput(size_t index, Value* value) {
  if (index >= inputs_.size()) inputs_.resize(index + 1, nullptr);
  if (Value* old = inputs_[index]) old->RemoveUse(Use{this, static_cast<int>(index)});
  inputs_[index] = value;
  if (value) value->uses_.push_back(Use{this, static_cast<int>(index)});
}

void Node::AddInput(Value* value) { SetInput(inputs_.size(), value); }

void Node::AddControlInput(Node* node) {
  if (std::find(control_inputs_.begin(), control_inputs_.end(), node) == control_inputs_.end()) {
    control_inputs_.push_back(node);
  }
}

std::string Node::Describe() const { return fmt::format("node '{}' ({})", name_, op_type_); }

// ---- Graph ----------------------------------------------------------------

Graph::Graph(std::string name) : name_(std::move(name)) {}
Graph::~Graph() = default;

Graph::Graph(Graph&& other) noexcept { *this = std::move(other); }

Graph& Graph::operator=(Graph&& other) noexcept {
  name_ = std::move(other.name_);
  nodes_ = std::move(other.nodes_);
  node_names_ = std::move(other.node_names_);
  outputs_ = std::move(other.outputs_);
  next_sequence_ = other.next_sequence_;
  for (auto& node : nodes_) node->graph_ = this;  // nodes point back at their graph
  return *this;
}

std::string Graph::UniqueName(const std::string& prefix) {
  std::string base = prefix.empty() ? std::string("node") : prefix;
  if (!NameTaken(base)) return base;
  for (size_t n = 1;; ++n) {
    std::string candidate = fmt::format("{}_{}", base, n);
    if (!NameTaken(candidate)) return candidate;
  }
}

Node* Graph::CreateNode(const std::string& op_type, const std::string& name, size_t num_outputs) {
  auto node = std::make_unique<Node>();
  node->op_type_ = op_type;
  node->name_ = UniqueName(name.empty() ? op_type : name);
  node->graph_ = this;
  node->sequence_ = next_sequence_++;
  for (size_t i = 0; i < num_outputs; ++i) {
    auto value = std::make_unique<Value>();
    value->name_ = num_outputs == 1 ? node->name_ : fmt::format("{}:{}", node->name_, i);
    value->producer_ = node.get();
    value->producer_output_ = static_cast<int>(i);
    node->outputs_.push_back(value.get());
    node->output_storage_.push_back(std::move(value));
  }
  Node* raw = node.get();
  node_names_[raw->name_] = raw;
  nodes_.push_back(std::move(node));
  return raw;
}

Value* Graph::AddInput(const std::string& name, DataType dtype, Shape shape) {
  int64_t index = 0;
  for (const auto& node : nodes_) index += node->op_type_ == "Data";
  Node* node = CreateNode("Data", name, 1);
  node->attrs_.Set("index", index);
  Value* value = node->output(0);
  value->name_ = name;
  value->dtype_ = dtype;
  value->shape_ = std::move(shape);
  return value;
}

Value* Graph::AddConstant(const std::string& name, Tensor tensor) {
  Node* node = CreateNode("Const", name, 1);
  Value* value = node->output(0);
  value->name_ = name;
  value->dtype_ = tensor.dtype();
  value->shape_ = tensor.shape();
  node->attrs_.Set("value", std::move(tensor));
  return value;
}

Node* Graph::AddNode(const std::string& op_type, const std::string& name, const std::vector<Value*>& inputs,
                     size_t num_outputs) {
  Node* node = CreateNode(op_type, name, num_outputs);
  for (Value* input : inputs) node->AddInput(input);
  return node;
}

std::vector<Value*> Graph::inputs() const {
  std::vector<std::pair<int64_t, Value*>> indexed;
  for (const auto& node : nodes_) {
    if (node->op_type_ != "Data") continue;
    const AttrValue* index = node->attrs_.Find("index");
    const int64_t* as_int = index ? std::get_if<int64_t>(index) : nullptr;
    indexed.emplace_back(as_int ? *as_int : 0, node->output(0));
  }
  std::stable_sort(indexed.begin(), indexed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Value*> result;
  for (auto& entry : indexed) result.push_back(entry.second);
  return result;
}

std::vector<Node*> Graph::nodes() const {
  std::vector<Node*> result;
  result.reserve(nodes_.size());
  for (const auto& node : nodes_) result.push_back(node.get());
  return result;
}

Node* Graph::FindNode(const std::string& name) const {
  auto it = node_names_.find(name);
  return it == node_names_.end() ? nullptr : it->second;
}

std::vector<Node*> Graph::TopologicalOrder() const {
  // Kahn's algorithm; the ready set is ordered by insertion sequence so that
  // the result is deterministic and close to the order the graph was built in.
  std::unordered_map<const Node*, size_t> pending;
  std::unordered_map<const Node*, std::vector<Node*>> successors;
  for (const auto& node : nodes_) {
    std::unordered_set<const Node*> preds;
    for (Value* input : node->inputs_) {
      if (input && input->producer_) preds.insert(input->producer_);
    }
    for (Node* control : node->control_inputs_) preds.insert(control);
    pending[node.get()] = preds.size();
    for (const Node* pred : preds) successors[pred].push_back(node.get());
  }
  auto later = [](const Node* a, const Node* b) { return a->sequence_ > b->sequence_; };
  std::priority_queue<Node*, std::vector<Node*>, decltype(later)> ready(later);
  for (const auto& node : nodes_) {
    if (pending[node.get()] == 0) ready.push(node.get());
  }
  std::vector<Node*> order;
  order.reserve(nodes_.size());
  while (!ready.empty()) {
    Node* node = ready.top();
    ready.pop();
    order.push_back(node);
    for (Node* next : successors[node]) {
      if (--pending[next] == 0) ready.push(next);
    }
  }
  if (order.size() != nodes_.size()) {
    for (const auto& node : nodes_) {
      if (pending[node.get()] != 0) {
        throw Error(ErrorCode::kInvalidModel,
                    fmt::format("graph '{}' has a cycle through {}", name_, node->Describe()));
      }
    }
  }
  return order;
}

void Graph::ReplaceAllUsesWith(Value* from, Value* to) {
  if (from == to) return;
  std::vector<Use> uses = from->uses_;
  for (const Use& use : uses) use.node->SetInput(static_cast<size_t>(use.input_index), to);
  std::replace(outputs_.begin(), outputs_.end(), from, to);
}

void Graph::RemoveNode(Node* node) {
  for (Value* output : node->outputs_) {
    if (!output->uses_.empty() || std::count(outputs_.begin(), outputs_.end(), output)) {
      throw Error(ErrorCode::kInternal,
                  fmt::format("cannot remove {}: its output '{}' is still used", node->Describe(), output->name_));
    }
  }
  for (size_t i = 0; i < node->inputs_.size(); ++i) {
    if (node->inputs_[i]) node->inputs_[i]->RemoveUse(Use{node, static_cast<int>(i)});
  }
  for (const auto& other : nodes_) {
    auto& controls = other->control_inputs_;
    controls.erase(std::remove(controls.begin(), controls.end(), node), controls.end());
  }
  node_names_.erase(node->name_);
  auto it = std::find_if(nodes_.begin(), nodes_.end(), [node](const auto& owned) { return owned.get() == node; });
  if (it != nodes_.end()) nodes_.erase(it);
}

size_t Graph::RemoveDeadNodes() {
  std::unordered_set<const Node*> live;
  std::vector<const Node*> stack;
  auto mark = [&](const Node* node) {
    if (node && live.insert(node).second) stack.push_back(node);
  };
  for (Value* output : outputs_) mark(output->producer_);
  for (const auto& node : nodes_) {
    if (node->op_type_ == "Data") mark(node.get());
  }
  while (!stack.empty()) {
    const Node* node = stack.back();
    stack.pop_back();
    for (Value* input : node->inputs_) {
      if (input) mark(input->producer_);
    }
    for (const Node* control : node->control_inputs_) mark(control);
  }
  std::vector<Node*> order = TopologicalOrder();
  size_t removed = 0;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (!live.count(*it)) {
      RemoveNode(*it);
      ++removed;
    }
  }
  return removed;
}

std::unique_ptr<Graph> Graph::Clone() const {
  auto copy = std::make_unique<Graph>(name_);
  std::unordered_map<const Value*, Value*> value_map;
  std::unordered_map<const Node*, Node*> node_map;
  for (const auto& node : nodes_) {
    Node* cloned = copy->CreateNode(node->op_type_, node->name_, node->outputs_.size());
    cloned->attrs_ = node->attrs_;
    for (size_t i = 0; i < node->outputs_.size(); ++i) {
      Value* from = node->outputs_[i];
      Value* to = cloned->outputs_[i];
      to->name_ = from->name_;
      to->dtype_ = from->dtype_;
      to->shape_ = from->shape_;
      value_map[from] = to;
    }
    node_map[node.get()] = cloned;
  }
  for (const auto& node : nodes_) {
    Node* cloned = node_map[node.get()];
    for (Value* input : node->inputs_) cloned->AddInput(input ? value_map.at(input) : nullptr);
    for (Node* control : node->control_inputs_) cloned->AddControlInput(node_map.at(control));
  }
  for (Value* output : outputs_) copy->outputs_.push_back(value_map.at(output));
  copy->next_sequence_ = next_sequence_;
  return copy;
}

}  // namespace ge
