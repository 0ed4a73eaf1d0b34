// If, Loop and Scan at run time: subgraphs built with GraphBuilder, results
// against the loops written out by hand in the tests, .gem round trips and
// the errors a bad subgraph or input gives.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "ge/error.h"
#include "test_support.h"

using ge::DataType;
using ge::Shape;
using ge::Tensor;

namespace {

using GraphPtr = std::shared_ptr<const ge::Graph>;

Tensor Floats(Shape shape, std::vector<float> values) {
  return Tensor::FromVector(DataType::kFloat, std::move(shape), values);
}

Tensor Bool(bool value) { return Tensor::FromVector(DataType::kBool, Shape{}, std::vector<uint8_t>{value}); }

Tensor Int64(int64_t value) { return Tensor::FromVector(DataType::kInt64, Shape{}, std::vector<int64_t>{value}); }

std::vector<float> Values(const Tensor& tensor) {
  auto values = tensor.values<float>();
  return {values.begin(), values.end()};
}

// A subgraph computing op(x, x) for its one input x [2].
GraphPtr Branch(const std::string& name, const std::string& op) {
  ge::GraphBuilder b(name);
  ge::Value* x = b.Input("x", DataType::kFloat, {2});
  b.Output(b.Op(op, {x, x})[0]);
  return b.Build();
}

// y = If(c) then x + x else x * x, with x read by both branches.
std::shared_ptr<const ge::CompiledModel> IfModel() {
  ge::GraphBuilder b("if_model");
  ge::Value* c = b.Input("c", DataType::kBool, {});
  ge::Value* x = b.Input("x", DataType::kFloat, {2});
  b.Output(b.Op("If", {c, x}, {{"then_branch", Branch("then", "Add")}, {"else_branch", Branch("else", "Mul")}})[0]);
  return ge::CompiledModel::Compile(b.Build());
}

// Body of a Loop carrying s [2] and reading x [2] from outside: s' = s + x,
// scan output s (before the update), cond' = i < limit.
GraphPtr AccumulateBody(int64_t limit) {
  ge::GraphBuilder b("body");
  ge::Value* i = b.Input("i", DataType::kInt64, {});
  b.Input("cond", DataType::kBool, {});
  ge::Value* s = b.Input("s", DataType::kFloat, {2});
  ge::Value* x = b.Input("x", DataType::kFloat, {2});
  ge::Value* keep_going = b.Op("Less", {i, b.Constant("limit", Int64(limit))})[0];
  ge::Value* next = b.Add(s, x);
  ge::Value* before = b.Op("Identity", {s})[0];
  b.Outputs({keep_going, next, before});
  return b.Build();
}

// Loop(M, cond) over AccumulateBody; outputs: final s, stacked scan output.
std::shared_ptr<const ge::CompiledModel> LoopModel(bool with_trip_count, int64_t limit,
                                                   const std::map<std::string, std::string>& options = {}) {
  ge::GraphBuilder b("loop_model");
  ge::Value* m = with_trip_count ? b.Input("m", DataType::kInt64, {}) : nullptr;
  ge::Value* s0 = b.Input("s0", DataType::kFloat, {2});
  ge::Value* x = b.Input("x", DataType::kFloat, {2});
  std::vector<ge::Value*> outputs =
      b.Op("Loop", {m, nullptr, s0, x}, {{"body", AccumulateBody(limit)}, {"num_implicit_inputs", int64_t{1}}}, 2);
  b.Outputs(outputs);
  return ge::CompiledModel::Compile(b.Build(), options);
}

// Scan of the rows of X [3, 2]: state acc [2] += row; scan output acc.
std::shared_ptr<const ge::CompiledModel> ScanModel(int64_t input_direction, int64_t output_axis) {
  ge::GraphBuilder body_builder("body");
  ge::Value* acc = body_builder.Input("acc", DataType::kFloat, {2});
  ge::Value* row = body_builder.Input("row", DataType::kFloat, {2});
  ge::Value* sum = body_builder.Add(acc, row);
  body_builder.Outputs({sum, body_builder.Op("Identity", {sum})[0]});

  ge::GraphBuilder b("scan_model");
  ge::Value* init = b.Input("init", DataType::kFloat, {2});
  ge::Value* rows = b.Input("rows", DataType::kFloat, {3, 2});
  b.Outputs(b.Op("Scan", {init, rows},
                 {{"body", GraphPtr(body_builder.Build())},
                  {"num_scan_inputs", int64_t{1}},
                  {"scan_input_directions", std::vector<int64_t>{input_direction}},
                  {"scan_output_axes", std::vector<int64_t>{output_axis}}},
                 2));
  return ge::CompiledModel::Compile(b.Build());
}

std::shared_ptr<const ge::CompiledModel> RoundTrip(const ge::CompiledModel& model, const std::string& file) {
  const auto path = ge::test::TempDir("control_flow") / file;
  model.Save(path.string());
  return ge::CompiledModel::Load(path.string());
}

}  // namespace

