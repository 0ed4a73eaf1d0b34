// Static plans per input-shape signature for dynamic models (plan_cache.h):
// a signature gets its plan on its ge.exec.dynamicPlanAfterRuns-th run and
// later runs hit the cache, 1,000 runs at varying shapes keep the cache
// within its byte cap and match a float64 reference, and shapes that depend
// on data (NonZero) plan only the static head before them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "ge/profile.h"
#include "runtime/dynamic/dynamic_executor.h"
#include "runtime/dynamic/plan_cache.h"
#include "sequence_model.h"
#include "test_models.h"
#include "test_support.h"

using ge::DataType;
using ge::Shape;
using ge::Tensor;
using ge::test::SequenceModel;
using ge::test::ExecutorOf;

namespace {

// Plans from the first run at a signature, so that every run counts.
const ge::Options kPlanAtOnce = {{"ge.exec.dynamicPlanAfterRuns", "1"}};

}  // namespace

TEST_CASE("dynamic plans: a signature gets its plan on its second run; one that never repeats never compiles",
          "[dynamic][plans]") {
  SequenceModel sequence;
  auto model = ge::CompiledModel::Compile(sequence.Build());
  const ge::runtime::DynamicExecutor& executor = ExecutorOf(*model);
  Tensor x = SequenceModel::Input(2, 3, 1);
  Tensor first = model->Run({x})[0];
  CHECK(ge::test::MaxAbsDiff(first, sequence.Reference(x)) < 1e-5);
  CHECK(executor.plans().size() == 0);  // the first run went node by node
  const uint64_t kernels = executor.kernels_built();
  CHECK(kernels > 0);
  CHECK(ge::test::MaxAbsDiff(model->Run({x})[0], sequence.Reference(x)) < 1e-5);
  CHECK(executor.plans().size() == 1);  // the second compiled the plan
  CHECK(ge::test::MaxAbsDiff(model->Run({x})[0], sequence.Reference(x)) < 1e-5);
  CHECK(executor.plans().hits() == 1);

  // A KV-cache decoder's pattern: the sequence grows by one each run.
  for (int64_t length = 4; length < 40; ++length) {
    Tensor step = SequenceModel::Input(2, length, static_cast<uint32_t>(length));
    CHECK(ge::test::MaxAbsDiff(model->Run({step})[0], sequence.Reference(step)) < 1e-5);
  }
  CHECK(executor.plans().size() == 1);
  CHECK(executor.plans_shapes());
  // 3 runs at (2, 3), 36 at new lengths: the second run at (2, 3) compiled its plan, and the third used it.
  const ge::RunStats stats = model->run_stats();
  CHECK(stats.runs == 39);
  CHECK(stats.planned_runs == 2);
  CHECK(stats.node_by_node_runs == 37);
  CHECK(stats.plans_compiled == 1);
}

TEST_CASE("run stats: a static model counts its runs and its one arena", "[plans]") {
  ge::GraphBuilder b("static_relu");
  b.Output(b.Relu(b.Input("x", DataType::kFloat, {2, 3}), "relu"));
  auto model = ge::CompiledModel::Compile(b.Build());
  for (int run = 0; run < 3; ++run) model->Run({ge::test::RandomTensor({2, 3}, 7)});
  const ge::RunStats stats = model->run_stats();
  CHECK(stats.runs == 3);
  CHECK(stats.planned_runs == 3);
  CHECK(stats.node_by_node_runs == 0);
  CHECK(stats.plans_compiled == 0);
  CHECK(stats.kernels_built == 0);
  CHECK(stats.buffer_allocations == 1);
}

