// Shape inference of the shape-manipulating and slicing ops.
#include <catch2/catch.hpp>
#include <limits>

#include "op_tester.h"

using ge::DataType;
using ge::Shape;
using Ints = std::vector<int64_t>;
constexpr int64_t kU = Shape::kUnknownDim;

TEST_CASE("Const takes the dtype and shape of its value and Identity passes through") {
  ge::test::OpTester t;
  ge::Value* c = t.IntConstant({1, 2, 3}, DataType::kInt32);
  ge::InferContext ctx(*c->producer());
  c->set_shape(Shape::UnknownRank());
  ge::OpRegistry::Global().Find("Const")->infer()(ctx);
  CHECK(c->shape() == Shape{3});
  CHECK(c->dtype() == DataType::kInt32);
  CHECK(t.Infer("Identity", {t.Input({4, kU})}) == Shape{4, kU});
}

TEST_CASE("Reshape follows ONNX 0 / -1 / allowzero rules") {
  ge::test::OpTester t;
  // 0 copies dim 0 (2); -1 = 24 / (2*2).
  CHECK(t.Infer("Reshape", {t.Input({2, 3, 4}), t.IntConstant({0, -1, 2})}) == Shape{2, 6, 2});
  CHECK(t.Infer("Reshape", {t.Input({2, 3, 4}), t.IntConstant({-1}, DataType::kInt32)}) == Shape{24});
  CHECK(t.Infer("Reshape", {t.Input({0, 3}), t.IntConstant({3, 0})}, {{"allowzero", int64_t{1}}}) == Shape{3, 0});
  CHECK(t.Infer("Reshape", {t.Input({kU, 3}), t.IntConstant({0, 3, -1})}) == Shape{kU, 3, kU});
  CHECK(t.Infer("Reshape", {t.Input({2, 3}), t.Input({3}, DataType::kInt64)}) == Shape{kU, kU, kU});
  CHECK(t.Infer("Reshape", {t.Input({2, 3}), t.Input({kU}, DataType::kInt64)}).unknown_rank());
  CHECK_THAT(t.Error("Reshape", {t.Input({2, 3, 4}), t.IntConstant({5, 5})}), Catch::Contains("[2,3,4]"));
  CHECK_THAT(t.Error("Reshape", {t.Input({2, 3, 4}), t.IntConstant({-1, -1})}), Catch::Contains("more than one -1"));
  CHECK_THAT(t.Error("Reshape", {t.Input({2, 3, 4}), t.IntConstant({7, -1})}), Catch::Contains("cannot reshape"));
  CHECK_THAT(t.Error("Reshape", {t.Input({2}), t.IntConstant({1, 0})}), Catch::Contains("rank 1"));
}

TEST_CASE("Flatten, Squeeze, Unsqueeze and TransposeD") {
  ge::test::OpTester t;
  CHECK(t.Infer("Flatten", {t.Input({2, 3, 4, 5})}) == Shape{2, 60});
  CHECK(t.Infer("Flatten", {t.Input({2, 3, 4, 5})}, {{"axis", int64_t{0}}}) == Shape{1, 120});
  CHECK(t.Infer("Flatten", {t.Input({2, 3, 4, 5})}, {{"axis", int64_t{-1}}}) == Shape{24, 5});
  CHECK(t.Infer("Flatten", {t.Input({2, 3, 4, 5})}, {{"axis", int64_t{4}}}) == Shape{120, 1});
  CHECK(t.Infer("Flatten", {t.Input({kU, 3, 4})}) == Shape{kU, 12});
  CHECK_THAT(t.Error("Flatten", {t.Input({2, 3})}, {{"axis", int64_t{3}}}), Catch::Contains("axis"));

  CHECK(t.Infer("Squeeze", {t.Input({1, 3, 1, 5})}) == Shape{3, 5});
  CHECK(t.Infer("Squeeze", {t.Input({1, 3, 1, 5})}, {{"axis", Ints{-2}}}) == Shape{1, 3, 5});
  CHECK(t.Infer("Squeeze", {t.Input({1, kU, 5})}, {{"axis", Ints{0}}}) == Shape{kU, 5});
  CHECK(t.Infer("Squeeze", {t.Input({1, kU, 5})}).unknown_rank());
  CHECK_THAT(t.Error("Squeeze", {t.Input({1, 3})}, {{"axis", Ints{1}}}), Catch::Contains("not 1"));

  CHECK(t.Infer("Unsqueeze", {t.Input({3, 5})}, {{"axes", Ints{0, -1}}}) == Shape{1, 3, 5, 1});
  CHECK(t.Infer("Unsqueeze", {t.Input({3, 5})}, {{"axes", Ints{1}}}) == Shape{3, 1, 5});
  CHECK_THAT(t.Error("Unsqueeze", {t.Input({3, 5})}, {{"axes", Ints{3}}}), Catch::Contains("out of range"));
  CHECK_THAT(t.Error("Unsqueeze", {t.Input({3, 5})}, {{"axes", Ints{0, -4}}}), Catch::Contains("repeats"));

  CHECK(t.Infer("TransposeD", {t.Input({2, 3, 4})}, {{"perm", Ints{2, 0, 1}}}) == Shape{4, 2, 3});
  CHECK(t.Infer("TransposeD", {t.Input(Shape::UnknownRank())}, {{"perm", Ints{1, 0}}}) == Shape{kU, kU});
  CHECK_THAT(t.Error("TransposeD", {t.Input({2, 3, 4})}, {{"perm", Ints{0, 0, 1}}}), Catch::Contains("perm"));
  CHECK_THAT(t.Error("TransposeD", {t.Input({2, 3, 4})}, {{"perm", Ints{1, 0}}}), Catch::Contains("perm"));
}

