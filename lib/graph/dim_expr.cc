#include "graph/dim_expr.h"

#include <algorithm>

#include <fmt/format.h>

namespace ge {
namespace {

// Past these, an expression is not worth carrying: the node's outputs get
// unknown dims instead (real models' dims have a few terms of low degree).
constexpr size_t kMaxTerms = 32;
constexpr size_t kMaxDegree = 8;

int64_t CheckedAdd(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) throw DimExprLimit("dim expression coefficient overflows int64");
  return sum;
}

int64_t CheckedMul(int64_t a, int64_t b) {
  int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) throw DimExprLimit("dim expression coefficient overflows int64");
  return product;
}

// Floor division and modulo as shapes use them (Python's, not C++'s truncation).
int64_t FloorDivide(int64_t a, int64_t b) {
  const int64_t quotient = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? quotient - 1 : quotient;
}

int64_t FloorModulo(int64_t a, int64_t b) {
  const int64_t remainder = a % b;
  return (remainder != 0 && ((remainder < 0) != (b < 0))) ? remainder + b : remainder;
}

}  // namespace

DimExpr::DimExpr(int64_t constant) {
  if (constant != 0) terms_.push_back(Term{{}, constant});
}

DimExpr DimExpr::Atom(int atom) {
  DimExpr e;
  e.terms_.push_back(Term{{atom}, 1});
  return e;
}

std::optional<int64_t> DimExpr::constant() const {
  if (terms_.empty()) return 0;
  if (terms_.size() == 1 && terms_[0].atoms.empty()) return terms_[0].coefficient;
  return std::nullopt;
}

std::optional<int> DimExpr::single_atom() const {
  if (terms_.size() == 1 && terms_[0].atoms.size() == 1 && terms_[0].coefficient == 1) return terms_[0].atoms[0];
  return std::nullopt;
}

void DimExpr::Normalize() {
  std::sort(terms_.begin(), terms_.end(), [](const Term& a, const Term& b) { return a.atoms < b.atoms; });
  std::vector<Term> merged;
  for (Term& term : terms_) {
    if (!merged.empty() && merged.back().atoms == term.atoms) {
      merged.back().coefficient = CheckedAdd(merged.back().coefficient, term.coefficient);
    } else {
      merged.push_back(std::move(term));
    }
  }
  std::erase_if(merged, [](const Term& term) { return term.coefficient == 0; });
  if (merged.size() > kMaxTerms) throw DimExprLimit("dim expression has too many terms");
  terms_ = std::move(merged);
}

DimExpr operator+(const DimExpr& a, const DimExpr& b) {
  DimExpr sum = a;
  sum.terms_.insert(sum.terms_.end(), b.terms_.begin(), b.terms_.end());
  sum.Normalize();
  return sum;
}

DimExpr operator-(const DimExpr& a, const DimExpr& b) {
  DimExpr difference = a;
  for (DimExpr::Term term : b.terms_) {
    term.coefficient = CheckedMul(term.coefficient, -1);
    difference.terms_.push_back(std::move(term));
  }
  difference.Normalize();
  return difference;
}

DimExpr operator*(const DimExpr& a, const DimExpr& b) {
  DimExpr product;
  for (const DimExpr::Term& x : a.terms_) {
    for (const DimExpr::Term& y : b.terms_) {
      DimExpr::Term term;
      std::merge(x.atoms.begin(), x.atoms.end(), y.atoms.begin(), y.atoms.end(), std::back_inserter(term.atoms));
      if (term.atoms.size() > kMaxDegree) throw DimExprLimit("dim expression degree too high");
      term.coefficient = CheckedMul(x.coefficient, y.coefficient);
      product.terms_.push_back(std::move(term));
    }
  }
  product.Normalize();
  return product;
}

std::optional<DimExpr> DimExpr::DivideExactly(const DimExpr& a, const DimExpr& b) {
  if (b.terms_.size() != 1) return std::nullopt;
  const Term& divisor = b.terms_[0];
  DimExpr quotient;
  for (const Term& term : a.terms_) {
    if (term.coefficient % divisor.coefficient != 0) return std::nullopt;
    Term reduced{{}, term.coefficient / divisor.coefficient};
    std::set_difference(term.atoms.begin(), term.atoms.end(), divisor.atoms.begin(), divisor.atoms.end(),
                        std::back_inserter(reduced.atoms));
    if (reduced.atoms.size() + divisor.atoms.size() != term.atoms.size()) return std::nullopt;  // not a factor
    quotient.terms_.push_back(std::move(reduced));
  }
  quotient.Normalize();
  return quotient;
}

