// SummarizePlan: the steps, streams and arena placements a compiled model
// reports, checked against the model's own graph and memory summary.
#include <catch2/catch.hpp>

#include "ge/compiled_model.h"
#include "ge/plan_summary.h"
#include "test_models.h"

namespace {

using ge::PlanSummary;

}  // namespace

TEST_CASE("The plan summary lists every step and places activations inside the arena", "[runtime][summary]") {
  auto model = ge::CompiledModel::Compile(ge::test::MlpModel().Build());
  const PlanSummary plan = ge::SummarizePlan(*model);
  CHECK_FALSE(plan.dynamic);
  CHECK(plan.feature_bytes == model->memory().arena_bytes);
  CHECK(plan.const_bytes == model->memory().const_bytes);
  CHECK(plan.stream_count >= 1);
  REQUIRE(plan.outputs.size() == 1);
  CHECK(plan.outputs[0].shape == ge::Shape{4, 2});

  // Every node of the compiled graph but Data and Const is a step, once.
  size_t runnable = 0;
  for (const ge::Node* node : model->graph().nodes()) runnable += node->op_type() != "Data" && node->op_type() != "Const";
  CHECK(plan.steps.size() == runnable);
  int events = 0;
  for (const ge::PlannedStep& step : plan.steps) {
    CHECK(model->graph().FindNode(step.node) != nullptr);
    CHECK_FALSE(step.outputs.empty());
    CHECK(step.stream >= 0);
    CHECK(step.stream < plan.stream_count);
    events += step.waits;
  }
  CHECK(events == plan.event_count);

  for (const ge::PlannedBuffer& buffer : plan.buffers) {
    INFO(buffer.value);
    CHECK(buffer.offset + buffer.bytes <= plan.feature_bytes);
    CHECK(0 <= buffer.first_step);
    CHECK(buffer.first_step <= buffer.last_step);
    CHECK(buffer.last_step < static_cast<int>(plan.steps.size()));
  }
}

TEST_CASE("A dynamic model's summary says so and lists no steps", "[runtime][summary]") {
  ge::Graph graph("dynamic");
  ge::Value* x = graph.AddInput("x", ge::DataType::kFloat, {ge::Shape::kUnknownDim});
  ge::Node* relu = graph.AddNode("Relu", "relu", {x});
  graph.SetOutputs({relu->output(0)});
  auto model = ge::CompiledModel::Compile(std::make_unique<ge::Graph>(std::move(graph)));
  const PlanSummary plan = ge::SummarizePlan(*model);
  CHECK(plan.dynamic);
  CHECK(plan.steps.empty());
  CHECK(plan.buffers.empty());
  CHECK(plan.feature_bytes == 0);
}
