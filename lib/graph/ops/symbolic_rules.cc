#include "graph/ops/symbolic_rules.h"

#include <algorithm>
#include <optional>
#include <set>

namespace ge::symbolic {
namespace {

using Dims = SymbolicDims;

std::optional<int64_t> Constant(const DimExpr& e) { return e.constant(); }

bool IsOne(const DimExpr& e) { return e.constant() == 1; }

// A dim at least 1 whatever the symbols are: a Reshape entry that cannot be
// 0 (copy) or -1 (inferred), a divisor that cannot be 0.
bool Positive(const DimTable& table, const DimExpr& e) {
  const std::optional<int64_t> lower = table.LowerBound(e);
  return lower && *lower >= 1;
}

// Numpy broadcasting of two dims lists, when every pair provably
// broadcasts: equal, or one of them the constant 1.
std::optional<Dims> BroadcastDims(const Dims& a, const Dims& b) {
  const size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const DimExpr x = i < rank - a.size() ? DimExpr(1) : a[i - (rank - a.size())];
    const DimExpr y = i < rank - b.size() ? DimExpr(1) : b[i - (rank - b.size())];
    if (x == y || IsOne(y)) {
      out[i] = x;
    } else if (IsOne(x)) {
      out[i] = y;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

// An axis attribute in [-rank, rank), made non-negative.
std::optional<size_t> Axis(int64_t axis, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) return std::nullopt;
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

// Distinct axes, made non-negative; nullopt when one is out of range or repeated.
std::optional<std::set<size_t>> AxisSet(const std::vector<int64_t>& axes, size_t rank) {
  std::set<size_t> result;
  for (int64_t axis : axes) {
    const std::optional<size_t> a = Axis(axis, rank);
    if (!a || !result.insert(*a).second) return std::nullopt;
  }
  return result;
}

// Constant integers from a tracked value.
std::optional<std::vector<int64_t>> ConstantInts(const Dims* value) {
  if (value == nullptr) return std::nullopt;
  std::vector<int64_t> ints;
  for (const DimExpr& e : *value) {
    const std::optional<int64_t> c = Constant(e);
    if (!c) return std::nullopt;
    ints.push_back(*c);
  }
  return ints;
}

// The axes of Squeeze/Unsqueeze: the constant input when present, else the attribute.
std::optional<std::vector<int64_t>> SqueezeAxes(SymbolicContext& ctx, const char* attr) {
  if (ctx.node().input(1) != nullptr) return ConstantInts(ctx.input_value(1));
  return ctx.Ints(attr);
}

// The length of x[start:end:step] along a dim `d` (step > 0), ONNX's clamping.
DimExpr SliceLength(DimTable& table, const DimExpr& d, int64_t start, int64_t end, int64_t step) {
  auto position = [&](int64_t p) { return p >= 0 ? table.Min(DimExpr(p), d) : table.Max(d + DimExpr(p), DimExpr(0)); };
  const DimExpr span = position(end) - position(start);
  return table.Max(step == 1 ? span : table.CeilDiv(span, DimExpr(step)), DimExpr(0));
}

void ScalarOrVector(SymbolicContext& ctx, const Dims& contents) { ctx.set_output_value(0, contents); }

}  // namespace

void SameAsInput(SymbolicContext& ctx) {
  if (const Dims* x = ctx.input_dims(0)) ctx.set_output_dims(0, *x);
}

void Identity(SymbolicContext& ctx) {
  SameAsInput(ctx);
  if (const Dims* v = ctx.input_value(0)) ScalarOrVector(ctx, *v);
}

void Broadcast(SymbolicContext& ctx) {
  std::optional<Dims> out = Dims{};
  for (size_t i = 0; i < ctx.num_inputs() && out; ++i) {
    const Dims* x = ctx.input_dims(i);
    out = x != nullptr ? BroadcastDims(*out, *x) : std::nullopt;
  }
  if (!out) return;
  ctx.set_output_dims(0, *out);
  // Shape arithmetic: int64 contents of at most one element or equal lengths.
  const std::string& op = ctx.node().op_type();
  if (ctx.num_inputs() != 2 || ctx.node().output(0)->dtype() != DataType::kInt64) return;
  if (op != "Add" && op != "Sub" && op != "Mul" && op != "Div") return;
  const Dims* a = ctx.input_value(0);
  const Dims* b = ctx.input_value(1);
  if (a == nullptr || b == nullptr) return;
  const size_t length = std::max(a->size(), b->size());
  if ((a->size() != length && a->size() != 1) || (b->size() != length && b->size() != 1)) return;
  Dims contents;
  for (size_t i = 0; i < length; ++i) {
    const DimExpr& x = (*a)[a->size() == 1 ? 0 : i];
    const DimExpr& y = (*b)[b->size() == 1 ? 0 : i];
    if (op == "Add") {
      contents.push_back(x + y);
    } else if (op == "Sub") {
      contents.push_back(x - y);
    } else if (op == "Mul") {
      contents.push_back(x * y);
    } else {
      // Integer Div truncates; with both known it is C++'s, otherwise only an
      // exact division of a dim by a positive constant is certain.
      const std::optional<int64_t> cx = Constant(x);
      const std::optional<int64_t> cy = Constant(y);
      if (cx && cy && *cy != 0 && !(*cx == INT64_MIN && *cy == -1)) {
        contents.emplace_back(*cx / *cy);
      } else if (std::optional<DimExpr> q = cy && *cy > 0 ? DimExpr::DivideExactly(x, y) : std::nullopt) {
        contents.push_back(*q);
      } else {
        return;
      }
    }
  }
  ctx.set_output_value(0, contents);
}

void Cast(SymbolicContext& ctx) {
  SameAsInput(ctx);
  // Widening integer casts keep the contents; narrowing ones could wrap.
  const DataType from = ctx.node().input(0)->dtype();
  const DataType to = ctx.node().output(0)->dtype();
  const bool widening = to == DataType::kInt64 && (from == DataType::kInt64 || from == DataType::kInt32);
  if (const Dims* v = ctx.input_value(0); v != nullptr && widening) ScalarOrVector(ctx, *v);
}

void MatMul(SymbolicContext& ctx) {
  const Dims* a = ctx.input_dims(0);
  const Dims* b = ctx.input_dims(1);
  if (a == nullptr || b == nullptr || a->size() != 2 || b->size() != 2) return;
  const bool t1 = ctx.Bool("transpose_x1");
  const bool t2 = ctx.Bool("transpose_x2");
  if ((*a)[t1 ? 0 : 1] != (*b)[t2 ? 1 : 0]) return;
  const DimExpr n = (*b)[t2 ? 0 : 1];
  if (ctx.node().input(2) != nullptr) {
    const Dims* bias = ctx.input_dims(2);
    if (bias == nullptr || bias->size() != 1 || ((*bias)[0] != n && !IsOne((*bias)[0]))) return;
  }
  ctx.set_output_dims(0, Dims{(*a)[t1 ? 1 : 0], n});
}

void BatchMatMul(SymbolicContext& ctx) {
  const Dims* x1 = ctx.input_dims(0);
  const Dims* x2 = ctx.input_dims(1);
  if (x1 == nullptr || x2 == nullptr || x1->empty() || x2->empty()) return;
  auto as_matrix = [](Dims dims, bool vector_is_row, bool adjoint) {
    if (dims.size() == 1) {
      dims.insert(vector_is_row ? dims.begin() : dims.end(), DimExpr(1));
    } else if (adjoint) {
      std::swap(dims[dims.size() - 1], dims[dims.size() - 2]);
    }
    return dims;
  };
  const Dims a = as_matrix(*x1, true, ctx.Bool("adj_x1"));
  const Dims b = as_matrix(*x2, false, ctx.Bool("adj_x2"));
  if (a[a.size() - 1] != b[b.size() - 2]) return;
  std::optional<Dims> out = BroadcastDims(Dims(a.begin(), a.end() - 2), Dims(b.begin(), b.end() - 2));
  if (!out) return;
  if (x1->size() > 1) out->push_back(a[a.size() - 2]);
  if (x2->size() > 1) out->push_back(b[b.size() - 1]);
  if (ctx.node().input(2) != nullptr) {
    const Dims* bias = ctx.input_dims(2);
    if (bias == nullptr || bias->size() != 1 || ((*bias)[0] != b.back() && !IsOne((*bias)[0]))) return;
  }
  ctx.set_output_dims(0, *out);
}

void LayerNorm(SymbolicContext& ctx) {
  const Dims* x = ctx.input_dims(0);
  if (x == nullptr) return;
  const std::optional<size_t> norm_axis = Axis(ctx.Int("begin_norm_axis"), x->size());
  const std::optional<size_t> params_axis = Axis(ctx.Int("begin_params_axis"), x->size());
  if (!norm_axis || !params_axis) return;
  // gamma and beta cover x's dims from begin_params_axis on.
  const Dims params(x->begin() + static_cast<std::ptrdiff_t>(*params_axis), x->end());
  for (size_t i : {1, 2}) {
    if (ctx.node().input(i) == nullptr) continue;
    const Dims* p = ctx.input_dims(i);
    if (p == nullptr || *p != params) return;
  }
  ctx.set_output_dims(0, *x);
  Dims stats = *x;
  std::fill(stats.begin() + static_cast<std::ptrdiff_t>(*norm_axis), stats.end(), DimExpr(1));
  for (size_t i = 1; i < ctx.num_outputs(); ++i) ctx.set_output_dims(i, stats);
}

void Reduce(SymbolicContext& ctx) {
  const Dims* x = ctx.input_dims(0);
  if (x == nullptr) return;
  const std::vector<int64_t>& axes = ctx.Ints("axes");
  const std::optional<std::set<size_t>> reduced = AxisSet(axes, x->size());
  if (!reduced) return;
  const bool keep_dims = ctx.Bool("keep_dims");
  Dims out;
  for (size_t i = 0; i < x->size(); ++i) {
    if (!axes.empty() && reduced->count(i) == 0) {
      out.push_back((*x)[i]);
    } else if (keep_dims) {
      out.emplace_back(1);
    }
  }
  ctx.set_output_dims(0, out);
}

void Concat(SymbolicContext& ctx) {
  if (ctx.num_inputs() == 0 || ctx.input_dims(0) == nullptr) return;
  const size_t rank = ctx.input_dims(0)->size();
  const std::optional<size_t> axis = Axis(ctx.Int("concat_dim"), rank);
  if (!axis) return;
  Dims out = *ctx.input_dims(0);
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    const Dims* x = ctx.input_dims(i);
    if (x == nullptr || x->size() != rank) return;
    for (size_t d = 0; d < rank; ++d) {
      if (d != *axis && (*x)[d] != out[d]) return;
    }
    out[*axis] = out[*axis] + (*x)[*axis];
  }
  ctx.set_output_dims(0, out);
  if (rank != 1) return;
  Dims contents;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const Dims* v = ctx.input_value(i);
    if (v == nullptr) return;
    contents.insert(contents.end(), v->begin(), v->end());
  }
  ctx.set_output_value(0, contents);
}

void Split(SymbolicContext& ctx) {
  const Dims* x = ctx.input_dims(0);
  if (x == nullptr) return;
  const std::optional<size_t> axis = Axis(ctx.Int("split_dim"), x->size());
  const std::optional<std::vector<int64_t>> sizes =
      ctx.node().input(1) != nullptr ? ConstantInts(ctx.input_value(1)) : ctx.Ints("size_splits");
  if (!axis || !sizes || sizes->size() != ctx.num_outputs()) return;
  // Known sizes must add up to the dim; one -1 takes the rest, which must not be negative.
  DimExpr known;
  size_t inferred = sizes->size();
  for (size_t i = 0; i < sizes->size(); ++i) {
    if ((*sizes)[i] == -1 && inferred == sizes->size()) {
      inferred = i;
    } else if ((*sizes)[i] < 0) {
      return;
    } else {
      known = known + DimExpr((*sizes)[i]);
    }
  }
  const DimExpr rest = (*x)[*axis] - known;
  if (inferred == sizes->size()) {
    if (rest != DimExpr(0)) return;
  } else if (const std::optional<int64_t> lower = ctx.table().LowerBound(rest); !lower || *lower < 0) {
    return;
  }
  for (size_t i = 0; i < sizes->size(); ++i) {
    Dims piece = *x;
    piece[*axis] = i == inferred ? rest : DimExpr((*sizes)[i]);
    ctx.set_output_dims(i, piece);
  }
}

void Slice(SymbolicContext& ctx) {
  const Dims* x = ctx.input_dims(0);
  if (x == nullptr) return;
  const std::optional<std::vector<int64_t>> begin = ConstantInts(ctx.input_value(1));
  const std::optional<std::vector<int64_t>> end = ConstantInts(ctx.input_value(2));
  if (!begin || !end || begin->size() != end->size()) return;
  std::vector<int64_t> axes(begin->size());
  for (size_t i = 0; i < axes.size(); ++i) axes[i] = static_cast<int64_t>(i);
  std::vector<int64_t> steps(begin->size(), 1);
  if (ctx.node().input(3) != nullptr) {
    const std::optional<std::vector<int64_t>> given = ConstantInts(ctx.input_value(3));
    if (!given) return;
    axes = *given;
  }
  if (ctx.node().input(4) != nullptr) {
    const std::optional<std::vector<int64_t>> given = ConstantInts(ctx.input_value(4));
    if (!given) return;
    steps = *given;
  }
  if (axes.size() != begin->size() || steps.size() != begin->size()) return;
  const std::optional<std::set<size_t>> distinct = AxisSet(axes, x->size());
  if (!distinct) return;
  Dims out = *x;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (steps[i] <= 0) return;  // negative steps are left to the schema
    const size_t axis = *Axis(axes[i], x->size());
    out[axis] = SliceLength(ctx.table(), (*x)[axis], (*begin)[i], (*end)[i], steps[i]);
  }
  ctx.set_output_dims(0, out);
  // A slice of a known vector: its elements, when the bounds are constants.
  const Dims* v = ctx.input_value(0);
  if (v == nullptr || x->size() != 1 || !out[0].constant()) return;
  const auto length = static_cast<int64_t>(v->size());
  auto clamp = [&](int64_t p) { return std::clamp<int64_t>(p < 0 ? p + length : p, 0, length); };
  Dims contents;
  const int64_t stop = clamp((*end)[0]);
  for (int64_t p = clamp((*begin)[0]); p < stop; p = steps[0] < stop - p ? p + steps[0] : stop) {
    contents.push_back((*v)[p]);
  }
  ctx.set_output_value(0, contents);
}