TEST_CASE("dynamic plans: a model with symbolic dims compiles once and plans per input shape", "[dynamic][plans]") {
  SequenceModel sequence;
  auto model = ge::CompiledModel::Compile(sequence.Build(), kPlanAtOnce);
  CHECK(model->memory().dynamic);
  CHECK(model->inputs()[0].shape == Shape{Shape::kUnknownDim, Shape::kUnknownDim, SequenceModel::kFeatures});
  const ge::runtime::PlanCache& plans = ExecutorOf(*model).plans();
  CHECK(ExecutorOf(*model).plans_shapes());
  CHECK(plans.size() == 0);

  Tensor x = SequenceModel::Input(2, 3, 1);
  Tensor first = model->Run({x})[0];
  CHECK(first.shape() == Shape{2, 3 * SequenceModel::kHidden});
  CHECK(ge::test::MaxAbsDiff(first, sequence.Reference(x)) < 1e-5);
  CHECK(plans.size() == 1);
  CHECK(plans.misses() == 1);
  CHECK(plans.hits() == 0);
  CHECK(plans.bytes() > 0);

  // The same signature, other values: a hit, no new plan, the same bits as before for the same input.
  Tensor other = SequenceModel::Input(2, 3, 2);
  CHECK(ge::test::MaxAbsDiff(model->Run({other})[0], sequence.Reference(other)) < 1e-5);
  CHECK(ge::test::BitIdentical(model->Run({x})[0], first));
  CHECK(plans.size() == 1);
  CHECK(plans.hits() == 2);
  CHECK(plans.misses() == 1);
  CHECK(ExecutorOf(*model).cached_kernels() == 0);  // nothing ran node by node

  Tensor longer = SequenceModel::Input(2, 7, 3);
  CHECK(ge::test::MaxAbsDiff(model->Run({longer})[0], sequence.Reference(longer)) < 1e-5);
  CHECK(plans.size() == 2);
}

TEST_CASE("dynamic plans: 1000 runs at varying shapes stay within the byte cap", "[dynamic][plans]") {
  SequenceModel sequence;
  // The charge of one plan at the largest shape used, to size a cap that
  // holds a few plans but far fewer than the signatures the loop visits.
  size_t largest_plan = 0;
  {
    auto probe = ge::CompiledModel::Compile(sequence.Build(), kPlanAtOnce);
    probe->Run({SequenceModel::Input(8, 32, 1)});
    largest_plan = ExecutorOf(*probe).plans().bytes();
  }
  REQUIRE(largest_plan > 0);
  const size_t cap = 4 * largest_plan;
  auto model = ge::CompiledModel::Compile(
      sequence.Build(), {{"ge.exec.dynamicPlanCacheBytes", std::to_string(cap)}, {"ge.exec.dynamicPlanAfterRuns", "1"}});
  const ge::runtime::PlanCache& plans = ExecutorOf(*model).plans();
  CHECK(plans.capacity() == cap);

  std::set<std::pair<int64_t, int64_t>> signatures;
  size_t most_bytes = 0;
  double worst = 0;
  bool shapes_ok = true;
  for (int run = 0; run < 1000; ++run) {
    // Every other run at one hot shape (hits; it stays recently used), the
    // others cycling through 16 shapes, more than the cap holds (misses,
    // evictions).
    bool hot = run % 2 == 1;
    int64_t batch = hot ? 2 : 1 + (run * 7) % 8;
    int64_t length = hot ? 5 : 1 + (run * 13) % 32;
    Tensor x = SequenceModel::Input(batch, length, static_cast<uint32_t>(run));
    Tensor y = model->Run({x})[0];
    signatures.insert({batch, length});
    shapes_ok &= y.shape() == Shape{batch, length * SequenceModel::kHidden};
    if (y.shape() == Shape{batch, length * SequenceModel::kHidden}) {
      worst = std::max(worst, ge::test::MaxAbsDiff(y, sequence.Reference(x)));
    }
    most_bytes = std::max(most_bytes, plans.bytes());
  }
  CHECK(shapes_ok);
  CHECK(worst < 1e-5);
  CHECK(most_bytes <= cap);
  CHECK(plans.bytes() <= cap);
  CHECK(plans.size() >= 1);
  CHECK(plans.size() < signatures.size());  // plans were evicted
  CHECK(plans.hits() >= 499);  // the hot shape, after its first run
  CHECK(plans.hits() + plans.misses() == 1000);
}