TEST_CASE("Shape returns the rank as a 1-D int tensor") {
  ge::test::OpTester t;
  ge::Node* node = t.Run("Shape", {t.Input({2, kU, 4})});
  CHECK(node->output(0)->shape() == Shape{3});
  CHECK(node->output(0)->dtype() == DataType::kInt64);
  CHECK(t.Run("Shape", {t.Input({2})}, {{"dtype", static_cast<int64_t>(DataType::kInt32)}})->output(0)->dtype() ==
        DataType::kInt32);
  CHECK_THAT(t.Error("Shape", {t.Input({2})}, {{"dtype", static_cast<int64_t>(DataType::kFloat)}}),
             Catch::Contains("dtype"));
}

TEST_CASE("ConcatD sums the concat axis and checks the others") {
  ge::test::OpTester t;
  CHECK(t.Infer("ConcatD", {t.Input({2, 3}), t.Input({2, 5}), t.Input({2, 1})},
                {{"concat_dim", int64_t{1}}, {"N", int64_t{3}}}) == Shape{2, 9});
  CHECK(t.Infer("ConcatD", {t.Input({kU, 3}), t.Input({4, 3})}, {{"concat_dim", int64_t{-2}}, {"N", int64_t{2}}}) ==
        Shape{kU, 3});
  CHECK(t.Infer("ConcatD", {t.Input({kU, 3}), t.Input({4, kU})}, {{"concat_dim", int64_t{1}}, {"N", int64_t{2}}}) ==
        Shape{4, kU});
  CHECK_THAT(t.Error("ConcatD", {t.Input({2, 3}), t.Input({3, 3})}, {{"concat_dim", int64_t{1}}, {"N", int64_t{2}}}),
             Catch::Contains("[3,3]"));
  CHECK_THAT(t.Error("ConcatD", {t.Input({2, 3}), t.Input({2, 3})}, {{"concat_dim", int64_t{0}}, {"N", int64_t{3}}}),
             Catch::Contains("'N'"));
  CHECK_THAT(t.Error("ConcatD", {t.Input({2, 3}), t.Input({2, 3})}, {{"concat_dim", int64_t{2}}, {"N", int64_t{2}}}),
             Catch::Contains("concat_dim"));
}

TEST_CASE("SplitVD splits by size_splits with one inferred -1") {
  ge::test::OpTester t;
  ge::Node* split = t.Run("SplitVD", {t.Input({10, 4})},
                          {{"size_splits", Ints{3, -1, 2}}, {"split_dim", int64_t{0}}, {"num_split", int64_t{3}}}, 3);
  CHECK(split->output(0)->shape() == Shape{3, 4});
  CHECK(split->output(1)->shape() == Shape{5, 4});
  CHECK(split->output(2)->shape() == Shape{2, 4});
  ge::Node* unknown = t.Run("SplitVD", {t.Input({2, kU})},
                            {{"size_splits", Ints{1, -1}}, {"split_dim", int64_t{-1}}, {"num_split", int64_t{2}}}, 2);
  CHECK(unknown->output(0)->shape() == Shape{2, 1});
  CHECK(unknown->output(1)->shape() == Shape{2, kU});
  CHECK_THAT(t.Error("SplitVD", {t.Input({10, 4})},
                     {{"size_splits", Ints{3, 3}}, {"split_dim", int64_t{0}}, {"num_split", int64_t{2}}}, 2),
             Catch::Contains("add up"));
  CHECK_THAT(t.Error("SplitVD", {t.Input({10, 4})},
                     {{"size_splits", Ints{5, 5}}, {"split_dim", int64_t{0}}, {"num_split", int64_t{2}}}, 3),
             Catch::Contains("number of outputs"));
}

