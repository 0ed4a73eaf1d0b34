// precision_mode / precision_mode_v2 on the CPU (docs/precision.md): picks the
// dtype each node computes in and inserts the Cast nodes that feed it.
//
// Nodes are visited in topological order. A node computes in its original
// dtype unless the policy lowers (or, under force_fp32, raises) it and its
// kernel exists for the new dtype; its inputs of the same type variable as
// input 0 are then cast to that dtype, and every other input gets its original
// dtype back. Casts are shared per (value, dtype); casting a cast's result
// reads the cast's source instead, so the pass never leaves a cast pair
// behind, and casts of constants are folded at once. Graph inputs keep their
// declared dtypes (consumers cast), and outputs are cast back to theirs.
#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include <fmt/core.h>

#include "ge/error.h"
#include "graph/op_schema.h"
#include "graph/ops/integer_products.h"
#include "passes/builtin_passes.h"
#include "passes/graph_rewrite.h"
#include "passes/precision_mode.h"

namespace ge::passes {
namespace {

bool IsFloatingCompute(DataType dtype) {
  return dtype == DataType::kFloat || dtype == DataType::kFloat16 || dtype == DataType::kBFloat16;
}

// Nodes that do not compute in a dtype of their own.
bool IsStructural(const std::string& op_type) {
  return op_type == "Data" || op_type == "Const" || op_type == "Cast" || op_type == "If" || op_type == "Loop" ||
         op_type == "Scan";
}

// The type variable of each input (a dynamic port takes the inputs the other
// ports leave over).
std::vector<std::string> InputTypeVars(const OpSchema& schema, size_t num_inputs) {
  const std::vector<PortSpec>& ports = schema.inputs();
  std::vector<std::string> vars;
  for (const PortSpec& port : ports) {
    size_t count = 1;
    if (port.arity == Arity::kDynamic) {
      count = num_inputs + 1 >= ports.size() ? num_inputs + 1 - ports.size() : 0;
    }
    for (size_t i = 0; i < count && vars.size() < num_inputs; ++i) vars.push_back(port.type_var);
  }
  vars.resize(num_inputs);
  return vars;
}

bool Allows(const OpSchema& schema, const std::string& type_var, DataType dtype) {
  const TypeConstraintSpec* constraint = schema.FindTypeConstraint(type_var);
  return constraint != nullptr &&
         std::find(constraint->allowed.begin(), constraint->allowed.end(), dtype) != constraint->allowed.end();
}

class Rewriter {
 public:
  Rewriter(Graph& graph, const PassContext& ctx) : graph_(graph), ctx_(ctx), policy_(*ctx.precision) {
    for (Node* node : graph.nodes()) {
      for (Value* output : node->outputs()) original_[output] = output->dtype();
    }
  }

  void Run() {
    for (Node* node : graph_.TopologicalOrder()) Visit(*node);
    RestoreOutputs();
  }

 private:
  struct Decision {
    DataType dtype;
    std::string reason;
  };

  DataType Original(const Value* value) const {
    auto it = original_.find(value);
    return it == original_.end() ? value->dtype() : it->second;
  }

  // What the policy asks for, before checking the kernel.
  Decision Requested(const Node& node, DataType dtype, const std::vector<bool>& group) const {
    if (policy_.Keeps(node)) return {dtype, "keep_dtype"};
    using K = PrecisionPolicyKind;
    switch (policy_.kind) {
      case K::kOrigin:
        return {dtype, ""};
      case K::kForceFp32:
        return {DataType::kFloat, ""};
      case K::kForceLow:
        return {policy_.low, ""};
      case K::kCubeLow:
        return IsCubeOp(node.op_type()) ? Decision{policy_.low, "cube op"} : Decision{dtype, "vector op"};
      case K::kMixed:
        if (dtype != DataType::kFloat) return {dtype, "not float32"};
        if (policy_.block.count(node.op_type()) != 0) return {dtype, "block list"};
        if (policy_.trust.count(node.op_type()) != 0) return {policy_.low, "trust list"};
        for (size_t i = 0; i < node.num_inputs(); ++i) {
          const Value* input = node.input(i);
          if (group[i] && input != nullptr && input->constant() == nullptr && input->dtype() == policy_.low) {
            return {policy_.low, "gray list, follows its producer"};
          }
        }
        return {dtype, "gray list, follows its producer"};
    }
    return {dtype, ""};
  }

  Decision Decide(const Node& node, const OpSchema& schema, const std::string& type_var, DataType dtype,
                  const std::vector<bool>& group) const {
    Decision decision = Requested(node, dtype, group);
    if (decision.dtype != dtype &&
        (!Allows(schema, type_var, decision.dtype) || !ctx_.has_kernel(node.op_type(), decision.dtype))) {
      return {dtype, fmt::format("no {} kernel", DataTypeName(decision.dtype))};
    }
    return decision;
  }