TEST_CASE("dynamic plans: weights kept only packed serve node-by-node runs and plans alike; no save",
          "[dynamic][plans]") {
  // ge.exec.releasePackedConstants on a dynamic model: its product's weight
  // is packed when compiling and the plain bytes freed (packed_weights.h).
  SequenceModel sequence;
  auto model = ge::CompiledModel::Compile(sequence.Build(), {{"ge.exec.releasePackedConstants", "1"}});
  const ge::runtime::DynamicExecutor& executor = ExecutorOf(*model);
  const ge::Value* weight = model->graph().FindNode("w")->output(0);
  CHECK(weight->constant()->shape() == weight->shape());  // the dtype and shape stay the weight's
  double worst = 0;
  for (int run = 0; run < 120; ++run) {
    // Shapes that come back (planned from their second run) among ones that do not (node by node).
    const int64_t batch = run % 3 == 0 ? 2 : 1 + run % 5;
    const int64_t length = run % 3 == 0 ? 5 : 1 + (run * 7) % 23;
    Tensor x = SequenceModel::Input(batch, length, static_cast<uint32_t>(run));
    worst = std::max(worst, ge::test::MaxAbsDiff(model->Run({x})[0], sequence.Reference(x)));
  }
  CHECK(worst < 1e-5);
  const ge::RunStats stats = model->run_stats();
  CHECK(stats.planned_runs > 30);
  CHECK(stats.node_by_node_runs > 30);
  CHECK(executor.plans().size() > 1);
  CHECK(ge::test::ErrorCodeOf([&] { model->Save("/dev/null"); }) == ge::ErrorCode::kUnsupported);
}

TEST_CASE("dynamic plans: a weight that is also a graph output stays plain", "[dynamic][plans]") {
  SequenceModel sequence;
  std::unique_ptr<ge::Graph> graph = sequence.Build();
  std::vector<ge::Value*> outputs = graph->outputs();
  outputs.push_back(graph->FindNode("w")->output(0));
  graph->SetOutputs(outputs);
  auto model = ge::CompiledModel::Compile(std::move(graph), {{"ge.exec.releasePackedConstants", "1"}});
  for (int run = 0; run < 3; ++run) {  // node by node, then compiling the plan, then planned
    Tensor x = SequenceModel::Input(2, 3, 1);
    std::vector<Tensor> y = model->Run({x});
    CHECK(ge::test::MaxAbsDiff(y[0], sequence.Reference(x)) < 1e-5);
    CHECK(ge::test::BitIdentical(y[1], sequence.weight));
  }
}

