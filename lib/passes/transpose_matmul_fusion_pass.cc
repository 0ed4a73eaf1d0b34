// Reads a transposed matrix operand in place: attention's q @ k^T is
// exported as TransposeD(k, swap of the last two axes) feeding a MatMul,
// and the transpose copies the whole key cache (at a decoder's every step).
// The product's kernels read a transposed operand through strides (oneDNN)
// or the GEMM's transpose flag, so the copy is not needed:
//
//   MatMulV2|BatchMatMulV2(TransposeD(a, perm swapping the last two axes), b)
//   ==> the product of (a, b) with transpose_x1 / adj_x1 flipped   (and likewise for x2)
//
// Fuses only when the transpose's output feeds the product alone and is not
// a graph output, and its rank is known (dims may be unknown: the swap is a
// fact about axes, not sizes). MatMulV2 takes rank-2 operands only, so its
// transposes are [1, 0].
#include <numeric>

#include "passes/builtin_passes.h"
#include "passes/pattern_fusion.h"

namespace ge::passes {
namespace {

// Whether `perm` keeps every axis but swaps the last two.
bool SwapsLastTwoAxes(const std::vector<int64_t>& perm) {
  const size_t rank = perm.size();
  if (rank < 2) return false;
  std::vector<int64_t> expected(rank);
  std::iota(expected.begin(), expected.end(), int64_t{0});
  std::swap(expected[rank - 2], expected[rank - 1]);
  return perm == expected;
}

class TransposeMatMulFusionPass : public Pass {
 public:
  std::string name() const override { return "transpose_matmul_fusion"; }

  bool Run(Graph& graph, PassContext&) override {
    PatternMatcher matcher(graph);
    bool changed = false;
    for (Node* product : graph.TopologicalOrder()) {
      const bool batched = product->op_type() == "BatchMatMulV2";
      if (!batched && product->op_type() != "MatMulV2") continue;
      for (int operand : {0, 1}) {
        Value* transposed = product->input(operand);
        Node* transpose = transposed != nullptr ? transposed->producer() : nullptr;
        if (transpose == nullptr || !matcher.Absorbable(transpose, "TransposeD") ||
            matcher.SoleUser(transposed, product->op_type()) != product || transpose->input(0) == nullptr ||
            transposed->shape().unknown_rank()) {
          continue;
        }
        const std::vector<int64_t> perm = transpose->attrs().GetInts("perm");
        if (perm.size() != transposed->shape().rank() || !SwapsLastTwoAxes(perm)) continue;
        const char* flag = batched ? (operand == 0 ? "adj_x1" : "adj_x2")
                                   : (operand == 0 ? "transpose_x1" : "transpose_x2");
        product->attrs().Set(flag, !product->attrs().GetBool(flag));
        product->SetInput(operand, transpose->input(0));
        graph.RemoveNode(transpose);
        changed = true;
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> MakeTransposeMatMulFusionPass() { return std::make_unique<TransposeMatMulFusionPass>(); }

}  // namespace ge::passes
