// Symbolic dims: a dim as an expression over named symbols ("batch",
// "sequence", "past"), so that shape inference can say that a decoder's
// present cache is [1, 4, past + sequence, 64] and a run can compute every
// size from its input shapes by arithmetic alone.
//
// A DimExpr is a polynomial with integer coefficients over atoms. An atom is
// a symbol (an input dim's name), an unknown (a dim that depends on data:
// NonZero's count, a Reshape to values the model computes at run time) or
// an operation that is not a polynomial (floor division, modulo, max, min)
// over earlier expressions. Atoms live in a DimTable; expressions only hold
// their indices, so they are cheap to copy and compare. The polynomial form
// is canonical: two expressions are equal exactly when they are equal for
// every value of their atoms, which is what the inference rules rely on to
// prove that two dims match.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace ge {

// Thrown by DimExpr arithmetic when a coefficient overflows int64 or an
// expression grows past the size symbolic inference keeps; the inference of
// that node then gives up (its outputs get unknown dims).
class DimExprLimit : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class DimExpr {
 public:
  // coefficient * atoms[0] * atoms[1] * ...; atoms sorted, repeated for powers.
  struct Term {
    std::vector<int> atoms;
    int64_t coefficient = 0;
    auto operator<=>(const Term&) const = default;
  };

  DimExpr() = default;  // 0
  DimExpr(int64_t constant);  // NOLINT: a constant is a DimExpr
  static DimExpr Atom(int atom);

  // The constant this is, when it has no atoms.
  std::optional<int64_t> constant() const;
  // The atom this is, when it is exactly one atom (coefficient 1).
  std::optional<int> single_atom() const;
  const std::vector<Term>& terms() const { return terms_; }

  friend DimExpr operator+(const DimExpr& a, const DimExpr& b);
  friend DimExpr operator-(const DimExpr& a, const DimExpr& b);
  friend DimExpr operator*(const DimExpr& a, const DimExpr& b);
  DimExpr operator-() const { return DimExpr(0) - *this; }

  // a / b when b divides every term of a exactly (b a single term), as
  // polynomials: 1024*batch*sequence / (64*batch) = 16*sequence.
  static std::optional<DimExpr> DivideExactly(const DimExpr& a, const DimExpr& b);

  auto operator<=>(const DimExpr&) const = default;
  bool operator==(const DimExpr&) const = default;

 private:
  void Normalize();
  std::vector<Term> terms_;  // sorted by atoms, no zero coefficients
};

// The atoms that DimExprs refer to, and the operations that make new ones.
class DimTable {
 public:
  enum class Kind { kSymbol, kUnknown, kFloorDiv, kMod, kMax, kMin };
  struct AtomInfo {
    Kind kind;
    std::string name;  // kSymbol, kUnknown
    DimExpr a, b;      // operands of the others
  };

  // The symbol named `name`, the same atom for every call with that name.
  DimExpr Symbol(const std::string& name);
  // A new dim that no input shape determines; `name` says where it comes from.
  DimExpr Unknown(const std::string& name);
  DimExpr FloorDiv(const DimExpr& a, const DimExpr& b);
  DimExpr CeilDiv(const DimExpr& a, const DimExpr& b);
  DimExpr Mod(const DimExpr& a, const DimExpr& b);
  DimExpr Max(const DimExpr& a, const DimExpr& b);
  DimExpr Min(const DimExpr& a, const DimExpr& b);

  // The least value `e` takes, when every symbol is at least 1 (DimValues
  // binds no symbol below 1) and every unknown at least 0; nullopt when
  // nothing bounds it (a term with a negative coefficient).
  std::optional<int64_t> LowerBound(const DimExpr& e) const;

  size_t size() const { return atoms_.size(); }
  const AtomInfo& atom(int index) const { return atoms_.at(static_cast<size_t>(index)); }
  // Whether an input shape determines `e`: it holds no unknown, directly or
  // through an operation's operands.
  bool Determined(const DimExpr& e) const;
  // "past + sequence", "2*batch", "floor((sequence - 3) / 2) + 1"; "..."
  // past kMaxText characters (nested operations can double the text per
  // level: a chain of slices of slices).
  std::string ToString(const DimExpr& e) const;
  static constexpr size_t kMaxText = 256;
  bool Printable(const DimExpr& e) const { return TextSize(e) <= kMaxText; }

 private:
  DimExpr Intern(Kind kind, const DimExpr& a, const DimExpr& b);
  // At least the length of ToString(e), saturating.
  size_t TextSize(const DimExpr& e) const;

  std::vector<AtomInfo> atoms_;
  std::vector<bool> determined_;                // per atom
  std::vector<std::optional<int64_t>> lower_;   // per atom: LowerBound
  std::vector<size_t> text_size_;               // per atom: TextSize
  std::map<std::string, int> symbols_;
  std::map<std::tuple<Kind, DimExpr, DimExpr>, int> operations_;
};

// Values of a DimTable's atoms for one run: the symbols bound from the input
// shapes, the operations computed from them in order (an operation's
// operands are always earlier atoms).
class DimValues {
 public:
  // Binds symbols (atom -> size), then computes every operation of `table`.
  // False when a symbol is given two sizes or a size below 1: the rules
  // reason with symbols of at least 1 (DimTable::LowerBound), so an empty
  // dim (a prefill's past of 0) is left to the schemas' own inference.
  bool Bind(const DimTable& table, const std::vector<std::pair<int, int64_t>>& symbols);
  // The value of `e`, or nullopt when it holds an unknown or an atom that
  // could not be computed (a division by zero, an overflow).
  std::optional<int64_t> Evaluate(const DimExpr& e) const;

 private:
  std::vector<int64_t> values_;
  std::vector<bool> known_;
};

}  // namespace ge