TEST_CASE("dynamic plans: the static head before a NonZero is planned, the rest runs node by node",
          "[dynamic][plans]") {
  // y = Relu(x * 2 - 1), z = Sigmoid(y); NonZero(y) depends on data.
  ge::GraphBuilder b("nonzero_after_head");
  ge::Value* x = b.Input("x", DataType::kFloat, {Shape::kUnknownDim});
  ge::Value* two = b.Constant("two", Tensor::FromVector(DataType::kFloat, {}, std::vector<float>{2}));
  ge::Value* one = b.Constant("one", Tensor::FromVector(DataType::kFloat, {}, std::vector<float>{1}));
  ge::Value* y = b.Relu(b.Op("Sub", {b.Op("Mul", {x, two}, {}, 1, "mul")[0], one}, {}, 1, "sub")[0], "relu");
  b.Outputs({b.Op("NonZero", {y}, {}, 1, "nonzero")[0], b.Sigmoid(y, "sigmoid")});
  auto model = ge::CompiledModel::Compile(b.Build(), kPlanAtOnce);
  const ge::runtime::DynamicExecutor& executor = ExecutorOf(*model);
  const std::vector<std::vector<float>> inputs = {{0, 2, 0.5f, -3}, {1, 0, 5}, {0, 0, 7, 0, 0.25f, 1}, {1, 0, 5}};
  for (const std::vector<float>& values : inputs) {
    Tensor input = Tensor::FromVector(DataType::kFloat, {static_cast<int64_t>(values.size())}, values);
    std::vector<Tensor> out = model->Run({input});
    std::vector<int64_t> expected;
    for (size_t i = 0; i < values.size(); ++i) {
      if (std::max(values[i] * 2 - 1, 0.0f) != 0) expected.push_back(static_cast<int64_t>(i));
    }
    REQUIRE(out[0].shape() == Shape{1, static_cast<int64_t>(expected.size())});
    CHECK(std::vector<int64_t>(out[0].values<int64_t>().begin(), out[0].values<int64_t>().end()) == expected);
    for (size_t i = 0; i < values.size(); ++i) {
      CHECK(out[1].data_as<float>()[i] == Approx(1 / (1 + std::exp(-std::max(values[i] * 2 - 1, 0.0f)))));
    }
  }
  // Every run after the first at its length ran a plan: the head compiled
  // statically inside a model that runs NonZero node by node.
  CHECK(executor.plans_shapes());
  CHECK(executor.plans().size() == 3);
  const ge::RunStats stats = model->run_stats();
  CHECK(stats.plans_compiled == 3);
  CHECK(stats.planned_runs == 4);
}

TEST_CASE("dynamic plans: the static regions before and after an If are planned around it", "[dynamic][plans]") {
  // h = Tanh(x @ w1); g = If(c) then h + h else h * h; y = Sigmoid(g @ w2).
  // The If makes the model dynamic and comes third, so a head alone (two
  // nodes) was never worth a plan; the region after it makes it so.
  constexpr int64_t kRows = 4, kIn = 8, kOut = 3;
  const Tensor w1 = ge::test::RandomTensor({kIn, kIn}, 91);
  const Tensor w2 = ge::test::RandomTensor({kIn, kOut}, 92);
  auto branch = [](const std::string& name, const std::string& op) {
    ge::GraphBuilder b(name);
    ge::Value* h = b.Input("h", DataType::kFloat, {kRows, kIn});
    b.Output(b.Op(op, {h, h})[0]);
    return std::shared_ptr<const ge::Graph>(b.Build());
  };
  ge::GraphBuilder b("if_between_regions");
  ge::Value* c = b.Input("c", DataType::kBool, {});
  ge::Value* x = b.Input("x", DataType::kFloat, {kRows, kIn});
  ge::Value* h = b.Op("Tanh", {b.BatchMatMul(x, b.Constant("w1", w1), false, false, "first")}, {}, 1, "tanh")[0];
  ge::Value* g = b.Op("If", {c, h}, {{"then_branch", branch("then", "Add")}, {"else_branch", branch("else", "Mul")}},
                      1, "pick")[0];
  b.Output(b.Sigmoid(b.BatchMatMul(g, b.Constant("w2", w2), false, false, "second"), "sigmoid"));
  auto model = ge::CompiledModel::Compile(b.Build(), kPlanAtOnce);
  const ge::runtime::DynamicExecutor& executor = ExecutorOf(*model);

  for (int run = 0; run < 4; ++run) {
    const bool add = run % 2 == 0;
    const Tensor input = ge::test::RandomTensor({kRows, kIn}, 93 + static_cast<uint32_t>(run));
    const Tensor cond = Tensor::FromVector(DataType::kBool, Shape{}, std::vector<uint8_t>{add});
    const Tensor y = model->Run({cond, input}).at(0);
    REQUIRE(y.shape() == Shape({kRows, kOut}));
    for (int64_t r = 0; r < kRows; ++r) {
      std::vector<double> hidden(kIn);
      for (int64_t j = 0; j < kIn; ++j) {
        double sum = 0;
        for (int64_t k = 0; k < kIn; ++k) {
          sum += double{input.data_as<float>()[r * kIn + k]} * w1.data_as<float>()[k * kIn + j];
        }
        hidden[j] = add ? 2 * std::tanh(sum) : std::tanh(sum) * std::tanh(sum);
      }
      for (int64_t o = 0; o < kOut; ++o) {
        double sum = 0;
        for (int64_t j = 0; j < kIn; ++j) sum += hidden[j] * w2.data_as<float>()[j * kOut + o];
        CHECK(y.data_as<float>()[r * kOut + o] == Approx(1 / (1 + std::exp(-sum))).epsilon(1e-5));
      }
    }
  }
  const ge::RunStats stats = model->run_stats();
  CHECK(stats.plans_compiled == 1);
  CHECK(stats.planned_runs == 4);
  // The plan: the two regions as static calls, the If between them.
  const std::shared_ptr<const ge::CompiledModel> plan = executor.plans().Peek({0, 2, kRows, kIn});
  REQUIRE(plan != nullptr);
  std::multiset<std::string> steps;
  for (const ge::Node* node : plan->graph().nodes()) {
    if (node->op_type() != "Data" && node->op_type() != "Const") steps.insert(node->op_type());
  }
  CHECK(steps == std::multiset<std::string>{"If", "PartitionedCall", "PartitionedCall"});
}

