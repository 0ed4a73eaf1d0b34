#include "quant/activation_capture.h"

#include <unordered_map>

#include <fmt/format.h>

#include "ge/error.h"
#include "quant/device_independent_compile.h"

namespace ge::quant {
namespace {

// How many valid names an unknown-name error lists.
constexpr size_t kListedNames = 8;

bool IsCapturable(const Value& value) { return value.constant() == nullptr; }

// Every non-constant value, in the topological order of the producers.
std::vector<const Value*> NonConstantValues(const Graph& graph) {
  std::vector<const Value*> values;
  for (const Node* node : graph.TopologicalOrder()) {
    for (const Value* value : node->outputs()) {
      if (IsCapturable(*value)) values.push_back(value);
    }
  }
  return values;
}

std::string SomeNames(const std::vector<const Value*>& values) {
  std::vector<std::string> names;
  for (size_t i = 0; i < values.size() && i < kListedNames; ++i) names.push_back(values[i]->name());
  std::string text = fmt::format("{}", fmt::join(names, ", "));
  if (values.size() > kListedNames) text += fmt::format(" (and {} more)", values.size() - kListedNames);
  return text;
}

std::vector<const Value*> NamedValues(const Graph& graph, const std::vector<std::string>& names) {
  const std::vector<const Value*> candidates = NonConstantValues(graph);
  std::unordered_map<std::string, const Value*> by_name;
  for (const Value* value : candidates) by_name.emplace(value->name(), value);
  std::vector<const Value*> values;
  for (const std::string& name : names) {
    auto found = by_name.find(name);
    if (found == by_name.end()) {
      throw Error(ErrorCode::kNotFound,
                  fmt::format("cannot capture '{}': the optimized graph '{}' has no non-constant value of that name; "
                              "valid names include {}",
                              name, graph.name(), SomeNames(candidates)));
    }
    values.push_back(found->second);
  }
  return values;
}

}  // namespace

ActivationCapture::ActivationCapture(const Graph& graph, const Options& options)
    : optimized_(CompileDeviceIndependent(graph.Clone(), options)) {
  Build(NonConstantValues(optimized_->graph()), options);
}

ActivationCapture::ActivationCapture(const Graph& graph, const std::vector<std::string>& value_names,
                                     const Options& options)
    : optimized_(CompileDeviceIndependent(graph.Clone(), options)) {
  Build(NamedValues(optimized_->graph(), value_names), options);
}

void ActivationCapture::Build(const std::vector<const Value*>& wanted, const Options& options) {
  graph_values_ = wanted;
  std::unique_ptr<Graph> capture = optimized_->graph().Clone();
  // The original outputs stay first; a wanted value that already is an output reuses its slot.
  std::vector<Value*> outputs = capture->outputs();
  std::unordered_map<const Value*, size_t> slots;
  for (size_t i = outputs.size(); i-- > 0;) slots[outputs[i]] = i;  // the first slot of a repeated output
  for (const Value* value : wanted) {
    // Node names are unique and Clone keeps them, so this finds the copy even if two values shared a name.
    Value* copy = capture->FindNode(value->producer()->name())->output(static_cast<size_t>(value->producer_output()));
    auto [slot, added] = slots.emplace(copy, outputs.size());
    if (added) outputs.push_back(copy);
    output_slots_.push_back(slot->second);
    values_.push_back({value->name(), value->dtype(), value->shape()});
  }
  capture->SetOutputs(std::move(outputs));
  capture_ = CompileDeviceIndependent(std::move(capture), options);
  for (size_t i = 0; i < values_.size(); ++i) {
    const std::string& kept = capture_->outputs().at(output_slots_[i]).name;
    if (kept != values_[i].name) {
      throw Error(ErrorCode::kInternal,
                  fmt::format("activation capture: recompiling graph '{}' renamed captured value '{}' to '{}'",
                              optimized_->graph().name(), values_[i].name, kept));
    }
  }
}

std::vector<Tensor> ActivationCapture::Run(const std::vector<Tensor>& inputs) const {
  return RunWithOutputs(inputs).values;
}

ActivationCapture::Captured ActivationCapture::RunWithOutputs(const std::vector<Tensor>& inputs) const {
  std::vector<Tensor> all = capture_->Run(inputs);
  Captured captured;
  const size_t num_outputs = optimized_->outputs().size();
  captured.outputs.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(num_outputs));
  for (size_t slot : output_slots_) captured.values.push_back(all.at(slot));
  return captured;
}

}  // namespace ge::quant
