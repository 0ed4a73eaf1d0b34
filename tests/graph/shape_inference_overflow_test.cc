// Output dims that a model file's dims, attributes or constant inputs push
// past int64 fail the node with a message naming what overflowed, instead of
// wrapping (signed overflow, UBSan; the ONNX fuzz target found DepthToSpace's
// dim * block_size). Valid models keep their shapes.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

#include "graph/shape_inference_utils.h"
#include "op_tester.h"

namespace ge::test {
namespace {

using Ints = std::vector<int64_t>;
using Catch::Matchers::Contains;

constexpr int64_t k2Pow62 = int64_t{1} << 62;
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kU = Shape::kUnknownDim;

Value* FloatConstant(OpTester& t, const std::vector<float>& values, Shape shape) {
  Tensor tensor(DataType::kFloat, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) tensor.data_as<float>()[i] = values[i];
  return t.graph.AddConstant("f" + std::to_string(t.graph.num_nodes()), tensor);
}

Value* FloatScalar(OpTester& t, float value) { return FloatConstant(t, {value}, Shape{}); }

}  // namespace

TEST_CASE("DepthToSpace: a dim times block_size, or block_size squared, past int64 fails naming it") {
  OpTester t;
  const std::map<std::string, AttrValue> block2 = {{"block_size", int64_t{2}}};
  CHECK(t.Infer("DepthToSpace", {t.Input({1, 8, 3, kU})}, block2) == Shape{1, 2, 6, kU});
  CHECK_THAT(t.Error("DepthToSpace", {t.Input({1, 4, k2Pow62, 2})}, block2),
             Contains("dim 2 of x [1,4,4611686018427387904,2] times block_size does not fit int64: "
                      "4611686018427387904 * 2"));
  CHECK_THAT(t.Error("DepthToSpace", {t.Input({1, 4, 2, 2})}, {{"block_size", int64_t{1} << 32}}),
             Contains("block_size 4294967296 squared does not fit int64"));
}

TEST_CASE("SpaceToDepth: channels times block_size squared past int64 fails naming it") {
  OpTester t;
  const std::map<std::string, AttrValue> block2 = {{"block_size", int64_t{2}}};
  CHECK(t.Infer("SpaceToDepth", {t.Input({1, 3, 4, kU})}, block2) == Shape{1, 12, 2, kU});
  CHECK_THAT(t.Error("SpaceToDepth", {t.Input({1, k2Pow62, 2, 2})}, block2),
             Contains("dim 1 of x") && Contains("times block_size^2 does not fit int64"));
  CHECK_THAT(t.Error("SpaceToDepth", {t.Input({1, 1, 0, 0})}, {{"block_size", kInt64Max}}),
             Contains("block_size 9223372036854775807 squared does not fit int64"));
}

TEST_CASE("Tile: a dim times its multiple past int64 fails naming the entry") {
  OpTester t;
  CHECK(t.Infer("Tile", {t.Input({2, kU}), t.IntConstant({3, 4})}) == Shape{6, kU});
  CHECK_THAT(t.Error("Tile", {t.Input({3, k2Pow62}), t.IntConstant({1, 2})}),
             Contains("dim 1 of x [3,4611686018427387904] times multiples[1] does not fit int64"));
  CHECK_THAT(t.Error("Tile", {t.Input({2}), t.IntConstant({kInt64Max})}), Contains("does not fit int64"));
}

TEST_CASE("PadV3: a dim plus its paddings past int64 fails; crops keep working") {
  OpTester t;
  CHECK(t.Infer("PadV3", {t.Input({4, 5}), t.IntConstant({-1, 2, 0, 3})}) == Shape{5, 8});
  CHECK_THAT(t.Error("PadV3", {t.Input({kInt64Max - 1}), t.IntConstant({1, 1})}),
             Contains("dim 0 of x [9223372036854775806] padded by 1 and 1 does not fit int64"));
  CHECK_THAT(t.Error("PadV3", {t.Input({1}), t.IntConstant({kInt64Max, kInt64Max})}), Contains("does not fit int64"));
  CHECK_THAT(t.Error("PadV3", {t.Input({4}), t.IntConstant({kInt64Min, -5})}), Contains("does not fit int64"));
}

TEST_CASE("StridedSliceV2: steps of any int64 give exact lengths") {
  OpTester t;
  auto slice = [&](int64_t begin, int64_t end, int64_t step) {
    return t.Infer("StridedSliceV2", {t.Input({10}), t.IntConstant({begin}), t.IntConstant({end}),
                                      t.IntConstant({0}), t.IntConstant({step})});
  };
  CHECK(slice(0, 10, 3) == Shape{4});
  CHECK(slice(9, kInt64Min, -3) == Shape{4});
  CHECK(slice(0, kInt64Max, kInt64Max) == Shape{1});
  CHECK(slice(kInt64Max, kInt64Min, kInt64Min) == Shape{1});
  CHECK(slice(kInt64Min, kInt64Max, 1) == Shape{10});
}

TEST_CASE("SplitVD and FFN: sums of sizes past int64 fail naming them") {
  OpTester t;
  CHECK_THAT(t.Error("SplitVD", {t.Input({4})},
                     {{"size_splits", Ints{kInt64Max, 1}}, {"split_dim", int64_t{0}}, {"num_split", int64_t{2}}}, 2),
             Contains("the sum of size_splits [9223372036854775807, 1] does not fit int64"));
  CHECK_THAT(t.Error("FFN", {t.Input({8, 16}), t.Input({2, 16, 32}), t.Input({2, 32, 12}),
                             t.IntConstant({kInt64Max, 1})}),
             Contains("the sum of expert_tokens does not fit int64"));
}

TEST_CASE("Range: integer lengths are exact past 2^53 and refused past int64; float ones must be finite") {
  OpTester t;
  auto range = [&](int64_t start, int64_t limit, int64_t delta) {
    return t.Infer("Range", {t.IntConstant({start}), t.IntConstant({limit}), t.IntConstant({delta})});
  };
  CHECK(range(0, 10, 3) == Shape{4});
  CHECK(range(10, 0, -3) == Shape{4});
  CHECK(range(0, 10, -1) == Shape{0});
  CHECK(range(0, (int64_t{1} << 53) + 1, 1) == Shape{(int64_t{1} << 53) + 1});
  CHECK(range(kInt64Min, kInt64Max, kInt64Max) == Shape{3});  // limit - start passes int64, the length does not
  CHECK(range(kInt64Max, kInt64Min, kInt64Min) == Shape{2});
  CHECK_THAT(t.Error("Range", {t.IntConstant({kInt64Min}), t.IntConstant({kInt64Max}), t.IntConstant({1})}),
             Contains("does not fit int64: 18446744073709551615"));
  CHECK(t.Infer("Range", {FloatScalar(t, 0), FloatScalar(t, 2.5f), FloatScalar(t, 0.5f)}) == Shape{5});
  CHECK(t.Infer("Range", {FloatScalar(t, 0), FloatScalar(t, -INFINITY), FloatScalar(t, 1)}) == Shape{0});
  CHECK_THAT(t.Error("Range", {FloatScalar(t, 0), FloatScalar(t, INFINITY), FloatScalar(t, 1)}),
             Contains("the length of the range from 0 to inf by 1 does not fit int64"));
  CHECK_THAT(t.Error("Range", {FloatScalar(t, 0), FloatScalar(t, 1e30f), FloatScalar(t, 1)}),
             Contains("does not fit int64"));
  CHECK_THAT(t.Error("Range", {FloatScalar(t, INFINITY), FloatScalar(t, INFINITY), FloatScalar(t, 1)}),
             Contains("from inf to inf by 1 does not fit int64") && Contains("nan"));  // inf - inf
}

TEST_CASE("OneHot and Resize: float depths and scaled dims past int64 fail naming them") {
  OpTester t;
  CHECK(t.Infer("OneHot", {t.Input({3}, DataType::kInt64), FloatScalar(t, 4.5f), t.Input({2}), t.Input({})}) ==
        Shape{3, 4});
  CHECK_THAT(t.Error("OneHot", {t.Input({3}, DataType::kInt64), FloatScalar(t, 1e30f), t.Input({2}), t.Input({})}),
             Contains("depth does not fit int64"));
  CHECK_THAT(t.Error("OneHot", {t.Input({3}, DataType::kInt64), FloatScalar(t, NAN), t.Input({2}), t.Input({})}),
             Contains("depth does not fit int64: nan"));

  auto scales = [&](float s) { return FloatConstant(t, {1, 1, s, 1}, Shape{4}); };
  CHECK(t.Infer("Resize", {t.Input({1, 1, 3, kU}), nullptr, scales(2.5f)}) == Shape{1, 1, 7, kU});
  CHECK_THAT(t.Error("Resize", {t.Input({1, 1, k2Pow62, 4}), nullptr, scales(2)}),
             Contains("dim 2 of x [1,1,4611686018427387904,4] times scale 2 does not fit int64"));
  CHECK_THAT(t.Error("Resize", {t.Input({1, 1, 3, 4}), nullptr, scales(INFINITY)}),
             Contains("times scale inf does not fit int64"));
}

TEST_CASE("Convolutions and recurrent layers: channel and gate products past int64 fail naming them") {
  OpTester t;
  const std::map<std::string, AttrValue> conv = {
      {"strides", Ints{1, 1, 1, 1}}, {"pads", Ints{0, 0, 0, 0}}, {"groups", int64_t{4}}};
  CHECK_THAT(t.Error("Conv2D", {t.Input({1, 8, 4, 4}), t.Input({4, k2Pow62, 1, 1})}, conv),
             Contains("channels of filter [4,4611686018427387904,1,1] times groups 4 does not fit int64"));
  CHECK_THAT(t.Error("Conv2DTranspose", {nullptr, t.Input({1, 4, 4, 4}), t.Input({4, k2Pow62, 1, 1})}, conv),
             Contains("times groups 4 does not fit int64"));
  CHECK_THAT(t.Error("ConvInteger", {t.Input({1, 8, 4, 4}, DataType::kUInt8), t.Input({4, k2Pow62, 1, 1},
                                                                                      DataType::kUInt8)},
                     {{"groups", int64_t{4}}}),
             Contains("channels of w [4,4611686018427387904,1,1] times groups 4 does not fit int64"));

  CHECK_THAT(t.Error("CommonLSTM", {t.Input({5, 2, 3}), t.Input({1, kU, 3}), t.Input({1, kU, kU})},
                     {{"hidden_size", k2Pow62}}, 3),
             Contains("4 gates x hidden_size does not fit int64: 4 * 4611686018427387904"));
  CHECK_THAT(t.Error("CommonGRU", {t.Input({5, 2, 3}), t.Input({1, kU, 3}), t.Input({1, kU, kU}), t.Input({1, kU})},
                     {{"hidden_size", k2Pow62 / 3 + 1}}, 2),
             Contains("2 x gates x hidden_size does not fit int64"));
}

TEST_CASE("MaxUnpool and GatherNd: dims near int64's limit fail by message") {
  OpTester t;
  const std::map<std::string, AttrValue> window = {
      {"ksize", Ints{1, 1, 2, 2}}, {"strides", Ints{1, 1, 2, 2}}, {"pads", Ints{0, 0, 0, 0}}};
  CHECK(t.Infer("MaxUnpool", {t.Input({1, 1, 3, kU}), t.Input({1, 1, 3, kU}, DataType::kInt64)}, window) ==
        Shape{1, 1, 6, kU});
  CHECK_THAT(t.Error("MaxUnpool", {t.Input({1, 1, k2Pow62, 2}), t.Input({1, 1, k2Pow62, 2}, DataType::kInt64)},
                     window),
             Contains("output dim 2 for x [1,1,4611686018427387904,2] does not fit int64"));
  CHECK_THAT(t.Error("GatherNd", {t.Input({2, 3}), t.Input({4, kInt64Max}, DataType::kInt64)},
                     {{"batch_dims", int64_t{1}}}),
             Contains("does not fit x [2,3]"));
}

TEST_CASE("Window arithmetic near int64's limit: the ceil-mode window and the dilated kernel extent") {
  // ceil_mode's last partial window would start past int64, hence past the input: dropped.
  CHECK(PoolOutputDim(kInt64Max, 1, 4, 0, 0, 1, true) == (kInt64Max - 1) / 4 + 1);
  // A partial window that starts inside the input near the limit is kept, as before.
  CHECK(PoolOutputDim(kInt64Max - 1, 5, 2, 0, 0, 1, true) == (kInt64Max - 6) / 2 + 2);
  // dilation * (kernel - 1) is exactly INT64_MAX; the + 1 overflows.
  CHECK_THROWS_WITH(ConvTransposeOutputDim(1, kInt64Max / 7 + 1, 1, 0, 0, 7, 0), Contains("overflows int64"));
  CHECK_THROWS_WITH(ConvOutputDim(0, 3, 1, kInt64Min, 0, 1), Contains("overflows int64"));
}

TEST_CASE("Ranks read from a shape input's length: up to 1024 dims, beyond that the node fails") {
  OpTester t;
  const DataType i64 = DataType::kInt64;
  CHECK(t.Infer("Reshape", {t.Input({2, 3}), t.Input({3}, i64)}, {{"allowzero", int64_t{0}}}) == Shape{kU, kU, kU});
  CHECK_THAT(t.Error("Reshape", {t.Input({2, 3}), t.Input({k2Pow62}, i64)}, {{"allowzero", int64_t{0}}}),
             Contains("the length of shape [4611686018427387904] gives a rank of 4611686018427387904; at most 1024"));
  CHECK_THAT(t.Error("Expand", {t.Input({2}), t.Input({1025}, i64)}), Contains("gives a rank of 1025"));
  CHECK_THAT(t.Error("Tile", {t.Input(Shape::UnknownRank()), t.Input({k2Pow62}, i64)}),
             Contains("the length of multiples gives a rank of"));
}

}  // namespace ge::test