TEST_CASE("dynamic plans: weights kept only packed serve a planned head and the rest after a NonZero",
          "[dynamic][plans]") {
  // h = x @ w1 is the static head; the rows of h whose sum is positive
  // (NonZero) are multiplied by w2 node by node, in the model split off for
  // the rest. Both weights are large enough for a blocked packed layout.
  constexpr int64_t kIn = 64, kHidden = 64, kOut = 48;
  const Tensor w1 = ge::test::RandomTensor({kIn, kHidden}, 71);
  const Tensor w2 = ge::test::RandomTensor({kHidden, kOut}, 72);
  ge::GraphBuilder b("nonzero_between_products");
  ge::Value* x = b.Input("x", DataType::kFloat, {Shape::kUnknownDim, kIn});
  ge::Value* h = b.BatchMatMul(x, b.Constant("w1", w1), false, false, "head");
  ge::Value* sums = b.Op("ReduceSumD", {h}, {{"axes", std::vector<int64_t>{1}}, {"keep_dims", false}}, 1, "sums")[0];
  ge::Value* rows = b.Op("NonZero", {b.Relu(sums, "positive")}, {}, 1, "rows")[0];  // [1, count]
  ge::Value* kept = b.Op("GatherV2D", {h, rows}, {{"axis", int64_t{0}}}, 1, "kept")[0];  // [1, count, kHidden]
  b.Outputs({b.BatchMatMul(kept, b.Constant("w2", w2), false, false, "rest"), rows});
  auto model = ge::CompiledModel::Compile(
      b.Build(), {{"ge.exec.releasePackedConstants", "1"}, {"ge.exec.dynamicPlanAfterRuns", "1"}});
  for (int64_t count : {9, 17, 9, 5, 17}) {
    const Tensor input = ge::test::RandomTensor({count, kIn}, static_cast<uint32_t>(count));
    std::vector<std::vector<double>> hidden(count, std::vector<double>(kHidden, 0.0));
    for (int64_t r = 0; r < count; ++r) {
      for (int64_t c = 0; c < kHidden; ++c) {
        for (int64_t k = 0; k < kIn; ++k) {
          hidden[r][c] += double{input.data_as<float>()[r * kIn + k]} * w1.data_as<float>()[k * kHidden + c];
        }
      }
    }
    std::vector<Tensor> out = model->Run({input});
    const std::vector<int64_t> chosen(out[1].values<int64_t>().begin(), out[1].values<int64_t>().end());
    for (int64_t r = 0; r < count; ++r) {  // rows whose sum is clearly positive or negative
      double sum = 0;
      for (double v : hidden[r]) sum += v;
      const bool in = std::find(chosen.begin(), chosen.end(), r) != chosen.end();
      if (std::abs(sum) > 1e-3) CHECK(in == (sum > 0));
    }
    REQUIRE(out[0].shape() == Shape{1, static_cast<int64_t>(chosen.size()), kOut});
    for (size_t i = 0; i < chosen.size(); ++i) {
      for (int64_t n = 0; n < kOut; ++n) {
        double expected = 0;
        for (int64_t c = 0; c < kHidden; ++c) expected += hidden[chosen[i]][c] * w2.data_as<float>()[c * kOut + n];
        CHECK(out[0].data_as<float>()[i * kOut + n] == Approx(expected).margin(1e-4));
      }
    }
  }
  const ge::RunStats stats = model->run_stats();
  CHECK(stats.planned_runs == 5);  // each ran its shape's planned head
  CHECK(ge::test::ErrorCodeOf([&] { model->Save("/dev/null"); }) == ge::ErrorCode::kUnsupported);
}

