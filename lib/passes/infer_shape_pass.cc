// Shape and dtype inference over the whole graph.
//
// Models exported from PyTorch compute reshape targets at run time
// (Shape -> Gather -> Unsqueeze -> Concat -> Reshape). Folding those small
// shape computations during the same topological sweep lets the Reshape's
// inference see a constant target, so the whole graph gets static shapes.
#include <fmt/core.h>

#include "ge/error.h"
#include "graph/op_schema.h"
#include "passes/builtin_passes.h"
#include "passes/graph_rewrite.h"

namespace ge::passes {
namespace {

// Largest output (in elements) folded during inference: shape-like tensors
// are tiny, and large constants are constant_folding's business.
constexpr int64_t kMaxFoldedElements = 4096;

// What inference may change on a node: attribute defaults get added, output
// dtypes and shapes get set. Compared before and after to report changes.
struct InferredState {
  size_t num_attrs;
  std::vector<DataType> dtypes;
  std::vector<Shape> shapes;
  bool operator==(const InferredState&) const = default;
};

InferredState StateOf(const Node& node) {
  InferredState state{node.attrs().entries().size(), {}, {}};
  for (const Value* output : node.outputs()) {
    state.dtypes.push_back(output->dtype());
    state.shapes.push_back(output->shape());
  }
  return state;
}

const OpSchema& SchemaOf(const Node& node) {
  const OpSchema* schema = OpRegistry::Global().Find(node.op_type());
  if (schema == nullptr) {
    throw Error(ErrorCode::kUnsupported,
                fmt::format("node '{}' ({}): unknown op type '{}'; no schema is registered for it (see "
                            "docs/op-set.md for the built-in op set)",
                            node.name(), node.op_type(), node.op_type()));
  }
  return *schema;
}

void InferNode(Node& node, const OpSchema& schema) {
  schema.NormalizeAttrs(node);
  schema.Check(node);
  if (!schema.infer()) {
    throw Error(ErrorCode::kUnsupported, fmt::format("node '{}' ({}): the schema of '{}' has no shape inference",
                                                     node.name(), node.op_type(), node.op_type()));
  }
  InferContext ctx(node);
  schema.infer()(ctx);
}

// The shape of a statically shaped input as a constant, in the dtype
// inference chose for the Shape node's output.
std::optional<Tensor> StaticShapeOf(const Node& node) {
  const Value* input = node.input(0);
  if (input == nullptr || !input->shape().IsStatic()) return std::nullopt;
  const std::vector<int64_t>& dims = input->shape().dims();
  Shape shape{static_cast<int64_t>(dims.size())};
  switch (node.output(0)->dtype()) {
    case DataType::kInt64:
      return Tensor::FromVector(DataType::kInt64, shape, dims);
    case DataType::kInt32:
      return Tensor::FromVector(DataType::kInt32, shape, std::vector<int32_t>(dims.begin(), dims.end()));
    default:
      return std::nullopt;
  }
}

bool OutputsAreSmall(const Node& node) {
  int64_t total = 0;
  for (const Value* output : node.outputs()) {
    if (!output->shape().IsStatic()) return false;
    total += output->shape().NumElements();
  }
  return total <= kMaxFoldedElements;
}

// What the node folds to, if it is a shape computation that can be folded now.
std::optional<std::vector<Tensor>> FoldedOutputs(const Node& node, ConstantEvaluator* evaluator) {
  if (node.op_type() == "Shape") {
    if (std::optional<Tensor> shape = StaticShapeOf(node)) return std::vector<Tensor>{*shape};
  }
  if (evaluator == nullptr || !IsFoldable(node) || !OutputsAreSmall(node)) return std::nullopt;
  return EvaluateOnConstants(node, *evaluator);
}

class InferShapePass : public Pass {
 public:
  std::string name() const override { return "infer_shape"; }

  bool Run(Graph& graph, PassContext& ctx) override {
    std::unordered_set<const Node*> control_dependents = NodesWithControlDependents(graph);
    bool changed = false;
    for (Node* node : graph.TopologicalOrder()) {
      InferredState before = StateOf(*node);
      InferNode(*node, SchemaOf(*node));
      changed |= StateOf(*node) != before;
      if (control_dependents.count(node) != 0) continue;
      if (std::optional<std::vector<Tensor>> folded = FoldedOutputs(*node, ctx.evaluator)) {
        ReplaceWithConstants(graph, node, std::move(*folded));
        changed = true;
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> MakeInferShapePass() { return std::make_unique<InferShapePass>(); }

}  // namespace ge::passes