namespace {

std::optional<int64_t> OperationLowerBound(DimTable::Kind kind, std::optional<int64_t> a, std::optional<int64_t> b,
                                           std::optional<int64_t> b_constant) {
  switch (kind) {
    case DimTable::Kind::kFloorDiv:
      if (a && *a >= 0 && b_constant && *b_constant > 0) return *a / *b_constant;
      return std::nullopt;
    case DimTable::Kind::kMod: return b_constant && *b_constant > 0 ? std::optional<int64_t>(0) : std::nullopt;
    case DimTable::Kind::kMax:
      if (a && b) return std::max(*a, *b);
      return a ? a : b;
    case DimTable::Kind::kMin: return a && b ? std::optional<int64_t>(std::min(*a, *b)) : std::nullopt;
    default: return std::nullopt;
  }
}

}  // namespace

DimExpr DimTable::Symbol(const std::string& name) {
  if (auto it = symbols_.find(name); it != symbols_.end()) return DimExpr::Atom(it->second);
  atoms_.push_back(AtomInfo{Kind::kSymbol, name, {}, {}});
  determined_.push_back(true);
  lower_.push_back(1);
  text_size_.push_back(name.size());
  const int index = static_cast<int>(atoms_.size() - 1);
  symbols_.emplace(name, index);
  return DimExpr::Atom(index);
}

DimExpr DimTable::Unknown(const std::string& name) {
  atoms_.push_back(AtomInfo{Kind::kUnknown, name, {}, {}});
  determined_.push_back(false);
  lower_.push_back(0);  // unknowns are dims
  text_size_.push_back(name.size());
  return DimExpr::Atom(static_cast<int>(atoms_.size() - 1));
}

DimExpr DimTable::Intern(Kind kind, const DimExpr& a, const DimExpr& b) {
  const auto key = std::make_tuple(kind, a, b);
  if (auto it = operations_.find(key); it != operations_.end()) return DimExpr::Atom(it->second);
  atoms_.push_back(AtomInfo{kind, {}, a, b});
  determined_.push_back(Determined(a) && Determined(b));
  lower_.push_back(OperationLowerBound(kind, LowerBound(a), LowerBound(b), b.constant()));
  text_size_.push_back(std::min(TextSize(a) + TextSize(b) + 12, kMaxText + 1));
  const int index = static_cast<int>(atoms_.size() - 1);
  operations_.emplace(key, index);
  return DimExpr::Atom(index);
}

std::optional<int64_t> DimTable::LowerBound(const DimExpr& e) const {
  int64_t sum = 0;
  for (const DimExpr::Term& term : e.terms()) {
    int64_t product = term.coefficient;
    if (!term.atoms.empty() && term.coefficient < 0) return std::nullopt;
    for (int atom : term.atoms) {
      const std::optional<int64_t> lower = lower_.at(static_cast<size_t>(atom));
      if (!lower || *lower < 0) return std::nullopt;
      if (__builtin_mul_overflow(product, *lower, &product)) return std::nullopt;
    }
    if (__builtin_add_overflow(sum, product, &sum)) return std::nullopt;
  }
  return sum;
}

DimExpr DimTable::FloorDiv(const DimExpr& a, const DimExpr& b) {
  const std::optional<int64_t> x = a.constant();
  const std::optional<int64_t> y = b.constant();
  if (x && y && *y != 0) return (*x == INT64_MIN && *y == -1) ? Intern(Kind::kFloorDiv, a, b) : FloorDivide(*x, *y);
  if (y && *y > 0) {
    if (std::optional<DimExpr> exact = DimExpr::DivideExactly(a, b)) return *exact;
  }
  return Intern(Kind::kFloorDiv, a, b);
}

// By a positive constant as floor((a + b - 1) / b), whose bounds are known
// when a's are.
DimExpr DimTable::CeilDiv(const DimExpr& a, const DimExpr& b) {
  if (std::optional<int64_t> c = b.constant(); c && *c > 0) return FloorDiv(a + DimExpr(*c - 1), b);
  return -FloorDiv(-a, b);
}

DimExpr DimTable::Mod(const DimExpr& a, const DimExpr& b) {
  const std::optional<int64_t> x = a.constant();
  const std::optional<int64_t> y = b.constant();
  if (x && y && *y != 0 && !(*x == INT64_MIN && *y == -1)) return FloorModulo(*x, *y);
  if (y && *y > 0 && DimExpr::DivideExactly(a, b)) return 0;
  return Intern(Kind::kMod, a, b);
}

// Every dim fits int64, so INT64_MAX (ONNX's "to the end" slice bound) is
// never below one and INT64_MIN never above.
DimExpr DimTable::Max(const DimExpr& a, const DimExpr& b) {
  if (a.constant() == INT64_MIN) return b;
  if (b.constant() == INT64_MIN) return a;
  if (std::optional<int64_t> lower = LowerBound(a - b); lower && *lower >= 0) return a;
  if (std::optional<int64_t> lower = LowerBound(b - a); lower && *lower >= 0) return b;
  return a < b ? Intern(Kind::kMax, a, b) : Intern(Kind::kMax, b, a);
}

DimExpr DimTable::Min(const DimExpr& a, const DimExpr& b) {
  if (a.constant() == INT64_MAX) return b;
  if (b.constant() == INT64_MAX) return a;
  if (std::optional<int64_t> lower = LowerBound(b - a); lower && *lower >= 0) return a;
  if (std::optional<int64_t> lower = LowerBound(a - b); lower && *lower >= 0) return b;
  return a < b ? Intern(Kind::kMin, a, b) : Intern(Kind::kMin, b, a);
}