TEST_CASE("dynamic plans: shapes that depend on data from the start run node by node", "[dynamic][plans]") {
  ge::GraphBuilder b("nonzero_first");
  ge::Value* x = b.Input("x", DataType::kFloat, {Shape::kUnknownDim});
  ge::Value* indices = b.Op("NonZero", {x}, {}, 1, "nonzero")[0];
  b.Outputs({b.Relu(b.Cast(indices, DataType::kFloat, "cast"), "relu")});
  auto model = ge::CompiledModel::Compile(b.Build(), kPlanAtOnce);
  for (std::vector<float> values : {std::vector<float>{0, 2, 0, -3}, {1, 0, 5}, {0, 0, 7, 0, 0, 1}}) {
    Tensor input = Tensor::FromVector(DataType::kFloat, {static_cast<int64_t>(values.size())}, values);
    std::vector<Tensor> y = model->Run({input});
    std::vector<float> expected;
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i] != 0) expected.push_back(static_cast<float>(i));
    }
    REQUIRE(y[0].shape() == Shape{1, static_cast<int64_t>(expected.size())});
    CHECK(std::vector<float>(y[0].values<float>().begin(), y[0].values<float>().end()) == expected);
  }
  CHECK_FALSE(ExecutorOf(*model).plans_shapes());
  CHECK(ExecutorOf(*model).plans().size() == 0);
  CHECK(ExecutorOf(*model).cached_kernels() > 0);
}

TEST_CASE("dynamic plans: a cap of 0 bytes switches per-shape plans off", "[dynamic][plans]") {
  SequenceModel sequence;
  auto model = ge::CompiledModel::Compile(sequence.Build(), {{"ge.exec.dynamicPlanCacheBytes", "0"}});
  CHECK_FALSE(ExecutorOf(*model).plans_shapes());
  Tensor x = SequenceModel::Input(3, 2, 9);
  CHECK(ge::test::MaxAbsDiff(model->Run({x})[0], sequence.Reference(x)) < 1e-5);
  CHECK(ExecutorOf(*model).plans().size() == 0);
  CHECK(ExecutorOf(*model).cached_kernels() > 0);
}

TEST_CASE("dynamic plans: a plan larger than the cap serves its run and is not kept", "[dynamic][plans]") {
  SequenceModel sequence;
  auto model = ge::CompiledModel::Compile(sequence.Build(),
                                          {{"ge.exec.dynamicPlanCacheBytes", "1"}, {"ge.exec.dynamicPlanAfterRuns", "1"}});
  Tensor x = SequenceModel::Input(2, 2, 10);
  CHECK(ge::test::MaxAbsDiff(model->Run({x})[0], sequence.Reference(x)) < 1e-5);
  CHECK(ExecutorOf(*model).plans_shapes());
  CHECK(ExecutorOf(*model).plans().size() == 0);
  CHECK(ExecutorOf(*model).plans().bytes() == 0);
}