void Gather(SymbolicContext& ctx) {
  const Dims* x = ctx.input_dims(0);
  const Dims* indices = ctx.input_dims(1);
  if (x == nullptr || indices == nullptr || ctx.Int("batch_dims") != 0) return;
  const std::optional<size_t> axis = Axis(ctx.Int("axis"), x->size());
  if (!axis) return;
  Dims out(x->begin(), x->begin() + static_cast<std::ptrdiff_t>(*axis));
  out.insert(out.end(), indices->begin(), indices->end());
  out.insert(out.end(), x->begin() + static_cast<std::ptrdiff_t>(*axis) + 1, x->end());
  ctx.set_output_dims(0, out);
  // Entries of a known vector picked by constant indices.
  const Dims* v = ctx.input_value(0);
  const std::optional<std::vector<int64_t>> picks = ConstantInts(ctx.input_value(1));
  if (v == nullptr || !picks || x->size() != 1) return;
  Dims contents;
  for (int64_t pick : *picks) {
    const std::optional<size_t> at = Axis(pick, v->size());
    if (!at) return;
    contents.push_back((*v)[*at]);
  }
  ctx.set_output_value(0, contents);
}

void Reshape(SymbolicContext& ctx) {
  const Dims* x = ctx.input_dims(0);
  const Dims* target = ctx.input_value(1);
  if (x == nullptr || target == nullptr) return;
  const bool allowzero = ctx.Int("allowzero") != 0;
  DimTable& table = ctx.table();
  Dims out;
  size_t inferred = target->size();
  for (size_t i = 0; i < target->size(); ++i) {
    const DimExpr& entry = (*target)[i];
    const std::optional<int64_t> c = Constant(entry);
    if (c == -1 && inferred == target->size()) {
      inferred = i;
      out.emplace_back(0);
    } else if (c == 0 && !allowzero) {
      if (i >= x->size()) return;
      out.push_back((*x)[i]);
    } else if (c ? *c >= 0 : Positive(table, entry)) {
      out.push_back(entry);  // a symbolic entry that could be 0 or -1 would mean something else
    } else {
      return;
    }
  }
  DimExpr total(1);
  for (const DimExpr& d : *x) total = total * d;
  DimExpr known(1);
  for (size_t i = 0; i < out.size(); ++i) {
    if (i != inferred) known = known * out[i];
  }
  if (inferred == target->size()) {
    if (known != total) return;
  } else {
    if (!Positive(table, known)) return;
    const std::optional<DimExpr> rest = DimExpr::DivideExactly(total, known);
    if (!rest) return;
    out[inferred] = *rest;
  }
  ctx.set_output_dims(0, out);
  if (const Dims* v = ctx.input_value(0)) ScalarOrVector(ctx, *v);
}

