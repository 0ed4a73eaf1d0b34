// Shape and dtype inference of elementwise, matmul and reduce ops.
#include <catch2/catch.hpp>

#include "op_tester.h"

using ge::DataType;
using ge::Shape;
using Ints = std::vector<int64_t>;
constexpr int64_t kU = Shape::kUnknownDim;

TEST_CASE("Unary ops keep dtype and shape") {
  ge::test::OpTester t;
  for (const char* op : {"Relu", "Sigmoid", "Tanh", "Erf", "Sqrt", "Exp", "Log", "Abs", "Neg", "Reciprocal", "Gelu"}) {
    INFO(op);
    ge::Node* node = t.Run(op, {t.Input({2, kU, 3}, DataType::kFloat16)});
    CHECK(node->output(0)->shape() == Shape{2, kU, 3});
    CHECK(node->output(0)->dtype() == DataType::kFloat16);
  }
}

TEST_CASE("Binary ops broadcast and reject incompatible shapes") {
  ge::test::OpTester t;
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Maximum", "Minimum"}) {
    INFO(op);
    CHECK(t.Infer(op, {t.Input({2, 1, 4}), t.Input({3, 1})}) == Shape{2, 3, 4});
  }
  CHECK(t.Infer("Add", {t.Input({}), t.Input({5})}) == Shape{5});
  CHECK(t.Infer("Mul", {t.Input({kU, 3}), t.Input({4, 1})}) == Shape{4, 3});
  CHECK(t.Run("Add", {t.Input({2}, DataType::kInt32), t.Input({2}, DataType::kInt32)})->output(0)->dtype() ==
        DataType::kInt32);
  CHECK_THAT(t.Error("Add", {t.Input({2, 3}), t.Input({4})}), Catch::Contains("[2,3]") && Catch::Contains("[4]"));
}

TEST_CASE("ClipByValue needs scalar bounds and Cast takes dst_type") {
  ge::test::OpTester t;
  CHECK(t.Infer("ClipByValue", {t.Input({3, 4}), t.Input({}), t.Input({1})}) == Shape{3, 4});
  CHECK_THAT(t.Error("ClipByValue", {t.Input({3, 4}), t.Input({2}), t.Input({})}), Catch::Contains("clip_value_min"));

  ge::Node* cast = t.Run("Cast", {t.Input({2, 3})}, {{"dst_type", static_cast<int64_t>(DataType::kInt32)}});
  CHECK(cast->output(0)->dtype() == DataType::kInt32);
  CHECK(cast->output(0)->shape() == Shape{2, 3});
  CHECK_THAT(t.Error("Cast", {t.Input({2})}, {{"dst_type", int64_t{99}}}), Catch::Contains("dst_type"));
  CHECK_THAT(t.Error("Cast", {t.Input({2})}), Catch::Contains("dst_type"));
}

TEST_CASE("MatMulV2 shapes with transposes and bias") {
  ge::test::OpTester t;
  CHECK(t.Infer("MatMulV2", {t.Input({4, 3}), t.Input({3, 5})}) == Shape{4, 5});
  CHECK(t.Infer("MatMulV2", {t.Input({3, 4}), t.Input({5, 3})}, {{"transpose_x1", true}, {"transpose_x2", true}}) ==
        Shape{4, 5});
  CHECK(t.Infer("MatMulV2", {t.Input({kU, 3}), t.Input({3, 5}), t.Input({5})}) == Shape{kU, 5});
  CHECK_THAT(t.Error("MatMulV2", {t.Input({4, 3}), t.Input({4, 5})}),
             Catch::Contains("[4,3]") && Catch::Contains("[4,5]"));
  CHECK_THAT(t.Error("MatMulV2", {t.Input({4, 3}), t.Input({3, 5}), t.Input({4})}), Catch::Contains("bias"));
  CHECK_THAT(t.Error("MatMulV2", {t.Input({2, 4, 3}), t.Input({3, 5})}), Catch::Contains("rank 2"));
}

TEST_CASE("BatchMatMulV2 follows numpy matmul") {
  ge::test::OpTester t;
  CHECK(t.Infer("BatchMatMulV2", {t.Input({2, 1, 3, 4}), t.Input({5, 4, 6})}) == Shape{2, 5, 3, 6});
  CHECK(t.Infer("BatchMatMulV2", {t.Input({4}), t.Input({4, 6})}) == Shape{6});
  CHECK(t.Infer("BatchMatMulV2", {t.Input({2, 3, 4}), t.Input({4})}) == Shape{2, 3});
  CHECK(t.Infer("BatchMatMulV2", {t.Input({4}), t.Input({4})}) == Shape{});
  CHECK(t.Infer("BatchMatMulV2", {t.Input({7, 4, 3}), t.Input({7, 6, 4})}, {{"adj_x1", true}, {"adj_x2", true}}) ==
        Shape{7, 3, 6});
  CHECK(t.Infer("BatchMatMulV2", {t.Input(Shape::UnknownRank()), t.Input({4, 6})}).unknown_rank());
  CHECK_THAT(t.Error("BatchMatMulV2", {t.Input({2, 3, 4}), t.Input({3, 4, 6})}), Catch::Contains("broadcast"));
  CHECK_THAT(t.Error("BatchMatMulV2", {t.Input({3, 4}), t.Input({5, 6})}), Catch::Contains("contracted"));
}

TEST_CASE("Reductions drop or keep the reduced axes") {
  ge::test::OpTester t;
  CHECK(t.Infer("ReduceSumD", {t.Input({2, 3, 4})}, {{"axes", Ints{1}}}) == Shape{2, 4});
  CHECK(t.Infer("ReduceMeanD", {t.Input({2, 3, 4})}, {{"axes", Ints{-1, 0}}, {"keep_dims", true}}) == Shape{1, 3, 1});
  CHECK(t.Infer("ReduceMaxD", {t.Input({2, 3, 4})}, {{"axes", Ints{}}}) == Shape{});
  CHECK(t.Infer("ReduceMinD", {t.Input({2, 3, 4})}, {{"axes", Ints{}}, {"keep_dims", true}}) == Shape{1, 1, 1});
  CHECK(t.Infer("ReduceProdD", {t.Input({kU, 3})}, {{"axes", Ints{1}}}) == Shape{kU});
  CHECK_THAT(t.Error("ReduceSumD", {t.Input({2, 3})}, {{"axes", Ints{2}}}), Catch::Contains("out of range"));
  CHECK_THAT(t.Error("ReduceSumD", {t.Input({2, 3})}, {{"axes", Ints{1, -1}}}), Catch::Contains("repeats"));
  CHECK_THAT(t.Error("ReduceSumD", {t.Input({2, 3})}), Catch::Contains("axes"));
}
