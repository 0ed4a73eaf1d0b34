// DimExpr and DimTable (graph/dim_expr.h): the canonical polynomial form that
// symbolic inference proves dims equal with, the operations it keeps as
// atoms, the bounds it simplifies with, and evaluation for a run.
#include <catch2/catch.hpp>

#include <climits>

#include "graph/dim_expr.h"

using namespace ge;

TEST_CASE("dim expressions are canonical polynomials", "[symbolic]") {
  DimTable table;
  const DimExpr a = table.Symbol("a");
  const DimExpr b = table.Symbol("b");
  CHECK(table.Symbol("a") == a);  // one atom per name
  CHECK((a + b) * (a - b) == a * a - b * b);
  CHECK(a + b - a == b);
  CHECK((a - a).constant() == 0);
  CHECK((DimExpr(3) * a + DimExpr(2)).constant() == std::nullopt);
  CHECK(a + b != a * b);
  CHECK(table.ToString(b + a + DimExpr(1)) == "a + b + 1");
  CHECK(table.ToString(DimExpr(2) * a * b - DimExpr(3)) == "2*a*b - 3");
  CHECK(table.ToString(-a) == "-a");
  CHECK(table.ToString(DimExpr(0)) == "0");
}

TEST_CASE("exact division divides every term by one term", "[symbolic]") {
  DimTable table;
  const DimExpr batch = table.Symbol("batch");
  const DimExpr seq = table.Symbol("seq");
  CHECK(DimExpr::DivideExactly(DimExpr(1024) * batch * seq, DimExpr(64) * batch) == DimExpr(16) * seq);
  CHECK(DimExpr::DivideExactly(DimExpr(6) * seq + DimExpr(4), DimExpr(2)) == DimExpr(3) * seq + DimExpr(2));
  CHECK_FALSE(DimExpr::DivideExactly(DimExpr(6) * seq + DimExpr(3), DimExpr(2)));  // 3 is odd
  CHECK_FALSE(DimExpr::DivideExactly(seq, batch));                                // batch is no factor
  CHECK_FALSE(DimExpr::DivideExactly(seq, batch + seq));                           // not a single term
}

TEST_CASE("floor division, modulo, max and min fold what they can and keep the rest as atoms", "[symbolic]") {
  DimTable table;
  const DimExpr s = table.Symbol("s");
  CHECK(table.FloorDiv(DimExpr(-7), DimExpr(2)).constant() == -4);  // floor, not truncation
  CHECK(table.Mod(DimExpr(-7), DimExpr(2)).constant() == 1);
  CHECK(table.FloorDiv(DimExpr(4) * s, DimExpr(2)) == DimExpr(2) * s);
  const DimExpr half = table.FloorDiv(s, DimExpr(2));
  CHECK_FALSE(half.constant());
  CHECK(table.FloorDiv(s, DimExpr(2)) == half);  // interned
  CHECK(table.ToString(half + DimExpr(1)) == "floor(s / 2) + 1");
  // Symbols are at least 1, so s - 1 >= 0 and s + 2 > s.
  CHECK(table.Max(s - DimExpr(1), DimExpr(0)) == s - DimExpr(1));
  CHECK(table.Min(DimExpr(0), s) == DimExpr(0));
  CHECK(table.Max(s + DimExpr(2), s) == s + DimExpr(2));
  CHECK(table.Min(DimExpr(INT64_MAX), s) == s);  // ONNX's "to the end"
  const DimExpr clipped = table.Min(DimExpr(3), s);
  CHECK(table.ToString(clipped) == "min(3, s)");
  CHECK(table.LowerBound(clipped) == 1);
  CHECK(table.LowerBound(s - DimExpr(1)) == 0);
  CHECK_FALSE(table.LowerBound(DimExpr(5) - s));
}

TEST_CASE("a run binds the symbols and evaluates every expression", "[symbolic]") {
  DimTable table;
  const DimExpr s = table.Symbol("s");
  const DimExpr p = table.Symbol("p");
  const DimExpr data = table.Unknown("nonzero[1]");
  const DimExpr windows = table.FloorDiv(s - DimExpr(3), DimExpr(2)) + DimExpr(1);
  const DimExpr clipped = table.Min(DimExpr(4), s + p);
  const DimExpr pairs = table.CeilDiv(s, DimExpr(2));
  CHECK(table.Determined(windows));
  CHECK_FALSE(table.Determined(data + s));
  const int s_atom = *s.single_atom();
  const int p_atom = *p.single_atom();
  DimValues values;
  REQUIRE(values.Bind(table, {{s_atom, 9}, {p_atom, 2}}));
  CHECK(values.Evaluate(windows) == 4);
  CHECK(values.Evaluate(clipped) == 4);
  CHECK(values.Evaluate(pairs) == 5);
  CHECK(values.Evaluate(s * p + DimExpr(1)) == 19);
  CHECK(values.Evaluate(data + s) == std::nullopt);
  REQUIRE(values.Bind(table, {{s_atom, 1}, {p_atom, 1}}));
  CHECK(values.Evaluate(windows) == 0);  // floor(-2 / 2) + 1
  CHECK(values.Evaluate(clipped) == 2);
  // The same symbol twice must have one size; sizes below 1 are refused.
  CHECK_FALSE(values.Bind(table, {{s_atom, 3}, {s_atom, 4}}));
  CHECK_FALSE(values.Bind(table, {{s_atom, 0}, {p_atom, 1}}));
  REQUIRE(values.Bind(table, {{s_atom, INT64_MAX}, {p_atom, 2}}));
  CHECK(values.Evaluate(s * p) == std::nullopt);  // overflows
}

TEST_CASE("expressions past their limits throw DimExprLimit", "[symbolic]") {
  DimTable table;
  const DimExpr s = table.Symbol("s");
  CHECK_THROWS_AS(DimExpr(INT64_MAX) * s + DimExpr(INT64_MAX) * s, DimExprLimit);
  DimExpr power = s;
  CHECK_THROWS_AS(
      [&] {
        for (int i = 0; i < 10; ++i) power = power * s;
      }(),
      DimExprLimit);
}

TEST_CASE("deeply nested operations print as ... instead of doubling their text per level", "[symbolic]") {
  DimTable table;
  const DimExpr s = table.Symbol("s");
  DimExpr d = s;
  for (int level = 0; level < 200; ++level) d = table.Max(table.Min(DimExpr(7), d) - table.Max(d - DimExpr(3), DimExpr(0)), DimExpr(0));
  CHECK_FALSE(table.Printable(d));
  CHECK(table.ToString(d) == "...");
  DimValues values;
  REQUIRE(values.Bind(table, {{*s.single_atom(), 5}}));
  CHECK(values.Evaluate(d).has_value());  // still computable
}