void Squeeze(SymbolicContext& ctx) {
  const Dims* x = ctx.input_dims(0);
  const std::optional<std::vector<int64_t>> axes = SqueezeAxes(ctx, "axis");
  if (x == nullptr || !axes) return;
  Dims out;
  if (axes->empty()) {
    for (const DimExpr& d : *x) {
      if (!d.constant()) return;  // which dims are 1 is known only at run time
      if (!IsOne(d)) out.push_back(d);
    }
  } else {
    const std::optional<std::set<size_t>> squeezed = AxisSet(*axes, x->size());
    if (!squeezed) return;
    for (size_t i = 0; i < x->size(); ++i) {
      if (squeezed->count(i) == 0) {
        out.push_back((*x)[i]);
      } else if (!IsOne((*x)[i])) {
        return;
      }
    }
  }
  ctx.set_output_dims(0, out);
  if (const Dims* v = ctx.input_value(0)) ScalarOrVector(ctx, *v);
}

void Unsqueeze(SymbolicContext& ctx) {
  const Dims* x = ctx.input_dims(0);
  const std::optional<std::vector<int64_t>> axes = SqueezeAxes(ctx, "axes");
  if (x == nullptr || !axes) return;
  const size_t rank = x->size() + axes->size();
  const std::optional<std::set<size_t>> inserted = AxisSet(*axes, rank);
  if (!inserted) return;
  Dims out;
  size_t next = 0;
  for (size_t i = 0; i < rank; ++i) out.push_back(inserted->count(i) != 0 ? DimExpr(1) : (*x)[next++]);
  ctx.set_output_dims(0, out);
  if (const Dims* v = ctx.input_value(0)) ScalarOrVector(ctx, *v);
}

