// Sequences and optionals through the builder and the runtime: split, edit,
// index and concatenate a sequence; a sequence as a model input and output;
// SequenceMap (also through a .gem file); optionals with and without an element; and the errors,
// which name the node. Expected values are written out by hand.
#include <catch2/catch.hpp>

#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "ge/error.h"
#include "ge/profile.h"
#include "test_support.h"

using ge::DataType;
using ge::Shape;
using ge::Tensor;

namespace {

Tensor Floats(Shape shape, std::vector<float> values) { return Tensor::FromVector(DataType::kFloat, shape, values); }
Tensor Int64(int64_t value) { return Tensor::FromVector(DataType::kInt64, Shape{}, std::vector<int64_t>{value}); }

std::vector<float> ValuesOf(const Tensor& tensor) {
  REQUIRE(tensor.dtype() == DataType::kFloat);
  return {tensor.data_as<float>(), tensor.data_as<float>() + tensor.num_elements()};
}

}  // namespace

TEST_CASE("sequences: split, insert, erase, index and concatenate", "[sequence]") {
  ge::GraphBuilder b("sequence_edit");
  ge::Value* x = b.Input("x", DataType::kFloat, {Shape::kUnknownDim, 2});
  ge::Value* y = b.Input("y", DataType::kFloat, {1, 2});
  ge::Value* rows = b.Op("SplitToSequence", {x}, {{"axis", int64_t{0}}})[0];          // x's rows, [1, 2] each
  ge::Value* longer = b.Op("SequenceInsert", {rows, y, b.Constant("front", Int64(0))})[0];  // y first
  ge::Value* shorter = b.Op("SequenceErase", {longer})[0];                               // the last row gone
  ge::Value* last = b.Op("SequenceAt", {shorter, b.Constant("minus_one", Int64(-1))}, {{"dtype", DataType::kFloat}})[0];
  ge::Value* length = b.Op("SequenceLength", {shorter})[0];
  ge::Value* joined = b.Op("ConcatFromSequence", {shorter}, {{"axis", int64_t{0}}, {"dtype", DataType::kFloat}})[0];
  ge::Value* stacked =
      b.Op("ConcatFromSequence", {shorter}, {{"axis", int64_t{0}}, {"new_axis", int64_t{1}}, {"dtype", DataType::kFloat}})[0];
  b.Outputs({last, length, joined, stacked, shorter});
  auto model = ge::CompiledModel::Compile(b.Build());
  CHECK(model->memory().dynamic);

  std::vector<Tensor> out = model->Run({Floats({3, 2}, {1, 2, 3, 4, 5, 6}), Floats({1, 2}, {9, 8})});
  CHECK(ValuesOf(out[0]) == std::vector<float>{3, 4});
  CHECK(out[0].shape() == Shape{1, 2});
  CHECK(out[1].data_as<int64_t>()[0] == 3);
  CHECK(out[2].shape() == Shape{3, 2});
  CHECK(ValuesOf(out[2]) == std::vector<float>{9, 8, 1, 2, 3, 4});
  CHECK(out[3].shape() == Shape{3, 1, 2});
  REQUIRE(out[4].dtype() == DataType::kSequence);
  CHECK(out[4].element_dtype() == DataType::kFloat);
  REQUIRE(out[4].elements().size() == 3);
  CHECK(ValuesOf(out[4].elements()[1]) == std::vector<float>{1, 2});

  // A run after the first one's buffers went back to the pool: the returned
  // sequence keeps its own copies.
  model->Run({Floats({2, 2}, {0, 0, 0, 0}), Floats({1, 2}, {0, 0})});
  CHECK(ValuesOf(out[4].elements()[2]) == std::vector<float>{3, 4});
}

TEST_CASE("sequences: a sequence input mapped element by element", "[sequence]") {
  ge::GraphBuilder body_builder("body");
  ge::Value* element = body_builder.Input("element", DataType::kFloat, Shape::UnknownRank());
  ge::Value* offset = body_builder.Input("offset", DataType::kFloat, {});
  body_builder.Outputs({body_builder.Add(element, offset, "shifted")});
  std::shared_ptr<const ge::Graph> body = body_builder.Build();

  ge::GraphBuilder b("sequence_map");
  ge::Value* seq = b.Input("seq", DataType::kSequence, {Shape::kUnknownDim});
  ge::Value* offset_in = b.Input("offset", DataType::kFloat, {});
  b.Outputs({b.Op("SequenceMap", {seq, offset_in}, {{"body", body}})[0]});
  auto model = ge::CompiledModel::Compile(b.Build());

  Tensor input = Tensor::Sequence(DataType::kFloat, {Floats({2}, {1, 2}), Floats({3}, {3, 4, 5})});
  std::vector<Tensor> out = model->Run({input, Floats({}, {10})});
  REQUIRE(out[0].dtype() == DataType::kSequence);
  REQUIRE(out[0].elements().size() == 2);
  CHECK(ValuesOf(out[0].elements()[0]) == std::vector<float>{11, 12});
  CHECK(ValuesOf(out[0].elements()[1]) == std::vector<float>{13, 14, 15});

  // A .gem keeps the sequence input and the body.
  const std::string path = (ge::test::TempDir("sequence_map") / "model.gem").string();
  model->Save(path);
  std::vector<Tensor> loaded = ge::CompiledModel::Load(path)->Run({input, Floats({}, {1})});
  CHECK(ValuesOf(loaded[0].elements()[1]) == std::vector<float>{4, 5, 6});

  std::vector<Tensor> empty = model->Run({Tensor::Sequence(DataType::kFloat, {}), Floats({}, {10})});
  CHECK(empty[0].elements().empty());
  CHECK_THROWS_WITH(model->Run({Floats({1}, {1}), Floats({}, {10})}), Catch::Contains("expected dtype sequence"));
}