bool DimTable::Determined(const DimExpr& e) const {
  for (const DimExpr::Term& term : e.terms()) {
    for (int atom : term.atoms) {
      if (!determined_.at(static_cast<size_t>(atom))) return false;
    }
  }
  return true;
}

size_t DimTable::TextSize(const DimExpr& e) const {
  size_t size = 0;
  for (const DimExpr::Term& term : e.terms()) {
    size += 22;  // a coefficient and the sign between terms
    for (int atom : term.atoms) size += text_size_.at(static_cast<size_t>(atom)) + 1;
    if (size > kMaxText) return kMaxText + 1;
  }
  return size;
}

std::string DimTable::ToString(const DimExpr& e) const {
  if (e.terms().empty()) return "0";
  if (!Printable(e)) return "...";
  // Terms with atoms first, in the canonical order, then the constant.
  std::vector<const DimExpr::Term*> order;
  for (const DimExpr::Term& term : e.terms()) {
    if (!term.atoms.empty()) order.push_back(&term);
  }
  if (e.terms().front().atoms.empty()) order.push_back(&e.terms().front());
  // A sum inside a division or modulo is parenthesized.
  auto operand = [this](const DimExpr& x) { return x.terms().size() > 1 ? "(" + ToString(x) + ")" : ToString(x); };
  std::string text;
  for (const DimExpr::Term* term : order) {
    int64_t coefficient = term->coefficient;
    if (text.empty()) {
      if (coefficient < 0 && !term->atoms.empty()) {
        text += "-";
        coefficient = coefficient == INT64_MIN ? coefficient : -coefficient;
      }
    } else {
      text += coefficient < 0 ? " - " : " + ";
      if (coefficient < 0 && coefficient != INT64_MIN) coefficient = -coefficient;
    }
    std::vector<std::string> factors;
    if (coefficient != 1 || term->atoms.empty()) factors.push_back(std::to_string(coefficient));
    for (int index : term->atoms) {
      const AtomInfo& info = atom(index);
      switch (info.kind) {
        case Kind::kSymbol:
        case Kind::kUnknown: factors.push_back(info.name); break;
        case Kind::kFloorDiv: factors.push_back(fmt::format("floor({} / {})", operand(info.a), operand(info.b))); break;
        case Kind::kMod: factors.push_back(fmt::format("({} mod {})", operand(info.a), operand(info.b))); break;
        case Kind::kMax: factors.push_back(fmt::format("max({}, {})", ToString(info.a), ToString(info.b))); break;
        case Kind::kMin: factors.push_back(fmt::format("min({}, {})", ToString(info.a), ToString(info.b))); break;
      }
    }
    text += fmt::format("{}", fmt::join(factors, "*"));
  }
  return text;
}

bool DimValues::Bind(const DimTable& table, const std::vector<std::pair<int, int64_t>>& symbols) {
  values_.assign(table.size(), 0);
  known_.assign(table.size(), false);
  for (const auto& [atom, size] : symbols) {
    const auto index = static_cast<size_t>(atom);
    if (size < 1 || (known_[index] && values_[index] != size)) return false;
    values_[index] = size;
    known_[index] = true;
  }
  for (size_t index = 0; index < table.size(); ++index) {
    const DimTable::AtomInfo& info = table.atom(static_cast<int>(index));
    if (info.kind == DimTable::Kind::kSymbol || info.kind == DimTable::Kind::kUnknown) continue;
    const std::optional<int64_t> a = Evaluate(info.a);
    const std::optional<int64_t> b = Evaluate(info.b);
    if (!a || !b) continue;
    switch (info.kind) {
      case DimTable::Kind::kFloorDiv:
      case DimTable::Kind::kMod:
        if (*b == 0 || (*a == INT64_MIN && *b == -1)) continue;
        values_[index] = info.kind == DimTable::Kind::kFloorDiv ? FloorDivide(*a, *b) : FloorModulo(*a, *b);
        break;
      case DimTable::Kind::kMax: values_[index] = std::max(*a, *b); break;
      case DimTable::Kind::kMin: values_[index] = std::min(*a, *b); break;
      default: continue;
    }
    known_[index] = true;
  }
  return true;
}

std::optional<int64_t> DimValues::Evaluate(const DimExpr& e) const {
  int64_t sum = 0;
  for (const DimExpr::Term& term : e.terms()) {
    int64_t product = term.coefficient;
    for (int atom : term.atoms) {
      const auto index = static_cast<size_t>(atom);
      if (index >= known_.size() || !known_[index]) return std::nullopt;
      if (__builtin_mul_overflow(product, values_[index], &product)) return std::nullopt;
    }
    if (__builtin_add_overflow(sum, product, &sum)) return std::nullopt;
  }
  return sum;
}

}  // namespace ge