void Transpose(SymbolicContext& ctx) {
  const Dims* x = ctx.input_dims(0);
  const std::vector<int64_t>& perm = ctx.Ints("perm");
  if (x == nullptr || perm.size() != x->size()) return;
  std::vector<bool> used(perm.size(), false);
  Dims out;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(perm.size()) || used[p]) return;
    used[p] = true;
    out.push_back((*x)[p]);
  }
  ctx.set_output_dims(0, out);
}

void ShapeOf(SymbolicContext& ctx) {
  const Dims* x = ctx.input_dims(0);
  if (x == nullptr) return;
  ctx.set_output_dims(0, Dims{DimExpr(static_cast<int64_t>(x->size()))});
  ctx.set_output_value(0, *x);
}

void Fill(SymbolicContext& ctx) {
  const Dims* dims = ctx.input_value(0);
  const Dims* value = ctx.input_dims(1);
  if (dims == nullptr || value == nullptr) return;
  for (const DimExpr& d : *value) {
    if (!IsOne(d)) return;  // value must hold one element
  }
  for (const DimExpr& d : *dims) {
    const std::optional<int64_t> lower = ctx.table().LowerBound(d);
    if (!lower || *lower < 0) return;  // a negative entry is an error the schema reports
  }
  ctx.set_output_dims(0, *dims);
}

