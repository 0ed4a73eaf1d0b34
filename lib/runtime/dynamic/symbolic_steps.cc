#include "runtime/dynamic/symbolic_steps.h"

namespace ge::runtime {

SymbolicSizes SymbolicSteps::Sizes(const SymbolicDims& exprs) {
  SymbolicSizes sizes;
  for (const DimExpr& e : exprs) {
    if (const std::optional<int64_t> c = e.constant()) {
      sizes.push_back(SymbolicSize{*c, -1});
      continue;
    }
    const auto [it, added] = index_.emplace(e, static_cast<int>(exprs_.size()));
    if (added) exprs_.push_back(e);
    sizes.push_back(SymbolicSize{0, it->second});
  }
  return sizes;
}

std::vector<SymbolicSizes> SymbolicSteps::ProvenDims(const Node& node) {
  if (shapes_ == nullptr) return {};
  for (const Value* output : node.outputs()) {
    const SymbolicDims* dims = shapes_->dims(output);
    const DataType dtype = output->dtype();
    if (dims == nullptr || !shapes_->Proven(output) || dtype == DataType::kUndefined || IsContainer(dtype)) return {};
    for (const DimExpr& d : *dims) {
      const std::optional<int64_t> c = d.constant();
      if (!shapes_->table().Determined(d) || (c && *c < 0)) return {};
    }
  }
  std::vector<SymbolicSizes> dims;
  for (const Value* output : node.outputs()) dims.push_back(Sizes(*shapes_->dims(output)));
  return dims;
}

std::vector<SymbolicSizes> SymbolicSteps::KnownContents(const Node& node) {
  if (shapes_ == nullptr || node.num_outputs() == 0) return {};
  for (const Value* output : node.outputs()) {
    const SymbolicDims* contents = shapes_->value(output);
    const DataType dtype = output->dtype();
    if (contents == nullptr || (dtype != DataType::kInt64 && dtype != DataType::kInt32)) return {};
    for (const DimExpr& e : *contents) {
      if (!shapes_->table().Determined(e)) return {};
    }
  }
  std::vector<SymbolicSizes> contents;
  for (const Value* output : node.outputs()) contents.push_back(Sizes(*shapes_->value(output)));
  return contents;
}

void SymbolicSteps::Bind(const std::vector<Tensor>& inputs, bool enabled, SymbolicRun& run) const {
  run.bound_ = false;
  if (!enabled || shapes_ == nullptr || exprs_.empty()) return;
  run.symbol_sizes_.clear();
  for (const SymbolicShapes::InputSymbol& symbol : shapes_->input_symbols()) {
    const Tensor& input = inputs.at(symbol.input);
    if (input.is_container() || input.shape().rank() <= symbol.axis) return;
    run.symbol_sizes_.emplace_back(symbol.atom, input.shape().dim(symbol.axis));
  }
  if (!run.dims_.Bind(shapes_->table(), run.symbol_sizes_)) return;
  run.values_.resize(exprs_.size());
  run.known_.resize(exprs_.size());
  for (size_t i = 0; i < exprs_.size(); ++i) {
    const std::optional<int64_t> value = run.dims_.Evaluate(exprs_[i]);
    run.values_[i] = value.value_or(0);
    run.known_[i] = value.has_value();
  }
  run.bound_ = true;
}

}  // namespace ge::runtime