TEST_CASE("If runs the branch cond selects, with values read from outside", "[runtime][control_flow]") {
  auto model = IfModel();
  CHECK(model->memory().dynamic);
  const Tensor x = Floats({2}, {3, -2});
  CHECK(Values(model->Run({Bool(true), x})[0]) == std::vector<float>{6, -4});
  CHECK(Values(model->Run({Bool(false), x})[0]) == std::vector<float>{9, 4});
}

TEST_CASE("If and its branches survive a .gem round trip", "[runtime][control_flow][gem]") {
  auto loaded = RoundTrip(*IfModel(), "if_model.gem");
  const Tensor x = Floats({2}, {1.5f, 2});
  CHECK(Values(loaded->Run({Bool(true), x})[0]) == std::vector<float>{3, 4});
  CHECK(Values(loaded->Run({Bool(false), x})[0]) == std::vector<float>{2.25f, 4});
}

TEST_CASE("a branch whose inner values are untyped survives a .gem round trip", "[runtime][control_flow][gem]") {
  // As an ONNX If's branch comes from the importer when the model does not
  // annotate its intermediate values: y = x + x has no dtype or shape until
  // the branch is compiled.
  ge::GraphBuilder branch("then");
  ge::Value* x_in = branch.Input("x", DataType::kFloat, {2});
  ge::Value* y = branch.Op("Add", {x_in, x_in}, {}, 1, "double")[0];
  branch.Output(branch.Op("Mul", {y, x_in}, {}, 1, "scale")[0]);
  std::shared_ptr<ge::Graph> then_branch(branch.Build());
  then_branch->FindNode("double")->output(0)->set_dtype(DataType::kUndefined);
  then_branch->FindNode("double")->output(0)->set_shape(Shape::UnknownRank());
  ge::GraphBuilder b("if_untyped_branch");
  ge::Value* c = b.Input("c", DataType::kBool, {});
  ge::Value* x = b.Input("x", DataType::kFloat, {2});
  b.Output(b.Op("If", {c, x}, {{"then_branch", GraphPtr(then_branch)}, {"else_branch", Branch("else", "Mul")}})[0]);
  auto loaded = RoundTrip(*ge::CompiledModel::Compile(b.Build()), "if_untyped_branch.gem");
  const Tensor input = Floats({2}, {1.5f, 2});
  CHECK(Values(loaded->Run({Bool(true), input})[0]) == std::vector<float>{4.5f, 8});
  CHECK(Values(loaded->Run({Bool(false), input})[0]) == std::vector<float>{2.25f, 4});
}

TEST_CASE("If refuses a cond that is not one bool, naming the node", "[runtime][control_flow]") {
  ge::GraphBuilder b("if_vector_cond");
  ge::Value* c = b.Input("c", DataType::kBool, {Shape::kUnknownDim});
  ge::Value* x = b.Input("x", DataType::kFloat, {2});
  b.Output(b.Op("If", {c, x}, {{"then_branch", Branch("then", "Add")}, {"else_branch", Branch("else", "Mul")}}, 1,
                "choose")[0]);
  auto model = ge::CompiledModel::Compile(b.Build());
  Tensor two = Tensor::FromVector(DataType::kBool, Shape{2}, std::vector<uint8_t>{1, 0});
  CHECK_THROWS_WITH(model->Run({two, Floats({2}, {1, 2})}),
                    Catch::Contains("node 'choose' (If)") && Catch::Contains("cond must be one bool"));
}

TEST_CASE("Loop runs M iterations, carries values and stacks scan outputs", "[runtime][control_flow]") {
  auto model = LoopModel(/*with_trip_count=*/true, /*limit=*/100);
  const Tensor s0 = Floats({2}, {1, 10});
  const Tensor x = Floats({2}, {2, -1});
  std::vector<Tensor> out = model->Run({Int64(3), s0, x});
  CHECK(Values(out[0]) == std::vector<float>{7, 7});  // s0 + 3 x
  CHECK(out[1].shape() == Shape{3, 2});
  CHECK(Values(out[1]) == std::vector<float>{1, 10, 3, 9, 5, 8});

  // No iteration: the initial values, and empty scan outputs.
  out = model->Run({Int64(0), s0, x});
  CHECK(Values(out[0]) == std::vector<float>{1, 10});
  CHECK(out[1].shape() == Shape{0, 2});
}

TEST_CASE("Loop without M stops when the body's cond turns false", "[runtime][control_flow]") {
  auto model = LoopModel(/*with_trip_count=*/false, /*limit=*/4);
  // The body runs for i = 0..4 and says stop at i = 4: five iterations.
  std::vector<Tensor> out = model->Run({Floats({2}, {0, 0}), Floats({2}, {1, 2})});
  CHECK(Values(out[0]) == std::vector<float>{5, 10});
  CHECK(out[1].shape() == Shape{5, 2});
  auto loaded = RoundTrip(*model, "loop_model.gem");
  CHECK(Values(loaded->Run({Floats({2}, {0, 0}), Floats({2}, {1, 2})})[0]) == std::vector<float>{5, 10});
}