  void Visit(Node& node) {
    const OpSchema* schema = OpRegistry::Global().Find(node.op_type());
    const Value* first = node.input(0);
    bool eligible = schema != nullptr && first != nullptr && !IsStructural(node.op_type()) &&
                    IsFloatingCompute(Original(first));
    std::vector<std::string> vars = schema ? InputTypeVars(*schema, node.num_inputs()) : std::vector<std::string>{};
    std::vector<bool> group(node.num_inputs(), false);
    if (eligible) {
      eligible = !vars[0].empty();
      for (size_t i = 0; i < node.num_inputs(); ++i) {
        group[i] = eligible && (vars[i] == vars[0] || infer::FollowsActivationDtype(node.op_type(), i));
      }
    }
    DataType dtype = eligible ? Original(first) : DataType::kUndefined;
    Decision decision{dtype, ""};
    if (eligible) decision = Decide(node, *schema, vars[0], dtype, group);

    bool is_cast = node.op_type() == "Cast";
    for (size_t i = 0; i < node.num_inputs(); ++i) {
      Value* input = node.input(i);
      if (input == nullptr) continue;
      DataType want = group[i] ? decision.dtype : Original(input);
      // A model's Cast converts whatever float it gets; no need to restore first.
      if (is_cast && IsFloatingCompute(input->dtype()) && IsFloatingCompute(want)) continue;
      if (input->dtype() != want) node.SetInput(i, Convert(input, want));
    }
    if (!eligible) return;
    if (decision.dtype != dtype) {
      // Inference sets the outputs afresh; Check skips undefined dtypes.
      for (Value* output : node.outputs()) output->set_dtype(DataType::kUndefined);
      schema->Check(node);
      InferContext infer(node);
      schema->infer()(infer);
    }
    node.attrs().Set(kPrecisionDtypeAttr, std::string(DataTypeName(decision.dtype)));
    node.attrs().Set(kPrecisionReasonAttr, decision.reason.empty()
                                               ? policy_.option
                                               : fmt::format("{}: {}", policy_.option, decision.reason));
  }

  // `value` in dtype `want`: itself, a shared Cast, or a folded constant.
  Value* Convert(Value* value, DataType want) {
    if (auto source = cast_source_.find(value); source != cast_source_.end()) value = source->second;
    if (value->dtype() == want) return value;
    auto key = std::make_pair(value, want);
    if (auto cached = casts_.find(key); cached != casts_.end()) return cached->second;
    std::string name = value->name();
    std::replace(name.begin(), name.end(), ':', '_');
    name = graph_.UniqueName(fmt::format("{}_to_{}", name, DataTypeName(want)));
    Node* cast = graph_.AddNode("Cast", name, {value});
    cast->attrs().Set("dst_type", static_cast<int64_t>(want));
    Value* result = cast->output(0);
    result->set_dtype(want);
    result->set_shape(value->shape());
    if (const Tensor* constant = value->constant(); constant != nullptr && ctx_.evaluator != nullptr) {
      if (std::optional<std::vector<Tensor>> folded = ctx_.evaluator->Evaluate(*cast, {*constant})) {
        graph_.RemoveNode(cast);
        result = graph_.AddConstant(name, std::move(folded->front()));
      }
    }
    casts_[key] = result;
    cast_source_[result] = value;
    return result;
  }

  // Graph outputs keep their declared dtypes and their names.
  void RestoreOutputs() {
    std::vector<Value*> outputs = graph_.outputs();
    std::map<Value*, Value*> restored;
    for (Value*& output : outputs) {
      if (output->dtype() == Original(output)) continue;
      auto done = restored.find(output);
      if (done != restored.end()) {
        output = done->second;
        continue;
      }
      Value* cast = Convert(output, Original(output));
      std::string name = output->name();
      output->set_name(cast->name());
      cast->set_name(name);
      restored[output] = cast;
      output = cast;
    }
    graph_.SetOutputs(std::move(outputs));
  }

  Graph& graph_;
  const PassContext& ctx_;
  const PrecisionPolicy& policy_;
  std::unordered_map<const Value*, DataType> original_;
  std::map<std::pair<Value*, DataType>, Value*> casts_;
  std::unordered_map<const Value*, Value*> cast_source_;
};

class PrecisionModePass : public Pass {
 public:
  std::string name() const override { return "precision_mode"; }

  bool Run(Graph& graph, PassContext& ctx) override {
    if (ctx.precision == nullptr || ctx.precision->kind == PrecisionPolicyKind::kOrigin || !ctx.has_kernel) {
      return false;
    }
    Rewriter(graph, ctx).Run();
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> MakePrecisionModePass() { return std::make_unique<PrecisionModePass>(); }

}  // namespace ge::passes
