// Moves the bias of a linear layer into the matrix product: ONNX exports of
// torch.nn.Linear on 3-D activations write MatMul (BatchMatMulV2 here) then
// Add(bias, .), although MatMulV2 and BatchMatMulV2 take an optional bias [N]
// that the kernels add while writing the product (one pass over the output
// instead of two).
//
//   y = Add(MatMulV2|BatchMatMulV2(x1, x2), b)   (either operand order)
//   ==> MatMulV2|BatchMatMulV2(x1, x2, b)
//
// Fuses only float32/float16/bfloat16 products without bias or offset_w whose
// result feeds only the Add and is not a graph output, with b a constant of the
// product's dtype holding N (the output's last dim) elements in its last dim
// (leading dims 1), so that the Add broadcasts it along the rows and nothing else.
// The other dims of the product may be unknown (a dynamic model's batch and
// sequence): such a bias cannot broadcast beyond them.
// The product keeps its attributes, implementation mode included.
#include <algorithm>

#include "passes/builtin_passes.h"
#include "passes/pattern_fusion.h"

namespace ge::passes {
namespace {

enum ProductInput { kX1 = 0, kX2, kBias, kOffsetW };

// A constant [.., 1, N] of y's dtype: one value per output column.
bool IsRowBias(const Value* bias, const Value& y) {
  if (bias == nullptr || bias->constant() == nullptr || bias->dtype() != y.dtype()) return false;
  const auto& dims = bias->shape().dims();
  const int64_t n = y.shape().dims().back();
  if (dims.empty() || dims.size() > y.shape().rank() || dims.back() != n) return false;
  return std::all_of(dims.begin(), dims.end() - 1, [](int64_t d) { return d == 1; });
}

// The product feeding `add` (through input `product_input`) that can take the other input as its bias.
Node* FusableProduct(const PatternMatcher& matcher, const Node& add, int product_input) {
  const Value* y = add.input(product_input);
  Node* product = y != nullptr ? y->producer() : nullptr;
  if (product == nullptr ||
      (!matcher.Absorbable(product, "MatMulV2") && !matcher.Absorbable(product, "BatchMatMulV2"))) {
    return nullptr;
  }
  bool ok = matcher.SoleUser(y, "Add") == &add && product->input(kBias) == nullptr &&
            product->input(kOffsetW) == nullptr && IsFusableFloat(y->dtype()) &&
            product->input(kX1)->dtype() == y->dtype() && !y->shape().unknown_rank() && y->shape().rank() > 0 &&
            y->shape().dims().back() != Shape::kUnknownDim &&
            add.output(0)->shape() == y->shape() && IsRowBias(add.input(1 - product_input), *y);
  return ok ? product : nullptr;
}

// The product takes the bias in place, keeping its name, attributes and
// implementation mode; its output takes over the Add's name and uses.
void FoldBias(Graph& graph, Node* add, Node* product, Value* bias) {
  const int64_t n = product->output(0)->shape().dims().back();
  if (bias->shape() != Shape{n}) {  // [1, .., 1, N]: the schema's bias is 1-D
    bias = graph.AddConstant(graph.UniqueName(product->name() + "_bias"), bias->constant()->Reshaped(Shape{n}));
  }
  product->SetInput(kBias, bias);
  ReplaceKeepingName(graph, add->output(0), product->output(0));
  graph.RemoveNode(add);
}

class MatMulBiasFusionPass : public Pass {
 public:
  std::string name() const override { return "matmul_bias_fusion"; }

  bool Run(Graph& graph, PassContext& ctx) override {
    // Only the Add being visited is removed, so the order stays valid.
    PatternMatcher matcher(graph);
    bool changed = false;
    for (Node* add : graph.TopologicalOrder()) {
      if (!matcher.Absorbable(add, "Add") || add->num_inputs() != 2) continue;
      for (int i : {0, 1}) {
        if (Node* product = FusableProduct(matcher, *add, i)) {
          FoldBias(graph, add, product, add->input(1 - i));
          changed = true;
          break;
        }
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> MakeMatMulBiasFusionPass() { return std::make_unique<MatMulBiasFusionPass>(); }

}  // namespace ge::passes