void Range(SymbolicContext& ctx) {
  const Dims* start = ctx.input_value(0);
  const Dims* limit = ctx.input_value(1);
  const std::optional<std::vector<int64_t>> delta = ConstantInts(ctx.input_value(2));
  if (start == nullptr || limit == nullptr || !delta || start->size() != 1 || limit->size() != 1 ||
      delta->size() != 1 || (*delta)[0] <= 0) {
    return;
  }
  DimTable& table = ctx.table();
  const DimExpr span = (*limit)[0] - (*start)[0];
  const DimExpr length = (*delta)[0] == 1 ? span : table.CeilDiv(span, DimExpr((*delta)[0]));
  ctx.set_output_dims(0, Dims{table.Max(length, DimExpr(0))});
}

void Expand(SymbolicContext& ctx) {
  const Dims* x = ctx.input_dims(0);
  const Dims* shape = ctx.input_value(1);
  if (x == nullptr || shape == nullptr) return;
  for (const DimExpr& d : *shape) {
    if (!Positive(ctx.table(), d) && !(d.constant() && *d.constant() >= 0)) return;
  }
  if (std::optional<Dims> out = BroadcastDims(*x, *shape)) ctx.set_output_dims(0, *out);
}

void BatchPassThrough(SymbolicContext& ctx) {
  const Dims* x = ctx.input_dims(0);
  if (x == nullptr || x->empty()) return;
  for (size_t d = 1; d < x->size(); ++d) {
    if (!Constant((*x)[d])) return;
  }
  const Shape& y = ctx.node().output(0)->shape();
  if (y.unknown_rank() || y.rank() == 0) return;
  Dims out = {(*x)[0]};
  for (size_t d = 1; d < y.rank(); ++d) {
    if (y.dim(d) == Shape::kUnknownDim) return;
    out.emplace_back(y.dim(d));
  }
  // The other inputs (filter, bias, an addend shaped like y) must not bring a batch of their own.
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    if (ctx.node().input(i) == nullptr) continue;
    const Dims* other = ctx.input_dims(i);
    if (other == nullptr) return;
    const bool constant = std::all_of(other->begin(), other->end(), [](const DimExpr& d) { return d.constant().has_value(); });
    if (!constant && *other != out) return;
  }
  ctx.set_output_dims(0, out);
}

void Tile(SymbolicContext& ctx) {
  const Dims* x = ctx.input_dims(0);
  const Dims* multiples = ctx.input_value(1);
  if (x == nullptr || multiples == nullptr || multiples->size() != x->size()) return;
  Dims out;
  for (size_t i = 0; i < x->size(); ++i) {
    const std::optional<int64_t> lower = ctx.table().LowerBound((*multiples)[i]);
    if (!lower || *lower < 0) return;
    out.push_back((*x)[i] * (*multiples)[i]);
  }
  ctx.set_output_dims(0, out);
}

}  // namespace ge::symbolic
