// What a dynamic model's node-by-node runs compute from symbolic dims
// (graph/symbolic_shapes.h) instead of inferring shapes or running kernels:
// the output shapes of every step whose dims a rule proved, and the whole
// output of a step of shape arithmetic (Shape, Gather, Unsqueeze, Concat,
// Mul of dims) whose integer contents are expressions over the symbols.
// The model keeps the distinct expressions its steps use; a run binds the
// symbols to its input sizes and evaluates each expression once.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "ge/tensor.h"
#include "graph/symbolic_shapes.h"

namespace ge::runtime {

// A size or integer a run computes: `constant`, or when `expr` >= 0 the value
// of the model's expression `expr`.
struct SymbolicSize {
  int64_t constant = 0;
  int expr = -1;
};
using SymbolicSizes = std::vector<SymbolicSize>;

// One run's values of the expressions, kept in its frame.
class SymbolicRun {
 public:
  // False when the run's input shapes leave every shape to the schemas.
  bool bound() const { return bound_; }
  std::optional<int64_t> Value(const SymbolicSize& size) const {
    if (size.expr < 0) return size.constant;
    const auto i = static_cast<size_t>(size.expr);
    return known_[i] ? std::optional<int64_t>(values_[i]) : std::nullopt;
  }

 private:
  friend class SymbolicSteps;
  bool bound_ = false;
  std::vector<int64_t> values_;
  std::vector<bool> known_;
  DimValues dims_;                                     // scratch
  std::vector<std::pair<int, int64_t>> symbol_sizes_;  // scratch
};

class SymbolicSteps {
 public:
  // `shapes` may be null (a static model, or one compiled without them).
  explicit SymbolicSteps(const SymbolicShapes* shapes) : shapes_(shapes) {}

  // Per output of `node`, its dims, when a rule proved every output's, each
  // determined by the input shapes and of a dtype inference does not change;
  // else empty.
  std::vector<SymbolicSizes> ProvenDims(const Node& node);
  // Per output of `node`, its integer contents (int64 or int32, rank 0 or 1),
  // when every output's are known and its dims proven; else empty.
  std::vector<SymbolicSizes> KnownContents(const Node& node);

  // Binds the symbols to the sizes of the run's inputs (in graph input
  // order) and evaluates every expression; `enabled` false leaves the run
  // unbound. A dim below 1 leaves it unbound (the rules assume at least 1).
  void Bind(const std::vector<Tensor>& inputs, bool enabled, SymbolicRun& run) const;

 private:
  SymbolicSizes Sizes(const SymbolicDims& exprs);

  const SymbolicShapes* shapes_;
  std::vector<DimExpr> exprs_;       // the distinct expressions the steps use
  std::map<DimExpr, int> index_;     // exprs_ index of each
};

}  // namespace ge::runtime
