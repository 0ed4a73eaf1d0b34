// CompiledModel::Run with a RunProfile: every step recorded once, in start
// order, with the run's shapes; results unchanged by profiling.
#include <catch2/catch.hpp>

#include <algorithm>

#include "ge/compiled_model.h"
#include "ge/plan_summary.h"
#include "ge/profile.h"
#include "test_models.h"

using ge::Shape;
using ge::Tensor;

TEST_CASE("A profiled run records every planned step with its shapes and live bytes", "[runtime][profile]") {
  const ge::test::MlpModel mlp;
  auto model = ge::CompiledModel::Compile(mlp.Build());
  const Tensor x = ge::test::RandomTensor(ge::test::MlpModel::InputShape(), 5);
  ge::RunProfile profile;
  std::vector<Tensor> profiled = model->Run({x}, &profile);
  CHECK(ge::test::BitIdentical(profiled[0], model->Run({x})[0]));

  const ge::PlanSummary plan = ge::SummarizePlan(*model);
  REQUIRE(profile.steps.size() == plan.steps.size());
  for (size_t i = 0; i < profile.steps.size(); ++i) {
    const ge::StepProfile& step = profile.steps[i];
    INFO(step.node);
    CHECK(model->graph().FindNode(step.node)->op_type() == step.op_type);
    CHECK(step.duration_us >= 0);
    CHECK(step.start_us + step.duration_us <= profile.total_us);
    CHECK_FALSE(step.kernel.empty());
    CHECK(step.live_bytes <= model->memory().arena_bytes);
    if (i > 0) CHECK(profile.steps[i - 1].start_us <= step.start_us);
  }
  // The last step makes the output: Reshape to [4, 2].
  CHECK(profile.steps.back().output_shapes == std::vector<Shape>{Shape{4, 2}});
  const auto busiest = std::max_element(profile.steps.begin(), profile.steps.end(),
                                        [](const auto& a, const auto& b) { return a.live_bytes < b.live_bytes; });
  CHECK(busiest->live_bytes > 0);
}

TEST_CASE("A profiled dynamic run records the run's own shapes", "[runtime][profile]") {
  ge::Graph graph("dynamic");
  ge::Value* x = graph.AddInput("x", ge::DataType::kFloat, {Shape::kUnknownDim, 3});
  ge::Node* relu = graph.AddNode("Relu", "relu", {x});
  graph.SetOutputs({relu->output(0)});
  auto model = ge::CompiledModel::Compile(std::make_unique<ge::Graph>(std::move(graph)));
  REQUIRE(model->memory().dynamic);
  for (int64_t rows : {2, 7}) {
    ge::RunProfile profile;
    model->Run({ge::test::RandomTensor({rows, 3}, 9)}, &profile);
    REQUIRE(profile.steps.size() == 1);
    CHECK(profile.steps[0].op_type == "Relu");
    CHECK(profile.steps[0].output_shapes == std::vector<Shape>{Shape{rows, 3}});
    CHECK(profile.total_us >= profile.steps[0].duration_us);
  }
}