TEST_CASE("Loop stops gathering a scan output once it passes ge.maxTensorBytes", "[runtime][control_flow]") {
  // Five iterations of 8-byte slices: the fifth passes a cap of 32 bytes (the
  // stacked output's shape [?, 2] is known only at run time).
  auto model = LoopModel(/*with_trip_count=*/false, /*limit=*/4, {{"ge.maxTensorBytes", "32"}});
  auto [code, message] = ge::test::ErrorOf([&] { model->Run({Floats({2}, {0, 0}), Floats({2}, {1, 2})}); });
  CHECK(code == ge::ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("scan output 0: 5 slices take 40 bytes, above the cap (ge.maxTensorBytes) of 32"));
  CHECK(Values(LoopModel(false, 3, {{"ge.maxTensorBytes", "32"}})->Run({Floats({2}, {0, 0}), Floats({2}, {1, 2})})[0]) ==
        std::vector<float>{4, 8});
}

TEST_CASE("Scan slices its inputs, carries states and stacks outputs on the given axis", "[runtime][control_flow]") {
  const Tensor init = Floats({2}, {0, 100});
  const Tensor rows = Floats({3, 2}, {1, 2, 3, 4, 5, 6});
  std::vector<Tensor> forward = ScanModel(0, 0)->Run({init, rows});
  CHECK(Values(forward[0]) == std::vector<float>{9, 112});
  CHECK(Values(forward[1]) == std::vector<float>{1, 102, 4, 106, 9, 112});

  // Rows taken last first; outputs stacked along axis 1: [2, 3].
  std::vector<Tensor> reversed = ScanModel(1, 1)->Run({init, rows});
  CHECK(Values(reversed[0]) == std::vector<float>{9, 112});
  CHECK(reversed[1].shape() == Shape{2, 3});
  CHECK(Values(reversed[1]) == std::vector<float>{5, 8, 9, 106, 110, 112});
}

TEST_CASE("A subgraph whose inputs or outputs do not fit the node is refused, naming node and subgraph", "[runtime][control_flow]") {
  ge::GraphBuilder branch_builder("bad");
  ge::Value* x = branch_builder.Input("x", DataType::kFloat, {2});
  branch_builder.Output(x);
  GraphPtr no_output = branch_builder.Build();
  // A branch with no outputs cannot give If its one output.
  auto empty = std::make_shared<ge::Graph>("empty");
  empty->AddInput("x", DataType::kFloat, {2});

  ge::GraphBuilder b("if_bad_branch");
  ge::Value* c = b.Input("c", DataType::kBool, {});
  ge::Value* v = b.Input("x", DataType::kFloat, {2});
  CHECK_THROWS_WITH(
      b.Op("If", {c, v}, {{"then_branch", no_output}, {"else_branch", GraphPtr(empty)}}, 1, "pick"),
      Catch::Contains("pick") && Catch::Contains("else_branch"));
}

TEST_CASE("Constants read from outside become the subgraph's constants; carried values stay inputs",
          "[runtime][control_flow]") {
  // The carried s0 and the implicit x are both constants of the outer model:
  // x is the same every iteration and folds into the body, s0 only starts s.
  ge::GraphBuilder b("loop_constants");
  ge::Value* m = b.Input("m", DataType::kInt64, {});
  ge::Value* s0 = b.Constant("s0", Floats({2}, {1, -1}));
  ge::Value* x = b.Constant("x", Floats({2}, {0.5f, 2}));
  std::vector<ge::Value*> outputs =
      b.Op("Loop", {m, nullptr, s0, x}, {{"body", AccumulateBody(100)}, {"num_implicit_inputs", int64_t{1}}}, 2);
  ge::Value* c = b.Input("c", DataType::kBool, {});
  outputs.push_back(b.Op("If", {c, x}, {{"then_branch", Branch("then", "Add")}, {"else_branch", Branch("else", "Mul")}})[0]);
  b.Outputs(outputs);
  auto model = ge::CompiledModel::Compile(b.Build());
  for (auto& [trips, cond] : std::vector<std::pair<int64_t, bool>>{{3, true}, {1, false}, {3, false}}) {
    INFO("trips " << trips << ", cond " << cond);
    const std::vector<Tensor> out = model->Run({Int64(trips), Bool(cond)});
    const float n = static_cast<float>(trips);
    CHECK(Values(out[0]) == std::vector<float>{1 + 0.5f * n, -1 + 2 * n});
    CHECK(out[1].shape() == Shape{trips, 2});
    CHECK(Values(out[2]) == (cond ? std::vector<float>{1, 4} : std::vector<float>{0.25f, 4}));
  }
}