TEST_CASE("optionals: with and without an element", "[sequence][optional]") {
  ge::GraphBuilder b("optional");
  ge::Value* opt = b.Input("opt", DataType::kOptional, {Shape::kUnknownDim});
  ge::Value* has = b.Op("OptionalHasElement", {opt})[0];
  ge::Value* wrapped = b.Op("Optional", {b.Constant("seven", Int64(7))}, {{"dtype", DataType::kInt64}})[0];
  ge::Value* unwrapped = b.Op("OptionalGetElement", {wrapped}, {{"dtype", DataType::kInt64}})[0];
  b.Outputs({has, unwrapped, opt});
  auto model = ge::CompiledModel::Compile(b.Build());

  std::vector<Tensor> some = model->Run({Tensor::Optional(DataType::kFloat, Floats({1}, {1}))});
  CHECK(*some[0].data_as<bool>());
  CHECK(some[1].data_as<int64_t>()[0] == 7);
  CHECK(some[2].elements().size() == 1);
  std::vector<Tensor> none = model->Run({Tensor::Optional(DataType::kFloat, std::nullopt)});
  CHECK_FALSE(*none[0].data_as<bool>());
}

TEST_CASE("sequences: a container input at one signature run after run never plans", "[sequence][plans]") {
  // A signature makes a container input's element count known, so every
  // shape looks static; the model must still run node by node (no kernel
  // takes a sequence or an optional) when its plan would be compiled.
  ge::GraphBuilder b("containers_in");
  ge::Value* seq = b.Input("seq", DataType::kSequence, {Shape::kUnknownDim});
  ge::Value* opt = b.Input("opt", DataType::kOptional, {Shape::kUnknownDim});
  b.Outputs({b.Op("Identity", {seq})[0], b.Op("OptionalHasElement", {opt})[0]});
  auto model = ge::CompiledModel::Compile(b.Build(), {{"ge.exec.dynamicPlanAfterRuns", "1"}});
  const Tensor sequence = Tensor::Sequence(DataType::kFloat, {Floats({2}, {1, 2}), Floats({1}, {3})});
  const Tensor optional = Tensor::Optional(DataType::kFloat, Floats({1}, {4}));
  for (int run = 0; run < 3; ++run) {
    std::vector<Tensor> out = model->Run({sequence, optional});
    REQUIRE(out[0].elements().size() == 2);
    CHECK(ValuesOf(out[0].elements()[1]) == std::vector<float>{3});
    CHECK(*out[1].data_as<bool>());
  }
  CHECK(model->run_stats().planned_runs == 0);
}

TEST_CASE("sequences: bad positions and contents are refused naming the node", "[sequence][errors]") {
  ge::GraphBuilder b("sequence_errors");
  ge::Value* seq = b.Input("seq", DataType::kSequence, {Shape::kUnknownDim});
  ge::Value* position = b.Input("position", DataType::kInt64, {});
  ge::Value* x = b.Input("x", DataType::kInt64, {1});
  b.Outputs({b.Op("SequenceAt", {seq, position}, {{"dtype", DataType::kFloat}}, 1, "at")[0],
             b.Op("SequenceInsert", {seq, x}, {}, 1, "insert")[0]});
  auto model = ge::CompiledModel::Compile(b.Build());
  Tensor two = Tensor::Sequence(DataType::kFloat, {Floats({1}, {1}), Floats({1}, {2})});
  CHECK_THROWS_WITH(model->Run({two, Int64(2), Tensor::FromVector(DataType::kInt64, {1}, std::vector<int64_t>{1})}),
                    Catch::Contains("node 'at'") && Catch::Contains("position 2 is outside [-2, 1]"));
  CHECK_THROWS_WITH(model->Run({two, Int64(0), Tensor::FromVector(DataType::kInt64, {1}, std::vector<int64_t>{1})}),
                    Catch::Contains("node 'insert'") && Catch::Contains("element 2 is int64"));
  CHECK_THROWS_WITH(Tensor::Sequence(DataType::kFloat, {Int64(1)}), Catch::Contains("element 0 is int64"));
  CHECK_THROWS_WITH(Floats({1}, {1}).elements(), Catch::Contains("holds no elements"));
}