TEST_CASE("StridedSliceV2 clamps like ONNX Slice") {
  ge::test::OpTester t;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  // axis 0: 1..10 step 2 -> 1,3,5,7,9; axis 2: -5..-1 -> 25..29 -> 4.
  CHECK(t.Infer("StridedSliceV2", {t.Input({10, 20, 30}), t.IntConstant({1, -5}), t.IntConstant({1000, -1}),
                                   t.IntConstant({0, 2}), t.IntConstant({2, 1})}) == Shape{5, 20, 4});
  // Whole axis reversed.
  CHECK(t.Infer("StridedSliceV2", {t.Input({10}), t.IntConstant({-1}), t.IntConstant({kMin}), t.IntConstant({0}),
                                   t.IntConstant({-1})}) == Shape{10});
  // 8, 5 (stop before 2).
  CHECK(t.Infer("StridedSliceV2", {t.Input({10}), t.IntConstant({8}), t.IntConstant({2}), t.IntConstant({0}),
                                   t.IntConstant({-3})}) == Shape{2});
  // Without axes and strides: axes 0..n-1, step 1; start past the end gives 0.
  CHECK(t.Infer("StridedSliceV2", {t.Input({4, 6}), t.IntConstant({5, 2}), t.IntConstant({kMax, kMax})}) ==
        Shape{0, 4});
  CHECK(t.Infer("StridedSliceV2", {t.Input({4, kU}), t.IntConstant({1, 1}), t.IntConstant({3, 3})}) == Shape{2, kU});
  CHECK(t.Infer("StridedSliceV2", {t.Input({4, 6}), t.Input({1}, DataType::kInt64), t.IntConstant({3})}) ==
        Shape{kU, kU});
  CHECK_THAT(t.Error("StridedSliceV2", {t.Input({4, 6}), t.IntConstant({0}), t.IntConstant({3}), t.IntConstant({2})}),
             Catch::Contains("out of range"));
  CHECK_THAT(t.Error("StridedSliceV2",
                     {t.Input({4, 6}), t.IntConstant({0}), t.IntConstant({3}), t.IntConstant({0}), t.IntConstant({0})}),
             Catch::Contains("contains 0"));
  CHECK_THAT(t.Error("StridedSliceV2", {t.Input({4, 6}), t.IntConstant({0, 0}), t.IntConstant({3})}),
             Catch::Contains("same length"));
}

TEST_CASE("GatherV2D output shape") {
  ge::test::OpTester t;
  CHECK(t.Infer("GatherV2D", {t.Input({5, 6, 7}), t.Input({2, 3}, DataType::kInt64)}, {{"axis", int64_t{1}}}) ==
        Shape{5, 2, 3, 7});
  CHECK(t.Infer("GatherV2D", {t.Input({5, 6, 7}), t.Input({2, 3}, DataType::kInt32)}, {{"axis", int64_t{-1}}}) ==
        Shape{5, 6, 2, 3});
  CHECK(t.Infer("GatherV2D", {t.Input({5, 6, 7}), t.Input({}, DataType::kInt64)}) == Shape{6, 7});
  CHECK(t.Infer("GatherV2D", {t.Input({5, 6, 7}), t.Input({5, 4}, DataType::kInt64)},
                {{"axis", int64_t{1}}, {"batch_dims", int64_t{1}}}) == Shape{5, 4, 7});
  CHECK_THAT(t.Error("GatherV2D", {t.Input({5, 6}), t.Input({2}, DataType::kInt64)}, {{"axis", int64_t{2}}}),
             Catch::Contains("axis"));
  CHECK_THAT(t.Error("GatherV2D", {t.Input({5, 6, 7}), t.Input({4, 4}, DataType::kInt64)},
                     {{"axis", int64_t{1}}, {"batch_dims", int64_t{1}}}),
             Catch::Contains("batch dim 0"));
}
